// Engine diagnostics (byte spans in a cell's source) as CodeMirror lint diagnostics: underlined at
// their span, the message (with help and note) on hover.
import { setDiagnostics } from '@codemirror/lint';
import { t } from '../i18n/index.js';
import { renderMessage } from '../i18n/messages.js';
import { spanToRange } from './spans.js';

/** Shows the diagnostics of `result` that belong to this cell's source in `view`; clears others. */
export function showDiagnostics(view, diagnostics) {
  const text = view.state.doc.toString();
  const marks = diagnostics
    .filter((diagnostic) => diagnostic.span && Number.isInteger(diagnostic.span.start))
    .map((diagnostic) => {
      const { from, to } = spanToRange(text, diagnostic.span);
      // In the UI language where the engine sent a message code (its English otherwise).
      const help = diagnostic.help && t('output.help', { text: renderMessage(diagnostic.help_code, diagnostic.help) });
      const extra = [help, diagnostic.note && t('output.note', { text: renderMessage(diagnostic.note_code, diagnostic.note) })].filter(Boolean);
      return {
        from,
        to,
        severity: diagnostic.severity === 'warning' ? 'warning' : 'error',
        source: diagnostic.code || undefined,
        message: [renderMessage(diagnostic.message_code, diagnostic.message), ...extra].join('\n'),
      };
    });
  view.dispatch(setDiagnostics(view.state, marks));
}

/** Removes every diagnostic from `view` (the text changed or the cell runs again). */
export function clearDiagnostics(view) {
  view.dispatch(setDiagnostics(view.state, []));
}
