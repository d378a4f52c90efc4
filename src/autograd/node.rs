//! Graph nodes: leaves (which accumulate `.grad`) and recorded operations (inputs, saved values).

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::checkpoint::CheckpointFunction;
use super::custom::CustomBackward;
use super::error::{AutogradError, Result};
use super::op::Op;
use super::var::Var;
use crate::tensor::{DType, Tensor};

thread_local! {
    static NEXT_NODE_ID: Cell<u64> = const { Cell::new(1) };
}

/// A fresh node id (unique within the thread).
pub(crate) fn next_node_id() -> u64 {
    NEXT_NODE_ID.with(|next| {
        let id = next.get();
        next.set(id + 1);
        id
    })
}

/// The id the next node will get; [`restore_node_ids`] puts it back (work that must not shift the
/// ids a user's graphs show, such as the engine's warm-up).
pub(crate) fn node_id_mark() -> u64 {
    NEXT_NODE_ID.with(Cell::get)
}

/// Makes `mark` (from [`node_id_mark`]) the next node id again.
pub(crate) fn restore_node_ids(mark: u64) {
    NEXT_NODE_ID.with(|next| next.set(mark));
}

/// Shape and dtype of a value flowing along an edge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ValueMeta {
    /// Dims.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: DType,
    /// Valid region of a tile, when it does not cover the whole shape.
    pub valid_shape: Option<Vec<usize>>,
}

impl ValueMeta {
    /// The metadata of a tensor.
    pub fn of(tensor: &Tensor) -> ValueMeta {
        ValueMeta {
            shape: tensor.shape().to_vec(),
            dtype: tensor.dtype(),
            valid_shape: tensor.valid_shape().map(<[usize]>::to_vec),
        }
    }

    /// Bytes of a value of this shape and dtype.
    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.size_in_bytes()
    }
}

/// A graph node.
pub(crate) struct Node {
    pub id: u64,
    pub kind: NodeKind,
    pub outputs: Vec<ValueMeta>,
}

/// Leaf or recorded operation.
pub(crate) enum NodeKind {
    /// A value created by the user with `requires_grad`; gradients accumulate into `grad`.
    Leaf { grad: RefCell<Option<Tensor>>, name: RefCell<Option<String>> },
    /// A recorded op.
    Operation(Operation),
}

/// An input of an operation: the node that produced it (none for constants) and which output.
pub(crate) struct Edge {
    pub node: Option<Rc<Node>>,
    pub output: usize,
    pub meta: ValueMeta,
}

/// Behaviour that does not fit in the serialisable `Op` (closures).
pub(crate) enum Extension {
    /// A registered custom op's backward and the attributes it was called with.
    Custom {
        backward: Option<CustomBackward>,
        attributes: super::custom::Attributes,
        /// A generated backward's save-or-recompute decisions and tile ops (empty for registered
        /// ones).
        shown: Box<super::graph::GeneratedShown>,
    },
    /// The function a checkpoint recomputes.
    Checkpoint(CheckpointFunction),
}

/// A recorded op with what its backward needs.
pub(crate) struct Operation {
    pub op: Op,
    pub inputs: Vec<Edge>,
    pub saved: RefCell<Option<Saved>>,
    /// Description of what was saved, kept after the values are freed (for the graph view).
    pub saved_info: Vec<SavedInfo>,
    pub extension: Option<Extension>,
    /// Whether a backward pass (`backward` or `grad`) has run this op's gradient rule: the graph
    /// view shows a backward node only once it exists.
    pub backward_ran: std::cell::Cell<bool>,
}

/// Values an operation keeps for backward.
pub(crate) struct Saved {
    /// The inputs (when the op's plan saves them), then extra values a custom forward chose to save.
    pub values: Vec<Var>,
    /// The outputs (when the plan saves them), without their node to avoid a reference cycle.
    pub outputs: Vec<Tensor>,
    /// (buffer id, version) of every saved tensor when it was saved.
    pub versions: Vec<(u64, u64)>,
}

/// One saved tensor, for the graph view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SavedInfo {
    /// `input 0`, `output 0`, `extra 0` …
    pub role: String,
    /// Shape and dtype.
    pub meta: ValueMeta,
    /// Bytes of the values.
    pub bytes: usize,
    /// Identity of the buffer (equal for aliases, so shared buffers are counted once).
    pub buffer_id: u64,
    /// Whether the buffer is the value of a leaf or a constant (held by the caller anyway, so not
    /// memory the graph adds).
    pub is_leaf_value: bool,
}

