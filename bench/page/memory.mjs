// Memory-bound ops against the physical limit (issue 17, item 5): add, mul, exp and sum over a
// length-n f32 vector in every TileLab build and tfjs, and the bandwidth a `memory.copy` of the same
// bytes reaches in the same page, timed in the same rounds; beside them, plain wasm loops with the
// streams of add, mul and sum (contender `wasm loop`): what any wasm kernel with those streams
// reaches. A figure is an op's bytes moved per second (reads + writes) ÷ the copy's (n·4 bytes read
// + n·4 written).
import { checkAdd, checkSum, gridValues, randomValues } from './reference.mjs';
import { loopsModule } from './wasm-loops.mjs';

/** Bytes moved per element: f32 reads plus writes. */
export const BYTES_PER_ELEMENT = { add: 12, mul: 12, exp: 8, sum: 4, copy: 8 };

/**
 * The copy contenders of `count` f32 worth of bytes within their own wasm memory: `memory.copy`
 * and the wasm loop copy, each checked byte for byte.
 */
async function copyContenders(count) {
  const bytes = count * 4;
  const { instance } = await WebAssembly.instantiate(loopsModule(Math.ceil((2 * bytes) / 65536)));
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

/** The xor of the 32-bit words of `values` (f32), what `loopRead` returns. */
export function wordXor(values) {
  let xor = 0;
  for (const word of new Int32Array(values.buffer, values.byteOffset, values.length)) xor ^= word;
  return xor;
}

/**
 * The plain wasm loops with the streams of add, mul and sum (`loopAdd`, `loopMul`, `loopRead` of
 * bench/page/wasm-loops.mjs) over `x` and `y` in their own wasm memory: { add, mul, sum } contenders
 * named `wasm loop`. Add and mul are checked as TileLab's are (correctly rounded); the read must
 * return the xor of every word of x.
 */
export async function loopContenders(x, y) {
  const bytes = x.length * 4;
  const { instance } = await WebAssembly.instantiate(loopsModule(Math.ceil((3 * bytes) / 65536)));
  const { loopAdd, loopMul, loopRead, memory } = instance.exports;
  new Float32Array(memory.buffer, 0, x.length).set(x);
  new Float32Array(memory.buffer, bytes, y.length).set(y);
  const binary = (run, check) => ({
    name: 'wasm loop',
    call: () => run(2 * bytes, 0, bytes, bytes),
    check: () => {
      new Float32Array(memory.buffer, 2 * bytes, x.length).fill(0);
      run(2 * bytes, 0, bytes, bytes);
      return check(new Float32Array(memory.buffer, 2 * bytes, x.length));
    },
  });
  const wanted = wordXor(x);
  return {
    add: binary(loopAdd, (out) => checkAdd(x, y, out)),
    mul: binary(loopMul, (out) => checkElementwise(x.length, (i) => x[i] * y[i], out, 0.5)),
    sum: {
      name: 'wasm loop',
      call: () => loopRead(0, bytes),
      check: () => {
        const got = loopRead(0, bytes);
        return { ok: got === wanted, checked: x.length, worst: 0, detail: got === wanted ? null : `xor ${got}, wanted ${wanted}` };
      },
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
  const loops = await loopContenders(x, y);
  for (const op of ['add', 'mul', 'sum']) cases[name(op)].push(loops[op]);
  cases[name('copy')] = await copyContenders(count);
  return cases;
}
