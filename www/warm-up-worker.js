// The engine's warm-up in a worker of its own (see src/session/warm_up.rs): V8 shares a module's
// compiled code between the workers of a page, so running small kernels here lets the browser
// optimise the engine's kernel paths while the engine worker stays free to answer the page.
// The engine worker starts it with the build it loaded ('simd128' or 'relaxed') and ends it when
// it reports 'done'.
self.addEventListener('message', async (event) => {
  try {
    const module = event.data?.build === 'relaxed' ? await import('../pkg-relaxed/tilelab.js') : await import('../pkg/tilelab.js');
    await module.default();
    const ms = module.Playground.warmUp?.() ?? 0;
    self.postMessage({ type: 'done', ms });
  } catch (error) {
    self.postMessage({ type: 'failed', message: String(error?.message ?? error) });
  }
});
