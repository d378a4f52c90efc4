// The benchmark page: loads every contender, checks each one's output against the f64 reference
// BEFORE timing it, and runs single timed samples on request. scripts/bench-run.mjs drives the
// rounds through playwright (`globalThis.bench`), reading the renderer thread's CPU time around
// each sample, so that time other processes take from a shared machine is not counted.
import { measureClock, supportsRelaxedSimd } from './clock.mjs';
import { loadOrt, loadTfjs, loadTileLab, matmulContenders, mlpContenders, npuContenders, npuKernelContenders, npuSimulateContenders } from './contenders.mjs';
import { memoryBoundCases } from './memory.mjs';
import { calibrate as calibrateBuilds, fasterBuild } from '../../www/engine/build-choice.js';

/** The full benchmark (issue 8); the smoke run shrinks every size. */
export const FULL = {
  rounds: 9,
  sampleMilliseconds: 100,
  matmulSmall: 512,
  matmulLarge: 1024,
  vector: 1 << 20,
  vectorLarge: 1 << 24,
  mlp: { batch: 64, inputs: 784, hidden: 512, classes: 10 },
  npu: 4096,
  /** Rows of the SwiGLU backward b kernel (examples/10's M = 22000, as `cargo bench --bench npu`). */
  swiglu: 22000,
};

/** One round, tiny sizes: checks that the harness and every contender work (tests/e2e/bench-smoke). */
export const SMOKE = {
  rounds: 1,
  sampleMilliseconds: 2,
  matmulSmall: 24,
  matmulLarge: 40,
  vector: 1000,
  vectorLarge: 4000,
  mlp: { batch: 8, inputs: 20, hidden: 16, classes: 10 },
  npu: 512,
  // The size the native golden records (the check needs its events and cycles).
  swiglu: 22000,
};

/** Runs `call` n times (awaiting the asynchronous contender) and returns ms per call (wall clock). */
async function timeCalls(contender, count) {
  contender.prepare?.(count);
  const start = performance.now();
  for (let index = 0; index < count; index += 1) {
    const result = contender.call(index);
    if (result instanceof Promise) await result;
  }
  return (performance.now() - start) / count;
}

/** Calls per sample so that one sample lasts about `milliseconds` (at least one call). */
async function calibrate(contender, milliseconds) {
  await timeCalls(contender, 2); // warm-up: engine tiers, allocator, caches
  let once = Infinity;
  for (let trial = 0; trial < 3; trial += 1) once = Math.min(once, await timeCalls(contender, 1));
  return Math.max(1, Math.min(5000, Math.round(milliseconds / Math.max(once, 1e-3))));
}

async function setUp(config, log) {
  const relaxed = supportsRelaxedSimd();
  const builds = { simd128: await loadTileLab('pkg') };
  if (relaxed && !config.simd128Only) builds.relaxed = await loadTileLab('pkg-relaxed');
  for (const [label, Playground] of Object.entries(builds)) {
    const kind = Playground.benchBuild();
    const expected = label === 'relaxed' ? 'relaxed-simd' : 'simd128';
    if (kind !== expected) throw new Error(`the ${label} build reports '${kind}', expected '${expected}'`);
  }
  // The page's own start-up choice (www/engine/build-choice.js), run here on both builds before any
  // contender loads its inputs (the calibration clears the builds' bench tensors): which build a
  // user of the page on this machine gets, to hold against figure 4.
  const buildChoice = builds.relaxed
    ? (() => {
        const samples = calibrateBuilds({ simd128: builds.simd128, relaxed: builds.relaxed }, () => performance.now());
        return { build: fasterBuild(samples), samples };
      })()
    : { build: 'simd128', samples: null };
  log(`build choice: ${buildChoice.build}${buildChoice.samples ? ` (ms per call: simd128 ${buildChoice.samples.simd128.map((ms) => ms.toFixed(2)).join(' ')}; relaxed ${buildChoice.samples.relaxed.map((ms) => ms.toFixed(2)).join(' ')})` : ''}`);
  const tfjs = await loadTfjs();
  const ort = await loadOrt();
  log(`contenders loaded: TileLab ${Object.keys(builds).join(', ')}; tfjs ${tfjs.info.version}; ort ${ort.info.version}`);
  const context = { builds, tfjs, ort };
  const cases = {
    matmulSmall: matmulContenders(context, config.matmulSmall, { bf16: true }),
    matmulLarge: matmulContenders(context, config.matmulLarge, { tfjsFresh: false }),
    // add, mul, exp, sum and memory.copy at two sizes (cases add, …, copy and addLarge, …, copyLarge).
    ...(await memoryBoundCases(context, config.vector, '')),
    ...(await memoryBoundCases(context, config.vectorLarge, 'Large')),
    mlp: mlpContenders(context, config.mlp),
    npu: npuContenders(context, config.npu),
    npuSimulate: npuSimulateContenders(context, config.npu),
    npuSwiglu: npuKernelContenders(context, 'swiglu_b', config.swiglu, config.swigluExpected),
  };
  return { relaxed, buildChoice, cases, info: { tfjs: tfjs.info, ort: ort.info, tilelab: Object.keys(builds) } };
}

/** The page's state between the driver's calls: the contenders by "case/contender" and their call counts. */
const state = { contenders: new Map(), calls: {} };

/**
 * Loads every contender, checks each one's output against the f64 reference (correctness
 * first: nothing is timed if a check fails), then sets the number of calls per sample.
 * Returns { config, relaxed, buildChoice, info, checks, failed, calls, keys, log }.
 */
export async function setUpBench(overrides = {}) {
  const config = { ...(overrides.smoke ? SMOKE : FULL), ...overrides };
  const lines = [];
  const log = (line) => {
    lines.push(line);
    console.log(line);
  };
  const { relaxed, buildChoice, cases, info } = await setUp(config, log);
  const checks = {};
  for (const [caseName, contenders] of Object.entries(cases)) {
    for (const contender of contenders) {
      const key = `${caseName}/${contender.name}`;
      const result = await contender.check();
      checks[key] = result;
      state.contenders.set(key, contender);
      log(`check ${key}: ${result.ok ? 'ok' : 'FAILED'} (${result.checked} values, worst ${result.worst.toFixed(3)} of the bound)${result.detail ? ` ${result.detail}` : ''}`);
    }
  }
  const failed = Object.entries(checks).filter(([, result]) => !result.ok).map(([key]) => key);
  if (failed.length === 0) {
    for (const [key, contender] of state.contenders) state.calls[key] = await calibrate(contender, config.sampleMilliseconds);
  }
  const keys = Object.fromEntries(Object.entries(cases).map(([caseName, contenders]) => [caseName, contenders.map((c) => `${caseName}/${c.name}`)]));
  return { config, relaxed, buildChoice, info, checks, failed, calls: state.calls, keys, userAgent: navigator.userAgent, log: lines };
}

/** Untimed set-up of the next sample of `key` (tfjs's fresh B tensors). */
export function prepareSample(key) {
  state.contenders.get(key).prepare?.(state.calls[key]);
}

/** One timed sample of `key`: its calls back to back; returns wall-clock ms per call. */
export async function sample(key) {
  const contender = state.contenders.get(key);
  const count = state.calls[key];
  const start = performance.now();
  for (let index = 0; index < count; index += 1) {
    const result = contender.call(index);
    if (result instanceof Promise) await result;
  }
  return (performance.now() - start) / count;
}

globalThis.bench = { setUpBench, prepareSample, sample, measureClock };
globalThis.benchReady = true;
