// The Gantt chart of a schedule's Chrome trace (pid = core, tid = pipe, ts/dur in µs): one lane per
// core × pipe that ran something, grouped by core, drawn as SVG through DOM calls, with a time axis,
// zoom buttons and horizontal scroll, plus the same events as a table for screen readers.
import { t } from '../../i18n/index.js';
import { element, svgElement } from './dom.js';

/** Width of the lane labels, in px. */
const LABEL_WIDTH = 150;
/** Height of one lane and of the axis, in px. */
const LANE_HEIGHT = 18;
const AXIS_HEIGHT = 22;
/** Extra space above a core's first lane for its name. */
const CORE_GAP = 16;
/** Plot width at zoom 1 while the chart is not yet on the page, in px. */
const BASE_WIDTH = 820;
const MAX_ZOOM = 64;
/** Rows of the table alternative (a huge trace stays usable; the download has every event). */
const MAX_TABLE_ROWS = 400;

/**
 * The trace as lanes: names of cores and pipes from the metadata events, and the complete ('X')
 * events grouped by (core, pipe), cores and pipes in ascending id order.
 */
export function traceLanes(traceJson) {
  const parsed = JSON.parse(traceJson);
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents ?? [];
  const coreNames = new Map();
  const pipeNames = new Map();
  const lanes = new Map();
  let end = 0;
  for (const event of events) {
    if (event.ph === 'M' && event.name === 'process_name') coreNames.set(event.pid, event.args?.name);
    if (event.ph === 'M' && event.name === 'thread_name') pipeNames.set(`${event.pid}/${event.tid}`, event.args?.name);
    if (event.ph !== 'X') continue;
    const key = `${event.pid}/${event.tid}`;
    if (!lanes.has(key)) lanes.set(key, { core: event.pid, pipe: event.tid, events: [] });
    lanes.get(key).events.push(event);
    end = Math.max(end, event.ts + event.dur);
  }
  const ordered = [...lanes.values()].sort((a, b) => a.core - b.core || a.pipe - b.pipe);
  for (const lane of ordered) {
    lane.coreName = coreNames.get(lane.core) ?? t('output.schedule.core', { core: lane.core });
    lane.pipeName = pipeNames.get(`${lane.core}/${lane.pipe}`) ?? String(lane.pipe);
  }
  return { lanes: ordered, end };
}

/** A tick step of 1, 2 or 5 × 10ⁿ µs giving about `count` ticks over `span`. */
function tickStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= raw) ?? 10 * power;
}

/** The tooltip of one event: op, tile, bytes, cycles. */
function eventTitle(event, lane) {
  const args = event.args ?? {};
  const cycles = Number.isFinite(args.end_cycle - args.start_cycle) ? Math.round(args.end_cycle - args.start_cycle) : '?';
  return t('output.schedule.eventTitle', {
    op: event.name,
    pipe: lane.pipeName,
    core: lane.coreName,
    tile: args.tile ?? '',
    bytes: args.bytes ?? 0,
    cycles,
    start: Math.round(args.start_cycle ?? 0),
    end: Math.round(args.end_cycle ?? 0),
  });
}

/** The SVG of the lanes at `width` px per trace, with core headings, lanes, events and axis. */
function drawChart(lanes, end, width) {
  const scale = end > 0 ? width / end : 0;
  const cores = new Set(lanes.map((lane) => lane.core)).size;
  const height = AXIS_HEIGHT + lanes.length * LANE_HEIGHT + cores * CORE_GAP + 4;
  const svg = svgElement('svg', { width: LABEL_WIDTH + width + 12, height, class: 'schedule-gantt-svg', role: 'img' });
  svg.setAttribute('aria-label', t('output.schedule.ganttLabel', { lanes: lanes.length, us: end.toPrecision(4) }));
  // Axis at the top: ticks in µs.
  const axis = svgElement('g', { class: 'schedule-axis' });
  const step = end > 0 ? tickStep(end, Math.max(2, Math.round(width / 110))) : 1;
  for (let time = 0; time <= end + step * 1e-9; time += step) {
    const x = LABEL_WIDTH + time * scale;
    axis.append(svgElement('line', { x1: x, x2: x, y1: AXIS_HEIGHT - 5, y2: height, class: 'schedule-tick' }));
    const label = svgElement('text', { x: x + 2, y: AXIS_HEIGHT - 8, class: 'schedule-tick-label' });
    label.textContent = t('output.schedule.tick', { us: Number(time.toPrecision(6)) });
    axis.append(label);
  }
  svg.append(axis);
  let y = AXIS_HEIGHT;
  let previousCore = null;
  for (const lane of lanes) {
    if (lane.core !== previousCore) {
      const heading = svgElement('text', { x: 4, y: y + CORE_GAP - 4, class: 'schedule-core-label' });
      heading.textContent = lane.coreName;
      svg.append(heading);
      y += CORE_GAP;
      previousCore = lane.core;
    }
    const group = svgElement('g', { class: 'schedule-lane', 'data-core': lane.core, 'data-pipe': lane.pipe });
    group.append(svgElement('rect', { x: LABEL_WIDTH, y, width, height: LANE_HEIGHT, class: 'schedule-lane-bg' }));
    const label = svgElement('text', { x: 14, y: y + LANE_HEIGHT - 5, class: 'schedule-lane-label' });
    label.textContent = lane.pipeName;
    group.append(label);
    for (const event of lane.events) {
      if (!(event.dur > 0)) continue;
      const rect = svgElement('rect', {
        x: LABEL_WIDTH + event.ts * scale,
        y: y + 2,
        width: Math.max(event.dur * scale, 0.75),
        height: LANE_HEIGHT - 4,
        class: `schedule-event schedule-pipe-${lane.pipe % 8}`,
      });
      const title = svgElement('title');
      title.textContent = eventTitle(event, lane);
      rect.append(title);
      group.append(rect);
    }
    svg.append(group);
    y += LANE_HEIGHT;
  }
  return svg;
}

