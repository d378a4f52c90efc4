// A gradient-check display: a pass/fail badge with the largest errors, where each side ran, which
// mode ran and why (projection mode: per-input error bars), and per input its tolerance, a heatmap of each element's error over the allowed error (full mode; the
// engine sends at most 4096 elements per input and flags the rest) and the worst elements.
import { t } from '../../i18n/index.js';
import { renderMessage } from '../../i18n/messages.js';
import { element } from '../../ui/dom.js';
import { formatError, formatShape, formatValue } from './numbers.js';
import { divergingFill, downsample, heatmapLegend, heatmapSvg } from './heatmap.js';
/** @typedef {import('../../engine/contract.js').CheckMode} CheckMode */
/** @typedef {import('../../engine/contract.js').ErrorMap} ErrorMap */
/** @typedef {import('../../engine/contract.js').GradCheckDisplay} GradCheckDisplay */
/** @typedef {import('../../engine/contract.js').InputReport} InputReport */

/** Worst elements listed per input. */
const MAX_WORST = 5;

/** The multi-index of flat position `flat` in a row-major `shape`. */
function unravel(flat, shape) {
  const index = new Array(shape.length).fill(0);
  for (let axis = shape.length - 1; axis >= 0; axis -= 1) {
    const size = Math.max(1, shape[axis]);
    index[axis] = flat % size;
    flat = Math.floor(flat / size);
  }
  return index;
}

/**
 * The error map of one input as a heatmap: rows are the leading dims flattened, columns the last
 * dim; colours on a log scale centred on 1 (the pass/fail line), passing green, failing red.
 * @param {ErrorMap} map
 */
function errorHeatmap(map) {
  const shape = map.shape ?? [];
  const errors = (map.errors ?? []).map((ratio) => (ratio === null ? Infinity : ratio));
  if (errors.length === 0) return null;
  const columns = shape.length === 0 ? 1 : shape[shape.length - 1];
  const rows = Math.max(1, Math.floor(errors.length / columns));
  const shownColumns = Math.min(columns, errors.length);
  const flat = [];
  for (let row = 0; row < rows; row += 1) for (let column = 0; column < shownColumns; column += 1) flat.push(errors[row * columns + column]);
  const positive = flat.filter((ratio) => Number.isFinite(ratio) && ratio > 0).map(Math.log10);
  const low = Math.min(-1, ...positive);
  const high = Math.max(1, ...positive);
  // Log of the ratio: exact agreement sits at the low end, ∞ (nothing allowed) at the high end.
  const logOf = (ratio) => (ratio === Infinity ? high : ratio > 0 ? Math.log10(ratio) : Number.isNaN(ratio) ? NaN : low);
  const fill = (value) => divergingFill(value, low, 0, high, 'error');
  const reduced = downsample(flat.map(logOf), rows, shownColumns);
  const title = (row, column, value) => {
    const flatIndex = row * reduced.blockRows * columns + column * reduced.blockColumns;
    const ratio = reduced.blockRows === 1 && reduced.blockColumns === 1 ? flat[row * shownColumns + column] : 10 ** value;
    return t('output.gradCheck.cellTitle', { index: formatShape(unravel(flatIndex, shape)), ratio: formatError(ratio) });
  };
  const figure = element('figure', 'output-heatmap gradcheck-heatmap');
  figure.dataset.input = map.input;
  figure.append(element('figcaption', 'output-caption', t('output.gradCheck.heatmapCaption', { input: map.input })));
  figure.append(heatmapSvg(reduced, fill, title, t('output.gradCheck.heatmapLabel', { input: map.input, count: flat.length })));
  figure.append(heatmapLegend({ low, centre: 0, high, fill, lowText: formatError(10 ** low), highText: formatError(10 ** high), centreText: '1' }));
  if (map.truncated || flat.length < map.total) figure.append(element('p', 'output-note', t('output.gradCheck.truncated', { shown: flat.length, total: map.total })));
  if (reduced.blockRows > 1 || reduced.blockColumns > 1) figure.append(element('p', 'output-note', t('output.tensor.downsampleNote', { rows: reduced.rows, columns: reduced.columns })));
  return figure;
}

/**
 * One input's summary line, its error heatmap and its worst elements as a table.
 * @param {InputReport} input
 * @param {ErrorMap | undefined} map
 * @param {CheckMode} mode
 */
