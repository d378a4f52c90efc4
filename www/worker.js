// The only module that imports the wasm package. It runs in a Web Worker so that long work never
// blocks the page; the page talks to it with messages: { type: 'smoke' } → { type: 'smoke', report }.
import init, { Playground } from '../pkg/tilelab.js';

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
    (error) => self.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
  );
});

playground.then(
  (session) => self.postMessage({ type: 'ready', version: session.version() }),
  (error) => self.postMessage({ type: 'error', message: `could not start the engine: ${error.message ?? error}` }),
);
