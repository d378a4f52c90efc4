// Lays out the graph view's ELK graph off the main thread. One ELK instance (and its worker) serves
// every graph on the page; requests queue in the worker. A failed worker is replaced on the next call.
import ELK from 'elkjs/lib/elk-api.js';

let elk = null;

/** The shared ELK instance, its worker started on first use. */
function instance() {
  if (!elk) {
    elk = new ELK({
      workerFactory: () => new Worker(new URL('./graph-worker.js', import.meta.url), { type: 'module' }),
    });
  }
  return elk;
}

/**
 * Lays out `graph` (ELK JSON) in the worker; resolves to `{ layout, milliseconds }`. The page's main
 * thread only posts the graph and receives the positions.
 */
export async function layoutInWorker(graph) {
  const started = performance.now();
  try {
    const layout = await instance().layout(graph);
    return { layout, milliseconds: performance.now() - started };
  } catch (error) {
    // ELK reports layout errors as plain objects; the worker may be broken, so start afresh next time.
    elk?.terminateWorker?.();
    elk = null;
    throw error instanceof Error ? error : new Error(String(error?.message ?? error));
  }
}
