// The run time of every gallery notebook in the page (issue 17: example 10 ≤ 4 s, every other one
// ≤ 1 s), used by bench-page.mjs. Per notebook and round: a fresh page, ready; the notebook opened
// from the gallery; Run all clicked → every code cell settled (the figure, wall clock in the page),
// with the engine's own time per cell summed beside it. `--profile NAME` also records a CPU profile
// of the engine's worker (CDP) for that notebook and writes it to bench/NAME.cpuprofile (open it in
// Chromium's DevTools, Performance panel).
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Targets of issue 17: example 10 at its full size, and every other notebook. */
export const GALLERY_TARGETS_MS = { '10_swiglu_backward.py': 4000, other: 1000 };

/** The target of notebook `name`, in ms. */
export function galleryTarget(name) {
  return GALLERY_TARGETS_MS[name] ?? GALLERY_TARGETS_MS.other;
}

/** The notebooks of examples/ under `root`, sorted. */
export function galleryNotebooks(root) {
  return readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.py')).sort();
}

// Runs in the page: opens nothing, clicks Run all and resolves once no cell is queued or running,
// with the wall time and the engine's own milliseconds summed over the cells' runs.
async function runAll() {
  const { runner } = globalThis.tilelab;
  let engineMs = 0;
  const listener = (event) => {
    engineMs += event.detail.run?.result?.duration_ms ?? 0;
  };
  runner.addEventListener('finished', listener);
  // Settled: some cell ran and none is queued or running (the states of the notebook's model).
  const settled = () => {
    const states = globalThis.tilelab.model.cells.filter((cell) => cell.kind === 'code').map((cell) => cell.run.state);
    return states.some((state) => state === 'done' || state === 'error') && !states.some((state) => state === 'queued' || state === 'running');
  };
  const started = performance.now();
  document.getElementById('run-all').click();
  await new Promise((resolve) => {
    const poll = () => (settled() ? resolve() : setTimeout(poll, 5));
    setTimeout(poll, 5);
  });
  const wallMs = performance.now() - started;
  runner.removeEventListener('finished', listener);
  const errors = globalThis.tilelab.model.cells.filter((cell) => cell.run?.state === 'error').length;
  return { wallMs, engineMs, errors };
}

/** One timed run of notebook `name`: { wallMs, engineMs, errors }, optionally profiling the worker. */
async function timeNotebook(browser, url, name, profilePath) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const client = profilePath ? await context.newCDPSession(page) : null;
    const workerSessions = [];
    if (client) {
      // The engine runs in a dedicated worker: attach to it (messages relayed through the page session) to profile it.
      client.on('Target.attachedToTarget', async ({ sessionId, targetInfo }) => {
        if (targetInfo.type === 'worker') workerSessions.push(sessionId);
      });
      await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    }
    await page.goto(url);
    await page.waitForSelector('#engine[data-state="ready"]', { timeout: 60_000 });
    await page.click('#examples');
    await page.locator(`#gallery-dialog .gallery-item[data-example="${name}"]`).click();
    await page.waitForFunction(() => globalThis.tilelab.model.cells.some((cell) => cell.kind === 'code'));
    const send = (method, params = {}) =>
      Promise.all(workerSessions.map((sessionId) => client.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method, params }) })));
    if (client) {
      await send('Profiler.enable');
      await send('Profiler.setSamplingInterval', { interval: 200 });
      await send('Profiler.start');
    }
    const result = await page.evaluate(runAll);
    if (client) await stopProfile(client, workerSessions, profilePath);
    return result;
  } finally {
    await context.close();
  }
}

// Stops the worker's profiler and writes its profile (the reply arrives as a target message).
async function stopProfile(client, sessions, path) {
  if (sessions.length === 0) throw new Error('no worker to profile: the engine worker was not attached');
  const reply = new Promise((resolve) => {
    client.on('Target.receivedMessageFromTarget', ({ message }) => {
      const parsed = JSON.parse(message);
      if (parsed.id === 2 && parsed.result?.profile) resolve(parsed.result.profile);
    });
  });
  await client.send('Target.sendMessageToTarget', { sessionId: sessions[0], message: JSON.stringify({ id: 2, method: 'Profiler.stop' }) });
  writeFileSync(path, JSON.stringify(await reply));
}

/** The median of a list of numbers. */
function middle(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

/**
 * Every gallery notebook `rounds` times: per notebook { name, samples, min, median, max, engineMedian,
 * errors, target }. `profile` names a notebook whose worker is profiled in its first round.
 */
export async function galleryRunTimes(browser, url, root, { rounds = 3, only = null, profile = null } = {}) {
  const results = [];
  for (const name of galleryNotebooks(root)) {
    if (only && !only.includes(name)) continue;
    const samples = [];
    for (let round = 0; round < rounds; round += 1) {
      const profilePath = profile === name && round === 0 ? join(root, 'bench', `${name.replace(/\.py$/, '')}.cpuprofile`) : null;
      samples.push(await timeNotebook(browser, url, name, profilePath));
    }
    const walls = samples.map((sample) => sample.wallMs);
    results.push({
      name,
      samples: walls,
      min: Math.min(...walls),
      median: middle(walls),
      max: Math.max(...walls),
      engineMedian: middle(samples.map((sample) => sample.engineMs)),
      errors: Math.max(...samples.map((sample) => sample.errors)),
      target: galleryTarget(name),
    });
  }
  return results;
}
