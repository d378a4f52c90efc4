// What the reader's actions do: run (with Shift/Ctrl/Alt+Enter semantics), add, delete, move,
// change kind, collapse; command keys on a selected cell; announcements for screen readers.
import { t } from '../i18n/index.js';

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
  }

  attach(view) {
    this.view = view;
  }

  selected(id) {
    this.selectedId = id;
  }

  edited(id, text) {
    this.model.setSource(id, text);
  }

  focus(id, edit = false) {
    const view = this.view.view(id);
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

  remove(id) {
    const index = this.model.remove(id);
    if (index < 0) return;
    this.announce(t('announce.deleted'));
    const neighbour = this.model.cells[Math.min(index, this.model.cells.length - 1)];
    if (neighbour) this.focus(neighbour.id);
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
