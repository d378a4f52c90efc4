// A cell's kept output in nbformat 4 terms, both ways. Written: `execution_count`, a stdout
// `stream`, the display as an `execute_result` (text/plain for any Jupyter, plus TileLab's own
// JSON mimetype for the rich view), the first error as an `error` output; the exact diagnostics,
// kernel schedules, status and duration go in the cell's `metadata.tilelab`. Read: the same, and
// plain text outputs of notebooks written by Jupyter.

/** TileLab's mimetype for a display object (a JSON mimetype: nbformat allows any JSON value). */
export const DISPLAY_MIME = 'application/vnd.tilelab.display+json';

/** Splits text after each `\n`, keeping it (the nbformat convention for multiline strings). */
function lines(text) {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function joined(value) {
  return Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : '';
}

/** The text/plain form of a display. */
function plainText(display) {
  if (display.kind === 'text') return display.text ?? '';
  if (display.kind === 'tensor') return `Tensor shape=[${(display.shape ?? []).join(', ')}] dtype=${display.dtype}\n${display.preview ?? ''}`;
  if (display.kind === 'schedule') return `Schedule: ${display.summary?.cycles} cycles, ${display.summary?.bound}-bound`;
  if (display.kind === 'grad_check') return `Gradient check: ${display.passed ? 'passed' : 'FAILED'}`;
  if (display.kind === 'graph') return display.dot ?? '';
  return `<${display.kind}>`;
}

/** `{ execution_count, outputs, metadata }` of a code cell with kept output `output` (or none). */
export function outputsToIpynb(output) {
  const result = output?.result;
  if (!result && !output?.engineError) return { execution_count: null, outputs: [], metadata: {} };
  const count = output.executionCount ?? result?.execution_count ?? null;
  const outputs = [];
  if (result?.stdout) outputs.push({ output_type: 'stream', name: 'stdout', text: lines(result.stdout) });
  for (const display of result?.displays ?? []) {
    outputs.push({ output_type: 'execute_result', execution_count: count, data: { 'text/plain': lines(plainText(display)), [DISPLAY_MIME]: display }, metadata: {} });
  }
  const error = result?.diagnostics?.find((diagnostic) => diagnostic.severity === 'error');
  if (error || output.engineError) {
    const ename = error?.code || 'EngineError';
    const evalue = error?.message ?? output.engineError;
    outputs.push({ output_type: 'error', ename, evalue, traceback: [`${ename}: ${evalue}`] });
  }
  const tilelab = { status: output.state === 'error' ? 'error' : 'ok', duration_ms: output.ms ?? result?.duration_ms ?? null };
  if (result) Object.assign(tilelab, { diagnostics: result.diagnostics ?? [], kernel_schedules: result.kernel_schedules ?? [] });
  if (output.engineError) tilelab.engine_error = output.engineError;
  return { execution_count: count, outputs, metadata: { tilelab } };
}

/** The kept output of an nbformat code cell, or undefined when it has none. */
export function outputsFromIpynb(cell) {
  const outputs = Array.isArray(cell.outputs) ? cell.outputs : [];
  const tilelab = cell.metadata?.tilelab ?? {};
  if (outputs.length === 0 && !tilelab.engine_error) return undefined;
  const count = Number.isInteger(cell.execution_count) ? cell.execution_count : null;
  let stdout = '';
  const displays = [];
  const errors = [];
  for (const item of outputs) {
    if (item?.output_type === 'stream' && item.name === 'stdout') stdout += joined(item.text);
    else if (item?.output_type === 'execute_result' || item?.output_type === 'display_data') {
      const data = item.data ?? {};
      if (data[DISPLAY_MIME] && typeof data[DISPLAY_MIME] === 'object') displays.push(data[DISPLAY_MIME]);
      else if (data['text/plain'] !== undefined) displays.push({ kind: 'text', text: joined(data['text/plain']) });
    } else if (item?.output_type === 'error') {
      errors.push({ severity: 'error', code: String(item.ename ?? ''), message: String(item.evalue ?? ''), cell: count, traceback: [] });
    }
  }
  const diagnostics = Array.isArray(tilelab.diagnostics) ? tilelab.diagnostics : errors;
  const failed = tilelab.status === 'error' || diagnostics.some((diagnostic) => diagnostic.severity === 'error');
  const result = {
    execution_count: count,
    status: failed ? 'error' : 'ok',
    stdout,
    displays,
    diagnostics,
    duration_ms: tilelab.duration_ms ?? null,
    kernel_schedules: Array.isArray(tilelab.kernel_schedules) ? tilelab.kernel_schedules : [],
  };
  return { state: failed ? 'error' : 'done', result, engineError: tilelab.engine_error, ms: tilelab.duration_ms ?? undefined, executionCount: count ?? undefined };
}
