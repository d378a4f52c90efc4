// The DOM helpers every view builds with. Text always goes in as textContent and attribute values as
// attribute text, so user text is never parsed as HTML.
import { t } from '../i18n/index.js';

/** A new element with an optional class and text. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A `<div>` with a class. */
export function div(className) {
  return element('div', className);
}

/** A new element showing the translation of `key`, marked (data-i18n) so a language switch retranslates it. */
export function translatedElement(tag, className, key) {
  const node = element(tag, className);
  if (key) {
    node.dataset.i18n = key;
    node.textContent = t(key);
  }
  return node;
}

/**
 * A button that never submits a form: a visible text, a click action and, when the text alone
 * does not say what it does (a symbol), an accessible name `label`.
 */
export function button(className, text, onClick, label) {
  const node = /** @type {HTMLButtonElement} */ (element('button', className, text));
  node.type = 'button';
  if (label) node.setAttribute('aria-label', label);
  if (onClick) node.addEventListener('click', onClick);
  return node;
}

/**
 * A symbol button whose accessible name and tooltip are the translation of `labelKey` (kept in step
 * with the language). The click stops at the button: it sits inside a cell whose own click selects it.
 */
export function iconButton(className, symbol, labelKey, onClick) {
  const node = button(`icon-button ${className}`, symbol, (event) => {
    event.stopPropagation();
    onClick();
  });
  node.dataset.i18nAria = labelKey;
  node.dataset.i18nTitle = labelKey;
  node.setAttribute('aria-label', t(labelKey));
  node.title = t(labelKey);
  return node;
}

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/** A new SVG element with attributes (values set as attribute text, never parsed as markup). */
export function svgElement(tag, attributes = {}) {
  const node = document.createElementNS(SVG_NAMESPACE, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}
