// The Gantt's row index (www/notebook/displays/schedule-rows.js), in Node: the binary searches
// behind hover, click and the arrow keys, against hand-worked positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countStartingBy, firstVisible, itemAt, layoutRows, nearestItem, rowAtY, CORE_HEADER, LANE_HEIGHT } from '../../www/notebook/displays/schedule-rows.js';
import { quantile } from '../../scripts/bench-page-views.mjs';

/** One core with one lane whose events are [ts, dur] pairs (plus one with dur 0, which is not drawn). */
function oneLane(spans) {
  const lane = { core: 0, pipe: 0, coreName: 'core 0', pipeName: 'MTE2', events: spans.map(([ts, dur]) => ({ ts, dur })) };
  const group = { core: 0, coreName: 'core 0', lanes: [lane], events: lane.events.map((event) => ({ event, lane })) };
  return { lane, group };
}

test('countStartingBy counts the starts at or before a time', () => {
  const starts = Float64Array.from([0, 2, 2, 5, 9]);
  assert.equal(countStartingBy(starts, -1), 0);
  assert.equal(countStartingBy(starts, 0), 1);
  assert.equal(countStartingBy(starts, 2), 3);
  assert.equal(countStartingBy(starts, 4.9), 3);
  assert.equal(countStartingBy(starts, 9), 5);
  assert.equal(countStartingBy(Float64Array.from([]), 3), 0);
});

test('a lane keeps its timed events in start order; hits and nearest events are found by position', () => {
  // Events: [0, 1), [2, 5) (long), [3, 3.5), [6, 6.1), and one of zero duration at 4 (left out).
  const { group } = oneLane([[0, 1], [2, 3], [3, 0.5], [4, 0], [6, 0.1]]);
  const { rows, headers, height } = layoutRows([group], new Set());
  assert.equal(headers.length, 1);
  assert.equal(rows.length, 1);
  const [row] = rows;
  assert.deepEqual([...row.starts], [0, 2, 3, 6]);
  assert.equal(row.longest, 3);
  assert.equal(height, CORE_HEADER + LANE_HEIGHT);
  // Inside [2, 5) and [3, 3.5) at 3.2: the scan from the latest start finds [3, 3.5) first (distance 0).
  assert.equal(itemAt(row, 3.2, 0), 2);
  // At 4.5 only the long event [2, 5) covers it, though two others start later than it.
  assert.equal(itemAt(row, 4.5, 0), 1);
  // At 5.6 nothing covers; within 0.5 the nearest edge is [6, 6.1)'s start (0.4 away, [2, 5)'s end 0.6).
  assert.equal(itemAt(row, 5.6, 0), -1);
  assert.equal(itemAt(row, 5.6, 0.5), 3);
  assert.equal(itemAt(row, 100, 1), -1);
  // The nearest start to 4.4 is 3 (1.4 away) rather than 6 (1.6 away); before and after the ends clamp.
  assert.equal(nearestItem(row, 4.4), 2);
  assert.equal(nearestItem(row, 4.6), 3);
  assert.equal(nearestItem(row, -5), 0);
  assert.equal(nearestItem(row, 50), 3);
  // Drawing from time 4.5 must start at [2, 5) (longest 3: nothing starting before 1.5 reaches 4.5).
  assert.equal(firstVisible(row, 4.5), 1);
});

test('a collapsed core is one summary lane; rows are found by their y', () => {
  const first = oneLane([[0, 1]]);
  const second = { core: 1, pipe: 2, coreName: 'core 1', pipeName: 'VECTOR', events: [{ ts: 1, dur: 1 }] };
  const secondGroup = { core: 1, coreName: 'core 1', lanes: [second], events: [{ event: second.events[0], lane: second }] };
  const expanded = layoutRows([first.group, secondGroup], new Set());
  // header 0 at 0, lane 0/0 at 20, header 1 at 38, lane 1/2 at 58.
  assert.deepEqual(expanded.rows.map((row) => [row.key, row.y]), [['0/0', CORE_HEADER], ['1/2', 2 * CORE_HEADER + LANE_HEIGHT]]);
  assert.equal(rowAtY(expanded.rows, 5), -1, 'a header');
  assert.equal(rowAtY(expanded.rows, CORE_HEADER), 0);
  assert.equal(rowAtY(expanded.rows, CORE_HEADER + LANE_HEIGHT - 0.5), 0);
  assert.equal(rowAtY(expanded.rows, CORE_HEADER + LANE_HEIGHT + 1), -1, 'the second header');
  assert.equal(rowAtY(expanded.rows, 2 * CORE_HEADER + LANE_HEIGHT + 3), 1);
  assert.equal(rowAtY(expanded.rows, 500), -1);
  const collapsed = layoutRows([first.group, secondGroup], new Set([1]));
  assert.deepEqual(collapsed.rows.map((row) => [row.key, row.pipe]), [['0/0', 0], ['1/all', null]]);
});

test('quantile takes the nearest rank', () => {
  // Ten values 1..10: the 95th percentile is the 10th value, the median the 5th.
  const values = [5, 3, 9, 1, 10, 2, 8, 4, 7, 6];
  assert.equal(quantile(values, 0.95), 10);
  assert.equal(quantile(values, 0.5), 5);
  assert.equal(quantile([42], 0.95), 42);
});
