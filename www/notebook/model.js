// The notebook in memory: an ordered list of cells with their text and their last run. Changes are
// announced as 'change' events: detail { what: 'structure' | 'source' | 'cell' | 'run', id }.
// 'structure', 'source' and 'cell' change what is saved; 'run' only what is shown.

let counter = 0;

/** A fresh cell id, unique in this page. */
function newId() {
  counter += 1;
  return `c${Date.now().toString(36)}${counter}`;
}

/**
 * The part of a run worth keeping across reloads: the result of a finished run (or of an earlier
 * session) with its execution count; nothing for a cell that never ran or is running.
 */
function keptOutput(run) {
  const state = run.state === 'stale' ? run.previous : run.state;
  if ((state !== 'done' && state !== 'error') || (!run.result && !run.engineError)) return undefined;
  const { result, engineError, engineCode, ms, executionCount } = run;
  return { state, result, engineError, engineCode, ms, executionCount: executionCount ?? result?.execution_count };
}

/** The run state of a cell that has not run. */
const IDLE = Object.freeze({ state: 'idle' });

export class NotebookModel extends EventTarget {
  constructor() {
    super();
    this.cells = [];
  }

  emit(what, id = null) {
    this.dispatchEvent(new CustomEvent('change', { detail: { what, id } }));
  }

  /**
   * Replaces every cell with `cells` ({kind, source, collapsed?, output?}); a kept `output` (from
   * the autosave or an .ipynb) shows as the output of an earlier session until the cell runs.
   */
  load(cells) {
    this.cells = cells.map((cell) => {
      const made = this.makeCell(cell.kind, cell.source, cell.collapsed === true);
      if (made.kind === 'code' && cell.output) made.run = { ...cell.output, state: 'stale', previous: cell.output.state, restored: true, ranSource: cell.source };
      return made;
    });
    this.emit('structure');
  }

  makeCell(kind, source = '', collapsed = false) {
    return { id: newId(), kind: kind === 'markdown' ? 'markdown' : 'code', source, collapsed, run: IDLE };
  }

  /** The cell with `id`, or undefined. */
  get(id) {
    return this.cells.find((cell) => cell.id === id);
  }

  /** The position of the cell with `id` (−1 when absent). */
  indexOf(id) {
    return this.cells.findIndex((cell) => cell.id === id);
  }

  /** Inserts a new cell at `index` (clamped) and returns it. */
  insert(index, kind = 'code', source = '') {
    const cell = this.makeCell(kind, source);
    const at = Math.max(0, Math.min(index, this.cells.length));
    this.cells.splice(at, 0, cell);
    this.emit('structure', cell.id);
    return cell;
  }

  /** Removes a cell; returns its former index (−1 when absent). */
  remove(id) {
    const index = this.indexOf(id);
    if (index < 0) return -1;
    this.cells.splice(index, 1);
    this.emit('structure', id);
    return index;
  }

  /** Puts a removed cell (the same object: text, output, id) back at `index` (undo of remove). */
  restore(cell, index) {
    if (this.get(cell.id)) return;
    this.cells.splice(Math.max(0, Math.min(index, this.cells.length)), 0, cell);
    this.emit('structure', cell.id);
  }

  /** Drops every cell's output (the session keeps its variables). */
  clearOutputs() {
    for (const cell of this.cells) {
      if (cell.run.state === 'queued' || cell.run.state === 'running' || cell.run.state === 'idle') continue;
      cell.run = IDLE;
      this.emit('run', cell.id);
    }
  }

  /** Moves a cell by `delta` positions; returns its new index, or −1 when it cannot move. */
  move(id, delta) {
    const index = this.indexOf(id);
    const target = index + delta;
    if (index < 0 || target < 0 || target >= this.cells.length) return -1;
    const [cell] = this.cells.splice(index, 1);
    this.cells.splice(target, 0, cell);
    this.emit('structure', id);
    return target;
  }

  /** Sets a cell's text (from its editor); an output made from other text is marked as edited. */
  setSource(id, source) {
    const cell = this.get(id);
    if (!cell || cell.source === source) return;
    cell.source = source;
    this.emit('source', id);
    const ran = cell.run.ranSource;
    const edited = ran !== undefined && ran !== source;
    if (edited !== (cell.run.edited === true)) {
      cell.run = { ...cell.run, edited };
      this.emit('run', id);
    }
  }

  /** Makes a cell code or markdown; its output goes. */
  setKind(id, kind) {
    const cell = this.get(id);
    if (!cell || cell.kind === kind) return;
    cell.kind = kind;
    cell.run = IDLE;
    this.emit('cell', id);
  }

  /** Collapses or expands a cell's output. */
  toggleCollapsed(id) {
    const cell = this.get(id);
    if (!cell) return;
    cell.collapsed = !cell.collapsed;
    this.emit('cell', id);
  }

  /**
   * Records a cell's run state: { state, result?, error?, ms?, executionCount?, ranSource? }; a
   * finished run remembers the text it ran, so a later edit can mark its output as edited.
   */
  setRun(id, run) {
    const cell = this.get(id);
    if (!cell) return;
    const finished = run.state === 'done' || run.state === 'error';
    cell.run = finished && run.ranSource === undefined ? { ...run, ranSource: cell.source, edited: false } : run;
    this.emit('run', id);
  }

  /**
   * Marks every cell that ran as stale: the session that ran it is gone. A queued cell that never
   * ran goes back to idle.
   */
  markStale() {
    for (const cell of this.cells) {
      const { state } = cell.run;
      if (state === 'idle' || state === 'stale') continue;
      const ranBefore = cell.run.result !== undefined || cell.run.engineError !== undefined || cell.run.stopped;
      cell.run = state === 'queued' && !ranBefore ? IDLE : { ...cell.run, state: 'stale', previous: state };
      this.emit('run', cell.id);
    }
  }

  /** The cells as plain data for saving: [{kind, source, collapsed}]. */
  snapshot() {
    return this.cells.map(({ kind, source, collapsed }) => ({ kind, source, collapsed }));
  }

  /** The cells with their last outputs, for the autosave and .ipynb ([{kind, source, collapsed, output}]). */
  snapshotWithOutputs() {
    return this.cells.map(({ kind, source, collapsed, run }) => ({ kind, source, collapsed, output: keptOutput(run) }));
  }
}
