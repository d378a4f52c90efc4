// The eight figures of issue 8 from the raw per-round times of bench/page/bench.mjs, and the
// Markdown table of docs/benchmarks.md. Each figure is computed within each round (both times of
// a ratio come from the same round) and summarised as median, min and max over the rounds.
import { analysisLines } from './bench-analysis.mjs';

/** FLOP per cycle of the simd128 peak the issue defines (f32x4 multiply + add, two per cycle). */
export const PEAK_FLOP_PER_CYCLE = 16;

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** { median, min, max, rounds } of per-round values. */
export function spread(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), rounds: values.length };
}

/**
 * The figures for one TileLab build (`simd128` or `relaxed`). Ratios are speed ratios (the
 * peer's time ÷ TileLab's), so > 1 means TileLab is faster.
 */
export function figuresFor(raw, build) {
  const t = (key) => raw.times[key];
  const has = (key) => Array.isArray(raw.times[key]);
  const tile = (caseName, suffix = '') => `${caseName}/tilelab-${build}${suffix}`;
  // A figure whose contenders this run did not time (a results.json from before a contender was
  // added) is left out rather than computed from something else.
  const perRound = (numerator, denominator) => (has(numerator) && has(denominator) ? t(numerator).map((value, round) => value / t(denominator)[round]) : null);
  const size = raw.config.matmulSmall;
  const flop = 2 * size ** 3;
  const figures = [
    { id: '1', title: `f32 matmul ${size}³: TileLab ÷ tfjs-wasm, fresh B each call`, target: 1.3, values: perRound('matmulSmall/tfjs-fresh', tile('matmulSmall')) },
    { id: '1c', title: `f32 matmul ${size}³: TileLab ÷ tfjs-wasm, cached B`, target: 1.3, values: perRound('matmulSmall/tfjs-cached', tile('matmulSmall')) },
    { id: '2', title: `f32 matmul ${raw.config.matmulLarge}³: TileLab ÷ onnxruntime-web`, target: 1.1, values: perRound('matmulLarge/ort', tile('matmulLarge')) },
    {
      id: '3',
      title: `f32 matmul ${size}³ as a fraction of the simd128 peak (${PEAK_FLOP_PER_CYCLE} FLOP/cycle × measured clock)`,
      target: 0.6,
      values: t(tile('matmulSmall'))?.map((ms, round) => flop / (ms / 1000) / (PEAK_FLOP_PER_CYCLE * raw.clock[round])),
    },
    { id: '5a', title: `add over ${raw.config.vector} f32: TileLab ÷ tfjs`, target: 1.5, values: perRound('add/tfjs', tile('add')) },
    { id: '5b', title: `sum over ${raw.config.vector} f32: TileLab ÷ tfjs`, target: 4, values: perRound('sum/tfjs', tile('sum')) },
    { id: '6', title: 'MLP training step 784-512-10, batch 64: TileLab ÷ tfjs-wasm (explicit transposes, tfjs\'s fastest form)', target: 1.5, values: perRound('mlp/tfjs-transpose', tile('mlp')) },
    { id: '6b', title: 'MLP training step 784-512-10, batch 64: TileLab ÷ tfjs-wasm (tf.grads)', target: 1.5, values: perRound('mlp/tfjs-grads', tile('mlp')) },
    { id: '7', title: `matmul ${size}³ with bf16 storage ÷ f32 (same build)`, target: 0.95, values: perRound(tile('matmulSmall'), tile('matmulSmall', '-bf16')) },
    { id: '8', title: `simulate a ${raw.config.npu}³ bf16 matmul on Ascend910B2 (plan + simulation), ms`, target: 100, below: true, values: t(tile('npu')) ?? null },
  ];
  if (build === 'relaxed' && has('matmulSmall/tilelab-simd128')) {
    figures.splice(4, 0, { id: '4', title: `relaxed build ÷ simd128 build, matmul ${size}³`, target: 1.1, values: perRound('matmulSmall/tilelab-simd128', tile('matmulSmall')) });
  }
  const measured = figures.filter((figure) => figure.values);
  measured.missing = figures.filter((figure) => !figure.values).map((figure) => `${figure.id} (${figure.title})`);
  return Object.assign(measured.map((figure) => {
    const summary = spread(figure.values);
    const pass = figure.below ? summary.median < figure.target : summary.median >= figure.target;
    return { ...figure, ...summary, pass };
  }), { missing: measured.missing });
}

