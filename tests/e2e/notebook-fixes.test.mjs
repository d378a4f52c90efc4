// The notebook's round-two bugs, each end to end in Chromium: schedule events select the line of
// the cell that defined the kernel, examples open over a backup, deletes undo, Stop while idle
// keeps the session, locations of errors in other cells are links and underlined there (a
// registered backward's wrong return at its own line), Run all stops at an error, Tab+Enter on a
// cell's toolbar does what the focused button says with no CSP errors, and projection-mode
// gradient checks say what ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cells, focusedCellIndex, load, open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

/** Runs all cells and waits until nothing is queued or running. */
async function runAll(page, timeout = 120_000) {
  await page.click('#run-all');
  await page.waitForFunction(() => {
    const states = [...document.querySelectorAll('.cell[data-kind="code"]')].map((node) => node.dataset.state);
    return states.some((state) => state === 'done' || state === 'error') && !states.some((state) => state === 'queued' || state === 'running');
  }, null, { timeout });
}

/** [cell index, 1-based line of the selection head] of the editor that has the selection focus. */
function selectedLine(page) {
  return page.evaluate(() => {
    const { model, view } = globalThis.tilelab;
    const index = [...document.querySelectorAll('.cell')].findIndex((node) => node.contains(document.activeElement));
    const editor = view.view(model.cells[index].id).editor;
    return [index, editor.state.doc.lineAt(editor.state.selection.main.head).number];
  });
}

const KERNEL_CELL = [
  'import pypto as pt',
  '',
  '@pt.kernel',
  'def scale_rows(x):',
  '    pt.set_vec_tile_shapes(4, 8)',
  '    y = x * 2.0',
  '    return pt.exp(y)',
].join('\n');

