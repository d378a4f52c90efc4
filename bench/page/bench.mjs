// The benchmark page's driver: loads every contender, checks each one's output against the f64
// reference BEFORE timing it, then runs the rounds. Within a round every case times each of its
// contenders (in an order rotated from round to round) and the ratios are computed from that
// round's times only; the figures are the median, min and max of those per-round ratios.
// `window.runBench(config)` is called by scripts/bench-run.mjs through playwright.
import { measureClock, supportsRelaxedSimd } from './clock.mjs';
import { addContenders, loadOrt, loadTfjs, loadTileLab, matmulContenders, mlpContenders, npuContenders, sumContenders } from './contenders.mjs';

/** The full benchmark (issue 8); the smoke run shrinks every size. */
export const FULL = {
  rounds: 9,
  samples: 3,
  sampleMilliseconds: 25,
  matmulSmall: 512,
  matmulLarge: 1024,
  vector: 1 << 20,
  mlp: { batch: 64, inputs: 784, hidden: 512, classes: 10 },
  npu: 4096,
};

/** One round, tiny sizes: checks that the harness and every contender work (tests/e2e/bench-smoke). */
export const SMOKE = {
  rounds: 1,
  samples: 1,
  sampleMilliseconds: 2,
  matmulSmall: 24,
  matmulLarge: 40,
  vector: 1000,
  mlp: { batch: 8, inputs: 20, hidden: 16, classes: 10 },
  npu: 512,
};

/** Runs `call` n times (awaiting the asynchronous contender) and returns ms per call. */
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
  const once = await timeCalls(contender, 1);
  return Math.max(1, Math.min(5000, Math.round(milliseconds / Math.max(once, 1e-3))));
}

async function setUp(config, log) {
  const relaxed = supportsRelaxedSimd();
  const builds = { simd128: await loadTileLab('pkg') };
  if (relaxed) builds.relaxed = await loadTileLab('pkg-relaxed');
  for (const [label, Playground] of Object.entries(builds)) {
    const kind = Playground.benchBuild();
    const expected = label === 'relaxed' ? 'relaxed-simd' : 'simd128';
    if (kind !== expected) throw new Error(`the ${label} build reports '${kind}', expected '${expected}'`);
  }
  const tfjs = await loadTfjs();
  const ort = await loadOrt();
  log(`contenders loaded: TileLab ${Object.keys(builds).join(', ')}; tfjs ${tfjs.info.version}; ort ${ort.info.version}`);
  const context = { builds, tfjs, ort };
  const cases = {
    matmulSmall: matmulContenders(context, config.matmulSmall, { bf16: true }),
    matmulLarge: matmulContenders(context, config.matmulLarge, { tfjsFresh: false }),
    add: addContenders(context, config.vector),
    sum: sumContenders(context, config.vector),
    mlp: mlpContenders(context, config.mlp),
    npu: npuContenders(context, config.npu),
  };
  return { relaxed, cases, info: { tfjs: tfjs.info, ort: ort.info, tilelab: Object.keys(builds) } };
}

/** Runs the benchmark; returns the raw checks and times (the figures: scripts/bench-figures.mjs). */
export async function runBench(overrides = {}) {
  const config = { ...(overrides.smoke ? SMOKE : FULL), ...overrides };
  const lines = [];
  const log = (line) => {
    lines.push(line);
    console.log(line);
  };
  const { relaxed, cases, info } = await setUp(config, log);

  // Correctness first: every contender of every case against the f64 reference.
  const checks = {};
  for (const [caseName, contenders] of Object.entries(cases)) {
    for (const contender of contenders) {
      const result = await contender.check();
      checks[`${caseName}/${contender.name}`] = result;
      log(`check ${caseName}/${contender.name}: ${result.ok ? 'ok' : 'FAILED'} (${result.checked} values, worst ${result.worst.toFixed(3)} of the bound)${result.detail ? ` ${result.detail}` : ''}`);
    }
  }
  const failed = Object.entries(checks).filter(([, result]) => !result.ok);
  if (failed.length > 0) return { config, relaxed, info, checks, failed: failed.map(([name]) => name), log: lines };

  const calls = {};
  for (const [caseName, contenders] of Object.entries(cases)) {
    for (const contender of contenders) calls[`${caseName}/${contender.name}`] = await calibrate(contender, config.sampleMilliseconds);
  }
  const times = {}; // "case/contender" → ms per call, one entry per round
  const clock = [];
  for (let round = 0; round < config.rounds; round += 1) {
    clock.push((await measureClock()).hz);
    for (const [caseName, contenders] of Object.entries(cases)) {
      const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]);
      for (const contender of order) {
        const key = `${caseName}/${contender.name}`;
        let best = Infinity;
        for (let sample = 0; sample < config.samples; sample += 1) best = Math.min(best, await timeCalls(contender, calls[key]));
        (times[key] ??= []).push(best);
      }
    }
    log(`round ${round + 1}/${config.rounds}: clock ${(clock[round] / 1e9).toFixed(2)} GHz, matmul ${config.matmulSmall}³ TileLab ${times[`matmulSmall/tilelab-simd128`][round].toFixed(2)} ms`);
  }
  return { config, relaxed, info, checks, failed: [], calls, times, clock, userAgent: navigator.userAgent, log: lines };
}

globalThis.runBench = runBench;
globalThis.benchReady = true;
