// One CodeMirror 6 editor per cell: Python (or plain markdown text), line numbers, history, the
// notebook's run keys, diagnostics from the engine, and the UI language's phrases. Colours come
// from CSS classes (classHighlighter's `tok-*`) so both themes live in the stylesheet.
import { Compartment, EditorState, Prec } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  placeholder as placeholderText,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { python } from '@codemirror/lang-python';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { classHighlighter } from '@lezer/highlight';
import { apiAssist } from './assist.js';
import { editorPhrases } from '../i18n/index.js';
import { editorRoot, editorTheme } from './theme.js';

const phrases = new Compartment();
const label = new Compartment();
const hint = new Compartment();
const editors = new Set();

/**
 * Creates an editor in `parent`. `kind` is 'code' or 'markdown'; `actions` has runNext, run,
 * runInsert and leave (Escape); `onChange(text)` gets every edit; `ariaLabel` names the text area.
 */
export function createEditor({ parent, doc, kind, actions, onChange, ariaLabel, placeholder }) {
  const runKeys = Prec.highest(
    keymap.of([
      { key: 'Shift-Enter', run: () => (actions.runNext(), true) },
      { key: 'Mod-Enter', run: () => (actions.run(), true) },
      { key: 'Alt-Enter', run: () => (actions.runInsert(), true) },
      { key: 'Escape', run: () => (actions.leave(), true) },
      // Jupyter's split key: the text after the caret becomes a new cell below.
      { key: 'Mod-Shift--', run: (view) => (actions.split?.(view.state.selection.main.head), true) },
    ]),
  );
  const extensions = [
    runKeys,
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    highlightActiveLine(),
    indentUnit.of('    '),
    EditorState.tabSize.of(4),
    syntaxHighlighting(classHighlighter),
    editorTheme,
    // Tab indents; Escape leaves the editor first, so Tab never traps keyboard focus.
    keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
    search({ top: true }),
    highlightSelectionMatches(),
    phrases.of(EditorState.phrases.of(editorPhrases())),
    label.of(EditorView.contentAttributes.of({ 'aria-label': ariaLabel })),
    // Out of the Tab order: Enter on the cell (or a click) opens the editor, so Tab walks from cell
    // to cell and the editor's Tab-to-indent never holds keyboard focus.
    EditorView.contentAttributes.of({ tabindex: '-1' }),
    EditorView.lineWrapping,
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange(update.state.doc.toString());
    }),
  ];
  if (kind === 'code') extensions.push(python(), apiAssist());
  extensions.push(hint.of(placeholder ? placeholderText(placeholder) : []));
  const root = editorRoot(parent);
  const view = new EditorView({ parent: root, root, state: EditorState.create({ doc, extensions }) });
  editors.add(view);
  return view;
}

/** Forgets an editor that is being destroyed. */
export function destroyEditor(view) {
  editors.delete(view);
  view.destroy();
}

/** Renames an editor's text area (after the cell moved). */
export function setEditorLabel(view, ariaLabel) {
  view.dispatch({ effects: label.reconfigure(EditorView.contentAttributes.of({ 'aria-label': ariaLabel })) });
}

/** Changes an editor's placeholder text (after a language switch). */
export function setEditorPlaceholder(view, text) {
  view.dispatch({ effects: hint.reconfigure(text ? placeholderText(text) : []) });
}

/** Gives every editor the current language's CodeMirror phrases. */
export function refreshEditorPhrases() {
  for (const view of editors) view.dispatch({ effects: phrases.reconfigure(EditorState.phrases.of(editorPhrases())) });
}
