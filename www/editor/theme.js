// The editors' look. Each editor lives in a shadow root: there CodeMirror installs its styles as
// constructed style sheets, which the page's Content-Security-Policy (style-src 'self') allows,
// whereas the <style> elements it would add to the document are refused. Colours are the page's
// CSS custom properties, which cross the shadow boundary, so both themes apply.
import { EditorView } from '@codemirror/view';

/** Layout and colours of the editor chrome. */
export const editorTheme = EditorView.theme({
  '&': { fontSize: '0.9rem', backgroundColor: 'transparent', color: 'var(--text)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-content': { padding: '8px 0', caretColor: 'var(--text)' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-lineNumbers .cm-gutterElement': { minWidth: '2.6em', padding: '0 8px 0 6px', fontSize: '0.8rem' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)', color: 'var(--text)' },
  '&:not(.cm-focused) .cm-activeLine, &:not(.cm-focused) .cm-activeLineGutter': { backgroundColor: 'transparent' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': {
    backgroundColor: 'var(--selection)',
  },
  '&.cm-focused .cm-matchingBracket': {
    backgroundColor: 'color-mix(in srgb, var(--focus) 22%, transparent)',
    outline: '1px solid color-mix(in srgb, var(--focus) 45%, transparent)',
  },
  '.cm-placeholder': { color: 'var(--muted)' },
  '.cm-tooltip': {
    backgroundColor: 'var(--surface)',
    color: 'var(--text)',
    border: '1px solid var(--border-strong)',
    borderRadius: '6px',
    boxShadow: 'var(--shadow)',
  },
  // Signature help belongs to typing: hidden while the editor is not focused.
  '&:not(.cm-focused) .cm-tooltip:has(> .cm-signature)': { display: 'none' },
  '.cm-signature': { padding: '3px 8px', fontFamily: 'var(--mono)', fontSize: '0.8rem', maxWidth: '560px' },
  '.cm-signature .active-parameter, .cm-api-doc .active-parameter': { fontWeight: '700', textDecoration: 'underline' },
  '.cm-api-doc': { padding: '6px 8px', maxWidth: '520px', fontSize: '0.82rem', lineHeight: '1.4' },
  '.cm-api-doc code': { fontFamily: 'var(--mono)', fontWeight: '600' },
  '.cm-api-doc p': { margin: '4px 0 0' },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--selection)', color: 'var(--text)' },
  '.cm-completionDetail': { color: 'var(--muted)', fontStyle: 'normal', marginLeft: '8px' },
  // On the selection colour the muted grey is too faint; the detail takes the item's colour.
  '.cm-tooltip-autocomplete > ul > li[aria-selected] .cm-completionDetail': { color: 'inherit' },
  '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--text)' },
  '.cm-panels-top': { borderBottom: '1px solid var(--border)' },
  '.cm-searchMatch': { backgroundColor: 'color-mix(in srgb, var(--warn) 25%, transparent)' },
  '.cm-searchMatch-selected': { backgroundColor: 'color-mix(in srgb, var(--focus) 30%, transparent)' },
  '.cm-textfield, .cm-button': { fontSize: '0.8rem' },
  '.cm-diagnostic': { whiteSpace: 'pre-wrap', fontFamily: 'var(--mono)', fontSize: '0.82rem', padding: '4px 8px' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--error)' },
  '.cm-diagnostic-warning': { borderLeftColor: 'var(--warn)' },
});

/** Token colours for classHighlighter's `tok-*` classes. */
const TOKEN_RULES = `
.tok-keyword { color: var(--tok-keyword); }
.tok-string, .tok-string2 { color: var(--tok-string); }
.tok-number, .tok-bool, .tok-atom { color: var(--tok-number); }
.tok-comment { color: var(--tok-comment); font-style: italic; }
.tok-variableName.tok-definition, .tok-function { color: var(--tok-function); }
.tok-operator, .tok-punctuation { color: var(--tok-operator); }
.tok-variableName.tok-standard, .tok-meta, .tok-className, .tok-typeName { color: var(--tok-builtin); }
`;

let tokenSheet = null;

/** A shadow root in `host` with the token colours adopted; CodeMirror adds its own sheets to it. */
export function editorRoot(host) {
  if (!tokenSheet) {
    tokenSheet = new CSSStyleSheet();
    tokenSheet.replaceSync(TOKEN_RULES);
  }
  const shadow = host.attachShadow({ mode: 'open' });
  shadow.adoptedStyleSheets = [tokenSheet];
  return shadow;
}
