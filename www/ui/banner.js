// Banners above the notebook for things the reader must know (a save failed, a link was damaged).
// Each has a translated message, optional action buttons and a dismiss button.
import { onLocaleChange, t } from '../i18n/index.js';
import { button, div, element } from './dom.js';

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
export function initBanners(container) {
  host = container;
  onLocaleChange(() => banners.forEach(render));
}

/**
 * Shows (or replaces) the banner `id`: `key`/`parameters` for the message, `tone` 'error' | 'info',
 * `actions` [{ label (a string key), run }].
 */
export function showBanner(id, { key, parameters = {}, tone = 'error', actions = [] }) {
  dismissBanner(id);
  const root = div('banner');
  root.dataset.tone = tone;
  root.dataset.banner = id;
  root.setAttribute('role', tone === 'error' ? 'alert' : 'status');
  const text = element('p');
  const buttons = actions.map((action) => button('button', null, action.run));
  const close = button('icon-button banner-close', '✕', () => dismissBanner(id));
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
