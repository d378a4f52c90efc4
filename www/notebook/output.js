// A cell's output from its CellResult (www/engine/contract.d.ts): stdout, displays, diagnostics in the
// rustc-like text form, or the engine's own error. Everything is inserted as text; each display kind
// has its view in displays/.
import { t } from '../i18n/index.js';
import { element } from './displays/dom.js';
import { renderGradCheck } from './displays/grad-check.js';
import { renderGraph } from './displays/graph.js';
import { renderSchedule } from './displays/schedule.js';
import { renderSweep } from './displays/sweep.js';
import { renderTensor } from './displays/tensor.js';
/** @typedef {import('../engine/contract.js').CellResult} CellResult */
/** @typedef {import('../engine/contract.js').CellDiagnostic} CellDiagnostic */
/** @typedef {import('../engine/contract.js').Display} Display */
/** @typedef {import('../engine/contract.js').KernelSchedule} KernelSchedule */

/**
 * One display (the value of the cell's last expression); `context` links views back to the cell.
 * @param {Display} display
 */
function renderDisplay(display, context) {
  switch (display.kind) {
    case 'text':
      return element('pre', 'output-text', display.text);
    case 'tensor':
      return renderTensor(display);
    case 'grad_check':
      return renderGradCheck(display);
    case 'graph':
      return renderGraph(display);
    case 'schedule':
      return renderSchedule(display, context);
    case 'sweep':
      return renderSweep(display);
    default:
      // A kind from a newer engine than this page (the contract's union has no other member).
      return element('p', 'output-note', t('output.unknownDisplay', { kind: String(/** @type {{ kind: string }} */ (display).kind) }));
  }
}

/**
 * The schedules of the kernels a cell called, folded away: one entry per kernel whose schedule view
 * is built only when opened (a cell may call big kernels; most readers never open them).
 * @param {KernelSchedule[]} entries
 */
function renderKernelSchedules(entries, context) {
  const box = element('details', 'output-kernel-schedules');
  box.append(element('summary', null, t('output.kernels.summary', { count: entries.length })));
  for (const entry of entries) {
    const summary = entry.schedule.summary;
    const item = element('details', 'kernel-schedule');
    item.dataset.kernel = entry.kernel;
    item.append(element('summary', null, t('output.kernels.kernel', { kernel: entry.kernel, calls: entry.calls, cycles: summary.cycles, bound: summary.bound })));
    item.addEventListener('toggle', () => {
      if (!item.open || item.dataset.rendered) return;
      item.dataset.rendered = 'true';
      if (!entry.schedule.trace_json) item.append(element('p', 'output-note', t('output.kernels.noTrace')));
      // The trace's lines are lines of the cell that defined the kernel, not of this one.
      const own = { revealSource: (source) => context.revealSource?.({ ...source, cell: source.cell ?? entry.cell ?? undefined }) };
      item.append(renderSchedule({ ...entry.schedule, trace_json: entry.schedule.trace_json || '{"traceEvents":[]}' }, own));
    });
    box.append(item);
  }
  return box;
}

/**
 * A diagnostic as text: `error[code]: message`, where it is, help, note and the traceback.
 * @param {CellDiagnostic} diagnostic
 */
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

/**
 * The output nodes for a cell's run (empty when it has nothing to show). `context` (optional) has
 * `revealSource({ line, cell })`, which shows a source line in the cell's editor.
 * @param {{ result?: CellResult | null, stopped?: boolean, engineError?: string | null, engineCode?: string | null }} run
 */
export function renderRun(run, context = {}) {
  const nodes = [];
  if (run.stopped) nodes.push(element('p', 'output-note', t('output.stopped')));
  if (run.engineError) {
    const message = run.engineCode === 'unavailable' ? t('output.notInBuild') : run.engineError;
    nodes.push(element('pre', 'output-error', t('output.engineError', { message })));
  }
  const result = run.result;
  if (result) {
    if (result.stdout) nodes.push(element('pre', 'output-stdout', result.stdout));
    for (const display of result.displays ?? []) nodes.push(renderDisplay(display, context));
    if ((result.kernel_schedules ?? []).length > 0) nodes.push(renderKernelSchedules(result.kernel_schedules, context));
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
