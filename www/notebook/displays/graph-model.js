// The graph view's model, built from a `graph` display (src/autograd/graph.rs): forward nodes (leaves
// and ops), backward nodes (one per op, listing the tensors it saved) and gradient sinks (a leaf's
// `.grad`), the edges between them labelled with shape and dtype, and the ELK input graph that lays
// them out: the forward graph left → right above the backward graph right → left, so a leaf's
// gradient lands under the leaf.
import { t } from '../../i18n/index.js';
import { formatShape } from './numbers.js';

/** Node sizes and text metrics of the drawing, in px (node text is monospace, so widths are exact). */
export const METRICS = {
  charWidth: 7.7,
  lineHeight: 15,
  padding: 8,
  minWidth: 64,
  labelHeight: 14,
};

/** Consumers of one leaf above which each gets its own reference copy of the leaf. */
const SHARED_LEAF_FANOUT = 3;

/** Nodes up to which ELK places the edge labels itself. */
const ELK_LABEL_LIMIT = 300;

/** Nodes of one part past which its layers are wrapped into rows. */
const WRAP_NODES = 80;

/** Width of an edge label (its text is smaller than the nodes'). */
function labelWidth(text) {
  return Math.ceil(textWidth(text) * 0.86);
}

/** A label box centred on the longest segment of a route (for labels ELK did not place). */
function labelOnRoute(points, text) {
  let best = null;
  for (let index = 1; index < points.length; index += 1) {
    const length = Math.hypot(points[index].x - points[index - 1].x, points[index].y - points[index - 1].y);
    if (!best || length > best.length) best = { length, from: points[index - 1], to: points[index] };
  }
  if (!best) return null;
  const width = labelWidth(text);
  const height = METRICS.labelHeight;
  const x = (best.from.x + best.to.x) / 2;
  const y = (best.from.y + best.to.y) / 2;
  // Above a horizontal segment, beside a vertical one, so the label does not hide the line.
  return best.from.y === best.to.y ? { x: x - width / 2, y: y - height - 1, width, height } : { x: x + 3, y: y - height / 2, width, height };
}

/** Saved tensors listed inside a backward node before "+n more". */
const MAX_SAVED_ROWS = 3;

/** `f32` for the `F32` of the Rust DType. */
export function dtypeName(dtype) {
  return String(dtype ?? '').toLowerCase();
}

/** `[2, 3] f32` (with the valid shape when the value is a partial tile). */
export function describeMeta(meta) {
  if (!meta) return '';
  const valid = meta.valid_shape ? ` valid ${formatShape(meta.valid_shape)}` : '';
  return `${formatShape(meta.shape)} ${dtypeName(meta.dtype)}${valid}`;
}

/** Text width in px: wide (CJK) characters count twice. */
export function textWidth(text) {
  let columns = 0;
  for (const character of String(text)) columns += character.codePointAt(0) > 0x2e7f ? 2 : 1;
  return columns * METRICS.charWidth;
}

/** Size of a node whose text is `lines` (the first is the title). */
function boxSize(lines) {
  const width = Math.max(METRICS.minWidth, ...lines.map(textWidth)) + 2 * METRICS.padding;
  return { width: Math.ceil(width), height: lines.length * METRICS.lineHeight + 2 * METRICS.padding - 2 };
}

/** A saved tensor's role (`input 0`, `extra 1`, `output 0` from the engine) in the UI language. */
export function roleText(role) {
  const match = /^(input|extra|output) (\d+)$/.exec(String(role));
  return match ? t(`output.graphView.role.${match[1]}`, { index: match[2] }) : String(role);
}

/** A generated backward's decision for one forward value: `saved: sigmoid [32, 64] f32`. */
export function choiceText(choice) {
  const key = choice.saved ? 'output.graphView.choice.saved' : 'output.graphView.choice.recomputed';
  return t(key, { op: choice.op, meta: describeMeta(choice.meta) });
}

/** One tile op of a generated backward: `mul [32, 64] f32 (line 5) — reads a saved value`. */
export function tileOpText(op) {
  const marks = [];
  if (op.reads_saved) marks.push(t('output.graphView.tileOp.readsSaved'));
  if (op.reads_recomputed) marks.push(t('output.graphView.tileOp.readsRecomputed'));
  if (op.gradient_of) marks.push(t('output.graphView.tileOp.writesGradient', { input: op.gradient_of }));
  const text = t('output.graphView.tileOp', { op: op.op, meta: describeMeta(op.meta), line: op.line ?? '?' });
  return marks.length === 0 ? text : t('output.graphView.tileOp.marked', { op: text, marks: marks.join(t('output.graphView.tileOp.separator')) });
}

/**
 * The lines inside a backward node: its name, one per saved tensor (capped), then a generated
 * backward's save-or-recompute decisions (capped), the bytes they saved and how many tile ops it
 * has (the details panel expands them).
 */
