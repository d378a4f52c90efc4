// Checks that a wasm binary really uses 128-bit SIMD: counts the functions whose local
// declarations include a `v128` value. Compiler flags can be lost on the way (a stale
// RUSTFLAGS, a different target dir), so the built file is what we trust.
// Usage: node scripts/check-simd.mjs pkg/tilelab_bg.wasm
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const V128 = 0x7b;
const CODE_SECTION = 10;

/** Reads an unsigned LEB128 integer at `state.offset` and advances it. */
function readUnsigned(bytes, state) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[state.offset++];
    if (byte === undefined) throw new Error('truncated LEB128 integer');
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7;
  }
}

/** Returns { functions, withV128 } for the code section of `bytes`. */
export function countV128Functions(bytes) {
  const magic = [0x00, 0x61, 0x73, 0x6d];
  if (!magic.every((value, index) => bytes[index] === value)) throw new Error('not a wasm binary');
  const state = { offset: 8 };
  while (state.offset < bytes.length) {
    const id = bytes[state.offset++];
    const size = readUnsigned(bytes, state);
    const end = state.offset + size;
    if (id === CODE_SECTION) {
      const functions = readUnsigned(bytes, state);
      let withV128 = 0;
      for (let index = 0; index < functions; index += 1) {
        const bodySize = readUnsigned(bytes, state);
        const bodyEnd = state.offset + bodySize;
        const groups = readUnsigned(bytes, state);
        let usesV128 = false;
        for (let group = 0; group < groups; group += 1) {
          readUnsigned(bytes, state);
          if (bytes[state.offset++] === V128) usesV128 = true;
        }
        if (usesV128) withV128 += 1;
        state.offset = bodyEnd;
      }
      return { functions, withV128 };
    }
    state.offset = end;
  }
  throw new Error('no code section');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: node scripts/check-simd.mjs FILE.wasm');
    process.exit(2);
  }
  const { functions, withV128 } = countV128Functions(readFileSync(path));
  if (withV128 === 0) {
    console.error(`${path}: none of ${functions} functions uses v128: the build has no SIMD`);
    process.exit(1);
  }
  console.log(`${path}: ${withV128} of ${functions} functions use v128 (simd128 is on)`);
}
