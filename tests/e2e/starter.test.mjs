// The starter notebook follows the UI language while the reader has not touched it, and is kept,
// with the reader's text, once they have.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cells, open, useSite } from './notebook-helpers.mjs';
import { starterCells, starterLocale } from '../../www/notebook/starter.js';

useSite();

// The first line of each starter, written here rather than read from starter.js, so a starter that
// is not translated (or the wrong one) fails.
const WELCOME = { en: '# Welcome to TileLab', 'zh-CN': '# 欢迎使用 TileLab' };

test('only an untouched starter is recognised as one', () => {
  assert.equal(starterLocale(starterCells('en')), 'en');
  assert.equal(starterLocale(starterCells('zh-CN')), 'zh-CN');
  const edited = starterCells('en');
  edited[1].source += '\nprint(1)';
  assert.equal(starterLocale(edited), null, 'edited text');
  assert.equal(starterLocale([...starterCells('en'), { kind: 'code', source: '' }]), null, 'a cell added');
  assert.equal(starterLocale(starterCells('en').slice(1)), null, 'a cell deleted');
  assert.equal(starterLocale(starterCells('en').map((cell) => ({ ...cell, kind: 'code' }))), null, 'a kind changed');
});

test('switching the language swaps the untouched starter for the translated one, both ways', async () => {
  const { page, problems, context } = await open({ locale: 'en-US' });
  try {
    assert.equal((await cells(page))[0][1].split('\n')[0], WELCOME.en);
    await page.selectOption('#language', 'zh-CN');
    await page.waitForFunction((first) => globalThis.tilelab.model.cells[0]?.source.startsWith(first), WELCOME['zh-CN']);
    const chinese = await cells(page);
    assert.match(chinese[1][1], /^# 每一行的 softmax/);
    assert.equal(await page.locator('.cell').first().locator('h1').textContent(), '欢迎使用 TileLab');
    await page.selectOption('#language', 'en');
    await page.waitForFunction((first) => globalThis.tilelab.model.cells[0]?.source.startsWith(first), WELCOME.en);
    assert.match((await cells(page))[1][1], /^# Softmax of each row/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a starter the reader edited keeps their text through a language switch', async () => {
  const { page, problems, context } = await open({ locale: 'en-US' });
  try {
    // Type into the code cell's editor, as a reader would.
    await page.locator('.cell').nth(1).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nprint("mine")');
    await page.keyboard.press('Escape');
    const edited = await cells(page);
    assert.match(edited[1][1], /print\("mine"\)$/);
    await page.selectOption('#language', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await page.waitForTimeout(200);
    assert.deepEqual(await cells(page), edited, 'nothing replaced');
    // A reload restores the edited notebook (autosave), still untranslated.
    await page.evaluate(() => globalThis.tilelab.flush());
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.deepEqual(await cells(page), edited);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
