// Chinese all the way: in the 简体中文 UI, a kernel's schedule notes, a sweep's refused shapes, a
// gradient check's lines and the common errors (name, attribute with "did you mean", type, shape,
// capacity, call arguments) come from the engine as message codes and show in Chinese, with no English sentence
// left in those outputs; the same cells in English show the engine's English. Screenshots in
// light/dark and both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { englishSentences, open, runEach, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const CELLS = [
  // 0: a kernel, its call and a sweep with a shape too large for UB and a misaligned one.
  `import pypto as pt
pt.npu.use('teaching')
@pt.kernel
def scaled(x):
    pt.set_vec_tile_shapes(8, 64)
    return x * 2.0
x = pt.randn([256, 64], seed=3)
y = scaled(x)
pt.npu.sweep(scaled, (x,), vec_tiles=[[8, 64], [256, 64], [8, 12]])`,
  // 1: the schedule with its notes.
  'pt.schedule(scaled, x)',
  // 2: a gradient check of the kernel (its calls run on the NPU).
  'pt.autodiff.check_gradient(scaled, [pt.randn([8, 64], seed=2)])',
  // 3–7: errors.
  'tanhh(x)',
  'pt.tanhh(x)',
  '1 + "a"',
  'x + pt.randn([3, 5])',
  `@pt.kernel
def too_big(x):
    pt.set_vec_tile_shapes(256, 64)
    return x * 2.0
too_big(x)`,
  // 8, 9: call errors.
  'pt.randn([2, 2], sead=1)',
  'def f(a, b):\n    return a\nf(1)',
  // 10: a vec tile whose last dim breaks the UB granule.
  '@pt.kernel\ndef odd(x):\n    pt.set_vec_tile_shapes(8, 12)\n    return x * 2.0\nodd(x)',
];

