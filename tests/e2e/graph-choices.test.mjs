// A generated backward kernel's save-or-recompute decisions in the graph view (issue 18): the
// backward node of a `@pt.kernel` without a registered gradient lists, per forward value its
// backward reads, whether the forward saved it or the backward recomputes it, and the bytes saved.
// Swish on [32, 64] f32 reads one value, s = σ(1.5·x) (32·64·4 = 8192 B): saved under
// `policy("save")`, recomputed under `policy("recompute")` (0 B saved) — figures worked out by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, setCells, swishGraphCell, useSite } from './notebook-helpers.mjs';

useSite();

const cell = swishGraphCell;

/** Runs the cells and returns the drawn text of swish's backward node and of its details. */
async function backwardOf(page, index) {
  const view = page.locator('.cell').nth(index).locator('.output-graph');
  await view.locator('svg.graph-svg').waitFor({ timeout: 60_000 });
  const node = view.locator('.graph-node[data-kind="backward"]', { hasText: 'swish_backward' });
  const drawn = await node.textContent();
  await node.click();
  const panel = view.locator('.graph-details');
  await panel.waitFor();
  return { drawn, details: await panel.locator('.choices li').allTextContents(), heading: await panel.locator('.choices h5').textContent() };
}

for (const [locale, scheme] of [['en-US', 'light'], ['en-US', 'dark'], ['zh-CN', 'light'], ['zh-CN', 'dark']]) {
  test(`the backward node shows each save-or-recompute choice and the saved bytes (${locale}, ${scheme})`, async () => {
    const { page, problems, context } = await open({ locale, colorScheme: scheme, viewport: { width: 1200, height: 1400 } });
    try {
      await setCells(page, [['code', cell('save')], ['code', cell('recompute')]]);
      await page.click('#run-all');
      await page.waitForSelector('.cell:nth-child(2)[data-state="done"]', { timeout: 180_000 });
      const saved = await backwardOf(page, 0);
      const recomputed = await backwardOf(page, 1);
      if (locale === 'en-US') {
        assert.match(saved.drawn, /saved: sigmoid \[32, 64\] f32/);
        assert.match(saved.drawn, /saved 8192 B/);
        assert.equal(saved.heading, 'Saved or recomputed (generated backward)');
        assert.deepEqual(saved.details, ['saved: sigmoid [32, 64] f32 (line 5), 8192 B', 'saved 8192 B']);
        assert.match(recomputed.drawn, /recomputed: sigmoid \[32, 64\] f32/);
        assert.deepEqual(recomputed.details, ['recomputed: sigmoid [32, 64] f32 (line 5), 8192 B', 'saved 0 B']);
      } else {
        assert.match(saved.drawn, /保存：sigmoid \[32, 64\] f32/);
        assert.match(saved.drawn, /已保存 8192 字节/);
        assert.equal(saved.heading, '保存或重算（自动生成的反向）');
        assert.deepEqual(saved.details, ['保存：sigmoid [32, 64] f32（第 5 行），8192 字节', '已保存 8192 字节']);
        assert.match(recomputed.drawn, /重算：sigmoid \[32, 64\] f32/);
        assert.deepEqual(recomputed.details, ['重算：sigmoid [32, 64] f32（第 5 行），8192 字节', '已保存 0 字节']);
      }
      await page.locator('.cell').first().locator('.output-graph').scrollIntoViewIfNeeded();
      await screenshot(page, `graph-choices-${locale}-${scheme}`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