function backwardLines(backward, forward) {
  const lines = [backward.label];
  const saved = forward?.saved ?? [];
  for (const info of saved.slice(0, MAX_SAVED_ROWS)) lines.push(`▣ ${roleText(info.role)}: ${describeMeta(info.meta)}`);
  if (saved.length > MAX_SAVED_ROWS) lines.push(`▣ +${saved.length - MAX_SAVED_ROWS}`);
  const choices = backward.choices ?? [];
  for (const choice of choices.slice(0, MAX_SAVED_ROWS)) lines.push(`${choice.saved ? '⇣' : '↻'} ${choiceText(choice)}`);
  if (choices.length > MAX_SAVED_ROWS) lines.push(`↻ +${choices.length - MAX_SAVED_ROWS}`);
  if (choices.length > 0) lines.push(`Σ ${t('output.graphView.savedBytes', { bytes: backward.saved_bytes ?? 0 })}`);
  const ops = backward.ops ?? [];
  if (ops.length > 0) lines.push(`⊞ ${t('output.graphView.tileOpsCount', { count: ops.length })}`);
  return lines;
}

/**
 * The view model: `nodes` (id, kind, lines, size, the source record), `edges` (id, kind, source,
 * target, label) and lookup maps. Kinds: `leaf`, `op` (forward), `backward`, `grad` (a leaf's gradient),
 * `ref` (a copy of a shared leaf or of its gradient, `refOf` names the original).
 */
export function buildModel(graph) {
  const nodes = [];
  const edges = [];
  const forwardById = new Map();
  const outputs = new Set(graph?.outputs ?? []);
  for (const record of graph?.nodes ?? []) {
    forwardById.set(record.id, record);
    const isLeaf = record.op == null && (record.label ?? 'leaf') === 'leaf';
    const title = isLeaf ? (record.name ?? t('output.graphView.leafNumber', { id: record.id })) : record.label;
    const lines = [title, describeMeta(record.outputs?.[0])];
    if (!isLeaf && record.saved?.length > 0) lines.push(`▣ ${record.saved.length}`);
    nodes.push({
      id: `f${record.id}`,
      kind: isLeaf ? 'leaf' : 'op',
      lines,
      record,
      isOutput: outputs.has(record.id),
      ...boxSize(lines),
    });
  }
  for (const backward of graph?.backward_nodes ?? []) {
    const lines = backwardLines(backward, forwardById.get(backward.forward));
    nodes.push({ id: `b${backward.forward}`, kind: 'backward', lines, record: backward, forward: forwardById.get(backward.forward), ...boxSize(lines) });
  }
  // A leaf feeding many ops (a weight used in every step of a loop) would drag one long edge across
  // every layer, which makes layered layout quadratic; past SHARED_LEAF_FANOUT consumers, each
  // consumer gets its own reference copy of the leaf (kind `ref`, drawn dashed, pointing at it).
  const fanout = new Map();
  for (const edge of graph?.edges ?? []) fanout.set(edge.from, (fanout.get(edge.from) ?? 0) + 1);
  const shared = (id) => !forwardById.get(id)?.op && (fanout.get(id) ?? 0) > SHARED_LEAF_FANOUT;
  const reference = (prefix, node, index) => {
    const copy = { ...node, id: `${prefix}${index}`, kind: 'ref', refOf: node.id, refKind: node.kind };
    nodes.push(copy);
    return copy.id;
  };
  (graph?.edges ?? []).forEach((edge, index) => {
    let source = `f${edge.from}`;
    if (shared(edge.from)) source = reference('r', nodes.find((node) => node.id === source), index);
    edges.push({ id: `e${index}`, kind: 'forward', source, target: `f${edge.to}`, label: describeMeta(edge.meta), record: edge });
  });
  const sinks = new Map();
  (graph?.gradient_edges ?? []).forEach((edge, index) => {
    const target = forwardById.get(edge.to);
    let targetId = `b${edge.to}`;
    if (target && !target.op) {
      targetId = `g${edge.to}`;
      if (!sinks.has(targetId)) {
        const lines = [`${target.name ?? t('output.graphView.leafNumber', { id: target.id })}.grad`, describeMeta(target.outputs?.[0])];
        sinks.set(targetId, { id: targetId, kind: 'grad', lines, record: target, ...boxSize(lines) });
      }
    }
    edges.push({ id: `d${index}`, kind: 'gradient', source: `b${edge.producer}`, target: targetId, label: `∂ ${describeMeta(edge.meta)}`, record: edge });
  });
  nodes.push(...sinks.values());
  for (const edge of edges) {
    if (edge.kind === 'gradient' && edge.target.startsWith('g') && shared(edge.record.to)) {
      edge.target = reference('s', sinks.get(edge.target), edge.id.slice(1));
    }
  }
  const byId = new Map(nodes.map((node) => [node.id, node]));
  // Edges to nodes that are not in the graph (never expected) are dropped rather than breaking ELK.
  const kept = edges.filter((edge) => byId.has(edge.source) && byId.has(edge.target));
  return { nodes, edges: kept, byId, forwardById };
}

