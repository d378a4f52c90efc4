// A cell's output from its CellResult (www/engine/contract.d.ts): stdout, displays, diagnostics in the
// rustc-like text form, or the engine's own error. Everything is inserted as text; each display kind
// has its view in displays/.
import { t } from '../i18n/index.js';
import { renderMessage } from '../i18n/messages.js';
import { button, element } from '../ui/dom.js';
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
      // The trace's lines are lines of the cell that defined the kernel (display.cell), which is not
      // the cell showing the schedule when `pypto.schedule` is called from another cell.
      return renderSchedule(display, { revealSource: (source) => context.revealSource?.({ ...source, cell: source.cell ?? display.cell ?? undefined }) });
    case 'sweep':
      return renderSweep(display);
    default:
      // A kind from a newer engine than this page (the contract's union has no other member).
      return element('p', 'output-note', t('output.unknownDisplay', { kind: String(/** @type {{ kind: string }} */ (display).kind) }));
  }
}

/**
 * The schedules of the kernels a cell called, folded away: one entry per kernel whose schedule view
 * is built only when opened (a cell may call big kernels; most readers never open them). The result
 * names each trace by its `trace_key`; opening the entry asks the engine for it
 * (`context.loadTrace`) and keeps it in the entry, so a saved notebook holds what its reader opened.
 * @param {KernelSchedule[]} entries
 * @param {{ revealSource?: (source: { line: number, cell?: number }) => void, loadTrace?: (key: string) => Promise<string | null> }} context
 */
function renderKernelSchedules(entries, context) {
  const box = element('details', 'output-kernel-schedules');
  box.append(element('summary', null, t('output.kernels.summary', { count: entries.length })));
  for (const entry of entries) {
    const summary = entry.schedule.summary;
    const item = element('details', 'kernel-schedule');
    item.dataset.kernel = entry.kernel;
    item.append(element('summary', null, t('output.kernels.kernel', { kernel: entry.kernel, calls: entry.calls, cycles: summary.cycles, bound: summary.bound })));
    // The trace's lines are lines of the cell that defined the kernel, not of this one.
    const own = { revealSource: (source) => context.revealSource?.({ ...source, cell: source.cell ?? entry.cell ?? undefined }) };
    const show = (traceJson, note = null) => {
      if (note) item.append(element('p', 'output-note', note));
      item.append(renderSchedule({ ...entry.schedule, trace_json: traceJson }, own));
    };
    item.addEventListener('toggle', () => {
      if (!item.open || item.dataset.rendered) return;
      item.dataset.rendered = 'true';
      if (entry.schedule.trace_json) show(entry.schedule.trace_json);
      else if (!entry.trace_key) show('', t('output.kernels.noTrace'));
      else if (!context.loadTrace) show('', t('output.kernels.traceGone'));
      else {
        const waiting = element('p', 'output-note', t('output.kernels.loading'));
        item.append(waiting);
        context.loadTrace(entry.trace_key).then(
          (traceJson) => {
            waiting.remove();
            if (typeof traceJson !== 'string' || !traceJson) return show('', t('output.kernels.traceGone'));
            entry.schedule.trace_json = traceJson;
            show(traceJson);
          },
          (error) => {
            waiting.remove();
            show('', t('output.kernels.traceFailed', { message: String(error?.message ?? error) }));
          },
        );
      }
    });
    box.append(item);
  }
  return box;
}

/**
 * A source location `[cell] line:column` as a link-styled button that shows that line (in
 * whichever cell holds it), or as text when there is nothing to reveal it with.
 */
function locationNode(cell, line, column, context) {
  const text = `[${cell}] ${line}:${column}`;
  if (!context.revealSource) return document.createTextNode(text);
  const link = button('source-link', text);
  // Named by its visible text (voice control users say what they see); the title explains it.
  link.title = t('output.goToSource', { cell, line, column });
  link.addEventListener('click', (event) => {
    event.stopPropagation();
    context.revealSource({ cell, line, column });
  });
  return link;
}

/** A diagnostic as a <pre> (`error[code]: message`, where, traceback, help, note), with every `[cell] line:column` a link to that source line. */
function diagnosticNode(diagnostic, context = {}) {
  const node = element('pre', diagnostic.severity === 'warning' ? 'output-warning' : 'output-error');
  const message = renderMessage(diagnostic.message_code, diagnostic.message);
  const kindKey = `diagnostic.kind.${diagnostic.code}`;
  const kind = t(kindKey);
  const severity = t(`diagnostic.severity.${diagnostic.severity}`);
  const head = diagnostic.code ? t('diagnostic.head', { severity, code: diagnostic.code, kind: kind === kindKey ? diagnostic.code : kind, message }) : `${severity}: ${message}`;
  node.append(head);
  if (diagnostic.line) node.append('\n  --> ', locationNode(diagnostic.cell, diagnostic.line, diagnostic.column, context));
  for (const frame of diagnostic.traceback ?? []) {
    const repeated = frame.repeated > 1 ? ` (×${frame.repeated})` : '';
    node.append(`\n  ${t('diagnostic.in', { function: frame.function })}`, locationNode(frame.cell, frame.line, frame.column, context), repeated);
  }
  if (diagnostic.help) node.append(`\n${t('output.help', { text: renderMessage(diagnostic.help_code, diagnostic.help) })}`);
  if (diagnostic.note) node.append(`\n${t('output.note', { text: renderMessage(diagnostic.note_code, diagnostic.note) })}`);
  return node;
}

/**
 * The output nodes for a cell's run (empty when it has nothing to show). `context` (optional) has
 * `revealSource({ line, cell })`, which shows a source line in the cell's editor, and
 * `loadTrace(key)`, which asks the engine for a kernel schedule's trace.
 * @param {{ result?: CellResult | null, stopped?: boolean, restored?: boolean, skipped?: boolean, engineError?: string | null, engineCode?: string | null }} run
 */
export function renderRun(run, context = {}) {
  const nodes = [];
  if (run.restored) nodes.push(element('p', 'output-note output-restored', t('output.restored')));
  if (run.skipped) nodes.push(element('p', 'output-note output-skipped', t('output.skipped')));
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
    for (const diagnostic of result.diagnostics ?? []) nodes.push(diagnosticNode(diagnostic, context));
  }
  return nodes;
}

/** How many lines the output holds, for the collapsed summary. */
export function outputLineCount(nodes) {
  return nodes.reduce((sum, node) => sum + node.textContent.split('\n').length, 0);
}
