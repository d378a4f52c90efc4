// Light, dark or the system's theme; remembered in localStorage. The stylesheet reads
// `data-theme` on <html> ("light", "dark", or absent for the system's choice).
import { t } from '../i18n/index.js';

const STORAGE_KEY = 'tilelab.theme';
const MODES = ['system', 'light', 'dark'];

function stored() {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return MODES.includes(value) ? value : 'system';
  } catch {
    return 'system';
  }
}

function apply(mode, button) {
  if (mode === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = mode;
  button.dataset.mode = mode;
  button.dataset.i18n = `toolbar.theme.${mode}`;
  button.textContent = t(`toolbar.theme.${mode}`);
}

/** Applies the remembered theme and makes `button` cycle system → light → dark. */
export function initTheme(button) {
  let mode = stored();
  apply(mode, button);
  button.addEventListener('click', () => {
    mode = MODES[(MODES.indexOf(mode) + 1) % MODES.length];
    try {
      localStorage.setItem(STORAGE_KEY, mode);
    } catch {
      // Not remembered; still applied.
    }
    apply(mode, button);
  });
}