/**
 * The ELK options of one part: layered, `direction`, orthogonal edges. With `placedLabels` ELK places
 * the edge labels (label dummies in their own layers); without, the layers are spaced wide enough
 * for a label on the edge's longest segment.
 */
function partOptions(direction, placedLabels) {
  return {
    'elk.algorithm': 'layered',
    'elk.direction': direction,
    'elk.edgeRouting': 'ORTHOGONAL',
    'elk.layered.spacing.nodeNodeBetweenLayers': placedLabels ? '30' : '84',
    'elk.spacing.nodeNode': '18',
    'elk.spacing.edgeLabel': '2',
    'elk.spacing.edgeNode': '10',
    'elk.layered.spacing.edgeNodeBetweenLayers': '8',
    'elk.edgeLabels.placement': 'CENTER',
    'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
    'elk.layered.layering.strategy': 'NETWORK_SIMPLEX',
    'elk.padding': '[top=28,left=12,bottom=12,right=12]',
  };
}

/**
 * The ELK input: two compound children, `forward` (RIGHT) and `backward` (LEFT), stacked top to
 * bottom. No edge crosses between them, so each part is laid out on its own (fast for big graphs).
 * Edge labels are given sizes so ELK keeps them clear of nodes.
 */
export function elkGraph(model) {
  // Label dummies roughly double the layout's work; past this size labels are placed by readLayout.
  const placedLabels = model.nodes.length <= ELK_LABEL_LIMIT;
  const part = (name, direction, kinds) => {
    const inside = new Set();
    const children = [];
    for (const node of model.nodes) {
      if (!kinds.includes(node.kind === 'ref' ? node.refKind : node.kind)) continue;
      inside.add(node.id);
      children.push({ id: node.id, width: node.width, height: node.height });
    }
    const edges = model.edges
      .filter((edge) => inside.has(edge.source) && inside.has(edge.target))
      .map((edge) => ({
        id: edge.id,
        sources: [edge.source],
        targets: [edge.target],
        labels: placedLabels ? [{ id: `${edge.id}l`, text: edge.label, width: labelWidth(edge.label), height: METRICS.labelHeight }] : [],
      }));
    const layoutOptions = partOptions(direction, placedLabels);
    if (children.length > WRAP_NODES) {
      // A long chain (a loop of ops) would be one row tens of thousands of px wide; wrapping folds it
      // into rows, for a part about three times as wide as it is tall.
      layoutOptions['elk.layered.wrapping.strategy'] = 'MULTI_EDGE';
      layoutOptions['elk.aspectRatio'] = '3';
    }
    return { id: name, layoutOptions, children, edges };
  };
  const parts = [part('forward', 'RIGHT', ['leaf', 'op']), part('backward', 'LEFT', ['backward', 'grad'])].filter((item) => item.children.length > 0);
  return {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.spacing.nodeNode': '24',
      'elk.layered.spacing.nodeNodeBetweenLayers': '24',
      'elk.padding': '[top=8,left=8,bottom=8,right=8]',
      'elk.hierarchyHandling': 'SEPARATE_CHILDREN',
    },
    children: parts,
    edges: [],
  };
}

/**
 * Positions from a laid-out ELK graph, in root coordinates: `boxes` (id → x, y, width, height, part
 * boxes included), `routes` (edge id → points) and `labels` (edge id → x, y, width, height).
 */
export function readLayout(laidOut, model) {
  const labelText = new Map((model?.edges ?? []).map((edge) => [edge.id, edge.label]));
  const boxes = new Map();
  const routes = new Map();
  const labels = new Map();
  for (const part of laidOut.children ?? []) {
    const dx = part.x ?? 0;
    const dy = part.y ?? 0;
    boxes.set(part.id, { x: dx, y: dy, width: part.width, height: part.height });
    for (const child of part.children ?? []) boxes.set(child.id, { x: dx + child.x, y: dy + child.y, width: child.width, height: child.height });
    for (const edge of part.edges ?? []) {
      const points = [];
      for (const section of edge.sections ?? []) {
        points.push(section.startPoint, ...(section.bendPoints ?? []), section.endPoint);
      }
      routes.set(edge.id, points.map((point) => ({ x: dx + point.x, y: dy + point.y })));
      const label = edge.labels?.[0];
      if (label && Number.isFinite(label.x)) labels.set(edge.id, { x: dx + label.x, y: dy + label.y, width: label.width, height: label.height });
      else if (labelText.has(edge.id)) {
        const placed = labelOnRoute(routes.get(edge.id), labelText.get(edge.id));
        if (placed) labels.set(edge.id, placed);
      }
    }
  }
  return { boxes, routes, labels, width: laidOut.width ?? 0, height: laidOut.height ?? 0 };
}
