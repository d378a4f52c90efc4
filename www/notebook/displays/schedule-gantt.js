// The Gantt chart of a schedule's Chrome trace: one lane per core × pipe that ran something, grouped
// by core under a header that collapses the core into one summary lane (a button with
// aria-expanded), drawn as SVG through DOM calls, with a time axis, zoom buttons and horizontal
// scroll (drag to pan, Ctrl+wheel to zoom). Events show op, tile, bytes, cycles and source line on hover or focus; a click (or Enter
// on a focused event; arrow keys move between events) puts the caret on that line of the cell's
// editor. The same events are listed in a table for screen readers.
import { t } from '../../i18n/index.js';
import { button, element, svgElement } from '../../ui/dom.js';
import { coreGroups, eventSource, eventText, tickStep, traceLanes } from './schedule-lanes.js';

export { traceLanes } from './schedule-lanes.js';

/** Width of the lane labels, in px. */
const LABEL_WIDTH = 150;
/** Height of one lane, of the axis and of a core's header, in px. */
const LANE_HEIGHT = 18;
const AXIS_HEIGHT = 22;
const CORE_HEADER = 20;
/** Plot width at zoom 1 while the chart is not yet on the page, in px. */
const BASE_WIDTH = 820;
const MAX_ZOOM = 64;
/** Rows of the table alternative (a huge trace stays usable; the download has every event). */
const MAX_TABLE_ROWS = 400;
/** More cores than this start collapsed (one summary lane each). */
const EXPANDED_CORES = 8;

/** The axis at the top: ticks in µs down the whole height. */
function drawAxis(end, width, height) {
  const scale = end > 0 ? width / end : 0;
  const axis = svgElement('g', { class: 'schedule-axis' });
  const step = end > 0 ? tickStep(end, Math.max(2, Math.round(width / 110))) : 1;
  for (let time = 0; time <= end + step * 1e-9; time += step) {
    const x = LABEL_WIDTH + time * scale;
    axis.append(svgElement('line', { x1: x, x2: x, y1: AXIS_HEIGHT - 5, y2: height, class: 'schedule-tick' }));
    const label = svgElement('text', { x: x + 2, y: AXIS_HEIGHT - 8, class: 'schedule-tick-label' });
    label.textContent = t('output.schedule.tick', { us: Number(time.toPrecision(6)) });
    axis.append(label);
  }
  return axis;
}

/** A core's header: a button that collapses or expands the core's lanes. */
function drawCoreHeader(group, collapsed, y, width) {
  const name = group.coreName;
  const pipes = group.lanes.length;
  const toggle = svgElement('g', {
    class: 'schedule-core-toggle',
    role: 'button',
    tabindex: 0,
    'aria-expanded': String(!collapsed),
    'aria-label': t(collapsed ? 'output.schedule.expandCore' : 'output.schedule.collapseCore', { core: name, pipes }),
    'data-core': group.core,
  });
  toggle.append(svgElement('rect', { x: 0, y, width: LABEL_WIDTH + width, height: CORE_HEADER, class: 'schedule-core-header' }));
  const label = svgElement('text', { x: 4, y: y + CORE_HEADER - 6, class: 'schedule-core-label' });
  label.textContent = `${collapsed ? '▸' : '▾'} ${name}${collapsed ? ` · ${t('output.schedule.pipeCount', { pipes })}` : ''}`;
  toggle.append(label);
  return toggle;
}

/**
 * The SVG at `width` px of plot: per core a header and its lanes (or one summary lane when the
 * core is collapsed). Returns { svg, rows } where rows[i] = { key, rects: [{ rect, event, lane }] }
 * in drawing order, for keyboard navigation.
 */
