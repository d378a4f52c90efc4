// The page: starts the engine worker, asks it for the smoke report and renders it.
// Every user-visible string is set with textContent.

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });

const elements = {
  version: document.getElementById('version'),
  simd: document.getElementById('simd'),
  worker: document.getElementById('worker'),
  status: document.getElementById('status'),
  results: document.getElementById('results'),
  cases: document.getElementById('cases'),
};

/** Sets an element's text and its `data-state` (used by the stylesheet and the end-to-end test). */
function show(element, text, state) {
  element.textContent = text;
  if (state) element.dataset.state = state;
}

/** One table cell with plain text. */
function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

/** Renders one matmul case of the smoke report as a table row. */
function caseRow(matmul) {
  const row = document.createElement('tr');
  row.dataset.dtype = matmul.dtype;
  const [m, k] = matmul.a_shape;
  const n = matmul.b_shape[1];
  const flops = 2 * m * k * n;
  const gigaflops = matmul.milliseconds > 0 ? flops / (matmul.milliseconds * 1e6) : Number.NaN;
  row.append(
    cell(matmul.dtype, 'dtype'),
    cell(matmul.preview.map((value) => value.toFixed(4).padStart(9)).join(' '), 'values'),
    cell(matmul.checksum.toFixed(4), 'number checksum'),
    cell(`${matmul.milliseconds.toFixed(3)} ms`, 'number time'),
    cell(Number.isFinite(gigaflops) ? gigaflops.toFixed(2) : '—', 'number rate'),
  );
  return row;
}

function renderSmoke(report) {
  show(elements.simd, report.simd ? 'SIMD: on' : 'SIMD: off', report.simd ? 'ok' : 'warn');
  elements.cases.replaceChildren(...report.cases.map(caseRow));
  elements.results.hidden = false;
  show(elements.status, `Computed in the worker in WebAssembly (TileLab ${report.version}).`, 'done');
  // The full report (inputs included) lets the end-to-end test recompute C independently.
  globalThis.tilelabSmoke = report;
}

worker.addEventListener('message', (event) => {
  const message = event.data;
  switch (message.type) {
    case 'ready':
      show(elements.version, `v${message.version}`);
      show(elements.worker, 'Worker: ready', 'ok');
      show(elements.status, 'Multiplying matrices…', 'pending');
      worker.postMessage({ type: 'smoke' });
      break;
    case 'smoke':
      renderSmoke(message.report);
      break;
    case 'error':
      show(elements.status, `Error: ${message.message}`, 'error');
      if (message.fatal) {
        // After a trap the engine's memory is unreliable; the notebook will restart a fresh worker.
        worker.terminate();
        show(elements.worker, 'Worker: stopped', 'error');
      } else {
        show(elements.worker, 'Worker: ready', 'ok');
      }
      break;
    default:
      show(elements.status, `Unexpected message from the worker: ${String(message.type)}`, 'error');
  }
});

worker.addEventListener('error', (event) => {
  show(elements.status, `The engine worker failed: ${event.message || 'unknown error'}`, 'error');
  show(elements.worker, 'Worker: failed', 'error');
});
