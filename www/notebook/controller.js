// What the reader's actions do: run (with Shift/Ctrl/Alt+Enter semantics), run above/below, add,
// delete (undoable), copy / cut / paste, move, split, merge, change kind, collapse; command keys on a selected cell;
// announcements for screen readers.
import { t } from '../i18n/index.js';
import { dismissBanner, showBanner } from '../ui/banner.js';
import { readCells, writeCells } from './clipboard.js';

/** Deleted cells kept for undo (most recent last). */
const MAX_TRASH = 20;

export class Controller {
  constructor({ model, runner, announce, openHelp, stop }) {
    this.model = model;
    this.runner = runner;
    this.announce = announce;
    this.openHelp = openHelp;
    this.stopEngine = stop;
    this.view = null;
    this.selectedId = null;
    this.pendingDelete = null;
    this.trash = [];
    /** Called with (cell id, text) after each edit (diagnostics while typing); set by mount. */
    this.typed = /** @type {((id: string, text: string) => void) | null} */ (null);
  }

  attach(view) {
    this.view = view;
    // Ctrl/Cmd+C, +X and +V on a selected cell (not in its editor, no text selected): the events
    // carry the system clipboard's data without asking for a permission.
    for (const type of ['copy', 'cut', 'paste']) document.addEventListener(type, (event) => this.clipboardEvent(/** @type {ClipboardEvent} */ (event)));
  }

