// Which failures of a run request leave the wasm instance unusable (www/engine/failure.js): a trap,
// a wasm stack overflow (a RangeError), and any error after which the session no longer answers
// (it stays borrowed: "recursive use of an object detected") restart the worker; an error the Rust
// side returned does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailure } from '../../www/engine/failure.js';

const healthy = { version: () => '0.1.0' };
const poisoned = {
  version: () => {
    throw new Error('recursive use of an object detected which would lead to unsafe aliasing in rust');
  },
};

test('a stack overflow in the engine is fatal', () => {
  const reply = describeFailure(new RangeError('Maximum call stack size exceeded'), 7, healthy, null);
  assert.deepEqual(reply, { type: 'error', id: 7, fatal: true, code: 'panic', message: 'the engine stopped: Maximum call stack size exceeded' });
});

test('an error after which the engine no longer answers is fatal', () => {
  const reply = describeFailure(new Error('recursive use of an object detected'), 3, poisoned, null);
  assert.equal(reply.fatal, true);
  assert.match(reply.message, /recursive use/);
});

test('a trap reports the Rust panic message', () => {
  const Playground = { takePanicMessage: () => 'panicked at src/x.rs:1:1: boom' };
  const reply = describeFailure(new WebAssembly.RuntimeError('unreachable'), 4, healthy, Playground);
  assert.deepEqual(reply, { type: 'error', id: 4, fatal: true, code: 'panic', message: 'panicked at src/x.rs:1:1: boom' });
});

test('an error returned by a healthy engine is not fatal', () => {
  const error = Object.assign(new Error('bad JSON'), { code: 'exception' });
  assert.deepEqual(describeFailure(error, 5, healthy, null), { type: 'error', id: 5, fatal: false, code: 'exception', message: 'bad JSON' });
});
