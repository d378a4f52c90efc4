// The engine worker: the only module that imports the wasm package. The page talks to it with the
// messages below (see www/engine/protocol.md for the full contract).
//   page → worker  { type: 'run', id, code }        run one cell in the session
//                  { type: 'smoke', id }             the tensor-core self check
//                  { type: 'ask', id, question, … }  'check' (code), 'variables', 'api', 'language' (tag)
//   worker → page  { type: 'ready', version, features: { runCell }, build: { name, reason, samples } }
//                  { type: 'result', id, result }    result: a CellResult (www/engine/contract.d.ts)
//                  { type: 'smoke', id, report }
//                  { type: 'answer', id, value }     the answer to an 'ask'
//                  { type: 'progress', id, label, done, total, message }   long work inside run `id`
//                                                    (message: a `{code, params}` Message or null)
//                  { type: 'error', id, fatal, code, message }
// `fatal: true` means the wasm instance is unusable (a Rust panic, a stack overflow, or an engine that
// no longer answers after an error; see engine/failure.js): the page terminates this worker and
// starts a fresh one.
import { describeFailure } from './engine/failure.js';
import { RELAXED_SIMD_PROBE, cacheKey, calibrate, readCachedChoice, selectBuild, writeCachedChoice } from './engine/build-choice.js';

// Module choice (engine/build-choice.js): the simd128 build, or the relaxed-simd build (its GEMM
// fuses multiply and add) where the engine validates relaxed-simd and a calibration of both builds
// on this browser found it faster; the calibration runs once and is cached per browser.
const importSimd128 = () => import('../pkg/tilelab.js');
const importRelaxed = () => import('../pkg-relaxed/tilelab.js');

/** Starts both builds and times the same matmul in each. */
async function measureBuilds() {
  const [simd128, relaxed] = await Promise.all([importSimd128(), importRelaxed()]);
  await Promise.all([simd128.default(), relaxed.default()]);
  return calibrate({ simd128: simd128.Playground, relaxed: relaxed.Playground }, () => performance.now());
}

const buildChoice = selectBuild({
  relaxedValid: WebAssembly.validate(RELAXED_SIMD_PROBE),
  key: cacheKey(navigator.userAgent, new URL('../pkg-relaxed/tilelab_bg.wasm', import.meta.url).href),
  readCache: readCachedChoice,
  writeCache: writeCachedChoice,
  measure: measureBuilds,
});
const engineModule = buildChoice.then((choice) => (choice.build === 'relaxed' ? importRelaxed() : importSimd128()));
/** The chosen build's `Playground` class, once the module has loaded. */
let Playground = null;

/** The session's run_cell under either of its possible JS names, or null in builds without it. */
function runCellOf(session) {
  const method = session.run_cell ?? session.runCell;
  return typeof method === 'function' ? method.bind(session) : null;
}

/** Runs the engine's warm-up in a worker of its own (www/warm-up-worker.js) and ends it after;
 * skipped where workers cannot start workers. Its outcome stays in `self.tilelabWarmUp` ({ type:
 * 'done', ms } or { type: 'failed', message }), which the tests read; a failure is a console error. */
function startWarmUp(build) {
  if (typeof Worker !== 'function') return;
  let warm;
  const finish = (outcome) => {
    Reflect.set(self, 'tilelabWarmUp', outcome);
    if (outcome.type !== 'done') console.error(`TileLab: the engine warm-up failed: ${outcome.message}`);
    warm?.terminate();
  };
  try {
    warm = new Worker(new URL('./warm-up-worker.js', import.meta.url), { type: 'module' });
  } catch (error) {
    finish({ type: 'failed', message: `it could not start: ${error?.message ?? error}` });
    return;
  }
  warm.addEventListener('message', (event) => finish(event.data?.type === 'done' ? event.data : { type: 'failed', message: String(event.data?.message) }));
  warm.addEventListener('error', (event) => {
    event.preventDefault();
    finish({ type: 'failed', message: event.message || 'its script did not load' });
  });
  warm.postMessage({ build });
}

/** The id of the run request being answered (progress messages name it). */
let runningId = null;

const playground = engineModule.then(async (module) => {
  await module.default();
  Playground = module.Playground;
  const session = new Playground();
  // Builds without the progress hook simply send no progress messages.
  if (typeof session.setProgress === 'function') {
    session.setProgress((label, done, total, message) => self.postMessage({ type: 'progress', id: runningId, label, done, total, message: message ?? null }));
  }
  return session;
});

/** The answer to a question that runs nothing (builds without the method answer emptily). */
function answer(session, request) {
  switch (request.question) {
    case 'check':
      return typeof session.checkSyntax === 'function' ? session.checkSyntax(String(request.code)) : [];
    case 'variables':
      return typeof session.variables === 'function' ? session.variables() : [];
    case 'api':
      return typeof Playground.apiTable === 'function' ? JSON.parse(Playground.apiTable()) : [];
    case 'trace':
      return typeof session.kernelTrace === 'function' ? (session.kernelTrace(String(request.key)) ?? null) : null;
    case 'language':
      if (typeof session.setLanguage === 'function') session.setLanguage(String(request.tag));
      return null;
    default:
      throw new Error(`unknown question '${request.question}'`);
  }
}

/** Replies to one request; every failure becomes an `error` message with the Rust or JS text. */
async function handle(request) {
  const session = await playground;
  switch (request.type) {
    case 'run': {
      const runCell = runCellOf(session);
      if (!runCell) {
        const error = /** @type {Error & { code?: string }} */ (new Error('the interpreter is not in this build yet'));
        error.code = 'unavailable';
        throw error;
      }
      runningId = request.id;
      try {
        return { type: 'result', id: request.id, result: runCell(String(request.code)) };
      } finally {
        runningId = null;
      }
    }
    case 'smoke':
      return { type: 'smoke', id: request.id, report: session.smoke() };
    case 'ask':
      return { type: 'answer', id: request.id, value: answer(session, request) };
    default:
      throw new Error(`unknown request type '${request.type}'`);
  }
}

self.addEventListener('message', (event) => {
  const id = event.data?.id ?? null;
  handle(event.data).then(
    (reply) => self.postMessage(reply),
    (error) => playground.then(
      (session) => self.postMessage(describeFailure(error, id, session, Playground)),
      () => self.postMessage(describeFailure(error, id, null, Playground)),
    ),
  );
});

playground.then(
  async (session) => {
    const { build, reason, samples } = await buildChoice;
    const features = { runCell: runCellOf(session) !== null };
    self.postMessage({ type: 'ready', version: session.version(), features, build: { name: build, reason, samples } });
    // The warm-up (src/session/warm_up.rs) runs small kernels in a worker of its own, so the
    // browser optimises the kernel paths this worker shares with it while this one stays free.
    startWarmUp(build);
  },
  (error) =>
    self.postMessage({ type: 'error', id: null, fatal: true, code: 'start', message: `could not start the engine: ${error?.message ?? error}` }),
);
