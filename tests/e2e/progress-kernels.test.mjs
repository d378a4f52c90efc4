// Progress of a cell that calls kernels: each call on the simulated NPU reports its stages
// (computing the values, compiling, simulating), and the running cell's bar says which call of
// which kernel is at which stage, in the UI language; a gradient check's own count is not replaced
// by the kernel calls it makes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

// Three calls of an element-wise kernel over 2048×1024 f32 (2048 vec tiles each) on the 910B2.
const THREE_CALLS = `import pypto as pt
@pt.kernel
def scaled(x):
    pt.set_vec_tile_shapes(32, 64)
    return pt.exp(x) * 0.5
x = pt.randn([2048, 1024], seed=4)
a = scaled(x)
b = scaled(a[:1984])
c = scaled(b[:1920])`;

/** Records every label and count the running cell's progress bar shows. */
function recordProgress(page) {
  return page.evaluate(() => {
    globalThis.progressSeen = [];
    const observer = new MutationObserver(() => {
      const box = document.querySelector('.cell .cell-progress:not([hidden])');
      if (!box || document.querySelector('.cell')?.dataset.state !== 'running') return;
      const entry = { label: box.querySelector('.cell-progress-label').textContent, value: box.querySelector('progress').value, max: box.querySelector('progress').max };
      const last = globalThis.progressSeen.at(-1);
      if (!last || last.label !== entry.label || last.value !== entry.value) globalThis.progressSeen.push(entry);
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

/** Holds the engine's results until `releaseResults()`: the cell keeps running for a screenshot. */
function holdResults(page) {
  return page.evaluate(() => {
    const engine = globalThis.tilelab.engine;
    const receive = engine.receive.bind(engine);
    const held = [];
    engine.receive = (message) => (message.type === 'result' ? held.push(message) : receive(message));
    globalThis.releaseResults = () => {
      engine.receive = receive;
      for (const message of held) receive(message);
    };
  });
}

async function runAndRecord(page) {
  await setCells(page, [['code', THREE_CALLS]]);
  await recordProgress(page);
  // The three calls can finish before a poll sees the bar: the result waits for the screenshot.
  await holdResults(page);
  await page.click('#run-all');
  await page.waitForFunction(() => /Kernel call|核函数调用/.test(document.querySelector('.cell-progress:not([hidden]) .cell-progress-label')?.textContent ?? ''), null, { timeout: 60_000 });
  await page.locator('.cell-progress progress').waitFor({ state: 'visible' });
  await screenshot(page, `progress-kernels-${await page.evaluate(() => document.documentElement.lang)}`);
  await page.evaluate(() => globalThis.releaseResults());
  await page.waitForSelector('.cell[data-state="done"]', { timeout: 120_000 });
  return page.evaluate(() => globalThis.progressSeen);
}

test('a cell calling kernels shows which call is compiling, simulating or computing', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light' });
  try {
    const seen = await runAndRecord(page);
    const labels = seen.map((entry) => entry.label);
    for (const call of [1, 2, 3]) {
      assert.ok(labels.includes(`Kernel call ${call} (scaled): simulating`), `call ${call} simulating: ${JSON.stringify(seen)}`);
    }
    const simulating = seen.find((entry) => entry.label.endsWith('simulating'));
    assert.deepEqual([simulating.value, simulating.max], [2, 3], 'simulating: two of three stages done');
    // The calls come in order: no label of call 1 after one of call 2.
    const calls = labels.map((label) => Number(/Kernel call (\d+)/.exec(label)?.[1] ?? 0)).filter(Boolean);
    assert.deepEqual(calls, [...calls].sort((a, b) => a - b));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the kernel progress is translated in 简体中文', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'dark' });
  try {
    const labels = (await runAndRecord(page)).map((entry) => entry.label);
    assert.ok(labels.includes('第 2 次核函数调用（scaled）：模拟中'), labels.join('\n'));
    assert.ok(labels.every((label) => !/[a-z]{3,} [a-z]{3,}/.test(label.replace('scaled', ''))), labels.join('\n'));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("a gradient check's own count is not replaced by the kernel calls it makes", async () => {
  const { page, problems, context } = await open();
  try {
    await setCells(page, [['code', `import pypto as pt
@pt.kernel
def scaled(x):
    pt.set_vec_tile_shapes(8, 64)
    return x * 2.0
pt.autodiff.check_gradient(scaled, [pt.randn([32, 64], seed=2)])`]]);
    await recordProgress(page);
    await page.click('#run-all');
    await page.waitForSelector('.cell[data-state="done"]', { timeout: 120_000 });
    const labels = await page.evaluate(() => globalThis.progressSeen.map((entry) => entry.label));
    assert.ok(labels.includes('Gradient check'), labels.join('\n'));
    const first = labels.indexOf('Gradient check');
    assert.deepEqual(labels.slice(first).filter((label) => label !== 'Gradient check'), [], 'no kernel label while the check counts');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the SwiGLU example names each kernel call while it runs', async () => {
  const { page, problems, context } = await open();
  try {
    await page.click('#examples');
    await page.locator('#gallery-dialog .gallery-item[data-example="10_swiglu_backward.py"]').click();
    await page.waitForFunction(() => globalThis.tilelab.model.cells.some((cell) => cell.kind === 'code'));
    // Every label any cell's bar shows while the notebook runs.
    await page.evaluate(() => {
      globalThis.labelsSeen = new Set();
      new MutationObserver(() => {
        for (const label of document.querySelectorAll('.cell-progress:not([hidden]) .cell-progress-label')) globalThis.labelsSeen.add(label.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const started = Date.now();
    await page.click('#run-all');
    await page.waitForFunction(() => {
      const states = [...document.querySelectorAll('.cell[data-kind="code"]')].map((node) => node.dataset.state);
      return states.every((state) => state === 'done');
    }, null, { timeout: 300_000 });
    const seconds = (Date.now() - started) / 1000;
    const labels = await page.evaluate(() => [...globalThis.labelsSeen]);
    for (const kernel of ['swiglu_backward_b', 'swiglu_backward_w', 'swiglu_backward_x']) {
      assert.ok(labels.some((label) => label.includes(`(${kernel}): simulating`)), `${kernel} in ${labels.join(' | ')}`);
    }
    console.log(`SwiGLU example: ${seconds.toFixed(1)} s, ${labels.length} distinct progress labels`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
