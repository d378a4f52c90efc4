// The percent format and nbformat 4.5 of www/notebook/format.js, checked against hand-written files
// that follow the Rust side's rules (src/session/notebook.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromIpynb, fromPy, toIpynb, toPy, NotebookFormatError, MAX_NOTEBOOK_BYTES } from '../../www/notebook/format.js';

const PY = '# %% [markdown]\n# # Title\n#\n# Some *text*.\n\n# %%\nimport pypto as pt\n\n\n# %%\nx = pt.ones([2])\nx\n';
const CELLS = [
  { kind: 'markdown', source: '# Title\n\nSome *text*.' },
  { kind: 'code', source: 'import pypto as pt' },
  { kind: 'code', source: 'x = pt.ones([2])\nx' },
];

test('a .py notebook splits at # %% lines, markdown loses its comment prefixes, trailing blank lines go', () => {
  assert.deepEqual(fromPy(PY).cells, CELLS);
});

test('text before the first marker is a code cell, blank text is not; CRLF reads like LF', () => {
  assert.deepEqual(fromPy('a = 1\r\n# %%\r\nb = 2\r\n').cells, [
    { kind: 'code', source: 'a = 1' },
    { kind: 'code', source: 'b = 2' },
  ]);
  assert.deepEqual(fromPy('\n\n# %%\nb\n').cells, [{ kind: 'code', source: 'b' }]);
  assert.deepEqual(fromPy('').cells, []);
  // An explicit empty cell is kept.
  assert.deepEqual(fromPy('# %%\n# %%\nc\n').cells, [
    { kind: 'code', source: '' },
    { kind: 'code', source: 'c' },
  ]);
});

test('toPy writes exactly the Rust percent format', () => {
  // Expected text written out by hand: "# %%" before code, "# %% [markdown]" and "# " prefixes
  // (a bare "#" for empty lines) before markdown, one blank line between cells.
  const expected = '# %% [markdown]\n# # Title\n#\n# Some *text*.\n\n# %%\nimport pypto as pt\n\n# %%\nx = pt.ones([2])\nx\n';
  assert.equal(toPy({ cells: CELLS }), expected);
  assert.deepEqual(fromPy(toPy({ cells: CELLS })).cells, CELLS);
});

test('.ipynb written as nbformat 4.5 reads back to the same cells', () => {
  const text = toIpynb({ cells: CELLS });
  const root = JSON.parse(text);
  assert.equal(root.nbformat, 4);
  assert.equal(root.nbformat_minor, 5);
  assert.deepEqual(root.cells.map((cell) => cell.id), ['cell-0', 'cell-1', 'cell-2']);
  assert.deepEqual(root.cells[2].source, ['x = pt.ones([2])\n', 'x']);
  assert.deepEqual(root.cells[2].outputs, []);
  assert.equal(root.cells[2].execution_count, null);
  assert.equal('outputs' in root.cells[0], false);
  assert.deepEqual(fromIpynb(text).cells, CELLS);
});

test('.ipynb sources may be one string; raw cells become markdown', () => {
  const text = JSON.stringify({ nbformat: 4, nbformat_minor: 4, cells: [{ cell_type: 'raw', source: 'r' }, { cell_type: 'code', source: 'c\nd' }] });
  assert.deepEqual(fromIpynb(text).cells, [
    { kind: 'markdown', source: 'r' },
    { kind: 'code', source: 'c\nd' },
  ]);
});

test('malformed .ipynb files are clear errors', () => {
  const code = (text) => {
    try {
      fromIpynb(text);
    } catch (error) {
      assert.ok(error instanceof NotebookFormatError);
      return error.code;
    }
    return 'accepted';
  };
  assert.equal(code('{not json'), 'invalid-json');
  assert.equal(code('{"nbformat": 3, "cells": []}'), 'not-a-notebook');
  assert.equal(code('{"nbformat": 4}'), 'not-a-notebook');
  assert.equal(code('{"nbformat": 4, "cells": [{"cell_type": "widget", "source": ""}]}'), 'not-a-notebook');
  assert.equal(code('{"nbformat": 4, "cells": [{"cell_type": "code"}]}'), 'not-a-notebook');
  assert.throws(() => fromPy('x'.repeat(MAX_NOTEBOOK_BYTES + 1)), /limit/);
});

test('unicode text survives both formats', () => {
  const cells = [{ kind: 'markdown', source: '# 张量 🧮' }, { kind: 'code', source: 'print("π ≈ 3.14")' }];
  assert.deepEqual(fromPy(toPy({ cells })).cells, cells);
  assert.deepEqual(fromIpynb(toIpynb({ cells })).cells, cells);
});

test('.ipynb keeps outputs: execution_count, stream, execute_result, error, and reads them back', () => {
  const result = {
    execution_count: 3,
    status: 'error',
    stdout: 'a\nb\n',
    displays: [{ kind: 'text', text: '42' }],
    diagnostics: [{ severity: 'error', code: 'runtime/name-error', message: "name 'q' is not defined", cell: 3, span: { start: 0, end: 1 }, line: 1, column: 1, traceback: [] }],
    duration_ms: 2.5,
    kernel_schedules: [],
  };
  const cells = [{ kind: 'code', source: 'q', output: { state: 'error', result, ms: 2.5, executionCount: 3 } }, { kind: 'markdown', source: '# m' }];
  const root = JSON.parse(toIpynb({ cells }));
  const code = root.cells[0];
  assert.equal(code.execution_count, 3);
  assert.deepEqual(code.outputs[0], { output_type: 'stream', name: 'stdout', text: ['a\n', 'b\n'] });
  assert.deepEqual(code.outputs[1], { output_type: 'execute_result', execution_count: 3, data: { 'text/plain': ['42'], 'application/vnd.tilelab.display+json': { kind: 'text', text: '42' } }, metadata: {} });
  assert.deepEqual(code.outputs[2], { output_type: 'error', ename: 'runtime/name-error', evalue: "name 'q' is not defined", traceback: ["runtime/name-error: name 'q' is not defined"] });
  assert.deepEqual(code.metadata.tilelab.diagnostics, result.diagnostics);
  const back = fromIpynb(JSON.stringify(root)).cells;
  assert.equal(back[0].output.state, 'error');
  assert.equal(back[0].output.executionCount, 3);
  assert.deepEqual({ ...back[0].output.result, duration_ms: 2.5 }, result);
  assert.equal(back[1].output, undefined);
  // A notebook written by Jupyter: its text outputs come through as text displays.
  const jupyter = { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: 'code', source: '1 + 1', metadata: {}, execution_count: 7, outputs: [{ output_type: 'execute_result', execution_count: 7, data: { 'text/plain': '2' }, metadata: {} }] }] };
  const read = fromIpynb(JSON.stringify(jupyter)).cells[0].output;
  assert.deepEqual([read.state, read.executionCount, read.result.displays], ['done', 7, [{ kind: 'text', text: '2' }]]);
});