/** GFLOP/s of every matmul contender (median over rounds). */
export function matmulRates(raw) {
  const rates = {};
  for (const [key, values] of Object.entries(raw.times)) {
    const [caseName] = key.split('/');
    if (!caseName.startsWith('matmul')) continue;
    const size = caseName === 'matmulSmall' ? raw.config.matmulSmall : raw.config.matmulLarge;
    rates[key] = (2 * size ** 3) / (median(values) / 1000) / 1e9;
  }
  return rates;
}

const format = (value, figure) => (figure.below ? `${value.toFixed(1)} ms` : figure.id === '3' ? `${(100 * value).toFixed(1)}%` : `${value.toFixed(2)}×`);
const targetText = (figure) => (figure.below ? `< ${figure.target} ms` : figure.id === '3' ? `≥ ${100 * figure.target}%` : `≥ ${figure.target}×`);

/** The Markdown report: environment, figures for each build, per-contender times and rates. */
export function markdownReport(results) {
  const { environment, figures, raw } = results;
  const lines = [];
  lines.push('# Benchmarks against in-browser peers');
  lines.push('');
  lines.push(`Measured by \`make bench\` on ${environment.date}. Generated file: every figure and every number of the analysis comes from that run's bench/results.json; \`node scripts/bench-run.mjs --report\` rewrites this page from it, \`make bench\` makes a new run (edit scripts/bench-figures.mjs and scripts/bench-analysis.mjs, not this page).`);
  lines.push('');
  if (environment.note) {
    lines.push(`> ${environment.note}`);
    lines.push('');
  }
  lines.push(`- CPU: ${environment.cpu}${environment.cpuId ? ` (${environment.cpuId})` : ''}, ${environment.cores} cores; clock measured in the page: ${(environment.clockHz / 1e9).toFixed(2)} GHz (median)`);
  lines.push(`- Browser: ${environment.browser}, headless; ${raw.relaxed ? 'relaxed-simd supported' : 'no relaxed-simd'}`);
  lines.push(`- Load average (1, 5, 15 min) before: ${environment.loadBefore.join(', ')}; after: ${environment.loadAfter.join(', ')}`);
  lines.push(`- Peers: tfjs-core + tfjs-backend-wasm ${raw.info.tfjs.version} (SIMD ${raw.info.tfjs.simd}, ${raw.info.tfjs.threads} thread), onnxruntime-web ${raw.info.ort.version} (wasm EP, ${raw.info.ort.threads} thread)`);
  lines.push(`- ${raw.config.rounds} rounds; in each, every contender runs one sample of ~${raw.config.sampleMilliseconds} ms timed by the renderer thread's CPU time; ratios are taken within the round.`);
  lines.push('');
  for (const [build, list] of Object.entries(figures)) {
    lines.push(`## Figures, TileLab ${build} build`);
    lines.push('');
    lines.push('| # | figure | target | median | min | max | |');
    lines.push('|---|---|---|---|---|---|---|');
    for (const figure of list) {
      lines.push(`| ${figure.id} | ${figure.title} | ${targetText(figure)} | ${format(figure.median, figure)} | ${format(figure.min, figure)} | ${format(figure.max, figure)} | ${figure.pass ? 'pass' : 'miss'} |`);
    }
    lines.push('');
    const missing = figuresFor(raw, build).missing;
    if (missing.length > 0) {
      lines.push(`Not measured in this run (its results predate these contenders): ${missing.join('; ')}.`);
      lines.push('');
    }
  }
  lines.push('## Times per call (median over rounds)');
  lines.push('');
  lines.push('| case / contender | ms | GFLOP/s |');
  lines.push('|---|---|---|');
  const rates = matmulRates(raw);
  for (const [key, values] of Object.entries(raw.times)) {
    lines.push(`| ${key} | ${median(values).toFixed(3)} | ${rates[key] ? rates[key].toFixed(1) : ''} |`);
  }
  lines.push('');
  lines.push(...analysisLines(results));
  lines.push('## Method');
  lines.push('');
  for (const line of results.method) lines.push(`- ${line}`);
  lines.push('');
  return lines.join('\n');
}
