// Every notebook of examples/, opened from the gallery and run in the page's engine: no cell ends in
// an error, each example's assertions (the cells that fail loudly when a number drifts) pass in the
// browser, and the views each one is about are there. The values themselves are checked against the
// golden files natively (tests/gallery_examples_*.rs); this proves the same notebooks run in wasm.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './harness.mjs';
import { open, runExample, useSite } from './notebook-helpers.mjs';

useSite();

/** The displays an example must show (by output class), beyond running clean. */
const EXPECTED_VIEWS = {
  '02_swish_gradient.py': ['.output-gradcheck.passed', '.output-graph'],
  '03_wrong_gradient_caught.py': ['.output-gradcheck.failed'],
  '05_tile_sweep.py': ['.output-sweep', '.output-schedule'],
  '06_gelu_registered_gradient.py': ['.output-gradcheck.failed', '.output-gradcheck.passed'],
  '07_layernorm_register_gradient.py': ['.output-gradcheck.passed'],
  '10_swiglu_backward.py': ['.output-schedule'],
  '13_softmax_tile_sweep.py': ['.output-sweep', '.output-schedule'],
  '15_flash_attention.py': ['.output-gradcheck.passed', '.output-schedule'],
};

// The fixtures: a checkout without examples/ (or with an empty one) fails here rather than passing vacuously.
const EXAMPLES = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.py')).sort();
assert.ok(EXAMPLES.length >= 13, `examples/ holds ${EXAMPLES.length} notebooks, expected the 13 of the gallery`);


test('the gallery lists every notebook of examples/', async () => {
  const { page, problems, context } = await open();
  try {
    await page.click('#examples');
    await page.locator('#gallery-dialog .gallery-item').first().waitFor();
    const listed = await page.locator('#gallery-dialog .gallery-item').evaluateAll((items) => items.map((item) => item.dataset.example));
    assert.deepEqual([...listed].sort(), EXAMPLES);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

for (const name of EXAMPLES) {
  test(`gallery example ${name} runs clean in the browser`, { timeout: 360_000 }, async () => {
    const { page, problems, context } = await open();
    try {
      await runExample(page, name, 300_000);
      const failed = await page.locator('.cell[data-state="error"]').evaluateAll((nodes) => nodes.map((node) => node.textContent.slice(0, 400)));
      assert.deepEqual(failed, [], `${name}: cells ended in an error`);
      const states = await page.locator('.cell[data-kind="code"]').evaluateAll((nodes) => nodes.map((node) => node.dataset.state));
      assert.ok(states.length > 0 && states.every((state) => state === 'done'), `${name}: states ${states}`);
      for (const selector of EXPECTED_VIEWS[name] ?? []) {
        assert.ok((await page.locator(selector).count()) > 0, `${name}: no ${selector}`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
