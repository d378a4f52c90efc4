// The CPU clock as the page sees it, and the relaxed-simd feature test, both from wasm modules
// assembled here byte by byte.
//
// Clock: `spin(n, y, z)` runs n iterations of a chain of 64 dependent integer ops, alternating
// `x = x + y` and `x = x ^ z` (y, z are parameters, so the engine can neither fold nor merge them
// into one `lea`). Each is a 1-cycle-latency ALU op on every x86-64 core of the last 15 years, and
// the loop counter runs beside the chain, so one iteration takes 64 cycles: clock ≈ 64·n / time.
// The best of several runs is kept (an interruption only makes a run slower).

import { leb, section } from './wasm-loops.mjs';

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const I32 = 0x7f;
const V128 = 0x7b;
/** Dependent ops per loop iteration of the clock probe. */
export const CHAIN_LENGTH = 64;

function spinModule() {
  const types = section(1, [1, 0x60, 3, I32, I32, I32, 1, I32]);
  const functions = section(3, [1, 0]);
  const name = [...new TextEncoder().encode('spin')];
  const exports = section(7, [1, name.length, ...name, 0x00, 0]);
  const chain = [];
  for (let i = 0; i < CHAIN_LENGTH / 2; i += 1) chain.push(0x20, 1, 0x6a, 0x20, 2, 0x73); // + y, ^ z
  const body = [
    1, 1, I32, // one local: x (index 3)
    0x03, 0x40, // loop
    0x20, 3, ...chain, 0x21, 3, // x = chain(x)
    0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, // n = n - 1; br_if loop (n ≠ 0)
    0x0b, // end loop
    0x20, 3, 0x0b, // return x
  ];
  const code = section(10, [1, ...leb(body.length), ...body]);
  return new Uint8Array([...HEADER, ...types, ...functions, ...exports, ...code]);
}

/**
 * Measures the clock: calibrates n so a run takes ~`milliseconds` (short, so that most runs see no
 * preemption on a busy machine), then keeps the fastest of
 * `runs`. Returns { hz, iterations, seconds }.
 */
export async function measureClock({ milliseconds = 1, runs = 40 } = {}) {
  const { instance } = await WebAssembly.instantiate(spinModule());
  const spin = instance.exports.spin;
  let iterations = 1 << 14;
  // Several calls first, so the timed ones run the optimised (TurboFan) code, not the baseline.
  for (let call = 0; call < 5; call += 1) spin(iterations, 3, 5);
  for (;;) {
    const start = performance.now();
    spin(iterations, 3, 5);
    const elapsed = performance.now() - start;
    if (elapsed >= milliseconds / 4 || iterations >= 1 << 28) {
      iterations = Math.max(1, Math.round((iterations * milliseconds) / Math.max(elapsed, 0.001)));
      break;
    }
    iterations *= 4;
  }
  let best = Infinity;
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    spin(iterations, 3 + run, 5);
    best = Math.min(best, (performance.now() - start) / 1000);
  }
  return { hz: (iterations * CHAIN_LENGTH) / best, iterations, seconds: best };
}

/**
 * True where the engine accepts wasm relaxed-simd: validates a function
 * `(v128, v128, v128) → v128` whose body is `f32x4.relaxed_madd` (opcode 0xfd 0x105).
 */
export function supportsRelaxedSimd() {
  const types = section(1, [1, 0x60, 3, V128, V128, V128, 1, V128]);
  const functions = section(3, [1, 0]);
  const body = [0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfd, 0x85, 0x02, 0x0b];
  const code = section(10, [1, body.length, ...body]);
  return WebAssembly.validate(new Uint8Array([...HEADER, ...types, ...functions, ...code]));
}
