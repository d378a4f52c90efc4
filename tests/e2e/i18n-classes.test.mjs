// Chinese all the way, the interpreter tail: the mistakes scripts make with classes (a dataclass's
// mutable default, a frozen field or a NamedTuple's field assigned, `super()` outside a method, a
// misspelt field, `isinstance` against a typing name), an f-string format code, a zero slice step
// and an option the simulator does not model come from the engine as message codes: in the 简体中文
// UI each error, warning and help is Chinese, with no English sentence left; in English they read
// as the CLI prints them. Screenshots in light/dark and both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot } from './harness.mjs';
import { englishSentences, open, runEach, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const SETUP = `import pypto as pt
from dataclasses import dataclass
from typing import NamedTuple, List

@dataclass
class Tiling:
    rows: int
    cols: int = 64

@dataclass(frozen=True)
class Shape:
    rows: int

class Tile(NamedTuple):
    m: int
    n: int

shape = Shape(8)
tile = Tile(8, 64)`;

const CELLS = [
  // 0: setup.
  SETUP,
  // 1–9: one mistake each.
  '@dataclass\nclass Config:\n    shape: list = []',
  'shape.rows = 16',
  'tile.m = 16',
  'super().__init__()',
  'Tiling(8, colz=32)',
  'isinstance([1], List)',
  "f'{tile.m:x}'",
  '[1, 2, 3][::0]',
  "@pt.frontend.jit(pass_options={'pg_upper_bound': 8})\ndef k(a, out):\n    pass",
];

test('in 简体中文 the class and format mistakes and their help are Chinese', async () => {
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const texts = await runEach(page);
    texts.forEach((text, index) => assert.deepEqual(englishSentences(text), [], `cell ${index} shows English:\n${text}`));
    const [, mutable, frozen, named, outside, misspelt, annotation, code, step, option] = texts;
    assert.match(mutable, /“Config” 的字段 “shape” 不能用可变的 list 作默认值：所有实例会共用同一个对象/, mutable);
    assert.match(mutable, /shape: list = field\(default_factory=list\)/, mutable);
    assert.match(frozen, /不能给字段 “rows” 赋值：“Shape” 是冻结的 dataclass/, frozen);
    assert.match(frozen, /dataclasses\.replace\(obj, rows=…\)/, frozen);
    assert.match(named, /不能设置 NamedTuple “Tile” 的属性 “m”/, named);
    assert.match(outside, /super\(\) 只能在类的方法中使用/, outside);
    assert.match(misspelt, /你是不是想写 `?cols`?？Tiling 的字段有：rows, cols/, misspelt);
    assert.match(annotation, /typing\.List 不能用于 isinstance\(\)/, annotation);
    assert.match(code, /int 类型的值没有格式码 “x”/, code);
    assert.match(step, /切片的步长不能为零/, step);
    assert.match(option, /模拟器没有模拟划分器的子图大小上限/, option);
    await page.locator('.cell').nth(1).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-classes-zh-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.cell').nth(5).scrollIntoViewIfNeeded();
    await screenshot(page, 'i18n-classes-zh-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in English the class and format mistakes read as the CLI prints them', async () => {
  const { page, problems, context } = await open({ locale: 'en-US', colorScheme: 'dark' });
  try {
    await setCells(page, CELLS.map((source) => ['code', source]));
    const [, mutable, frozen, , outside, misspelt, , code, , option] = await runEach(page);
    assert.match(mutable, /mutable default list for field 'shape' of 'Config' is not allowed: instances would share it/);
    assert.match(frozen, /cannot assign to field 'rows': 'Shape' is a frozen dataclass/);
    assert.match(outside, /super\(\) is only available inside a method of a class/);
    assert.match(misspelt, /did you mean `?cols`?\? Tiling has the fields rows, cols/);
    assert.match(code, /unknown format code 'x' for a value of type int/);
    assert.match(option, /the simulator does not model the partitioner's upper bound on subgraph size/);
    await screenshot(page, 'i18n-classes-en-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
