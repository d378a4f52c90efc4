// Smoke run of the benchmark harness (make bench): one round at tiny sizes in headless Chromium,
// with every contender checked against the f64 reference before it is timed. That the checks
// reject a one-element error is shown in bench-checks.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { figuresFor } from '../../scripts/bench-figures.mjs';
import { runBenchmark } from '../../scripts/bench-run.mjs';
import { CALIBRATION_ROUNDS } from '../../www/engine/build-choice.js';

test('one round at tiny sizes: every contender passes its check and is timed', { timeout: 120_000 }, async () => {
  const { raw, environment } = await runBenchmark({ smoke: true });
  assert.deepEqual(raw.failed, []);
  assert.ok(Object.values(raw.checks).every((check) => check.ok));
  for (const name of ['matmulSmall/tilelab-simd128', 'matmulSmall/tfjs-fresh', 'matmulSmall/tfjs-cached', 'matmulLarge/ort', 'add/tfjs', 'sum/tfjs', 'mlp/tfjs-transpose', 'mlp/tfjs-grads', 'npu/tilelab-simd128', 'npuSwiglu/tilelab-simd128']) {
    assert.ok(raw.checks[name]?.ok, `${name} was checked`);
    assert.equal(raw.times[name].length, 1, `${name} was timed once`);
    assert.ok(raw.times[name][0] > 0, `${name} took time`);
  }
  // The page's start-up build choice, run in the bench page on the builds it loaded.
  assert.ok(raw.info.tilelab.includes(raw.buildChoice.build), `chose ${raw.buildChoice.build}`);
  if (raw.info.tilelab.includes('relaxed')) {
    for (const build of ['simd128', 'relaxed']) {
      const samples = raw.buildChoice.samples[build];
      assert.ok(samples.length === CALIBRATION_ROUNDS && samples.every((ms) => ms > 0), `${build} calibration samples ${samples}`);
    }
  }
  assert.ok(environment.clockHz > 1e8 && environment.clockHz < 1e10, `clock ${environment.clockHz}`);
  for (const build of raw.info.tilelab) {
    const figures = figuresFor(raw, build);
    assert.ok(figures.length >= 10 && figures.every((figure) => Number.isFinite(figure.median)), `${build} figures`);
  }
});
