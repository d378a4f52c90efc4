// `make bench`: serves the repository on 127.0.0.1 (cross-origin isolated, for a 5 µs timer),
// opens bench/page/ in one headless Chromium page (Debian's, through playwright-core), runs every
// contender there (bench/page/bench.mjs), and writes bench/results.json and docs/benchmarks.md.
// Usage: node scripts/bench-run.mjs [--smoke] [--rounds N] [--report]
//   --smoke   one round at tiny sizes, correctness checks on, nothing written (tests/e2e/bench-smoke)
//   --report  no run: regenerate docs/benchmarks.md from bench/results.json (same figures and prose)
import { createServer } from 'node:http';
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { figuresFor, markdownReport } from './bench-figures.mjs';
import { writeModels } from './bench-onnx-model.mjs';

const ROOT = resolve(join(fileURLToPath(import.meta.url), '..', '..'));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.onnx': 'application/octet-stream' };
/** Only these trees are served: the page, the models, the wasm builds and the peers' packages. */
const SERVED = ['bench/', 'www/engine/', 'pkg/', 'pkg-relaxed/', 'node_modules/@tensorflow/', 'node_modules/onnxruntime-web/'];

/** A static server of the repository's benchmark files on a free loopback port. */
export async function startBenchServer() {
  const server = createServer(async (request, response) => {
    const relative = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname).replace(/^\/+/, '');
    const path = normalize(join(ROOT, relative));
    const allowed = path.startsWith(ROOT + sep) && SERVED.some((prefix) => relative.startsWith(prefix));
    const info = allowed ? await stat(path).catch(() => null) : null;
    if (!info?.isFile()) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    response.writeHead(200, {
      'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': 'no-store',
    });
    createReadStream(path).pipe(response);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

/**
 * Bundles tfjs-core, its gradients and the wasm backend from node_modules into
 * bench/page/build/tfjs.mjs (the published core bundles lack the gradients the MLP step needs).
 */
export async function buildTfjsBundle() {
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    build: {
      lib: { entry: join(ROOT, 'bench', 'page', 'tfjs-entry.mjs'), formats: ['es'], fileName: () => 'tfjs.mjs' },
      outDir: join(ROOT, 'bench', 'page', 'build'),
      emptyOutDir: true,
      minify: false,
      target: 'es2022',
    },
  });
}

/** Family, model and stepping from /proc/cpuinfo (a VM often hides the marketing name). */
function cpuIdentity() {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const field = (name) => info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
    const flags = field('flags')?.split(' ') ?? [];
    const features = ['avx2', 'fma', 'avx512f'].filter((flag) => flags.includes(flag));
    return `family ${field('cpu family')}, model ${field('model')}, stepping ${field('stepping')}; ${features.join(', ')}`;
  } catch {
    return null;
  }
}

/**
 * The native simulator's events and cycles of the SwiGLU backward b kernel at `rows` rows, cold
 * L2, from the golden file of tests/npu/engine_identity.rs (the page's check compares its own run
 * with them); null when the file has no such line.
 */
export function nativeSwiglu(rows) {
  const golden = readFileSync(join(ROOT, 'tests', 'npu', 'engine_identity.golden'), 'utf8');
  const line = golden.split('\n').find((text) => text.startsWith(`bench_swiglu_b_${rows} cold `));
  const events = line?.match(/ events (\d+) /)?.[1];
  const cycles = line?.match(/"cycles":(\d+)/)?.[1];
  return events && cycles ? { events: Number(events), cycles: Number(cycles) } : null;
}

/** Runs the page and returns { raw, environment }; throws when a contender fails its check. */
export async function runBenchmark({ smoke = false, rounds } = {}) {
  for (const build of process.env.BENCH_SIMD128_ONLY ? ['pkg'] : ['pkg', 'pkg-relaxed']) {
    if (!existsSync(join(ROOT, build, 'tilelab_bg.wasm'))) throw new Error(`${build}/ is missing: run make wasm wasm-relaxed`);
  }
  writeModels(join(ROOT, 'bench', 'models'));
  await buildTfjsBundle();
  const loadBefore = loadavg().map((value) => Number(value.toFixed(2)));
  const { server, url } = await startBenchServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => process.stderr.write(`page: ${message.text()}\n`));
    await page.goto(`${url}/bench/page/index.html`);
    await page.waitForFunction(() => globalThis.benchReady === true, null, { timeout: 60_000 });
    // BENCH_SIMD128_ONLY=1 skips the relaxed build (while it is being built, or to halve the run).
    const overrides = { smoke, swigluExpected: nativeSwiglu(22000), ...(rounds ? { rounds } : {}), ...(process.env.BENCH_SIMD128_ONLY ? { simd128Only: true } : {}) };
    const raw = await page.evaluate((options) => globalThis.bench.setUpBench(options), overrides);
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
    if (raw.failed.length > 0) throw new Error(`correctness check failed before timing: ${raw.failed.join(', ')}`);
    Object.assign(raw, await runRounds(page, raw));
    const environment = {
      date: new Date().toISOString(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cpuId: cpuIdentity(),
      cores: cpus().length,
      note: process.env.BENCH_NOTE || null,
      browser: `Chromium ${browser.version()}`,
      loadBefore,
      loadAfter: loadavg().map((value) => Number(value.toFixed(2))),
      clockHz: [...raw.clock].sort((x, y) => x - y)[raw.clock.length >> 1],
    };
    return { raw, environment };
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
  }
}

