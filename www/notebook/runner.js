// Runs cells through the engine one at a time, in the order asked, and records each cell's state
// in the model: queued → running → done | error; Stop and crashes leave cells stale. With
// `stopOnError` (the default, as in Jupyter) a failing cell drops the cells queued after it, which
// keep their previous output and are marked as skipped. Progress of
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
    this.stopOnError = true;
  }

  /** Whether anything runs or waits. */
  get busy() {
    return this.running !== null || this.queue.length > 0;
  }

  /** Empties the queue; each dropped cell gets back its previous run, `mark`ed ({ skipped } …). */
  dropQueue(mark = {}) {
    const queued = this.queue;
    this.queue = [];
    for (const id of queued) {
      const cell = this.model.get(id);
      if (!cell) continue;
      const { previousState, ...run } = cell.run;
      this.model.setRun(id, { ...run, state: previousState ?? 'idle', ...mark });
    }
  }

  /** Queues code cells by id (markdown cells are skipped). */
  enqueue(ids) {
    for (const id of ids) {
      const cell = this.model.get(id);
      if (!cell || cell.kind !== 'code' || this.queue.includes(id) || this.running === id) continue;
      this.queue.push(id);
      const { skipped, ...previous } = cell.run;
      this.model.setRun(id, { ...previous, state: 'queued', previousState: cell.run.state === 'queued' ? cell.run.previousState : cell.run.state });
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
      if (run.state === 'error' && this.stopOnError) this.dropQueue({ skipped: true });
      this.dispatchEvent(new CustomEvent('finished', { detail: { id, run } }));
    }
  }

  /**
   * Drops the queue and interrupts the running cell (the engine restarts, its variables are gone).
   * While nothing runs it does nothing and resolves false: Stop must never wipe an idle session.
   */
  async stop() {
    if (!this.busy) return false;
    this.dropQueue();
    await this.engine.stop();
    return true;
  }

  /** Starts a fresh session on purpose (Restart): every variable is gone, outputs become stale. */
  restart() {
    this.dropQueue();
    return this.engine.restartSession();
  }
}
