// Copy and paste of cells, as in Jupyter: `c` / `x` copy or cut the selected cell, `v` pastes
// below and Shift+V above, the cell tool bar has copy and paste, pasted cells keep their kind and
// source, and cells travel to another notebook through the system clipboard (Ctrl+C / Ctrl+V, or
// `c` / `v` where the page may use the clipboard), else through an in-page clipboard.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { cells, open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const START = [['code', 'a = 1\nprint(a)'], ['markdown', '# Title\n\nSome *text*.'], ['code', 'b = 2']];

async function select(page, index) {
  await page.locator('.cell').nth(index).focus();
}

test('c and v copy a cell below another, Shift+V above, x cuts; kind and source are kept', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, START);
    await select(page, 1);
    await page.keyboard.press('c');
    await select(page, 2);
    await page.keyboard.press('v');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 4);
    assert.deepEqual(await cells(page), [...START, START[1]]);
    assert.equal(await page.evaluate(() => [...document.querySelectorAll('.cell')].indexOf(document.activeElement)), 3, 'the pasted cell is selected');
    await select(page, 0);
    await page.keyboard.press('Shift+V');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 5);
    assert.deepEqual(await cells(page), [START[1], ...START, START[1]]);
    await select(page, 1);
    await page.keyboard.press('x');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 4);
    await select(page, 3);
    await page.keyboard.press('v');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 5);
    assert.deepEqual(await cells(page), [START[1], START[1], START[2], START[1], START[0]]);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the cell tool bar copies and pastes', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark', locale: 'zh-CN' });
  try {
    await setCells(page, START);
    await page.locator('.cell').nth(0).hover();
    await page.locator('.cell').nth(0).locator('.cell-tools .copy').click();
    await page.locator('.cell').nth(1).locator('.cell-tools .paste').click();
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 4);
    assert.deepEqual(await cells(page), [START[0], START[1], START[0], START[2]]);
    assert.equal(await page.locator('.cell').nth(0).locator('.cell-tools .copy').getAttribute('aria-label'), '复制单元格');
    await page.locator('.cell').nth(2).hover();
    await screenshot(page, 'cell-clipboard-toolbar-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('cells travel to another notebook through the system clipboard', async () => {
  const { page, problems, context } = await open({ permissions: ['clipboard-read', 'clipboard-write'] });
  try {
    await setCells(page, START);
    await select(page, 1);
    await page.keyboard.press('c');
    const text = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(text, '# %% [markdown]\n# # Title\n#\n# Some *text*.\n', 'the clipboard holds the cell as percent-format text');
    // Another tab with its own notebook: `v` reads the system clipboard.
    const other = await context.newPage();
    await other.goto(page.url());
    await other.waitForSelector('#engine[data-state="ready"]', { timeout: 60_000 });
    await setCells(other, [['code', 'z = 0']]);
    await select(other, 0);
    await other.keyboard.press('v');
    await other.waitForFunction(() => globalThis.tilelab.model.cells.length === 2);
    assert.deepEqual(await cells(other), [['code', 'z = 0'], START[1]]);
    // Plain text copied elsewhere pastes as one code cell.
    await other.evaluate(() => navigator.clipboard.writeText('print("from an editor")'));
    await select(other, 1);
    await other.keyboard.press('v');
    await other.waitForFunction(() => globalThis.tilelab.model.cells.length === 3);
    assert.deepEqual((await cells(other))[2], ['code', 'print("from an editor")']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('without clipboard permissions Ctrl+C / Ctrl+V still work, and c / v use the in-page clipboard', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, START);
    await select(page, 0);
    await page.keyboard.press('Control+c');
    await select(page, 2);
    await page.keyboard.press('Control+v');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 4);
    assert.deepEqual(await cells(page), [...START, START[0]]);
    await select(page, 1);
    await page.keyboard.press('c');
    await select(page, 0);
    await page.keyboard.press('v');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 5);
    assert.deepEqual((await cells(page))[1], START[1]);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
