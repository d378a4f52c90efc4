// The plain wasm loops of the memory-bound figures (bench/page/wasm-loops.mjs), assembled byte by
// byte: each computes what it claims at lengths with and without a tail past the 64-byte
// iterations and at offsets not aligned to a vector, against results computed here in JavaScript;
// their contenders' checks (bench/page/memory.mjs) reject a wrong result. Runs in node, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopsModule } from '../../bench/page/wasm-loops.mjs';
import { checkElementwise, loopContenders, wordXor } from '../../bench/page/memory.mjs';

const LENGTHS = [0, 1, 15, 16, 17, 1000, 4099];

async function instance(bytes) {
  const { instance } = await WebAssembly.instantiate(loopsModule(Math.ceil((4 * bytes) / 65536) + 1));
  return instance.exports;
}

/** f32 values of every sign and magnitude, seeded. */
function values(count, seed) {
  return Float32Array.from({ length: count }, (_, i) => Math.sin(i * 12.9898 + seed) * 10 ** ((i % 7) - 3));
}

test('loopAdd and loopMul write the f32 sum and product of every element, tail and misaligned starts included', async () => {
  for (const count of LENGTHS) {
    for (const shift of [0, 4, 8]) {
      const bytes = count * 4 + 64;
      const exports = await instance(bytes);
      const [a, b, out] = [shift, bytes + shift, 2 * bytes + shift];
      const x = values(count, 1);
      const y = values(count, 2);
      new Float32Array(exports.memory.buffer, a, count).set(x);
      new Float32Array(exports.memory.buffer, b, count).set(y);
      for (const [name, exact] of [['loopAdd', (p, q) => p + q], ['loopMul', (p, q) => p * q]]) {
        exports[name](out, a, b, count * 4);
        const got = new Float32Array(exports.memory.buffer, out, count + 1);
        for (let i = 0; i < count; i += 1) assert.equal(got[i], Math.fround(exact(x[i], y[i])), `${name} ${count} +${shift}: element ${i}`);
        assert.equal(got[count], 0, `${name} ${count}: wrote past the end`);
      }
    }
  }
});

test('loopRead returns the xor of every word; loopCopy copies every byte and no more', async () => {
  for (const count of LENGTHS) {
    const bytes = count * 4 + 64;
    const exports = await instance(bytes);
    const x = values(count, 3);
    new Float32Array(exports.memory.buffer, 4, count).set(x);
    assert.equal(exports.loopRead(4, count * 4), wordXor(x), `read ${count}`);
    exports.loopCopy(bytes + 4, 4, count * 4 + 1);
    const copied = new Uint8Array(exports.memory.buffer, bytes + 4, count * 4 + 2);
    const source = new Uint8Array(exports.memory.buffer, 4, count * 4 + 1);
    for (let i = 0; i <= count * 4; i += 1) assert.equal(copied[i], source[i], `copy ${count}: byte ${i}`);
    assert.equal(copied[count * 4 + 1], 0, `copy ${count}: wrote past the end`);
  }
});

test('the wasm loop contenders pass their checks; the checks reject one element an ulp off and a changed word', async () => {
  const x = values(1000, 4);
  const y = values(1000, 5);
  const loops = await loopContenders(x, y);
  for (const op of ['add', 'mul', 'sum']) assert.equal(loops[op].check().ok, true, op);
  const product = Float32Array.from(x, (value, i) => value * y[i]);
  assert.equal(checkElementwise(1000, (i) => x[i] * y[i], product, 0.5).ok, true);
  product[500] = nextUp(product[500]);
  assert.equal(checkElementwise(1000, (i) => x[i] * y[i], product, 0.5).ok, false);
  const changed = Float32Array.from(x, (value, i) => (i === 999 ? nextUp(value) : value));
  assert.notEqual(wordXor(changed), wordXor(x));
});

/** The next f32 above `value` (finite, not −0). */
function nextUp(value) {
  const bits = new Int32Array(Float32Array.of(value).buffer);
  bits[0] += value >= 0 ? 1 : -1;
  return new Float32Array(bits.buffer)[0];
}
