// The notebook's round-two features end to end in Chromium: API discovery in the editor from the
// engine's own table (completion of names and keyword arguments, hover docs, signature help,
// help() and dir(), in English and Chinese), outputs kept across reloads and in .ipynb, parser
// diagnostics while typing, the variables panel, and the notebook controls (restart, clear,
// run above/below, find, closing brackets, split, merge, outline, edited outputs marked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { cells, load, open, setCells, streamText, useSite } from './notebook-helpers.mjs';

useSite();

/** Puts the caret at the end of cell `index`'s text, in its editor. */
async function editAtEnd(page, index) {
  await page.locator('.cell').nth(index).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+End');
}

/** Moves the pointer onto the first occurrence of `text` in cell `index`'s editor. */
async function hoverText(page, index, text) {
  const point = await page.evaluate(([cellIndex, word]) => {
    const { model, view } = globalThis.tilelab;
    const editor = view.view(model.cells[cellIndex].id).editor;
    const at = editor.state.doc.toString().indexOf(word) + 1;
    const coords = editor.coordsAtPos(at);
    return { x: coords.left + 2, y: (coords.top + coords.bottom) / 2 };
  }, [index, text]);
  await page.mouse.move(0, 0);
  await page.mouse.move(point.x, point.y);
}

/** Waits until the API table reached the editor (asked once the engine is ready). */
async function waitForApi(page) {
  await page.waitForFunction(() => globalThis.tilelab.engine.status === 'ready');
  await page.waitForTimeout(200);
}

