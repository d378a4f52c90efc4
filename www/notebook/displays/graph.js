// A graph display, until a drawn graph view exists: node counts, memory saved for backward, the
// forward ops in order, and the Graphviz text (to paste into any DOT viewer).
import { t } from '../../i18n/index.js';
import { element, formatShape } from './dom.js';

/** Nodes listed at most. */
const MAX_NODES = 40;

/** `name: label [shape] dtype` for one node. */
function nodeLine(node) {
  const output = node.outputs?.[0];
  const where = output ? ` ${formatShape(output.shape)} ${output.dtype ?? ''}`.trimEnd() : '';
  return `${node.name ? `${node.name}: ` : ''}${node.label}${where}`;
}

/** The view of a `graph` display. */
export function renderGraph(display) {
  const box = element('div', 'output-graph');
  box.append(element('div', 'output-caption', t('output.graph', {
    nodes: display.num_nodes,
    backward: display.num_backward_nodes,
    bytes: display.graph?.saved_activation_bytes ?? 0,
  })));
  const nodes = display.graph?.nodes ?? [];
  if (nodes.length > 0) {
    const list = element('ol', 'graph-nodes');
    for (const node of nodes.slice(0, MAX_NODES)) list.append(element('li', null, nodeLine(node)));
    if (nodes.length > MAX_NODES) list.append(element('li', 'more', '…'));
    box.append(list);
  }
  const dot = element('details', 'graph-dot');
  dot.append(element('summary', null, t('output.graphDot')), element('pre', 'output-text', display.dot));
  box.append(dot);
  return box;
}
