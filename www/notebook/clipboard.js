// Copy and paste of cells, as in Jupyter (`c` copies the selected cell, `x` cuts it, `v` pastes
// below, Shift+V above; the cell tool bar has the same). Cells travel as percent-format text
// (`# %%` / `# %% [markdown]` markers, what Save .py writes), so they keep their kind and source,
// paste into another notebook or tab through the system clipboard, and read back in any editor.
// The system clipboard is used when the browser allows it (Ctrl+C / Ctrl+V on a selected cell
// always do: their events carry the data); otherwise an in-page clipboard holds the cells.
import { fromPy, toPy } from './format.js';

/** The cells copied last in this page: { text, cells }. */
let pageClipboard = null;

/** Cells (kind and source only) as clipboard text. */
export function cellsToText(cells) {
  return toPy({ cells: cells.map(({ kind, source }) => ({ kind, source })) });
}

/** Clipboard text as cells: percent-format text keeps its cells, other text is one code cell. */
export function textToCells(text) {
  const cells = fromPy(String(text)).cells;
  return cells.map(({ kind, source }) => ({ kind, source }));
}

/**
 * Copies `cells`: into `clipboardData` when a copy event supplied it, else the system clipboard
 * when writable, and always into the page's clipboard. Resolves to where it went: 'system' | 'page'.
 * @param {{ kind: string, source: string }[]} cells
 * @param {DataTransfer | null} [clipboardData]
 */
export async function writeCells(cells, clipboardData = null) {
  const text = cellsToText(cells);
  pageClipboard = { text, cells: cells.map(({ kind, source }) => ({ kind, source })) };
  if (clipboardData) {
    clipboardData.setData('text/plain', text);
    return 'system';
  }
  try {
    await navigator.clipboard.writeText(text);
    return 'system';
  } catch {
    return 'page';
  }
}

/**
 * The cells to paste: from `clipboardData` (a paste event), else the system clipboard when
 * readable, else the page's clipboard; [] when all are empty.
 * @param {DataTransfer | null} [clipboardData]
 */
export async function readCells(clipboardData = null) {
  let text = clipboardData ? clipboardData.getData('text/plain') : null;
  if (text == null) {
    try {
      text = await navigator.clipboard.readText();
    } catch {
      text = null;
    }
  }
  if (text == null || text === '') return pageClipboard ? pageClipboard.cells.map((cell) => ({ ...cell })) : [];
  // Our own text pastes the cells copied, exactly (the text form would drop trailing blank lines).
  if (pageClipboard && text === pageClipboard.text) return pageClipboard.cells.map((cell) => ({ ...cell }));
  return textToCells(text);
}
