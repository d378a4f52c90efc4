// A generated backward kernel's tile ops in the graph view (issue 18): the details panel of the
// backward node of a `@pt.kernel` without a registered gradient has a disclosure button, collapsed
// at first, that lists the backward capture's ops in order. Swish, y = x·σ(1.5·x) (line 5), has 7
// (derived by hand from the rule table, as tests/autograd/generated_backward.rs explains): x's part
// g·s, s's gradient g·x, 1 − s, s·(1 − s), their product with s's gradient, that times 1.5, and the
// add that writes x's gradient; the first, third and fourth read s, saved under `policy("save")`,
// recomputed under `policy("recompute")`. Every result is [32, 64] f32.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, screenshot } from './harness.mjs';
import { open, setCells, swishGraphCell, useSite } from './notebook-helpers.mjs';

useSite();

const cell = swishGraphCell;

const OPS = ['mul', 'mul', 'sub', 'mul', 'mul', 'mul', 'add'];
const READS_S = [true, false, true, true, false, false, false];

/** The expected list, per language and policy. */
function expected(locale, policy) {
  const english = locale === 'en-US';
  const reads = english ? `reads a ${policy === 'save' ? 'saved' : 'recomputed'} value` : (policy === 'save' ? '读取已保存的值' : '读取重算的值');
  const writes = english ? 'writes the gradient of x' : '写出 x 的梯度';
  return OPS.map((op, index) => {
    const text = english ? `${op} [32, 64] f32 (line 5)` : `${op} [32, 64] f32（第 5 行）`;
    const marks = [READS_S[index] ? reads : null, index === OPS.length - 1 ? writes : null].filter(Boolean);
    if (marks.length === 0) return text;
    return english ? `${text} — ${marks.join(', ')}` : `${text}——${marks.join('，')}`;
  });
}

/** axe's serious or critical problems inside the graph views. */
async function axeProblems(page) {
  return page.evaluate(async () => {
    const report = await globalThis.axe.run(document.querySelector('.output-graph'));
    if (report.passes.length === 0) return ['axe checked nothing'];
    return report.violations.filter((item) => ['serious', 'critical'].includes(item.impact)).map((item) => `${item.id}: ${item.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(' | ')}`);
  });
}

for (const [locale, scheme] of [['en-US', 'light'], ['en-US', 'dark'], ['zh-CN', 'light'], ['zh-CN', 'dark']]) {
  test(`the backward node expands into its tile ops (${locale}, ${scheme})`, async () => {
    const { page, problems, context } = await open({ locale, colorScheme: scheme, viewport: { width: 1200, height: 1400 } });
    try {
      await setCells(page, [['code', cell('save')], ['code', cell('recompute')]]);
      await page.click('#run-all');
      await page.waitForSelector('.cell:nth-child(2)[data-state="done"]', { timeout: 180_000 });
      await page.evaluate(readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
      for (const [index, policy] of [[0, 'save'], [1, 'recompute']]) {
        const view = page.locator('.cell').nth(index).locator('.output-graph');
        await view.locator('svg.graph-svg').waitFor({ timeout: 60_000 });
        const node = view.locator('.graph-node[data-kind="backward"]', { hasText: 'swish_backward' });
        // The drawn node says how many tile ops it expands into.
        assert.match(await node.textContent(), locale === 'en-US' ? /7 tile ops/ : /7 个 tile 操作/);
        await node.click();
        const toggle = view.locator('.graph-details .graph-tile-ops-toggle');
        const list = view.locator('.graph-details .graph-tile-ops');
        assert.equal(await toggle.textContent(), locale === 'en-US' ? 'Tile ops of the backward kernel (7)' : '反向核函数的 tile 操作（7 个）');
        // Collapsed at first; the keyboard opens it (Enter) and closes it (Space).
        assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
        assert.equal(await list.isVisible(), false);
        assert.equal(await toggle.getAttribute('aria-controls'), await list.getAttribute('id'));
        await toggle.focus();
        await page.keyboard.press('Enter');
        assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
        assert.equal(await list.isVisible(), true);
        assert.deepEqual(await list.locator('li').allTextContents(), expected(locale, policy));
        const marked = await list.locator('li').evaluateAll((items) => items.map((item) => item.dataset.reads ?? ''));
        assert.deepEqual(marked, READS_S.map((reads) => (reads ? (policy === 'save' ? 'saved' : 'recomputed') : '')));
        assert.deepEqual(await axeProblems(page), []);
        if (index === 0) {
          await view.locator('.graph-details').scrollIntoViewIfNeeded();
          await screenshot(page, `graph-backward-ops-${locale}-${scheme}`);
        }
        await page.keyboard.press('Space');
        assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
        assert.equal(await list.isVisible(), false);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
