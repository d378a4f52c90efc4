// The tensor and gradient-check heatmaps, on real cells run in the page's engine. Expected values
// come from the cells' own arithmetic (arange, a known wrong derivative), written out here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { screenshot } from './harness.mjs';
import { open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

/** Runs the cells and waits until the last one finished. */
async function runAll(page, sources) {
  await setCells(page, sources.map((source) => ['code', source]));
  await page.click('#run-all');
  await page.waitForSelector(`.cell:nth-child(${sources.length})[data-state="done"]`, { timeout: 120_000 });
}

/** The rendered RGB of each heatmap cell of `figure` (the CSS fill drawn on a canvas). */
function cellColours(figure) {
  return figure.locator('rect.heatmap-cell').evaluateAll((rects) => {
    const canvas = document.createElement('canvas');
    canvas.width = 1;
    canvas.height = 1;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    return rects.map((rect) => {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = getComputedStyle(rect).fill;
      context.fillRect(0, 0, 1, 1);
      const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
      return { row: Number(rect.dataset.row), column: Number(rect.dataset.column), r, g, b, title: rect.querySelector('title').textContent };
    });
  });
}

const TENSOR_CELLS = [
  'import pypto as pt\npt.arange(24).reshape([4, 6]) - 10',
  'pt.arange(5)',
  'pt.arange(24).reshape([2, 3, 4])',
  'pt.arange(10000).reshape([100, 100])',
];

test('a tensor shows a heatmap beside its table: diverging colours, titled cells, legend, notes for slices and previews', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1200, height: 1600 } });
  try {
    await runAll(page, TENSOR_CELLS);
    const figure = (index) => page.locator('.cell').nth(index).locator('.tensor-heatmap');

    // 4 × 6 with value 6i + j − 10: every cell titled with its index and value.
    const colours = await cellColours(figure(0));
    assert.equal(colours.length, 24);
    for (const cell of colours) assert.equal(cell.title, `[${cell.row}, ${cell.column}] = ${6 * cell.row + cell.column - 10}`);
    // Diverging around 0: the most negative (−10) is blue, the most positive (13) red, and 0
    // (at [1, 4]) the neutral middle, lighter than both in the light theme.
    const at = (row, column) => colours.find((cell) => cell.row === row && cell.column === column);
    assert.ok(at(0, 0).b > at(0, 0).r + 60, JSON.stringify(at(0, 0)));
    assert.ok(at(3, 5).r > at(3, 5).b + 60, JSON.stringify(at(3, 5)));
    const lightness = (cell) => cell.r + cell.g + cell.b;
    assert.ok(lightness(at(1, 4)) > lightness(at(0, 0)) && lightness(at(1, 4)) > lightness(at(3, 5)));
    assert.equal(await figure(0).locator('.heatmap-legend-min').textContent(), 'min -10');
    assert.equal(await figure(0).locator('.heatmap-legend-max').textContent(), 'max 13');
    // The table is still there, beside it.
    assert.equal(await page.locator('.cell').nth(0).locator('.tensor-views > table td').count(), 24);

    // 1-D: one row of 5.
    assert.deepEqual(await figure(1).locator('rect.heatmap-cell').evaluateAll((rects) => rects.map((rect) => rect.querySelector('title').textContent)), [0, 1, 2, 3, 4].map((value) => `[${value}] = ${value}`));

    // 3-D: the last two dims (3 × 4) of the first slice, with a note; [0, 1, 2] = 1·4 + 2 = 6.
    assert.equal(await figure(2).locator('rect.heatmap-cell').count(), 12);
    assert.equal(await figure(2).locator('rect[data-row="1"][data-column="2"] > title').textContent(), '[0, 1, 2] = 6');
    assert.match(await figure(2).locator('.output-note').textContent(), /first slice \[0, :, :\]/);

    // 100 × 100: the engine sends the first 4096 values = 40 whole rows; 100 columns are averaged in
    // pairs to 50 (at most 64 per side): 40 × 50 cells, cell [0, 0] the mean of 0 and 1.
    assert.equal(await figure(3).locator('rect.heatmap-cell').count(), 40 * 50);
    assert.equal(await figure(3).locator('rect[data-row="0"][data-column="0"] > title').textContent(), '[0, 0] … mean 0.5');
    assert.equal(await figure(3).locator('rect[data-row="0"][data-column="49"] > title').textContent(), '[0, 98] … mean 98.5');
    // Values show 4 significant digits: the mean 3998.5 of the last block reads 3999.
    assert.equal(await figure(3).locator('rect[data-row="39"][data-column="49"] > title').textContent(), '[39, 98] … mean 3999');
    const notes = await figure(3).locator('.output-note').allTextContents();
    assert.ok(notes.includes('The engine sent the first 4096 of 10000 values; the heatmap shows those.'), notes.join(' | '));
    assert.ok(notes.includes('Downsampled to 40 × 50 cells, each the mean of a block.'), notes.join(' | '));

    await page.locator('.cell').nth(0).scrollIntoViewIfNeeded();
    await screenshot(page, 'views-tensor-light');
    await page.click('#theme');
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    const dark = await cellColours(figure(0));
    // In the dark theme the neutral middle is dark: darker than both ends.
    const darkAt = (row, column) => dark.find((cell) => cell.row === row && cell.column === column);
    assert.ok(lightness(darkAt(1, 4)) < lightness(darkAt(0, 0)) && lightness(darkAt(1, 4)) < lightness(darkAt(3, 5)));
    await screenshot(page, 'views-tensor-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// double(x) = 2x with a registered backward of 2 + x: analytic d/dxᵢ = 2 + xᵢ, numerical 2 (central
// differences of a linear function are exact), so |analytic − numerical| = |xᵢ| on the diagonal and
// 0 off it. f32 tolerances: atol 1e-5 · scale + rtol 1e-4 · |2|, scale = max(1, max|2 + xᵢ|) = 5,
// so element i's ratio is |xᵢ| / 2.5e-4 = 4000·|xᵢ|.
const X = [[0, 0.5, -1, 2], [-0.25, 1, 0, 3]];
const GRAD_CELLS = [
  `import pypto as pt
@pt.kernel
def double(x):
    return x * 2.0

@pt.register_gradient("double")
def double_backward(grad_output, saved, ctx):
    return grad_output * (2.0 + saved[0])

x = pt.as_tensor(${JSON.stringify(X)})
pt.autodiff.check_gradient(double, [x])`,
  'pt.autodiff.check_gradient(double, [x], fast=True)',
];

test('a gradient check shows the error of each element over its tolerance as a heatmap', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light', viewport: { width: 1100, height: 1400 } });
  try {
    await runAll(page, GRAD_CELLS);
    const view = page.locator('.cell').nth(0).locator('.output-gradcheck');
    assert.equal(await view.locator('.badge').textContent(), 'FAIL');
    const figure = view.locator('.gradcheck-heatmap');
    assert.equal(await figure.count(), 1);
    const colours = await cellColours(figure);
    assert.equal(colours.length, 8);
    for (const cell of colours) {
      const ratio = 4000 * Math.abs(X[cell.row][cell.column]);
      const title = `[${cell.row}, ${cell.column}]: error ${ratio.toExponential(2)} × allowed`;
      assert.equal(cell.title, title);
      // Passing elements (ratio ≤ 1, here exactly 0) are green, failing ones red.
      if (ratio <= 1) assert.ok(cell.g > cell.r, `${title} ${JSON.stringify(cell)}`);
      else assert.ok(cell.r > cell.g, `${title} ${JSON.stringify(cell)}`);
    }
    assert.equal(await figure.locator('.heatmap-legend-centre').textContent(), '1');
    assert.equal(await figure.locator('.heatmap-legend-max').textContent(), (12000).toExponential(2));

    // Projection mode compares random projections: no map, a note instead.
    const projection = page.locator('.cell').nth(1).locator('.output-gradcheck');
    assert.equal(await projection.locator('.gradcheck-heatmap').count(), 0);
    assert.match(await projection.locator('.gradcheck-input .output-note').first().textContent(), /^Projection mode: \d+ random projections/);
    await view.scrollIntoViewIfNeeded();
    await screenshot(page, 'views-gradcheck-light');

    await page.click('#theme');
    await page.click('#theme');
    await screenshot(page, 'views-gradcheck-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the heatmaps are translated into 简体中文', async () => {
  const { page, problems, context } = await open({ colorScheme: 'dark', viewport: { width: 1100, height: 1400 } });
  try {
    await page.selectOption('#language', 'zh-CN');
    await runAll(page, [GRAD_CELLS[0], TENSOR_CELLS[3]]);
    const caption = await page.locator('.gradcheck-heatmap figcaption').textContent();
    assert.equal(caption, '输入 0 每个元素的误差：|解析值 − 数值| ÷ 允许误差（大于 1 即不通过）');
    assert.equal(await page.locator('.gradcheck-heatmap rect[data-row="0"][data-column="2"] > title').textContent(), `[0, 2]：误差为允许值的 ${(4000).toExponential(2)} 倍`);
    const notes = await page.locator('.cell').nth(1).locator('.tensor-heatmap .output-note').allTextContents();
    assert.ok(notes.includes('已降采样为 40 × 50 格，每格为一块的平均值。'), notes.join(' | '));
    assert.match(await page.locator('.tensor-heatmap .heatmap-legend-min').textContent(), /^最小 0$/);
    await screenshot(page, 'views-zh-CN-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
