// Plain wasm loops assembled byte by byte, the references of the memory-bound figures (issue 17,
// item 5): `memory.copy` (the engine's memmove), a loop copy, and loops with the streams of the ops
// themselves — a read of one array (sum's stream), and an f32x4 add or mul of two arrays into a
// third (add's and mul's). Each loop moves 64 bytes per iteration with f32x4 loads, the op and
// ordinary stores, nothing else: what any wasm kernel with those streams can reach, without a
// kernel's bookkeeping around them.

/** A module section: its id, its length, its bytes. */
export const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
const name = (text) => [...new TextEncoder().encode(text)];

/** Unsigned LEB128. */
export function leb(value) {
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

const [GET, SET, CONST, ADD, GT_U, GE_U, BR_IF, BR, END] = [0x20, 0x21, 0x41, 0x6a, 0x4b, 0x4f, 0x0d, 0x0c, 0x0b];
const [I32, V128] = [0x7f, 0x7b];
/** A SIMD instruction with a memory argument (alignment 1, `offset`): v128.load 0x00, v128.store 0x0b. */
const vectorMemory = (op, offset) => [0xfd, op, 0, ...leb(offset)];
/** A SIMD instruction without immediates (LEB128 opcode). */
const simd = (op) => [0xfd, ...leb(op)];
const advance = (local, by) => [GET, local, CONST, ...sleb(by), ADD, SET, local];
/** `block loop (br_if 1 when `exit`) body br 0 end end`. */
const whileNot = (exit, body) => [0x02, 0x40, 0x03, 0x40, ...exit, BR_IF, 1, ...body, BR, 0, END, END];
/** The exit test of a loop over `pointer` taking `step` bytes a time, up to the local `end`. */
const pastEnd = (pointer, end, step) => (step === 1 ? [GET, pointer, GET, end, GE_U] : [GET, pointer, CONST, ...sleb(step), ADD, GET, end, GT_U]);

/** `loopCopy(destination, source, length)`: 64 bytes per iteration, then byte by byte. */
function loopCopyBody() {
  const [DESTINATION, SOURCE, LENGTH, LAST] = [0, 1, 2, 3];
  const vectors = [0, 16, 32, 48].flatMap((offset) => [GET, DESTINATION, GET, SOURCE, ...vectorMemory(0x00, offset), ...vectorMemory(0x0b, offset)]);
  return [
    1, 1, I32,
    GET, SOURCE, GET, LENGTH, ADD, SET, LAST,
    ...whileNot(pastEnd(SOURCE, LAST, 64), [...vectors, ...advance(DESTINATION, 64), ...advance(SOURCE, 64)]),
    ...whileNot(pastEnd(SOURCE, LAST, 1), [GET, DESTINATION, GET, SOURCE, 0x2d, 0, 0, 0x3a, 0, 0, ...advance(DESTINATION, 1), ...advance(SOURCE, 1)]),
    END,
  ];
}

/**
 * `loopRead(source, length) → i32`: the xor of every 32-bit word of the `length` bytes (a multiple
 * of 4), read 64 bytes per iteration into four v128 accumulators (xor: one cycle, so the loop waits
 * on its loads alone).
 */
function loopReadBody() {
  const [SOURCE, LENGTH, LAST, WORD, ACCUMULATOR] = [0, 1, 2, 3, 4];
  const accumulate = [0, 16, 32, 48].flatMap((offset, index) => [
    GET, ACCUMULATOR + index, GET, SOURCE, ...vectorMemory(0x00, offset), ...simd(0x51), SET, ACCUMULATOR + index,
  ]);
  const fold = [
    GET, ACCUMULATOR, GET, ACCUMULATOR + 1, ...simd(0x51), GET, ACCUMULATOR + 2, ...simd(0x51), GET, ACCUMULATOR + 3, ...simd(0x51),
    SET, ACCUMULATOR,
    GET, WORD,
    ...[0, 1, 2, 3].flatMap((lane) => [GET, ACCUMULATOR, 0xfd, 0x1b, lane, 0x73]), // i32x4.extract_lane, i32.xor
  ];
  return [
    2, 2, I32, 4, V128,
    GET, SOURCE, GET, LENGTH, ADD, SET, LAST,
    ...whileNot(pastEnd(SOURCE, LAST, 64), [...accumulate, ...advance(SOURCE, 64)]),
    ...whileNot(pastEnd(SOURCE, LAST, 1), [GET, WORD, GET, SOURCE, 0x28, 2, 0, 0x73, SET, WORD, ...advance(SOURCE, 4)]),
    ...fold,
    END,
  ];
}

/**
 * `loopAdd(destination, a, b, length)` or `loopMul`: the f32 `a[i] op b[i]` of `length` bytes (a
 * multiple of 4), 64 bytes per iteration, then one f32 at a time. `vectorOp` is the f32x4 opcode,
 * `scalarOp` the f32 one.
 */
function loopBinaryBody(vectorOp, scalarOp) {
  const [DESTINATION, A, B, LENGTH, LAST] = [0, 1, 2, 3, 4];
  const vectors = [0, 16, 32, 48].flatMap((offset) => [
    GET, DESTINATION, GET, A, ...vectorMemory(0x00, offset), GET, B, ...vectorMemory(0x00, offset), ...simd(vectorOp), ...vectorMemory(0x0b, offset),
  ]);
  const step = (by) => [...advance(DESTINATION, by), ...advance(A, by), ...advance(B, by)];
  return [
    1, 1, I32,
    GET, A, GET, LENGTH, ADD, SET, LAST,
    ...whileNot(pastEnd(A, LAST, 64), [...vectors, ...step(64)]),
    // f32.load (0x2a) / f32.store (0x38), alignment 4.
    ...whileNot(pastEnd(A, LAST, 1), [GET, DESTINATION, GET, A, 0x2a, 2, 0, GET, B, 0x2a, 2, 0, scalarOp, 0x38, 2, 0, ...step(4)]),
    END,
  ];
}

/**
 * A module exporting its memory of `pages` 64 KiB pages and `copy(destination, source, length)`
 * (`memory.copy`), `loopCopy(…)`, `loopRead(source, length)`, `loopAdd(destination, a, b, length)`
 * and `loopMul(…)`.
 */
export function loopsModule(pages) {
  const types = section(1, [3, 0x60, 3, I32, I32, I32, 0, 0x60, 2, I32, I32, 1, I32, 0x60, 4, I32, I32, I32, I32, 0]);
  const functions = [['copy', 0], ['loopCopy', 0], ['loopRead', 1], ['loopAdd', 2], ['loopMul', 2]];
  const exported = (text, kind, index) => [...leb(name(text).length), ...name(text), kind, index];
  const exports = section(7, [
    functions.length + 1,
    ...functions.flatMap(([text], index) => exported(text, 0x00, index)),
    ...exported('memory', 0x02, 0),
  ]);
  // local.get 0, 1, 2; memory.copy (0xfc 10, memory 0 to memory 0).
  const copyBody = [0, GET, 0, GET, 1, GET, 2, 0xfc, 0x0a, 0, 0, END];
  // f32x4.add 228, f32x4.mul 230; f32.add 0x92, f32.mul 0x94.
  const bodies = [copyBody, loopCopyBody(), loopReadBody(), loopBinaryBody(228, 0x92), loopBinaryBody(230, 0x94)];
  const code = section(10, [bodies.length, ...bodies.flatMap((body) => [...leb(body.length), ...body])]);
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...types,
    ...section(3, [functions.length, ...functions.map(([, type]) => type)]),
    ...section(5, [1, 0x00, ...leb(pages)]),
    ...exports,
    ...code,
  ]);
}
