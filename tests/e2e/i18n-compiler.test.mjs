// Chinese all the way, the compiler's tail: why a kernel cannot run on the NPU yet (a strided read,
// loop iterations that read what another writes, a reshape of a padded tile) arrives as a typed
// reason inside the CPU-fallback warning, a custom chip that is not JSON as a located problem, a
// backward policy it does not know as a list of choices. In the 简体中文 UI each reads Chinese with
// no English sentence left; in English as the CLI prints it. Screenshots in light/dark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { englishSentences, open, runEach, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const CELLS = [
  // 0: setup.
  'import pypto as pt\nx = pt.randn([8, 64], seed=1)\nout = pt.zeros([8, 64])',
  // 1–3: kernels the compiler refuses, each for its own reason.
  '@pt.kernel\ndef strided(a):\n    pt.set_vec_tile_shapes(8, 64)\n    y = pt.exp(a)\n    return y[0:8:2, :]\nr = strided(x)',
  '@pt.frontend.jit\ndef overlap(a, out):\n    pt.set_vec_tile_shapes(4, 64)\n    for i in pt.loop(0, 2):\n        if i == 0:\n            out[0:4, :] = pt.view(a, [4, 64], [0, 0])\n        else:\n            out[4:8, :] = pt.view(out, [4, 64], [0, 0]) + 1.0\noverlap(x, out)',
  '@pt.kernel\ndef ragged(a):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.view(a, [8, 64], [0, 0], valid_shape=[8, 40])\n    return pt.reshape(t, [4, 128])\nr = ragged(x)',
  // 4: a custom chip with a stray comma; 5: a backward policy that does not exist.
  'pt.npu.use(\'{"name": "mine",}\')',
  "pt.autodiff.policy('fast')",
];

test('in 简体中文 the reasons a kernel cannot run on the NPU are Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const texts = await runEach(page);
    const prose = (text) => text.replace(/\[[a-z]+\/[a-z-]+\]/g, '');
    texts.forEach((text, index) => assert.deepEqual(englishSentences(prose(text)), [], `cell ${index} shows English:\n${text}`));
    const [, strided, overlap, ragged, preset, policy] = texts;
    assert.match(strided, /核函数 “strided” 在 CPU 参考路径上运行：暂不能在 NPU 上运行：带步长的索引（第 5 行）/, strided);
    assert.match(overlap, /暂不能在 NPU 上运行：第 1 次迭代读取了 `?out`? 中第 0 次迭代写入的区域/, overlap);
    assert.match(ragged, /暂不能在 NPU 上运行：把带填充的 \[8, 64\] 分块 `?reshape`? 为 \[4, 128\]（第 5 行）/, ragged);
    assert.match(preset, /不是 JSON：第 1 行第 17 列右括号前多了一个 `?,`?/, preset);
    assert.match(policy, /pypto\.autodiff\.policy/, policy);
    assert.doesNotMatch(policy, /unknown policy/, policy);
    await page.locator('.cell').nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-compiler-zh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.cell').nth(3).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-compiler-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in English the reasons read as the CLI prints them', async () => {
  const { page, problems, context } = await open({ locale: 'en-US', colorScheme: 'dark' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const [, strided, overlap, ragged, preset] = await runEach(page);
    assert.match(strided, /kernel 'strided' ran on the CPU reference path: cannot run on the NPU yet: indexing with a step at line 5/);
    assert.match(overlap, /iteration 1 reads a region of `?out`? that iteration 0 writes/);
    assert.match(ragged, /`?reshape`? of a ragged \[8, 64\] tile to \[4, 128\] at line 5/);
    assert.match(preset, /not JSON: a `?,`? before a closing bracket at line 1, column 17/);
    await screenshot(page, 'i18n-compiler-en-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
