// Lays out the graph view's ELK graph off the main thread. One ELK instance (and its worker) serves
// every graph on the page; requests queue in the worker. A worker that fails (it did not load, or it
// crashed) rejects every pending layout and is replaced on the next call.
import ELK from 'elkjs/lib/elk-api.js';

let elk = null;
/** Rejecters of the layouts in flight, so a dead worker does not leave them waiting forever. */
const pending = new Set();

/** Forgets the current worker and fails what it was doing. */
function discard(error) {
  elk?.terminateWorker?.();
  elk = null;
  for (const reject of pending) reject(error);
  pending.clear();
}

/** The shared ELK instance, its worker started on first use. */
function instance() {
  if (!elk) {
    elk = new ELK({
      workerFactory: () => {
        const worker = new Worker(new URL('./graph-worker.js', import.meta.url), { type: 'module' });
        worker.addEventListener('error', (event) => {
          event.preventDefault();
          discard(new Error(event.message || 'the layout worker failed'));
        });
        return worker;
      },
    });
  }
  return elk;
}

/**
 * Lays out `graph` (ELK JSON) in the worker; resolves to `{ layout, milliseconds }`. The page's main
 * thread only posts the graph and receives the positions.
 */
export function layoutInWorker(graph) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    pending.add(reject);
    instance()
      .layout(graph)
      .then(
        (layout) => resolve({ layout, milliseconds: performance.now() - started }),
        // ELK reports a graph it cannot lay out as a plain object; the worker itself stays usable.
        (error) => reject(error instanceof Error ? error : new Error(String(error?.message ?? error))),
      )
      .finally(() => pending.delete(reject));
  });
}
