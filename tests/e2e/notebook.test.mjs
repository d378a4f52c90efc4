// The notebook page end to end in headless Chromium: cells by keyboard, Stop, CellResult rendering
// (every display kind, diagnostics at their spans), markdown that never becomes live HTML, the zh-CN
// UI and themes. Runs with the real interpreter are in interpreter.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { cells, focusedCellIndex, load, open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

test('the notebook opens with the starter cells', async () => {
  const { page, problems, context } = await open();
  try {
    const list = await cells(page);
    assert.deepEqual(list.map(([kind]) => kind), ['markdown', 'code', 'code']);
    assert.equal(await page.locator('.cell').first().locator('h1').textContent(), 'Welcome to TileLab');
    assert.equal(await page.locator('.cell').nth(1).getAttribute('aria-label'), 'Code cell 2');
    assert.match(list[1][1], /^# Softmax of each row/);
    assert.deepEqual(await page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state)), ['idle', 'idle', 'idle'], 'nothing runs by itself');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('cells are added, edited, moved, collapsed and deleted with the keyboard alone', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'a = 1\na']]);
    // Tab from the page's start reaches the cell (skip link, settings, toolbar buttons, then cells).
    await page.locator('body').focus();
    for (let presses = 0; presses < 30 && (await focusedCellIndex(page)) !== 0; presses += 1) await page.keyboard.press('Tab');
    assert.equal(await focusedCellIndex(page), 0, 'Tab reaches the first cell');

    await page.keyboard.press('b'); // insert below, selected
    assert.equal(await focusedCellIndex(page), 1);
    await page.keyboard.press('Enter'); // edit
    await page.keyboard.type('b = 2');
    await page.keyboard.press('Escape'); // back to the cell
    assert.equal(await focusedCellIndex(page), 1);
    // No focus trap: from a cell, Tab passes its buttons (not its editor) and leaves the notebook.
    await page.keyboard.press('Shift+Tab');
    for (let presses = 0; presses < 6 && (await focusedCellIndex(page)) !== 1; presses += 1) {
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.shadowRoot?.activeElement ?? null), null, 'Tab never enters an editor');
    }
    assert.equal(await focusedCellIndex(page), 1);
    const insideCell = () => page.evaluate(() => document.activeElement.closest('.cell') !== null);
    for (let presses = 0; presses < 10 && (await insideCell()); presses += 1) await page.keyboard.press('Tab');
    assert.equal(await insideCell(), false, 'Tab leaves the last cell');
    for (let presses = 0; presses < 10 && (await focusedCellIndex(page)) !== 1; presses += 1) await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Alt+ArrowUp'); // move up
    assert.deepEqual(await cells(page), [['code', 'b = 2'], ['code', 'a = 1\na']]);
    assert.equal(await focusedCellIndex(page), 0, 'the moved cell keeps the focus');
    await page.waitForFunction(() => document.getElementById('announcer').textContent === 'Cell moved to position 1.');

    await page.keyboard.press('m'); // to markdown
    assert.deepEqual(await cells(page), [['markdown', 'b = 2'], ['code', 'a = 1\na']]);
    await page.keyboard.press('y'); // back to code
    await page.keyboard.press('ArrowDown');
    assert.equal(await focusedCellIndex(page), 1);
    await page.keyboard.press('Alt+ArrowDown'); // the last cell cannot move down
    assert.deepEqual(await cells(page), [['code', 'b = 2'], ['code', 'a = 1\na']]);

    // Alt+Enter in the editor runs and inserts a cell below; Shift+Enter on the last cell adds one.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Alt+Enter');
    assert.equal((await cells(page)).length, 3);
    await page.keyboard.type('c = 3');
    await page.keyboard.press('Shift+Enter');
    assert.deepEqual(await cells(page), [['code', 'b = 2'], ['code', 'a = 1\na'], ['code', 'c = 3'], ['code', '']]);

    // Collapse the output of the cell that ran (o), then expand it again.
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    assert.equal(await page.locator('.cell').nth(1).locator('.output-text').textContent(), '1');
    await page.keyboard.press('o');
    assert.equal(await page.locator('.cell').nth(1).getAttribute('data-collapsed'), 'true');
    assert.equal(await page.locator('.cell').nth(1).locator('.collapsed-note').textContent(), 'Output collapsed (1 lines)');
    await page.keyboard.press('o');
    assert.equal(await page.locator('.cell').nth(1).getAttribute('data-collapsed'), 'false');

    // d d deletes; a single d does not.
    await page.keyboard.press('d');
    assert.equal((await cells(page)).length, 4);
    await page.keyboard.press('d');
    assert.deepEqual(await cells(page), [['code', 'b = 2'], ['code', 'c = 3'], ['code', '']]);
    assert.equal(await focusedCellIndex(page), 1, 'the next cell is selected after a delete');

    // The help dialog lists the shortcuts; Escape closes it and focus comes back.
    await page.keyboard.press('h');
    assert.equal(await page.locator('#help-dialog').getAttribute('open'), '');
    assert.ok((await page.locator('#help-dialog kbd').count()) >= 10);
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#help-dialog').getAttribute('open'), null);
    assert.equal(await focusedCellIndex(page), 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('Restart after a run restarts the engine: text intact, cells that ran are stale', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'x = 1'], ['code', 'y = 2']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    const firstWorker = await page.evaluate(() => globalThis.tilelab.engine.generation);
    await page.click('#restart');
    await page.waitForSelector('#engine[data-state="ready"]');
    assert.equal(await page.evaluate(() => globalThis.tilelab.engine.generation), firstWorker + 1);
    assert.deepEqual(await page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state)), ['stale', 'stale']);
    assert.equal(await page.locator('.cell').first().locator('.cell-status').textContent(), 'stale: the engine restarted');
    assert.deepEqual(await cells(page), [['code', 'x = 1'], ['code', 'y = 2']]);
    // The new worker answers.
    await page.locator('.cell').first().locator('.run').click();
    await page.waitForSelector('.cell:nth-child(1)[data-state="done"]');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a CellResult renders: stdout, displays, and diagnostics underlined at their byte spans with the message on hover', async () => {
  const { page, problems, context } = await open();
  try {
    const source = 'x = 1\ny = "π" + zz';
    await setCells(page, [['code', source]]);
    // "x = 1\n" is 6 bytes; 'y = "π" + ' is 11 bytes (π is 2 bytes in UTF-8), so `zz` is bytes 17..19.
    const result = {
      execution_count: 4,
      status: 'error',
      stdout: 'hello\n',
      displays: [
        { kind: 'text', text: '42' },
        { kind: 'tensor', shape: [2, 3], dtype: 'DT_FP32', requires_grad: false, preview: '[[1, 1, 1], [1, 1, 1]]', values: [1, 1, 1, 1, 1, 1], min: 1, max: 1, mean: 1 },
        { kind: 'grad_check', passed: false, max_abs_err: 0.25, max_rel_err: 0.5, sides: 'analytic: simulated NPU; numerical: f64 CPU',
          report: { mode: 'Full', passed: false, inputs: [{ input: 0, shape: [3], dtype: 'F32', tolerance: { step: 1e-6, rtol: 1e-3, atol: 1e-5 },
            compared: 9, max_abs_error: 0.25, max_rel_error: 0.5, passed: false, non_differentiable: [],
            worst: [{ input_index: [1], output_index: [1], analytic: 0.75, numerical: 0.5, abs_error: 0.25, rel_error: 0.5 }] }] } },
        { kind: 'graph', num_nodes: 2, num_backward_nodes: 1, dot: 'digraph { a -> b }',
          graph: { nodes: [{ id: 1, label: 'leaf', name: 'x', outputs: [{ shape: [3], dtype: 'F32' }] }, { id: 2, label: 'exp', outputs: [{ shape: [3], dtype: 'F32' }] }],
            edges: [], backward_nodes: [], gradient_edges: [], outputs: [2], saved_bytes: 12, saved_activation_bytes: 12 } },
        { kind: '<b>future</b>' },
      ],
      diagnostics: [
        { severity: 'error', code: 'runtime/name', message: "name 'zz' is not defined", cell: 4, span: { start: 17, end: 19 },
          line: 2, column: 11, end_line: 2, end_column: 13, help: 'define zz first', note: null, traceback: [] },
        { severity: 'error', code: 'runtime/elsewhere', message: 'in another cell', cell: 2, span: { start: 0, end: 1 },
          line: 1, column: 1, end_line: 1, end_column: 2, help: null, note: null, traceback: [] },
      ],
      duration_ms: 3.25,
      kernel_runs: [],
    };
    await page.evaluate((data) => {
      const { model } = globalThis.tilelab;
      model.setRun(model.cells[0].id, { state: 'error', result: data, ms: data.duration_ms, executionCount: data.execution_count });
    }, result);
    const cell = page.locator('.cell').first();
    assert.equal(await cell.locator('.prompt').textContent(), '[4]');
    assert.equal(await cell.locator('.cell-status').textContent(), 'error · 3.3 ms');
    assert.equal(await cell.locator('.output-stdout').textContent(), 'hello\n');
    assert.equal(await cell.locator('.output-body > pre.output-text').textContent(), '42');
    const tensor = cell.locator('.output-tensor');
    assert.equal(await tensor.locator('.output-caption').textContent(), 'Tensor [2, 3] DT_FP32');
    assert.equal(await tensor.locator('.output-stats').textContent(), 'min 1 · max 1 · mean 1');
    assert.deepEqual(await tensor.locator('tr').evaluateAll((rows) => rows.map((row) => row.textContent)), ['111', '111']);
    const check = cell.locator('.output-gradcheck.failed');
    assert.equal(await check.locator('.badge').textContent(), 'FAIL');
    assert.equal(await check.locator('.gradcheck-summary').textContent(), 'Gradient check FAILED (max abs error 2.50e-1, max rel error 5.00e-1)');
    assert.deepEqual(await check.locator('.gradcheck-worst tr').nth(1).locator('td').allTextContents(), ['[1]', '[1]', '0.75', '0.5', '2.50e-1']);
    const graph = cell.locator('.output-graph');
    assert.equal(await graph.locator('.output-caption').textContent(), 'Graph: 2 forward nodes, 1 backward nodes, 12 bytes of activations saved for backward');
    await graph.locator('.graph-table-toggle').click();
    assert.deepEqual(await graph.locator('.graph-table th[scope="row"]').allTextContents(), ['x', 'exp']);
    assert.equal(await graph.locator('.graph-dot pre').textContent(), 'digraph { a -> b }');
    // An unknown kind is named as text, never parsed as HTML.
    assert.equal(await cell.locator('.output-body b').count(), 0);
    assert.match(await cell.locator('.output-body > .output-note').textContent(), /<b>future<\/b>/);
    assert.equal(
      await cell.locator('.output-error').first().textContent(),
      "error[runtime/name]: name 'zz' is not defined\n  --> [4] 2:11\nhelp: define zz first",
    );
    // Only this cell's diagnostic is underlined, exactly over `zz`.
    const underlined = cell.locator('.cm-lintRange-error');
    assert.deepEqual(await underlined.allTextContents(), ['zz']);
    await underlined.hover();
    const tooltip = cell.locator('.cm-tooltip .cm-diagnostic');
    await tooltip.waitFor();
    assert.match(await tooltip.textContent(), /name 'zz' is not defined\nhelp: define zz first/);
    // Editing the text clears the stale underline.
    await cell.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('z');
    assert.equal(await cell.locator('.cm-lintRange-error').count(), 0);
    await screenshot(page, 'notebook-diagnostics');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('markdown is rendered without live HTML or script links', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['markdown', '<img src=x onerror="globalThis.hacked=1"> **bold** [bad](javascript:alert(1)) [good](https://example.com)']]);
    const rendered = page.locator('.cell-rendered');
    assert.equal(await rendered.locator('img').count(), 0);
    assert.match(await rendered.textContent(), /<img src=x onerror=/);
    assert.equal(await rendered.locator('strong').textContent(), 'bold');
    assert.deepEqual(await rendered.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href'))), ['https://example.com']);
    assert.equal(await page.evaluate(() => globalThis.hacked), undefined);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** A tensor display to look at (the starter shows a gradient check and a graph instead). */
const SOFTMAX_CELLS = [['markdown', '# Softmax'], ['code', 'import pypto as pt\n\nx = pt.as_tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]])\np = pt.softmax(x, dim=-1)\nprint("shape", p.shape)\np']];

test('the UI switches to 简体中文 (remembered), and the theme toggles and is remembered', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light' });
  try {
    await page.selectOption('#language', 'zh-CN');
    await setCells(page, SOFTMAX_CELLS);
    assert.equal(await page.textContent('#run-all'), '全部运行');
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    assert.equal(await page.locator('.cell').nth(1).getAttribute('aria-label'), '代码单元格 2');
    assert.equal(await page.locator('.cell').nth(1).locator('.run').getAttribute('aria-label'), '运行单元格');
    assert.equal(await page.textContent('#engine'), '引擎：就绪');
    const code = page.locator('.cell').nth(1);
    await code.locator('.run').click();
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    assert.match(await code.locator('.cell-status').textContent(), /^\d+(\.\d)? 毫秒$/);
    assert.equal(await code.locator('.output-caption').textContent(), '张量 [2, 3] DT_FP32');
    assert.match(await code.locator('.output-stats').textContent(), /^最小值 \S+ · 最大值 \S+ · 平均值 0\.3333$/);
    await page.waitForFunction(() => document.getElementById('announcer').textContent.startsWith('单元格 2 已完成'));
    await screenshot(page, 'notebook-zh-CN-light');

    await page.click('#theme'); // system → light
    assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
    await page.click('#theme'); // light → dark
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [red, green, blue] = background.match(/\d+/g).map(Number);
    assert.ok(0.2126 * red + 0.7152 * green + 0.0722 * blue < 64, `dark background ${background}`);
    await screenshot(page, 'notebook-zh-CN-dark');

    await load(page);
    assert.equal(await page.textContent('#run-all'), '全部运行');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await page.keyboard.press('Tab');
    await page.click('#help');
    assert.equal(await page.locator('#help-dialog h2').textContent(), '键盘快捷键');
    await page.keyboard.press('Escape');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the dark theme follows the system', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark' });
  try {
    await setCells(page, SOFTMAX_CELLS);
    await page.locator('.cell').nth(1).locator('.run').click();
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    assert.equal(await page.locator('.cell').nth(1).locator('.output-table tr').count(), 2);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [red, green, blue] = background.match(/\d+/g).map(Number);
    assert.ok(0.2126 * red + 0.7152 * green + 0.0722 * blue < 64, `dark background ${background}`);
    await screenshot(page, 'notebook-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

async function streamText(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

test('a browser that prefers Chinese opens in 简体中文 with a Chinese starter notebook', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN' });
  try {
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    assert.equal(await page.inputValue('#language'), 'zh-CN');
    assert.equal(await page.textContent('#add-code'), '+ 代码');
    assert.equal(await page.locator('.cell').first().locator('h1').textContent(), '欢迎使用 TileLab');
    // The Chinese starter code (a Chinese comment before the code) runs clean too.
    const code = page.locator('.cell').nth(1);
    assert.match((await cells(page))[1][1], /^# 每一行的 softmax/);
    await code.locator('.run').click();
    await page.waitForSelector('.cell:nth-child(2)[data-state="done"]');
    assert.equal(await code.locator('.output-stdout').textContent(), '每行之和为 1： True\n');
    assert.equal(await code.locator('.output-error').count(), 0);
    assert.equal(await code.locator('.output-gradcheck .badge').textContent(), '通过');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
