// A 50k-event schedule in the Gantt (issue 16): it renders (the canvas holds the pipes' colours
// where the trace has events), zooms (the scroll width doubles per step and the axis follows),
// answers the keyboard (End, arrows, Enter), and repaints in the dark theme. Timing is measured by
// `make bench-page`, not here. The trace is generated (scripts/bench-page-trace.mjs); the expected
// events are read from its JSON by this test, not from the chart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, useSite } from './notebook-helpers.mjs';
import { generatedSchedule, showDisplay } from '../../scripts/bench-page-trace.mjs';

useSite();

const EVENTS = 50_000;
const SOURCE = Array.from({ length: 12 }, (_, index) => `v${index + 1} = ${index + 1}`).join('\n');

/** The trace's timed events per "core/pipe", in start order. */
function lanesOf(display) {
  const lanes = new Map();
  for (const event of JSON.parse(display.trace_json).traceEvents) {
    if (event.ph !== 'X' || !(event.dur > 0)) continue;
    const key = `${event.pid}/${event.tid}`;
    if (!lanes.has(key)) lanes.set(key, []);
    lanes.get(key).push(event);
  }
  for (const events of lanes.values()) events.sort((a, b) => a.ts - b.ts);
  return lanes;
}

/** The colour (r, g, b) of the chart's canvas at a point of the view, in CSS px from its top left. */
function canvasColour(view, x, y) {
  return view.locator('.schedule-canvas').evaluate((canvas, [left, top]) => {
    const ratio = canvas.width / canvas.clientWidth;
    const data = canvas.getContext('2d').getImageData(Math.round(left * ratio), Math.round(top * ratio), 1, 1).data;
    return [data[0], data[1], data[2]];
  }, [x, y]);
}

/** A CSS colour (#rrggbb) of the chart's custom property `name` as [r, g, b]. */
function propertyColour(view, name) {
  return view.locator('.schedule-chart').evaluate((chart, property) => {
    const hex = getComputedStyle(chart).getPropertyValue(property).trim();
    return [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  }, name);
}

test('a 50k-event schedule renders, zooms and answers keyboard navigation', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1200, height: 1000 } });
  try {
    await page.evaluate((source) => globalThis.tilelab.model.load([{ kind: 'code', source }]), SOURCE);
    const display = generatedSchedule(EVENTS);
    const lanes = lanesOf(display);
    assert.equal([...lanes.values()].reduce((sum, events) => sum + events.length, 0), EVENTS);
    await page.evaluate(showDisplay, display);
    const view = page.locator('.output-schedule');
    await view.locator('.schedule-gantt').scrollIntoViewIfNeeded();

    // Every lane is labelled, in core then pipe order; four cores start expanded.
    const shown = await view.locator('.schedule-lane').evaluateAll((groups) => groups.map((group) => `${group.dataset.core}/${group.dataset.pipe}`));
    assert.deepEqual(shown, [...lanes.keys()].sort((a, b) => a.split('/')[0] - b.split('/')[0] || a.split('/')[1] - b.split('/')[1]));

    // Painted: at zoom 1 the first lane is busy from its first event on, so a point a little into
    // the plot has the first pipe's colour; the lane's label column does not.
    const laneMiddle = await view.locator('.schedule-lane').first().evaluate((group) => {
      const label = group.querySelector('text').getBBox();
      return label.y + label.height / 2;
    });
    const pipeZero = await propertyColour(view, '--pipe-0');
    assert.deepEqual(await canvasColour(view, 150 + 40, laneMiddle), pipeZero);
    assert.notDeepEqual(await canvasColour(view, 100, laneMiddle), pipeZero);

    // Zoom: each step doubles the scrolled content's plot (its width past the labels and margin)
    // and the axis shows a shorter span.
    const scroller = view.locator('.schedule-scroll');
    const scrollWidth = () => view.locator('.schedule-content').evaluate((node) => node.offsetWidth);
    const ticks = () => view.locator('.schedule-tick-label').allTextContents();
    const [widthBefore, ticksBefore] = [await scrollWidth(), await ticks()];
    for (let step = 0; step < 5; step += 1) await view.locator('.schedule-zoom-in').click();
    assert.equal(await view.locator('.schedule-zoom-level').textContent(), '×32');
    const widthAfter = await scrollWidth();
    assert.ok(Math.abs(widthAfter - 150 - 12 - (widthBefore - 150 - 12) * 32) < 4, `${widthBefore} → ${widthAfter}`);
    assert.notDeepEqual(await ticks(), ticksBefore);
    await screenshot(page, 'gantt-50k-zoomed-light');

    // Keyboard: the tab stop is the first lane's first event; End goes to its last (scrolled into
    // view), down to the next lane's event nearest in start time, left one back; Enter selects the
    // event's line in the cell.
    const current = view.locator('rect.schedule-event');
    await current.focus();
    const [firstKey, secondKey] = shown;
    assert.deepEqual([await current.getAttribute('data-row'), await current.getAttribute('data-index')], [firstKey, '0']);
    await page.keyboard.press('End');
    const first = lanes.get(firstKey);
    assert.deepEqual([await current.getAttribute('data-row'), Number(await current.getAttribute('data-index'))], [firstKey, first.length - 1]);
    assert.ok((await scroller.evaluate((node) => node.scrollLeft)) > widthAfter / 2, 'the last event is scrolled into view');
    const box = await current.boundingBox();
    const area = await scroller.boundingBox();
    assert.ok(box.x >= area.x + 150 && box.x + box.width <= area.x + area.width, 'the focus ring is in the visible window');
    await page.keyboard.press('ArrowDown');
    const last = first.at(-1);
    const second = lanes.get(secondKey);
    const nearest = second.reduce((best, event, index) => (Math.abs(event.ts - last.ts) < Math.abs(second[best].ts - last.ts) ? index : best), 0);
    assert.deepEqual([await current.getAttribute('data-row'), Number(await current.getAttribute('data-index'))], [secondKey, nearest]);
    await page.keyboard.press('ArrowLeft');
    const target = second[nearest - 1];
    assert.equal(Number(await current.getAttribute('data-index')), nearest - 1);
    assert.equal(await page.evaluate(() => document.activeElement.classList.contains('schedule-event')), true);
    const announced = await view.locator('.schedule-announcer').textContent();
    assert.ok(announced.startsWith(`${target.name} on `) && announced.includes(`tile ${target.args.tile}`), announced);
    assert.equal(await current.getAttribute('aria-label'), announced);
    await page.keyboard.press('Enter');
    const caret = await page.locator('.cell').first().locator('.cm-activeLineGutter').textContent();
    assert.equal(Number(caret), target.args.line);

    // The dark theme repaints the bars in its own colours.
    await page.click('#theme'); // system → light
    await page.click('#theme'); // light → dark
    await view.locator('.schedule-zoom-reset').click();
    const darkPipeZero = await propertyColour(view, '--pipe-0');
    assert.notDeepEqual(darkPipeZero, pipeZero);
    assert.deepEqual(await canvasColour(view, 150 + 40, laneMiddle), darkPipeZero);
    await screenshot(page, 'gantt-50k-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
