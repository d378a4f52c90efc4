// A tensor display: caption (shape, dtype), statistics, its values as a table (rank ≤ 2) or as the
// engine's nested-list preview (higher ranks), and beside it a heatmap on a diverging scale around
// 0 (1-D as one row; rank > 2 shows the last two dims of the first slice). The engine sends at most
// its first 4096 values (TensorDisplay::MAX_VALUES), so the heatmap shows those and says so.
import { t } from '../../i18n/index.js';
import { element } from '../../ui/dom.js';
import { formatShape, formatValue } from './numbers.js';
import { divergingFill, downsample, heatmapLegend, heatmapSvg } from './heatmap.js';
/** @typedef {import('../../engine/contract.js').TensorDisplay} TensorDisplay */

/** Rows and columns shown at most; the rest is marked with an ellipsis. */
const MAX_ROWS = 16;
const MAX_COLUMNS = 12;

/**
 * The statistics line: min, max, mean (absent for an empty tensor).
 * @param {TensorDisplay} display
 */
function statistics(display) {
  if (display.min === null || display.min === undefined) return null;
  return element('div', 'output-stats', t('output.tensorStats', {
    min: formatValue(display.min),
    max: formatValue(display.max),
    mean: formatValue(display.mean),
  }));
}

/**
 * One element as the engine's preview prints it: masks as True/False, integers in full, floats
 * shortened.
 * @param {TensorDisplay} display
 * @param {number} value
 */
function formatElement(display, value) {
  if (display.dtype === 'DT_BOOL') return value ? 'True' : 'False';
  if (/^DT_U?INT/.test(display.dtype)) return String(value);
  return formatValue(value);
}

/**
 * The value table for rank 0, 1 or 2: element (i, j) is values[i·columns + j] (row-major).
 * @param {TensorDisplay} display
 */
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
      line.append(element('td', null, index < values.length ? formatElement(display, values[index]) : '…'));
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

/**
 * The grid the heatmap shows: { rows, columns, values, notes }. Rank 1 is one row, rank 2 itself,
 * rank > 2 the last two dims of the first slice; only whole rows of the values sent are used.
 */
export function heatmapGrid(shape, values) {
  const notes = [];
  const columns = shape[shape.length - 1];
  const fullRows = shape.length === 1 ? 1 : shape[shape.length - 2];
  if (shape.length > 2) notes.push(t('output.tensor.sliceNote', { slice: formatShape([...shape.slice(0, -2).map(() => 0), ':', ':']) }));
  let rows = fullRows;
  let shownColumns = columns;
  if (values.length < fullRows * columns) {
    // A preview: whole rows where possible, else the part of the first row that was sent.
    rows = Math.max(1, Math.floor(values.length / columns));
    shownColumns = Math.min(columns, values.length);
    const total = shape.reduce((product, dim) => product * dim, 1);
    notes.push(t('output.tensor.previewNote', { shown: values.length, total }));
  }
  return { rows, columns: shownColumns, stride: columns, values, notes };
}

/**
 * The heatmap figure of a tensor (null for scalars and empty tensors).
 * @param {TensorDisplay} display
 */
function tensorHeatmap(display) {
  const shape = display.shape ?? [];
  const values = display.values ?? [];
  if (shape.length === 0 || values.length === 0 || shape.includes(0)) return null;
  const grid = heatmapGrid(shape, values);
  const flat = [];
  for (let row = 0; row < grid.rows; row += 1) for (let column = 0; column < grid.columns; column += 1) flat.push(values[row * grid.stride + column]);
  const finite = flat.filter(Number.isFinite);
  const low = finite.length ? Math.min(...finite) : 0;
  const high = finite.length ? Math.max(...finite) : 0;
  const limit = Math.max(Math.abs(low), Math.abs(high));
  const fill = (value) => divergingFill(value, -limit, 0, limit);
  const reduced = downsample(flat, grid.rows, grid.columns);
  const prefix = shape.slice(0, Math.max(0, shape.length - 2)).map(() => 0);
  const index = (row, column) => (shape.length === 1 ? [column] : [...prefix, row, column]);
  const title = reduced.blockRows === 1 && reduced.blockColumns === 1
    ? (row, column, value) => t('output.tensor.cellTitle', { index: formatShape(index(row, column)), value: formatValue(value) })
    : (row, column, value) => t('output.tensor.blockTitle', { index: formatShape(index(row * reduced.blockRows, column * reduced.blockColumns)), value: formatValue(value) });
  const figure = element('figure', 'output-heatmap tensor-heatmap');
  figure.append(heatmapSvg(reduced, fill, title, t('output.tensor.heatmapLabel', { rows: grid.rows, columns: grid.columns })));
  figure.append(heatmapLegend({ low, centre: 0, high, fill, lowText: t('output.heatmap.min', { value: formatValue(low) }), highText: t('output.heatmap.max', { value: formatValue(high) }), centreText: '0' }));
  if (reduced.blockRows > 1 || reduced.blockColumns > 1) grid.notes.push(t('output.tensor.downsampleNote', { rows: reduced.rows, columns: reduced.columns }));
  for (const note of grid.notes) figure.append(element('figcaption', 'output-note', note));
  return figure;
}

/**
 * The view of a `tensor` display.
 * @param {TensorDisplay} display
 */
export function renderTensor(display) {
  const box = element('div', 'output-tensor');
  const caption = t('output.tensor', { shape: formatShape(display.shape), dtype: display.dtype });
  box.append(element('div', 'output-caption', display.requires_grad ? `${caption} · requires_grad` : caption));
  const stats = statistics(display);
  if (stats) box.append(stats);
  const tabular = display.shape.length <= 2 && (display.values?.length ?? 0) > 0;
  const views = element('div', 'tensor-views');
  views.append(tabular ? valueTable(display) : element('pre', 'output-text', display.preview));
  const heatmap = tensorHeatmap(display);
  if (heatmap) views.append(heatmap);
  box.append(views);
  return box;
}
