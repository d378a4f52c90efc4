// The engine's warm-up (src/session/warm_up.rs) runs in a worker of its own, www/warm-up-worker.js:
// the engine worker starts it once ready, it loads the same build, runs the warm-up without a
// failure (a failure is a console error, which every end-to-end test reports) and is ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage } from './harness.mjs';
import { load, setCells, useSite } from './notebook-helpers.mjs';

const site = useSite();

test('the engine warms up in a worker of its own, which ends, and cells run beside it', async () => {
  const { page, problems, context } = await openPage(site().browser);
  try {
    const started = [];
    const ended = new Promise((resolve) => {
      page.on('worker', (worker) => {
        started.push(worker.url());
        if (worker.url().includes('warm-up-worker')) worker.on('close', resolve);
      });
    });
    await load(page);
    await setCells(page, [['code', 'print(6 * 7)']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell[data-state="done"]', { timeout: 60_000 });
    assert.match(await page.locator('.cell .cell-output').first().innerText(), /42/);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`no warm-up worker ended; workers: ${started.join(', ')}`)), 60_000));
    await Promise.race([ended, timeout]);
    assert.equal(started.filter((url) => url.includes('warm-up-worker')).length, 1, started.join(', '));
    // The engine worker keeps the outcome: done, with the warm-up's own milliseconds.
    const engine = page.workers().find((worker) => !worker.url().includes('warm-up-worker'));
    const outcome = await engine.evaluate(() => self.tilelabWarmUp);
    assert.equal(outcome?.type, 'done', JSON.stringify(outcome));
    assert.ok(outcome.ms > 0, JSON.stringify(outcome));
    // The engine worker itself is still there and answers.
    await setCells(page, [['code', 'print(2 ** 10)']]);
    await page.click('#run-all');
    await page.waitForSelector('.cell[data-state="done"]', { timeout: 60_000 });
    assert.match(await page.locator('.cell .cell-output').first().innerText(), /1024/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
