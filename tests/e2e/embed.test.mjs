// The embed for tutorials end to end: the <tile-lab> element on tutorial-demo.html (the iframe's
// address, auto-resizing, the checks on height messages, no special headers needed), the embed's
// one-cell view with its unseen prelude, inline code, and read mode on embed.html and index.html.
// Screenshots of read mode and of the tutorial page (light, dark, zh-CN) go to test-artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, openPage, screenshot } from './harness.mjs';
import { fromPy } from '../../www/notebook/format.js';
import { useSite } from './notebook-helpers.mjs';
import { strings as english } from '../../www/i18n/en.js';
import { strings as chinese } from '../../www/i18n/zh-CN.js';
import { inlineCode } from '../../www/ui/inline-code.js';

const site = useSite();

/** The tutorial page with its three frames ready; returns { page, problems, context, frames }. */
async function openTutorial(options = {}) {
  const opened = await openPage(site().browser, { viewport: { width: 1000, height: 2400 }, ...options });
  await opened.page.goto(`${site().url}tutorial-demo.html`);
  const frames = {};
  for (const id of ['swish', 'inline', 'chinese']) {
    const handle = await opened.page.waitForSelector(`tile-lab#${id} >> iframe`);
    await opened.page.waitForFunction((name) => /embed\.html/.test(document.getElementById(name).shadowRoot.querySelector('iframe').src), id);
    const frame = await handle.contentFrame();
    await frame.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    await frame.waitForSelector('#engine[data-state="ready"]', { state: 'attached', timeout: 60_000 });
    frames[id] = frame;
  }
  return { ...opened, frames };
}

/** The iframe's CSS height in pixels and the height of the embed's content. */
async function heights(page, frame, id) {
  const outer = await page.evaluate((name) => document.getElementById(name).shadowRoot.querySelector('iframe').getBoundingClientRect().height, id);
  const inner = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
  return { outer, inner };
}

/** Waits until the frame of `id` is as tall as its content plus its 1 px borders. */
async function waitForFit(page, frame, id) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { outer, inner } = await heights(page, frame, id);
    if (Math.abs(outer - (inner + 2)) <= 1) return inner;
    await page.waitForTimeout(50);
  }
  const { outer, inner } = await heights(page, frame, id);
  assert.fail(`the frame ${id} is ${outer}px tall for ${inner}px of content`);
}

test('every UI string exists in every UI language', () => {
  assert.deepEqual(Object.keys(chinese).sort(), Object.keys(english).sort());
});

test('inline code loses the tutorial page\'s indentation and blank edges, nothing else', () => {
  assert.equal(inlineCode('\n    a = 1\n      b = [\n    ]\n  \n'), 'a = 1\n  b = [\n]');
  assert.equal(inlineCode('x'), 'x');
  assert.equal(inlineCode('  \n \t\n'), '');
});

