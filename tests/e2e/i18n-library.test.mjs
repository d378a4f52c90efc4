// Chinese all the way, the library tail: the mistakes scripts make with pypto's, torch's and
// numpy's functions and the functional builtins (torch inside a kernel, a numpy misuse, a pypto.tensor
// given data, too many indices, a chained comparison of tensors, a schedule of a plain function,
// an unknown gelu mode, an assert_close of two shapes) come from the engine as message codes: in
// the 简体中文 UI each error and its help is Chinese, with no English sentence left; in English
// they read as the CLI prints them. Screenshots in light/dark and both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { englishSentences, open, runEach, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const CELLS = [
  // 0: setup.
  'import pypto as pt\nimport torch\nimport numpy as np\nx = pt.randn([8, 64], seed=1)',
  // 1–8: one mistake each.
  '@pt.kernel\ndef k(a):\n    pt.set_vec_tile_shapes(8, 64)\n    return torch.exp(a)\nk(x)',
  "np.abs('a')",
  'pt.tensor([1.0, 2.0])',
  'x[0, 0, 0]',
  '0 < x < 1',
  'def plain(a):\n    return a\npt.schedule(plain, x)',
  "pt.gelu(x, approximate='fast')",
  'torch.testing.assert_close(torch.ones(2), torch.ones(3))',
];

test('in 简体中文 the library mistakes and their help are Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const texts = await runEach(page);
    texts.forEach((text, index) => assert.deepEqual(englishSentences(text), [], `cell ${index} shows English:\n${text}`));
    const [, host, numpy, data, indices, chained, schedule, gelu, close] = texts;
    assert.match(host, /torch\.exp 在主机端运行：核函数中的运算应使用 pypto 的运算，由 NPU 执行/, host);
    assert.match(host, /提示：在核函数内请使用 pypto\.exp/, host);
    assert.match(numpy, /numpy\.abs\(\)：参数 “x” 必须是数组或数字，而不是 str/, numpy);
    assert.match(data, /按形状分配全零张量，但传入的是数据（嵌套列表或浮点数）/, data);
    assert.match(data, /提示：从数据创建张量请用 pypto\.as_tensor/, data);
    assert.match(indices, /索引过多：形状为 \[8, 64\] 的张量收到了 3 个索引/, indices);
    assert.match(chained, /张量的链式比较没有单一的真值/, chained);
    assert.match(schedule, /pypto\.schedule：应为核函数，而不是 function/, schedule);
    assert.match(schedule, /提示：请用 @pypto\.kernel 或 @pypto\.frontend\.jit 装饰该函数/, schedule);
    assert.match(gelu, /pypto\.gelu：approximate 必须是 \["none", "tanh"\] 之一，而不是 'fast'/, gelu);
    assert.match(close, /属性 “shape” 的值不一致：torch\.Size\(\[2\]\) != torch\.Size\(\[3\]\)/, close);
    await page.locator('.cell').nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-library-zh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.cell').nth(6).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-library-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in English the library mistakes read as the CLI prints them', async () => {
  const { page, problems, context } = await open({ locale: 'en-US', colorScheme: 'dark' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const [, host, numpy, , indices, , schedule, gelu] = await runEach(page);
    assert.match(host, /torch\.exp runs on the host: a kernel's ops are pypto's, which the NPU runs/);
    assert.match(host, /help: use pypto\.exp inside the kernel/);
    assert.match(numpy, /numpy\.abs\(\): 'x' must be an array or a number, not str/);
    assert.match(indices, /too many indices for a tensor of shape \[8, 64\]: 3 given/);
    assert.match(schedule, /pypto\.schedule: expected a kernel, not function/);
    assert.match(gelu, /pypto\.gelu: approximate must be one of \["none", "tanh"\], not 'fast'/);
    await screenshot(page, 'i18n-library-en-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
