// One cell on the page: a focusable article (the "selected" cell for command keys), its editor or
// rendered markdown, a small tool bar, its run state (spinner and duration) and its output.
import { createEditor, destroyEditor, setEditorLabel, setEditorPlaceholder } from '../editor/setup.js';
import { clearDiagnostics, showDiagnostics } from '../editor/diagnostics.js';
import { renderMarkdown } from '../ui/markdown.js';
import { outputLineCount, renderRun } from './output.js';
import { t } from '../i18n/index.js';
import { div, iconButton } from '../ui/dom.js';
import { renderMessage } from '../i18n/messages.js';

export class CellView {
  constructor(cell, controller) {
    this.id = cell.id;
    this.kind = cell.kind;
    this.controller = controller;
    this.editing = cell.kind === 'code' || cell.source.trim() === '';
    this.index = 0;

    this.root = document.createElement('article');
    this.root.className = 'cell';
    this.root.tabIndex = 0;
    this.root.dataset.id = cell.id;
    this.root.dataset.kind = cell.kind;

    const gutter = div('cell-gutter');
    this.prompt = document.createElement('span');
    this.prompt.className = 'prompt';
    this.spinner = div('spinner');
    this.spinner.setAttribute('aria-hidden', 'true');
    gutter.append(this.prompt, this.spinner);

    const main = div('cell-main');
    const bar = div('cell-bar');
    this.status = document.createElement('span');
    this.status.className = 'cell-status';
    const tools = div('cell-tools');
    const id = cell.id;
    if (cell.kind === 'code') {
      tools.append(
        iconButton('run', '▶', 'cell.run', () => controller.run(id, 'stay')),
        iconButton('run-above', '⤒', 'cell.runAbove', () => controller.runFrom(id, 'above')),
        iconButton('run-below', '⤓', 'cell.runBelow', () => controller.runFrom(id, 'below')),
      );
    } else tools.append(iconButton('edit', '✎', 'cell.edit', () => this.startEditing(true)));
    tools.append(
      // ¶ rather than "M↓": a letter in the glyph would have to appear in the button's spoken name.
      iconButton('kind', cell.kind === 'code' ? '¶' : '{ }', cell.kind === 'code' ? 'cell.toMarkdown' : 'cell.toCode', () =>
        controller.setKind(id, cell.kind === 'code' ? 'markdown' : 'code'),
      ),
      iconButton('move-up', '↑', 'cell.moveUp', () => controller.move(id, -1)),
      iconButton('move-down', '↓', 'cell.moveDown', () => controller.move(id, 1)),
      iconButton('copy', '❐', 'cell.copy', () => controller.copy(id)),
      iconButton('paste', '↧', 'cell.paste', () => controller.paste(id)),
      iconButton('delete', '✕', 'cell.delete', () => controller.remove(id)),
    );
    bar.append(this.status, tools);

    this.editorHost = div('cell-editor');
    this.rendered = div('cell-rendered markdown-body');
    this.rendered.addEventListener('dblclick', () => this.startEditing(true));

    this.output = document.createElement('section');
    this.output.className = 'cell-output';
    this.collapseButton = iconButton('collapse', '▾', 'cell.collapse', () => controller.toggleCollapsed(id));
    this.outputBody = div('output-body');
    this.outputBody.setAttribute('role', 'log');
    this.collapsedNote = document.createElement('button');
    this.collapsedNote.type = 'button';
    this.collapsedNote.className = 'collapsed-note';
    this.collapsedNote.addEventListener('click', () => controller.toggleCollapsed(id));
    this.output.append(this.collapseButton, this.outputBody, this.collapsedNote);

    this.progressBox = this.createProgress();
    main.append(bar, this.editorHost, this.rendered, this.progressBox, this.output);
    this.root.append(gutter, main);

    this.editor = createEditor({
      parent: this.editorHost,
      doc: cell.source,
      kind: cell.kind,
      ariaLabel: '',
      placeholder: cell.kind === 'markdown' ? t('cell.markdownPlaceholder') : undefined,
      onChange: (text) => {
        controller.edited(id, text);
        this.engineMarks = [];
        this.engineKey = '[]';
        this.syntaxMarks = [];
        clearDiagnostics(this.editor);
        if (this.kind === 'code') controller.typed?.(id, text);
      },
      actions: {
        runNext: () => controller.run(id, 'next'),
        run: () => controller.run(id, 'stay'),
        runInsert: () => controller.run(id, 'insert'),
        leave: () => this.leaveEditor(),
        split: (offset) => controller.split(id, offset),
      },
    });
    this.root.addEventListener('keydown', (event) => {
      if (event.target === this.root) controller.commandKey(id, event);
    });
    this.root.addEventListener('focusin', () => controller.selected(id));
    this.onProgress = (event) => {
      if (event.detail.id === this.id) this.showProgress(event.detail);
    };
    controller.runner?.addEventListener('progress', this.onProgress);
    this.update(cell);
  }

