//! The graph as data: forward nodes, leaves, edges with shapes and dtypes, saved tensors with their
//! bytes, the backward nodes and which one produces each gradient. Serialisable, and exportable as DOT.

use std::collections::HashSet;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::node::{topological_order, NodeKind, SavedInfo, ValueMeta};
use super::op::Op;
use super::var::Var;

/// A forward node: a leaf or a recorded op.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GraphNode {
    /// Node id (shared by the outputs of one op).
    pub id: u64,
    /// `leaf` or the op's name.
    pub label: String,
    /// The op, for recorded ops.
    pub op: Option<Op>,
    /// The user's name of a leaf.
    pub name: Option<String>,
    /// Shape and dtype of each output.
    pub outputs: Vec<ValueMeta>,
    /// Shape and dtype of every input of an op, in argument order, constants included (an input
    /// with no edge in `GraphData::edges` is a constant); empty for leaves.
    #[serde(default)]
    pub inputs: Vec<ValueMeta>,
    /// The tensors kept for backward (described even after they are freed).
    pub saved: Vec<SavedInfo>,
    /// Whether the saved tensors were already freed by a backward.
    pub saved_freed: bool,
    /// For leaves: whether a gradient has been accumulated.
    pub has_grad: bool,
}

/// A value flowing from output `from_output` of node `from` into input `to_input` of node `to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GraphEdge {
    /// Producer.
    pub from: u64,
    /// Which output of the producer.
    pub from_output: usize,
    /// Consumer.
    pub to: u64,
    /// Which input of the consumer.
    pub to_input: usize,
    /// Shape and dtype of the value.
    pub meta: ValueMeta,
}

/// The backward node of a forward op (`MulBackward` …): it produces the gradients of the op's inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BackwardNode {
    /// The id of the forward op it differentiates.
    pub forward: u64,
    /// `<op>_backward`.
    pub label: String,
    /// For a generated backward kernel: per forward value it reads, saved or recomputed.
    #[serde(default)]
    pub choices: Vec<SaveChoice>,
    /// The bytes of the values it chose to save (what the forward wrote to GM for it).
    #[serde(default)]
    pub saved_bytes: usize,
    /// For a generated backward kernel: its tile ops in order (the graph view expands the node
    /// into them).
    #[serde(default)]
    pub ops: Vec<BackwardOp>,
}

/// One tile op of a generated backward kernel, as the graph view lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BackwardOp {
    /// The op (`mul`, `sub`, `matmul` …).
    pub op: String,
    /// The line of the forward op whose adjoint it belongs to.
    pub line: Option<u32>,
    /// Shape and dtype of its result (none for an op without one).
    pub meta: Option<ValueMeta>,
    /// Whether it reads a forward value the forward saved.
    pub reads_saved: bool,
    /// Whether it reads a forward value the backward recomputes.
    pub reads_recomputed: bool,
    /// The forward input whose gradient it writes, when it is that gradient's last op.
    pub gradient_of: Option<String>,
}

/// What a generated backward's node shows: its save-or-recompute decisions and its tile ops.
#[derive(Clone, Debug, Default)]
pub struct GeneratedShown {
    /// Per forward value it reads, saved or recomputed.
    pub choices: Vec<SaveChoice>,
    /// Its tile ops in order.
    pub ops: Vec<BackwardOp>,
}

/// One forward value a generated backward kernel reads, and whether the forward saved it (a GM
/// write, then a read in the backward) or the backward recomputes it inside its tile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SaveChoice {
    /// The forward op that made it (`sigmoid`, `matmul` …).
    pub op: String,
    /// Its line in the kernel's script.
    pub line: Option<u32>,
    /// Shape and dtype.
    pub meta: ValueMeta,
    /// Saved (else recomputed).
    pub saved: bool,
    /// Its bytes.
    pub bytes: usize,
}

