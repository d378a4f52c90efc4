// A `schedule` display (pypto.schedule): the summary figures as a table, busy fraction per pipe and
// peak buffer occupancy against capacity as bars, the Gantt of the trace, and a download of the
// Chrome trace JSON (opens in Perfetto or chrome://tracing).
import { t } from '../../i18n/index.js';
import { renderMessage } from '../../i18n/messages.js';
import { button, element } from '../../ui/dom.js';
import { renderGantt } from './schedule-gantt.js';
/** @typedef {import('../../engine/contract.js').ScheduleDisplay} ScheduleDisplay */
/** @typedef {import('../../engine/contract.js').Summary} Summary */

/** A FLOP/s figure with an SI prefix (1.23 GFLOP/s). */
export function formatRate(value) {
  if (!Number.isFinite(value) || value <= 0) return '0';
  const prefixes = ['', 'k', 'M', 'G', 'T', 'P'];
  let index = 0;
  let scaled = value;
  while (scaled >= 1000 && index < prefixes.length - 1) {
    scaled /= 1000;
    index += 1;
  }
  return `${Number(scaled.toPrecision(3))} ${prefixes[index]}`;
}

/**
 * The summary table: one row per figure, each value cell tagged with its field in data-field.
 * @param {Summary} summary
 */
function summaryTable(summary) {
  const table = element('table', 'output-table schedule-summary');
  const rows = [
    ['cycles', String(summary.cycles)],
    ['time_us', t('output.schedule.microseconds', { us: Number((summary.time_us ?? 0).toPrecision(6)) })],
    ['bound', summary.bound],
    ['gm_bytes_read', t('output.schedule.bytes', { bytes: summary.gm_bytes_read })],
    ['gm_bytes_written', t('output.schedule.bytes', { bytes: summary.gm_bytes_written })],
    ['flops', String(summary.flops ?? 0)],
    ['achieved_flops_per_second', t('output.schedule.rate', { rate: formatRate(summary.achieved_flops_per_second) })],
    ['cores_used', String(summary.cores_used ?? '')],
  ];
  if (summary.peak_flops_per_second > 0 && summary.flops > 0) {
    const share = (100 * summary.achieved_flops_per_second) / summary.peak_flops_per_second;
    rows.push(['peak_share', t('output.schedule.percent', { percent: Number(share.toPrecision(3)) })]);
  }
  for (const [field, value] of rows) {
    const row = element('tr');
    row.append(element('th', null, t(`output.schedule.field.${field}`)));
    const cell = element('td', null, value);
    cell.dataset.field = field;
    row.append(cell);
    table.append(row);
  }
  return table;
}

/** One labelled bar: the fill is `fraction` of the track; `text` is the value shown beside it. */
function bar(label, fraction, text, kind) {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const row = element('div', `schedule-bar-row ${kind}`);
  row.dataset.name = label;
  const track = element('div', 'schedule-bar');
  track.setAttribute('role', 'meter');
  track.setAttribute('aria-label', label);
  track.setAttribute('aria-valuemin', '0');
  track.setAttribute('aria-valuemax', '100');
  track.setAttribute('aria-valuenow', String(Math.round(clamped * 100)));
  track.setAttribute('aria-valuetext', text);
  const fill = element('div', 'schedule-bar-fill');
  fill.style.width = `${(clamped * 100).toFixed(2)}%`;
  track.append(fill);
  row.append(element('span', 'schedule-bar-label', label), track, element('span', 'schedule-bar-value', text));
  return row;
}

/**
 * Busy fraction per pipe.
 * @param {Summary} summary
 */
function busyBars(summary) {
  const section = element('section', 'schedule-busy');
  section.append(element('h4', 'schedule-heading', t('output.schedule.busy')));
  for (const [pipe, fraction] of Object.entries(summary.pipe_busy ?? {})) {
    section.append(bar(pipe, fraction, t('output.schedule.percent', { percent: (fraction * 100).toFixed(1) }), 'busy'));
  }
  return section;
}

/**
 * Peak occupancy against capacity per memory (memories without a capacity are left out, e.g. GM).
 * @param {Summary} summary
 */
function occupancyBars(summary) {
  const section = element('section', 'schedule-occupancy');
  section.append(element('h4', 'schedule-heading', t('output.schedule.occupancy')));
  const capacities = summary.capacities ?? {};
  const peaks = summary.peak_occupancy ?? {};
  for (const [memory, capacity] of Object.entries(capacities)) {
    if (!(capacity > 0)) continue;
    const peak = peaks[memory] ?? 0;
    const row = bar(memory, peak / capacity, t('output.schedule.occupancyValue', { peak, capacity }), 'occupancy');
    if (peak > capacity) row.classList.add('over');
    section.append(row);
  }
  return section;
}

/** A button that saves the trace JSON as trace.json through a Blob and an object URL. */
function downloadButton(traceJson) {
  return button('schedule-button schedule-download', t('output.schedule.download'), () => {
    const url = URL.createObjectURL(new Blob([traceJson], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'trace.json';
    document.body.append(link);
    link.click();
    link.remove();
    // The browser reads the URL asynchronously after the click; revoke once it surely started.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
}

/**
 * The view of a `schedule` display; `context.revealSource` lets the Gantt jump to source lines. A
 * display without its trace (an empty `trace_json`: a kernel schedule whose trace was too large or
 * is no longer kept) shows the summary only.
 * @param {ScheduleDisplay} display
 * @param {{ revealSource?: (source: { line: number, cell?: number }) => void }} [context]
 */
export function renderSchedule(display, context = {}) {
  const summary = display.summary;
  const box = element('div', 'output-schedule');
  const header = element('div', 'schedule-header');
  const traced = Boolean(display.trace_json);
  header.append(element('span', 'output-caption', t('output.schedule.caption', { preset: summary.preset ?? '?', cycles: summary.cycles, bound: summary.bound })));
  if (traced) header.append(downloadButton(display.trace_json));
  box.append(header, summaryTable(summary));
  const notes = summary.notes ?? [];
  if (notes.length > 0) {
    const list = element('ul', 'schedule-notes');
    list.setAttribute('aria-label', t('output.schedule.notes'));
    for (const note of notes) list.append(element('li', null, renderMessage(note)));
    box.append(list);
  }
  const bars = element('div', 'schedule-bars');
  bars.append(busyBars(summary), occupancyBars(summary));
  box.append(bars);
  if (traced) box.append(renderGantt(display.trace_json, context));
  return box;
}