test('in 简体中文 the schedule notes, sweep labels, gradient-check lines and errors are Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const texts = await runEach(page);
    texts.forEach((text, index) => assert.deepEqual(englishSentences(text), [], `cell ${index} shows English:\n${text}`));
    const [sweep, schedule, check, name, attribute, type, shape, capacity, keyword, missing, aligned] = texts;
    assert.match(sweep, /UB 溢出/, sweep);
    assert.match(sweep, /未对齐：最后一维 12 不是 32 字节的倍数/, sweep);
    assert.match(schedule, /MTE2 是最忙的流水线（\d+% 时间忙碌）/, schedule);
    assert.match(check, /解析梯度：前向（及沿记录的运算求得的反向）在模拟 NPU teaching 上运行/, check);
    assert.match(name, /错误\[runtime\/name-error\]（名称错误）：名称 “tanhh” 未定义/, name);
    assert.match(attribute, /属性错误/, attribute);
    assert.match(attribute, /提示：你是想写 `pypto\.tanh` 吗？/, attribute);
    assert.match(type, /类型错误.*运算符 \+ 不支持的操作数类型：“int” 和 “str”/s, type);
    assert.match(shape, /张量错误.*形状 \[256, 64\] 与 \[3, 5\] 不能广播：结果的第 0 维两边大小为 256 和 3/s, shape);
    assert.match(capacity, /分块形状错误.*UB 溢出：这些分块需要 65536 字节/s, capacity);
    assert.match(capacity, /提示：UB 中能放下的最大分块是 \[64, 64\]/, capacity);
    assert.match(keyword, /pypto\.randn\(\) 不接受关键字参数 “sead”/, keyword);
    assert.match(keyword, /提示：pypto\.randn 的参数：shape, dtype, requires_grad, seed/, keyword);
    assert.match(missing, /f\(\) 缺少必需的参数 “b”/, missing);
    assert.match(aligned, /set_vec_tile_shapes：对 DT_FP32 而言，最后一维 12 没有按 32 字节对齐/, aligned);
    assert.match(aligned, /提示：每个 tile 行在 UB 中补齐到 8 个元素的倍数.*最接近的对齐大小是 8 或 16/, aligned);
    await page.locator('.cell').nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-messages-zh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'i18n-messages-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in English the same outputs read as the engine wrote them', async () => {
  const { page, problems, context } = await open({ locale: 'en-US', colorScheme: 'dark' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const [sweep, schedule, check, name, attribute, type, shape, capacity, keyword, missing, aligned] = await runEach(page);
    assert.match(sweep, /UB overflow: the tiles need 65536 bytes/);
    assert.match(schedule, /MTE2 is the busiest pipe \(\d+% busy\)/);
    assert.match(check, /analytic: forward \(and its backward through the recorded ops\) on the simulated NPU teaching/);
    assert.match(name, /error\[runtime\/name-error\]: name 'tanhh' is not defined/);
    assert.match(attribute, /help: did you mean `pypto\.tanh`\?/);
    assert.match(type, /unsupported operand types for \+: 'int' and 'str'/);
    assert.match(shape, /shapes \[256, 64\] and \[3, 5\] do not match/);
    assert.match(capacity, /help: the largest tile that fits in UB is \[64, 64\]/);
    assert.match(keyword, /pypto\.randn\(\) got an unexpected keyword argument 'sead'/);
    assert.match(missing, /f\(\) missing required argument 'b'/);
    assert.match(aligned, /help: each tile row is padded to a multiple of 8 elements in UB, .* the nearest aligned sizes are 8 or 16/);
    await screenshot(page, 'i18n-messages-en-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The long tail of ordinary mistakes: each cell fails (or warns) in its own way.
const MISTAKES = [
  // 0: setup.
  'import pypto as pt\nx = pt.randn([8, 64], seed=1)\ndef f(a, b):\n    return a',
  // 1–9: a syntax error, an index out of range, a wrong argument count and type, a failed assert,
  // an autograd error, an NPU error other than capacity, a CPU fallback and an unknown pass option.
  'for i in range(3)\n    pass',
  '[1, 2, 3][5]',
  'f(1, 2, 3)',
  "pt.randn([2, 2], seed='a')",
  "assert 1 == 2, '形状不同'",
  'pt.ones([2]).sum().backward()',
  "pt.npu.use('Ascend999')",
  '@pt.kernel\ndef running(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.scatter_(x * 1.0, 1, pt.zeros([8, 64], dtype=pt.DT_INT64), x)\ny = running(x)',
  "@pt.frontend.jit(pass_options={'vec_buffer_depth': 2})\ndef k(a, out):\n    pass",
];

test('in 简体中文 syntax, index, argument, assert, autograd and NPU errors and the kernel warnings are Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, MISTAKES.map((source) => ['code', source]));
    const texts = await runEach(page);
    texts.forEach((text, index) => assert.deepEqual(englishSentences(text), [], `cell ${index} shows English:\n${text}`));
    const [, syntax, index, count, type, failed, autograd, preset, fallback, option] = texts;
    assert.match(syntax, /for 语句头后面应有 “:”/, syntax);
    assert.match(index, /索引错误.*索引 5 超出范围：长度为 3/s, index);
    assert.match(count, /f\(\) 接受 2 个位置参数，但传入了 3 个/, count);
    assert.match(type, /pypto\.randn\(\)：参数 “seed” 必须是整数（int），而不是 str/, type);
    assert.match(failed, /断言失败：形状不同/, failed);
    assert.match(autograd, /backward：这个张量不需要梯度/, autograd);
    assert.match(autograd, /提示：这里没有 requires_grad 的张量：x；想对哪些输入求梯度/, autograd);
    assert.match(preset, /pypto\.npu\.use：未知的 NPU 预设 “Ascend999”/, preset);
    assert.match(fallback, /核函数 “running” 在 CPU 参考路径上运行：暂不能在 NPU 上运行：`scatter_`（第 4 行）/, fallback);
    assert.match(option, /未知的 pass_options 键 “vec_buffer_depth”（已忽略）/, option);
    await page.locator('.cell').nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-mistakes-zh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.cell').nth(6).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-mistakes-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the same mistakes in English read as the CLI prints them', async () => {
  const { page, problems, context } = await open({ locale: 'en-US' });
  try {
    await setCells(page, MISTAKES.map((source) => ['code', source]));
    const [, syntax, index, count, , , , , fallback] = await runEach(page);
    assert.match(syntax, /expected ':' after the for header/);
    assert.match(index, /index 5 is out of range for length 3/);
    assert.match(count, /f\(\) takes 2 positional arguments but 3 were given/);
    assert.match(fallback, /cannot run on the NPU yet: `scatter_` at line 4/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('gallery titles are in the UI language', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN' });
  try {
    await page.click('#examples');
    await page.locator('#gallery-dialog .gallery-item').first().waitFor();
    const titles = await page.locator('#gallery-dialog .gallery-item').allInnerTexts();
    assert.ok(titles.some((title) => title.includes('三个核函数实现的融合 SwiGLU 反向')), titles.join('\n'));
    assert.ok(titles.every((title) => englishSentences(title).length === 0), titles.join('\n'));
    await screenshot(page, 'i18n-gallery-zh');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The core tail: the parser's unsupported constructs and literals, the interpreter's types,
// limits and statements, each in its own cell.
const CORE_TAIL = [
  'd = {**a}',
  'from pypto import *',
  'def g(a=1, b):\n    return a',
  'y = 012',
  "-'a'",
  'for v in 3:\n    pass',
  'a, b = [1, 2, 3]',
  'import sqlite3',
  'with 3:\n    pass',
];

test('in 简体中文 the core tail (unsupported constructs, literals, types, limits, statements) is Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, CORE_TAIL.map((source) => ['code', source]));
    const texts = await runEach(page);
    texts.forEach((text, index) => assert.deepEqual(englishSentences(text), [], `cell ${index} shows English:\n${text}`));
    const [unpacking, star, order, zeros, unary, iterable, unpack, module, context_] = texts;
    assert.match(unpacking, /分块脚本不支持字典字面量中的 “\*\*” 解包/, unpacking);
    assert.match(star, /分块脚本不支持`from … import \*`/, star);
    assert.match(order, /没有默认值的形参 “b” 跟在了有默认值的形参之后/, order);
    assert.match(zeros, /十进制字面量 “012” 不能有前导零/, zeros);
    assert.match(unary, /一元运算符 - 不支持的操作数类型：“str”/, unary);
    assert.match(iterable, /“int” 对象不可迭代/, iterable);
    assert.match(unpack, /无法把 3 个值解包给 2 个目标/, unpack);
    assert.match(module, /分块脚本中没有模块 “sqlite3”/, module);
    assert.match(module, /以及主机模块 sys、os、time 和 argparse/, module);
    assert.match(context_, /int 不是上下文管理器/, context_);
    await screenshot(page, 'i18n-core-tail-zh-light');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
