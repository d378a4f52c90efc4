// The graph view's text parts: the details panel of a node (op, inputs and outputs with shapes and
// dtypes, saved tensors, source line when known) and the table alternative listing every node.
import { t } from '../../i18n/index.js';
import { button, element } from '../../ui/dom.js';
import { choiceText, describeMeta, roleText, tileOpText } from './graph-model.js';

/** The forward node a view node stands for (a backward node's op, a gradient's or copy's leaf). */
function forwardOf(node, model) {
  if (node.kind === 'ref') return forwardOf(model.byId.get(node.refOf), model);
  if (node.kind === 'backward') return node.forward;
  return node.record;
}

/** The title of a node: `mul`, `mul_backward`, `x (leaf)`, `x.grad`. */
export function nodeTitle(node, model) {
  if (node.kind === 'ref') return nodeTitle(model.byId.get(node.refOf), model);
  return node.lines[0];
}

/** `name (id n)` of a forward record, for the inputs list. */
function producerName(record) {
  if (!record) return '?';
  return record.op ? `${record.label} #${record.id}` : `${record.name ?? t('output.graphView.kind.leaf')} #${record.id}`;
}

/** A definition list row. */
function row(list, term, value) {
  list.append(element('dt', null, term), element('dd', null, value));
}

/** A titled list of strings (nothing when empty). */
function section(title, items, className) {
  const box = element('section', `graph-details-section ${className}`);
  box.append(element('h5', null, title));
  if (items.length === 0) {
    box.append(element('p', 'graph-details-none', t('output.graphView.none')));
    return box;
  }
  const list = element('ul');
  for (const item of items) list.append(element('li', null, item));
  box.append(list);
  return box;
}

/** Ids for the tile-op lists (a page can hold several graph views). */
let tileOpLists = 0;

/**
 * A generated backward's tile ops: a disclosure button (collapsed at first, `aria-expanded`) that
 * shows or hides their ordered list.
 */
function tileOpsSection(ops) {
  const box = element('section', 'graph-details-section tile-ops');
  const list = element('ol', 'graph-tile-ops');
  tileOpLists += 1;
  list.id = `graph-tile-ops-${tileOpLists}`;
  list.hidden = true;
  for (const op of ops) {
    const item = element('li', null, tileOpText(op));
    if (op.reads_saved) item.dataset.reads = 'saved';
    else if (op.reads_recomputed) item.dataset.reads = 'recomputed';
    if (op.gradient_of) item.dataset.writes = 'gradient';
    list.append(item);
  }
  const toggle = button('graph-tile-ops-toggle', t('output.graphView.tileOps', { count: ops.length }), () => {
    list.hidden = !list.hidden;
    toggle.setAttribute('aria-expanded', String(!list.hidden));
  });
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', list.id);
  const heading = element('h5');
  heading.append(toggle);
  box.append(heading, list);
  return box;
}

/** The input lines of an op: the producer of each argument, or "constant". */
function inputLines(record, model, graph) {
  const edges = (graph?.edges ?? []).filter((edge) => edge.to === record.id);
  const count = Math.max(record.inputs?.length ?? 0, ...edges.map((edge) => edge.to_input + 1));
  const lines = [];
  for (let index = 0; index < count; index += 1) {
    const edge = edges.find((item) => item.to_input === index);
    const meta = record.inputs?.[index] ?? edge?.meta;
    const from = edge ? producerName(model.forwardById.get(edge.from)) : t('output.graphView.constant');
    lines.push(`${index}: ${describeMeta(meta)} ← ${from}`);
  }
  return lines;
}

/** The saved-tensor lines of an op (with "freed" once a backward released them). */
function savedLines(record) {
  return (record.saved ?? []).map((info) => t('output.graphView.savedLine', {
    role: roleText(info.role),
    meta: describeMeta(info.meta),
    bytes: info.bytes,
    state: record.saved_freed ? t('output.graphView.freed') : '',
  }).trim());
}

/** The op's attributes as compact text (`{"Reduce":{"dims":[1]…}}` minus the name), or ''. */
function attributesText(op) {
  if (!op || typeof op !== 'object') return '';
  const [inner] = Object.values(op);
  return inner && typeof inner === 'object' ? JSON.stringify(inner) : '';
}

