// The Gantt's rows and their index: per core a header, then its lanes (or one summary lane when the
// core is collapsed), each lane's timed events sorted by start with their starts in a typed array,
// so finding the event under the pointer or the next one for an arrow key is a binary search
// (a 50k-event trace answers every key in O(log n)). Pure data, no DOM.
import { t } from '../../i18n/index.js';

/** Height of one lane and of a core's header, in px. */
export const LANE_HEIGHT = 18;
export const CORE_HEADER = 20;

/**
 * One lane of the chart: `items` [{ event, lane }] with dur > 0 in start order, `starts` their
 * start times, `longest` the longest duration (how far back an event covering a time can start).
 */
function row(key, label, items, y, attributes) {
  const timed = items.filter(({ event }) => event.dur > 0);
  const starts = Float64Array.from(timed, ({ event }) => event.ts);
  const longest = timed.reduce((most, { event }) => Math.max(most, event.dur), 0);
  return { key, label, items: timed, starts, longest, y, ...attributes };
}

/**
 * The chart's layout below the axis (y = 0 is the first core's header): `headers` [{ group,
 * collapsed, y }], `rows` in drawing order, `height` in px.
 */
export function layoutRows(groups, collapsed) {
  const headers = [];
  const rows = [];
  let y = 0;
  for (const group of groups) {
    const isCollapsed = collapsed.has(group.core);
    headers.push({ group, collapsed: isCollapsed, y });
    y += CORE_HEADER;
    if (isCollapsed) {
      rows.push(row(`${group.core}/all`, t('output.schedule.summaryLane'), group.events, y, { core: group.core, pipe: null }));
      y += LANE_HEIGHT;
      continue;
    }
    for (const lane of group.lanes) {
      rows.push(row(`${lane.core}/${lane.pipe}`, lane.pipeName, lane.events.map((event) => ({ event, lane })), y, { core: lane.core, pipe: lane.pipe }));
      y += LANE_HEIGHT;
    }
  }
  return { headers, rows, height: y };
}

/** The number of starts ≤ `time` (an upper bound by binary search). */
export function countStartingBy(starts, time) {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (starts[middle] <= time) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The index of the first item that may still be running at `time` (none starts earlier and ends later). */
export function firstVisible(row, time) {
  return countStartingBy(row.starts, time - row.longest);
}

/**
 * The index of the event under `time` in `row`, within `slack` µs of either edge (thin bars are
 * hard to hit), the nearest edge winning; -1 when there is none.
 */
export function itemAt(row, time, slack) {
  let best = -1;
  let bestDistance = Infinity;
  const last = countStartingBy(row.starts, time + slack);
  for (let index = last - 1; index >= 0 && row.starts[index] >= time - slack - row.longest; index -= 1) {
    const { ts, dur } = row.items[index].event;
    const distance = time < ts ? ts - time : time > ts + dur ? time - ts - dur : 0;
    if (distance <= slack && distance < bestDistance) {
      best = index;
      bestDistance = distance;
      if (distance === 0) break;
    }
  }
  return best;
}

/** The index of the event of `row` starting nearest to `time`; -1 for an empty row. */
export function nearestItem(row, time) {
  if (row.items.length === 0) return -1;
  const after = countStartingBy(row.starts, time);
  if (after === 0) return 0;
  if (after === row.starts.length) return after - 1;
  return time - row.starts[after - 1] <= row.starts[after] - time ? after - 1 : after;
}

/** The row at `y` px below the axis, by binary search over the rows' tops; -1 on a header or past the end. */
export function rowAtY(rows, y) {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (rows[middle].y <= y) low = middle + 1;
    else high = middle;
  }
  const index = low - 1;
  return index >= 0 && y < rows[index].y + LANE_HEIGHT ? index : -1;
}