/// A gradient sent by the backward node of `producer` to the value `to_output` of node `to` (an
/// input of the forward op): "which node produced which gradient".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GradientEdge {
    /// The forward id of the backward node that computes this gradient.
    pub producer: u64,
    /// The node whose output receives it (a leaf's `.grad` or an op's backward).
    pub to: u64,
    /// Which output of `to`.
    pub to_output: usize,
    /// Shape and dtype of the gradient (those of the value).
    pub meta: ValueMeta,
}

/// The whole graph that produced some outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GraphData {
    /// Leaves and ops, inputs before consumers.
    pub nodes: Vec<GraphNode>,
    /// Forward edges.
    pub edges: Vec<GraphEdge>,
    /// One per recorded op whose backward has run.
    pub backward_nodes: Vec<BackwardNode>,
    /// Gradient flow, from backward nodes to the values they differentiate.
    pub gradient_edges: Vec<GradientEdge>,
    /// Ids of the output nodes the graph was taken from.
    pub outputs: Vec<u64>,
    /// Bytes of every distinct buffer still saved for backward.
    pub saved_bytes: usize,
    /// The same without buffers that are leaf values (those live anyway): the activation memory.
    pub saved_activation_bytes: usize,
}

impl GraphData {
    /// The graph reachable from `outputs`.
    pub fn from_outputs(outputs: &[Var]) -> GraphData {
        let roots: Vec<_> = outputs.iter().filter_map(|output| output.node().cloned()).collect();
        let order = topological_order(&roots);
        let mut graph = GraphData {
            nodes: Vec::new(),
            edges: Vec::new(),
            backward_nodes: Vec::new(),
            gradient_edges: Vec::new(),
            outputs: roots.iter().map(|root| root.id).collect(),
            saved_bytes: 0,
            saved_activation_bytes: 0,
        };
        let mut buffers = HashSet::new();
        for node in &order {
            match &node.kind {
                NodeKind::Leaf { grad, name } => graph.nodes.push(GraphNode {
                    id: node.id,
                    label: "leaf".into(),
                    op: None,
                    name: name.borrow().clone(),
                    outputs: node.outputs.clone(),
                    inputs: Vec::new(),
                    saved: Vec::new(),
                    saved_freed: false,
                    has_grad: grad.borrow().is_some(),
                }),
                NodeKind::Operation(operation) => {
                    let freed = operation.saved.borrow().is_none();
                    if !freed {
                        for info in &operation.saved_info {
                            if buffers.insert(info.buffer_id) {
                                graph.saved_bytes += info.bytes;
                                if !info.is_leaf_value {
                                    graph.saved_activation_bytes += info.bytes;
                                }
                            }
                        }
                    }
                    graph.nodes.push(GraphNode {
                        id: node.id,
                        label: operation.op.name(),
                        op: Some(operation.op.clone()),
                        name: None,
                        outputs: node.outputs.clone(),
                        inputs: operation.inputs.iter().map(|edge| edge.meta.clone()).collect(),
                        saved: operation.saved_info.clone(),
                        saved_freed: freed,
                        has_grad: false,
                    });
                    // The backward graph exists only where a backward pass ran the op's rule.
                    let backward = operation.backward_ran.get();
                    if backward {
                        let GeneratedShown { choices, ops } = match &operation.extension {
                            Some(super::node::Extension::Custom { shown, .. }) => (**shown).clone(),
                            _ => GeneratedShown::default(),
                        };
                        let saved_bytes = choices.iter().filter(|choice| choice.saved).map(|choice| choice.bytes).sum();
                        graph.backward_nodes.push(BackwardNode {
                            forward: node.id,
                            label: format!("{}_backward", operation.op.name()),
                            choices,
                            saved_bytes,
                            ops,
                        });
                    }
                    for (index, edge) in operation.inputs.iter().enumerate() {
                        let Some(input) = &edge.node else { continue };
                        graph.edges.push(GraphEdge {
                            from: input.id,
                            from_output: edge.output,
                            to: node.id,
                            to_input: index,
                            meta: edge.meta.clone(),
                        });
                        if !backward {
                            continue;
                        }
                        graph.gradient_edges.push(GradientEdge {
                            producer: node.id,
                            to: input.id,
                            to_output: edge.output,
                            meta: edge.meta.clone(),
                        });
                    }
                }
            }
        }
        graph
    }

