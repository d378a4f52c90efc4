// A cell's output from its CellResult (src/session/result.rs): stdout, displays, diagnostics in the
// rustc-like text form, or the engine's own error. Everything is inserted as text.
import { t } from '../i18n/index.js';

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function formatNumber(value) {
  return Number.isFinite(value) ? value.toExponential(2) : String(value);
}

/** One display (the value of the cell's last expression). */
function renderDisplay(display) {
  switch (display.kind) {
    case 'text':
      return element('pre', 'output-text', display.text);
    case 'tensor': {
      const box = element('div', 'output-tensor');
      box.append(element('div', 'output-caption', t('output.tensor', { shape: `[${display.shape.join(', ')}]`, dtype: display.dtype })));
      box.append(element('pre', 'output-text', display.preview));
      return box;
    }
    case 'grad_check': {
      const key = display.passed ? 'output.gradCheck.passed' : 'output.gradCheck.failed';
      const line = element('p', `output-gradcheck ${display.passed ? 'passed' : 'failed'}`,
        t(key, { abs: formatNumber(display.max_abs_err), rel: formatNumber(display.max_rel_err) }));
      return line;
    }
    default:
      return element('p', 'output-note', t('output.unknownDisplay', { kind: String(display.kind) }));
  }
}

/** A diagnostic as text: `error[code]: message`, where it is, help, note and the traceback. */
export function diagnosticText(diagnostic) {
  const lines = [`${diagnostic.severity}${diagnostic.code ? `[${diagnostic.code}]` : ''}: ${diagnostic.message}`];
  if (diagnostic.line) lines.push(`  --> [${diagnostic.cell}] ${diagnostic.line}:${diagnostic.column}`);
  for (const frame of diagnostic.traceback ?? []) {
    const repeated = frame.repeated > 1 ? ` (×${frame.repeated})` : '';
    lines.push(`  in ${frame.function} at [${frame.cell}] ${frame.line}:${frame.column}${repeated}`);
  }
  if (diagnostic.help) lines.push(t('output.help', { text: diagnostic.help }));
  if (diagnostic.note) lines.push(t('output.note', { text: diagnostic.note }));
  return lines.join('\n');
}

/** The output nodes for a cell's run (empty when it has nothing to show). */
export function renderRun(run) {
  const nodes = [];
  if (run.stopped) nodes.push(element('p', 'output-note', t('output.stopped')));
  if (run.engineError) {
    const message = run.engineCode === 'unavailable' ? t('output.notInBuild') : run.engineError;
    nodes.push(element('pre', 'output-error', t('output.engineError', { message })));
  }
  const result = run.result;
  if (result) {
    if (result.stdout) nodes.push(element('pre', 'output-stdout', result.stdout));
    for (const display of result.displays ?? []) nodes.push(renderDisplay(display));
    for (const diagnostic of result.diagnostics ?? []) {
      nodes.push(element('pre', diagnostic.severity === 'warning' ? 'output-warning' : 'output-error', diagnosticText(diagnostic)));
    }
  }
  return nodes;
}

/** How many lines the output holds, for the collapsed summary. */
export function outputLineCount(nodes) {
  return nodes.reduce((sum, node) => sum + node.textContent.split('\n').length, 0);
}
