// The figures of issues 8 and 17 (targets of issue 17 where it raised them: 2, 3, and the memory-bound 9a–9h) from the raw per-round times of bench/page/bench.mjs, and the
// Markdown table of docs/benchmarks.md. Each figure is computed within each round (both times of
// a ratio come from the same round) and summarised as median, min and max over the rounds.
import { analysisLines } from './bench-analysis.mjs';
import { BYTES_PER_ELEMENT } from '../bench/page/memory.mjs';

/** Fraction of the copy bandwidth each memory-bound op must reach (issue 17, item 5). */
export const BANDWIDTH_TARGET = 0.9;

/** The memory-bound cases: op, case-name suffix and element count of each. */
export function memoryBoundRows(raw) {
  const sizes = [['', raw.config.vector], ['Large', raw.config.vectorLarge]].filter(([, count]) => count);
  return sizes.flatMap(([suffix, count]) => ['add', 'mul', 'exp', 'sum'].map((op) => ({ op, suffix, count })));
}

/** Per round: the op's bytes per second ÷ the copy's (same round, same element count). */
function bandwidthFraction(raw, key, op, suffix) {
  const copy = raw.times[`copy${suffix}/memory.copy`];
  const times = raw.times[key];
  if (!copy || !times) return null;
  return times.map((ms, round) => (BYTES_PER_ELEMENT[op] * copy[round]) / (BYTES_PER_ELEMENT.copy * ms));
}

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
  // The simulator's events per call, from its check (the events of the plan it simulates).
  const events = raw.checks?.[tile('npuSimulate')]?.events;
  const swigluEvents = raw.checks?.[tile('npuSwiglu')]?.events;
  const figures = [
    { id: '1', title: `f32 matmul ${size}³: TileLab ÷ tfjs-wasm, fresh B each call`, target: 1.3, values: perRound('matmulSmall/tfjs-fresh', tile('matmulSmall')) },
    { id: '1c', title: `f32 matmul ${size}³: TileLab ÷ tfjs-wasm, cached B`, target: 1.3, values: perRound('matmulSmall/tfjs-cached', tile('matmulSmall')) },
    { id: '2', title: `f32 matmul ${raw.config.matmulLarge}³: TileLab ÷ onnxruntime-web`, target: 1.3, values: perRound('matmulLarge/ort', tile('matmulLarge')) },
    {
      id: '3',
      title: `f32 matmul ${size}³ as a fraction of the simd128 peak (${PEAK_FLOP_PER_CYCLE} FLOP/cycle × measured clock)`,
      target: 0.75,
      values: t(tile('matmulSmall'))?.map((ms, round) => flop / (ms / 1000) / (PEAK_FLOP_PER_CYCLE * raw.clock[round])),
    },
    { id: '5a', title: `add over ${raw.config.vector} f32: TileLab ÷ tfjs`, target: 1.5, values: perRound('add/tfjs', tile('add')) },
    { id: '5b', title: `sum over ${raw.config.vector} f32: TileLab ÷ tfjs`, target: 4, values: perRound('sum/tfjs', tile('sum')) },
    { id: '6', title: 'MLP training step 784-512-10, batch 64: TileLab ÷ tfjs-wasm (explicit transposes, tfjs\'s fastest form)', target: 1.5, values: perRound('mlp/tfjs-transpose', tile('mlp')) },
    { id: '6b', title: 'MLP training step 784-512-10, batch 64: TileLab ÷ tfjs-wasm (tf.grads)', target: 1.5, values: perRound('mlp/tfjs-grads', tile('mlp')) },
    { id: '7', title: `matmul ${size}³ with bf16 storage ÷ f32 (same build)`, target: 0.95, values: perRound(tile('matmulSmall'), tile('matmulSmall', '-bf16')) },
    { id: '8', title: `simulate a ${raw.config.npu}³ bf16 matmul on Ascend910B2 (plan + simulation), ms`, target: 100, below: true, values: t(tile('npu')) ?? null },
    {
      id: '8b',
      title: `the simulator alone on that plan (${events} events): M simulated events per second`,
      target: 5,
      values: has(tile('npuSimulate')) && events ? t(tile('npuSimulate')).map((ms) => events / ms / 1000) : null,
    },
    {
      id: '8c',
      title: `the simulator alone on the SwiGLU backward b kernel of examples/10 (M = ${raw.config.swiglu}, ${swigluEvents} events): M simulated events per second`,
      target: 5,
      values: has(tile('npuSwiglu')) && swigluEvents ? t(tile('npuSwiglu')).map((ms) => swigluEvents / ms / 1000) : null,
    },
  ];
  memoryBoundRows(raw).forEach(({ op, suffix, count }, index) => {
    figures.push({
      id: `9${String.fromCharCode(97 + index)}`,
      title: `${op} over ${count} f32: bandwidth (${BYTES_PER_ELEMENT[op]} B/element) ÷ memory.copy of the same ${4 * count} B, same round`,
      target: BANDWIDTH_TARGET,
      fraction: true,
      values: bandwidthFraction(raw, tile(`${op}${suffix}`), op, suffix),
    });
  });
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

