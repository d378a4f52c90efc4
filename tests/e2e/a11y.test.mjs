// axe-core (node_modules/axe-core, pinned in package.json) over the notebook after running the
// starter (light and dark, English and 简体中文), the embed view with every example, the gallery and the help
// dialog: no serious or critical violation. axe is evaluated in the page through the DevTools
// protocol, which the page's Content-Security-Policy (script-src 'self') does not govern, so the
// page is checked under its real policy; the first test shows that an inline <script> is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, openPage } from './harness.mjs';
import { useSite } from './notebook-helpers.mjs';

const site = useSite();
const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** Opens `path` ('' is the notebook) and waits for the page and its engine. */
async function openAt(path, options = {}) {
  const opened = await openPage(site().browser, { viewport: { width: 1100, height: 800 }, ...options });
  await opened.page.goto(`${site().url}${path}`);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await opened.page.waitForSelector('#engine[data-state="ready"]', { state: 'attached', timeout: 60_000 });
  return opened;
}

/** Runs every code cell and waits until none is queued or running and all finished without error. */
async function runAll(page) {
  await page.click('#run-all');
  await page.waitForFunction(
    () => [...document.querySelectorAll('.cell[data-kind="code"]')].every((cell) => cell.dataset.state === 'done' || cell.dataset.state === 'error'),
    null,
    { timeout: 120_000 },
  );
  const states = await page.locator('.cell[data-kind="code"]').evaluateAll((nodes) => nodes.map((node) => node.dataset.state));
  assert.ok(states.length > 0 && states.every((state) => state === 'done'), `every code cell ran: ${states}`);
}

/** The serious and critical violations axe finds in the page (or under `selector`), described. */
async function seriousViolations(page, selector = null) {
  if (!(await page.evaluate(() => typeof globalThis.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(
    (context) => globalThis.axe.run(context ?? document, { resultTypes: ['violations'] }),
    selector,
  );
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} — ${violation.nodes.slice(0, 4).map((node) => `${node.target.join(' ')} (${node.failureSummary.replace(/\s+/g, ' ')})`).join('; ')}`);
}

test('the page policy refuses inline scripts, and axe still runs in the page', async () => {
  const { page, context } = await openAt('');
  try {
    const added = await page.addScriptTag({ content: 'globalThis.inlineRan = true;' }).then(
      () => true,
      () => false,
    );
    assert.equal(await page.evaluate(() => globalThis.inlineRan === true), false, `an inline script ran (added: ${added})`);
    await page.evaluate(AXE_SOURCE);
    assert.equal(await page.evaluate(() => typeof globalThis.axe.run), 'function');
  } finally {
    await context.close();
  }
});

test('the notebook after running the starter: light and dark, English and Chinese', async () => {
  for (const options of [
    { colorScheme: 'light', locale: 'en-US' },
    { colorScheme: 'dark', locale: 'en-US' },
    { colorScheme: 'light', locale: 'zh-CN' },
    { colorScheme: 'dark', locale: 'zh-CN' },
  ]) {
    const { page, problems, context } = await openAt('', options);
    try {
      assert.equal(await page.evaluate(() => document.documentElement.lang), options.locale === 'zh-CN' ? 'zh-CN' : 'en');
      await runAll(page);
      assert.deepEqual(await seriousViolations(page), [], JSON.stringify(options));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('the round-two pieces: source links, kept and skipped outputs, panels, completion and signature help', async () => {
  for (const options of [
    { colorScheme: 'light', locale: 'en-US' },
    { colorScheme: 'dark', locale: 'zh-CN' },
  ]) {
    const { page, problems, context } = await openAt('', options);
    try {
      await page.evaluate(() => globalThis.tilelab.model.load([
        { kind: 'markdown', source: '# Lesson\n## Part' },
        { kind: 'code', source: 'import pypto as pt\n\n@pt.kernel\ndef broken(x):\n    return x * undefined_scale\n\nw = pt.ones([3, 4], requires_grad=True)' },
        { kind: 'code', source: 'y = broken(w)' },
        { kind: 'code', source: 'print("skipped")' },
      ]));
      await page.click('#run-all');
      await page.waitForSelector('.cell:nth-child(3)[data-state="error"]', { timeout: 60_000 });
      await page.click('#variables-toggle');
      await page.click('#outline-toggle');
      await page.locator('#variables tr[data-name="w"]').waitFor();
      // Completion and signature help open in the first code cell.
      await page.locator('.cell').nth(1).focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Control+End');
      await page.keyboard.type('\nz = pt.view(w, ');
      await page.locator('.cm-signature').waitFor();
      await page.keyboard.type('[2, 2], [0, 0], va');
      await page.keyboard.press('Control+Space');
      await page.locator('.cm-tooltip-autocomplete').waitFor();
      assert.deepEqual(await seriousViolations(page), [], JSON.stringify(options));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('the embed view, in edit and read mode, after running the example', async () => {
  for (const path of ['embed.html?src=examples/02_swish_gradient.py', 'embed.html?src=examples/02_swish_gradient.py&mode=read&lang=zh-CN&theme=dark']) {
    const { page, problems, context } = await openAt(path);
    try {
      await runAll(page);
      assert.deepEqual(await seriousViolations(page), [], path);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('every example in the embed view (tensor, graph, gradient-check, schedule and sweep displays)', async () => {
  for (const name of ['01_tensor_basics', '03_wrong_gradient_caught', '04_jit_tiles', '05_tile_sweep']) {
    for (const colorScheme of ['light', 'dark']) {
      const { page, problems, context } = await openAt(`embed.html?src=examples/${name}.py`, { colorScheme });
      try {
        await runAll(page);
        assert.deepEqual(await seriousViolations(page), [], `${name}, ${colorScheme}`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  }
});

test('the example gallery and the help dialog', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await openAt('', { colorScheme });
    try {
      await page.click('#examples');
      await page.waitForSelector('#gallery-dialog[open] .gallery-item');
      assert.deepEqual(await seriousViolations(page, '#gallery-dialog'), [], `gallery, ${colorScheme}`);
      await page.keyboard.press('Escape');
      await page.click('#help');
      await page.waitForSelector('#help-dialog[open]');
      assert.deepEqual(await seriousViolations(page, '#help-dialog'), [], `help, ${colorScheme}`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});
