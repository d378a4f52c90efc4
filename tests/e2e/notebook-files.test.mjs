// The notebook's persistence end to end: autosave and reload, share links (round trip, damaged
// links, never auto-run), a full storage, .py files, and the example gallery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, openPage, screenshot } from './harness.mjs';
import { cells, load, open, setCells, streamText, useSite } from './notebook-helpers.mjs';
import { fromIpynb, fromPy, toIpynb, toPy } from '../../www/notebook/format.js';

const site = useSite();

test('a reload restores the notebook from IndexedDB', async () => {
  const { page, problems, context } = await open();
  try {
    await page.locator('.cell').nth(1).locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' + 41  # 张量');
    await page.click('#add-markdown');
    await page.keyboard.type('## Notes');
    const before = await cells(page);
    await page.evaluate(() => globalThis.tilelab.flush());
    await load(page);
    assert.deepEqual(await cells(page), before);
    assert.match(before[1][1], /\]\) \+ 41  # 张量$/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a share link opens the same cells in a new browser and runs nothing', async () => {
  const list = [['markdown', '# Shared 分享'], ['code', 'print("hello")\nz = 3'], ['code', 'z']];
  const sender = await open();
  const receiver = await openPage(site().browser, { viewport: { width: 1100, height: 760 } });
  try {
    await setCells(sender.page, list);
    await sender.page.click('#share');
    const link = await sender.page.inputValue('#share-link');
    assert.match(link, /#nb=[A-Za-z0-9_-]+$/);
    await sender.page.keyboard.press('Escape');

    await receiver.page.goto(link);
    await receiver.page.waitForSelector('body[data-ready="true"]');
    assert.deepEqual(await cells(receiver.page), list);
    assert.equal(await receiver.page.locator('.banner[data-banner="share"]').getAttribute('data-tone'), 'info');
    assert.equal(new URL(receiver.page.url()).hash, '', 'the fragment is cleared so a reload does not import it again');
    // Nothing ran: every cell is idle, no output, the engine was never asked to run.
    await receiver.page.waitForSelector('#engine[data-state="ready"]');
    assert.deepEqual(await receiver.page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state)), ['idle', 'idle', 'idle']);
    assert.equal(await receiver.page.locator('.output-body > *').count(), 0);
    assert.equal(await receiver.page.evaluate(() => globalThis.tilelab.engine.runRequests), 0);
    await screenshot(receiver.page, 'notebook-shared');

    // Opening a link over an existing notebook (here a same-page hash change) keeps that notebook as the backup.
    await setCells(sender.page, [['code', 'mine = "before the link"']]);
    await sender.page.goto(link);
    // A same-page hash change does not reload: the page was ready already, so wait for the import itself.
    await sender.page.waitForFunction(() => globalThis.tilelab.model.cells[0]?.source === '# Shared 分享');
    assert.deepEqual(await cells(sender.page), list);
    const backup = await sender.page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const request = indexedDB.open('tilelab');
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            const get = request.result.transaction('notebooks').objectStore('notebooks').get('backup');
            get.onsuccess = () => resolve(get.result);
            get.onerror = () => reject(get.error);
          };
        }),
    );
    assert.deepEqual(backup.cells.map((cell) => cell.source), ['mine = "before the link"']);
    await sender.page.locator('.banner[data-banner="share"] button.button').click();
    await sender.page.waitForFunction(() => globalThis.tilelab.model.cells[0]?.source === 'mine = "before the link"');
    assert.deepEqual(await cells(sender.page), [['code', 'mine = "before the link"']]);
    assert.deepEqual(sender.problems, []);
    assert.deepEqual(receiver.problems, []);
  } finally {
    await sender.context.close();
    await receiver.context.close();
  }
});

