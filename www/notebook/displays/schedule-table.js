// The Gantt's companions: the events as a table (the screen-reader and copy-paste alternative to
// the chart) and the tooltip box that shows one event's text.
import { t } from '../../i18n/index.js';
import { element } from '../../ui/dom.js';
import { eventSource } from './schedule-lanes.js';

/** Rows of the table alternative (a huge trace stays usable; the download has every event). */
const MAX_TABLE_ROWS = 400;

/** The events as a table (core, pipe, op, tile, start, end, bytes, line), capped at MAX_TABLE_ROWS. */
export function traceTable(lanes) {
  const details = element('details', 'schedule-trace-table');
  details.append(element('summary', null, t('output.schedule.tableSummary')));
  const table = element('table', 'output-table');
  table.append(element('caption', null, t('output.schedule.tableCaption')));
  const head = element('tr');
  const columns = ['core', 'pipe', 'op', 'tile', 'startCycle', 'endCycle', 'bytes', 'line'];
  for (const key of columns) head.append(element('th', null, t(`output.schedule.column.${key}`)));
  table.append(head);
  const rows = lanes
    .flatMap((lane) => lane.events.map((event) => ({ lane, event })))
    .sort((a, b) => a.event.ts - b.event.ts || a.lane.core - b.lane.core || a.lane.pipe - b.lane.pipe);
  for (const { lane, event } of rows.slice(0, MAX_TABLE_ROWS)) {
    const args = event.args ?? {};
    const row = element('tr');
    row.append(
      element('td', null, lane.coreName),
      element('td', null, lane.pipeName),
      element('td', null, event.name),
      element('td', null, args.tile ?? ''),
      element('td', null, Math.round(args.start_cycle ?? 0)),
      element('td', null, Math.round(args.end_cycle ?? 0)),
      element('td', null, args.bytes ?? 0),
      element('td', null, eventSource(event)?.line ?? '—'),
    );
    table.append(row);
  }
  if (rows.length > MAX_TABLE_ROWS) {
    const more = element('tr', 'more');
    const cell = element('td', null, t('output.schedule.tableMore', { count: rows.length - MAX_TABLE_ROWS }));
    cell.colSpan = columns.length;
    more.append(cell);
    table.append(more);
  }
  details.append(table);
  return details;
}

/** The tooltip box of the chart: an event's text under its bar (hover or keyboard focus). */
export function tooltip(container) {
  const box = element('div', 'schedule-tooltip');
  box.setAttribute('role', 'tooltip');
  box.hidden = true;
  return {
    box,
    /** Shows `text` under `target` (a box in client coordinates: left, bottom). */
    show(target, text) {
      box.textContent = text;
      box.hidden = false;
      const area = container.getBoundingClientRect();
      const left = Math.min(Math.max(0, target.left - area.left), Math.max(0, area.width - box.offsetWidth - 4));
      box.style.left = `${left}px`;
      box.style.top = `${target.bottom - area.top + 4}px`;
    },
    hide() {
      box.hidden = true;
    },
  };
}