/**
 * The timed rounds. In each round every case times each of its contenders once, in an order
 * rotated from round to round; a sample's time is the renderer main thread's CPU time (DevTools
 * Performance.getMetrics ThreadTime, ~1 ms granularity against ≥ 100 ms samples) divided by its
 * calls, with the wall-clock time kept beside it. Returns { times, wallTimes, clock }.
 */
async function runRounds(page, setup) {
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('Performance.enable');
  const threadSeconds = async () => (await devtools.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'ThreadTime').value;
  const times = {};
  const wallTimes = {};
  const clock = [];
  for (let round = 0; round < setup.config.rounds; round += 1) {
    clock.push((await page.evaluate(() => globalThis.bench.measureClock())).hz);
    for (const keys of Object.values(setup.keys)) {
      const order = keys.map((_, i) => keys[(i + round) % keys.length]);
      for (const key of order) {
        await page.evaluate((name) => globalThis.bench.prepareSample(name), key);
        const before = await threadSeconds();
        const wall = await page.evaluate((name) => globalThis.bench.sample(name), key);
        const cpu = ((await threadSeconds()) - before) * 1000 / setup.calls[key];
        (times[key] ??= []).push(cpu);
        (wallTimes[key] ??= []).push(wall);
      }
    }
    const key = 'matmulSmall/tilelab-simd128';
    process.stderr.write(`round ${round + 1}/${setup.config.rounds}: clock ${(clock[round] / 1e9).toFixed(2)} GHz, ${key} ${times[key][round].toFixed(2)} ms CPU, ${wallTimes[key][round].toFixed(2)} ms wall\n`);
  }
  return { times, wallTimes, clock };
}

