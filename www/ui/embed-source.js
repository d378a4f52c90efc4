// What an embed shows, from its address: `embed.html?src=…&cell=…&mode=read&run=0&lang=…&theme=…
// &frame=…#nb=…`. Every parameter is validated here; an invalid one is ignored (the default holds),
// so a typo in a tutorial page never breaks the page that embeds it.
import { fromFile } from '../notebook/format.js';
import { listExamples } from './gallery.js';

/** The most characters a frame id may have (it is only echoed back in resize messages). */
const MAX_FRAME_ID = 64;
/** The NPU presets `preset=` may name (the engine's table, src/npu/config). */
export const PRESETS = ['Ascend910B2', 'Ascend910A', 'teaching'];
/** The most cells `cell=` may point at, far above any notebook's length. */
const MAX_CELL = 10_000;

/** A notebook source an embed could not open. */
export class EmbedSourceError extends Error {
  constructor(source, detail) {
    super(detail);
    this.name = 'EmbedSourceError';
    this.source = source;
  }
}

/**
 * The embed's options from `location.search`: { src, cell (1-based, or null), cellEnd (the last
 * cell of a `cell=N-M` range, else equal to cell), preset (an NPU preset or null), mode ('read' |
 * 'edit'), canRun, lang ('en' | 'zh-CN' | null), theme ('light' | 'dark' | null), frame (or null) }.
 */
export function parseEmbedQuery(search, locales) {
  const query = new URLSearchParams(search);
  // `cell=N` or a range `cell=N-M` (both 1-based, M ≥ N).
  const range = /^([1-9][0-9]*)(?:-([1-9][0-9]*))?$/.exec(query.get('cell') ?? '');
  const first = range ? Number(range[1]) : null;
  const last = range?.[2] ? Number(range[2]) : first;
  const validRange = first !== null && first <= MAX_CELL && last <= MAX_CELL && last >= first;
  const preset = query.get('preset');
  const lang = query.get('lang');
  const theme = query.get('theme');
  const frame = query.get('frame') ?? '';
  return {
    src: query.get('src') || null,
    cell: validRange ? first : null,
    cellEnd: validRange ? last : null,
    preset: PRESETS.includes(preset) ? preset : null,
    mode: query.get('mode') === 'read' ? 'read' : 'edit',
    canRun: query.get('run') !== '0',
    // Own keys only: `__proto__` or `constructor` are "in" every object.
    lang: lang !== null && Object.hasOwn(locales, lang) ? lang : null,
    theme: theme === 'light' || theme === 'dark' ? theme : null,
    frame: frame.length > 0 && frame.length <= MAX_FRAME_ID && /^[A-Za-z0-9_-]+$/.test(frame) ? frame : null,
  };
}

/**
 * The cells of `src`: an example bundled with the page (`examples/NAME.py` or `NAME.py`), else a
 * `.py`/`.ipynb` file on the page's own origin (the Content-Security-Policy allows nothing else).
 */
export async function loadSource(src, base = location.href) {
  const bundled = /^(?:\.\/)?(?:examples\/)?([\w.-]+\.py)$/.exec(src);
  if (bundled) {
    const example = (await listExamples()).find((entry) => entry.name === bundled[1]);
    if (example) return example.cells();
  }
  let url;
  try {
    url = new URL(src, base);
  } catch {
    throw new EmbedSourceError(src, 'not a valid address');
  }
  if (url.origin !== new URL(base).origin) throw new EmbedSourceError(src, 'only files of this site can be embedded');
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (error) {
    throw new EmbedSourceError(src, error.message);
  }
  if (!response.ok) throw new EmbedSourceError(src, `HTTP ${response.status}`);
  try {
    return fromFile(url.pathname, await response.text()).cells;
  } catch (error) {
    throw new EmbedSourceError(src, error.message);
  }
}

/**
 * Splits a notebook for `cell=N` or `cell=N-M` (1-based, counting every cell, markdown too): the
 * cells shown (N to M, cut at the notebook's end),
 * and the code of the code cells above it, which runs unseen first so the shown cell has its
 * definitions. Null when the notebook has no cell N.
 */
export function selectCell(cells, number, last = number) {
  if (number < 1 || number > cells.length || last < number) return null;
  const above = cells.slice(0, number - 1).filter((cell) => cell.kind === 'code');
  return { shown: cells.slice(number - 1, Math.min(last, cells.length)), prelude: above.map((cell) => cell.source) };
}
