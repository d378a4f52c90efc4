// A generated schedule display for measuring and testing the Gantt with a large trace: `count`
// complete events in the Chrome trace format the engine writes (pid = core, tid = pipe, ts/dur in µs,
// args with tile, bytes, start/end cycles and source line), spread over cores × pipes, back to back
// with small gaps. Deterministic (a fixed linear congruential generator), so runs compare.

/** Cycles per µs of the generated clock. */
const CLOCK_MHZ = 1000;
const PIPE_NAMES = ['MTE2', 'VECTOR', 'CUBE', 'MTE3'];

/** A ScheduleDisplay (as the engine sends it) whose trace has `count` timed events. */
export function generatedSchedule(count, { cores = 4, pipes = PIPE_NAMES.length, lines = 12 } = {}) {
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const traceEvents = [];
  for (let core = 0; core < cores; core += 1) {
    traceEvents.push({ ph: 'M', name: 'process_name', pid: core, args: { name: `core ${core}` } });
    for (let pipe = 0; pipe < pipes; pipe += 1) traceEvents.push({ ph: 'M', name: 'thread_name', pid: core, tid: pipe, args: { name: PIPE_NAMES[pipe % PIPE_NAMES.length] } });
  }
  const lanes = cores * pipes;
  const clocks = new Float64Array(lanes);
  let end = 0;
  for (let index = 0; index < count; index += 1) {
    const lane = index % lanes;
    const start = clocks[lane] + random() * 0.05;
    const duration = 0.05 + random() * 0.4;
    clocks[lane] = start + duration;
    end = Math.max(end, clocks[lane]);
    traceEvents.push({
      ph: 'X',
      name: ['copy_in', 'add', 'exp', 'copy_out'][lane % 4],
      pid: Math.floor(lane / pipes),
      tid: lane % pipes,
      ts: start,
      dur: duration,
      args: {
        tile: `[${index % 64}, 0]`,
        bytes: 2048,
        start_cycle: Math.round(start * CLOCK_MHZ),
        end_cycle: Math.round((start + duration) * CLOCK_MHZ),
        line: 1 + (index % lines),
      },
    });
  }
  const cycles = Math.round(end * CLOCK_MHZ);
  return {
    kind: 'schedule',
    summary: {
      preset: 'generated',
      cycles,
      time_us: end,
      pipe_busy: Object.fromEntries(PIPE_NAMES.slice(0, pipes).map((name) => [name, 0.9])),
      gm_bytes_read: count * 1024,
      gm_bytes_written: count * 1024,
      l2_hit_bytes: 0,
      flops: 0,
      achieved_flops_per_second: 0,
      peak_flops_per_second: 0,
      bound: 'memory',
      peak_occupancy: {},
      capacities: {},
      cores_used: cores,
      notes: [],
    },
    trace_json: JSON.stringify({ traceEvents }),
    cell: null,
  };
}

/**
 * Runs in the page: shows `display` as the output of the first cell (a finished run whose result
 * holds it), as if the engine had returned it; resolves with the milliseconds until two frames
 * were drawn with it.
 */
export async function showDisplay(display) {
  const { model } = globalThis.tilelab;
  const cell = model.cells[0];
  const started = performance.now();
  model.setRun(cell.id, {
    state: 'done',
    executionCount: 1,
    result: { execution_count: 1, stdout: '', displays: [display], diagnostics: [], duration_ms: 1, kernel_schedules: [] },
  });
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return performance.now() - started;
}
