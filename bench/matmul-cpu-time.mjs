// Matmul GFLOP/s of the wasm simd128 GEMM in headless Chromium, timed two ways: wall-clock
// (performance.now in the page) and the CPU time of the renderer's main thread (DevTools protocol
// Performance.getMetrics → ThreadTime), which leaves out the time other processes on a shared
// machine take from us. Usage: `make bench-matmul-cpu` (playwright-core from the root package.json).
// Needs cargo, wasm-bindgen (CLI, same version as the crate's) and /usr/bin/chromium (or $CHROMIUM).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SIZES = [256, 512, 1024];
const SAMPLES = 9;
const SAMPLE_SECONDS = 0.1; // long against the ~1 ms granularity of the CPU-time metric
const WARM_UP_SECONDS = 0.5; // V8 swaps in optimised wasm only for later calls

/** Builds benches/matmul.rs for wasm32 and returns the path of the .wasm file. */
function buildWasm() {
  const messages = execFileSync(
    'cargo',
    ['build', '--release', '--target', 'wasm32-unknown-unknown', '--bench', 'matmul', '--message-format=json-render-diagnostics'],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 },
  ).toString();
  for (const line of messages.split('\n')) {
    if (!line.startsWith('{')) continue;
    const message = JSON.parse(line);
    if (message.reason === 'compiler-artifact' && message.target.name === 'matmul' && message.executable) return message.executable;
  }
  throw new Error('cargo did not report the matmul bench artifact');
}

/** Serves `directory` (the wasm-bindgen output and a page that loads it) on 127.0.0.1. */
function serve(directory) {
  const page = `<!doctype html><script type="module">
    import init, { matmul_repeat } from './matmul.js';
    await init();
    window.matmul = (size, repeats) => { const start = performance.now(); matmul_repeat(size, repeats); return (performance.now() - start) / 1e3; };
    window.matmulReady = true;
  </script>`;
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const server = createServer((request, response) => {
    const name = new URL(request.url, 'http://127.0.0.1').pathname.slice(1) || 'index.html';
    if (name === 'index.html') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(page);
      return;
    }
    try {
      const body = readFileSync(join(directory, name.replace(/[^\w.-]/g, '')));
      response.writeHead(200, { 'content-type': types[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1];

const wasm = buildWasm();
const out = mkdtempSync(join(tmpdir(), 'tilelab-matmul-'));
execFileSync('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', out, '--out-name', 'matmul', wasm], { stdio: 'inherit' });
const server = await serve(out);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true });
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  await page.waitForFunction(() => window.matmulReady === true);
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('Performance.enable');
  const threadSeconds = async () => (await devtools.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'ThreadTime').value;
  const run = (size, repeats) => page.evaluate(([n, r]) => window.matmul(n, r), [size, repeats]);
  console.log(`matmul in ${browser.version()} (wasm simd128), single thread; GFLOP/s = 2·n³ / time`);
  for (const size of SIZES) {
    let calls = 0;
    let warmUp = 0;
    while (calls < 3 || warmUp < WARM_UP_SECONDS) {
      warmUp += await run(size, 1);
      calls += 1;
    }
    const repeats = Math.max(1, Math.ceil(SAMPLE_SECONDS / (warmUp / calls)));
    const wall = [];
    const cpu = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const before = await threadSeconds();
      wall.push((await run(size, repeats)) / repeats);
      cpu.push(((await threadSeconds()) - before) / repeats);
    }
    const gflops = (seconds) => ((2 * size ** 3) / seconds / 1e9).toFixed(2);
    console.log(
      `matmul chromium ${size}x${size}x${size}: ${gflops(median(cpu))} GFLOP/s median by thread CPU time ` +
        `(best ${gflops(Math.min(...cpu))}); wall-clock median ${gflops(median(wall))}, best ${gflops(Math.min(...wall))}`,
    );
  }
} finally {
  await browser.close();
  server.close();
}
