// The Gantt chart of a schedule's Chrome trace: one lane per core × pipe that ran something, grouped
// by core under a header that collapses the core into one summary lane (a button with
// aria-expanded), with a time axis, zoom buttons and horizontal scroll (drag to pan, Ctrl+wheel to
// zoom). Bars are painted on a canvas for the visible window only (schedule-canvas.js), so a 50k-event
// trace stays smooth; labels, headers and the axis are SVG. The chart has one tab stop, the current
// event: arrow keys move it (a binary search per key, schedule-rows.js), its text is its accessible
// name and is announced; hover or focus shows the text; a click (or Enter) puts the caret on the
// event's line in the cell's editor. The same events are listed in a table for screen readers.
import { scaleLinear } from 'd3-scale';
import { t } from '../../i18n/index.js';
import { button, element, svgElement } from '../../ui/dom.js';
import { AXIS_HEIGHT, chartColours, drawAxis, LABEL_WIDTH, paintBars } from './schedule-canvas.js';
import { coreGroups, eventSource, eventText, traceLanes } from './schedule-lanes.js';
import { CORE_HEADER, itemAt, LANE_HEIGHT, layoutRows, nearestItem, rowAtY } from './schedule-rows.js';
import { tooltip, traceTable } from './schedule-table.js';

export { traceLanes } from './schedule-lanes.js';

/** Plot width at zoom 1 while the chart is not yet on the page, in px. */
const BASE_WIDTH = 820;
const MAX_ZOOM = 1024;
/** More cores than this start collapsed (one summary lane each). */
const EXPANDED_CORES = 8;
/** How near (px) the pointer must come to a bar to hit it. */
const HIT_SLACK = 3;
/** The narrowest the focus ring of the current event is drawn, in px. */
const FOCUS_MIN_WIDTH = 4;

// Every painted chart repaints when the theme changes (its colours are CSS custom properties).
const painted = new Set();
function repaintAll() {
  for (const chart of painted) {
    if (chart.isConnected()) chart.paint(true);
    else painted.delete(chart);
  }
}
if (typeof document !== 'undefined') {
  new MutationObserver(repaintAll).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  globalThis.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', repaintAll);
}

/** A core's header: a button that collapses or expands the core's lanes. */
function coreHeader({ group, collapsed, y }) {
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
  const top = AXIS_HEIGHT + y;
  toggle.append(svgElement('rect', { x: 0, y: top, width: '100%', height: CORE_HEADER, class: 'schedule-core-header' }));
  const label = svgElement('text', { x: 4, y: top + CORE_HEADER - 6, class: 'schedule-core-label' });
  label.textContent = `${collapsed ? '▸' : '▾'} ${name}${collapsed ? ` · ${t('output.schedule.pipeCount', { pipes })}` : ''}`;
  toggle.append(label);
  return toggle;
}