    /// The graph in Graphviz DOT: forward nodes solid, backward nodes dashed, gradient edges red.
    pub fn to_dot(&self) -> String {
        let mut dot = String::from("digraph autograd {\n  rankdir=LR;\n");
        let describe = |meta: &ValueMeta| format!("{:?} {}", meta.shape, meta.dtype);
        for node in &self.nodes {
            let shape = if node.op.is_none() { "ellipse" } else { "box" };
            let mut label = node.name.clone().map_or(node.label.clone(), |name| format!("{name} (leaf)"));
            if let Some(meta) = node.outputs.first() {
                let _ = write!(label, "\\n{}", describe(meta));
            }
            let saved: usize = node.saved.iter().map(|info| info.bytes).sum();
            if saved > 0 {
                let _ = write!(label, "\\nsaved {saved} B{}", if node.saved_freed { " (freed)" } else { "" });
            }
            let _ = writeln!(dot, "  n{} [shape={shape}, label=\"{}\"];", node.id, escape(&label));
        }
        for edge in &self.edges {
            let _ = writeln!(dot, "  n{} -> n{} [label=\"{}\"];", edge.from, edge.to, escape(&describe(&edge.meta)));
        }
        for node in &self.backward_nodes {
            let mut label = node.label.clone();
            for choice in &node.choices {
                let verb = if choice.saved { "saved" } else { "recomputed" };
                let _ = write!(label, "\\n{verb}: {} {}", choice.op, describe(&choice.meta));
            }
            if !node.choices.is_empty() {
                let _ = write!(label, "\\nsaved {} B", node.saved_bytes);
            }
            let _ = writeln!(dot, "  b{} [shape=box, style=dashed, label=\"{}\"];", node.forward, escape(&label));
        }
        let is_leaf: HashSet<u64> = self.nodes.iter().filter(|node| node.op.is_none()).map(|node| node.id).collect();
        for edge in &self.gradient_edges {
            let target = if is_leaf.contains(&edge.to) { format!("n{}", edge.to) } else { format!("b{}", edge.to) };
            let _ = writeln!(
                dot,
                "  b{} -> {target} [color=red, label=\"grad {}\"];",
                edge.producer,
                escape(&describe(&edge.meta))
            );
        }
        dot.push_str("}\n");
        dot
    }
}

fn escape(text: &str) -> String {
    text.replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{DType, Tensor};

    #[test]
    fn op_nodes_list_every_input_constants_included() {
        // y = x · c with x a [2, 3] f32 leaf and c a [3] f32 constant (broadcast over rows): the mul
        // node has two inputs in argument order, only x's has an edge, so c reads as a constant.
        let x = Var::named_leaf(Tensor::from_f64(vec![1.0; 6], &[2, 3], DType::F32).unwrap(), "x");
        let c = Var::constant(Tensor::from_f64(vec![2.0; 3], &[3], DType::F32).unwrap());
        let y = x.mul(&c).unwrap();
        let graph = GraphData::from_outputs(std::slice::from_ref(&y));
        let mul = graph.nodes.iter().find(|node| node.label == "mul").unwrap();
        let shapes: Vec<&[usize]> = mul.inputs.iter().map(|meta| meta.shape.as_slice()).collect();
        assert_eq!(shapes, vec![&[2, 3][..], &[3][..]]);
        assert!(mul.inputs.iter().all(|meta| meta.dtype == DType::F32));
        let wired: Vec<usize> = graph.edges.iter().filter(|edge| edge.to == mul.id).map(|edge| edge.to_input).collect();
        assert_eq!(wired, vec![0]);
        let leaf = graph.nodes.iter().find(|node| node.name.as_deref() == Some("x")).unwrap();
        assert!(leaf.inputs.is_empty());
    }
}
