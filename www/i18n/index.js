// The UI language: English or 简体中文, chosen by the reader (remembered) or from the browser.
// Elements carry `data-i18n` (text), `data-i18n-aria` (aria-label) and `data-i18n-title` keys.
import * as english from './en.js';
import * as chinese from './zh-CN.js';

/** The languages offered, by BCP 47 tag. */
export const LOCALES = { en: english, 'zh-CN': chinese };
const STORAGE_KEY = 'tilelab.locale';

let current = 'en';
const listeners = new Set();

function initialLocale() {
  let stored = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage can be disabled; the browser language decides then.
  }
  if (stored && Object.hasOwn(LOCALES, stored)) return stored;
  return (navigator.languages ?? [navigator.language]).some((tag) => /^zh\b/i.test(tag)) ? 'zh-CN' : 'en';
}

/** The current locale tag. */
export function locale() {
  return current;
}

/** The translated string for `key` with `{name}` parameters filled in (English when missing). */
export function t(key, parameters = {}) {
  const template = LOCALES[current].strings[key] ?? english.strings[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in parameters ? String(parameters[name]) : whole));
}

/** CodeMirror phrases of the current locale. */
export function editorPhrases() {
  return LOCALES[current].editorPhrases;
}

/** Translates every marked element under `root`. */
export function translate(root = document) {
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-i18n]'))) element.textContent = t(element.dataset.i18n);
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-i18n-aria]'))) element.setAttribute('aria-label', t(element.dataset.i18nAria));
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-i18n-title]'))) element.title = t(element.dataset.i18nTitle);
}

/** Switches the language, remembers it, retranslates the page and tells listeners. */
export function setLocale(tag) {
  if (!Object.hasOwn(LOCALES, tag)) return;
  current = tag;
  try {
    localStorage.setItem(STORAGE_KEY, tag);
  } catch {
    // Not remembered; still switched.
  }
  document.documentElement.lang = tag;
  translate();
  for (const listener of listeners) listener(tag);
}

/** Calls `listener(tag)` after every language switch. */
export function onLocaleChange(listener) {
  listeners.add(listener);
}

/** Picks the first language (stored or from the browser) and translates the page. */
export function initLocale() {
  current = initialLocale();
  document.documentElement.lang = current;
  translate();
}
