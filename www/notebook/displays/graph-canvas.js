// The drawn graph: an SVG of the laid-out nodes and edges with zoom and pan (Ctrl/⌘ + wheel zooms at
// the pointer, drag pans, buttons, keyboard). Only what intersects the viewport is in the DOM, and
// edge labels only from a readable zoom on, so a graph of thousands of nodes stays cheap to move.
import { t } from '../../i18n/index.js';
import { svgElement } from '../../ui/dom.js';
import { METRICS } from './graph-model.js';

const MIN_SCALE = 0.05;
const MAX_SCALE = 3;
/** Below this zoom, edge labels are not drawn (they would be unreadable). */
const LABEL_SCALE = 0.45;
/** Extra margin around the viewport that is drawn too, in screen px (smooth panning). */
const MARGIN = 200;
/** Pixels moved by one arrow key press. */
const PAN_STEP = 60;
/** Height of the viewport, in px: the graph's at zoom 1, within these bounds. */
const MIN_HEIGHT = 220;
const MAX_HEIGHT = 560;

/** Canvases made so far (for unique ids). */
let canvasCount = 0;

/** `M x y L …` for an edge route. */
function pathData(points) {
  return points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)} ${point.y.toFixed(1)}`).join(' ');
}

/** The bounding box of points. */
function bounds(points) {
  const xs = points.map((point) => point.x);
  const ys = points.map((point) => point.y);
  return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
}

function intersects(box, view) {
  return box.x <= view.x + view.width && box.x + box.width >= view.x && box.y <= view.y + view.height && box.y + box.height >= view.y;
}

/** The accessible name of a node: its kind and its text. */
function nodeName(node) {
  return `${t(`output.graphView.kind.${node.kind}`)}: ${node.lines.filter(Boolean).join(', ')}`;
}

/** One node's group: a box and its lines of text. */
function drawNode(node, box, selected) {
  const group = svgElement('g', {
    class: `graph-node graph-node-${node.kind}${node.isOutput ? ' graph-node-output' : ''}`,
    transform: `translate(${box.x.toFixed(1)} ${box.y.toFixed(1)})`,
    role: 'button',
    tabindex: -1,
    'data-id': node.id,
    'data-kind': node.kind,
    'aria-label': nodeName(node),
    'aria-pressed': String(selected),
  });
  if (node.refKind) group.dataset.refKind = node.refKind;
  group.append(svgElement('rect', { class: 'graph-node-box', width: box.width, height: box.height, rx: node.kind === 'leaf' || node.kind === 'grad' || node.kind === 'ref' ? 14 : 4 }));
  node.lines.forEach((line, index) => {
    const text = svgElement('text', {
      class: index === 0 ? 'graph-node-title' : line.startsWith('▣') ? 'graph-node-saved' : 'graph-node-meta',
      x: METRICS.padding,
      y: METRICS.padding + 11 + index * METRICS.lineHeight,
    });
    // The space before each later line is not drawn, but keeps the lines apart in the node's
    // text, which assistive technology compares with its accessible name (`nodeName`).
    text.textContent = index === 0 ? line : ` ${line}`;
    group.append(text);
  });
  return group;
}

/** One edge's path, with the arrowhead of its kind from this canvas's markers (`uid`). */
function drawEdge(edge, points, uid) {
  return svgElement('path', {
    class: `graph-edge graph-edge-${edge.kind}`,
    d: pathData(points),
    'marker-end': `url(#graph-arrow-${edge.kind}-${uid})`,
    'data-id': edge.id,
  });
}

/** An edge's label on a backing rect, so it stays readable over lines. */
function drawLabel(edge, box) {
  const group = svgElement('g', { class: `graph-edge-label graph-edge-label-${edge.kind}`, 'data-edge': edge.id });
  group.append(svgElement('rect', { x: box.x - 2, y: box.y - 1, width: box.width + 4, height: box.height + 2, rx: 3 }));
  const text = svgElement('text', { x: box.x, y: box.y + box.height - 3 });
  text.textContent = edge.label;
  group.append(text);
  return group;
}