/** A lane's label at the left (the group carries the lane's core and pipe for tests and styles). */
function laneLabel(row) {
  const summary = row.pipe === null;
  const group = svgElement('g', { class: `schedule-lane${summary ? ' schedule-lane-summary' : ''}`, 'data-core': row.core });
  if (summary) group.dataset.summary = 'true';
  else group.dataset.pipe = String(row.pipe);
  const label = svgElement('text', { x: 14, y: AXIS_HEIGHT + row.y + LANE_HEIGHT - 5, class: 'schedule-lane-label' });
  label.textContent = row.label;
  group.append(label);
  return group;
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
  const eventCount = lanes.reduce((sum, lane) => sum + lane.events.length, 0);

  const toolbar = element('div', 'schedule-toolbar');
  const chart = element('div', 'schedule-chart');
  const scroller = element('div', 'schedule-scroll');
  // The content is as wide as the zoomed plot (so the scroll bar is right); the view inside it stays
  // put (position: sticky) and shows the window the scroll position selects.
  const content = element('div', 'schedule-content');
  const view = element('div', 'schedule-view');
  const canvas = element('canvas', 'schedule-canvas');
  canvas.setAttribute('aria-hidden', 'true');
  const svg = svgElement('svg', { class: 'schedule-gantt-svg', role: 'group' });
  const axisGroup = svgElement('g');
  const labelsGroup = svgElement('g', { class: 'schedule-labels' });
  const hover = svgElement('rect', { class: 'schedule-hover', visibility: 'hidden' });
  const focus = svgElement('rect', { class: 'schedule-event', tabindex: 0, role: 'button' });
  svg.append(axisGroup, svgElement('rect', { x: 0, y: AXIS_HEIGHT, width: LABEL_WIDTH, height: '100%', class: 'schedule-label-column' }), labelsGroup, hover, focus);
  view.append(canvas, svg);
  content.append(view);
  scroller.append(content);
  const announcer = element('p', 'visually-hidden schedule-announcer');
  announcer.setAttribute('aria-live', 'polite');
  const tip = tooltip(chart);
  chart.append(scroller, tip.box, announcer);

  let zoom = 1;
  let layout = null;
  /** The current event (the chart's one tab stop) as { key: row key, index }; kept across redraws. */
  let current = null;
  /** The time window on show and the scale mapping it onto the view. */
  let x = scaleLinear();

  // At zoom 1 the plot fits the scroller's width once it is on the page (BASE_WIDTH before that).
  // The scroller's width is kept by a ResizeObserver: reading clientWidth while painting would force
  // a layout of the page on every zoom step.
  let scrollerWidth = 0;
  const fitWidth = () => (scrollerWidth > LABEL_WIDTH + 200 ? scrollerWidth - LABEL_WIDTH - 14 : BASE_WIDTH);
  const plotWidth = () => fitWidth() * zoom;
  const viewWidth = () => Math.min(LABEL_WIDTH + plotWidth() + 12, scrollerWidth || LABEL_WIDTH + BASE_WIDTH + 12);
  const height = () => AXIS_HEIGHT + layout.height + 4;
  const rowIndex = (key) => layout.rows.findIndex((row) => row.key === key);
  const currentItem = () => {
    const index = current ? rowIndex(current.key) : -1;
    return index < 0 ? null : { row: layout.rows[index], rowIndex: index, index: current.index, item: layout.rows[index].items[current.index] };
  };
  /** The box of an event's bar in the view, in px (left of the plot when it is scrolled out of view). */
  const barBox = (row, item) => {
    const left = x(item.event.ts);
    return { left, right: Math.max(x(item.event.ts + item.event.dur), left + 0.75), top: AXIS_HEIGHT + row.y + 2 };
  };
  const clientBox = (box) => {
    const area = view.getBoundingClientRect();
    return { left: area.left + Math.max(LABEL_WIDTH, box.left), bottom: area.top + box.top + LANE_HEIGHT - 4 };
  };

  const placeFocus = () => {
    const found = currentItem();
    if (!found?.item) {
      focus.setAttribute('visibility', 'hidden');
      focus.removeAttribute('tabindex');
      return;
    }
    const box = barBox(found.row, found.item);
    const width = Math.max(box.right - box.left, FOCUS_MIN_WIDTH);
    const centre = (box.left + box.right) / 2;
    for (const [name, value] of Object.entries({ x: centre - width / 2, y: box.top - 1, width, height: LANE_HEIGHT - 2, tabindex: 0, visibility: 'visible', 'data-core': found.item.lane.core, 'data-pipe': found.item.lane.pipe, 'data-index': found.index, 'data-row': found.row.key })) {
      focus.setAttribute(name, String(value));
    }
    const source = eventSource(found.item.event);
    focus.classList.toggle('has-source', Boolean(source));
    if (source) focus.dataset.line = String(source.line);
    else delete focus.dataset.line;
    focus.setAttribute('aria-label', eventText(found.item.event, found.item.lane).replaceAll('\n', '; '));
  };

  let colours = null;
  /** Where the last paint was: a scroll event that did not move the view repaints nothing. */
  let paintedAt = null;
  const chartHandle = { isConnected: () => section.isConnected, paint: (themeChanged) => paint(themeChanged) };
  /** Repaints the window the scroll position shows: canvas, axis, focus ring (re-reading the colours after a theme change). */
  const paint = (themeChanged = false) => {
    const width = viewWidth();
    const shown = height();
    const plot = plotWidth();
    const left = scroller.scrollLeft;
    paintedAt = `${left}/${plot}/${width}/${shown}`;
    const from = (left / plot) * end;
    const to = ((left + width - LABEL_WIDTH) / plot) * end;
    x = scaleLinear().domain([from, to]).range([LABEL_WIDTH, width]);
    content.style.width = `${LABEL_WIDTH + plot + 12}px`;
    content.style.height = `${shown}px`;
    view.style.width = `${width}px`;
    view.style.height = `${shown}px`;
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(shown));
    svg.setAttribute('viewBox', `0 0 ${width} ${shown}`);
    // Off the page the custom properties read empty: read again once it is on the page.
    if (!colours || themeChanged || !colours.lane) colours = chartColours(chart);
    paintBars(canvas, { rows: layout.rows, x, width, height: shown, colours });
    drawAxis(axisGroup, x, width);
    placeFocus();
    hover.setAttribute('visibility', 'hidden');
    if (section.isConnected) painted.add(chartHandle);
  };
  let paintQueued = false;
  const queuePaint = () => {
    if (paintQueued) return;
    paintQueued = true;
    requestAnimationFrame(() => {
      paintQueued = false;
      if (paintedAt !== `${scroller.scrollLeft}/${plotWidth()}/${viewWidth()}/${height()}`) paint();
    });
  };

  /** Lays out the rows (after a core was collapsed or expanded) and repaints; refocuses `focusCore`'s header. */
  const relayout = (focusCore = null) => {
    layout = layoutRows(groups, collapsed);
    svg.setAttribute('aria-label', t('output.schedule.ganttLabel', { lanes: layout.rows.length, us: end.toPrecision(4) }) + ' ' + t('output.schedule.eventCount', { count: eventCount }));
    labelsGroup.replaceChildren(...layout.headers.map(coreHeader), ...layout.rows.map(laneLabel));
    // The current event keeps its place when its lane is still shown, else the first event shown holds the tab stop.
    if (!currentItem()?.item) {
      const first = layout.rows.findIndex((row) => row.items.length > 0);
      current = first < 0 ? null : { key: layout.rows[first].key, index: 0 };
    }
    paint();
    if (focusCore !== null) /** @type {SVGElement | null} */ (labelsGroup.querySelector(`.schedule-core-toggle[data-core="${focusCore}"]`))?.focus();
  };

  /** Zooms to `next`, keeping the time at the centre of the view where it was. */
  const setZoom = (next) => {
    const clamped = Math.min(MAX_ZOOM, Math.max(1, next));
    const centre = (scroller.scrollLeft + (viewWidth() - LABEL_WIDTH) / 2) / plotWidth();
    zoom = clamped;
    content.style.width = `${LABEL_WIDTH + plotWidth() + 12}px`;
    scroller.scrollLeft = Math.max(0, centre * plotWidth() - (viewWidth() - LABEL_WIDTH) / 2);
    paint();
    zoomLabel.textContent = t('output.schedule.zoomLevel', { zoom });
    zoomIn.disabled = zoom >= MAX_ZOOM;
    zoomOut.disabled = zoom <= 1;
  };

  const reveal = (item) => {
    const source = eventSource(item.event);
    if (source) context.revealSource?.(source);
  };
  const toggleCore = (core) => {
    if (collapsed.has(core)) collapsed.delete(core);
    else collapsed.add(core);
    relayout(core);
  };
  /** The event under a pointer position, as { row, index, item } or null. */
  const hitTest = (clientX, clientY) => {
    const area = view.getBoundingClientRect();
    const viewX = clientX - area.left;
    if (viewX < LABEL_WIDTH) return null;
    const index = rowAtY(layout.rows, clientY - area.top - AXIS_HEIGHT);
    if (index < 0) return null;
    const row = layout.rows[index];
    const slack = Math.abs(x.invert(viewX + HIT_SLACK) - x.invert(viewX));
    const found = itemAt(row, x.invert(viewX), slack);
    return found < 0 ? null : { row, index: found, item: row.items[found] };
  };
  const showTip = (row, item) => tip.show(clientBox(barBox(row, item)), eventText(item.event, item.lane));

  /** Scrolls the chart so that `item` is in the visible window (centred when it was out of it). */
  const scrollTo = (item) => {
    const left = (item.event.ts / end) * plotWidth();
    const visible = viewWidth() - LABEL_WIDTH;
    if (left < scroller.scrollLeft || left > scroller.scrollLeft + visible - 8) scroller.scrollLeft = Math.max(0, left - visible / 2);
  };
  /** Makes `index` of `row` the current event, scrolls it into view, focuses and announces it. */
  const moveTo = (row, index) => {
    current = { key: row.key, index };
    const item = row.items[index];
    scrollTo(item);
    paint();
    focus.focus({ preventScroll: true });
    showTip(row, item);
    announcer.textContent = eventText(item.event, item.lane).replaceAll('\n', '; ');
  };
  // Arrow keys: left/right along a lane, up/down to the event nearest in time of the next lane with events.
  const move = (key) => {
    const found = currentItem();
    if (!found?.item) return;
    const { row, rowIndex: at, index } = found;
    if (key === 'ArrowLeft' && index > 0) return moveTo(row, index - 1);
    if (key === 'ArrowRight' && index + 1 < row.items.length) return moveTo(row, index + 1);
    if (key === 'Home') return moveTo(row, 0);
    if (key === 'End') return moveTo(row, row.items.length - 1);
    if (key !== 'ArrowDown' && key !== 'ArrowUp') return;
    const step = key === 'ArrowDown' ? 1 : -1;
    for (let next = at + step; next >= 0 && next < layout.rows.length; next += step) {
      const target = nearestItem(layout.rows[next], found.item.event.ts);
      if (target >= 0) return moveTo(layout.rows[next], target);
    }
  };

  // Drag to pan a zoomed chart; a drag does not count as a click on the event it started on.
  let drag = null;
  scroller.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || event.target.closest?.('.schedule-core-toggle')) return;
    drag = { x: event.clientX, scroll: scroller.scrollLeft, moved: false };
  });
  scroller.addEventListener('pointermove', (event) => {
    if (drag && (event.buttons & 1) !== 0) {
      const dx = event.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) scroller.scrollLeft = drag.scroll - dx;
      return;
    }
    const hit = hitTest(event.clientX, event.clientY);
    view.style.cursor = hit && eventSource(hit.item.event) ? 'pointer' : '';
    if (!hit) {
      hover.setAttribute('visibility', 'hidden');
      if (document.activeElement !== focus) tip.hide();
      return;
    }
    const box = barBox(hit.row, hit.item);
    for (const [name, value] of Object.entries({ x: box.left, y: box.top, width: box.right - box.left, height: LANE_HEIGHT - 4, visibility: 'visible' })) hover.setAttribute(name, String(value));
    showTip(hit.row, hit.item);
  });
  scroller.addEventListener('click', (event) => {
    if (drag?.moved) event.stopImmediatePropagation();
    drag = null;
  }, { capture: true });
  scroller.addEventListener('scroll', queuePaint);
  // Ctrl/Cmd + wheel zooms (the plain wheel keeps scrolling the page).
  scroller.addEventListener('wheel', (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    setZoom(event.deltaY < 0 ? zoom * 2 : zoom / 2);
  }, { passive: false });
  scroller.addEventListener('click', (event) => {
    const toggle = event.target.closest?.('.schedule-core-toggle');
    if (toggle) return toggleCore(Number(toggle.dataset.core));
    const hit = hitTest(event.clientX, event.clientY);
    if (!hit) return;
    current = { key: hit.row.key, index: hit.index };
    placeFocus();
    reveal(hit.item);
  });
  scroller.addEventListener('keydown', (event) => {
    const toggle = event.target.closest?.('.schedule-core-toggle');
    if (toggle && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      toggleCore(Number(toggle.dataset.core));
      return;
    }
    if (event.target !== focus) return;
    const found = currentItem();
    if (!found?.item) return;
    if (event.key === 'Enter' || event.key === ' ') reveal(found.item);
    else if (event.key === 'Escape') tip.hide();
    else if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(event.key)) move(event.key);
    else return;
    event.preventDefault();
    // Keys handled here never reach the cell's command keys (arrows there select other cells).
    event.stopPropagation();
  });
  // Tabbing back into a chart panned away from its current event brings the event into view.
  focus.addEventListener('focus', () => {
    const found = currentItem();
    if (!found?.item) return;
    scrollTo(found.item);
    paint();
    showTip(found.row, found.item);
  });
  focus.addEventListener('blur', () => tip.hide());
  scroller.addEventListener('pointerleave', () => {
    hover.setAttribute('visibility', 'hidden');
    if (document.activeElement !== focus) tip.hide();
  });
  new ResizeObserver(([entry]) => {
    scrollerWidth = entry.contentRect.width;
    if (layout) queuePaint();
  }).observe(scroller);

  const zoomOut = button('schedule-button schedule-zoom-out', '−', () => setZoom(zoom / 2), t('output.schedule.zoomOut'));
  const zoomIn = button('schedule-button schedule-zoom-in', '+', () => setZoom(zoom * 2), t('output.schedule.zoomIn'));
  const zoomReset = button('schedule-button schedule-zoom-reset', t('output.schedule.zoomReset'), () => setZoom(1), t('output.schedule.zoomReset'));
  const zoomLabel = element('span', 'schedule-zoom-level');
  zoomLabel.setAttribute('aria-live', 'polite');
  toolbar.append(zoomOut, zoomIn, zoomReset, zoomLabel);
  const hint = element('p', 'output-note schedule-hint', t('output.schedule.hint'));
  section.append(toolbar, chart, hint, traceTable(lanes));
  relayout();
  setZoom(1);
  return section;
}
