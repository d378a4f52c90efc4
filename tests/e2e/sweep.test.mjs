// The `sweep` display in the notebook: a real pypto.npu.sweep run in the page's engine, checked
// against the rows printed by a second cell (an independent path through the interpreter's
// attributes): one bar per fitting tile shape with heights proportional to the printed cycles, the
// best bar on the fewest cycles, and the refused shape shown with its error in the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

// The kernel of examples/05_tile_sweep.py: on the teaching chip (16 KiB UB) a 32×64 f32 tile is
// 8 KiB: two live tiles double-buffered need 32 KiB, one copy 16 KiB, so it runs single-buffered;
// a 64×64 tile needs 32 KiB even as one copy: refused, so that row carries an error.
const SWEEP_CELL = `import pypto as pt
pt.npu.use('teaching')
@pt.kernel
def gated(x, y):
    pt.set_vec_tile_shapes(8, 64)
    return pt.silu(x) * y
x = pt.randn([64, 256], seed=5)
y = pt.randn([64, 256], seed=6)
sw = pt.npu.sweep(gated, (x, y), vec_tiles=[[2, 64], [4, 64], [8, 64], [16, 64], [32, 64], [64, 64]])
sw`;

const PRINT_CELL = `for r in sw.rows: print(r['vec_tile'], r['cycles'], r['error'] is None)`;

/** The printed rows: [{ shape: '2×64', cycles: number | null, fits: boolean }]. */
function parsePrinted(text) {
  return text.trim().split('\n').map((line) => {
    const match = line.trim().match(/^\[([\d, ]+)\] (\S+) (True|False)$/);
    assert.ok(match, `printed row ${JSON.stringify(line)}`);
    const fits = match[3] === 'True';
    return { shape: match[1].split(',').map((dim) => dim.trim()).join('×'), cycles: fits ? Number(match[2]) : null, fits };
  });
}

async function runSweep(page) {
  await setCells(page, [['code', SWEEP_CELL], ['code', PRINT_CELL]]);
  await page.click('#run-all');
  await page.waitForSelector('.cell:nth-child(2)[data-state="done"]', { timeout: 120_000 });
  const view = page.locator('.cell').first().locator('.output-sweep');
  await view.waitFor();
  return view;
}

test('pypto.npu.sweep renders a bar chart by bound, the best bar and the error row, in light and dark', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1100, height: 1100 } });
  try {
    const view = await runSweep(page);
    const printed = parsePrinted(await page.locator('.cell').nth(1).locator('.output-stdout').textContent());
    assert.equal(printed.length, 6);
    const fitting = printed.filter((row) => row.fits);
    assert.equal(fitting.length, 5, 'the example refuses exactly 64×64 on the teaching chip');
    for (const row of fitting) assert.ok(Number.isInteger(row.cycles) && row.cycles > 0, `cycles ${row.cycles}`);

    // One bar per fitting row, in row order, each carrying the printed cycles.
    const bars = await view.locator('rect.sweep-bar').evaluateAll((rects) => rects.map((rect) => ({
      shape: rect.parentNode.dataset.shape,
      cycles: Number(rect.dataset.cycles),
      height: Number(rect.getAttribute('height')),
      best: rect.classList.contains('best'),
      fill: getComputedStyle(rect).fill,
      bound: rect.dataset.bound,
    })));
    assert.deepEqual(bars.map((bar) => bar.shape), fitting.map((row) => row.shape));
    assert.deepEqual(bars.map((bar) => bar.cycles), fitting.map((row) => row.cycles));
    // Height ∝ cycles: every pair's height ratio equals its cycle ratio (to 1e-6), so the order agrees too.
    for (const a of bars) {
      for (const b of bars) assert.ok(Math.abs(a.height / b.height - a.cycles / b.cycles) < 1e-6, `${a.shape} vs ${b.shape}`);
    }
    const fewest = Math.min(...fitting.map((row) => row.cycles));
    const best = bars.filter((bar) => bar.best);
    assert.equal(best.length, 1);
    assert.equal(best[0].cycles, fewest);
    assert.equal(best[0].height, Math.min(...bars.map((bar) => bar.height)));
    // Each bar is painted, and bars of one bound share a colour listed in the legend.
    for (const bar of bars) assert.notEqual(bar.fill, 'none');
    const legendBounds = await view.locator('.sweep-legend-item[data-bound]').evaluateAll((items) => items.map((item) => item.dataset.bound));
    assert.deepEqual([...new Set(bars.map((bar) => bar.bound))].sort(), legendBounds);
    for (const a of bars) for (const b of bars) if (a.bound === b.bound) assert.equal(a.fill, b.fill);

    // The refused shape: a hatched empty slot with a short label, and its full error in the table.
    const errorSlot = view.locator('g.sweep-slot.error');
    assert.equal(await errorSlot.count(), 1);
    assert.equal(await errorSlot.getAttribute('data-shape'), printed.find((row) => !row.fits).shape);
    assert.ok((await errorSlot.locator('.sweep-error-label').textContent()).length > 0);
    assert.equal(await view.locator('g.sweep-slot > title').count(), printed.length);
    assert.match(await view.locator('rect.sweep-bar.best + text + title').textContent(), /cycles .* µs\n.*-bound · UB peak \d+ B\nbest/s);

    // The CellResult the page holds is where the full error comes from; the table shows it whole.
    const display = await page.evaluate(() => globalThis.tilelab.model.cells[0].run.result.displays.find((item) => item.kind === 'sweep'));
    const errorRow = display.rows.find((row) => row.error !== null);
    assert.match(errorRow.error, /UB/);
    await view.locator('.sweep-table summary').click();
    assert.equal(await view.locator('.sweep-table tr.error td[data-field="error"]').textContent(), errorRow.error);
    assert.equal(await view.locator('.sweep-table tr').count(), 1 + printed.length);
    const bestCells = await view.locator('.sweep-table tr.best td[data-field="cycles"]').allTextContents();
    assert.deepEqual(bestCells, [String(fewest)]);
    assert.match(await view.locator('.output-caption').textContent(), /^Tile sweep of gated on teaching: best vec tile \d+×64 \(\d+ cycles\)$/);

    await view.scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-light');
    await page.click('#theme'); // system → light
    await page.click('#theme'); // light → dark
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await screenshot(page, 'sweep-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the sweep display is translated into 简体中文', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark', viewport: { width: 1100, height: 1100 } });
  try {
    await page.selectOption('#language', 'zh-CN');
    const view = await runSweep(page);
    assert.match(await view.locator('.output-caption').textContent(), /^gated 在 teaching 上的分块扫描：最佳向量分块 \d+×64（\d+ 个周期）$/);
    assert.equal(await view.locator('.sweep-table summary').textContent(), '以表格形式查看扫描结果');
    assert.equal(await view.locator('.sweep-axis-title').textContent(), '周期');
    await view.locator('.sweep-table summary').click();
    await view.scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-zh-CN-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
