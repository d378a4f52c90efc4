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

/** Signed LEB128 (i32.const immediates). */
function sleb(value) {
  const bytes = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) return [...bytes, byte];
    bytes.push(byte | 0x80);
  }
}

/**
 * The body of `loopCopy(destination, source, length)`: a plain wasm loop of f32x4 loads and stores,
 * 64 bytes per iteration, then a byte loop for the last < 64 bytes. Unlike `memory.copy` (a call
 * into the engine's memmove, which streams large blocks with non-temporal stores), its stores are
 * ordinary ones, like every store a wasm kernel can issue: each line written is first read (write
 * allocate). It is the reference of what a store stream from wasm code can reach.
 */
function loopCopyBody() {
  const [GET, SET, TEE, CONST, ADD] = [0x20, 0x21, 0x22, 0x41, 0x6a];
  const [DESTINATION, SOURCE, LENGTH, END] = [0, 1, 2, 3];
  const v128 = (op, offset) => [0xfd, op, 0, ...leb(offset)]; // v128.load 0x00 / v128.store 0x0b, align 1
  const advance = (local, by) => [GET, local, CONST, ...sleb(by), ADD, SET, local];
  const vectors = [0, 16, 32, 48].flatMap((offset) => [GET, DESTINATION, GET, SOURCE, ...v128(0x00, offset), ...v128(0x0b, offset)]);
  return [
    1, 1, 0x7f, // one i32 local: the end of the source
    GET, SOURCE, GET, LENGTH, ADD, SET, END,
    // while (source + 64 <= end) { copy 64 bytes }
    0x02, 0x40, 0x03, 0x40,
    GET, SOURCE, CONST, ...sleb(64), ADD, GET, END, 0x4b, 0x0d, 1, // i32.gt_u, br_if 1
    ...vectors, ...advance(DESTINATION, 64), ...advance(SOURCE, 64),
    0x0c, 0, 0x0b, 0x0b, // br 0, end loop, end block
    // while (source < end) { copy one byte }
    0x02, 0x40, 0x03, 0x40,
    GET, SOURCE, GET, END, 0x4f, 0x0d, 1, // i32.ge_u, br_if 1
    GET, DESTINATION, GET, SOURCE, 0x2d, 0, 0, 0x3a, 0, 0, // i32.load8_u, i32.store8
    ...advance(DESTINATION, 1), ...advance(SOURCE, 1),
    0x0c, 0, 0x0b, 0x0b,
    0x0b,
  ];
}

/**
 * A module exporting its memory of `pages` 64 KiB pages, `copy(destination, source, length)`
 * (`memory.copy`) and `loopCopy(destination, source, length)` (see [`loopCopyBody`]).
 */
function copyModule(pages) {
  const I32 = 0x7f;
  const name = (text) => [...new TextEncoder().encode(text)];
  const types = section(1, [1, 0x60, 3, I32, I32, I32, 0]);
  const functions = section(3, [2, 0, 0]);
  const memory = section(5, [1, 0x00, ...leb(pages)]);
  const [copy, loop, mem] = [name('copy'), name('loopCopy'), name('memory')];
  const exports = section(7, [3, copy.length, ...copy, 0x00, 0, loop.length, ...loop, 0x00, 1, mem.length, ...mem, 0x02, 0]);
  // local.get 0, 1, 2; memory.copy (0xfc 10, memory 0 to memory 0).
  const copyBody = [0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 0x0a, 0, 0, 0x0b];
  const loopBody = loopCopyBody();
  const code = section(10, [2, ...leb(copyBody.length), ...copyBody, ...leb(loopBody.length), ...loopBody]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...functions, ...memory, ...exports, ...code]);
}

/**
 * The copy contenders of `count` f32 worth of bytes within their own wasm memory: `memory.copy`
 * and the wasm loop copy, each checked byte for byte.
 */
async function copyContenders(count) {
  const bytes = count * 4;
  const { instance } = await WebAssembly.instantiate(copyModule(Math.ceil((2 * bytes) / 65536)));
  const { copy, loopCopy, memory } = instance.exports;
  const source = new Uint8Array(memory.buffer, 0, bytes);
  for (let i = 0; i < bytes; i += 1) source[i] = (i * 131 + 7) & 0xff;
  const contender = (name, run) => ({
    name,
    call: () => run(bytes, 0, bytes),
    check: () => {
      new Uint8Array(memory.buffer, bytes, bytes).fill(0);
      run(bytes, 0, bytes);
      const copied = new Uint8Array(memory.buffer, bytes, bytes);
      let firstBad = null;
      for (let i = 0; i < bytes && firstBad === null; i += 1) if (copied[i] !== source[i]) firstBad = `byte ${i}`;
      return { ok: firstBad === null, checked: bytes, worst: 0, detail: firstBad };
    },
  });
  return [contender('memory.copy', copy), contender('wasm loop copy', loopCopy)];
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
  cases[name('copy')] = await copyContenders(count);
  return cases;
}
