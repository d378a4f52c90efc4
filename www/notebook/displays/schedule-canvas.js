// Paints the visible window of the Gantt: lane backgrounds, grid lines and event bars on a canvas
// the size of the view (never the zoomed width), the time axis with d3-axis in an SVG group. Cost is
// O(lanes × (log n + bars in view)): bars thinner than two pixels are merged into runs per colour,
// so a 50k-event trace paints a few thousand rectangles at most.
import { axisTop } from 'd3-axis';
import { select } from 'd3-selection';
import { t } from '../../i18n/index.js';
import { firstVisible, LANE_HEIGHT } from './schedule-rows.js';

/** Width of the lane labels and height of the axis, in px. */
export const LABEL_WIDTH = 150;
export const AXIS_HEIGHT = 22;
/** About one tick per this many px of plot. */
const TICK_SPACING = 110;
/** Bars narrower than this (px) merge with a neighbour of the same colour instead of being drawn alone. */
const THIN_BAR = 2;

/** The colours of the current theme, read from the chart's CSS custom properties. */
export function chartColours(node) {
  const style = getComputedStyle(node);
  const read = (name) => style.getPropertyValue(name).trim();
  return {
    pipes: Array.from({ length: 8 }, (_, index) => read(`--pipe-${index}`)),
    lane: read('--surface-2'),
    border: read('--border'),
  };
}

/** The tick count for a plot `width` px wide. */
export function tickCount(width) {
  return Math.max(2, Math.round(width / TICK_SPACING));
}

/**
 * Paints `rows` on `canvas` (`width` × `height` CSS px) for the time scale `x` (µs → px in the
 * view; its domain is the visible window).
 */
export function paintBars(canvas, { rows, x, width, height, colours }) {
  const ratio = globalThis.devicePixelRatio || 1;
  const pixelWidth = Math.round(width * ratio);
  const pixelHeight = Math.round(height * ratio);
  if (canvas.width !== pixelWidth || canvas.height !== pixelHeight) {
    canvas.width = pixelWidth;
    canvas.height = pixelHeight;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const context = canvas.getContext('2d');
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  context.save();
  context.beginPath();
  context.rect(LABEL_WIDTH, 0, width - LABEL_WIDTH, height);
  context.clip();
  for (const row of rows) {
    context.fillStyle = colours.lane;
    context.fillRect(LABEL_WIDTH, AXIS_HEIGHT + row.y, width - LABEL_WIDTH, LANE_HEIGHT);
    context.fillStyle = colours.border;
    context.fillRect(LABEL_WIDTH, AXIS_HEIGHT + row.y + LANE_HEIGHT - 0.5, width - LABEL_WIDTH, 0.5);
  }
  context.fillStyle = colours.border;
  for (const time of x.ticks(tickCount(width - LABEL_WIDTH))) context.fillRect(Math.round(x(time)), AXIS_HEIGHT - 5, 1, height);
  const [start, end] = x.domain();
  for (const row of rows) paintRow(context, row, x, start, end, colours.pipes);
  context.restore();
}

/** One lane's bars between `start` and `end` µs: wide bars one by one, thin ones merged into runs. */
function paintRow(context, row, x, start, end, pipeColours) {
  const top = AXIS_HEIGHT + row.y + 2;
  const barHeight = LANE_HEIGHT - 4;
  let runColour = -1;
  let runStart = 0;
  let runEnd = -Infinity;
  // The scale is linear: its slope and offset, so the loop over thousands of events makes no calls.
  const [low, high] = x.domain();
  const [leftEdge, rightEdge] = x.range();
  const slope = high > low ? (rightEdge - leftEdge) / (high - low) : 0;
  const offset = leftEdge - low * slope;
  const flush = () => {
    if (runColour < 0) return;
    context.fillStyle = pipeColours[runColour];
    context.fillRect(runStart, top, runEnd - runStart, barHeight);
    runColour = -1;
  };
  for (let index = firstVisible(row, start); index < row.items.length && row.starts[index] <= end; index += 1) {
    const { event, lane } = row.items[index];
    const colour = lane.pipe % 8;
    const left = offset + event.ts * slope;
    const right = Math.max(left + event.dur * slope, left + 0.75);
    if (right - left < THIN_BAR) {
      if (colour === runColour && left <= runEnd + 1) {
        runEnd = Math.max(runEnd, right);
        continue;
      }
      flush();
      runColour = colour;
      runStart = left;
      runEnd = right;
      continue;
    }
    flush();
    context.fillStyle = pipeColours[colour];
    // A one-pixel gap keeps back-to-back events apart.
    context.fillRect(left, top, right - left - (right - left > 3 ? 1 : 0), barHeight);
  }
  flush();
}

/** Draws the time axis (labels in µs) for scale `x` into the SVG group `group`, below `AXIS_HEIGHT`. */
export function drawAxis(group, x, width) {
  const axis = axisTop(x)
    .ticks(tickCount(width - LABEL_WIDTH))
    .tickSizeInner(5)
    .tickSizeOuter(0)
    .tickFormat((time) => t('output.schedule.tick', { us: Number(Number(time).toPrecision(6)) }));
  select(group)
    .attr('class', 'schedule-axis')
    .attr('transform', `translate(0, ${AXIS_HEIGHT})`)
    .call(axis)
    // The stylesheet sets the font and colours (light and dark), not d3's inline defaults.
    .attr('font-size', null)
    .attr('font-family', null)
    .attr('fill', null)
    // Labels at the plot's ends are anchored inside it, so none is cut off by the chart's edge.
    .call((axisGroup) => axisGroup.selectAll('.tick text').attr('class', 'schedule-tick-label').attr('fill', null).attr('text-anchor', (time) => (x(time) > width - 24 ? 'end' : x(time) < LABEL_WIDTH + 12 ? 'start' : null)))
    .call((axisGroup) => axisGroup.selectAll('.tick line').attr('class', 'schedule-tick').attr('stroke', null))
    .call((axisGroup) => axisGroup.select('.domain').attr('stroke', null));
}
