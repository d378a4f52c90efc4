// The notebook with the real interpreter, end to end: the starter cell runs and shows the values the
// code must produce (recomputed here in f64), an error is reported and underlined at its span, Stop
// ends a runaway loop and the fresh engine answers quickly, and the Swish example's gradient check
// passes in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { cells, open, runExample, setCells, useSite } from './notebook-helpers.mjs';

useSite();

/** Row-wise softmax in f64: p[i][j] = exp(x[i][j] − max_i) / Σ_k exp(x[i][k] − max_i). */
function softmaxRows(rows) {
  return rows.map((row) => {
    const top = Math.max(...row);
    const exps = row.map((value) => Math.exp(value - top));
    const sum = exps.reduce((total, value) => total + value, 0);
    return exps.map((value) => value / sum);
  });
}

/** The numbers of a rendered value table, row by row. */
function tableNumbers(cell) {
  return cell.locator('.output-tensor .output-table tr').evaluateAll((rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].map((td) => Number(td.textContent))));
}

/** Waits until cell `index` (1-based) has finished with `state` ('done' or 'error'). */
function finished(page, index, state, timeout = 30_000) {
  return page.waitForSelector(`.cell:nth-child(${index})[data-state="${state}"]`, { timeout });
}

/** Opens an example from the gallery, runs all its cells and waits until none is queued or running. */

/** The rows (after the heading) of the worst-elements table: [input index, output index, analytic, numerical, abs error]. */
function worstRows(check) {
  return check.locator('.gradcheck-worst tr').evaluateAll((rows) =>
    rows.slice(1).map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)));
}

