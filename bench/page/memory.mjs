// Memory-bound ops against the physical limit (issue 17, item 5): add, mul, exp and sum over a
// length-n f32 vector in every TileLab build and tfjs, and the bandwidth a `memory.copy` of the same
// bytes reaches in the same page, timed in the same rounds. A figure is an op's bytes moved per second
// (reads + writes) ÷ the copy's (n·4 bytes read + n·4 written).
import { checkAdd, checkSum, gridValues, randomValues } from './reference.mjs';

/** Bytes moved per element: f32 reads plus writes. */
export const BYTES_PER_ELEMENT = { add: 12, mul: 12, exp: 8, sum: 4, copy: 8 };

const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];

/** Unsigned LEB128. */
function leb(value) {
  const bytes = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** A module exporting its memory of `pages` 64 KiB pages and `copy(destination, source, length)`. */
function copyModule(pages) {
  const I32 = 0x7f;
  const name = (text) => [...new TextEncoder().encode(text)];
  const types = section(1, [1, 0x60, 3, I32, I32, I32, 0]);
  const functions = section(3, [1, 0]);
  const memory = section(5, [1, 0x00, ...leb(pages)]);
  const [copy, mem] = [name('copy'), name('memory')];
  const exports = section(7, [2, copy.length, ...copy, 0x00, 0, mem.length, ...mem, 0x02, 0]);
  // local.get 0, 1, 2; memory.copy (0xfc 10, memory 0 to memory 0).
  const body = [0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 0x0a, 0, 0, 0x0b];
  const code = section(10, [1, body.length, ...body]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...functions, ...memory, ...exports, ...code]);
}

/** The `memory.copy` contender: copies `count` f32 worth of bytes within its own wasm memory. */
async function copyContender(count) {
  const bytes = count * 4;
  const { instance } = await WebAssembly.instantiate(copyModule(Math.ceil((2 * bytes) / 65536)));
  const { copy, memory } = instance.exports;
  const source = new Uint8Array(memory.buffer, 0, bytes);
  for (let i = 0; i < bytes; i += 1) source[i] = (i * 131 + 7) & 0xff;
  return {
    name: 'memory.copy',
    call: () => copy(bytes, 0, bytes),
    check: () => {
      new Uint8Array(memory.buffer, bytes, bytes).fill(0);
      copy(bytes, 0, bytes);
      const copied = new Uint8Array(memory.buffer, bytes, bytes);
      let firstBad = null;
      for (let i = 0; i < bytes && firstBad === null; i += 1) if (copied[i] !== source[i]) firstBad = `byte ${i}`;
      return { ok: firstBad === null, checked: bytes, worst: 0, detail: firstBad };
    },
  };
}

/** Every element of `out` within `ulps` units in the last place (2⁻²³·|exact|) of `exact(i)` in f64. */
export function checkElementwise(count, exact, out, ulps) {
  let firstBad = null;
  let worst = 0;
  for (let i = 0; i < count; i += 1) {
    const wanted = exact(i);
    const bound = ulps * 2 ** -23 * Math.abs(wanted) + 1e-45;
    const error = Math.abs(out[i] - wanted);
    worst = Math.max(worst, error / bound);
    if (!(error <= bound) && firstBad === null) firstBad = `out[${i}] = ${out[i]}, f64 ${wanted}`;
  }
  return { ok: firstBad === null && out.length === count, checked: count, worst, detail: firstBad };
}

/**
 * The cases of one size: `add${suffix}`, `mul…`, `exp…`, `sum…` (TileLab builds and tfjs) and
 * `copy…` (memory.copy of n·4 bytes). Add is checked to half an ulp (correctly rounded), mul the
 * same, exp to 4 ulps (TileLab's is within 1, tfjs's within a few), sum exactly on its grid or within
 * the f32 summation bound.
 */
export async function memoryBoundCases({ builds, tfjs }, count, suffix) {
  const [x, y] = [randomValues(21, count), randomValues(22, count)];
  const grid = gridValues(31, count, 3);
  const name = (op) => `${op}${suffix}`;
  const tensors = { x: `${name('v')}.x`, y: `${name('v')}.y`, grid: `${name('v')}.grid`, out: `${name('v')}.out` };
  const checks = {
    add: (out) => checkAdd(x, y, out),
    mul: (out) => checkElementwise(count, (i) => x[i] * y[i], out, 0.5),
    exp: (out) => checkElementwise(count, (i) => Math.exp(x[i]), out, 4),
  };
  const cases = { [name('add')]: [], [name('mul')]: [], [name('exp')]: [], [name('sum')]: [] };
  for (const [label, Playground] of Object.entries(builds)) {
    Playground.benchLoad(tensors.x, x, [count], 'f32');
    Playground.benchLoad(tensors.y, y, [count], 'f32');
    Playground.benchLoad(tensors.grid, grid, [count], 'f32');
    const run = {
      add: () => Playground.benchAdd(tensors.x, tensors.y, tensors.out),
      mul: () => Playground.benchMul(tensors.x, tensors.y, tensors.out),
      exp: () => Playground.benchExp(tensors.x, tensors.out),
    };
    for (const op of ['add', 'mul', 'exp']) {
      cases[name(op)].push({ name: `tilelab-${label}`, call: run[op], check: () => (run[op](), checks[op](Playground.benchRead(tensors.out))) });
    }
    cases[name('sum')].push({ name: `tilelab-${label}`, call: () => Playground.benchSum(tensors.grid), check: () => checkSum(grid, Playground.benchSum(tensors.grid)) });
  }
  const { tf } = tfjs;
  const [tx, ty, tgrid] = [tf.tensor1d(x), tf.tensor1d(y), tf.tensor1d(grid)];
  const tfjsOps = { add: () => tf.add(tx, ty), mul: () => tf.mul(tx, ty), exp: () => tf.exp(tx) };
  for (const op of ['add', 'mul', 'exp']) {
    cases[name(op)].push({
      name: 'tfjs',
      call: () => tfjsOps[op]().dispose(),
      check: () => {
        const out = tfjsOps[op]();
        const result = checks[op](out.dataSync());
        out.dispose();
        return result;
      },
    });
  }
  const total = () => {
    const out = tf.sum(tgrid);
    const value = out.dataSync()[0];
    out.dispose();
    return value;
  };
  cases[name('sum')].push({ name: 'tfjs', call: total, check: () => checkSum(grid, total()) });
  cases[name('copy')] = [await copyContender(count)];
  return cases;
}
