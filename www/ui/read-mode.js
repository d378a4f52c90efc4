// Read mode (`?mode=read`): the notebook is shown for reading. Editors are read-only, cells cannot
// be added, deleted, moved, re-kinded or (markdown) re-opened for editing; code cells can still be
// run unless running is off too (`run=0`). The page's root carries `data-mode="read"` (and
// `data-run="off"`), which the stylesheet uses to hide the editing controls; screen readers hear it
// once through the live region and again whenever they enter the cell list (aria-describedby).
import { EditorState, StateEffect } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { Controller } from '../notebook/controller.js';
import { t } from '../i18n/index.js';
import '../css/read-mode.css';

/** A controller that refuses every structural edit and, when `canRun` is false, every run. */
export class ReadController extends Controller {
  constructor(options, { canRun }) {
    super(options);
    this.canRun = canRun;
  }

  edited() {}

  insert() {
    return null;
  }

  append() {}

  remove() {}

  move() {}

  setKind() {}

  split() {}

  mergeBelow() {}

  undoDelete() {}

  /** Run above / below run like Run all: only when running is allowed. */
  runFrom(id, which) {
    if (this.canRun) super.runFrom(id, which);
  }

  /** Runs like the full notebook, except that Alt+Enter does not insert a cell. */
  run(id, then) {
    if (!this.canRun) {
      if (then === 'next') this.focusAt(this.model.indexOf(id) + 1);
      return;
    }
    super.run(id, then === 'insert' ? 'stay' : then);
  }

  runAll() {
    if (this.canRun) super.runAll();
  }

  /** Enter on a markdown cell would open its editor; in read mode it stays rendered. */
  focus(id, edit = false) {
    super.focus(id, edit && this.model.get(id)?.kind === 'code');
  }
}

// The editor extensions of read mode: no edits, assistive technology is told so, and no caret or
// active-line highlight (nothing can be typed). Editors live in shadow roots, so this styling is an
// editor theme rather than page CSS.
const READ_ONLY = [
  EditorState.readOnly.of(true),
  EditorView.contentAttributes.of({ 'aria-readonly': 'true' }),
  EditorView.theme({
    '.cm-cursorLayer': { visibility: 'hidden' },
    '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'transparent' },
  }),
];

/**
 * Puts the page in read mode: root attributes, read-only editors (also for cells loaded later),
 * no markdown editing on double click, and the screen-reader description of the mode.
 */
export function enterReadMode({ model, view, cells, announce, canRun }) {
  const root = document.documentElement;
  root.dataset.mode = 'read';
  root.dataset.run = canRun ? 'on' : 'off';

  const locked = new WeakSet();
  const lockEditors = () => {
    for (const cell of model.cells) {
      const editor = view.view(cell.id)?.editor;
      if (!editor || locked.has(editor)) continue;
      editor.dispatch({ effects: StateEffect.appendConfig.of(READ_ONLY) });
      locked.add(editor);
    }
  };
  // Registered after the view's own listener, so the cell views of a 'structure' change exist.
  model.addEventListener('change', (event) => {
    if (event.detail.what === 'structure') lockEditors();
  });
  // A long notebook builds its cells as they come near: each one is locked as it is built.
  view.addEventListener('built', lockEditors);
  lockEditors();
  // A double click on rendered markdown opens its editor; stopped in the capture phase, before it.
  cells.addEventListener('dblclick', (event) => event.stopPropagation(), true);

  const key = canRun ? 'read.announce' : 'read.announceNoRun';
  const description = document.createElement('p');
  description.id = `${cells.id || 'cells'}-read-mode`;
  description.className = 'visually-hidden';
  description.dataset.i18n = key;
  description.textContent = t(key);
  cells.before(description);
  cells.setAttribute('aria-describedby', description.id);
  announce(t(key));
}