test('completion, hover and signature help come from the engine table, in both languages', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'import pypto as pt\nx = pt.ones([4, 8])\ny = pt.vi']]);
    await waitForApi(page);
    await editAtEnd(page, 0);
    await page.keyboard.press('Control+Space');
    const list = page.locator('.cm-tooltip-autocomplete');
    await list.waitFor();
    await page.waitForTimeout(150);
    assert.ok((await list.locator('li').allTextContents()).some((text) => text.startsWith('view')), 'view is offered');
    await screenshot(page, 'assist-completion-light-en');
    await page.keyboard.press('Enter');
    await page.keyboard.type('(x, [4, 4], ');
    const signature = page.locator('.cm-signature');
    await signature.waitFor();
    assert.equal(await signature.locator('.active-parameter').textContent(), 'offsets=None', 'the third parameter is the current one');
    assert.match(await signature.textContent(), /pypto\.view\(input, shape=None, offsets=None, valid_shape=None, dtype=None\)/);
    await page.keyboard.type('[0, 0], va');
    await page.keyboard.press('Control+Space');
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'valid_shape=' }).waitFor();
    // CodeMirror ignores Enter for 75 ms after a list is (re)shown, against accidental picks.
    await page.waitForTimeout(150);
    await page.keyboard.press('Enter');
    await page.keyboard.type('[4, 4]');
    assert.equal((await cells(page))[0][1].split('\n')[2], 'y = pt.view(x, [4, 4], [0, 0], valid_shape=[4, 4])', 'the bracket was closed as typed');
    await page.keyboard.press('Escape');
    await hoverText(page, 0, 'ones');
    const doc = page.locator('.cm-api-doc');
    await doc.waitFor();
    assert.match(await doc.textContent(), /ones\(shape, dtype=DT_FP32, requires_grad=False\)A tensor of `shape` filled with 1; `ones\(4, 8\)` is `ones\(\[4, 8\]\)`/);
    await page.selectOption('#language', 'zh-CN');
    await hoverText(page, 0, 'ones');
    await page.locator('.cm-api-doc', { hasText: '全为 1' }).waitFor();
    await screenshot(page, 'assist-hover-light-zh');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('help() and dir() answer from the same table, in the UI language', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'import pypto as pt\nhelp(pt.view)\nprint(dir(pt.autodiff))']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]');
    const text = await page.locator('.output-stdout').textContent();
    assert.match(text, /^pypto\.view\(input, shape=None, offsets=None, valid_shape=None, dtype=None\)\n\nA window of `shape` into `input`/);
    assert.match(text, /\['LossScaler', 'check_gradient', 'grad', 'last_backward', 'policy'\]\n$/);
    await page.selectOption('#language', 'zh-CN');
    await page.click('#run-all');
    await page.waitForFunction(() => document.querySelector('.output-stdout')?.textContent.includes('窗口'));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('outputs are kept across a reload and in .ipynb (nbformat fields), shown before anything runs', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['markdown', '# Kept'], ['code', 'import pypto as pt\nprint("hello")\npt.ones([2, 2])']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    await page.evaluate(() => globalThis.tilelab.flush());
    await load(page);
    const cell = page.locator('.cell').nth(1);
    assert.equal(await cell.getAttribute('data-state'), 'stale');
    assert.equal(await cell.locator('.output-stdout').textContent(), 'hello\n');
    assert.equal(await cell.locator('.output-tensor').count(), 1, 'the rich display came back');
    assert.match(await cell.locator('.output-restored').textContent(), /earlier session/);
    await screenshot(page, 'kept-output-light-en');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-ipynb')]);
    const saved = JSON.parse(await streamText(await download.createReadStream()));
    const code = saved.cells[1];
    assert.equal(code.execution_count, 1);
    assert.deepEqual(code.outputs.map((output) => output.output_type), ['stream', 'execute_result']);
    assert.deepEqual(code.outputs[0], { output_type: 'stream', name: 'stdout', text: ['hello\n'] });
    assert.equal(code.outputs[1].execution_count, 1);
    assert.ok(Array.isArray(code.outputs[1].data['text/plain']) && code.outputs[1].data['application/vnd.tilelab.display+json'].kind === 'tensor');
    assert.deepEqual(code.outputs[1].metadata, {});
    assert.equal('outputs' in saved.cells[0], false, 'markdown cells have no outputs');

    // The saved file opens with its outputs shown, before any run.
    await setCells(page, [['code', 'other = 1']]);
    await page.setInputFiles('#file-input', { name: 'kept.ipynb', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(saved)) });
    await page.waitForFunction(() => globalThis.tilelab.model.cells.length === 2);
    assert.equal(await page.locator('.cell').nth(1).locator('.output-stdout').textContent(), 'hello\n');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the parser underlines mistakes while typing, before any run', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', '']]);
    await editAtEnd(page, 0);
    await page.keyboard.type('x = (1 +\ny = 2');
    await page.locator('.cell').first().locator('.cm-lintRange-error').first().waitFor({ timeout: 5000 });
    assert.equal(await page.locator('.cell').first().getAttribute('data-state'), 'idle', 'nothing ran');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('x = (1 + 2)');
    await page.waitForFunction(() => document.querySelector('.cell .cell-editor').shadowRoot.querySelectorAll('.cm-lintRange-error').length === 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the variables panel lists names, types, shapes, dtypes and requires_grad after each run', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'import pypto as pt\nw = pt.ones([3, 4], requires_grad=True)\nsteps = 5']]);
    await page.click('#variables-toggle');
    await page.locator('#variables', { hasText: 'No variables yet' }).waitFor();
    await page.click('#run-all');
    const row = page.locator('#variables tr[data-name="w"]');
    await row.waitFor();
    assert.deepEqual(await row.locator('td').allTextContents(), ['w', 'Tensor', '[3, 4]', 'DT_FP32', 'yes']);
    assert.deepEqual(await page.locator('#variables tr[data-name="steps"] td').allTextContents(), ['steps', 'int', '5', '']);
    for (const theme of ['light', 'dark']) {
      await page.evaluate((name) => document.documentElement.setAttribute('data-theme', name), theme);
      await screenshot(page, `variables-${theme}-en`);
    }
    await page.selectOption('#language', 'zh-CN');
    await page.locator('#variables th', { hasText: '形状' }).waitFor();
    await screenshot(page, 'variables-dark-zh');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('restart, clear outputs, run above/below, split, merge, outline and edited marks', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['markdown', '# Part one\n## Setup'], ['code', 'a = 1'], ['code', 'b = a + 1\nb'], ['markdown', '# Part two'], ['code', 'c = b * 10\nc']]);
    await page.locator('.cell').nth(4).locator('.run-above').click();
    await page.waitForSelector('.cell:nth-child(3)[data-state="done"]');
    assert.equal(await page.locator('.cell').nth(4).getAttribute('data-state'), 'idle', 'run above leaves the cell itself');
    await page.locator('.cell').nth(2).locator('.run-below').click();
    await page.waitForSelector('.cell:nth-child(5)[data-state="done"]');
    assert.equal(await page.locator('.cell').nth(4).locator('.output-text').textContent(), '20');

    await editAtEnd(page, 2);
    await page.keyboard.type('  ');
    await page.waitForSelector('.cell:nth-child(3)[data-edited="true"]');
    assert.match(await page.locator('.cell').nth(2).locator('.cell-status').textContent(), /edited since it ran/);
    await page.keyboard.press('Control+f');
    await page.locator('.cell').nth(2).locator('.cm-search input[name="search"]').waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');

    await page.click('#clear-outputs');
    assert.equal(await page.locator('.cell-output:not([hidden])').count(), 0);
    await page.click('#restart');
    await page.waitForFunction(() => document.getElementById('announcer').textContent.startsWith('The engine restarted'));

    // Split at the caret (after `b = a + 1`), then merge back with Shift+M.
    await page.locator('.cell').nth(2).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Shift+Minus');
    assert.deepEqual((await cells(page)).slice(2, 4), [['code', 'b = a + 1'], ['code', 'b  ']]);
    await page.keyboard.press('Escape');
    await page.locator('.cell').nth(2).focus();
    await page.keyboard.press('Shift+M');
    assert.deepEqual((await cells(page))[2], ['code', 'b = a + 1\n\nb  ']);

    await page.click('#outline-toggle');
    assert.deepEqual(await page.locator('#outline li').allTextContents(), ['Part one', 'Setup', 'Part two']);
    await page.locator('#outline button', { hasText: 'Part two' }).click();
    assert.equal(await page.evaluate(() => document.activeElement.dataset.id), await page.evaluate(() => globalThis.tilelab.model.cells[3].id));
    await screenshot(page, 'outline-light-en');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('screenshots of the new pieces: light and dark, English and 简体中文', async () => {
  const { page, problems, context } = await open({ viewport: { width: 1400, height: 1000 } });
  try {
    const check = 'import pypto as pt\nx = pt.randn([16, 64], seed=3)\ndef f(a):\n    return pt.tanh(a).sum()\npt.autodiff.check_gradient(f, [x])';
    await setCells(page, [
      ['markdown', '# Lesson\n## Kernels'],
      ['code', 'import pypto as pt\n\n@pt.kernel\ndef broken(x):\n    return x * undefined_scale\n\nw = pt.ones([3, 4], requires_grad=True)'],
      ['code', 'y = broken(w)'],
      ['code', check],
    ]);
    await page.locator('#stop-on-error').uncheck();
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(4)[data-state="done"]', { timeout: 60_000 });
    await page.click('#variables-toggle');
    await page.click('#outline-toggle');
    await page.locator('#variables tr[data-name="w"]').waitFor();
    for (const language of ['en', 'zh-CN']) {
      await page.selectOption('#language', language);
      for (const theme of ['light', 'dark']) {
        await page.evaluate((name) => document.documentElement.setAttribute('data-theme', name), theme);
        await page.waitForTimeout(100);
        await screenshot(page, `round-two-${theme}-${language}`);
      }
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
