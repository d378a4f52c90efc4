// Markdown cells: rendered by markdown-it with raw HTML disabled, then parsed into an inert
// document and copied into the page through an allow-list of elements and attributes. Nothing is
// ever assigned to innerHTML.
import MarkdownIt from 'markdown-it';

const renderer = new MarkdownIt({ html: false, linkify: true, typographer: false });

// Table column alignment arrives as a `style` attribute, which the page's Content-Security-Policy
// refuses (even while the HTML is only parsed): it becomes a class the stylesheet aligns by.
renderer.core.ruler.push('alignment_classes', (state) => {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const align = /text-align:\s*(left|center|right)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    if (!token.attrs) continue;
    token.attrs = token.attrs.filter(([name]) => name !== 'style');
    if (align) token.attrSet('class', `align-${align}`);
  }
});
const ALIGNMENTS = new Set(['align-left', 'align-center', 'align-right']);

const ALLOWED = new Set([
  'P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'EM', 'STRONG', 'CODE', 'PRE', 'UL', 'OL', 'LI', 'BLOCKQUOTE',
  'A', 'HR', 'BR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'S', 'DEL',
]);
const ATTRIBUTES = { A: ['href', 'title'], OL: ['start'], TH: ['class'], TD: ['class'] };

/** Only http(s), mailto and in-page links survive. */
function safeHref(href) {
  try {
    const url = new URL(href, 'https://example.invalid/');
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) || href.startsWith('#') ? href : null;
  } catch {
    return null;
  }
}

/** Copies `node`'s allowed content into fresh page nodes. */
function copyAllowed(node) {
  if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.data);
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  if (!ALLOWED.has(node.tagName)) {
    // Unknown elements keep their text, never their markup.
    return document.createTextNode(node.textContent);
  }
  const element = document.createElement(node.tagName.toLowerCase());
  for (const name of ATTRIBUTES[node.tagName] ?? []) {
    const value = node.getAttribute(name);
    if (value === null) continue;
    if (name === 'class' && !ALIGNMENTS.has(value)) continue;
    if (name === 'href') {
      const href = safeHref(value);
      if (href === null) continue;
      element.setAttribute('href', href);
      element.setAttribute('rel', 'noopener noreferrer');
      element.setAttribute('target', '_blank');
    } else {
      element.setAttribute(name, value);
    }
  }
  for (const child of node.childNodes) {
    const copy = copyAllowed(child);
    if (copy) element.append(copy);
  }
  return element;
}

/** A fragment with `source` rendered as markdown. */
export function renderMarkdown(source) {
  const html = renderer.render(source);
  const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const fragment = document.createDocumentFragment();
  for (const child of parsed.body.childNodes) {
    const copy = copyAllowed(child);
    if (copy) fragment.append(copy);
  }
  return fragment;
}
