// A 1000-cell notebook opens with editors only near the viewport (issue 19): cells far down are
// placeholders with their text until scrolled to, focused, or reached with the keyboard or the
// outline; Run all runs every cell, built or not, and their outputs show.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ARTIFACTS, openPage } from './harness.mjs';
import { open, useSite } from './notebook-helpers.mjs';
import { longNotebook } from '../../scripts/bench-page-views.mjs';

const site = useSite();

const CELLS = 1000;

/** A screenshot of the viewport only (the whole page is tens of thousands of px tall). */
async function viewportShot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** The position of the focused cell among the cells, or −1. */
function focusedIndex(page) {
  return page.evaluate(() => [...document.querySelectorAll('#cells > .cell')].indexOf(document.activeElement));
}

test('a 1000-cell notebook builds editors lazily; keyboard, outline and Run all reach every cell', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1200, height: 900 } });
  try {
    const notebook = longNotebook(CELLS);
    await page.evaluate((cells) => globalThis.tilelab.model.load(cells), notebook);
    const cells = page.locator('#cells > .cell');
    assert.equal(await cells.count(), CELLS);
    // Only the cells near the top have editors; the rest are placeholders holding their text.
    const editors = await page.locator('#cells .cm-editor').count();
    assert.ok(editors > 0 && editors < 100, `${editors} editors`);
    const far = cells.nth(901);
    assert.equal(await far.getAttribute('class'), 'cell cell-placeholder');
    assert.equal(await far.locator('.cell-placeholder-source').textContent(), notebook[901].source);

    // Scrolled to, a far cell becomes an editor with the same text, at the same height.
    const heightBefore = await far.evaluate((node) => node.getBoundingClientRect().height);
    await far.scrollIntoViewIfNeeded();
    await far.locator('.cm-editor').waitFor();
    assert.equal(await far.getAttribute('class'), 'cell');
    assert.equal((await far.locator('.cm-content').innerText()).trimEnd(), notebook[901].source);
    assert.ok(Math.abs((await far.evaluate((node) => node.getBoundingClientRect().height)) - heightBefore) < 2);
    await viewportShot(page, 'lazy-notebook-light');

    // Keyboard: from a built cell, ArrowDown walks on through cells that were placeholders.
    await far.focus();
    for (let step = 0; step < 40; step += 1) await page.keyboard.press('ArrowDown');
    assert.equal(await focusedIndex(page), 941);
    assert.equal(await cells.nth(941).getAttribute('class'), 'cell');

    // Focusing a placeholder (as Tab would) builds it and puts focus on the cell.
    const tabbed = cells.nth(600);
    assert.equal(await tabbed.getAttribute('class'), 'cell cell-placeholder');
    await tabbed.focus();
    assert.equal(await focusedIndex(page), 600);
    assert.equal(await cells.nth(600).getAttribute('class'), 'cell');

    // The outline jumps to a heading far down (Part 70 is cell 700).
    await page.click('#outline-toggle');
    assert.equal(await cells.nth(700).getAttribute('class'), 'cell cell-placeholder');
    await page.locator('#outline button', { hasText: 'Part 70' }).click();
    assert.equal(await focusedIndex(page), 700);
    assert.equal(await cells.nth(700).locator('.markdown-body h2').textContent(), 'Part 70');
    await page.click('#outline-toggle');

    // Run all runs every code cell; a cell never scrolled to shows its output too (y = 2 x).
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.equal(await cells.nth(998).getAttribute('class'), 'cell cell-placeholder');
    await page.click('#run-all');
    await page.waitForFunction(() => globalThis.tilelab.model.cells.every((cell) => cell.kind !== 'code' || cell.run.state === 'done'), null, { timeout: 300_000 });
    const outputs = await page.evaluate(() => globalThis.tilelab.model.cells.filter((cell) => cell.kind === 'code').map((cell) => cell.run.result.stdout.trim()));
    assert.deepEqual(outputs, notebook.flatMap((cell, index) => (cell.kind === 'code' ? [String(2 * index)] : [])));
    assert.equal(await cells.nth(998).locator('.output-stdout').textContent(), '1996\n');
    await cells.nth(998).scrollIntoViewIfNeeded();
    await cells.nth(998).locator('.cm-editor').waitFor();
    assert.equal(await cells.nth(998).locator('.output-stdout').textContent(), '1996\n');
    assert.equal(await cells.nth(998).locator('.prompt').textContent(), `[${notebook.slice(0, 999).filter((cell) => cell.kind === 'code').length}]`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a long notebook in 简体中文 and the dark theme labels its placeholders', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark', viewport: { width: 1200, height: 900 } });
  try {
    await page.selectOption('#language', 'zh-CN');
    await page.evaluate((cells) => globalThis.tilelab.model.load(cells), longNotebook(CELLS));
    const placeholder = page.locator('#cells > .cell').nth(501);
    assert.equal(await placeholder.getAttribute('class'), 'cell cell-placeholder');
    const label = await placeholder.getAttribute('aria-label');
    const built = await page.locator('#cells > .cell').nth(1).getAttribute('aria-label');
    // The same wording as a built code cell's label (number 2), with its own number.
    assert.equal(built.match(/\d+/g).join(), '2');
    assert.equal(label, built.replace('2', '502'));
    await placeholder.scrollIntoViewIfNeeded();
    await placeholder.locator('.cm-editor').waitFor();
    await viewportShot(page, 'lazy-notebook-zh-CN-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in read mode, a cell built lazily is read-only like the others', async () => {
  const { page, problems, context } = await openPage(site().browser, { viewport: { width: 1200, height: 900 } });
  try {
    await page.goto(`${site().url}index.html?mode=read`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    await page.evaluate((cells) => globalThis.tilelab.model.load(cells), longNotebook(CELLS));
    const early = page.locator('#cells > .cell').nth(1);
    const late = page.locator('#cells > .cell').nth(801);
    assert.equal(await late.getAttribute('class'), 'cell cell-placeholder');
    await late.scrollIntoViewIfNeeded();
    await late.locator('.cm-editor').waitFor();
    for (const cell of [early, late]) assert.equal(await cell.locator('.cm-content').getAttribute('aria-readonly'), 'true');
    // Typing into the late cell's editor changes nothing.
    await late.locator('.cm-content').click();
    await page.keyboard.type('zzz');
    assert.equal(await page.evaluate(() => globalThis.tilelab.model.cells[801].source), longNotebook(CELLS)[801].source);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