test('<tile-lab> frames embed.html with the attributes as its query and follow its height', async () => {
  const { page, problems, context, frames } = await openTutorial();
  try {
    const address = (id) => page.evaluate((name) => new URL(document.getElementById(name).shadowRoot.querySelector('iframe').src), id).then((url) => new URL(url));
    const swish = await address('swish');
    assert.equal(swish.pathname, '/embed.html');
    assert.equal(swish.searchParams.get('src'), 'examples/02_swish_gradient.py');
    assert.equal(swish.searchParams.get('cell'), '3');
    assert.equal(swish.searchParams.get('mode'), 'read');
    assert.match(swish.searchParams.get('frame'), /^[A-Za-z0-9_-]+$/);
    const chinese = await address('chinese');
    assert.deepEqual(['lang', 'theme', 'run'].map((name) => chinese.searchParams.get(name)), ['zh-CN', 'dark', '0']);
    assert.notEqual(chinese.searchParams.get('frame'), swish.searchParams.get('frame'), 'each element has its own frame id');
    assert.match((await address('inline')).hash, /^#nb=[A-Za-z0-9_-]+$/);

    // Cell 3 of the example alone; cell 2 (the kernel and its gradient) runs unseen before it.
    const cellsOf = (frame) => frame.evaluate(() => globalThis.tilelab.model.cells.map((cell) => [cell.kind, cell.source]));
    const shown = await cellsOf(frames.swish);
    assert.equal(shown.length, 1);
    assert.match(shown[0][1], /^x = pt\.randn\(\[8, 16\], requires_grad=True, seed=1\)/);
    const before = await waitForFit(page, frames.swish, 'swish');
    await frames.swish.locator('.cell .icon-button.run').click();
    await frames.swish.waitForSelector('.cell[data-state="done"]', { timeout: 60_000 });
    // stdout: `loss` is a number and x.grad has x's shape [8, 16]; a missing prelude would be a NameError.
    assert.match(await frames.swish.locator('.output-stdout').textContent(), /^loss -?\d+(\.\d+)?\ngrad shape \[8, 16\]/);
    assert.equal(await frames.swish.locator('.output-graph').count(), 1);
    const after = await waitForFit(page, frames.swish, 'swish');
    // "Open in TileLab" carries the whole example (all four cells), not only the shown one.
    assert.match(await frames.swish.locator('#open-full').getAttribute('href'), /^\.\/index\.html#nb=[A-Za-z0-9_-]{40,}$/);
    assert.ok(after > before + 50, `the frame grew with the output (${before} → ${after} px)`);

    // Inline code: one code cell, dedented; the sum of [[1, −2], [3, 0.5]] is 2.5.
    assert.deepEqual(await cellsOf(frames.inline), [['code', 'import pypto as pt\n\nx = pt.as_tensor([[1.0, -2.0], [3.0, 0.5]])\nprint("sum", x.sum().item())\nx']]);
    await frames.inline.locator('.cell .icon-button.run').click();
    await frames.inline.waitForSelector('.cell[data-state="done"]', { timeout: 60_000 });
    assert.match(await frames.inline.locator('.output-stdout').textContent(), /^sum 2\.5\n/);
    await waitForFit(page, frames.inline, 'inline');

    // zh-CN, dark, read only without running; the reader's own language is not changed by it.
    assert.equal(await frames.chinese.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal(await frames.chinese.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await frames.chinese.locator('#read-badge').textContent(), '只读');
    assert.equal(await frames.chinese.locator('.cell .icon-button.run').isVisible(), false);
    assert.equal(await frames.chinese.locator('#run-all').isVisible(), false);
    assert.equal(await frames.chinese.evaluate(() => localStorage.getItem('tilelab.locale')), null);
    assert.equal(await frames.chinese.evaluate(() => document.documentElement.dataset.mode), 'read');

    // No special headers: no cross-origin isolation, so no SharedArrayBuffer, and cells still ran.
    assert.equal(await frames.swish.evaluate(() => globalThis.crossOriginIsolated), false);
    const response = await page.request.get(`${site().url}embed.html`);
    for (const header of ['cross-origin-opener-policy', 'cross-origin-embedder-policy']) assert.equal(response.headers()[header], undefined, header);

    await screenshot(page, 'tutorial-light');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('height messages are accepted only from the element\'s own frame, id and shape', async () => {
  const { page, problems, context, frames } = await openTutorial();
  try {
    const fitted = await waitForFit(page, frames.swish, 'swish');
    const frameId = await frames.swish.evaluate(() => new URLSearchParams(location.search).get('frame'));
    const outer = () => page.evaluate(() => document.getElementById('swish').shadowRoot.querySelector('iframe').getBoundingClientRect().height);
    const settle = () => page.waitForTimeout(150);
    // The right shape, but sent by the tutorial page itself, not by the frame.
    await page.evaluate((frame) => postMessage({ type: 'tilelab:size', frame, height: 901 }, '*'), frameId);
    // From another element's frame, with its own id.
    await frames.inline.evaluate((frame) => parent.postMessage({ type: 'tilelab:size', frame, height: 902 }, '*'), frameId);
    // From the frame: a wrong id, a wrong type, a height that is no number, negative, or absurd.
    for (const message of [
      { type: 'tilelab:size', frame: 'someone-else', height: 903 },
      { type: 'other', frame: frameId, height: 904 },
      { type: 'tilelab:size', frame: frameId, height: '905' },
      { type: 'tilelab:size', frame: frameId, height: -906 },
      { type: 'tilelab:size', frame: frameId, height: 1e9 },
      { type: 'tilelab:size', frame: frameId, height: Number.NaN },
    ]) {
      await frames.swish.evaluate((data) => parent.postMessage(data, '*'), message);
    }
    await settle();
    assert.equal(await outer(), fitted + 2, 'no forged or malformed message resized the frame');
    // The same channel with a well-formed message does resize it, so the checks above are real.
    await frames.swish.evaluate((frame) => parent.postMessage({ type: 'tilelab:size', frame, height: 907 }, '*'), frameId);
    await page.waitForFunction(() => document.getElementById('swish').shadowRoot.querySelector('iframe').getBoundingClientRect().height === 909);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('height fixes the frame, max-height caps it, and text added after the element still counts', async () => {
  const { page, problems, context } = await openTutorial();
  try {
    await page.evaluate(() => {
      for (const [id, name, value] of [['fixed', 'height', '300'], ['capped', 'max-height', '120']]) {
        const element = document.createElement('tile-lab');
        element.id = id;
        element.setAttribute(name, value);
        document.querySelector('main').append(element);
        // The code arrives after the element is in the page, as a page script would fill it in.
        element.textContent = 'y = 40 + 2\nprint(y)';
      }
    });
    for (const id of ['fixed', 'capped']) {
      const frame = await (await page.waitForSelector(`tile-lab#${id} >> iframe[src*="embed.html"]`)).contentFrame();
      await frame.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
      assert.deepEqual(await frame.evaluate(() => globalThis.tilelab.model.cells.map((cell) => cell.source)), ['y = 40 + 2\nprint(y)']);
      await frame.waitForSelector('#engine[data-state="ready"]', { state: 'attached', timeout: 60_000 });
      await frame.locator('.cell .icon-button.run').click();
      await frame.waitForSelector('.cell[data-state="done"]', { timeout: 60_000 });
      assert.equal(await frame.locator('.output-stdout').textContent(), '42\n');
      await page.waitForTimeout(200);
      const { outer, inner } = await heights(page, frame, id);
      assert.ok(inner > 150, `the content (${inner} px) is taller than the cap`);
      assert.equal(outer, id === 'fixed' ? 302 : 122, `${id}: the frame is ${outer} px`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the tutorial page in the dark and in Chinese', async () => {
  for (const [name, options] of [
    ['tutorial-dark', { colorScheme: 'dark' }],
    ['tutorial-zh-CN', { locale: 'zh-CN' }],
  ]) {
    const { page, problems, context, frames } = await openTutorial(options);
    try {
      await waitForFit(page, frames.swish, 'swish');
      if (options.locale) assert.equal(await frames.swish.locator('#read-badge').textContent(), '只读', 'the browser language reaches the frame');
      await screenshot(page, name);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

/** Opens `path` (index.html or embed.html with a query) and waits for the page and its engine. */
async function openAt(path, options = {}) {
  const opened = await openPage(site().browser, { viewport: { width: 1000, height: 800 }, ...options });
  await opened.page.goto(`${site().url}${path}`);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await opened.page.waitForSelector('#engine[data-state="ready"]', { state: 'attached', timeout: 60_000 });
  return opened;
}

const modelCells = (page) => page.evaluate(() => globalThis.tilelab.model.cells.map((cell) => [cell.kind, cell.source]));

test('read mode on the full page: nothing edits the notebook, cells still run, screen readers are told', async () => {
  for (const [name, options] of [
    ['read-mode-light', {}],
    ['read-mode-dark', { colorScheme: 'dark' }],
    ['read-mode-zh-CN', { locale: 'zh-CN' }],
  ]) {
    const { page, problems, context } = await openAt('index.html?mode=read', options);
    try {
      const chinese = options.locale === 'zh-CN';
      assert.equal(await page.evaluate(() => document.documentElement.dataset.mode), 'read');
      const description = await page.evaluate(() => document.getElementById(document.getElementById('cells').getAttribute('aria-describedby'))?.textContent);
      assert.equal(description, chinese ? '只读笔记本：可以运行单元格，但不能编辑。' : 'Read-only notebook: the cells can be run but not edited.');
      assert.equal(await page.locator('#read-badge').isVisible(), true);
      for (const selector of ['#add-code', '#add-markdown', '#open', '.cell .icon-button.delete', '.cell .icon-button.move-up', '.cell .icon-button.kind', '.cell .icon-button.edit']) {
        assert.equal(await page.locator(selector).first().isVisible(), false, `${selector} is hidden`);
      }
      assert.equal(await page.locator('.cell .icon-button.run').first().isVisible(), true);
      const before = await modelCells(page);

      // Command keys that would insert, delete, move or re-kind the selected code cell do nothing.
      await page.locator('.cell').nth(1).focus();
      for (const key of ['a', 'b', 'm', 'd', 'd', 'Delete', 'Alt+ArrowUp']) await page.keyboard.press(key);
      await page.locator('.cell').nth(1).focus();
      // Enter opens the editor, which takes no text; Alt+Enter runs without inserting a cell.
      await page.keyboard.press('Enter');
      await page.keyboard.type('zzz');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Alt+Enter');
      await page.waitForSelector('.cell:nth-child(2)[data-state="done"]', { timeout: 60_000 });
      // A double click on rendered markdown leaves it rendered.
      await page.locator('.cell').first().locator('.cell-rendered').dblclick();
      assert.equal(await page.locator('.cell').first().locator('.cell-editor').isVisible(), false);
      assert.deepEqual(await modelCells(page), before, 'the notebook is unchanged');
      assert.equal(await page.evaluate(() => document.querySelector('.cell:nth-child(2) .cell-editor').shadowRoot.querySelector('.cm-content').getAttribute('aria-readonly')), 'true');
      // The screenshot without the double click's selection and focus ring.
      await page.evaluate(() => {
        getSelection().removeAllRanges();
        document.activeElement?.blur();
      });
      await screenshot(page, name);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('read mode without running (run=0) in the embed: no run control works', async () => {
  const { page, problems, context } = await openAt('embed.html?src=examples/02_swish_gradient.py&mode=read&run=0');
  try {
    assert.equal((await modelCells(page)).length, 4, 'the whole example without cell=');
    for (const selector of ['#run-all', '#stop', '.cell .icon-button.run']) assert.equal(await page.locator(selector).first().isVisible(), false, selector);
    const code = page.locator('.cell[data-kind="code"]').first();
    await code.focus();
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Control+Enter');
    await page.evaluate(() => document.getElementById('run-all').click());
    await page.waitForTimeout(300);
    assert.deepEqual(await page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state)), ['idle', 'idle', 'idle', 'idle']);
    assert.match(await page.locator('#announcer').textContent(), /cannot be edited or run/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a bad src or cell shows a banner and never breaks the embed', async () => {
  const { page, problems, context } = await openAt('embed.html?src=examples/02_swish_gradient.py&cell=9', {
    expectedConsoleErrors: [/404/],
  });
  try {
    assert.match(await page.locator('.banner').textContent(), /The notebook has no cell 9 \(it has 4\)/);
    assert.equal((await modelCells(page)).length, 4, 'the whole notebook instead');
    await page.goto(`${site().url}embed.html?src=missing.py`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.match(await page.locator('.banner').textContent(), /Could not open missing\.py: HTTP 404/);
    await page.goto(`${site().url}embed.html?src=${encodeURIComponent('https://example.com/a.py')}`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.match(await page.locator('.banner').textContent(), /only files of this site/);
    assert.deepEqual(problems.filter((problem) => !/missing\.py/.test(problem)), []);
  } finally {
    await context.close();
  }
});

test('an embed shows a cell range, runs on the lesson preset, and one cell gets a lighter frame', async () => {
  const { page, problems, context } = await openAt('embed.html?src=examples/02_swish_gradient.py&cell=2-3&preset=teaching');
  try {
    const all = fromPy(readFileSync(join(ROOT, 'examples', '02_swish_gradient.py'), 'utf8')).cells;
    assert.deepEqual(await modelCells(page), all.slice(1, 3).map((cell) => [cell.kind, cell.source]));
    assert.equal(await page.locator('#run-all').isVisible(), true, 'several cells keep the full frame');
    await setCellsInEmbed(page, [['code', 'import pypto as pt\npt.npu.config()["preset"]']]);
    await page.locator('.cell .run').first().click();
    await page.waitForSelector('.cell[data-state="done"]');
    assert.equal(await page.locator('.cell .output-text').textContent(), "'teaching'", 'the prelude chose the preset');

    await page.goto(`${site().url}embed.html?src=examples/02_swish_gradient.py&cell=2`);
    await page.waitForSelector('body[data-ready="true"]');
    for (const selector of ['#run-all', '#stop', '#engine']) assert.equal(await page.locator(selector).isVisible(), false, selector);
    assert.equal(await page.locator('.cell .run').first().isVisible(), true, "the cell's own run button stays");
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** Replaces the embed's cells through its model (the set-up of a test). */
function setCellsInEmbed(page, list) {
  return page.evaluate((data) => globalThis.tilelab.model.load(data.map(([kind, source]) => ({ kind, source }))), list);
}
