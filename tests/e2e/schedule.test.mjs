// The `schedule` display in the notebook: a real pypto.schedule run in the page's engine, checked
// against the schedule object read through a second cell (an independent path through the
// interpreter's attributes), the trace downloaded as trace.json, and the Gantt drawn from it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, setCells, streamText, useSite } from './notebook-helpers.mjs';

useSite();

const KERNEL_CELL = `import pypto as pt
pt.npu.use("teaching")
@pt.kernel
def fused(x, y):
    pt.set_vec_tile_shapes(8, 64)
    return pt.relu(pt.exp(x) + y)
x = pt.randn([64, 256]); y = pt.randn([64, 256])
pt.schedule(fused, x, y)`;

const ATTRIBUTE_CELL = `s = pt.schedule(fused, x, y)
print(s.cycles, s.bound, s.gm_bytes_read, s.gm_bytes_written)`;

/** The lanes of a Chrome trace: the distinct "core/pipe" of its complete events, and the events with dur > 0. */
function expectedLanes(trace) {
  const complete = trace.traceEvents.filter((event) => event.ph === 'X');
  const lanes = [...new Set(complete.map((event) => `${event.pid}/${event.tid}`))].sort();
  return { lanes, drawn: complete.filter((event) => event.dur > 0).length };
}