/** Fills `panel` with the details of `node`. */
export function showDetails(panel, node, model, graph) {
  const record = forwardOf(node, model);
  panel.replaceChildren();
  panel.hidden = false;
  panel.dataset.node = node.id;
  const header = element('div', 'graph-details-header');
  const heading = element('h4', null, nodeTitle(node, model));
  heading.tabIndex = -1;
  const close = button('schedule-button graph-details-close', '×', () => {
    panel.hidden = true;
    panel.dispatchEvent(new CustomEvent('graph-details-closed', { bubbles: true }));
  }, t('output.graphView.closeDetails'));
  header.append(heading, close);
  const facts = element('dl', 'graph-details-facts');
  const kind = node.kind === 'ref' ? model.byId.get(node.refOf)?.kind ?? 'leaf' : node.kind;
  row(facts, t('output.graphView.field.kind'), t(`output.graphView.kind.${kind}`));
  if (record?.op) row(facts, t('output.graphView.field.op'), record.label);
  const attributes = attributesText(record?.op);
  if (attributes) row(facts, t('output.graphView.field.attributes'), attributes);
  if (record) row(facts, t('output.graphView.field.id'), `#${record.id}`);
  if (record && !record.op) {
    row(facts, t('output.graphView.field.requiresGrad'), t('output.graphView.yes'));
    row(facts, t('output.graphView.field.hasGrad'), t(record.has_grad ? 'output.graphView.yes' : 'output.graphView.no'));
  }
  const source = record?.source;
  row(facts, t('output.graphView.field.source'), source?.line ? t('output.graphView.sourceLine', { cell: source.cell ?? '?', line: source.line }) : t('output.graphView.unknown'));
  panel.append(header, facts);
  if (kind === 'op' && record) panel.append(section(t('output.graphView.inputs'), inputLines(record, model, graph), 'inputs'));
  if (kind === 'backward') {
    const sent = (graph?.gradient_edges ?? [])
      .filter((edge) => edge.producer === record?.id)
      .map((edge) => `∂ ${describeMeta(edge.meta)} → ${producerName(model.forwardById.get(edge.to))}`);
    panel.append(section(t('output.graphView.gradients'), sent, 'outputs'));
    const choices = node.record?.choices ?? [];
    if (choices.length > 0) {
      const lines = choices.map((choice) => t('output.graphView.choiceLine', { choice: choiceText(choice), line: choice.line ?? '?', bytes: choice.bytes }));
      lines.push(t('output.graphView.savedBytes', { bytes: node.record.saved_bytes ?? 0 }));
      panel.append(section(t('output.graphView.choices'), lines, 'choices'));
    }
    const ops = node.record?.ops ?? [];
    if (ops.length > 0) panel.append(tileOpsSection(ops));
  } else {
    const outputs = (record?.outputs ?? []).map((meta, index) => `${index}: ${describeMeta(meta)}`);
    panel.append(section(t(kind === 'grad' ? 'output.graphView.gradient' : 'output.graphView.outputs'), outputs, 'outputs'));
  }
  if (record?.op) panel.append(section(t('output.graphView.saved'), savedLines(record), 'saved'));
  return heading;
}

/** The table alternative: one row per node (kind, name, inputs, outputs, saved), built on demand. */
export function nodeTable(model, graph) {
  const table = element('table', 'output-table graph-table');
  table.append(element('caption', null, t('output.graphView.tableCaption')));
  const head = element('tr');
  for (const key of ['kind', 'name', 'inputs', 'outputs', 'saved']) {
    const cell = element('th', null, t(`output.graphView.column.${key}`));
    cell.scope = 'col';
    head.append(cell);
  }
  table.append(head);
  for (const node of model.nodes) {
    if (node.kind === 'ref') continue;
    const record = forwardOf(node, model);
    const tableRow = element('tr');
    tableRow.dataset.kind = node.kind;
    const name = element('th', null, nodeTitle(node, model));
    name.scope = 'row';
    const inputs = node.kind === 'op' ? inputLines(record, model, graph).join('\n') : node.kind === 'backward' ? t('output.graphView.gradientOf', { op: record?.label ?? '?' }) : '';
    const outputs = (node.kind === 'backward' ? [] : record?.outputs ?? []).map(describeMeta).join('\n');
    const saved = node.kind === 'backward' || node.kind === 'op' ? savedLines(record).join('\n') : '';
    tableRow.append(element('td', null, t(`output.graphView.kind.${node.kind}`)), name, element('td', null, inputs), element('td', null, outputs), element('td', null, saved));
    table.append(tableRow);
  }
  return table;
}