test('the starter runs: a kernel on the NPU with its registered backward, a gradient check, the graph', async () => {
  const { page, problems, context } = await open();
  try {
    assert.equal(await page.evaluate(() => globalThis.tilelab.engine.features.runCell), true);
    const code = page.locator('.cell').nth(1);
    await code.locator('.cm-content').click();
    await page.keyboard.press('Control+Enter');
    await finished(page, 2, 'done');
    assert.equal(await code.locator('.prompt').textContent(), '[1]');
    assert.match(await code.locator('.cell-status').textContent(), /^\d+(\.\d)? ms$/);
    assert.equal(await code.locator('.output-stdout').textContent(), 'rows sum to 1: True\n');
    assert.equal(await code.locator('.output-error').count(), 0);
    // The analytic side (kernel and registered backward on the simulated NPU) agrees with central
    // differences of the forward in f64: an independent reference.
    assert.equal(await code.locator('.output-gradcheck .badge').textContent(), 'PASS');
    assert.match(await code.locator('.output-kernel-schedules > summary').textContent(), /1/);
    const graph = page.locator('.cell').nth(2);
    await graph.locator('.run').click();
    await finished(page, 3, 'done');
    assert.match(await graph.locator('.output-graph .output-caption').textContent(), /^Graph: 4 forward nodes, 3 backward nodes/);
    await page.waitForFunction(() => document.getElementById('announcer').textContent.startsWith('Cell 3 finished'));
    await screenshot(page, 'notebook-light');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a tensor display shows the softmax the code must produce', async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'import pypto as pt\n\nx = pt.as_tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]])\np = pt.softmax(x, dim=-1)\nprint("shape", p.shape)\np']]);
    const code = page.locator('.cell').first();
    await code.locator('.run').click();
    await finished(page, 1, 'done');
    assert.equal(await code.locator('.output-stdout').textContent(), 'shape [2, 3]\n');
    assert.equal(await code.locator('.output-caption').textContent(), 'Tensor [2, 3] DT_FP32');
    // The table shows 4 significant digits, so each shown value is within 5e-4 relative of the
    // f64 softmax (f32 rounding, ~1e-7, is far below that).
    const expected = softmaxRows([[1, 2, 3], [0.5, 0.5, 2]]);
    const shown = await tableNumbers(code);
    assert.equal(shown.length, 2);
    shown.forEach((row, i) => {
      assert.equal(row.length, 3);
      row.forEach((value, j) => assert.ok(Math.abs(value - expected[i][j]) <= 5e-4 * expected[i][j], `p[${i}][${j}] = ${value}, reference ${expected[i][j]}`));
    });
    // Each row sums to 1, so the mean over 2 rows of 3 is exactly 1/3; min and max are the extremes.
    const flat = expected.flat();
    const stats = (await code.locator('.output-stats').textContent()).match(/^min (\S+) · max (\S+) · mean (\S+)$/);
    assert.ok(stats, 'the statistics line');
    const [min, max, mean] = stats.slice(1).map(Number);
    assert.ok(Math.abs(min - Math.min(...flat)) <= 5e-4 * Math.min(...flat));
    assert.ok(Math.abs(max - Math.max(...flat)) <= 5e-4 * Math.max(...flat));
    assert.ok(Math.abs(mean - 1 / 3) <= 5e-4 / 3);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a shape error is reported in the output and underlined at its span', async () => {
  const { page, problems, context } = await open();
  try {
    // Non-ASCII text before the error, so byte offsets and editor (UTF-16) positions differ.
    const expression = 'pt.zeros([2, 3]) @ pt.zeros([2, 3])';
    await setCells(page, [['code', `import pypto as pt\nlabel = "矩阵 π"\nc = ${expression}\nprint("not reached")`]]);
    const cell = page.locator('.cell').first();
    await cell.locator('.run').click();
    await finished(page, 1, 'error');
    assert.equal(await cell.locator('.output-stdout').count(), 0, 'the cell stopped at the error');
    const report = await cell.locator('.output-error').first().textContent();
    // (2×3) @ (2×3): the inner dims 3 and 2 differ.
    assert.match(report, /^error\[[\w/-]+\]: .*\b3\b.*\b2\b|^error\[[\w/-]+\]: .*\b2\b.*\b3\b/);
    assert.match(report, /\n {2}--> \[1\] 3:5\b/, 'line 3, column 5 ("c = " is 4 characters)');
    const underlined = cell.locator('.cm-lintRange-error');
    assert.deepEqual(await underlined.allTextContents(), [expression]);
    await underlined.hover();
    await cell.locator('.cm-tooltip .cm-diagnostic').waitFor();
    await page.waitForFunction(() => document.getElementById('announcer').textContent.startsWith('Cell 1 failed: '));
    await screenshot(page, 'notebook-error');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('Stop ends an infinite loop; the restarted engine runs the next cell at once, with a fresh session', async (testContext) => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', 'x = 41'], ['code', 'while True:\n    pass'], ['code', 'x + 1']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell:nth-child(2)[data-state="running"]');
    await page.waitForTimeout(300);
    const firstWorker = await page.evaluate(() => globalThis.tilelab.engine.generation);

    const pressed = Date.now();
    await page.click('#stop');
    await page.locator('.cell').nth(2).locator('.run').click();
    await page.waitForSelector('.cell:nth-child(3)[data-state="error"], .cell:nth-child(3)[data-state="done"]', { timeout: 30_000 });
    const elapsed = Date.now() - pressed;
    testContext.diagnostic(`Stop → next result: ${elapsed} ms`);
    assert.ok(elapsed < 5000, `the next run answered ${elapsed} ms after Stop`);

    assert.equal(await page.evaluate(() => globalThis.tilelab.engine.generation), firstWorker + 1);
    // The session restarted: x is gone, so the third cell fails with a name error at `x`.
    const third = page.locator('.cell').nth(2);
    assert.equal(await third.getAttribute('data-state'), 'error');
    assert.match(await third.locator('.output-error').textContent(), /\bx\b/);
    assert.deepEqual(await third.locator('.cm-lintRange-error').allTextContents(), ['x']);
    assert.equal(await page.locator('.cell').nth(1).locator('.output-note').textContent(), 'Stopped before it finished.');
    assert.equal(await page.locator('.cell').first().getAttribute('data-state'), 'stale');
    assert.deepEqual(await cells(page), [['code', 'x = 41'], ['code', 'while True:\n    pass'], ['code', 'x + 1']]);

    // Define x again in the new session: 41 + 1.
    await page.locator('.cell').first().locator('.run').click();
    await finished(page, 1, 'done');
    await third.locator('.run').click();
    await finished(page, 3, 'done');
    assert.equal(await third.locator('.output-text').textContent(), '42');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the gallery opens 02_swish_gradient; run all shows a passed gradient check and the graph', async () => {
  const { page, problems, context } = await open();
  try {
    await runExample(page, '02_swish_gradient.py');
    const states = await page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state));
    assert.equal(states.includes('error'), false, `states ${states}`);

    const outputs = page.locator('.cell-output');
    const stdout = (await outputs.locator('.output-stdout').allTextContents()).join('');
    assert.match(stdout, /^loss -?\d+(\.\d+)?$/m);
    assert.match(stdout, /^grad shape \[8, 16\]$/m);
    assert.match(stdout, /^passed: True max abs err below 1e-4: True$/m);

    // The graph of loss = sum(swish(x)): at least the leaf x, the kernel's op and the sum.
    const graph = (await outputs.locator('.output-graph .output-caption').textContent()).match(/^Graph: (\d+) forward nodes, (\d+) backward nodes/);
    assert.ok(graph && Number(graph[1]) >= 3 && Number(graph[2]) >= 1, 'graph caption');
    assert.match(await outputs.locator('.graph-dot pre').textContent(), /digraph/);

    const check = outputs.locator('.output-gradcheck');
    assert.equal(await check.count(), 1);
    assert.equal(await check.getAttribute('class'), 'output-gradcheck passed');
    assert.equal(await check.locator('.badge').textContent(), 'PASS');
    // Every listed worst element: the registered backward agrees with the f64 finite difference.
    const worst = await worstRows(check);
    assert.ok(worst.length > 0, 'worst elements are listed');
    for (const [, , analytic, numerical] of worst) {
      assert.ok(Math.abs(Number(analytic) - Number(numerical)) <= 2e-3 * Math.max(1, Math.abs(Number(numerical))), `${analytic} vs ${numerical}`);
    }
    // Editors below the fold measure their lines once scrolled into view.
    await page.locator('.cell').last().scrollIntoViewIfNeeded();
    await page.waitForTimeout(100);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'notebook-swish');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the gallery example 03_wrong_gradient_caught fails the check, and its worst elements are the ones the bug predicts', async () => {
  const { page, problems, context } = await open();
  try {
    await runExample(page, '03_wrong_gradient_caught.py');
    const states = await page.locator('.cell').evaluateAll((nodes) => nodes.map((node) => node.dataset.state));
    assert.equal(states.includes('error'), false, `states ${states}`);
    const check = page.locator('.output-gradcheck');
    assert.equal(await check.getAttribute('class'), 'output-gradcheck failed');
    assert.equal(await check.locator('.badge').textContent(), 'FAIL');
    // The buggy backward returns a = σ(x) where swish'(x) = σ(x)·(1 + x·(1 − σ(x))). From the shown
    // analytic a, x = ln(a / (1 − a)), so the f64 finite difference must be a·(1 + x·(1 − a)).
    // Both columns show 4 significant digits, so the prediction carries an error of about 1e-3.
    const worst = await worstRows(check);
    assert.ok(worst.length > 0);
    for (const [, , analyticText, numericalText] of worst) {
      const analytic = Number(analyticText);
      const x = Math.log(analytic / (1 - analytic));
      const predicted = analytic * (1 + x * (1 - analytic));
      assert.ok(Math.abs(Number(numericalText) - predicted) <= 3e-3, `analytic ${analytic}: numerical ${numericalText}, predicted ${predicted}`);
      assert.ok(Math.abs(Number(numericalText) - analytic) > 1e-2, 'a listed worst element really differs');
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