const percent = (figure) => figure.id === '3' || figure.fraction;
/** The figures in simulated events per second (the others are ratios, fractions or ms). */
const eventRate = (figure) => figure.id === '8b' || figure.id === '8c';
const format = (value, figure) => (figure.below ? `${value.toFixed(1)} ms` : percent(figure) ? `${(100 * value).toFixed(1)}%` : eventRate(figure) ? `${value.toFixed(2)} M/s` : `${value.toFixed(2)}×`);
const targetText = (figure) => (figure.below ? `< ${figure.target} ms` : percent(figure) ? `≥ ${100 * figure.target}%` : eventRate(figure) ? `≥ ${figure.target} M/s` : `≥ ${figure.target}×`);

/** The memory-bound table: per op and size, GB/s of each contender and of memory.copy, TileLab ÷ tfjs. */
function memoryBoundTable(raw) {
  const builds = raw.info.tilelab;
  const keys = (op, suffix) => [`${op}${suffix}/tfjs`, `copy${suffix}/memory.copy`, ...builds.map((build) => `${op}${suffix}/tilelab-${build}`)];
  const rows = memoryBoundRows(raw).filter(({ op, suffix }) => keys(op, suffix).every((key) => raw.times[key]));
  if (rows.length === 0) return [];
  const gbps = (key, op, count) => (BYTES_PER_ELEMENT[op] * count) / (median(raw.times[key]) / 1000) / 1e9;
  // The second reference (runs from before it was added have none): a plain wasm loop copy.
  const loop = rows.every(({ suffix }) => raw.times[`copy${suffix}/wasm loop copy`]);
  // The third (runs from before it was added have none): plain wasm loops with the op's streams.
  const opLoops = rows.some(({ op, suffix }) => raw.times[`${op}${suffix}/wasm loop`]);
  const lines = ['## Memory-bound ops against memory.copy (median over rounds)', ''];
  lines.push(`| op | f32 elements | memory.copy GB/s | ${loop ? 'wasm loop copy GB/s | ' : ''}${opLoops ? 'wasm loop of the op GB/s | ' : ''}${builds.map((build) => `TileLab ${build} GB/s`).join(' | ')} | tfjs GB/s | TileLab ${builds.at(-1)} ÷ tfjs |`);
  lines.push(`|---|---|---|${loop ? '---|' : ''}${opLoops ? '---|' : ''}${builds.map(() => '---|').join('')}---|---|`);
  for (const { op, suffix, count } of rows) {
    const copy = gbps(`copy${suffix}/memory.copy`, 'copy', count);
    const loopCopy = loop ? `${gbps(`copy${suffix}/wasm loop copy`, 'copy', count).toFixed(1)} | ` : '';
    const opLoopKey = `${op}${suffix}/wasm loop`;
    const opLoop = opLoops ? `${raw.times[opLoopKey] ? gbps(opLoopKey, op, count).toFixed(1) : '—'} | ` : '';
    const tile = builds.map((build) => gbps(`${op}${suffix}/tilelab-${build}`, op, count).toFixed(1));
    const ratio = median(raw.times[`${op}${suffix}/tfjs`]) / median(raw.times[`${op}${suffix}/tilelab-${builds.at(-1)}`]);
    lines.push(`| ${op} | ${count} | ${copy.toFixed(1)} | ${loopCopy}${opLoop}${tile.join(' | ')} | ${gbps(`${op}${suffix}/tfjs`, op, count).toFixed(1)} | ${ratio.toFixed(2)}× |`);
  }
  lines.push('');
  lines.push(`Bytes moved per element: ${Object.entries(BYTES_PER_ELEMENT).map(([op, bytes]) => `${op} ${bytes}`).join(', ')} (f32 reads + writes; memory.copy of n·4 bytes reads and writes them once).`);
  if (loop) {
    lines.push('');
    lines.push('The wasm loop copy (bench/page/wasm-loops.mjs `loopCopy`: f32x4 loads and stores, 64 bytes per iteration) is the second reference: its stores are ordinary ones, like those of any wasm kernel, so each line it writes is first read (write-allocate), where `memory.copy` (the engine\'s memmove) streams large blocks with non-temporal stores. The figures stay against `memory.copy`.');
  }
  if (opLoops) {
    lines.push('');
    lines.push('The wasm loop of the op (bench/page/wasm-loops.mjs `loopAdd`, `loopMul`, `loopRead`: f32x4 loads, the op — for sum a read xor-ed into four accumulators — and ordinary stores, 64 bytes per iteration, checked like the op) has the op\'s streams and nothing else: what any wasm kernel of that op can reach. Exp has none (it is arithmetic-bound).');
  }
  lines.push('');
  return lines;
}

