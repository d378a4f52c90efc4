// Chinese all the way, the tensor and NPU tail: the mistakes scripts make with tensors (a matmul of
// mismatched inner dims, a reshape of the wrong size, a view past the edge, a permutation that
// repeats a dim, a topk of more than the dim holds) and with the simulator (a 5-D vec tile the UB
// rule rejects, a custom chip with a field out of range) come from the engine as a code whose
// detail is a code: in the 简体中文 UI each reads Chinese with no English sentence left; in English
// they read as the CLI prints them. Screenshots in light/dark and both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { englishSentences, open, runEach, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const CELLS = [
  // 0: setup.
  'import pypto as pt\nx = pt.randn([8, 64], seed=1)',
  // 1–7: one mistake each.
  'pt.matmul(pt.ones([4, 3]), pt.ones([4, 3]))',
  'pt.reshape(x, [7, 64])',
  'pt.view(x, [8, 64], [4, 0])',
  'x.permute(0, 0)',
  'pt.topk(x, 100, -1)',
  '@pt.kernel\ndef scale(a):\n    pt.set_vec_tile_shapes(1, 1, 1, 2, 64)\n    return a * 2.0\nscale(pt.ones([1, 1, 1, 2, 64]))',
  "settings = pt.npu.config()\nsettings['ub_bytes'] = 0\npt.npu.use(settings)",
];

test('in 简体中文 the tensor and NPU mistakes are Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const texts = await runEach(page);
    // The diagnostic's id (`错误[runtime/view-out-of-bounds]`) is an identifier in every language.
    const prose = (text) => text.replace(/\[runtime\/[a-z-]+\]/g, '');
    texts.forEach((text, index) => assert.deepEqual(englishSentences(prose(text)), [], `cell ${index} shows English:\n${text}`));
    const [, matmul, reshape, view, permute, topk, tile, preset] = texts;
    assert.match(matmul, /matmul：形状 \[4, 3\] 与 \[4, 3\] 不匹配：内维 3 ≠ 4/, matmul);
    assert.match(reshape, /reshape：形状 \[8, 64\] 与 \[7, 64\] 不匹配（512 个元素不能重排成 448 个元素）/, reshape);
    assert.match(view, /view：偏移 4 处 8 个元素的分块越过了第 0 维的边界（大小为 8）/, view);
    assert.match(permute, /permute：\[0, 0\] 不是这 2 个维的一个排列/, permute);
    assert.match(topk, /topk：`k` 必须在 1\.\.=64 之间（第 1 维的大小），实际为 100/, topk);
    assert.match(tile, /UB 分块 “in0_f32_1x1x1x2x64_0” 未对齐：向量分块最多 4 维，这个有 5 维/, tile);
    assert.match(preset, /NPU 配置字段 “ub_bytes” 有误：必须是 1 到 1099511627776 之间的整数，实际为 0/, preset);
    await page.locator('.cell').nth(2).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-tensor-zh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.cell').nth(6).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-tensor-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in English the tensor and NPU mistakes read as the CLI prints them', async () => {
  const { page, problems, context } = await open({ locale: 'en-US', colorScheme: 'dark' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const [, matmul, reshape, view, , , tile, preset] = await runEach(page);
    assert.match(matmul, /matmul: shapes \[4, 3\] and \[4, 3\] do not match: inner dims 3 ≠ 4/);
    assert.match(reshape, /reshape: shapes \[8, 64\] and \[7, 64\] do not match: 512 elements cannot be viewed as 448/);
    assert.match(view, /view: the tile at offset 4 with 8 elements runs past the edge of dim 0 \(size 8\)/);
    assert.match(tile, /misaligned UB tile 'in0_f32_1x1x1x2x64_0': vector tiles have at most 4 dims, this one has 5/);
    assert.match(preset, /bad NPU configuration field 'ub_bytes': must be a whole number from 1 to 1099511627776, got 0/);
    await screenshot(page, 'i18n-tensor-en-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
