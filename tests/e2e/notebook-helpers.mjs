// Shared set-up of the notebook's end-to-end tests: one site per test file, fresh browser contexts
// (their own IndexedDB and localStorage), and small accessors of the page's model.
import { after, before } from 'node:test';
import { openPage, startSite } from './harness.mjs';

let site;

/** Starts the site before the file's tests and stops it after; returns a getter for it. */
export function useSite() {
  before(async () => {
    site = await startSite();
  });
  after(async () => {
    await site?.close();
  });
  return () => site;
}

/** Loads the notebook (with an optional fragment) and waits for it and its engine. */
export async function load(page, hash = '') {
  await page.goto(`${site.url}${hash}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await page.waitForSelector('#engine[data-state="ready"]', { timeout: 60_000 });
}

/** A fresh browser context with the notebook loaded: { page, problems, context }. */
export async function open(options = {}) {
  const { hash, ...contextOptions } = options;
  const opened = await openPage(site.browser, { viewport: { width: 1100, height: 760 }, ...contextOptions });
  await load(opened.page, hash ?? '');
  return opened;
}

/** The model's cells as [kind, source] pairs. */
export function cells(page) {
  return page.evaluate(() => globalThis.tilelab.model.cells.map((cell) => [cell.kind, cell.source]));
}

/** Replaces the notebook through the page's model (the set-up of a test, not what it checks). */
export async function setCells(page, list) {
  await page.evaluate((data) => globalThis.tilelab.model.load(data.map(([kind, source]) => ({ kind, source }))), list);
  await page.evaluate(() => globalThis.tilelab.flush());
}

/** The position of the focused cell (command mode) among the cells, or −1. */
export function focusedCellIndex(page) {
  return page.evaluate(() => [...document.querySelectorAll('.cell')].indexOf(document.activeElement));
}

/** The text of a download stream. */
export async function streamText(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Opens example `name` from the gallery and runs all its cells (resolves when none is queued or running). */
export async function runExample(page, name, timeout = 120_000) {
  await page.click('#examples');
  await page.locator(`#gallery-dialog .gallery-item[data-example="${name}"]`).click();
  await page.waitForFunction(() => globalThis.tilelab.model.cells.some((cell) => cell.kind === 'code'));
  await page.click('#run-all');
  await page.waitForFunction(() => {
    const states = [...document.querySelectorAll('.cell')].map((node) => node.dataset.state);
    return states.some((state) => state === 'done' || state === 'error') && !states.some((state) => state === 'queued' || state === 'running');
  }, null, { timeout });
}

/** Runs the cells one at a time (an error must not stop the next) and returns each output's text,
 * with the kernel schedules folded after a cell opened so their notes render. */
export async function runEach(page) {
  const texts = [];
  const ids = await page.evaluate(() => globalThis.tilelab.model.cells.map((cell) => cell.id));
  for (const [index, id] of ids.entries()) {
    await page.evaluate((cellId) => globalThis.tilelab.runner.enqueue([cellId]), id);
    await page.waitForFunction((i) => ['done', 'error'].includes(document.querySelectorAll('.cell')[i].dataset.state), index, { timeout: 120_000 });
    await page.locator('.cell').nth(index).locator('details').evaluateAll((nodes) => nodes.forEach((node) => { node.open = true; }));
    texts.push(await page.locator('.cell').nth(index).locator('.cell-output').innerText());
  }
  return texts;
}

/** Runs of four or more English words (code in backticks and quoted names left out). */
export function englishSentences(text) {
  const prose = text.replace(/`[^`]*`/g, ' ').replace(/“[^”]*”/g, ' ').replace(/'[^']*'/g, ' ');
  return prose.match(/[A-Za-z]{2,}(?:[ ,;:()-]+[A-Za-z]{2,}){3,}/g) ?? [];
}

/**
 * A cell whose graph shows the generated backward of Swish, y = x·σ(1.5·x) on [32, 64] f32 (the
 * kernel's body on line 5), under the autodiff `policy` ("save" or "recompute").
 */
export function swishGraphCell(policy) {
  return `import pypto as pt
@pt.kernel
def swish(x, beta):
    pt.set_vec_tile_shapes(4, 64)
    return x * pt.sigmoid(x * beta)
pt.autodiff.policy("${policy}")
xk = pt.randn([32, 64], requires_grad=True, seed=1)
loss = swish(xk, 1.5).sum()
loss.backward()
pt.graph(loss)`;
}

/**
 * Every code line whose line number is not level with it (more than a pixel apart), as
 * "cell I line N: D px": what a screenshot would show with a gutter out of step. Editors live in
 * shadow roots; CodeMirror's hidden width spacer is not a line number.
 */
export function misalignedLineNumbers(page) {
  return page.evaluate(() => [...document.querySelectorAll('.cell-editor')].flatMap((host, cell) => {
    const editor = host.shadowRoot?.querySelector('.cm-editor');
    if (!editor) return [];
    const lines = [...editor.querySelectorAll('.cm-line')];
    const numbers = [...editor.querySelectorAll('.cm-lineNumbers .cm-gutterElement')]
      .filter((node) => node.textContent !== '' && /** @type {HTMLElement} */ (node).style.visibility !== 'hidden');
    return lines.flatMap((line, index) => {
      const offset = line.getBoundingClientRect().top - (numbers[index]?.getBoundingClientRect().top ?? NaN);
      return Math.abs(offset) <= 1 ? [] : [`cell ${cell + 1} line ${index + 1}: ${Math.round(offset)} px`];
    });
  }));
}
