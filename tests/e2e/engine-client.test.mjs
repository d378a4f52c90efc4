// The page's engine client (www/engine/client.js) and runner (www/notebook/runner.js) against a
// scripted fake worker: replies, non-fatal errors, a panic (fatal) that restarts the worker and
// leaves cells stale, Stop, and a worker that cannot start (no restart loop).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, EngineError, EngineStopped } from '../../www/engine/client.js';
import { NotebookModel } from '../../www/notebook/model.js';
import { Runner } from '../../www/notebook/runner.js';

/** A stand-in for the module worker: `respond(request, worker)` decides what it posts back. */
class FakeWorker extends EventTarget {
  constructor(respond, { startError = null } = {}) {
    super();
    this.respond = respond;
    this.terminated = false;
    this.received = [];
    queueMicrotask(() =>
      this.post(startError
        ? { type: 'error', id: null, fatal: true, code: 'start', message: startError }
        : { type: 'ready', version: '0.0.0-test', features: { runCell: true } }),
    );
  }

  post(data) {
    if (!this.terminated) this.dispatchEvent(Object.assign(new Event('message'), { data }));
  }

  postMessage(request) {
    this.received.push(request);
    queueMicrotask(() => this.respond(request, this));
  }

  terminate() {
    this.terminated = true;
  }
}

/** A CellResult as the Rust session serialises it (src/session/result.rs). */
function cellResult(count, stdout) {
  return { execution_count: count, status: 'ok', stdout, displays: [], diagnostics: [], duration_ms: 1.5, kernel_runs: [] };
}

function engineWith(respond, options) {
  const workers = [];
  const engine = new Engine(() => {
    const worker = new FakeWorker(respond, options);
    workers.push(worker);
    return worker;
  });
  engine.start();
  return { engine, workers };
}

test('run requests carry ids and resolve to the CellResult; non-fatal errors reject with their code', async () => {
  const { engine, workers } = engineWith((request, worker) => {
    if (request.code === 'bad') worker.post({ type: 'error', id: request.id, fatal: false, code: 'unavailable', message: 'not here' });
    else worker.post({ type: 'result', id: request.id, result: cellResult(request.id, request.code) });
  });
  assert.deepEqual(await engine.run('print(1)'), cellResult(1, 'print(1)'));
  await assert.rejects(engine.run('bad'), (error) => error instanceof EngineError && error.code === 'unavailable' && error.message === 'not here');
  assert.deepEqual(workers[0].received, [{ type: 'run', code: 'print(1)', id: 1 }, { type: 'run', code: 'bad', id: 2 }]);
  assert.equal(engine.status, 'ready');
  assert.equal(engine.version, '0.0.0-test');
});

test('a panic restarts the worker; the runner shows the message and marks cells stale', async () => {
  const { engine, workers } = engineWith((request, worker) => {
    if (request.code === 'panic') worker.post({ type: 'error', id: request.id, fatal: true, code: 'panic', message: 'TileLab: panicked at boom' });
    else worker.post({ type: 'result', id: request.id, result: cellResult(request.id, '') });
  });
  const crashes = [];
  engine.addEventListener('crash', (event) => crashes.push(event.detail.message));
  const model = new NotebookModel();
  model.load([{ kind: 'code', source: 'fine' }, { kind: 'code', source: 'panic' }, { kind: 'code', source: 'never' }]);
  engine.addEventListener('restart', () => model.markStale());
  const runner = new Runner(model, engine);
  const finished = [];
  runner.addEventListener('finished', (event) => finished.push(event.detail.id));
  runner.enqueue(model.cells.map((cell) => cell.id));
  await new Promise((resolve) => setTimeout(resolve, 20));

  assert.deepEqual(crashes, ['TileLab: panicked at boom']);
  assert.equal(workers.length, 2, 'a fresh worker replaced the broken one');
  assert.equal(workers[0].terminated, true);
  const [fine, panicked, never] = model.cells;
  assert.equal(fine.run.state, 'stale', 'its session is gone');
  assert.equal(panicked.run.state, 'stale');
  assert.equal(panicked.run.engineError, 'TileLab: panicked at boom');
  assert.equal(never.run.state, 'idle', 'the rest of the queue was dropped, not run');
  assert.equal(workers[1].received.length, 0);
  assert.deepEqual(finished, [fine.id, panicked.id]);
  // The new worker serves the next run; request ids keep counting, so no reply is mistaken for another.
  assert.deepEqual(await engine.run('again'), cellResult(3, ''));
  assert.deepEqual(workers[1].received, [{ type: 'run', code: 'again', id: 3 }]);
});

test('Stop rejects the running request with EngineStopped and starts a fresh worker', async () => {
  const { engine, workers } = engineWith(() => {
    // Never answers: a runaway cell.
  });
  const running = engine.run('while True: pass');
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(engine.status, 'busy');
  engine.stop();
  await assert.rejects(running, (error) => error instanceof EngineStopped && error.reason === 'stopped');
  await engine.ready;
  assert.equal(workers.length, 2);
  assert.equal(engine.status, 'ready');
});

test('a worker that cannot start fails once, without a restart loop', async () => {
  const { engine, workers } = engineWith(() => {}, { startError: 'could not start the engine: no wasm' });
  assert.equal(await engine.ready, false);
  assert.equal(engine.status, 'failed');
  await assert.rejects(engine.run('x'), (error) => error instanceof EngineError && /no wasm/.test(error.message));
  assert.equal(workers.length, 1);
});
