// A `sweep` display (pypto.npu.sweep): a bar chart of cycles per vec tile shape, bars coloured by the
// bound pipe with a legend and the best bar marked, error rows as hatched empty slots; and the same
// rows as a table (with the full error text) in a collapsible section. SVG is built through DOM calls.
import { axisLeft } from 'd3-axis';
import { scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { t } from '../../i18n/index.js';
import { renderMessage } from '../../i18n/messages.js';
import { element, svgElement } from '../../ui/dom.js';
import { formatShape } from './numbers.js';
/** @typedef {import('../../engine/contract.js').SweepRow} SweepRow */
/** @typedef {import('../../engine/contract.js').SweepDisplay} SweepDisplay */

/** Plot geometry, in px: bar slot width, plot height, margins for the axis and the labels. */
const SLOT_WIDTH = 72;
const PLOT_HEIGHT = 180;
const LEFT = 64;
const TOP = 22;
const BOTTOM = 44;
/** About this many ticks on the cycles axis. */
const TICKS = 4;
/** Number of distinct bound colours in the stylesheet (--bound-0 … --bound-5). */
const PALETTE_SIZE = 6;
/** Characters of an error kept under its slot; the table and the tooltip have the whole text. */
const SHORT_ERROR = 14;

/** A `<title>` child (the native tooltip) with text. */
function tooltip(text) {
  const title = svgElement('title');
  title.textContent = text;
  return title;
}

/**
 * The shape label of a row: 8×64.
 * @param {SweepRow} row
 */
function shapeLabel(row) {
  return (row.vec_tile ?? []).join('×');
}

/**
 * The bound pipes in sorted order, each with its palette slot (stable across re-renders).
 * @param {SweepRow[]} rows
 */
export function boundColours(rows) {
  const bounds = [...new Set(rows.filter((row) => row.error == null && row.bound).map((row) => row.bound))].sort();
  return new Map(bounds.map((bound, index) => [bound, index % PALETTE_SIZE]));
}

/** Why a row's shape was refused, in the UI language (the engine's message code, else its English). */
function errorText(row) {
  return renderMessage(row.error_message, row.error ?? '');
}

/** The first clause of an error, cut to a few characters, for the label under an empty slot. */
export function shortError(message) {
  const first = String(message ?? '').split(/[:;(\n：；（]/)[0].trim();
  return first.length > SHORT_ERROR ? `${first.slice(0, SHORT_ERROR - 1)}…` : first;
}

/**
 * The tooltip text of one row.
 * @param {SweepRow} row
 * @param {boolean} isBest
 */
function rowTitle(row, isBest) {
  const shape = shapeLabel(row);
  if (row.error != null) return t('output.sweep.errorTitle', { shape, error: errorText(row) });
  const text = t('output.sweep.barTitle', {
    shape,
    cycles: row.cycles,
    us: Number((row.time_us ?? 0).toPrecision(6)),
    bound: row.bound ?? '?',
    bytes: row.peak_ub_bytes ?? 0,
  });
  return isBest ? `${text}\n${t('output.sweep.bestMark')}` : text;
}

/**
 * The chart: a y axis in cycles, one slot per row, bars ∝ cycles, a hatch for error rows.
 * @param {SweepDisplay} display
 * @param {Map<string, number>} colours
 */
function drawChart(display, colours) {
  const rows = display.rows ?? [];
  const maxCycles = Math.max(1, ...rows.filter((row) => row.error == null).map((row) => row.cycles ?? 0));
  // About four round ticks; the axis ends on the first tick at or above the slowest bar.
  const yOf = scaleLinear().domain([0, maxCycles]).nice(TICKS).range([TOP + PLOT_HEIGHT, TOP]);
  const width = LEFT + rows.length * SLOT_WIDTH + 12;
  const height = TOP + PLOT_HEIGHT + BOTTOM;
  const svg = svgElement('svg', { class: 'sweep-chart-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
  svg.setAttribute('aria-label', t('output.sweep.chartLabel', { count: rows.length }));
  const pattern = svgElement('pattern', { id: `sweep-hatch-${Math.random().toString(36).slice(2)}`, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' });
  pattern.append(svgElement('line', { class: 'sweep-hatch-line', x1: 0, y1: 0, x2: 0, y2: 6 }));
  const defs = svgElement('defs');
  defs.append(pattern);
  svg.append(defs);
  const axis = svgElement('g', { class: 'sweep-y-axis', transform: `translate(${LEFT}, 0)` });
  select(axis)
    .call(axisLeft(yOf).ticks(TICKS).tickFormat(String).tickSizeInner(-(width - 12 - LEFT)).tickSizeOuter(0).tickPadding(6))
    // The stylesheet sets the font and colours (light and dark), not d3's inline defaults.
    .attr('font-size', null)
    .attr('font-family', null)
    .attr('fill', null)
    .call((group) => group.select('.domain').remove())
    .call((group) => group.selectAll('.tick line').attr('class', 'sweep-grid').attr('stroke', null))
    .call((group) => group.selectAll('.tick text').attr('class', 'sweep-tick-label').attr('fill', null));
  svg.append(axis);
  const axisTitle = svgElement('text', { class: 'sweep-axis-title', x: 4, y: 12 });
  axisTitle.textContent = t('output.sweep.axisCycles');
  svg.append(axisTitle);
  rows.forEach((row, index) => {
    const isBest = index === display.best;
    const x = LEFT + index * SLOT_WIDTH + 10;
    const barWidth = SLOT_WIDTH - 20;
    const group = svgElement('g', { class: 'sweep-slot' });
    group.dataset.index = String(index);
    group.dataset.shape = shapeLabel(row);
    if (row.error != null) {
      group.classList.add('error');
      group.append(svgElement('rect', { class: 'sweep-error-slot', x, y: TOP, width: barWidth, height: PLOT_HEIGHT, fill: `url(#${pattern.id})` }));
      const note = svgElement('text', { class: 'sweep-error-label', x: x + barWidth / 2, y: TOP + PLOT_HEIGHT / 2, 'text-anchor': 'middle' });
      // One word per line so the label stays inside the narrow slot.
      shortError(errorText(row)).split(' ').slice(0, 3).forEach((word, line) => {
        const span = svgElement('tspan', { x: x + barWidth / 2, dy: line === 0 ? 0 : 13 });
        span.textContent = word.length > 8 ? `${word.slice(0, 7)}…` : word;
        note.append(span);
      });
      group.append(note);
    } else {
      const y = yOf(row.cycles ?? 0);
      const bar = svgElement('rect', { class: `sweep-bar bound-${colours.get(row.bound) ?? 0}`, x, y, width: barWidth, height: TOP + PLOT_HEIGHT - y });
      bar.dataset.cycles = String(row.cycles);
      bar.dataset.bound = row.bound ?? '';
      if (isBest) bar.classList.add('best');
      group.append(bar);
      const value = svgElement('text', { class: 'sweep-value-label', x: x + barWidth / 2, y: y - 4, 'text-anchor': 'middle' });
      value.textContent = isBest ? `★ ${row.cycles}` : String(row.cycles);
      group.append(value);
    }
    group.append(tooltip(rowTitle(row, isBest)));
    const label = svgElement('text', { class: 'sweep-shape-label', x: x + barWidth / 2, y: TOP + PLOT_HEIGHT + 16, 'text-anchor': 'middle' });
    label.textContent = shapeLabel(row);
    group.append(label);
    svg.append(group);
  });
  svg.append(svgElement('line', { class: 'sweep-axis', x1: LEFT, x2: width - 12, y1: TOP + PLOT_HEIGHT, y2: TOP + PLOT_HEIGHT }));
  return svg;
}

/** The legend: one swatch per bound pipe, the best marker and the error hatch. */
function legend(colours, hasError) {
  const list = element('ul', 'sweep-legend');
  list.setAttribute('aria-label', t('output.sweep.legend'));
  for (const [bound, slot] of colours) {
    const item = element('li', 'sweep-legend-item');
    item.dataset.bound = bound;
    item.append(element('span', `sweep-swatch bound-${slot}`), element('span', null, t('output.sweep.boundBy', { bound })));
    list.append(item);
  }
  const best = element('li', 'sweep-legend-item');
  best.append(element('span', 'sweep-swatch best-swatch'), element('span', null, t('output.sweep.bestLegend')));
  list.append(best);
  if (hasError) {
    const error = element('li', 'sweep-legend-item');
    error.append(element('span', 'sweep-swatch error-swatch'), element('span', null, t('output.sweep.errorLegend')));
    list.append(error);
  }
  return list;
}

/**
 * The table alternative: every row, the best marked, the full error text.
 * @param {SweepDisplay} display
 */
function table(display) {
  const details = element('details', 'sweep-table');
  details.append(element('summary', null, t('output.sweep.tableSummary')));
  const grid = element('table', 'output-table');
  const head = element('tr');
  for (const column of ['shape', 'cycles', 'time', 'bound', 'ub', 'error']) head.append(element('th', null, t(`output.sweep.column.${column}`)));
  grid.append(head);
  (display.rows ?? []).forEach((row, index) => {
    const line = element('tr');
    line.dataset.index = String(index);
    const isBest = index === display.best;
    if (isBest) line.classList.add('best');
    if (row.error != null) line.classList.add('error');
    const shape = element('td', null, isBest ? `${formatShape(row.vec_tile ?? [])} ★` : formatShape(row.vec_tile ?? []));
    if (isBest) shape.setAttribute('aria-label', `${formatShape(row.vec_tile ?? [])} (${t('output.sweep.bestMark')})`);
    line.append(
      shape,
      element('td', null, row.cycles ?? ''),
      element('td', null, row.time_us == null ? '' : t('output.schedule.microseconds', { us: Number(row.time_us.toPrecision(6)) })),
      element('td', null, row.bound ?? ''),
      element('td', null, row.peak_ub_bytes == null ? '' : t('output.schedule.bytes', { bytes: row.peak_ub_bytes })),
      element('td', 'sweep-error-text', row.error == null ? '' : errorText(row)),
    );
    line.lastChild.dataset.field = 'error';
    line.children[1].dataset.field = 'cycles';
    grid.append(line);
  });
  details.append(grid);
  return details;
}

/**
 * The view of a `sweep` display.
 * @param {SweepDisplay} display
 */
export function renderSweep(display) {
  const rows = display.rows ?? [];
  const box = element('div', 'output-sweep');
  const best = Number.isInteger(display.best) ? rows[display.best] : null;
  const caption = best
    ? t('output.sweep.caption', { kernel: display.kernel ?? '?', preset: display.preset ?? '?', shape: shapeLabel(best), cycles: best.cycles })
    : t('output.sweep.captionNoBest', { kernel: display.kernel ?? '?', preset: display.preset ?? '?' });
  box.append(element('span', 'output-caption', caption));
  const colours = boundColours(rows);
  const scroller = element('div', 'sweep-scroller');
  scroller.append(drawChart(display, colours));
  box.append(scroller, legend(colours, rows.some((row) => row.error != null)), table(display));
  return box;
}
