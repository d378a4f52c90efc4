// Notebook files: the percent format (`.py` with `# %%` cell markers) and Jupyter nbformat 4.5.
// Same rules as the Rust side (src/session/notebook.rs), so a file written by one reads in the other.
// A cell here is { kind: 'code' | 'markdown', source: string, output? } (`output`: the kept result
// of its last run, read from and written to .ipynb outputs; see ipynb-outputs.js).
import { outputsFromIpynb, outputsToIpynb } from './ipynb-outputs.js';

/** Largest notebook file accepted, in bytes of text (the Rust side's MAX_NOTEBOOK_BYTES). */
export const MAX_NOTEBOOK_BYTES = 8 << 20;
/** Most cells a notebook opened from a file or link may have: far above real notebooks, and small
 * enough that the page stays responsive (100 KB of `# %%` lines is 20,000 cells). */
export const MAX_NOTEBOOK_CELLS = 1000;

/** Throws `too-many-cells` when `cells` has more than MAX_NOTEBOOK_CELLS. */
export function checkCellCount(cells) {
  if (cells.length > MAX_NOTEBOOK_CELLS) {
    throw new NotebookFormatError('too-many-cells', `the notebook has ${cells.length} cells; the limit is ${MAX_NOTEBOOK_CELLS}`);
  }
  return cells;
}

/** A notebook file that cannot be read; `code` is stable for the UI's translated message. */
export class NotebookFormatError extends Error {
  constructor(code, detail) {
    super(detail);
    this.name = 'NotebookFormatError';
    this.code = code;
  }
}

function checkSize(text) {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_NOTEBOOK_BYTES) {
    throw new NotebookFormatError('too-large', `the notebook is ${bytes} bytes; the limit is ${MAX_NOTEBOOK_BYTES}`);
  }
}

/** A `# %%` line (optionally followed by a title or `[markdown]`) starts a cell. */
function isMarker(line) {
  const trimmed = line.trimEnd();
  return trimmed === '# %%' || trimmed.startsWith('# %% ') || trimmed.startsWith('#%%');
}

function markerKind(line) {
  return line.includes('[markdown]') || line.includes('[md]') ? 'markdown' : 'code';
}

/** Lines the way Rust's `str::lines` splits them: `\n` or `\r\n`, no empty last line. */
function splitLines(text) {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

function pushCell(cells, kind, lines, explicit) {
  const body = [...lines];
  while (body.length > 0 && body[body.length - 1].trim() === '') body.pop();
  if (body.length === 0 && !explicit) return;
  const source =
    kind === 'code'
      ? body.join('\n')
      : body.map((line) => (line.startsWith('# ') ? line.slice(2) : line.startsWith('#') ? line.slice(1) : line)).join('\n');
  cells.push({ kind, source });
}

/** Splits a `.py` notebook at `# %%` lines; text before the first marker is a code cell unless blank. */
export function fromPy(text) {
  checkSize(text);
  const cells = [];
  let kind = 'code';
  let lines = [];
  let explicit = false;
  for (const line of splitLines(text)) {
    if (isMarker(line)) {
      pushCell(cells, kind, lines, explicit);
      kind = markerKind(line);
      lines = [];
      explicit = true;
    } else {
      lines.push(line);
    }
  }
  pushCell(cells, kind, lines, explicit);
  return { cells };
}

/** Writes the percent format: `# %%` before code cells, `# %% [markdown]` and `# `-prefixed lines for markdown. */
export function toPy(notebook) {
  return notebook.cells
    .map((cell) => {
      if (cell.kind === 'markdown') {
        const commented = splitLines(cell.source).map((line) => (line === '' ? '#' : `# ${line}`));
        return `# %% [markdown]\n${commented.join('\n')}\n`;
      }
      return `# %%\n${cell.source}\n`;
    })
    .join('\n');
}

/** Reads nbformat 4 JSON; raw cells become markdown; code cells keep their outputs. */
export function fromIpynb(text) {
  checkSize(text);
  let root;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new NotebookFormatError('invalid-json', `the .ipynb file is not valid JSON: ${error.message}`);
  }
  if (root === null || typeof root !== 'object' || root.nbformat !== 4) {
    throw new NotebookFormatError('not-a-notebook', `nbformat ${JSON.stringify(root?.nbformat)} is not supported (expected 4)`);
  }
  if (!Array.isArray(root.cells)) {
    throw new NotebookFormatError('not-a-notebook', 'there is no "cells" list');
  }
  const cells = root.cells.map((cell, index) => {
    const type = cell?.cell_type;
    if (type !== 'code' && type !== 'markdown' && type !== 'raw') {
      throw new NotebookFormatError('not-a-notebook', `cell ${index} has cell_type ${JSON.stringify(type)}`);
    }
    let source;
    if (typeof cell.source === 'string') source = cell.source;
    else if (Array.isArray(cell.source)) source = cell.source.map((part) => (typeof part === 'string' ? part : '')).join('');
    else throw new NotebookFormatError('not-a-notebook', `cell ${index} has no source text`);
    if (type !== 'code') return { kind: 'markdown', source };
    const output = outputsFromIpynb(cell);
    return output ? { kind: 'code', source, output } : { kind: 'code', source };
  });
  return { cells };
}

/** Splits text after each `\n`, keeping it (the nbformat convention for `source`). */
function splitKeepNewlines(text) {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Writes nbformat 4.5: cells with ids, code cells with their kept outputs, a Python language tag. */
export function toIpynb(notebook) {
  const cells = notebook.cells.map((cell, index) => {
    const common = { cell_type: cell.kind, id: `cell-${index}`, metadata: {} };
    if (cell.kind === 'markdown') return { ...common, source: splitKeepNewlines(cell.source) };
    const { execution_count, outputs, metadata } = outputsToIpynb(cell.output);
    return { ...common, metadata, execution_count, outputs, source: splitKeepNewlines(cell.source) };
  });
  const root = {
    cells,
    metadata: {
      kernelspec: { display_name: 'TileLab (pypto)', language: 'python', name: 'tilelab' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return `${JSON.stringify(root, null, 1)}\n`;
}

/** Reads a file by its name: `.ipynb` as JSON, anything else as the percent format. */
export function fromFile(name, text) {
  const notebook = /\.ipynb$/i.test(name) ? fromIpynb(text) : fromPy(text);
  checkCellCount(notebook.cells);
  return notebook;
}