  /** The progress bar of long work in a running cell (label, <progress>, count, stop). */
  createProgress() {
    const box = div('cell-progress');
    box.hidden = true;
    this.progressLabel = document.createElement('span');
    this.progressLabel.className = 'cell-progress-label';
    this.progressLabel.id = `progress-label-${this.id}`;
    this.progressBar = document.createElement('progress');
    this.progressBar.setAttribute('aria-labelledby', this.progressLabel.id);
    this.progressCount = document.createElement('span');
    this.progressCount.className = 'cell-progress-count';
    const stop = document.createElement('button');
    stop.type = 'button';
    stop.className = 'cell-progress-stop';
    stop.dataset.i18n = 'progress.stop';
    stop.textContent = t('progress.stop');
    stop.addEventListener('click', (event) => {
      event.stopPropagation();
      this.controller.stopEngine?.();
    });
    box.append(this.progressLabel, this.progressBar, this.progressCount, stop);
    return box;
  }

  /** Shows `{ label, done, total, message }` while the cell runs (progress of a finished run is dropped). */
  showProgress({ label, done, total, message }) {
    if (this.root.dataset.state !== 'running' || !(total > 0)) return;
    // The steps of any long cell are the fallback: a kernel call's, gradient check's or sweep's own count wins.
    if (label !== 'steps') this.specificProgress = true;
    else if (this.specificProgress) return;
    // A gradient check or sweep calls kernels itself: its own count stays until it finishes.
    if (label === 'check_gradient' || label === 'sweep') this.outerProgress = done < total;
    else if (label === 'kernel' && this.outerProgress) return;
    const known = `progress.label.${label}`;
    const text = message ? renderMessage(message, String(label)) : t(known);
    this.progressLabel.textContent = text === known ? String(label) : text;
    this.progressBar.max = total;
    this.progressBar.value = Math.min(done, total);
    const percent = Math.floor((100 * Math.min(done, total)) / total);
    this.progressCount.textContent = t('progress.count', { done, total, percent });
    this.progressBar.setAttribute('aria-valuetext', this.progressCount.textContent);
    this.progressBox.hidden = false;
  }

  /** Replaces the editor's text (split, merge); the model follows through the editor's change. */
  setText(text) {
    this.editor.dispatch({ changes: { from: 0, to: this.editor.state.doc.length, insert: text } });
  }

  /** Sets the run diagnostics (a result's objects) underlined here; shown with the typing check's. */
  setEngineDiagnostics(diagnostics) {
    const key = JSON.stringify(diagnostics.map((diagnostic) => [diagnostic.cell, diagnostic.span, diagnostic.message]));
    if (key === this.engineKey) return;
    this.engineKey = key;
    this.engineMarks = diagnostics;
    this.drawDiagnostics();
  }

  /** Sets the parser's diagnostics of the text being typed (the live check). */
  setSyntaxDiagnostics(diagnostics) {
    this.syntaxMarks = diagnostics;
    this.drawDiagnostics();
  }

  drawDiagnostics() {
    showDiagnostics(this.editor, [...(this.engineMarks ?? []), ...(this.syntaxMarks ?? [])]);
  }

  /** Puts the caret on 1-based `line` of this cell's editor, selected and scrolled into view. */
  revealLine(line) {
    const doc = this.editor.state.doc;
    if (!(line >= 1 && line <= doc.lines)) return false;
    const target = doc.line(line);
    this.startEditing(false);
    this.editor.dispatch({ selection: { anchor: target.from, head: target.to }, scrollIntoView: true });
    this.editor.focus();
    this.root.scrollIntoView({ block: 'nearest' });
    return true;
  }

  /**
   * Shows a source line named by an output: `cell` is the execution number of the cell that holds
   * it (null: this cell); that cell is found among the cells whose last run had that number.
   */
  revealSource({ line, cell }, ownCount) {
    let view = this;
    if (cell && cell !== ownCount) {
      const holder = this.controller.model.cells.find((candidate) => (candidate.run?.result?.execution_count ?? candidate.run?.executionCount) === cell);
      view = holder ? this.controller.view?.ensure(holder.id) : null;
    }
    return view ? view.revealLine(line) : false;
  }

  /** Shows the editor (markdown) and puts the caret in it when `focus`. */
  startEditing(focus) {
    this.editing = true;
    this.showMode();
    if (focus) this.editor.focus();
  }

  /** Renders a markdown cell (its "run"). */
  finishEditing() {
    if (this.kind !== 'markdown') return;
    this.editing = this.editor.state.doc.toString().trim() === '';
    this.rendered.replaceChildren(renderMarkdown(this.editor.state.doc.toString()));
    this.showMode();
  }

