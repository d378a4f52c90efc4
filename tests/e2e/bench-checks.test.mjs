// The benchmark's correctness checks (bench/page/reference.mjs) against minimal wrong answers:
// each check accepts right answers (computed here independently, in f32 arithmetic and in
// shuffled orders) and rejects a one-element error. Runs in node, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkAdd,
  checkMatmul,
  checkMlp,
  checkNpu,
  checkSum,
  exactBound,
  gridValues,
  matmulReference,
  mlpData,
  mlpReference,
  npuMatmulPlan,
  quantum,
  randomValues,
} from '../../bench/page/reference.mjs';

const f32 = Math.fround;

/** The product in f32 arithmetic: every multiply and add rounded, K summed in `order`. */
function matmulF32(a, b, m, k, n, order) {
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i += 1) {
    for (let j = 0; j < n; j += 1) {
      let total = 0;
      for (const p of order) total = f32(total + f32(a[i * k + p] * b[p * n + j]));
      out[i * n + j] = total;
    }
  }
  return out;
}

/** A seeded permutation of 0..n−1. */
function shuffled(n, seed) {
  const order = Array.from({ length: n }, (_, i) => i);
  let state = seed;
  for (let i = n - 1; i > 0; i -= 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

test('quantum and exactBound: the grid of the inputs and when every partial sum is exact', () => {
  assert.deepEqual(quantum(Float32Array.from([0.5, -0.25, 3, 0.125])), { step: 0.125, largest: 3 });
  assert.equal(quantum(gridValues(1, 1000, 6)).step, 2 ** -6);
  // 2²⁴ units fit the f32 significand; one unit more does not, and the bound becomes γₙ·Σ|x|.
  assert.equal(exactBound(10, 1, 2 ** 24), 0);
  assert.ok(exactBound(10, 1, 2 ** 24 + 1) > 0);
});

test('checkMatmul: exact f32 products pass in any order; one element one ulp off, one dropped term, f16 rounding fail', () => {
  const [m, k, n] = [8, 256, 8];
  const a = gridValues(11, m * k, 6);
  const b = gridValues(12, k * n, 6);
  const reference = matmulReference(a, b, m, k, n);
  for (const seed of [1, 2, 3]) {
    assert.equal(checkMatmul(a, b, matmulF32(a, b, m, k, n, shuffled(k, seed)), m, k, n).ok, true, `order ${seed}`);
  }
  const right = matmulF32(a, b, m, k, n, shuffled(k, 1));
  const index = 37;
  const oneUlp = Float32Array.from(right);
  oneUlp[index] = right[index] + Math.abs(right[index]) * 2 ** -23;
  assert.equal(checkMatmul(a, b, oneUlp, m, k, n, reference).ok, false, 'one element one ulp off');
  // Dropping the smallest non-zero term of one dot product.
  const [i, j] = [3, 5];
  let smallest = Infinity;
  for (let p = 0; p < k; p += 1) {
    const term = Math.abs(a[i * k + p] * b[p * n + j]);
    if (term > 0) smallest = Math.min(smallest, term);
  }
  const dropped = Float32Array.from(right);
  dropped[i * n + j] = right[i * n + j] - smallest;
  assert.equal(checkMatmul(a, b, dropped, m, k, n, reference).ok, false, 'one dropped term');
  // Accumulating in f16 precision (11-bit significand): rejected.
  const f16 = (x) => {
    const e = 2 ** (Math.floor(Math.log2(Math.abs(x) || 1)) - 10);
    return Math.round(x / e) * e;
  };
  const halfPrecision = new Float32Array(m * n);
  for (let r = 0; r < m; r += 1) {
    for (let c = 0; c < n; c += 1) {
      let total = 0;
      for (let p = 0; p < k; p += 1) total = f16(total + a[r * k + p] * b[p * n + c]);
      halfPrecision[r * n + c] = total;
    }
  }
  assert.equal(checkMatmul(a, b, halfPrecision, m, k, n, reference).ok, false, 'f16 accumulation');
  assert.equal(checkMatmul(a, b, right.subarray(1), m, k, n, reference).ok, false, 'a missing element');
});

test('checkMatmul on inputs off the grid: the γₖ·Σ|ab| bound still rejects a 1% error', () => {
  const [m, k, n] = [4, 64, 4];
  const a = randomValues(5, m * k);
  const b = randomValues(6, k * n);
  const right = matmulF32(a, b, m, k, n, shuffled(k, 9));
  assert.equal(checkMatmul(a, b, right, m, k, n).ok, true);
  const wrong = Float32Array.from(right);
  wrong[6] *= 1.01;
  assert.equal(checkMatmul(a, b, wrong, m, k, n).ok, false);
});

test('checkSum: every f32 order of 2²⁰ grid values gives the exact sum; dropping one element fails', () => {
  const values = gridValues(31, 1 << 20, 3);
  const exact = values.reduce((total, value) => total + value, 0);
  for (const seed of [4, 5]) {
    const order = shuffled(values.length, seed);
    let total = 0;
    for (const index of order) total = f32(total + values[index]);
    assert.equal(checkSum(values, total).ok, true, `order ${seed}`);
  }
  const smallest = values.reduce((best, value) => (value !== 0 && Math.abs(value) < best ? Math.abs(value) : best), Infinity);
  assert.equal(checkSum(values, exact - smallest).ok, false, 'one element of the smallest magnitude dropped');
  assert.equal(checkSum(values, exact + values.find((value) => value !== 0)).ok, false, 'one element counted twice');
});

test('checkAdd: correctly rounded sums pass; one element one ulp off fails', () => {
  const [x, y] = [randomValues(21, 1000), randomValues(22, 1000)];
  const right = Float32Array.from(x, (value, i) => f32(value + y[i]));
  assert.equal(checkAdd(x, y, right).ok, true);
  const wrong = Float32Array.from(right);
  wrong[500] = f32(wrong[500] + Math.abs(wrong[500]) * 2 ** -23);
  assert.equal(checkAdd(x, y, wrong).ok, false);
});

test('checkMlp: the f64 step passes; one parameter element not updated fails', () => {
  const shape = { batch: 8, inputs: 20, hidden: 16, classes: 10 };
  const rate = 0.05;
  const data = mlpData(shape, 41);
  const expected = mlpReference(shape, data, rate);
  const asF32 = (values) => Float32Array.from(values);
  const right = { loss: expected.loss, w1: asF32(expected.w1), b1: asF32(expected.b1), w2: asF32(expected.w2), b2: asF32(expected.b2) };
  assert.equal(checkMlp(expected, right).ok, true);
  for (const name of ['w1', 'b1', 'w2', 'b2']) {
    // The element with the largest update keeps its old value.
    let index = 0;
    for (let i = 0; i < expected[name].length; i += 1) {
      if (Math.abs(expected[name][i] - data[name][i]) > Math.abs(expected[name][index] - data[name][index])) index = i;
    }
    const stale = Float32Array.from(right[name]);
    stale[index] = data[name][index];
    assert.equal(checkMlp(expected, { ...right, [name]: stale }).ok, false, `${name}[${index}] not updated`);
  }
  assert.equal(checkMlp(expected, { ...right, loss: expected.loss * 1.001 }).ok, false, 'loss off by 0.1%');
});

test('checkNpu: the closed form of the plan; one count off or a time under the roofline fails', () => {
  // S = 512 (the smoke size): 8 blocks of 128×256; per block 2 K blocks of (2 copies + 4 × 3)
  // and 1 copy out: 8·29 = 232 instructions (the same numbers src/session/bench.rs asserts natively).
  const plan = npuMatmulPlan(512);
  assert.deepEqual(
    { instructions: plan.instructions, cores: plan.cores, bytesRead: plan.bytesRead, bytesWritten: plan.bytesWritten, flops: plan.flops },
    { instructions: 232, cores: 8, bytesRead: 3_145_728, bytesWritten: 1_048_576, flops: 268_435_456 },
  );
  // 4096³: 512 blocks on 24 cores (22 on the busiest), each 16 K blocks of 2·128·256·256 FLOP.
  const full = npuMatmulPlan(4096);
  assert.equal(full.instructions, 512 * (16 * 14 + 1));
  assert.ok(Math.abs(full.minimumUs - (22 * 16 * 2 * 128 * 256 * 256) / 8192 / 1.8e9 * 1e6) < 1e-9);
  const run = [plan.minimumUs * 3, plan.events, plan.cores, plan.bytesRead, plan.bytesWritten, plan.flops, plan.instructions];
  assert.equal(checkNpu(run, 512).ok, true);
  for (let field = 1; field < run.length; field += 1) {
    const wrong = [...run];
    wrong[field] += field === 3 ? 128 * 256 * 2 : 1; // one more instruction / event / core, one extra tile read …
    assert.equal(checkNpu(wrong, 512).ok, false, `field ${field}`);
  }
  assert.equal(checkNpu([plan.minimumUs * 0.99, ...run.slice(1)], 512).ok, false, 'faster than the cube can go');
});

test('the analysis prose is computed from the run it sits under: change a time, the text follows', async () => {
  const { readFileSync } = await import('node:fs');
  const { analysisLines } = await import('../../scripts/bench-analysis.mjs');
  const { spread } = await import('../../scripts/bench-figures.mjs');
  const stored = JSON.parse(readFileSync(new URL('../../bench/results.json', import.meta.url), 'utf8'));
  const results = { environment: stored.environment, raw: stored.raw };
  // The add paragraph quotes the build a user of the page gets (the run's start-up choice).
  const key = `add/tilelab-${stored.raw.buildChoice?.build ?? 'relaxed'}`;
  const before = analysisLines(results).join('\n');
  const milliseconds = spread(stored.raw.times[key]).median;
  assert.ok(before.includes(`TileLab's ${milliseconds.toFixed(3)} ms`), 'the add paragraph quotes the run');
  const slower = structuredClone(results);
  slower.raw.times[key] = slower.raw.times[key].map((value) => value * 2);
  const after = analysisLines(slower).join('\n');
  assert.ok(after.includes(`TileLab's ${(2 * milliseconds).toFixed(3)} ms`) && !after.includes(`TileLab's ${milliseconds.toFixed(3)} ms`));
  // The load average quoted is the run's own.
  assert.ok(before.includes(`was ${stored.environment.loadBefore[0]} before`));
});

test('the analysis states the issue ports of the run\'s CPU family: Intel 3 for mul and add, AMD Zen 4', async () => {
  const { readFileSync } = await import('node:fs');
  const { analysisLines } = await import('../../scripts/bench-analysis.mjs');
  const stored = JSON.parse(readFileSync(new URL('../../bench/results.json', import.meta.url), 'utf8'));
  const on = (cpu, cpuId) => analysisLines({ environment: { ...stored.environment, cpu, cpuId }, raw: stored.raw }).join('\n');
  const intel = on('Intel(R) Xeon(R) Processor', 'family 6, model 167, stepping 1; avx2, fma, avx512f');
  const amd = on('AMD EPYC', 'family 26, model 2, stepping 1; avx2, fma, avx512f');
  assert.ok(intel.includes('the ceiling is 12.0 FLOP/cycle') && !intel.includes('the ceiling is 16.0 FLOP/cycle'));
  assert.ok(amd.includes('the ceiling is 16.0 FLOP/cycle') && !amd.includes('the ceiling is 12.0 FLOP/cycle'));
  assert.ok(amd.includes('2 multiply/FMA pipes and 2 add pipes') && !intel.includes('2 multiply/FMA pipes'));
});

test('the in-cache misses are set against the plain wasm loop of the op, when the run has one', async () => {
  const { readFileSync } = await import('node:fs');
  const { analysisLines } = await import('../../scripts/bench-analysis.mjs');
  const { spread } = await import('../../scripts/bench-figures.mjs');
  const stored = JSON.parse(readFileSync(new URL('../../bench/results.json', import.meta.url), 'utf8'));
  const withoutLoops = structuredClone(stored.raw);
  for (const key of Object.keys(withoutLoops.times)) if (key.endsWith('/wasm loop')) delete withoutLoops.times[key];
  const withLoop = (factor) => {
    const raw = structuredClone(withoutLoops);
    // The add loop `factor` times the copy's time per byte moved (12 bytes per element against 8).
    raw.times['add/wasm loop'] = raw.times['copy/memory.copy'].map((copy) => (copy * 12 * factor) / 8);
    return analysisLines({ environment: stored.environment, raw }).join('\n');
  };
  const copy = spread(stored.raw.times['copy/memory.copy']).median;
  const copyGbps = (8 * stored.raw.config.vector) / (copy / 1000) / 1e9;
  assert.ok(!analysisLines({ environment: stored.environment, raw: withoutLoops }).join('\n').includes('In cache ('), 'no loop, no paragraph');
  const slowLoop = withLoop(1.25);
  assert.ok(slowLoop.includes(`the loop itself 80.0% of \`memory.copy\`'s ${copyGbps.toFixed(1)}`), slowLoop);
  assert.ok(slowLoop.includes('For add even that loop'));
  const fastLoop = withLoop(1);
  assert.ok(fastLoop.includes('the loop itself 100.0%') && !fastLoop.includes('even that loop'));
});

test('the analysis names the build the start-up calibration picked and says whether figure 4 agrees', async () => {
  const { readFileSync } = await import('node:fs');
  const { analysisLines } = await import('../../scripts/bench-analysis.mjs');
  const stored = JSON.parse(readFileSync(new URL('../../bench/results.json', import.meta.url), 'utf8'));
  const paragraph = (raw) => analysisLines({ environment: stored.environment, raw }).find((line) => line.startsWith('Which build counts'));
  const samples = (simd128, relaxed) => ({ simd128: Array(7).fill(simd128), relaxed: Array(7).fill(relaxed) });
  // Relaxed 1.5× faster at 512³ in every round (figure 4 = 1.5×, whatever the stored run measured).
  const relaxedFaster = structuredClone(stored.raw);
  relaxedFaster.times['matmulSmall/tilelab-relaxed'] = relaxedFaster.times['matmulSmall/tilelab-simd128'].map((ms) => ms / 1.5);
  const picked = (raw, choice) => paragraph({ ...structuredClone(raw), buildChoice: choice });
  const agrees = picked(relaxedFaster, { build: 'relaxed', samples: samples(1.2, 0.8) });
  assert.ok(agrees.includes('loads the relaxed build here') && agrees.includes('1.50× (rounds 1.50–1.50×), agrees'), agrees);
  assert.ok(agrees.includes('simd128 1.20 ms, relaxed 0.80 ms per call (medians; 1.50×)'), agrees);
  const wrong = picked(relaxedFaster, { build: 'simd128', samples: samples(0.8, 1.2) });
  assert.ok(wrong.includes('loads the simd128 build here') && wrong.includes('disagrees') && wrong.includes('picked the slower build'), wrong);
  // Equal builds: keeping simd128 loads no slower build.
  const equal = structuredClone(stored.raw);
  equal.times['matmulSmall/tilelab-relaxed'] = [...equal.times['matmulSmall/tilelab-simd128']];
  const tie = picked(equal, { build: 'simd128', samples: samples(1, 1) });
  assert.ok(tie.includes('agrees: the page does not load the slower build here, though figure 4 misses its 1.1× target'), tie);
  // A run of the simd128 build alone, and a run from before the page recorded its choice.
  assert.ok(picked(stored.raw, { build: 'simd128', samples: null }).includes('the simd128 build, the only one this run loaded'));
  const { buildChoice: _, ...older } = structuredClone(stored.raw);
  assert.ok(paragraph(older).includes('loaded the relaxed-simd build wherever'));
});
