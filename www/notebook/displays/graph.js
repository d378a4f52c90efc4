// The `graph` display (pypto.graph): the forward and backward graph laid out by elkjs in a worker and
// drawn as SVG, with a legend, zoom and pan, a details panel for the clicked node, a table
// alternative, and the Graphviz text. Everything the user wrote (names) goes in as text.
import { t } from '../../i18n/index.js';
import { button, element } from '../../ui/dom.js';
import { createCanvas } from './graph-canvas.js';
import { nodeTable, showDetails } from './graph-details.js';
import { layoutInWorker } from './graph-layout.js';
import { buildModel, elkGraph, readLayout } from './graph-model.js';
/** @typedef {import('../../engine/contract.js').GraphDisplay} GraphDisplay */

/** Layouts by display, so re-rendering a cell's output (language switch) does not lay it out again. */
const layouts = new WeakMap();

/**
 * The model and the (pending) layout of a display.
 * @param {GraphDisplay} display
 */
function prepared(display) {
  let entry = layouts.get(display);
  if (!entry) {
    const model = buildModel(display.graph);
    const promise = layoutInWorker(elkGraph(model)).then(({ layout, milliseconds }) => ({ positions: readLayout(layout, model), milliseconds }));
    entry = { model, promise };
    layouts.set(display, entry);
  }
  return entry;
}

/** The legend: one swatch per node kind and per edge kind. */
function legend() {
  const list = element('ul', 'graph-legend');
  list.setAttribute('aria-label', t('output.graphView.legend'));
  for (const kind of ['leaf', 'op', 'backward', 'grad', 'saved', 'forwardEdge', 'gradientEdge']) {
    const item = element('li', `graph-legend-${kind}`);
    item.append(element('span', 'graph-swatch'), element('span', null, t(`output.graphView.legendItem.${kind}`)));
    list.append(item);
  }
  return list;
}

/**
 * The view of a `graph` display.
 * @param {GraphDisplay} display
 */
export function renderGraph(display) {
  const box = element('div', 'output-graph');
  const counts = { nodes: display.num_nodes, backward: display.num_backward_nodes, bytes: display.graph?.saved_activation_bytes ?? 0 };
  const header = element('div', 'graph-header');
  header.append(element('span', 'output-caption', t('output.graph', counts)));
  box.append(header);
  const { model, promise } = prepared(display);
  if (model.nodes.length === 0) {
    box.append(element('p', 'output-note', t('output.graphView.empty')));
    return box;
  }

  const toolbar = element('div', 'schedule-toolbar graph-toolbar');
  toolbar.setAttribute('role', 'toolbar');
  toolbar.setAttribute('aria-label', t('output.graphView.toolbar'));
  let canvas = null;
  const zoomLabel = element('span', 'schedule-zoom-level graph-zoom-level');
  const showZoom = () => {
    zoomLabel.textContent = canvas ? t('output.graphView.zoomLevel', { percent: Math.round(canvas.scale * 100) }) : '';
  };
  const zoomOut = button('schedule-button graph-zoom-out', '−', () => { canvas?.zoomBy(0.8); requestAnimationFrame(showZoom); }, t('output.graphView.zoomOut'));
  const zoomIn = button('schedule-button graph-zoom-in', '+', () => { canvas?.zoomBy(1.25); requestAnimationFrame(showZoom); }, t('output.graphView.zoomIn'));
  const zoomFit = button('schedule-button graph-zoom-fit', t('output.graphView.fit'), () => { canvas?.fit(); requestAnimationFrame(showZoom); }, t('output.graphView.fitLabel'));
  const tableToggle = button('schedule-button graph-table-toggle', t('output.graphView.table'), () => setTable(tableToggle.getAttribute('aria-pressed') !== 'true'), t('output.graphView.tableLabel'));
  tableToggle.setAttribute('aria-pressed', 'false');
  for (const control of [zoomOut, zoomIn, zoomFit]) control.disabled = true;
  toolbar.append(zoomOut, zoomIn, zoomFit, tableToggle, zoomLabel, element('span', 'graph-hint', t('output.graphView.hint')));

  const status = element('p', 'graph-status');
  status.setAttribute('role', 'status');
  status.textContent = t('output.graphView.layingOut', { nodes: model.nodes.length, edges: model.edges.length });
  box.dataset.layout = 'pending';

  const body = element('div', 'graph-body');
  const stage = element('div', 'graph-stage');
  stage.append(element('div', 'graph-placeholder'));
  const panel = element('aside', 'graph-details');
  panel.hidden = true;
  panel.setAttribute('aria-label', t('output.graphView.details'));
  panel.addEventListener('graph-details-closed', () => canvas?.element.focus());
  // Screen readers hear which node's details appeared (the focus stays on the node).
  const announcer = element('span', 'visually-hidden');
  announcer.setAttribute('aria-live', 'polite');
  body.append(stage, panel);

  const tableBox = element('div', 'graph-table-box');
  tableBox.hidden = true;
  const setTable = (on) => {
    tableToggle.setAttribute('aria-pressed', String(on));
    if (on && tableBox.childElementCount === 0) tableBox.append(nodeTable(model, display.graph));
    tableBox.hidden = !on;
    body.hidden = on;
  };

  const dot = element('details', 'graph-dot');
  dot.append(element('summary', null, t('output.graphDot')), element('pre', 'output-text', display.dot));
  box.append(toolbar, status, legend(), body, tableBox, dot, announcer);

  promise.then(
    ({ positions, milliseconds }) => {
      canvas = createCanvas(model, positions, {
        title: t('output.graphView.title', { forward: display.num_nodes, backward: display.num_backward_nodes, edges: model.edges.length }),
        onActivate: (node) => {
          const heading = showDetails(panel, node, model, display.graph);
          announcer.textContent = t('output.graphView.detailsShown', { name: heading.textContent });
        },
      });
      stage.replaceChildren(canvas.element);
      canvas.element.addEventListener('keydown', () => requestAnimationFrame(showZoom));
      canvas.element.addEventListener('wheel', () => requestAnimationFrame(showZoom));
      for (const control of [zoomOut, zoomIn, zoomFit]) control.disabled = false;
      box.dataset.layout = 'done';
      box.dataset.layoutMs = String(Math.round(milliseconds));
      status.textContent = t('output.graphView.laidOut', { nodes: model.nodes.length, seconds: (milliseconds / 1000).toFixed(2) });
      requestAnimationFrame(showZoom);
    },
    (error) => {
      box.dataset.layout = 'error';
      status.classList.add('output-error');
      status.textContent = t('output.graphView.layoutFailed', { message: error?.message ?? String(error) });
      setTable(true);
    },
  );
  return box;
}
