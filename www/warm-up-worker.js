// The engine's warm-up in a worker of its own (see src/session/warm_up.rs): V8 shares a module's
// compiled code between the workers of a page, so running small kernels here lets the browser
// optimise the engine's kernel paths while the engine worker stays free to answer the page.
// The engine worker starts it with the build it loaded ('simd128' or 'relaxed') and ends it when
// it reports 'done'.
/** How many times the warm-up script runs. */
const WARM_UP_RUNS = 3;

self.addEventListener('message', async (event) => {
  try {
    const module = event.data?.build === 'relaxed' ? await import('../pkg-relaxed/tilelab.js') : await import('../pkg/tilelab.js');
    await module.default();
    // A browser optimises a function once it has run long enough in baseline code: one run of the
    // warm-up script leaves most of its functions there, so it runs a few times.
    let ms = 0;
    for (let run = 0; run < WARM_UP_RUNS; run += 1) ms += module.Playground.warmUp?.() ?? 0;
    self.postMessage({ type: 'done', ms });
  } catch (error) {
    self.postMessage({ type: 'failed', message: String(error?.message ?? error) });
  }
});