function inputSection(input, map, mode) {
  const section = element('div', `gradcheck-input ${input.passed ? 'passed' : 'failed'}`);
  section.append(element('div', 'output-caption', t('output.gradCheck.input', {
    input: input.input,
    shape: formatShape(input.shape),
    dtype: input.dtype,
    verdict: t(input.passed ? 'output.gradCheck.pass' : 'output.gradCheck.fail'),
    abs: formatError(input.max_abs_error),
    rel: formatError(input.max_rel_error),
    compared: input.compared,
    rtol: formatError(input.tolerance?.rtol),
    atol: formatError(input.tolerance?.atol),
  })));
  const heatmap = map ? errorHeatmap(map) : null;
  if (heatmap) section.append(heatmap);
  else if (mode === 'Projection') section.append(element('p', 'output-note', t('output.gradCheck.projectionNote', { compared: input.compared })));
  const worst = (input.worst ?? []).slice(0, MAX_WORST);
  if (worst.length > 0) {
    const table = element('table', 'output-table gradcheck-worst');
    const head = element('tr');
    // In projection mode an entry is a projection (its number), not an element of the input.
    const first = mode === 'Projection' ? 'projection' : 'index';
    for (const key of [first, 'output', 'analytic', 'numerical', 'absError']) head.append(element('th', null, t(`output.gradCheck.${key}`)));
    table.append(head);
    for (const entry of worst) {
      const row = element('tr');
      row.append(
        element('td', null, mode === 'Projection' ? `#${entry.input_index?.[0] ?? '?'}` : formatShape(entry.input_index)),
        element('td', null, entry.output_index?.length ? formatShape(entry.output_index) : '—'),
        element('td', null, formatValue(entry.analytic)),
        element('td', null, formatValue(entry.numerical)),
        element('td', null, formatError(entry.abs_error)),
      );
      table.append(row);
    }
    section.append(table);
  }
  const kinks = input.non_differentiable?.length ?? 0;
  if (kinks > 0) section.append(element('p', 'output-note', t('output.gradCheck.kinks', { count: kinks })));
  return section;
}

/** Which mode ran and why (the limits of the full mode come from the engine). */
function modeNote(display) {
  const mode = display.report?.mode;
  const inputs = display.report?.inputs ?? [];
  const limits = display.full_limits ?? {};
  const compared = Math.max(0, ...inputs.map((input) => input.compared ?? 0));
  if (mode === 'Projection') {
    return element('p', 'output-note gradcheck-mode', t('output.gradCheck.modeProjection', { entries: limits.jacobian_entries ?? '?', elements: limits.input_elements ?? '?', count: compared }));
  }
  return element('p', 'output-note gradcheck-mode', t('output.gradCheck.modeFull', { compared }));
}

/** Per input, its largest relative error against its rtol as a bar (projection mode's summary). */
function errorBars(inputs) {
  const section = element('section', 'gradcheck-bars');
  section.append(element('h4', 'schedule-heading', t('output.gradCheck.errorBars')));
  for (const input of inputs) {
    const rtol = input.tolerance?.rtol ?? 0;
    const ratio = rtol > 0 ? input.max_rel_error / rtol : 0;
    const text = t('output.gradCheck.errorBar', { input: input.input, rel: formatError(input.max_rel_error), rtol: formatError(rtol) });
    const row = element('div', `schedule-bar-row gradcheck-bar${ratio > 1 ? ' over' : ''}`);
    row.dataset.input = input.input;
    const track = element('div', 'schedule-bar');
    track.setAttribute('role', 'meter');
    track.setAttribute('aria-label', text);
    track.setAttribute('aria-valuemin', '0');
    track.setAttribute('aria-valuemax', '100');
    track.setAttribute('aria-valuenow', String(Math.round(Math.min(1, ratio) * 100)));
    const fill = element('div', 'schedule-bar-fill');
    fill.style.width = `${(Math.min(1, Number.isFinite(ratio) ? ratio : 1) * 100).toFixed(1)}%`;
    track.append(fill);
    row.append(element('span', 'schedule-bar-label', `#${input.input}`), track, element('span', 'schedule-bar-value', text));
    section.append(row);
  }
  return section;
}

/** The view of a `grad_check` display. */
export function renderGradCheck(display) {
  const box = element('div', `output-gradcheck ${display.passed ? 'passed' : 'failed'}`);
  const headline = element('p', 'gradcheck-headline');
  headline.append(
    element('span', 'badge', t(display.passed ? 'output.gradCheck.pass' : 'output.gradCheck.fail')),
    element('span', 'gradcheck-summary', t(display.passed ? 'output.gradCheck.passed' : 'output.gradCheck.failed', {
      abs: formatError(display.max_abs_err),
      rel: formatError(display.max_rel_err),
    })),
  );
  box.append(headline);
  // Where each side ran: from the engine's message code in the UI language (its English text otherwise).
  const sides = renderMessage(display.sides_message, display.sides);
  if (sides) box.append(element('p', 'output-note gradcheck-sides', sides));
  box.append(modeNote(display));
  if (display.report?.mode === 'Projection') box.append(errorBars(display.report.inputs ?? []));
  const maps = new Map((display.error_maps ?? []).map((map) => [map.input, map]));
  for (const input of display.report?.inputs ?? []) box.append(inputSection(input, maps.get(input.input), display.report?.mode));
  return box;
}
