// How the worker reports a failed request: which failures leave the wasm instance unusable
// (`fatal`: the page terminates the worker and starts a fresh one, and tells the user).

/**
 * Whether the engine still answers. A wasm stack overflow ("Maximum call stack size exceeded", a JS
 * RangeError) leaves Rust without running its drops, so the session stays borrowed and every later
 * call fails with "recursive use of an object detected": only a fresh instance helps.
 */
export function engineAnswers(session) {
  try {
    session.version();
    return true;
  } catch {
    return false;
  }
}

/**
 * The error message for a failure of request `id`: a Rust panic traps as `RuntimeError:
 * unreachable`, so its real message is fetched from the engine (`Playground.takePanicMessage`);
 * after a trap, a stack overflow, or any error after which `session` no longer answers, the
 * engine's state is unreliable.
 */
export function describeFailure(error, id, session, Playground) {
  if (error instanceof WebAssembly.RuntimeError) {
    let panic = null;
    try {
      panic = Playground?.takePanicMessage() ?? null;
    } catch {
      // The engine is too broken to answer; the trap's own message is all there is.
    }
    return { type: 'error', id, fatal: true, code: 'panic', message: panic ?? `the engine stopped: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError || (session && !engineAnswers(session))) {
    return { type: 'error', id, fatal: true, code: 'panic', message: `the engine stopped: ${message}` };
  }
  return { type: 'error', id, fatal: false, code: error?.code ?? 'exception', message };
}
