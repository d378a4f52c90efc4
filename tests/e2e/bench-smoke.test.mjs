// Smoke run of the benchmark harness (make bench): one round at tiny sizes in headless Chromium,
// with every contender checked against the f64 reference before it is timed. Also checks that the
// reference checks reject wrong answers, so a passing smoke run means something.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAdd, checkMatmul, checkMlp, checkSum, mlpData, mlpReference } from '../../bench/page/reference.mjs';
import { figuresFor } from '../../scripts/bench-figures.mjs';
import { runBenchmark } from '../../scripts/bench-run.mjs';

test('the reference checks accept right answers and reject wrong ones', () => {
  // [[1,2],[3,4]]·[[5,6],[7,8]] = [[19,22],[43,50]]
  const a = Float32Array.from([1, 2, 3, 4]);
  const b = Float32Array.from([5, 6, 7, 8]);
  assert.equal(checkMatmul(a, b, Float32Array.from([19, 22, 43, 50]), 2, 2, 2).ok, true);
  assert.equal(checkMatmul(a, b, Float32Array.from([19, 22, 43, 50.001]), 2, 2, 2).ok, false);
  assert.equal(checkAdd(a, b, Float32Array.from([6, 8, 10, 12])).ok, true);
  assert.equal(checkAdd(a, b, Float32Array.from([6, 8, 10, 12.5])).ok, false);
  assert.equal(checkSum(a, 10).ok, true);
  assert.equal(checkSum(a, 10.01).ok, false);
  const shape = { batch: 2, inputs: 3, hidden: 4, classes: 3 };
  const expected = mlpReference(shape, mlpData(shape, 1), 0.1);
  assert.equal(checkMlp(expected, expected).ok, true);
  assert.equal(checkMlp(expected, { ...expected, loss: expected.loss + 0.01 }).ok, false);
});

test('one round at tiny sizes: every contender passes its check and is timed', { timeout: 120_000 }, async () => {
  const { raw, environment } = await runBenchmark({ smoke: true });
  assert.deepEqual(raw.failed, []);
  assert.ok(Object.values(raw.checks).every((check) => check.ok));
  for (const name of ['matmulSmall/tilelab-simd128', 'matmulSmall/tfjs-fresh', 'matmulSmall/tfjs-cached', 'matmulLarge/ort', 'add/tfjs', 'sum/tfjs', 'mlp/tfjs', 'npu/tilelab-simd128']) {
    assert.ok(raw.checks[name]?.ok, `${name} was checked`);
    assert.equal(raw.times[name].length, 1, `${name} was timed once`);
    assert.ok(raw.times[name][0] > 0, `${name} took time`);
  }
  assert.ok(environment.clockHz > 1e8 && environment.clockHz < 1e10, `clock ${environment.clockHz}`);
  for (const build of raw.info.tilelab) {
    const figures = figuresFor(raw, build);
    assert.ok(figures.length >= 9 && figures.every((figure) => Number.isFinite(figure.median)), `${build} figures`);
  }
});