/** How the numbers are made, for the report. */
export const METHOD = [
  'One headless Chromium page loads every contender from node_modules and the two TileLab wasm builds (pkg/: simd128; pkg-relaxed/: simd128 + relaxed-simd, loaded only where WebAssembly.validate accepts a relaxed_madd module).',
  'Before any timing, each contender runs each case once on seeded inputs and is compared, every element, with an f64 reference written in bench/page/reference.mjs. Matmul and sum inputs lie on a power-of-two grid (2⁻⁶ and 2⁻³ in [−1, 1]) small enough that every partial sum, in any order, with or without fused multiply-add, is an exact f32 value (k·2¹² ≤ 2²⁴, n·2³ ≤ 2²⁴): each result must equal the f64 one exactly, so one wrong element, one dropped term or f16-precision arithmetic fails. Add: every element within half an ulp of the f64 sum. MLP step: the loss and every updated parameter within 1e-5 + 1e-4·|ref|. The simulated NPU matmul: its instructions, trace events, cores, GM bytes read and written and FLOPs equal the closed form of the tile plan (reference.mjs npuMatmulPlan), and its time is at least the cube roofline of its busiest core. tests/e2e/bench-smoke.test.mjs shows each check rejecting a one-element error.',
  'TileLab runs through Playground.bench* (src/wasm_api.rs → src/session/bench.rs): Tensor::matmul, Tensor::binary, Tensor::reduce, and autograd (Var) for the MLP; inputs are uploaded once, like the peers\' tensors.',
  'tfjs (bundled from node_modules with its gradients by Vite into bench/page/build/): setThreadsCount(1) before setBackend("wasm"), single-threaded SIMD binary. "fresh B" multiplies by a B tensor never used before (XNNPACK packs it in the call); "cached B" reuses one B (XNNPACK keeps the packed operator). The MLP step is raced in tfjs\'s two idiomatic forms: "tfjs-transpose" (figure 6) writes the backward with explicit tf.transpose before each matMul, which keeps every product on XNNPACK — tfjs\'s fastest form, since its own matMul gradient multiplies with transposeA/transposeB flags that tfjs-backend-wasm 4.22 runs as a scalar loop; "tfjs-grads" (figure 6b) differentiates the loss with tf.grads and applies the same SGD update. TileLab\'s step is autograd\'s backward (Var), with no hand-written gradient.',
  'onnxruntime-web: ort.env.wasm.numThreads = 1, wasm EP, the MatMul model written by scripts/bench-onnx-model.mjs (A and B are inputs, so B is packed per call, as in TileLab); each run copies the inputs in and the output out, as the API does.',
  'Clock (figure 3): a wasm function assembled in bench/page/clock.mjs runs a chain of 64 dependent 1-cycle integer ops (add, xor) per loop iteration; clock = 64·iterations / time, best of 40 runs of ~1 ms, once per round. Peak = 16 FLOP/cycle × clock.',
  'Figure 7: the same A and B stored as bf16 tensors, multiplied into an f32 result (out_dtype f32; both accumulate in f32); the GEMM widens bf16 to f32 while packing the panels, so no f32 copy of the operands is made.',
  'Figure 8 times compiling the tile plan (a whole-tensor matmul through tile::lower_work, tiles as benches/npu.rs) plus npu::simulate, inside the page; figure 8b times npu::simulate alone on the plan built beforehand (Playground.benchNpuPlan, then benchNpuSimulate per call) and divides its events by the time; figure 8c does the same on the SwiGLU backward b kernel of examples/10 at M = 22000 (src/session/bench_kernels.rs, as cargo bench --bench npu: benchNpuPlanKernel, then benchNpuSimulateKernel), checked against the events and cycles of the native run in tests/npu/engine_identity.golden.',
  'Figures 9a–9h: add, mul, exp and sum over 2²⁰ and 2²⁴ f32 (TileLab builds and tfjs), and a `memory.copy` of the same n·4 bytes in a wasm module assembled in bench/page/wasm-loops.mjs (with a second reference, a plain wasm loop of f32x4 loads and stores over the same bytes, and plain wasm loops with the streams of add, mul and sum), all timed in the same rounds; bytes per second count f32 reads plus writes (add, mul 12 B per element, exp 8, sum 4, copy 8). Mul must be correctly rounded, exp within 4 ulps of f64 Math.exp, the copy byte-exact.',
];

/**
 * Writes bench/results.json and docs/benchmarks.md from a run. The figures and the analysis prose
 * are both computed from `raw` (scripts/bench-figures.mjs, scripts/bench-analysis.mjs); the method
 * text is the one of the code that made the run (kept in results.json with it).
 */
export function writeReports({ raw, environment, method = METHOD }) {
  const figures = Object.fromEntries(raw.info.tilelab.map((build) => [build, figuresFor(raw, build)]));
  const results = { environment, figures, raw, method };
  writeFileSync(join(ROOT, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  // The page's gallery figures (make bench-page) go in the same report, with their own date and load.
  const pagePath = join(ROOT, 'bench', 'page-results.json');
  const page = existsSync(pagePath) ? JSON.parse(readFileSync(pagePath, 'utf8')) : null;
  writeFileSync(join(ROOT, 'docs', 'benchmarks.md'), markdownReport(results, page));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const smoke = process.argv.includes('--smoke');
  const roundsIndex = process.argv.indexOf('--rounds');
  const rounds = roundsIndex > 0 ? Number(process.argv[roundsIndex + 1]) : undefined;
  // --report: rewrite docs/benchmarks.md (figures and analysis) from the stored bench/results.json,
  // without running anything: the command that regenerates every figure of the page from its run.
  const reportOnly = process.argv.includes('--report');
  const run = reportOnly ? JSON.parse(readFileSync(join(ROOT, 'bench', 'results.json'), 'utf8')) : await runBenchmark({ smoke, rounds });
  if (smoke) {
    console.log('smoke run: every contender passed its check');
  } else {
    const results = writeReports(run);
    for (const [build, list] of Object.entries(results.figures)) {
      console.log(`TileLab ${build}:`);
      for (const figure of list) console.log(`  ${figure.id.padEnd(3)} ${figure.pass ? 'pass' : 'MISS'}  median ${figure.median.toFixed(3)} (min ${figure.min.toFixed(3)}, max ${figure.max.toFixed(3)}; target ${figure.below ? '<' : '≥'} ${figure.target})  ${figure.title}`);
    }
    console.log('wrote bench/results.json and docs/benchmarks.md');
  }
}
