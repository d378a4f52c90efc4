// The only module that imports the wasm package. It runs in a Web Worker so that long work never
// blocks the page; the page talks to it with messages: { type: 'smoke' } → { type: 'smoke', report }.
import init, { Playground } from '../pkg/tilelab.js';

/**
 * The message for a failure: a Rust panic traps as `RuntimeError: unreachable`, so its real
 * message is fetched from the engine; after a trap the engine's state is unreliable (`fatal`).
 */
function describe(error) {
  if (error instanceof WebAssembly.RuntimeError) {
    let panic = null;
    try {
      panic = Playground.takePanicMessage() ?? null;
    } catch {
      // The engine is too broken to answer; the trap's own message is all there is.
    }
    return { type: 'error', fatal: true, message: panic ?? `the engine stopped: ${error.message}` };
  }
  return { type: 'error', fatal: false, message: error instanceof Error ? error.message : String(error) };
}

const playground = init().then(() => new Playground());

/** Replies to one request; every failure becomes an `error` message with the Rust or JS text. */
async function handle(request) {
  const session = await playground;
  switch (request.type) {
    case 'smoke':
      return { type: 'smoke', report: session.smoke() };
    default:
      throw new Error(`unknown request type '${request.type}'`);
  }
}

self.addEventListener('message', (event) => {
  handle(event.data).then(
    (reply) => self.postMessage(reply),
    (error) => self.postMessage(describe(error)),
  );
});

playground.then(
  (session) => self.postMessage({ type: 'ready', version: session.version() }),
  (error) => self.postMessage({ type: 'error', fatal: true, message: `could not start the engine: ${error.message ?? error}` }),
);
