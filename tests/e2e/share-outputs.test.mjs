// Outputs in share links: the share dialog's checkbox puts the cells' outputs in the link, an
// opened link shows them before anything runs, and outputs too large for a link are dropped
// (largest first) with a note saying how many.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeNotebook, encodeNotebookWithOutputs, MAX_SHARE_CHARS, validatePayload } from '../../www/notebook/share.js';
import { screenshot } from './harness.mjs';
import { open, setCells, useSite } from './notebook-helpers.mjs';

useSite();

/** Text that deflate cannot shrink much: `length` characters from a seeded generator. */
function noisyText(length, seed) {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index += 1) {
    // xorshift32: 32-bit integer steps, exact in JavaScript numbers.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    text += 'abcdefghijklmnopqrstuvwxyz0123456789'[state % 36];
  }
  return text;
}

/** A kept output holding `stdout` (the shape the model keeps after a run). */
function keptOutput(stdout, count) {
  return { state: 'done', executionCount: count, ms: 1, result: { execution_count: count, status: 'ok', stdout, displays: [], diagnostics: [], duration_ms: 1, kernel_schedules: [] } };
}

test('a link made with outputs opens showing them before anything runs', async () => {
  const { page, problems, context } = await open({ colorScheme: 'light' });
  try {
    await setCells(page, [['markdown', '# Shared'], ['code', 'import pypto as pt\nprint("hello from the run")\npt.ones([2, 3])']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell[data-state="done"]', { timeout: 60_000 });
    await page.click('#share');
    const dialog = page.locator('#share-dialog');
    await dialog.waitFor({ state: 'visible' });
    const without = await page.locator('#share-link').inputValue();
    await page.check('#share-outputs');
    await page.waitForFunction((before) => document.querySelector('#share-link').value !== before, without);
    const link = await page.locator('#share-link').inputValue();
    assert.match(await page.locator('.share-outputs-note').innerText(), /outputs of 1 cell/);
    await screenshot(page, 'share-outputs-dialog-light');
    await page.uncheck('#share-outputs');
    await page.waitForFunction((before) => document.querySelector('#share-link').value === before, without);

    const other = await open({ colorScheme: 'dark', locale: 'zh-CN' });
    try {
      await other.page.goto(link);
      await other.page.waitForSelector('.cell[data-kind="code"] .output-stdout', { timeout: 60_000 });
      const output = other.page.locator('.cell[data-kind="code"] .cell-output');
      assert.match(await output.innerText(), /hello from the run/);
      assert.match(await output.innerText(), /Tensor|张量/);
      assert.equal(await other.page.locator('.cell[data-kind="code"] .output-restored').count(), 1, 'marked as output of an earlier session');
      assert.notEqual(await other.page.locator('.cell[data-kind="code"]').getAttribute('data-state'), 'done', 'nothing ran');
      await screenshot(other.page, 'share-outputs-opened-zh-dark');
      assert.deepEqual(other.problems, []);
    } finally {
      await other.context.close();
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('outputs too large for a link are dropped, largest first, and the dialog says so', async () => {
  const { page, problems, context } = await open();
  try {
    await page.evaluate((data) => globalThis.tilelab.model.load(data), [
      { kind: 'code', source: 'print("small")', output: keptOutput('small\n', 1) },
      { kind: 'code', source: 'print(noise)', output: keptOutput(noisyText(120_000, 7), 2) },
    ]);
    await page.click('#share');
    await page.check('#share-outputs');
    const note = page.locator('.share-outputs-note');
    await note.filter({ hasText: /largest/ }).waitFor();
    assert.match(await note.innerText(), /holds 2 outputs minus the 1 largest/);
    const link = await page.locator('#share-link').inputValue();
    assert.ok(link.split('#nb=')[1].length <= MAX_SHARE_CHARS);
    const cells = await decodeNotebook(link.split('#nb=')[1]);
    assert.equal(cells[0].output.result.stdout, 'small\n');
    assert.equal(cells[1].output, undefined, 'the large output was dropped');
    await screenshot(page, 'share-outputs-dropped');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('outputs round-trip through the payload, and a malformed output is refused', async () => {
  const cells = [
    { kind: 'code', source: 'a', output: keptOutput('one\n', 3) },
    { kind: 'markdown', source: '# t' },
    { kind: 'code', source: 'b' },
  ];
  const { encoded, included, dropped } = await encodeNotebookWithOutputs(cells);
  assert.deepEqual([included, dropped], [1, 0]);
  const decoded = await decodeNotebook(encoded);
  assert.equal(decoded[0].output.result.stdout, 'one\n');
  assert.equal(decoded[0].output.executionCount, 3);
  assert.equal(decoded[2].output, undefined);
  // Only the cells fit: every output dropped; nothing fits: too large.
  const tight = await encodeNotebookWithOutputs([{ kind: 'code', source: 'x', output: keptOutput(noisyText(4000, 3), 1) }], 200);
  assert.deepEqual([tight.included, tight.dropped], [0, 1]);
  await assert.rejects(encodeNotebookWithOutputs([{ kind: 'code', source: noisyText(4000, 5) }], 200), { code: 'too-large' });
  // An output for a markdown cell, past the last cell, or not an object: the link is refused.
  for (const outputs of [[[1, {}]], [[7, {}]], [[0, 'text']], 'all']) {
    assert.throws(() => validatePayload({ v: 1, cells: [['c', 'a'], ['m', 't']], outputs }), { code: 'malformed' });
  }
});
