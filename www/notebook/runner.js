// Runs cells through the engine one at a time, in the order asked, and records each cell's state
// in the model: queued → running → done | error; Stop and crashes leave cells stale. Progress of
// long work in the running cell is sent as 'progress' events (detail: { id, label, done, total }),
// not stored in the model: it is only a view of a run that has not finished.
import { EngineStopped } from '../engine/client.js';

export class Runner extends EventTarget {
  constructor(model, engine) {
    super();
    this.model = model;
    this.engine = engine;
    this.queue = [];
    this.running = null;
    this.executionCount = 0;
  }

  /** Queues code cells by id (markdown cells are skipped). */
  enqueue(ids) {
    for (const id of ids) {
      const cell = this.model.get(id);
      if (!cell || cell.kind !== 'code' || this.queue.includes(id) || this.running === id) continue;
      this.queue.push(id);
      this.model.setRun(id, { ...cell.run, state: 'queued' });
    }
    if (!this.running) this.pump();
  }

  async pump() {
    while (this.queue.length > 0) {
      const id = this.queue.shift();
      const cell = this.model.get(id);
      if (!cell) continue;
      this.running = id;
      this.model.setRun(id, { state: 'running', started: performance.now() });
      const started = performance.now();
      let run;
      try {
        const onProgress = (progress) => this.dispatchEvent(new CustomEvent('progress', { detail: { id, ...progress } }));
        const result = await this.engine.run(cell.source, onProgress);
        const ms = Number.isFinite(result?.duration_ms) ? result.duration_ms : performance.now() - started;
        this.executionCount = result?.execution_count ?? this.executionCount + 1;
        run = { state: result?.status === 'error' ? 'error' : 'done', result, ms, executionCount: result?.execution_count };
      } catch (error) {
        const ms = performance.now() - started;
        if (error instanceof EngineStopped) {
          // Stop or a crash: the engine already restarted; the rest of the queue is dropped.
          this.running = null;
          this.queue = [];
          this.model.setRun(id, { state: 'error', engineError: error.reason === 'stopped' ? null : error.message, stopped: error.reason === 'stopped', ms });
          this.model.markStale();
          this.dispatchEvent(new CustomEvent('finished', { detail: { id, run: this.model.get(id)?.run } }));
          return;
        }
        run = { state: 'error', engineError: error.message, engineCode: error.code, ms };
      }
      this.running = null;
      this.model.setRun(id, run);
      this.dispatchEvent(new CustomEvent('finished', { detail: { id, run } }));
    }
  }

  /** Drops the queue and interrupts the running cell (the engine restarts). */
  stop() {
    const queued = this.queue;
    this.queue = [];
    for (const id of queued) {
      const cell = this.model.get(id);
      if (cell) this.model.setRun(id, { state: 'idle' });
    }
    return this.engine.stop();
  }
}
