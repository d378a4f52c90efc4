// Chinese all the way, swept over the gallery: every notebook of examples/ opened and run in the
// 简体中文 UI, and everything the page says about it — warnings, errors, schedule notes, gradient
// checks, sweep labels, the graph's node table and details panel — read for English sentences
// (four or more English words outside code in backticks and quoted names). What the notebook's
// own code prints (stdout) and text displays of values (a repr, the graph's DOT source) are the
// notebook's, not the page's, and are left out. A canary cell first proves the check fails on the
// English a lowering refusal and a not-derivable construct carried before they became codes. Three
// of pypto's own examples (from the snapshot of pypto the project measures itself against) are run
// the same way, each as one cell.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, screenshot } from './harness.mjs';
import { englishSentences, misalignedLineNumbers, open, runEach, runExample, setCells, useSite } from './notebook-helpers.mjs';

useSite();

const EXAMPLES = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.py')).sort();
assert.ok(EXAMPLES.length >= 13, `examples/ holds ${EXAMPLES.length} notebooks, expected the gallery's`);

/**
 * The page's own words in every output of the notebook: the graph tables shown and the first
 * node's details opened, every <details> unfolded, then each output's text with the notebook's
 * stdout and value texts taken out. Diagnostic codes (`[npu/cpu-fallback]`) are identifiers.
 */
async function pageWords(page) {
  for (const view of await page.locator('.output-graph').all()) {
    await view.locator('svg.graph-svg').waitFor({ timeout: 60_000 });
    // The details of a backward node (its choices and tile ops) say the most; an op's otherwise.
    const backward = view.locator('.graph-node[data-kind="backward"]');
    const node = (await backward.count()) > 0 ? backward.first() : view.locator('.graph-node[data-kind="op"]').first();
    if ((await node.count()) > 0) {
      await node.click();
      await view.locator('.graph-details').waitFor();
    }
    await view.locator('.graph-table-toggle').click();
  }
  await page.locator('.cell-output details').evaluateAll((nodes) => nodes.forEach((node) => { node.open = true; }));
  return page.locator('.cell-output').evaluateAll((outputs) => outputs.map((output) => {
    const copy = /** @type {HTMLElement} */ (output.cloneNode(true));
    copy.querySelectorAll('.output-stdout, pre.output-text').forEach((node) => node.remove());
    // innerText of a detached node is its textContent: keep block boundaries as line breaks.
    copy.querySelectorAll('p, li, tr, div, pre, summary, h3, h4, dt, dd').forEach((node) => node.append('\n'));
    return copy.textContent.replace(/\[[a-z]+\/[a-z-]+\]/g, '');
  }));
}

/** `englishSentences` of each text, with the index of the output it was found in. */
function findings(texts) {
  return texts.flatMap((text, index) => englishSentences(text).map((sentence) => `output ${index}: ${sentence}`));
}

test('the check finds the English a lowering refusal and a not-derivable construct used to carry', async () => {
  // What the page showed for these cells before their reasons were typed (from the engine's
  // English, kept in the table's en entries): the check must find it.
  const before = [
    "内核 “rows” 在 CPU 参考路径上运行：cannot run on the NPU yet: tile expansion: `var` across vec tiles (set a vec tile that holds the reduced dim whole) (line 4)",
    "内核 'bump' 无法生成反向内核：an in-place update (`t += …`; write `t = t + …`) (line 5)；它的反向在 CPU 计算图上运行",
  ];
  for (const text of before) assert.ok(englishSentences(text).length > 0, text);
  const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
  try {
    await setCells(page, [
      ['code', 'import pypto as pt\nx = pt.randn([64, 64], seed=1)\nxg = pt.as_tensor(pt.randn([8, 64], seed=2).tolist(), requires_grad=True)'],
      ['code', '@pt.kernel\ndef rows(a):\n    pt.set_vec_tile_shapes(64, 32)\n    return a - pt.var(a, dim=-1, keepdim=True)\nr = rows(x)'],
      ['code', '@pt.frontend.jit\ndef bump(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.exp(pt.view(a, [8, 64], [0, 0]))\n    t += 1.0\n    out[:] = t\nout = pt.zeros([8, 64])\nbump(xg, out)'],
    ]);
    const texts = await runEach(page);
    assert.match(texts[1], /暂不能在 NPU 上运行：`?expand_work`?：`?var`? 的归约维被切分到多个 vec tile 上/, texts[1]);
    assert.match(texts[2], /原地更新/, texts[2]);
    assert.deepEqual(findings(await pageWords(page)), []);
    await screenshot(page, 'i18n-gallery-zh-canary');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

for (const name of EXAMPLES) {
  test(`gallery example ${name} speaks 简体中文 in the zh UI`, { timeout: 420_000 }, async () => {
    const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'light' });
    try {
      await runExample(page, name, 360_000);
      const found = findings(await pageWords(page));
      await screenshot(page, `i18n-gallery-zh-${name.replace(/\.py$/, '')}`);
      assert.deepEqual(found, [], `${name} shows English in the 简体中文 UI`);
      // The screenshot shows every cell's line numbers level with its lines (cells below the first
      // screen included: the harness scrolls them into view, as a reader does, before it shoots).
      assert.deepEqual(await misalignedLineNumbers(page), [], `${name}'s screenshot`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

// pypto's examples, read from the snapshot of its repository (PYPTO_REPO: a bare git directory).
const PYPTO_REPO = process.env.PYPTO_REPO ?? '/work/.mirror/hicann+pypto/repo';
const PYPTO_EXAMPLES = [
  'examples/00_hello_world/hello_world.py',
  'examples/02_intermediate/operators/softmax/softmax.py',
  'examples/02_intermediate/basic_nn/layer_normalization/layer_norm.py',
];

for (const path of PYPTO_EXAMPLES) {
  const skip = existsSync(PYPTO_REPO) ? false : `no pypto snapshot at ${PYPTO_REPO}`;
  test(`pypto's ${path} speaks 简体中文 in the zh UI`, { timeout: 420_000, skip }, async () => {
    const source = execFileSync('git', ['-C', PYPTO_REPO, 'show', `HEAD:${path}`], { encoding: 'utf8' });
    const { page, problems, context } = await open({ locale: 'zh-CN', colorScheme: 'dark' });
    try {
      await setCells(page, [['code', source]]);
      const [output] = await runEach(page);
      assert.equal(await page.locator('.cell').first().getAttribute('data-state'), 'done', output);
      const found = findings(await pageWords(page));
      await screenshot(page, `i18n-gallery-zh-pypto-${path.split('/').pop().replace(/\.py$/, '')}`);
      assert.deepEqual(found, [], `${path} shows English in the 简体中文 UI`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
