// A one-round smoke of scripts/bench-page.mjs (make bench-page), so the benchmark cannot rot
// unnoticed. The targets themselves are not asserted: timings depend on the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchPage, median } from '../../scripts/bench-page.mjs';
import { ROOT } from './harness.mjs';

test('median: the middle value, or the mean of the middle two', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
});

test('one round of the page benchmark measures every figure', async () => {
  const results = await benchPage({ loads: 1, rerunCount: 1, galleryRounds: 1, only: ['01_tensor_basics.py'], profile: '01_tensor_basics.py' });
  assert.equal(results.readyMs.samples.length, 1);
  assert.ok(results.readyMs.median > 0 && results.readyMs.median < 60_000, `ready ${results.readyMs.median} ms`);
  assert.equal(results.rerunSwishMs.samples.length, 1);
  assert.ok(results.rerunSwishMs.median > 0 && results.rerunSwishMs.median < 60_000, `rerun ${results.rerunSwishMs.median} ms`);
  // Compressed wasm is smaller than the file, and not absurdly so (a wasm module is not all zeros).
  assert.ok(results.wasm.gzipBytes < results.wasm.bytes && results.wasm.gzipBytes > results.wasm.bytes / 20, JSON.stringify(results.wasm));
  // The Gantt: zoomed in to the maximum (×1024: 10 steps), panned 10 times, zoomed out again; one
  // frame at least per step, so every gap is a real frame's.
  const gantt = results.ganttZoomFrameGapMs;
  assert.equal(gantt.events, 50_000);
  assert.equal(gantt.steps, 30);
  assert.ok(gantt.frames > gantt.steps && gantt.maxMs >= gantt.p95Ms && gantt.p95Ms > 0, JSON.stringify(gantt));
  assert.equal(results.longNotebookOpenMs.cells, 1000);
  assert.ok(results.longNotebookOpenMs.medianMs > 0, JSON.stringify(results.longNotebookOpenMs));
  // The gallery figure: the one notebook asked for, run clean, its engine time inside its wall time,
  // and its worker's CPU profile written (a profile has nodes and samples).
  assert.deepEqual(results.gallery.map((notebook) => notebook.name), ['01_tensor_basics.py']);
  const [notebook] = results.gallery;
  assert.equal(notebook.errors, 0);
  assert.ok(notebook.median > 0 && notebook.engineMedian <= notebook.median, JSON.stringify(notebook));
  const profile = JSON.parse(readFileSync(join(ROOT, 'bench', '01_tensor_basics.cpuprofile'), 'utf8'));
  assert.ok(profile.nodes.length > 1 && profile.samples.length > 0, 'the worker profile has samples');
});
