// The list of cells on the page, kept in step with the model: cell views are reused by id so
// editors keep their state (undo, selection) when cells move. A long notebook is built lazily: past
// EAGER_CELLS cells, a cell gets its editor (a CellView) only when it comes near the viewport, is
// focused, or is asked for by `ensure` (keyboard navigation, the outline, a link to a source line);
// until then a light placeholder shows its text and output at about the same height.
import { CellView } from './cell-view.js';
import { renderRun } from './output.js';
import { t } from '../i18n/index.js';
import { renderMarkdown } from '../ui/markdown.js';
import { div, element } from '../ui/dom.js';

/** Notebooks up to this many cells are built at once; longer ones lazily. */
const EAGER_CELLS = 50;
/** In a long notebook, the first cells built at once (the rest as they come near). */
const FIRST_BUILT = 20;
/** How far outside the viewport a placeholder starts becoming a cell. */
const BUILD_MARGIN = '1200px 0px';

/** Whether a run has output to show (as CellView.update decides). */
function hasOutput(run) {
  return !(run.state === 'running' || run.state === 'queued' || (run.state === 'idle' && !run.skipped));
}

/** Fills a placeholder with a cell's label, prompt, text (or rendered markdown) and output. */
function fillPlaceholder(holder, cell, index) {
  holder.dataset.kind = cell.kind;
  holder.dataset.state = cell.run.state;
  holder.dataset.collapsed = String(cell.collapsed);
  holder.setAttribute('aria-label', t(cell.kind === 'code' ? 'cell.code.aria' : 'cell.markdown.aria', { index: index + 1 }));
  const count = cell.run.executionCount;
  const prompt = element('span', 'prompt', cell.kind === 'code' ? `[${count ?? ' '}]` : '');
  const gutter = div('cell-gutter');
  gutter.append(prompt);
  const main = div('cell-main');
  main.append(div('cell-bar'));
  if (cell.kind === 'markdown' && cell.source.trim() !== '') {
    const rendered = div('cell-rendered markdown-body');
    rendered.append(renderMarkdown(cell.source));
    main.append(rendered);
  } else {
    const editor = div('cell-editor');
    editor.append(element('pre', 'cell-placeholder-source', cell.source));
    main.append(editor);
  }
  const nodes = cell.kind === 'code' && hasOutput(cell.run) && !cell.collapsed ? renderRun(cell.run) : [];
  if (nodes.length > 0) {
    const output = element('section', 'cell-output');
    const body = div('output-body');
    body.append(...nodes);
    output.append(body);
    main.append(output);
  }
  holder.replaceChildren(gutter, main);
}

export class NotebookView extends EventTarget {
  constructor(model, container, controller) {
    super();
    this.model = model;
    this.container = container;
    this.controller = controller;
    this.views = new Map();
    /** Cells not built yet: id → placeholder element. */
    this.placeholders = new Map();
    this.empty = document.createElement('p');
    this.empty.className = 'notebook-empty';
    this.observer =
      typeof IntersectionObserver === 'undefined'
        ? null
        : new IntersectionObserver((entries) => {
            for (const entry of entries) if (entry.isIntersecting) this.ensure(/** @type {HTMLElement} */ (entry.target).dataset.id);
          }, { rootMargin: BUILD_MARGIN });
    model.addEventListener('change', (event) => this.changed(event.detail));
  }

  changed({ what, id }) {
    if (what === 'structure') {
      this.render();
    } else if (what === 'cell' || what === 'run') {
      const cell = this.model.get(id);
      const view = this.views.get(id);
      const holder = this.placeholders.get(id);
      if (cell && holder) fillPlaceholder(holder, cell, this.model.indexOf(id));
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

  /** Builds missing views (or placeholders), drops removed ones and orders the DOM like the model. */
  render(rebuild = false, rebuildId = null) {
    const ids = new Set(this.model.cells.map((cell) => cell.id));
    for (const [id, view] of this.views) {
      if (!ids.has(id) || (rebuild && id === rebuildId)) {
        view.destroy();
        this.views.delete(id);
      }
    }
    for (const [id, holder] of this.placeholders) {
      if (ids.has(id)) continue;
      this.observer?.unobserve(holder);
      this.placeholders.delete(id);
    }
    const lazy = this.model.cells.length > EAGER_CELLS && this.observer !== null;
    const nodes = this.model.cells.map((cell, index) => {
      let view = this.views.get(cell.id);
      if (!view && (!lazy || index < FIRST_BUILT)) view = this.build(cell);
      if (view) {
        view.setIndex(index);
        return view.root;
      }
      return this.placeholder(cell, index);
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

  /** A new cell view, announced as 'built' (read mode locks its editor). */
  build(cell) {
    const view = new CellView(cell, this.controller);
    this.views.set(cell.id, view);
    this.dispatchEvent(new CustomEvent('built', { detail: { id: cell.id } }));
    return view;
  }

  /** The placeholder of a cell not built yet (made once, refilled on every render). */
  placeholder(cell, index) {
    let holder = this.placeholders.get(cell.id);
    if (!holder) {
      holder = element('article', 'cell cell-placeholder');
      holder.dataset.id = cell.id;
      // Reachable with Tab like a cell; focusing it builds the cell and moves focus into it.
      holder.tabIndex = 0;
      holder.addEventListener('focusin', () => this.ensure(cell.id)?.root.focus());
      this.placeholders.set(cell.id, holder);
      this.observer?.observe(holder);
    }
    fillPlaceholder(holder, cell, index);
    return holder;
  }

  /** The view of a cell, built now if it was a placeholder; undefined for an unknown id. */
  ensure(id) {
    const built = this.views.get(id);
    if (built) return built;
    const index = this.model.indexOf(id);
    const holder = this.placeholders.get(id);
    if (index < 0 || !holder) return undefined;
    const view = this.build(this.model.cells[index]);
    view.setIndex(index);
    this.observer?.unobserve(holder);
    this.placeholders.delete(id);
    holder.replaceWith(view.root);
    this.refreshDiagnostics();
    return view;
  }

  /** The view of a cell if it is built (a placeholder has none: see `ensure`). */
  view(id) {
    return this.views.get(id);
  }

  /** Re-labels every cell after a language switch. */
  relabel() {
    this.model.cells.forEach((cell, index) => {
      this.views.get(cell.id)?.relabel(cell);
      const holder = this.placeholders.get(cell.id);
      if (holder) fillPlaceholder(holder, cell, index);
    });
    this.empty.textContent = t('notebook.empty');
  }
}
