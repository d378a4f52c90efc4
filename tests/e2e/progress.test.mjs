// Progress of long work: a gradient check over 64 inputs × 64 outputs (4096 Jacobian entries, full
// mode) reports from inside the engine worker, and the running cell shows a <progress> whose value
// rises before the result arrives; the bar's Stop button interrupts it like the toolbar's Stop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Engine } from '../../www/engine/client.js';
import { NotebookModel } from '../../www/notebook/model.js';
import { Runner } from '../../www/notebook/runner.js';
import { screenshot } from './harness.mjs';
import { open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

// 160 rounds of y ← 0.99·y + 0.01·sin(y) make each evaluation several hundred tensor ops, so the
// 128 evaluations and 64 backward passes of the check take seconds in the engine (40 rounds were
// once enough; the engine got faster and finished before the bar could be seen running).
const slowCheck = (rounds) => `import pypto as pt
def f(x):
    y = x
    for i in range(${rounds}):
        y = y * 0.99 + pt.sin(y) * 0.01
    return y
x = pt.randn([8, 8], seed=2)
pt.autodiff.check_gradient(f, [x])`;
const SLOW_CHECK = slowCheck(160);
// Ten times longer: still running when the test stops it.
const SLOWER_CHECK = slowCheck(1600);

/** Starts recording, in the page, every (value, max) the cell's progress bar shows while it runs. */
function recordProgress(page) {
  return page.evaluate(() => {
    globalThis.progressSeen = [];
    const observer = new MutationObserver(() => {
      const bar = document.querySelector('.cell .cell-progress:not([hidden]) progress');
      const state = document.querySelector('.cell')?.dataset.state;
      if (bar && state === 'running') globalThis.progressSeen.push({ value: bar.value, max: bar.max, label: bar.closest('.cell-progress').querySelector('.cell-progress-label').textContent });
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

test('a long gradient check shows a rising progress bar in its cell before its result', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light' });
  try {
    await setCells(page, [['code', SLOW_CHECK]]);
    await recordProgress(page);
    await page.click('#run-all');
    const bar = page.locator('.cell-progress progress');
    await bar.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await page.locator('.cell').first().getAttribute('data-state'), 'running');
    assert.equal(await page.locator('.cell-progress-label').textContent(), 'Gradient check');
    // The bar is named by its label for assistive technology.
    assert.equal(await bar.evaluate((node) => document.getElementById(node.getAttribute('aria-labelledby')).textContent), 'Gradient check');
    await screenshot(page, 'progress-light');
    await page.waitForSelector('.cell[data-state="done"]', { timeout: 120_000 });
    assert.equal(await page.locator('.cell-progress').isHidden(), true);
    assert.equal(await page.locator('.output-gradcheck .badge').textContent(), 'PASS');

    const seen = await page.evaluate(() => globalThis.progressSeen);
    // 64 backward passes + 64 perturbed elements = 128 units, reported as they happen.
    assert.ok(seen.length >= 3, JSON.stringify(seen));
    assert.ok(seen.every((entry) => entry.max === 128 && entry.label === 'Gradient check'), JSON.stringify(seen.slice(0, 3)));
    const values = [...new Set(seen.map((entry) => entry.value))];
    assert.ok(values.length >= 3, `distinct values ${values}`);
    for (let index = 1; index < values.length; index += 1) assert.ok(values[index] > values[index - 1], `${values}`);
    assert.ok(values[0] < 128, `${values}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the progress bar is translated, and its Stop button stops the engine', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark' });
  try {
    await page.selectOption('#language', 'zh-CN');
    await setCells(page, [['code', SLOWER_CHECK]]);
    await page.click('#run-all');
    const box = page.locator('.cell-progress');
    await box.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await box.locator('.cell-progress-label').textContent(), '梯度检查');
    assert.match(await box.locator('.cell-progress-count').textContent(), /^\d+ \/ 128（\d+%）$/);
    await screenshot(page, 'progress-zh-CN-dark');
    const stopped = Date.now();
    await box.locator('.cell-progress-stop').click();
    // Stopped cells are marked stale (the session that ran them is gone) and say they stopped.
    await page.waitForSelector('.cell[data-state="stale"]', { timeout: 10_000 });
    assert.ok(Date.now() - stopped < 5_000);
    assert.equal(await box.isHidden(), true);
    assert.equal(await page.locator('.cell .output-note').first().textContent(), '在完成前被停止。');
    await page.waitForSelector('#engine[data-state="ready"]', { timeout: 30_000 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** A stand-in worker that answers each run with three progress messages, then the result. */
class ProgressWorker extends EventTarget {
  constructor() {
    super();
    queueMicrotask(() => this.post({ type: 'ready', version: 'test', features: { runCell: true } }));
  }

  post(data) {
    this.dispatchEvent(Object.assign(new Event('message'), { data }));
  }

  postMessage(request) {
    queueMicrotask(() => {
      for (const done of [0, 5, 10]) this.post({ type: 'progress', id: request.id, label: 'sweep', done, total: 10 });
      // A message for another request (or none) is dropped, never mistaken for this one.
      this.post({ type: 'progress', id: request.id + 1000, label: 'sweep', done: 7, total: 10 });
      this.post({ type: 'result', id: request.id, result: { execution_count: 1, status: 'ok', stdout: '', displays: [], diagnostics: [], duration_ms: 1, kernel_runs: [] } });
    });
  }

  terminate() {}
}

test('progress messages reach the run that asked, as runner events for its cell, before its result', async () => {
  const engine = new Engine(() => new ProgressWorker());
  engine.start();
  const model = new NotebookModel();
  model.load([{ kind: 'code', source: 'pt.npu.sweep(...)' }]);
  const runner = new Runner(model, engine);
  const id = model.cells[0].id;
  const events = [];
  runner.addEventListener('progress', (event) => events.push({ ...event.detail, state: model.get(id).run.state }));
  const finished = new Promise((resolve) => runner.addEventListener('finished', resolve, { once: true }));
  runner.enqueue([id]);
  await finished;
  assert.deepEqual(events, [0, 5, 10].map((done) => ({ id, label: 'sweep', done, total: 10, message: null, state: 'running' })));
  assert.equal(model.get(id).run.state, 'done');
});