test('pypto.schedule renders its summary, bars, Gantt and a trace.json download, in light and dark', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1200, height: 1400 } });
  try {
    await setCells(page, [['code', KERNEL_CELL], ['code', ATTRIBUTE_CELL]]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]', { timeout: 120_000 });
    const first = page.locator('.cell').first();
    const view = first.locator('.output-schedule');
    await view.waitFor();

    // The schedule object's attributes, printed by the second cell.
    const printed = (await page.locator('.cell').nth(1).locator('.output-stdout').textContent()).trim().split(/\s+/);
    const [cycles, bound, read, written] = printed;
    assert.match(cycles, /^\d+$/);
    assert.ok(Number(cycles) > 0, `cycles ${cycles}`);
    const field = (name) => view.locator(`td[data-field="${name}"]`).textContent();
    assert.equal(await field('cycles'), cycles);
    assert.equal(await field('bound'), bound);
    assert.equal(await field('gm_bytes_read'), `${read} B`);
    assert.equal(await field('gm_bytes_written'), `${written} B`);
    // x and y are read once and the result written once: 64·256 f32 each (4 bytes per element).
    assert.equal(Number(read), 2 * 64 * 256 * 4);
    assert.equal(Number(written), 64 * 256 * 4);

    // The CellResult the page holds agrees with what is shown.
    const display = await page.evaluate(() => globalThis.tilelab.model.cells[0].run.result.displays.find((item) => item.kind === 'schedule'));
    assert.equal(String(display.summary.cycles), cycles);
    assert.equal(await view.locator('.schedule-bar-row.busy').count(), Object.keys(display.summary.pipe_busy).length);
    const busyValues = await view.locator('.schedule-bar-row.busy .schedule-bar').evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('aria-valuenow'))));
    assert.deepEqual(busyValues, Object.values(display.summary.pipe_busy).map((fraction) => Math.round(Math.min(1, fraction) * 100)));
    const occupancy = await view.locator('.schedule-bar-row.occupancy .schedule-bar-value').allTextContents();
    assert.ok(occupancy.length > 0);
    for (const text of occupancy) assert.match(text, /^\d+ \/ \d+ B$/);

    // The download is the trace JSON of the CellResult, and it parses.
    const [download] = await Promise.all([page.waitForEvent('download'), view.locator('.schedule-download').click()]);
    assert.equal(download.suggestedFilename(), 'trace.json');
    const text = await streamText(await download.createReadStream());
    assert.equal(text, display.trace_json);
    const trace = JSON.parse(text);
    const { lanes, drawn } = expectedLanes(trace);
    assert.ok(drawn > 0);

    // One lane per (core, pipe) in the trace; walking each lane with the keyboard (End, then Home
    // and down to the next lane) reaches every event with dur > 0, each with its text.
    const shownLanes = await view.locator('.schedule-lane').evaluateAll((groups) => groups.map((group) => `${group.dataset.core}/${group.dataset.pipe}`));
    assert.deepEqual([...shownLanes].sort(), lanes);
    const byLane = eventsByLane(trace);
    const current = view.locator('rect.schedule-event');
    await current.focus();
    let reached = 0;
    for (const key of shownLanes) {
      assert.equal(await current.getAttribute('data-row'), key);
      await page.keyboard.press('End');
      assert.equal(Number(await current.getAttribute('data-index')), byLane.get(key).length - 1, `the last event of lane ${key}`);
      reached += byLane.get(key).length;
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowDown');
    }
    assert.equal(reached, drawn);
    assert.match(await view.locator('.schedule-tooltip').textContent(), /tile .*\n\d+ B · \d+ cycles/);
    assert.ok(await view.locator('.schedule-tick-label').count() >= 2);

    // Zoom widens the chart (the scroller scrolls it); Fit restores it.
    const width = () => view.locator('.schedule-scroll').evaluate((scroller) => scroller.scrollWidth);
    const before = await width();
    await view.locator('.schedule-zoom-in').click();
    assert.ok((await width()) > before * 1.5);
    await view.locator('.schedule-zoom-reset').click();
    assert.equal(await width(), before);

    // The table alternative lists the events too.
    await view.locator('.schedule-trace-table summary').click();
    const complete = trace.traceEvents.filter((event) => event.ph === 'X').length;
    // A header row, then at most 400 events and a "more" row past that.
    const expectedRows = 1 + Math.min(complete, 400) + (complete > 400 ? 1 : 0);
    assert.equal(await view.locator('.schedule-trace-table tr').count(), expectedRows);
    await view.locator('.schedule-trace-table summary').click();

    await view.scrollIntoViewIfNeeded();
    await screenshot(page, 'schedule-light');
    await page.click('#theme'); // system → light
    await page.click('#theme'); // light → dark
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await screenshot(page, 'schedule-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the schedule display is translated into 简体中文', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark' });
  try {
    await page.selectOption('#language', 'zh-CN');
    await setCells(page, [['code', KERNEL_CELL]]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]', { timeout: 120_000 });
    const view = page.locator('.output-schedule');
    assert.equal(await view.locator('.schedule-download').textContent(), '下载 trace.json');
    assert.match(await view.locator('.output-caption').textContent(), /^在 teaching 上的调度：\d+ 个周期/);
    assert.match(await view.locator('td[data-field="gm_bytes_read"]').textContent(), /^\d+ 字节$/);
    assert.equal(await view.locator('.schedule-trace-table summary').textContent(), '以表格形式查看时间线');
    await view.locator('.schedule-zoom-in').click();
    assert.equal(await view.locator('.schedule-zoom-level').textContent(), '×2');
    await screenshot(page, 'schedule-zh-CN-dark-zoomed');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** The complete events of a trace with dur > 0, per "core/pipe", in start order. */
function eventsByLane(trace) {
  const lanes = new Map();
  for (const event of trace.traceEvents.filter((item) => item.ph === 'X' && item.dur > 0)) {
    const key = `${event.pid}/${event.tid}`;
    if (!lanes.has(key)) lanes.set(key, []);
    lanes.get(key).push(event);
  }
  for (const events of lanes.values()) events.sort((a, b) => a.ts - b.ts);
  return lanes;
}

/** The 1-based line of the editor's caret in cell `index` (CodeMirror marks it .cm-activeLineGutter). */
function caretLine(page, index) {
  return page.locator('.cell').nth(index).locator('.cm-activeLineGutter').textContent().then(Number);
}

test('the Gantt groups lanes by core: a header collapses a core into one summary lane, by mouse and keyboard', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1200, height: 1400 } });
  try {
    await setCells(page, [['code', KERNEL_CELL]]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]', { timeout: 120_000 });
    const view = page.locator('.output-schedule');
    const display = await page.evaluate(() => globalThis.tilelab.model.cells[0].run.result.displays.find((item) => item.kind === 'schedule'));
    const lanes = eventsByLane(JSON.parse(display.trace_json));
    const cores = [...new Set([...lanes.keys()].map((key) => Number(key.split('/')[0])))].sort((a, b) => a - b);
    assert.ok(cores.length >= 1);

    // One header per core, in core order, all expanded (≤ 8 cores start expanded).
    const toggles = view.locator('.schedule-core-toggle');
    assert.deepEqual(await toggles.evaluateAll((nodes) => nodes.map((node) => Number(node.dataset.core))), cores);
    assert.deepEqual(await toggles.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-expanded'))), cores.map(() => 'true'));

    // Collapse the first core with the keyboard: Enter on its focused header.
    const core = cores[0];
    const coreLanes = [...lanes.keys()].filter((key) => key.startsWith(`${core}/`));
    const coreEvents = coreLanes.reduce((sum, key) => sum + lanes.get(key).length, 0);
    await view.locator(`.schedule-core-toggle[data-core="${core}"]`).focus();
    await page.keyboard.press('Enter');
    const header = view.locator(`.schedule-core-toggle[data-core="${core}"]`);
    assert.equal(await header.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.evaluate(() => document.activeElement.classList.contains('schedule-core-toggle') && document.activeElement.dataset.core), String(core));
    assert.equal(await view.locator(`.schedule-lane[data-core="${core}"]`).count(), 1);
    assert.equal(await view.locator(`.schedule-lane-summary[data-core="${core}"]`).count(), 1);
    // The summary lane holds every event of the core's pipes: its last is number coreEvents.
    const current = view.locator('rect.schedule-event');
    await current.focus();
    assert.equal(await current.getAttribute('data-row'), `${core}/all`);
    await page.keyboard.press('End');
    assert.equal(Number(await current.getAttribute('data-index')), coreEvents - 1);
    await screenshot(page, 'schedule-collapsed-light');
    await header.focus();

    // Space expands it again; a mouse click collapses and expands too.
    await page.keyboard.press(' ');
    assert.equal(await header.getAttribute('aria-expanded'), 'true');
    assert.equal(await view.locator(`.schedule-lane[data-core="${core}"]`).count(), coreLanes.length);
    await header.click();
    assert.equal(await header.getAttribute('aria-expanded'), 'false');
    await header.click();
    assert.equal(await header.getAttribute('aria-expanded'), 'true');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('hovering an event shows op, tile, bytes, cycles and line; a click or Enter selects its line in the editor', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark', viewport: { width: 1200, height: 1400 } });
  try {
    await setCells(page, [['code', KERNEL_CELL]]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]', { timeout: 120_000 });
    const view = page.locator('.output-schedule');
    const display = await page.evaluate(() => globalThis.tilelab.model.cells[0].run.result.displays.find((item) => item.kind === 'schedule'));
    const trace = JSON.parse(display.trace_json);
    // The chart lists lanes by core, then pipe (the trace's own order is the simulator's).
    const lanesInOrder = [...eventsByLane(trace).entries()].sort(([left], [right]) => {
      const [leftCore, leftPipe] = left.split('/').map(Number);
      const [rightCore, rightPipe] = right.split('/').map(Number);
      return leftCore - rightCore || leftPipe - rightPipe;
    });
    const [firstKey, firstEvents] = lanesInOrder[0];
    const [core, pipe] = firstKey.split('/');

    // The tooltip of a lane's first event carries the trace's own figures. The chart's tab stop
    // starts on that event; the pointer over it finds the event by position.
    const event = firstEvents[0];
    assert.equal(await view.locator('rect.schedule-event').getAttribute('data-row'), `${core}/${pipe}`);
    assert.equal(await view.locator('rect.schedule-event').getAttribute('data-index'), '0');
    await view.locator('rect.schedule-event').hover();
    const tip = view.locator('.schedule-tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = await tip.textContent();
    assert.ok(text.startsWith(`${event.name} on `), text);
    assert.ok(text.includes(`tile ${event.args.tile}`), text);
    assert.ok(text.includes(`${event.args.bytes} B · ${Math.round(event.args.end_cycle - event.args.start_cycle)} cycles`), text);
    assert.ok(text.includes(Number.isInteger(event.args.line) ? `line ${event.args.line}` : 'no source line'), text);

    // Every timed event carries the script line it came from (the lowering records it): here the
    // kernel's one line of ops, `return pt.relu(pt.exp(x) + y)`. A click moves the caret there.
    const kernelLine = KERNEL_CELL.split('\n').findIndex((line) => line.includes('pt.relu')) + 1;
    const timed = trace.traceEvents.filter((item) => item.ph === 'X' && item.dur > 0);
    assert.ok(timed.length > 0);
    assert.deepEqual([...new Set(timed.map((item) => item.args?.line))], [kernelLine], 'every event has the kernel line');
    const lined = view.locator(`rect.schedule-event[data-line="${kernelLine}"]`);
    assert.equal(await lined.count(), 1);
    await page.locator('.cell').first().locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    assert.equal(await caretLine(page, 0), 1);
    await lined.first().click();
    assert.equal(await caretLine(page, 0), kernelLine);
    assert.equal(await page.evaluate(() => getSelection().toString()), KERNEL_CELL.split('\n')[kernelLine - 1]);

    // Zoomed (about the centre: the scroller leaves the start), a drag pans the chart and does not
    // jump to the event it started on.
    await view.locator('.schedule-zoom-in').click();
    await view.locator('.schedule-zoom-in').click();
    const scroller = view.locator('.schedule-scroll');
    const box = await scroller.boundingBox();
    const start = await scroller.evaluate((node) => node.scrollLeft);
    assert.ok(start > 0, `zoomed about the centre: scrollLeft ${start}`);
    await page.locator('.cell').first().locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const panned = await scroller.evaluate((node) => node.scrollLeft);
    assert.ok(Math.abs(panned - start - box.width * 0.3) < 4, `scrollLeft ${start} → ${panned}`);
    assert.equal(await caretLine(page, 0), 1);
    await view.locator('.schedule-zoom-reset').click();

    // Keyboard: the chart has one tab stop; arrows move along a lane; Enter jumps to the line.
    await page.locator('.cell').first().locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    const first = view.locator('rect.schedule-event[tabindex="0"]');
    assert.equal(await first.count(), 1);
    await first.focus();
    await tip.waitFor({ state: 'visible' });
    // The first lane holds several events (64 copies in over the teaching chip's 2 cores).
    assert.ok(firstEvents.length > 1, `${firstEvents.length} events in the first lane`);
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('tabindex')), '0');
    assert.equal(await view.locator('rect.schedule-event[tabindex="0"]').count(), 1);
    assert.equal(await first.getAttribute('data-index'), '1');
    // The second event's text is announced (a live region) and shown.
    assert.match(await view.locator('.schedule-announcer').textContent(), new RegExp(`^${firstEvents[1].name} on .*tile ${firstEvents[1].args.tile.replace(/[[\]]/g, '\\$&')}`));
    await page.keyboard.press('Enter');
    assert.equal(await view.locator('rect.schedule-event[tabindex="0"]').getAttribute('data-line'), String(kernelLine));
    assert.equal(await caretLine(page, 0), kernelLine);
    await screenshot(page, 'schedule-source-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