test('a damaged share link shows an error and loses nothing', async () => {
  const { page, problems, context } = await open();
  try {
    const mine = [['code', 'mine = 1']];
    await setCells(page, mine);
    for (const fragment of ['#nb=%%%not-base64', '#nb=AAAAAAAA', '#nb=' + 'A'.repeat(70_000)]) {
      await load(page, fragment);
      assert.deepEqual(await cells(page), mine, `after ${fragment.slice(0, 20)}`);
      const banner = page.locator('.banner[data-banner="share"]');
      assert.equal(await banner.getAttribute('data-tone'), 'error');
      assert.match(await banner.locator('p').textContent(), /share link|too large/);
    }
    // The same through a hash change in an open page.
    await page.evaluate(() => {
      location.hash = 'nb=bm90IGEgbm90ZWJvb2s';
    });
    await page.waitForFunction(() => document.querySelector('.banner[data-banner="share"] p')?.textContent.includes('damaged'));
    assert.deepEqual(await cells(page), mine);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a full storage shows a banner with an export; the notebook stays in the page', async () => {
  const { page, problems, context } = await open();
  try {
    await page.evaluate(() => {
      globalThis.originalPut = IDBObjectStore.prototype.put;
      IDBObjectStore.prototype.put = function refuse() {
        throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
      };
    });
    await page.click('#add-code');
    await page.keyboard.type('kept = True');
    await page.evaluate(() => globalThis.tilelab.flush());
    const banner = page.locator('.banner[data-banner="save"]');
    assert.match(await banner.locator('p').textContent(), /storage is full/);
    const [download] = await Promise.all([page.waitForEvent('download'), banner.locator('button.button').click()]);
    assert.equal(download.suggestedFilename(), 'notebook.ipynb');
    assert.equal((await cells(page)).at(-1)[1], 'kept = True');
    // When storage works again, the next save succeeds and the banner goes.
    await page.evaluate(() => {
      IDBObjectStore.prototype.put = globalThis.originalPut;
    });
    await page.evaluate(() => globalThis.tilelab.flush());
    assert.equal(await banner.count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('.py and .ipynb files open and save', async () => {
  const { page, problems, context } = await open();
  try {
    const text = '# %% [markdown]\n# # From a file\n\n# %%\nimport pypto as pt\n\n# %%\nx = 1\n';
    await page.setInputFiles('#file-input', { name: 'lesson.py', mimeType: 'text/x-python', buffer: Buffer.from(text) });
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 3);
    assert.deepEqual(await cells(page), fromPy(text).cells.map((cell) => [cell.kind, cell.source]));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-py')]);
    const saved = await streamText(await download.createReadStream());
    assert.equal(saved, text, 'this file is already in the canonical form, so it comes back byte for byte');
    assert.equal(saved, toPy(fromPy(text)));

    // An .ipynb written by the format module opens to the same cells.
    const notebook = { cells: [{ kind: 'markdown', source: '# Jupyter' }, { kind: 'code', source: 'y = 2\ny' }] };
    await page.setInputFiles('#file-input', { name: 'lesson.ipynb', mimeType: 'application/json', buffer: Buffer.from(toIpynb(notebook)) });
    await page.waitForFunction(() => globalThis.tilelab.model.cells[0]?.source === '# Jupyter');
    assert.deepEqual(await cells(page), [['markdown', '# Jupyter'], ['code', 'y = 2\ny']]);
    const [ipynbDownload] = await Promise.all([page.waitForEvent('download'), page.click('#save-ipynb')]);
    assert.deepEqual(fromIpynb(await streamText(await ipynbDownload.createReadStream())), notebook);

    await page.setInputFiles('#file-input', { name: 'broken.ipynb', mimeType: 'application/json', buffer: Buffer.from('{oops') });
    await page.waitForSelector('.banner[data-banner="open"]');
    assert.equal((await cells(page)).length, 2, 'a broken file changes nothing');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the example gallery lists examples/*.py and opens one without running it', async () => {
  const folder = join(ROOT, 'examples');
  // A missing or empty examples/ is a broken checkout: fail, do not test the empty gallery instead.
  const names = readdirSync(folder).filter((name) => name.endsWith('.py')).sort();
  assert.ok(names.length > 0, 'examples/ holds no notebook');
  const { page, problems, context } = await open();
  try {
    await page.click('#examples');
    const dialog = page.locator('#gallery-dialog');
    await dialog.waitFor();
    const listed = await dialog.locator('.gallery-item').evaluateAll((items) => items.map((item) => item.dataset.example));
    assert.deepEqual(listed, names);
    await dialog.locator('.gallery-item').first().click();
    const expected = fromPy(readFileSync(join(folder, names[0]), 'utf8')).cells.map((cell) => [cell.kind, cell.source]);
    assert.deepEqual(await cells(page), expected);
    assert.equal(await page.locator('.cell[data-state="idle"]').count(), expected.length, 'nothing ran');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the embed view shows a shared notebook, runs only on request and never touches the saved notebook', async () => {
  const sender = await open();
  const { page, problems, context } = await openPage(site().browser, { viewport: { width: 800, height: 600 } });
  try {
    const list = [['markdown', '## Try it'], ['code', 'y = 20\ny * 2 + 1']];
    await setCells(sender.page, list);
    await sender.page.click('#share');
    const payload = new URL(await sender.page.inputValue('#share-link')).hash;

    await page.goto(`${site().url}embed.html${payload}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#engine[data-state="ready"]', { state: 'attached' });
    assert.deepEqual(await cells(page), list);
    assert.deepEqual(await page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state)), ['idle', 'idle']);
    assert.equal(await page.getAttribute('#open-full', 'href'), `./index.html${payload}`);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    assert.equal(await page.locator('.output-text').textContent(), String(20 * 2 + 1));
    // The embed view saved nothing: the reader's full page still opens its starter notebook.
    await page.goto(site().url);
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal((await cells(page))[0][1].startsWith('# Welcome to TileLab'), true);

    await page.goto(`${site().url}embed.html#nb=broken!`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.locator('.banner[data-banner="share"]').getAttribute('data-tone'), 'error');
    assert.deepEqual(problems, []);
    assert.deepEqual(sender.problems, []);
  } finally {
    await context.close();
    await sender.context.close();
  }
});