function drawChart(groups, end, width, collapsed) {
  const scale = end > 0 ? width / end : 0;
  const laneCount = groups.reduce((sum, group) => sum + (collapsed.has(group.core) ? 1 : group.lanes.length), 0);
  const height = AXIS_HEIGHT + groups.length * CORE_HEADER + laneCount * LANE_HEIGHT + 4;
  const svg = svgElement('svg', { width: LABEL_WIDTH + width + 12, height, class: 'schedule-gantt-svg', role: 'group' });
  svg.setAttribute('aria-label', t('output.schedule.ganttLabel', { lanes: laneCount, us: end.toPrecision(4) }));
  svg.append(drawAxis(end, width, height));
  const rows = [];
  let y = AXIS_HEIGHT;
  for (const group of groups) {
    const isCollapsed = collapsed.has(group.core);
    svg.append(drawCoreHeader(group, isCollapsed, y, width));
    y += CORE_HEADER;
    const lanes = isCollapsed
      ? [{ key: `${group.core}/all`, label: t('output.schedule.summaryLane'), items: group.events, attributes: { 'data-core': group.core, 'data-summary': 'true' } }]
      : group.lanes.map((lane) => ({ key: `${lane.core}/${lane.pipe}`, label: lane.pipeName, items: lane.events.map((event) => ({ event, lane })), attributes: { 'data-core': lane.core, 'data-pipe': lane.pipe } }));
    for (const lane of lanes) {
      const row = svgElement('g', { class: `schedule-lane${isCollapsed ? ' schedule-lane-summary' : ''}`, ...lane.attributes });
      row.append(svgElement('rect', { x: LABEL_WIDTH, y, width, height: LANE_HEIGHT, class: 'schedule-lane-bg' }));
      const label = svgElement('text', { x: 14, y: y + LANE_HEIGHT - 5, class: 'schedule-lane-label' });
      label.textContent = lane.label;
      row.append(label);
      const rects = [];
      for (const { event, lane: source } of lane.items) {
        if (!(event.dur > 0)) continue;
        const line = eventSource(event)?.line;
        const rect = svgElement('rect', {
          x: LABEL_WIDTH + event.ts * scale,
          y: y + 2,
          width: Math.max(event.dur * scale, 0.75),
          height: LANE_HEIGHT - 4,
          class: `schedule-event schedule-pipe-${source.pipe % 8}${line ? ' has-source' : ''}`,
          tabindex: -1,
          role: 'button',
          'aria-label': eventText(event, source).replaceAll('\n', '; '),
        });
        if (line) rect.dataset.line = line;
        const title = svgElement('title');
        title.textContent = eventText(event, source);
        rect.append(title);
        row.append(rect);
        rects.push({ rect, event, lane: source });
      }
      svg.append(row);
      rows.push({ key: lane.key, rects });
      y += LANE_HEIGHT;
    }
  }
  return { svg, rows };
}

