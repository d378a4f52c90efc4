// The worker's choice of wasm build (www/engine/build-choice.js): the faster build by its
// calibration timings, simd128 on ties and where relaxed-simd does not validate, the cached choice
// reused without timing again, and a calibration that fails falls back to simd128 uncached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CALIBRATION_ROUNDS,
  RELAXED_SIMD_PROBE,
  cacheKey,
  calibrate,
  fasterBuild,
  median,
  selectBuild,
} from '../../www/engine/build-choice.js';

test('the probe module validates only with relaxed-simd (node has it: V8 ships relaxed-simd)', () => {
  // The probe is a wasm module; node's V8 validates relaxed_madd, so this documents what the probe is.
  assert.equal(typeof WebAssembly.validate(RELAXED_SIMD_PROBE), 'boolean');
  assert.equal(WebAssembly.validate(RELAXED_SIMD_PROBE.slice(0, 20)), false);
});

test('the faster build wins by the medians of its samples', () => {
  // Xeon (bench of 2026-11-29): relaxed 9.26 ms, simd128 11.43 ms per 512³ call → relaxed.
  assert.equal(fasterBuild({ simd128: [11.4, 11.5, 12.9], relaxed: [9.3, 9.2, 14.0] }), 'relaxed');
  // EPYC family 26: relaxed 0.96× the simd128 speed → simd128, even with one lucky relaxed round.
  assert.equal(fasterBuild({ simd128: [10.0, 10.1, 10.2], relaxed: [10.4, 10.5, 9.0] }), 'simd128');
  // Within the 2 % margin, the bit-exact simd128 build stays.
  assert.equal(fasterBuild({ simd128: [10.0], relaxed: [9.9] }), 'simd128');
  // Missing or broken timings never pick relaxed.
  assert.equal(fasterBuild({ simd128: [], relaxed: [5] }), 'simd128');
  assert.equal(fasterBuild({ simd128: [10], relaxed: [0] }), 'simd128');
  assert.equal(median([3, 1, 2, 10]), 2.5);
});

/** A fake build whose matmul advances a shared clock by `cost` ms, recording its calls. */
function fakeBuild(clock, cost) {
  const calls = [];
  return {
    calls,
    benchLoad: (name, values, shape, dtype) => calls.push(['load', name, values.length, [...shape], dtype]),
    benchMatmul: (a, b, out) => {
      calls.push(['matmul', a, b, out]);
      clock.now += cost;
    },
    benchClear: () => calls.push(['clear']),
  };
}

test('calibration times both builds alternately on the same inputs and picks the faster', () => {
  for (const [simdCost, relaxedCost, wanted] of [
    [2.0, 1.6, 'relaxed'],
    [1.6, 2.0, 'simd128'],
  ]) {
    const clock = { now: 0 };
    const builds = { simd128: fakeBuild(clock, simdCost), relaxed: fakeBuild(clock, relaxedCost) };
    const samples = calibrate(builds, () => clock.now);
    assert.equal(samples.simd128.length, CALIBRATION_ROUNDS);
    assert.equal(samples.relaxed.length, CALIBRATION_ROUNDS);
    const near = (ms, cost) => Math.abs(ms - cost) < 1e-9;
    assert.ok(samples.simd128.every((ms) => near(ms, simdCost)) && samples.relaxed.every((ms) => near(ms, relaxedCost)));
    assert.equal(fasterBuild(samples), wanted);
    for (const build of Object.values(builds)) {
      assert.deepEqual(build.calls[0], ['load', 'calibration_a', 256 * 256, [256, 256], 'f32']);
      // One warm-up call, then the timed ones; the tensors are freed at the end.
      assert.equal(build.calls.filter((call) => call[0] === 'matmul').length, CALIBRATION_ROUNDS + 1);
      assert.deepEqual(build.calls.at(-1), ['clear']);
    }
  }
});

/** selectBuild's options with an in-memory cache; `measured` counts calibrations. */
function options(overrides = {}) {
  const cache = new Map();
  const state = { measured: 0, cache };
  const base = {
    relaxedValid: true,
    key: cacheKey('UA/1', 'https://x/assets/tilelab_bg-abc.wasm'),
    readCache: async (key) => cache.get(key) ?? null,
    writeCache: async (key, choice) => void cache.set(key, choice),
    measure: async () => {
      state.measured += 1;
      return { simd128: [10, 10, 10], relaxed: [8, 8, 8] };
    },
  };
  return { state, options: { ...base, ...overrides } };
}

test('no relaxed-simd: simd128 without calibrating', async () => {
  const { state, options: settings } = options({ relaxedValid: false });
  const choice = await selectBuild(settings);
  assert.equal(choice.build, 'simd128');
  assert.equal(state.measured, 0);
});

test('the first start calibrates and caches; the next start reuses the cached choice', async () => {
  const { state, options: settings } = options();
  const first = await selectBuild(settings);
  assert.deepEqual([first.build, first.reason, state.measured], ['relaxed', 'calibrated at start-up', 1]);
  const second = await selectBuild(settings);
  assert.deepEqual([second.build, second.reason, state.measured], ['relaxed', 'cached calibration of this browser', 1]);
  // Another browser or another build is another key: it calibrates again.
  const other = await selectBuild({ ...settings, key: cacheKey('UA/2', 'https://x/assets/tilelab_bg-abc.wasm') });
  assert.equal(other.reason, 'calibrated at start-up');
  assert.equal(state.measured, 2);
});

test('a cached slower-build choice from timings where simd128 won is kept as simd128', async () => {
  const { state, options: settings } = options({
    measure: async () => {
      state.measured += 1;
      return { simd128: [9.6, 9.7, 9.8], relaxed: [10.0, 10.1, 10.2] };
    },
  });
  assert.equal((await selectBuild(settings)).build, 'simd128');
  assert.equal((await selectBuild(settings)).build, 'simd128');
  assert.equal(state.measured, 1);
});

test('a failing calibration or cache falls back to simd128 and is not cached', async () => {
  const { state, options: settings } = options({
    measure: async () => {
      state.measured += 1;
      throw new Error('no relaxed module');
    },
  });
  const choice = await selectBuild(settings);
  assert.equal(choice.build, 'simd128');
  assert.match(choice.reason, /calibration failed: no relaxed module/);
  assert.equal(state.cache.size, 0);
  const broken = options({ readCache: async () => Promise.reject(new Error('IndexedDB blocked')) });
  assert.equal((await selectBuild(broken.options)).build, 'relaxed');
  assert.equal(broken.state.measured, 1);
});