/** Arrowheads for the two edge kinds (colours come from CSS through the marker's class). */
function markers(uid) {
  const defs = svgElement('defs');
  for (const kind of ['forward', 'gradient']) {
    const marker = svgElement('marker', { id: `graph-arrow-${kind}-${uid}`, viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.append(svgElement('path', { d: 'M0 0 L8 4 L0 8 z', class: `graph-arrow graph-arrow-${kind}` }));
    defs.append(marker);
  }
  return defs;
}

/**
 * The canvas of a laid-out model. `onActivate(node)` runs when a node is clicked or activated with
 * Enter/Space. Returns `{ element, zoomBy, fit, select, focusNode, scale }`.
 */
export function createCanvas(model, positions, { onActivate, title }) {
  // Ids (title, markers) must be unique in the page, which may show several graphs.
  canvasCount += 1;
  const uid = `graph${canvasCount}`;
  const viewport = document.createElement('div');
  viewport.className = 'graph-viewport';
  viewport.tabIndex = 0;
  viewport.setAttribute('role', 'group');
  viewport.setAttribute('aria-roledescription', t('output.graphView.canvasRole'));
  viewport.setAttribute('aria-label', title);
  const svg = svgElement('svg', { class: 'graph-svg', role: 'group', 'aria-labelledby': `${uid}-title` });
  const titleNode = svgElement('title', { id: `${uid}-title` });
  titleNode.textContent = title;
  const defs = markers(uid);
  const world = svgElement('g', { class: 'graph-world' });
  const partLayer = svgElement('g', { class: 'graph-parts' });
  const edgeLayer = svgElement('g', { class: 'graph-edges' });
  const labelLayer = svgElement('g', { class: 'graph-labels' });
  const nodeLayer = svgElement('g', { class: 'graph-nodes' });
  world.append(partLayer, edgeLayer, labelLayer, nodeLayer);
  svg.append(titleNode, defs, world);
  viewport.append(svg);

  for (const name of ['forward', 'backward']) {
    const box = positions.boxes.get(name);
    if (!box) continue;
    partLayer.append(svgElement('rect', { class: `graph-part graph-part-${name}`, x: box.x, y: box.y, width: box.width, height: box.height, rx: 8 }));
    const heading = svgElement('text', { class: 'graph-part-heading', x: box.x + 10, y: box.y + 18 });
    heading.textContent = t(`output.graphView.part.${name}`);
    partLayer.append(heading);
  }

  const edgeBoxes = new Map();
  for (const edge of model.edges) {
    const points = positions.routes.get(edge.id);
    if (points?.length > 1) edgeBoxes.set(edge.id, bounds(points));
  }
  const drawnNodes = new Map();
  const drawnEdges = new Map();
  const drawnLabels = new Map();
  const state = { x: 0, y: 0, scale: 1, selected: null, current: model.nodes[0]?.id ?? null, frame: 0 };

  const size = () => ({ width: viewport.clientWidth || 900, height: viewport.clientHeight || MAX_HEIGHT });
  const visibleWorld = () => {
    const { width, height } = size();
    return { x: (-state.x - MARGIN) / state.scale, y: (-state.y - MARGIN) / state.scale, width: (width + 2 * MARGIN) / state.scale, height: (height + 2 * MARGIN) / state.scale };
  };

  /** Adds what came into view, removes what left it; the current and selected nodes always stay. */
  const sync = () => {
    state.frame = 0;
    world.setAttribute('transform', `translate(${state.x.toFixed(1)} ${state.y.toFixed(1)}) scale(${state.scale.toFixed(4)})`);
    viewport.dataset.scale = state.scale.toFixed(3);
    const view = visibleWorld();
    for (const node of model.nodes) {
      const box = positions.boxes.get(node.id);
      const keep = box && (intersects(box, view) || node.id === state.current || node.id === state.selected);
      const drawn = drawnNodes.get(node.id);
      if (keep && !drawn) {
        const group = drawNode(node, box, node.id === state.selected);
        group.tabIndex = node.id === state.current ? 0 : -1;
        drawnNodes.set(node.id, group);
        nodeLayer.append(group);
      } else if (!keep && drawn) {
        drawn.remove();
        drawnNodes.delete(node.id);
      }
    }
    const showLabels = state.scale >= LABEL_SCALE;
    viewport.dataset.labels = String(showLabels);
    for (const edge of model.edges) {
      const box = edgeBoxes.get(edge.id);
      const keep = box && intersects(box, view);
      if (keep && !drawnEdges.has(edge.id)) {
        const path = drawEdge(edge, positions.routes.get(edge.id), uid);
        drawnEdges.set(edge.id, path);
        edgeLayer.append(path);
      } else if (!keep && drawnEdges.has(edge.id)) {
        drawnEdges.get(edge.id).remove();
        drawnEdges.delete(edge.id);
      }
      const labelBox = positions.labels.get(edge.id);
      const keepLabel = showLabels && labelBox && intersects(labelBox, view);
      if (keepLabel && !drawnLabels.has(edge.id)) {
        const label = drawLabel(edge, labelBox);
        drawnLabels.set(edge.id, label);
        labelLayer.append(label);
      } else if (!keepLabel && drawnLabels.has(edge.id)) {
        drawnLabels.get(edge.id).remove();
        drawnLabels.delete(edge.id);
      }
    }
  };
  const schedule = () => {
    if (!state.frame) state.frame = requestAnimationFrame(sync);
  };

  const clampScale = (scale) => Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
  /** Zooms by `factor` keeping the world point under (px, py) (viewport px) in place. */
  const zoomBy = (factor, px = size().width / 2, py = size().height / 2) => {
    const scale = clampScale(state.scale * factor);
    state.x = px - ((px - state.x) * scale) / state.scale;
    state.y = py - ((py - state.y) * scale) / state.scale;
    state.scale = scale;
    schedule();
  };
  const panBy = (dx, dy) => {
    state.x += dx;
    state.y += dy;
    schedule();
  };
  /** The whole graph in view (never enlarged past 1:1). */
  const fit = () => {
    const { width, height } = size();
    state.scale = clampScale(Math.min(1, (width - 16) / Math.max(1, positions.width), (height - 16) / Math.max(1, positions.height)));
    state.x = (width - positions.width * state.scale) / 2;
    state.y = 8;
    schedule();
  };
  /** The start of a big graph at a readable zoom; a small graph fitted. */
  const home = () => {
    fit();
    if (state.scale < LABEL_SCALE) {
      state.scale = LABEL_SCALE;
      state.x = 8;
      state.y = 8;
    }
    schedule();
  };
  /** Pans so node `id` is inside the viewport. */
  const reveal = (id) => {
    const box = positions.boxes.get(id);
    if (!box) return;
    const { width, height } = size();
    const left = box.x * state.scale + state.x;
    const top = box.y * state.scale + state.y;
    if (left < 0 || left + box.width * state.scale > width) state.x = width / 2 - (box.x + box.width / 2) * state.scale;
    if (top < 0 || top + box.height * state.scale > height) state.y = height / 2 - (box.y + box.height / 2) * state.scale;
    sync();
  };
  /** Makes node `id` the one Tab reaches, draws it and focuses it. */
  const focusNode = (id) => {
    if (!positions.boxes.has(id)) return;
    const previous = drawnNodes.get(state.current);
    if (previous) previous.tabIndex = -1;
    state.current = id;
    reveal(id);
    const group = drawnNodes.get(id);
    group.tabIndex = 0;
    group.focus();
  };
  /** Marks node `id` selected (aria-pressed) and tells the owner. */
  const select = (id) => {
    drawnNodes.get(state.selected)?.setAttribute('aria-pressed', 'false');
    state.selected = id;
    drawnNodes.get(id)?.setAttribute('aria-pressed', 'true');
    const node = model.byId.get(id);
    if (node) onActivate(node);
  };

  // Drag pans; a press released without moving is a click (selects the node under it).
  let drag = null;
  viewport.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, moved: false, id: event.pointerId };
  });
  viewport.addEventListener('pointermove', (event) => {
    if (!drag || drag.id !== event.pointerId) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) viewport.setPointerCapture(event.pointerId);
    drag.moved = true;
    drag.x = event.clientX;
    drag.y = event.clientY;
    viewport.classList.add('dragging');
    panBy(dx, dy);
  });
  const endDrag = (event) => {
    if (!drag || drag.id !== event.pointerId) return;
    const moved = drag.moved;
    drag = null;
    viewport.classList.remove('dragging');
    if (moved) return;
    const group = event.target.closest?.('.graph-node');
    if (group) {
      focusNode(group.dataset.id);
      select(group.dataset.id);
    }
  };
  viewport.addEventListener('pointerup', endDrag);
  viewport.addEventListener('pointercancel', () => {
    drag = null;
    viewport.classList.remove('dragging');
  });
  // Ctrl/⌘ + wheel (and a trackpad pinch, which arrives as one) zooms; a plain wheel scrolls the page.
  viewport.addEventListener('wheel', (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    const rect = viewport.getBoundingClientRect();
    zoomBy(Math.exp(-event.deltaY * 0.0015), event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });

  viewport.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = /** @type {SVGElement} */ (event.target);
    const onNode = target.classList?.contains('graph-node');
    const order = model.nodes;
    let handled = true;
    if (onNode && (event.key === 'Enter' || event.key === ' ')) select(target.dataset.id);
    else if (onNode && (event.key === 'ArrowRight' || event.key === 'ArrowDown')) focusNode(order[(order.findIndex((node) => node.id === state.current) + 1) % order.length].id);
    else if (onNode && (event.key === 'ArrowLeft' || event.key === 'ArrowUp')) focusNode(order[(order.findIndex((node) => node.id === state.current) - 1 + order.length) % order.length].id);
    else if (onNode && event.key === 'Escape') viewport.focus();
    else if (!onNode && event.key === 'ArrowLeft') panBy(PAN_STEP, 0);
    else if (!onNode && event.key === 'ArrowRight') panBy(-PAN_STEP, 0);
    else if (!onNode && event.key === 'ArrowUp') panBy(0, PAN_STEP);
    else if (!onNode && event.key === 'ArrowDown') panBy(0, -PAN_STEP);
    else if (event.key === '+' || event.key === '=') zoomBy(1.25);
    else if (event.key === '-' || event.key === '_') zoomBy(0.8);
    else if (event.key === '0') fit();
    else handled = false;
    if (handled) event.preventDefault();
  });

  // The first view needs the viewport's real width, known once it is on the page; the height is
  // the graph's at the zoom that fits its width, within bounds.
  const start = () => {
    const width = viewport.clientWidth || 900;
    const scale = Math.max(LABEL_SCALE, Math.min(1, (width - 16) / Math.max(1, positions.width)));
    viewport.style.height = `${Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, positions.height * scale + 20)))}px`;
    home();
    sync();
  };
  start();
  requestAnimationFrame(() => {
    if (viewport.isConnected) start();
  });
  return { element: viewport, zoomBy, fit, select, focusNode, get scale() { return state.scale; }, sync };
}
