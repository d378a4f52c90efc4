// A tensor display: caption (shape, dtype), statistics, and its values as a table (rank ≤ 2) or as
// the engine's nested-list preview (higher ranks).
import { t } from '../../i18n/index.js';
import { element, formatShape, formatValue } from './dom.js';

/** Rows and columns shown at most; the rest is marked with an ellipsis. */
const MAX_ROWS = 16;
const MAX_COLUMNS = 12;

/** The statistics line: min, max, mean (absent for an empty tensor). */
function statistics(display) {
  if (display.min === null || display.min === undefined) return null;
  return element('div', 'output-stats', t('output.tensorStats', {
    min: formatValue(display.min),
    max: formatValue(display.max),
    mean: formatValue(display.mean),
  }));
}

/** The value table for rank 0, 1 or 2: element (i, j) is values[i·columns + j] (row-major). */
function valueTable(display) {
  const shape = display.shape;
  const values = display.values ?? [];
  const rows = shape.length === 2 ? shape[0] : 1;
  const columns = shape.length === 0 ? 1 : shape[shape.length - 1];
  const table = element('table', 'output-table');
  const shownRows = Math.min(rows, MAX_ROWS);
  const shownColumns = Math.min(columns, MAX_COLUMNS);
  for (let row = 0; row < shownRows; row += 1) {
    const line = element('tr');
    for (let column = 0; column < shownColumns; column += 1) {
      const index = row * columns + column;
      line.append(element('td', null, index < values.length ? formatValue(values[index]) : '…'));
    }
    if (columns > shownColumns) line.append(element('td', 'more', '…'));
    table.append(line);
  }
  if (rows > shownRows) {
    const more = element('tr', 'more');
    more.append(element('td', null, '⋮'));
    table.append(more);
  }
  return table;
}

/** The view of a `tensor` display. */
export function renderTensor(display) {
  const box = element('div', 'output-tensor');
  const caption = t('output.tensor', { shape: formatShape(display.shape), dtype: display.dtype });
  box.append(element('div', 'output-caption', display.requires_grad ? `${caption} · requires_grad` : caption));
  const stats = statistics(display);
  if (stats) box.append(stats);
  const tabular = display.shape.length <= 2 && (display.values?.length ?? 0) > 0;
  box.append(tabular ? valueTable(display) : element('pre', 'output-text', display.preview));
  return box;
}