  /** A copy/cut/paste event while a cell itself has the focus copies or pastes cells. */
  clipboardEvent(event) {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !active.matches('article.cell') || !this.model.get(active.dataset.id ?? '')) return;
    if (event.type !== 'paste' && !(document.getSelection()?.isCollapsed ?? true)) return;
    event.preventDefault();
    const id = active.dataset.id;
    if (event.type === 'paste') this.paste(id, { clipboardData: event.clipboardData });
    else this.copy(id, { cut: event.type === 'cut', clipboardData: event.clipboardData });
  }

  selected(id) {
    this.selectedId = id;
  }

  edited(id, text) {
    this.model.setSource(id, text);
  }

  focus(id, edit = false) {
    // A cell of a long notebook may not be built yet (NotebookView builds it lazily).
    const view = this.view.ensure(id);
    if (view) {
      this.selectedId = id;
      view.focus(edit);
      view.root.scrollIntoView({ block: 'nearest' });
    }
  }

  /** Runs a cell; `then` is 'stay' (Ctrl+Enter), 'next' (Shift+Enter) or 'insert' (Alt+Enter). */
  run(id, then) {
    const cell = this.model.get(id);
    if (!cell) return;
    if (cell.kind === 'markdown') this.view.view(id)?.finishEditing();
    else this.runner.enqueue([id]);
    const index = this.model.indexOf(id);
    if (then === 'next') {
      const next = this.model.cells[index + 1];
      if (next) this.focus(next.id, next.kind === 'code');
      else this.focus(this.insert(index + 1, 'code'), true);
    } else if (then === 'insert') {
      this.focus(this.insert(index + 1, 'code'), true);
    } else if (cell.kind === 'markdown') {
      this.focus(id);
    }
  }

  runAll() {
    for (const cell of this.model.cells) if (cell.kind === 'markdown') this.view.view(cell.id)?.finishEditing();
    this.runner.enqueue(this.model.cells.map((cell) => cell.id));
  }

  /** Inserts a cell and returns its id. */
  insert(index, kind) {
    const cell = this.model.insert(index, kind);
    this.announce(t('announce.added', { index: this.model.indexOf(cell.id) + 1 }));
    return cell.id;
  }

  /** Adds a cell at the end and puts the caret in it. */
  append(kind) {
    this.focus(this.insert(this.model.cells.length, kind), true);
  }

  /** Deletes a cell; `z` (or Ctrl/Cmd+Z on a selected cell, or the banner's Undo) brings it back. */
  remove(id) {
    const cell = this.model.get(id);
    const index = this.model.remove(id);
    if (index < 0) return;
    this.trash.push({ cell, index });
    if (this.trash.length > MAX_TRASH) this.trash.shift();
    this.announce(t('announce.deleted'));
    if (typeof document !== 'undefined' && document.getElementById('banners')) {
      showBanner('deleted', { key: 'banner.deleted', tone: 'info', actions: [{ label: 'banner.undo', run: () => this.undoDelete() }] });
    }
    const neighbour = this.model.cells[Math.min(index, this.model.cells.length - 1)];
    if (neighbour) this.focus(neighbour.id);
  }

  /** Puts the last deleted cell back where it was, with its text and output. */
  undoDelete() {
    const entry = this.trash.pop();
    if (!entry) {
      this.announce(t('announce.nothingToUndo'));
      return;
    }
    if (this.trash.length === 0) dismissBanner('deleted');
    this.model.restore(entry.cell, entry.index);
    this.announce(t('announce.restored', { index: this.model.indexOf(entry.cell.id) + 1 }));
    this.focus(entry.cell.id);
  }

  /** Copies the cell (its kind and source); `cut` also deletes it (undoable). */
  async copy(id, { cut = false, clipboardData = null } = {}) {
    const cell = this.model.get(id);
    if (!cell) return;
    await writeCells([cell], clipboardData);
    this.announce(t(cut ? 'announce.cut' : 'announce.copied', { index: this.model.indexOf(id) + 1 }));
    if (cut) this.remove(id);
  }

  /** Pastes the copied cells below `id` (`above`: above it); the first pasted cell is selected. */
  async paste(id, { above = false, clipboardData = null } = {}) {
    const cells = await readCells(clipboardData);
    if (cells.length === 0) {
      this.announce(t('announce.nothingToPaste'));
      return;
    }
    const index = this.model.indexOf(id);
    let at = index < 0 ? this.model.cells.length : above ? index : index + 1;
    let first = null;
    for (const { kind, source } of cells) {
      const created = this.model.insert(at, kind === 'markdown' ? 'markdown' : 'code', source);
      first ??= created.id;
      at += 1;
    }
    this.announce(t('announce.pasted', { count: cells.length, index: this.model.indexOf(first) + 1 }));
    this.focus(first);
  }

  /** Runs the cells above `id` (not itself), or from `id` to the end. */
  runFrom(id, which) {
    const index = this.model.indexOf(id);
    if (index < 0) return;
    const cells = which === 'above' ? this.model.cells.slice(0, index) : this.model.cells.slice(index);
    this.runner.enqueue(cells.map((cell) => cell.id));
  }

  /** Splits a cell at `offset` of its text: the text after it becomes a new cell below. */
  split(id, offset) {
    const cell = this.model.get(id);
    if (!cell) return;
    const before = cell.source.slice(0, offset).replace(/\s+$/, '');
    const after = cell.source.slice(offset).replace(/^\s*\n/, '');
    this.view.view(id)?.setText(before);
    const created = this.model.insert(this.model.indexOf(id) + 1, cell.kind, after);
    this.announce(t('announce.split', { index: this.model.indexOf(created.id) + 1 }));
    this.focus(created.id, true);
  }

  /** Merges the cell below into `id` (texts joined by a blank line); the merged cell is undoable. */
  mergeBelow(id) {
    const index = this.model.indexOf(id);
    const below = this.model.cells[index + 1];
    const cell = this.model.cells[index];
    if (!cell || !below) return;
    this.view.view(id)?.setText(`${cell.source.replace(/\s+$/, '')}\n\n${below.source}`);
    this.model.remove(below.id);
    this.trash.push({ cell: below, index: index + 1 });
    this.announce(t('announce.merged', { index: index + 1 }));
    this.focus(id);
  }

  move(id, delta) {
    const index = this.model.move(id, delta);
    if (index >= 0) this.announce(t('announce.moved', { index: index + 1 }));
    this.focus(id);
  }

  setKind(id, kind) {
    this.model.setKind(id, kind);
    this.focus(id);
  }

  toggleCollapsed(id) {
    this.model.toggleCollapsed(id);
  }

  /** Keys on a selected cell (not in its editor), like Jupyter's command mode. */
  commandKey(id, event) {
    const index = this.model.indexOf(id);
    const key = event.key;
    const plain = !event.ctrlKey && !event.metaKey && !event.altKey;
    let handled = true;
    if (key === 'Enter' && event.shiftKey) this.run(id, 'next');
    else if (key === 'Enter' && (event.ctrlKey || event.metaKey)) this.run(id, 'stay');
    else if (key === 'Enter' && event.altKey) this.run(id, 'insert');
    else if (key === 'Enter') this.focus(id, true);
    else if (event.altKey && key === 'ArrowUp') this.move(id, -1);
    else if (event.altKey && key === 'ArrowDown') this.move(id, 1);
    else if (plain && (key === 'ArrowUp' || key === 'k')) this.focusAt(index - 1);
    else if (plain && (key === 'ArrowDown' || key === 'j')) this.focusAt(index + 1);
    else if (plain && key === 'a') this.focus(this.insert(index, 'code'));
    else if (plain && key === 'b') this.focus(this.insert(index + 1, 'code'));
    else if (plain && key === 'm') this.setKind(id, 'markdown');
    else if (plain && key === 'y') this.setKind(id, 'code');
    else if (plain && key === 'o') this.toggleCollapsed(id);
    else if (plain && (key === 'h' || key === '?')) this.openHelp();
    else if (plain && key === 'Delete') this.remove(id);
    else if ((plain && key === 'z') || ((event.ctrlKey || event.metaKey) && !event.shiftKey && key.toLowerCase() === 'z')) this.undoDelete();
    else if (event.shiftKey && !event.ctrlKey && !event.metaKey && key === 'M') this.mergeBelow(id);
    else if (plain && (key === 'c' || key === 'x')) this.copy(id, { cut: key === 'x' });
    else if (plain && key === 'v') this.paste(id);
    else if (event.shiftKey && !event.ctrlKey && !event.metaKey && key === 'V') this.paste(id, { above: true });
    else if (plain && (key === 'd' || key === 'i')) handled = this.twice(key, () => (key === 'd' ? this.remove(id) : this.stopEngine()));
    else handled = false;
    if (handled) event.preventDefault();
  }

  /** Keys that act when pressed twice in a row (d d deletes, i i stops), as in Jupyter. */
  twice(key, action) {
    if (this.pendingDelete === key) {
      this.pendingDelete = null;
      action();
    } else {
      this.pendingDelete = key;
      setTimeout(() => {
        if (this.pendingDelete === key) this.pendingDelete = null;
      }, 800);
    }
    return true;
  }

  focusAt(index) {
    const cell = this.model.cells[index];
    if (cell) this.focus(cell.id);
  }
}