test('a schedule event of a kernel defined in another cell selects the line in that cell', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', KERNEL_CELL], ['code', 's = pt.schedule(scale_rows, pt.ones([8, 8]))\ns']]);
    await runAll(page);
    const gantt = page.locator('.cell').nth(1).locator('.output-schedule .schedule-event.has-source').first();
    const line = Number(await gantt.getAttribute('data-line'));
    assert.ok(line >= 5, `the event names a line of the kernel's body, not of the short calling cell (${line})`);
    await gantt.click();
    assert.deepEqual(await selectedLine(page), [0, line], 'the defining cell (the first) is selected at that line');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('opening an example keeps the notebook as a backup that survives a reload and reopens', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'mine = "my work"']]);
    await page.click('#examples');
    await page.locator('#gallery-dialog .gallery-item[data-example="01_tensor_basics.py"]').click();
    await page.waitForSelector('.banner[data-banner="example"]');
    assert.notDeepEqual(await cells(page), [['code', 'mine = "my work"']]);
    await page.evaluate(() => globalThis.tilelab.flush());
    await load(page);
    await page.click('#examples');
    await page.locator('#gallery-dialog .gallery-restore').click();
    await page.waitForFunction(() => globalThis.tilelab.model.cells[0]?.source === 'mine = "my work"');
    assert.deepEqual(await cells(page), [['code', 'mine = "my work"']]);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a deleted cell comes back with z, Ctrl+Z or the banner, with its text and output', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'a = 1'], ['code', 'print("kept")'], ['code', 'c = 3']]);
    await runAll(page);
    await page.locator('.cell').nth(1).focus();
    await page.keyboard.press('d');
    await page.keyboard.press('d');
    assert.deepEqual((await cells(page)).map(([, source]) => source), ['a = 1', 'c = 3']);
    await page.keyboard.press('z');
    assert.deepEqual((await cells(page)).map(([, source]) => source), ['a = 1', 'print("kept")', 'c = 3']);
    assert.equal(await page.locator('.cell').nth(1).locator('.output-stdout').textContent(), 'kept\n', 'the output came back too');
    assert.equal(await focusedCellIndex(page), 1);
    await page.keyboard.press('Delete');
    await page.keyboard.press('Control+z');
    assert.equal((await cells(page)).length, 3);
    await page.locator('.cell').nth(2).locator('.delete').click();
    await page.locator('.banner[data-banner="deleted"] button', { hasText: 'Undo' }).click();
    assert.deepEqual((await cells(page)).map(([, source]) => source), ['a = 1', 'print("kept")', 'c = 3']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('Stop while idle keeps the engine and every variable', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'x = 41'], ['code', 'x + 1']]);
    await page.locator('.cell').first().locator('.run').click();
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]');
    const generation = await page.evaluate(() => globalThis.tilelab.engine.generation);
    await page.click('#stop');
    await page.waitForFunction(() => document.getElementById('announcer').textContent.startsWith('Nothing is running'));
    assert.equal(await page.evaluate(() => globalThis.tilelab.engine.generation), generation, 'no restart');
    assert.equal(await page.locator('.cell').first().getAttribute('data-state'), 'done', 'nothing became stale');
    await page.locator('.cell').nth(1).locator('.run').click();
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    assert.equal(await page.locator('.cell').nth(1).locator('.output-text').textContent(), '42');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('an error inside a kernel from another cell is underlined there and its locations are links', async () => {
  const { page, problems, context } = await open();
  try {
    const kernel = 'import pypto as pt\n\n@pt.kernel\ndef broken(x):\n    y = x * 2.0\n    return y + undefined_scale';
    await setCells(page, [['code', kernel], ['code', 'z = broken(pt.ones([4, 8]))']]);
    await runAll(page);
    const caller = page.locator('.cell').nth(1);
    await caller.locator('.output-error .source-link', { hasText: '[1] 6:16' }).waitFor();
    // The defining cell (execution 1) shows the underline at `undefined_scale`, though it ran fine.
    await page.locator('.cell').first().locator('.cm-lintRange-error').waitFor();
    assert.equal(await page.locator('.cell').first().locator('.cm-lintRange-error').textContent(), 'undefined_scale');
    await caller.locator('.output-error .source-link', { hasText: '[1] 6:16' }).click();
    assert.deepEqual(await selectedLine(page), [0, 6]);
    // The call site in the traceback is a link to the calling cell.
    assert.ok((await caller.locator('.output-error .source-link', { hasText: '[2] 1:5' }).count()) === 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("a registered backward's wrong gradient shape points at the backward's return line", async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [
      ['code', 'import pypto as pt\n\n@pt.kernel\ndef sq(x):\n    return x * x'],
      ['code', "@pt.register_gradient('sq')\ndef sq_bwd(grad_output, saved, ctx):\n    x = saved[0]\n    return pt.reshape(grad_output * x, [8, 4])"],
      ['code', 'x = pt.randn([4, 8], seed=1)\npt.autodiff.check_gradient(sq, [x])'],
    ]);
    await runAll(page);
    const error = page.locator('.cell').nth(2).locator('.output-error');
    assert.match(await error.textContent(), /shape \[8, 4\] for input 0 of shape \[4, 8\]/);
    await error.locator('.source-link', { hasText: '[2] 4:5' }).click();
    assert.deepEqual(await selectedLine(page), [1, 4]);
    assert.equal(await page.locator('.cell').nth(1).locator('.cm-lintRange-error').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('Run all stops at a failing cell unless Stop on error is off', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'a = 1'], ['code', 'b = missing'], ['code', 'print("after")']]);
    assert.equal(await page.locator('#stop-on-error').isChecked(), true, 'on by default');
    await runAll(page);
    const states = () => page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state));
    assert.deepEqual(await states(), ['done', 'error', 'idle']);
    assert.match(await page.locator('.cell').nth(2).locator('.output-skipped').textContent(), /earlier cell failed/);
    await page.locator('#stop-on-error').uncheck();
    await runAll(page);
    assert.deepEqual(await states(), ['done', 'error', 'done']);
    await load(page);
    assert.equal(await page.locator('#stop-on-error').isChecked(), false, 'the choice is remembered');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("Tab then Enter on a cell's toolbar runs it (it stays code) and replacing text logs no CSP errors", async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'v = 1\nv']]);
    await page.locator('.cell').first().focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Run cell');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]');
    assert.deepEqual(await cells(page), [['code', 'v = 1\nv']]);
    for (let round = 0; round < 16; round += 1) {
      await page.locator('.cell').first().focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Control+a');
      await page.keyboard.type(`v = ${round}\nv`);
      await page.keyboard.press('Escape');
    }
    assert.deepEqual(await cells(page), [['code', 'v = 15\nv']]);
    // Replacing text cells with an aligned table (markdown-it writes alignment as a style attribute).
    for (let round = 0; round < 16; round += 1) {
      await page.evaluate((n) => globalThis.tilelab.model.load([{ kind: 'markdown', source: `| n | value |\n|--:|:-:|\n| ${n} | x |` }]), round);
    }
    const header = page.locator('.cell .markdown-body th').first();
    assert.equal(await header.evaluate((node) => getComputedStyle(node).textAlign), 'right', 'the alignment survives as a class');
    assert.deepEqual(problems, [], 'no console errors (a refused style attribute is one)');
  } finally {
    await context.close();
  }
});

test('a projection-mode gradient check says which mode ran and why, with per-input error bars', async () => {
  const { page, problems, context } = await open();
  try {
    const code = 'import pypto as pt\nx = pt.randn([16, 64], seed=3)\nw = pt.randn([16, 64], seed=4)\ndef f(a, b):\n    return (pt.tanh(a) * b).sum()\npt.autodiff.check_gradient(f, [x, w])';
    await setCells(page, [['code', code]]);
    await runAll(page);
    const check = page.locator('.output-gradcheck');
    assert.match(await check.locator('.gradcheck-mode').textContent(), /^Projection check: the Jacobian has more than 4096 entries or the inputs more than 512 elements/);
    assert.equal(await check.locator('.gradcheck-bar').count(), 2, 'one bar per input');
    assert.equal(await check.locator('.gradcheck-worst th').first().textContent(), 'projection');
    assert.match(await check.locator('.gradcheck-worst td').first().textContent(), /^#\d+$/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