  leaveEditor() {
    if (this.kind === 'markdown') this.finishEditing();
    this.root.focus();
  }

  showMode() {
    const showEditor = this.kind === 'code' || this.editing;
    this.editorHost.hidden = !showEditor;
    this.rendered.hidden = showEditor;
    this.root.dataset.editing = String(showEditor);
  }

  /** Focuses the cell (command mode) or its editor. */
  focus(edit) {
    if (edit) this.startEditing(true);
    else this.root.focus();
  }

  /** Updates labels after the cell's position changed. */
  setIndex(index) {
    if (index === this.index) return;
    this.index = index;
    const number = index + 1;
    this.root.setAttribute('aria-label', t(this.kind === 'code' ? 'cell.code.aria' : 'cell.markdown.aria', { index: number }));
    this.output.setAttribute('aria-label', t('output.label', { index: number }));
    setEditorLabel(this.editor, t(this.kind === 'code' ? 'cell.editor.aria' : 'cell.markdownEditor.aria', { index: number }));
  }

  /** Re-labels everything after a language switch. */
  relabel(cell) {
    if (this.kind === 'markdown') setEditorPlaceholder(this.editor, t('cell.markdownPlaceholder'));
    const index = this.index;
    this.index = -1;
    this.setIndex(index);
    this.update(cell);
  }

  /** Shows the cell's run state and output. */
  update(cell) {
    const run = cell.run;
    this.root.dataset.state = run.state;
    this.root.dataset.collapsed = String(cell.collapsed);
    this.root.dataset.edited = String(run.edited === true);
    if (this.kind === 'markdown') {
      if (!this.editing) this.rendered.replaceChildren(renderMarkdown(cell.source));
      this.showMode();
      this.output.hidden = true;
      this.prompt.textContent = '';
      this.status.textContent = '';
      return;
    }
    this.showMode();
    const count = run.executionCount ?? (run.state === 'stale' ? run.executionCount : null);
    this.prompt.textContent = run.state === 'running' || run.state === 'queued' ? '[*]' : `[${count ?? ' '}]`;
    this.status.textContent = this.statusText(run) + (run.edited ? ` · ${t('cell.state.edited')}` : '');
    clearInterval(this.ticker);
    if (run.state === 'running') {
      // The duration counts up while the cell runs, so a long cell visibly is not stuck.
      this.ticker = setInterval(() => {
        this.status.textContent = `${t('cell.state.running')} ${((performance.now() - run.started) / 1000).toFixed(1)} s`;
      }, 200);
    }
    this.root.setAttribute('aria-busy', String(run.state === 'running'));

    if (run.state !== 'running') {
      this.progressBox.hidden = true;
      this.specificProgress = false;
      this.outerProgress = false;
    }
    const context = {
      revealSource: (source) => this.revealSource(source, run.result?.execution_count),
      loadTrace: (key) => this.controller.runner.engine.kernelTrace(key),
    };
    const nodes = run.state === 'running' || run.state === 'queued' || (run.state === 'idle' && !run.skipped) ? [] : renderRun(run, context);
    this.outputBody.replaceChildren(...nodes);
    this.output.hidden = nodes.length === 0;
    const collapsed = cell.collapsed && nodes.length > 0;
    this.outputBody.hidden = collapsed;
    this.collapsedNote.hidden = !collapsed;
    this.collapsedNote.textContent = t('cell.collapsedSummary', { lines: outputLineCount(nodes) });
    this.collapseButton.textContent = collapsed ? '▸' : '▾';
    const collapseKey = collapsed ? 'cell.expand' : 'cell.collapse';
    this.collapseButton.dataset.i18nAria = collapseKey;
    this.collapseButton.setAttribute('aria-label', t(collapseKey));
    this.collapseButton.title = t(collapseKey);
    this.collapseButton.setAttribute('aria-expanded', String(!collapsed));

  }

  statusText(run) {
    const ms = Number.isFinite(run.ms) ? run.ms.toFixed(run.ms < 10 ? 1 : 0) : '';
    switch (run.state) {
      case 'queued':
        return t('cell.state.queued');
      case 'running':
        return t('cell.state.running');
      case 'stale':
        return t(run.restored ? 'cell.state.restored' : 'cell.state.stale');
      case 'done':
        return t('cell.state.done', { ms });
      case 'error':
        return t('cell.state.error', { ms });
      default:
        return '';
    }
  }

  /** The editor's current text. */
  text() {
    return this.editor.state.doc.toString();
  }

  destroy() {
    clearInterval(this.ticker);
    this.controller.runner?.removeEventListener('progress', this.onProgress);
    destroyEditor(this.editor);
    this.root.remove();
  }
}
