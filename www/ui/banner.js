// Banners above the notebook for things the reader must know (a save failed, a link was damaged).
// Each has a translated message, optional action buttons and a dismiss button.
import { onLocaleChange, t } from '../i18n/index.js';

const banners = new Map();
let host = null;

function render(banner) {
  banner.text.textContent = t(banner.key, banner.parameters);
  banner.actions.forEach((action, index) => {
    banner.buttons[index].textContent = t(action.label);
  });
  banner.close.setAttribute('aria-label', t('banner.close'));
  banner.close.title = t('banner.close');
}

/** Where banners go. */
export function initBanners(element) {
  host = element;
  onLocaleChange(() => banners.forEach(render));
}

/**
 * Shows (or replaces) the banner `id`: `key`/`parameters` for the message, `tone` 'error' | 'info',
 * `actions` [{ label (a string key), run }].
 */
export function showBanner(id, { key, parameters = {}, tone = 'error', actions = [] }) {
  dismissBanner(id);
  const root = document.createElement('div');
  root.className = 'banner';
  root.dataset.tone = tone;
  root.dataset.banner = id;
  root.setAttribute('role', tone === 'error' ? 'alert' : 'status');
  const text = document.createElement('p');
  const buttons = actions.map((action) => {
    const node = document.createElement('button');
    node.type = 'button';
    node.className = 'button';
    node.addEventListener('click', action.run);
    return node;
  });
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'icon-button banner-close';
  close.textContent = '✕';
  close.addEventListener('click', () => dismissBanner(id));
  root.append(text, ...buttons, close);
  const banner = { root, text, buttons, close, key, parameters, actions };
  render(banner);
  banners.set(id, banner);
  host.append(root);
}

/** Removes the banner `id` if shown. */
export function dismissBanner(id) {
  banners.get(id)?.root.remove();
  banners.delete(id);
}

/** Whether the banner `id` is shown. */
export function hasBanner(id) {
  return banners.has(id);
}
