// <tile-lab>: a live TileLab cell in a tutorial page. One script (dist/tile-lab.js, next to
// embed.html) defines the element; each element shows an iframe of embed.html and follows the
// height of its content. No special headers are needed: the embed uses no SharedArrayBuffer.
//
//   <script type="module" src="…/tile-lab.js"></script>
//   <tile-lab src="examples/02_swish_gradient.py" cell="3" mode="read" lang="zh-CN" theme="dark"></tile-lab>
//   <tile-lab>x = pt.randn([4, 4], seed=1)
//   x</tile-lab>                                   (inline code: the element's text is one code cell)
//
// Attributes: src, cell (1-based, markdown counted; "3-5" shows a range), preset (the NPU:
// "Ascend910B2" | "Ascend910A" | "teaching"), mode ("read"), run ("0": no running), lang
// ("en" | "zh-CN"), theme ("light" | "dark"), height (fixed pixels; otherwise it follows its
// content), max-height (pixels), label (the frame's accessible name).
import { encodeNotebook } from './notebook/share.js';
import { inlineCode } from './ui/inline-code.js';

// A variable, not a literal: Vite would otherwise treat new URL('…', import.meta.url) as an asset.
const EMBED_PAGE = 'embed.html';
/** The message type the embed sends its height with (www/ui/embed-frame.js). */
const SIZE_MESSAGE = 'tilelab:size';
/** Heights past this are refused as nonsense, whoever sent them. */
const MAX_REPORTED_HEIGHT = 100_000;
/** The frame's height before the embed has reported its own. */
const INITIAL_HEIGHT = 180;
const TITLES = { en: 'TileLab notebook', 'zh-CN': 'TileLab 笔记本' };
const PASSED_THROUGH = {
  mode: (value) => value === 'read' || value === 'edit',
  run: (value) => value === '0' || value === '1',
  lang: (value) => value in TITLES,
  theme: (value) => value === 'light' || value === 'dark',
  cell: (value) => /^[1-9][0-9]{0,4}(-[1-9][0-9]{0,4})?$/.test(value),
  preset: (value) => ['Ascend910B2', 'Ascend910A', 'teaching'].includes(value),
};

let sheet = null;
let instances = 0;

/** The host's layout; a constructed sheet, which a page's style-src policy does not block. */
function hostSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(`
      :host { display: block; margin: 1em 0; }
      :host([hidden]) { display: none; }
      iframe { display: block; width: 100%; border: 1px solid rgb(128 128 128 / 45%); border-radius: 8px;
               background: transparent; color-scheme: normal; }
    `);
  }
  return sheet;
}

/** Pixels from an attribute ("480" or "480px"), or null. */
function pixels(value) {
  const match = /^\s*(\d{1,6})(?:px)?\s*$/.exec(value ?? '');
  return match ? Number(match[1]) : null;
}

/** The <tile-lab> element. */
export class TileLabElement extends HTMLElement {
  static observedAttributes = ['src', 'cell', 'preset', 'mode', 'run', 'lang', 'theme', 'height', 'max-height', 'label'];

  constructor() {
    super();
    instances += 1;
    this.frameId = `tl${instances}x${Math.random().toString(36).slice(2, 10)}`;
    this.onMessage = this.onMessage.bind(this);
    this.pending = false;
    this.generation = 0;
  }

  connectedCallback() {
    if (!this.iframe) {
      const shadow = this.attachShadow({ mode: 'open' });
      shadow.adoptedStyleSheets = [hostSheet()];
      this.iframe = document.createElement('iframe');
      this.iframe.loading = 'lazy';
      this.iframe.style.height = `${INITIAL_HEIGHT}px`;
      shadow.append(this.iframe);
      // Inline code may arrive after the element (a page script filling it in).
      new MutationObserver(() => this.schedule()).observe(this, { childList: true, characterData: true, subtree: true });
    }
    addEventListener('message', this.onMessage);
    this.schedule();
  }

  disconnectedCallback() {
    removeEventListener('message', this.onMessage);
  }

  attributeChangedCallback() {
    if (this.iframe) this.schedule();
  }

  /** Renders once per burst of attribute and text changes. */
  schedule() {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      this.render();
    });
  }

  /** The embed address for the current attributes and text. */
  async address() {
    const url = new URL(EMBED_PAGE, import.meta.url);
    const code = inlineCode(this.textContent ?? '');
    const src = this.getAttribute('src');
    if (code === '' && src) url.searchParams.set('src', /^(?:examples\/)?[\w.-]+\.py$/.test(src) ? src : new URL(src, document.baseURI).href);
    for (const [name, valid] of Object.entries(PASSED_THROUGH)) {
      const value = this.getAttribute(name);
      if (value !== null && valid(value)) url.searchParams.set(name, value);
    }
    url.searchParams.set('frame', this.frameId);
    if (code !== '') url.hash = `nb=${await encodeNotebook([{ kind: 'code', source: code }])}`;
    return url;
  }

  async render() {
    this.generation += 1;
    const generation = this.generation;
    const url = await this.address();
    // A newer render started while this one encoded: its address wins.
    if (generation !== this.generation) return;
    this.embedOrigin = url.origin;
    const lang = this.getAttribute('lang');
    this.iframe.title = this.getAttribute('label') || TITLES[lang] || TITLES.en;
    this.fixedHeight = pixels(this.getAttribute('height'));
    this.maxHeight = pixels(this.getAttribute('max-height')) ?? MAX_REPORTED_HEIGHT;
    if (this.fixedHeight !== null) this.iframe.style.height = `${this.fixedHeight}px`;
    if (this.iframe.src !== url.href) this.iframe.src = url.href;
  }

  /** A height report: accepted only from this element's own frame, origin and id, and sane. */
  onMessage(event) {
    if (!this.iframe || event.source !== this.iframe.contentWindow || event.origin !== this.embedOrigin) return;
    const data = event.data;
    if (data === null || typeof data !== 'object' || data.type !== SIZE_MESSAGE || data.frame !== this.frameId) return;
    const height = data.height;
    if (typeof height !== 'number' || !Number.isFinite(height) || height <= 0 || height > MAX_REPORTED_HEIGHT) return;
    if (this.fixedHeight !== null) return;
    this.iframe.style.height = `${Math.min(Math.ceil(height), this.maxHeight)}px`;
    this.dispatchEvent(new CustomEvent('tilelab-resize', { detail: { height } }));
  }
}

if (!customElements.get('tile-lab')) customElements.define('tile-lab', TileLabElement);
