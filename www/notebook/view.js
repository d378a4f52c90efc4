// The list of cells on the page, kept in step with the model: cell views are reused by id so
// editors keep their state (undo, selection) when cells move.
import { CellView } from './cell-view.js';
import { t } from '../i18n/index.js';

export class NotebookView {
  constructor(model, container, controller) {
    this.model = model;
    this.container = container;
    this.controller = controller;
    this.views = new Map();
    this.empty = document.createElement('p');
    this.empty.className = 'notebook-empty';
    model.addEventListener('change', (event) => this.changed(event.detail));
  }

  changed({ what, id }) {
    if (what === 'structure') {
      this.render();
    } else if (what === 'cell' || what === 'run') {
      const cell = this.model.get(id);
      const view = this.views.get(id);
      if (!cell || !view) return;
      if (view.kind !== cell.kind) this.render(true, id);
      else view.update(cell);
    }
    if (what !== 'source') this.refreshDiagnostics();
  }

  /**
   * Underlines every diagnostic of the finished runs in the cell whose source it names: an error
   * inside a kernel defined in another cell is underlined there too. A cell edited since it ran
   * shows none (the spans are of the text that ran).
   */
  refreshDiagnostics() {
    const finished = (cell) => cell.kind === 'code' && cell.run.result && (cell.run.state === 'done' || cell.run.state === 'error');
    const holders = new Map();
    for (const cell of this.model.cells) if (finished(cell)) holders.set(cell.run.result.execution_count, cell);
    const marks = new Map(this.model.cells.map((cell) => [cell.id, []]));
    for (const cell of this.model.cells) {
      if (!finished(cell)) continue;
      for (const diagnostic of cell.run.result.diagnostics ?? []) {
        const holder = holders.get(diagnostic.cell);
        if (holder && !holder.run.edited) marks.get(holder.id).push(diagnostic);
      }
    }
    for (const [id, diagnostics] of marks) this.views.get(id)?.setEngineDiagnostics(diagnostics);
  }

  /** Builds missing views, drops removed ones and orders the DOM like the model. */
  render(rebuild = false, rebuildId = null) {
    const ids = new Set(this.model.cells.map((cell) => cell.id));
    for (const [id, view] of this.views) {
      if (!ids.has(id) || (rebuild && id === rebuildId)) {
        view.destroy();
        this.views.delete(id);
      }
    }
    const nodes = this.model.cells.map((cell, index) => {
      let view = this.views.get(cell.id);
      if (!view) {
        view = new CellView(cell, this.controller);
        this.views.set(cell.id, view);
      }
      view.setIndex(index);
      return view.root;
    });
    this.refreshDiagnostics();
    // Moving a focused node blurs it; the controller puts focus back where it belongs.
    nodes.forEach((node, index) => {
      if (this.container.children[index] !== node) this.container.insertBefore(node, this.container.children[index] ?? null);
    });
    while (this.container.children.length > nodes.length) this.container.lastElementChild.remove();
    this.empty.textContent = t('notebook.empty');
    if (nodes.length === 0) this.container.append(this.empty);
  }

  /** The view of a cell. */
  view(id) {
    return this.views.get(id);
  }

  /** Re-labels every cell after a language switch. */
  relabel() {
    for (const cell of this.model.cells) this.views.get(cell.id)?.relabel(cell);
    this.empty.textContent = t('notebook.empty');
  }
}