impl Saved {
    /// Builds the saved set, recording versions and the description.
    pub fn new(values: Vec<Var>, outputs: Vec<Tensor>, input_count: usize) -> (Saved, Vec<SavedInfo>) {
        let mut info = Vec::new();
        let mut versions = Vec::new();
        for (index, value) in values.iter().enumerate() {
            let role =
                if index < input_count { format!("input {index}") } else { format!("extra {}", index - input_count) };
            versions.push((value.tensor().buffer_id(), value.tensor().version()));
            info.push(SavedInfo {
                role,
                meta: ValueMeta::of(value.tensor()),
                bytes: value.tensor().size_in_bytes(),
                buffer_id: value.tensor().buffer_id(),
                // An extra (what a kernel passed to `save_for_backward`) was made by the forward and
                // lives only for the backward, even when it is a constant without a node; one that
                // aliases an input is counted once, with the input, by the graph's buffer set.
                is_leaf_value: index < input_count && value.is_leaf(),
            });
        }
        for (index, output) in outputs.iter().enumerate() {
            versions.push((output.buffer_id(), output.version()));
            info.push(SavedInfo {
                role: format!("output {index}"),
                meta: ValueMeta::of(output),
                bytes: output.size_in_bytes(),
                buffer_id: output.buffer_id(),
                is_leaf_value: false,
            });
        }
        (Saved { values, outputs, versions }, info)
    }

    /// Fails when a saved tensor was written in place since it was saved.
    pub fn check_versions(&self, op: &Op) -> Result<()> {
        let tensors = self.values.iter().map(Var::tensor).chain(self.outputs.iter());
        for (tensor, &(buffer, version)) in tensors.zip(&self.versions) {
            if tensor.buffer_id() == buffer && tensor.version() != version {
                return Err(AutogradError::SavedTensorModified { op: op.name() });
            }
        }
        Ok(())
    }

    /// Saved value `index` (an input, or an extra after the inputs).
    pub fn value(&self, op: &Op, index: usize) -> Result<&Var> {
        self.values.get(index).ok_or_else(|| internal(op, "an input the rule needs was not saved"))
    }

    /// Output `index` as a differentiable value of `node` (so second-order graphs see it).
    pub fn output(&self, node: &Rc<Node>, op: &Op, index: usize) -> Result<Var> {
        let tensor = self.outputs.get(index).ok_or_else(|| internal(op, "an output the rule needs was not saved"))?;
        Ok(Var::from_parts(tensor.clone(), Some(node.clone()), index))
    }
}

/// A contract violation inside the engine, reported instead of a panic.
pub(crate) fn internal(op: &Op, detail: &str) -> AutogradError {
    AutogradError::BadArgument {
        op: op.name(),
        detail: crate::messages::AutogradDetail::Internal { what: detail.to_string() },
    }
}

/// Drops the graph above an operation iteratively: a long chain (a loop of 100 000 ops in a
/// script) would otherwise be dropped by recursion deep enough to overflow the wasm stack.
impl Drop for Operation {
    fn drop(&mut self) {
        let mut stack = Vec::new();
        detach_inputs(self, &mut stack);
        while let Some(node) = stack.pop() {
            if let Ok(mut node) = Rc::try_unwrap(node) {
                if let NodeKind::Operation(operation) = &mut node.kind {
                    detach_inputs(operation, &mut stack);
                }
            }
        }
    }
}

/// Moves the nodes an operation holds (edges and saved values) onto `stack`.
fn detach_inputs(operation: &mut Operation, stack: &mut Vec<Rc<Node>>) {
    stack.extend(operation.inputs.iter_mut().filter_map(|edge| edge.node.take()));
    if let Some(saved) = operation.saved.get_mut().take() {
        stack.extend(saved.values.into_iter().filter_map(Var::into_node));
    }
}

impl Node {
    /// The edges to the inputs (none for a leaf).
    pub fn inputs(&self) -> &[Edge] {
        match &self.kind {
            NodeKind::Leaf { .. } => &[],
            NodeKind::Operation(operation) => &operation.inputs,
        }
    }
}

/// Every node reachable from `roots`, inputs before the ops that consume them (a DFS post-order).
pub(crate) fn topological_order(roots: &[Rc<Node>]) -> Vec<Rc<Node>> {
    let mut visited = HashSet::new();
    let mut order = Vec::new();
    let mut stack: Vec<(Rc<Node>, bool)> = roots.iter().rev().map(|root| (root.clone(), false)).collect();
    while let Some((node, expanded)) = stack.pop() {
        if expanded {
            order.push(node);
            continue;
        }
        if !visited.insert(node.id) {
            continue;
        }
        stack.push((node.clone(), true));
        for edge in node.inputs().iter().rev() {
            if let Some(input) = &edge.node {
                if !visited.contains(&input.id) {
                    stack.push((input.clone(), false));
                }
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(count: usize) -> Tensor {
        Tensor::from_f64(vec![1.0; count], &[count], DType::F32).expect("a tensor")
    }

    #[test]
    fn an_extra_saved_by_a_kernel_is_activation_memory_even_as_a_constant() {
        // Input 0 is the caller's leaf (4 f32 = 16 B, held anyway); extra 0 is a constant the
        // forward made (2 f32 = 8 B) and only the backward keeps alive.
        let (_, info) = Saved::new(vec![Var::leaf(values(4)), Var::constant(values(2))], Vec::new(), 1);
        assert_eq!((info[0].role.as_str(), info[0].bytes, info[0].is_leaf_value), ("input 0", 16, true));
        assert_eq!((info[1].role.as_str(), info[1].bytes, info[1].is_leaf_value), ("extra 0", 8, false));
    }
}