/** The gallery section from `make bench-page`'s results (bench/page-results.json), when it has one. */
function galleryTable(page) {
  if (!page?.gallery?.length) return [];
  const load = page.machine.loadAverage1m;
  const lines = ['## Gallery notebooks in the page (`make bench-page`)', ''];
  lines.push(
    `Measured on ${page.date} in headless ${page.chromium ? `Chromium ${page.chromium}` : 'Chromium'}, ${page.machine.cores} cores, ` +
      `1-minute load average ${load.before.toFixed(1)} before and ${load.after.toFixed(1)} after. Per notebook and round: a fresh page, ` +
      'the notebook opened from the gallery, Run all clicked → every code cell settled (wall clock in the page); "engine" sums ' +
      "the engine's own time over the cells' runs (median). The engine's warm-up worker, started when the engine is ready, " +
      'may still be running when Run all is clicked (it shares the two cores).',
  );
  lines.push('');
  lines.push('| notebook | median | min | max | engine | target | |');
  lines.push('|---|---|---|---|---|---|---|');
  for (const notebook of page.gallery) {
    const verdict = notebook.errors > 0 ? `${notebook.errors} cells in error` : notebook.median <= notebook.target ? 'pass' : 'miss';
    lines.push(`| ${notebook.name} | ${notebook.median.toFixed(0)} ms | ${notebook.min.toFixed(0)} ms | ${notebook.max.toFixed(0)} ms | ${notebook.engineMedian.toFixed(0)} ms | ≤ ${notebook.target} ms | ${verdict} |`);
  }
  lines.push('');
  return lines;
}

/** The Markdown report: environment, figures for each build, per-contender times and rates. */
export function markdownReport(results, page = null) {
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
  lines.push(...memoryBoundTable(raw));
  lines.push(...galleryTable(page));
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