/** The events as a table (core, pipe, op, tile, start, end, bytes, line), capped at MAX_TABLE_ROWS. */
function traceTable(lanes) {
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

/** The tooltip box of the chart: shows an event's text under its rect (hover or keyboard focus). */
function tooltip(container) {
  const box = element('div', 'schedule-tooltip');
  box.setAttribute('role', 'tooltip');
  box.hidden = true;
  return {
    box,
    show(rect, text) {
      box.textContent = text;
      box.hidden = false;
      const area = container.getBoundingClientRect();
      const target = rect.getBoundingClientRect();
      const left = Math.min(Math.max(0, target.left - area.left), Math.max(0, area.width - box.offsetWidth - 4));
      box.style.left = `${left}px`;
      box.style.top = `${target.bottom - area.top + 4}px`;
    },
    hide() {
      box.hidden = true;
    },
  };
}

/**
 * The Gantt section: zoom buttons, the scrollable chart and the table alternative. `context` may
 * carry `revealSource({ line, cell })`, which shows that line in the cell's editor.
 */
export function renderGantt(traceJson, context = {}) {
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
  const groups = coreGroups(lanes);
  const collapsed = new Set(groups.length > EXPANDED_CORES ? groups.map((group) => group.core) : []);
  const toolbar = element('div', 'schedule-toolbar');
  const chart = element('div', 'schedule-chart');
  const scroller = element('div', 'schedule-scroll');
  const tip = tooltip(chart);
  chart.append(scroller, tip.box);
  let zoom = 1;
  let rows = [];
  /** Which event holds the chart's one tab stop, as [row key, index]. */
  let current = null;
  const items = new WeakMap();

  const place = (position) => {
    const row = rows.find((candidate) => candidate.key === position?.[0]);
    return row?.rects[Math.min(position[1], row.rects.length - 1)] ?? null;
  };
  const positionOf = (item) => {
    const row = rows.find((candidate) => candidate.rects.includes(item));
    return [row.key, row.rects.indexOf(item)];
  };
  const setTabStop = (position) => {
    for (const row of rows) for (const { rect } of row.rects) rect.setAttribute('tabindex', '-1');
    const first = rows.find((row) => row.rects.length > 0);
    const target = place(position) ?? (first ? first.rects[0] : null);
    if (!target) return null;
    target.rect.setAttribute('tabindex', '0');
    current = positionOf(target);
    return target;
  };
  // At zoom 1 the chart fits the scroller's width once it is on the page (BASE_WIDTH before that).
  const fitWidth = () => (scroller.clientWidth > LABEL_WIDTH + 200 ? scroller.clientWidth - LABEL_WIDTH - 14 : BASE_WIDTH);
  const redraw = (focusSelector) => {
    const drawn = drawChart(groups, end, fitWidth() * zoom, collapsed);
    rows = drawn.rows;
    for (const row of rows) for (const item of row.rects) items.set(item.rect, item);
    scroller.replaceChildren(drawn.svg);
    setTabStop(current);
    tip.hide();
    zoomLabel.textContent = t('output.schedule.zoomLevel', { zoom });
    zoomIn.disabled = zoom >= MAX_ZOOM;
    zoomOut.disabled = zoom <= 1;
    if (focusSelector) drawn.svg.querySelector(focusSelector)?.focus();
  };
  const reveal = (item) => {
    const source = eventSource(item.event);
    if (source) context.revealSource?.(source);
  };
  const toggleCore = (core) => {
    if (collapsed.has(core)) collapsed.delete(core);
    else collapsed.add(core);
    redraw(`.schedule-core-toggle[data-core="${core}"]`);
  };
  // Arrow keys: left/right along a lane, up/down to the nearest event in time of the next lane.
  const move = (item, key) => {
    const rowIndex = rows.findIndex((row) => row.rects.includes(item));
    const index = rows[rowIndex].rects.indexOf(item);
    let target = null;
    if (key === 'ArrowLeft') target = rows[rowIndex].rects[index - 1];
    else if (key === 'ArrowRight') target = rows[rowIndex].rects[index + 1];
    else if (key === 'Home') target = rows[rowIndex].rects[0];
    else if (key === 'End') target = rows[rowIndex].rects.at(-1);
    else {
      const step = key === 'ArrowDown' ? 1 : -1;
      for (let next = rowIndex + step; next >= 0 && next < rows.length && !target; next += step) {
        const candidates = rows[next].rects;
        if (candidates.length === 0) continue;
        target = candidates.reduce((best, candidate) => (Math.abs(candidate.event.ts - item.event.ts) < Math.abs(best.event.ts - item.event.ts) ? candidate : best));
      }
    }
    if (!target) return;
    setTabStop(positionOf(target));
    target.rect.focus();
  };

  // Drag to pan a zoomed chart; a drag does not count as a click on the event it started on.
  let drag = null;
  scroller.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || event.target.closest?.('.schedule-core-toggle')) return;
    drag = { x: event.clientX, scroll: scroller.scrollLeft, moved: false };
  });
  scroller.addEventListener('pointermove', (event) => {
    if (!drag || (event.buttons & 1) === 0) return;
    const dx = event.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (drag.moved) scroller.scrollLeft = drag.scroll - dx;
  });
  scroller.addEventListener('click', (event) => {
    if (drag?.moved) event.stopImmediatePropagation();
    drag = null;
  }, { capture: true });
  // Ctrl/Cmd + wheel zooms (the plain wheel keeps scrolling the page).
  scroller.addEventListener('wheel', (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    zoom = event.deltaY < 0 ? Math.min(MAX_ZOOM, zoom * 2) : Math.max(1, zoom / 2);
    redraw();
  }, { passive: false });
  scroller.addEventListener('click', (event) => {
    const toggle = event.target.closest?.('.schedule-core-toggle');
    if (toggle) return toggleCore(Number(toggle.dataset.core));
    const item = items.get(event.target.closest?.('.schedule-event'));
    if (item) reveal(item);
  });
  scroller.addEventListener('keydown', (event) => {
    const toggle = event.target.closest?.('.schedule-core-toggle');
    if (toggle && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      toggleCore(Number(toggle.dataset.core));
      return;
    }
    const item = items.get(event.target.closest?.('.schedule-event'));
    if (!item) return;
    if (event.key === 'Enter' || event.key === ' ') reveal(item);
    else if (event.key === 'Escape') tip.hide();
    else if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(event.key)) move(item, event.key);
    else return;
    event.preventDefault();
    // Keys handled here never reach the cell's command keys (arrows there select other cells).
    event.stopPropagation();
  });
  const showFor = (target) => {
    const item = items.get(target?.closest?.('.schedule-event'));
    if (item) tip.show(item.rect, eventText(item.event, item.lane));
    else tip.hide();
  };
  scroller.addEventListener('pointerover', (event) => showFor(event.target));
  scroller.addEventListener('focusin', (event) => showFor(event.target));
  scroller.addEventListener('pointerleave', () => tip.hide());
  scroller.addEventListener('focusout', () => tip.hide());

  const zoomOut = button('schedule-button schedule-zoom-out', '−', () => { zoom = Math.max(1, zoom / 2); redraw(); }, t('output.schedule.zoomOut'));
  const zoomIn = button('schedule-button schedule-zoom-in', '+', () => { zoom = Math.min(MAX_ZOOM, zoom * 2); redraw(); }, t('output.schedule.zoomIn'));
  const zoomReset = button('schedule-button schedule-zoom-reset', t('output.schedule.zoomReset'), () => { zoom = 1; redraw(); }, t('output.schedule.zoomReset'));
  const zoomLabel = element('span', 'schedule-zoom-level');
  zoomLabel.setAttribute('aria-live', 'polite');
  toolbar.append(zoomOut, zoomIn, zoomReset, zoomLabel);
  const hint = element('p', 'output-note schedule-hint', t('output.schedule.hint'));
  section.append(toolbar, chart, hint, traceTable(lanes));
  redraw();
  requestAnimationFrame(() => {
    if (scroller.isConnected) redraw();
  });
  return section;
}
