// The SIMD check of the build (scripts/check-simd.mjs) on hand-assembled wasm modules, so that a
// build without simd128 is known to fail it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countV128Functions } from '../../scripts/check-simd.mjs';

const I32 = 0x7f;
const V128 = 0x7b;

/**
 * A module with one function type `() -> ()` and one function per entry of `localTypes`, each
 * declaring one local of that type and an empty body. Sizes stay below 128, so every LEB128 is one byte.
 */
function moduleWithLocals(localTypes) {
  const section = (id, bytes) => [id, bytes.length, ...bytes];
  const types = section(1, [1, 0x60, 0, 0]);
  const functions = section(3, [localTypes.length, ...localTypes.map(() => 0)]);
  const bodies = localTypes.flatMap((type) => {
    const body = [1, 1, type, 0x0b]; // one local group: 1 × type; then `end`
    return [body.length, ...body];
  });
  const code = section(10, [localTypes.length, ...bodies]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...functions, ...code]);
}

test('the hand-assembled modules are valid wasm', () => {
  assert.equal(WebAssembly.validate(moduleWithLocals([I32, I32])), true);
  assert.equal(WebAssembly.validate(moduleWithLocals([I32, V128, V128])), true);
});

test('functions with a v128 local are counted, others are not', () => {
  assert.deepEqual(countV128Functions(moduleWithLocals([I32, I32])), { functions: 2, withV128: 0 });
  assert.deepEqual(countV128Functions(moduleWithLocals([I32, V128, V128])), { functions: 3, withV128: 2 });
});

test('a file that is not wasm is refused', () => {
  assert.throws(() => countV128Functions(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), /not a wasm binary/);
});
