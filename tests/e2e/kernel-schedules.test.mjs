// After a cell that calls kernels, the notebook lists the NPU schedule of each kernel it called
// (folded away): one entry per kernel with its call count, the schedule view built when opened, its
// cycles the same as pypto.schedule reports for one call (printed by another cell), and a click on a
// timeline event selects the line in the cell that DEFINED the kernel, not the calling cell.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const DEFINE = `import pypto as pt
pt.npu.use('teaching')
@pt.kernel
def double(x):
    pt.set_vec_tile_shapes(8, 64)
    return x * 2.0
x = pt.ones([16, 64])`;
const CALL = 'y = double(double(x))\nprint(y.tolist()[0][0])';
const ASK = 'print(pt.schedule(double, x).cycles)';

test('a cell shows the schedules of the kernels it called; events jump to the defining cell', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1200, height: 1400 } });
  try {
    await setCells(page, [['code', DEFINE], ['code', CALL], ['code', ASK]]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(3)[data-state="done"]', { timeout: 120_000 });
    const cells = page.locator('.cell');
    // Defining the kernel calls none: no list.
    assert.equal(await cells.nth(0).locator('.output-kernel-schedules').count(), 0);
    const called = cells.nth(1);
    // 1 · 2 · 2 = 4: the values of the two calls.
    assert.equal((await called.locator('.output-stdout').textContent()).trim(), '4.0');
    const list = called.locator('.output-kernel-schedules');
    assert.equal(await list.count(), 1);
    const entries = list.locator('.kernel-schedule');
    assert.deepEqual(await entries.evaluateAll((nodes) => nodes.map((node) => node.dataset.kernel)), ['double']);
    // Folded: nothing is built until opened, and the result carries no trace, only its key.
    assert.equal(await list.locator('.output-schedule').count(), 0);
    const kept = () => page.evaluate(() => globalThis.tilelab.model.cells[1].run.result.kernel_schedules.map((entry) => [typeof entry.trace_key, entry.schedule.trace_json.length]));
    const [[keyType, posted]] = await kept();
    assert.deepEqual([keyType, posted], ['string', 0]);
    await list.locator(':scope > summary').click();
    const cycles = (await cells.nth(2).locator('.output-stdout').textContent()).trim();
    assert.match(await entries.first().locator(':scope > summary').textContent(), new RegExp(`^double — 2 call\\(s\\), last call: ${cycles} cycles, \\w+-bound$`));
    await entries.first().locator(':scope > summary').click();
    const view = entries.first().locator('.output-schedule');
    await view.waitFor();
    assert.equal(await view.locator('td[data-field="cycles"]').textContent(), cycles);

    // An event of the multiply: its line is line 6 of the first cell (`return x * 2.0`).
    const event = view.locator('rect.schedule-event.has-source').first();
    await event.scrollIntoViewIfNeeded();
    await event.click();
    const firstCell = cells.nth(0);
    // (The editors live in shadow roots: Playwright's locators pierce them, querySelector does not.)
    await firstCell.locator('.cm-activeLineGutter').waitFor();
    const line = Number(await firstCell.locator('.cm-activeLineGutter').textContent());
    assert.ok(line >= 4 && line <= 6, `the event selects a line of the kernel in cell 1, got ${line}`);
    await screenshot(page, 'kernel-schedules-light');
    // Opened, the trace the engine sent stays with the entry (a saved notebook keeps it).
    const [[, loaded]] = await kept();
    assert.ok(loaded > 100, `the entry keeps its trace (${loaded} characters)`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('an entry opened after the session restarted says to run the cell again', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark', locale: 'zh-CN', viewport: { width: 1200, height: 1000 } });
  try {
    await setCells(page, [['code', DEFINE], ['code', CALL]]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]', { timeout: 120_000 });
    // A fresh session does not know the keys of the old one's results.
    await page.evaluate(() => globalThis.tilelab.engine.restartSession());
    await page.waitForSelector('#engine[data-state="ready"]', { timeout: 60_000 });
    const list = page.locator('.cell').nth(1).locator('.output-kernel-schedules');
    await list.locator(':scope > summary').click();
    const entry = list.locator('.kernel-schedule').first();
    await entry.locator(':scope > summary').click();
    const note = entry.locator('p.output-note');
    await note.waitFor();
    assert.match(await note.textContent(), /重新运行该单元格/);
    // The summary is still shown, without a timeline.
    await entry.locator('.output-schedule td[data-field="cycles"]').waitFor();
    assert.equal(await entry.locator('rect.schedule-event').count(), 0);
    await screenshot(page, 'kernel-schedules-gone-dark-zh');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