/** The events as a table (core, pipe, op, tile, start, end, bytes), capped at MAX_TABLE_ROWS. */
function traceTable(lanes) {
  const details = element('details', 'schedule-trace-table');
  details.append(element('summary', null, t('output.schedule.tableSummary')));
  const table = element('table', 'output-table');
  table.append(element('caption', null, t('output.schedule.tableCaption')));
  const head = element('tr');
  for (const key of ['core', 'pipe', 'op', 'tile', 'startCycle', 'endCycle', 'bytes']) head.append(element('th', null, t(`output.schedule.column.${key}`)));
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
    );
    table.append(row);
  }
  if (rows.length > MAX_TABLE_ROWS) {
    const more = element('tr', 'more');
    const cell = element('td', null, t('output.schedule.tableMore', { count: rows.length - MAX_TABLE_ROWS }));
    cell.colSpan = 7;
    more.append(cell);
    table.append(more);
  }
  details.append(table);
  return details;
}

/** The Gantt section: zoom buttons, the scrollable chart and the table alternative. */
export function renderGantt(traceJson) {
  const section = element('section', 'schedule-gantt');
  section.append(element('h4', 'schedule-heading', t('output.schedule.gantt')));
  let parsed;
  try {
    parsed = traceLanes(traceJson);
  } catch (error) {
    section.append(element('p', 'output-error', t('output.schedule.badTrace', { message: error.message })));
    return section;
  }
  const { lanes, end } = parsed;
  if (lanes.length === 0) {
    section.append(element('p', 'output-note', t('output.schedule.noEvents')));
    return section;
  }
  const toolbar = element('div', 'schedule-toolbar');
  const scroller = element('div', 'schedule-scroll');
  let zoom = 1;
  // At zoom 1 the chart fits the scroller's width once it is on the page (BASE_WIDTH before that).
  const fitWidth = () => (scroller.clientWidth > LABEL_WIDTH + 200 ? scroller.clientWidth - LABEL_WIDTH - 14 : BASE_WIDTH);
  const redraw = () => {
    scroller.replaceChildren(drawChart(lanes, end, fitWidth() * zoom));
    zoomLabel.textContent = t('output.schedule.zoomLevel', { zoom });
    zoomIn.disabled = zoom >= MAX_ZOOM;
    zoomOut.disabled = zoom <= 1;
  };
  const button = (className, text, label, action) => {
    const node = element('button', `schedule-button ${className}`, text);
    node.type = 'button';
    node.setAttribute('aria-label', label);
    node.addEventListener('click', action);
    return node;
  };
  const zoomOut = button('schedule-zoom-out', '−', t('output.schedule.zoomOut'), () => { zoom = Math.max(1, zoom / 2); redraw(); });
  const zoomIn = button('schedule-zoom-in', '+', t('output.schedule.zoomIn'), () => { zoom = Math.min(MAX_ZOOM, zoom * 2); redraw(); });
  const zoomReset = button('schedule-zoom-reset', t('output.schedule.zoomReset'), t('output.schedule.zoomReset'), () => { zoom = 1; redraw(); });
  const zoomLabel = element('span', 'schedule-zoom-level');
  zoomLabel.setAttribute('aria-live', 'polite');
  toolbar.append(zoomOut, zoomIn, zoomReset, zoomLabel);
  section.append(toolbar, scroller, traceTable(lanes));
  redraw();
  requestAnimationFrame(() => {
    if (scroller.isConnected) redraw();
  });
  return section;
}
