//! `Var`: a tensor plus, when it requires grad, the graph node that produced it. Cheap to clone.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::mode::is_grad_enabled;
use super::node::{next_node_id, Edge, Extension, Node, NodeKind, Operation, Saved, ValueMeta};
use super::op::Op;
use crate::tensor::{DType, Tensor};

/// A differentiable value: a `Tensor` and, when it requires grad, its place in the graph.
#[derive(Clone)]
pub struct Var {
    tensor: Tensor,
    node: Option<Rc<Node>>,
    output: usize,
}

impl Var {
    /// A leaf that requires grad (`requires_grad=True`): gradients accumulate into its `.grad`.
    pub fn leaf(tensor: Tensor) -> Var {
        let node = Node {
            id: next_node_id(),
            kind: NodeKind::Leaf { grad: RefCell::new(None), name: RefCell::new(None) },
            outputs: vec![ValueMeta::of(&tensor)],
        };
        Var { tensor, node: Some(Rc::new(node)), output: 0 }
    }

    /// A named leaf that requires grad (the name shows in the graph view).
    pub fn named_leaf(tensor: Tensor, name: &str) -> Var {
        let var = Var::leaf(tensor);
        var.set_name(name);
        var
    }

    /// `Var::new`, refusing a leaf that requires grad over an integer or bool tensor (only float
    /// tensors have gradients, as in torch).
    pub fn try_new(tensor: Tensor, requires_grad: bool) -> super::error::Result<Var> {
        if requires_grad && !tensor.dtype().is_float() {
            return Err(super::error::AutogradError::BadArgument {
                op: "requires_grad".into(),
                detail: crate::messages::AutogradDetail::FloatOnly { dtype: tensor.dtype().pypto_name().to_string() },
            });
        }
        Ok(Var::new(tensor, requires_grad))
    }

    /// A value that does not require grad.
    pub fn constant(tensor: Tensor) -> Var {
        Var { tensor, node: None, output: 0 }
    }

    /// A leaf when `requires_grad`, else a constant.
    pub fn new(tensor: Tensor, requires_grad: bool) -> Var {
        if requires_grad {
            Var::leaf(tensor)
        } else {
            Var::constant(tensor)
        }
    }

    pub(crate) fn from_parts(tensor: Tensor, node: Option<Rc<Node>>, output: usize) -> Var {
        Var { tensor, node, output }
    }

    /// The values.
    pub fn tensor(&self) -> &Tensor {
        &self.tensor
    }

    /// The dims.
    pub fn shape(&self) -> &[usize] {
        self.tensor.shape()
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.tensor.dtype()
    }

    /// Whether gradients flow to this value (it is a leaf with requires_grad, or depends on one).
    pub fn requires_grad(&self) -> bool {
        self.node.is_some()
    }

    /// The tensor, giving up this value (and its place in the graph).
    pub(crate) fn into_tensor(self) -> Tensor {
        self.tensor
    }

    /// Whether this value was not produced by a recorded op (a leaf or a constant).
    pub fn is_leaf(&self) -> bool {
        match &self.node {
            None => true,
            Some(node) => matches!(node.kind, NodeKind::Leaf { .. }),
        }
    }

    /// The accumulated gradient of a leaf (`None` before any backward reached it).
    pub fn grad(&self) -> Option<Tensor> {
        match self.node.as_deref().map(|node| &node.kind) {
            Some(NodeKind::Leaf { grad, .. }) => grad.borrow().clone(),
            _ => None,
        }
    }

    /// Clears the accumulated gradient of a leaf.
    pub fn zero_grad(&self) {
        if let Some(NodeKind::Leaf { grad, .. }) = self.node.as_deref().map(|node| &node.kind) {
            grad.replace(None);
        }
    }

    /// Names a leaf for the graph view (ignored for other values).
    pub fn set_name(&self, name: &str) {
        if let Some(NodeKind::Leaf { name: slot, .. }) = self.node.as_deref().map(|node| &node.kind) {
            slot.replace(Some(name.to_string()));
        }
    }

    /// Names a leaf the first time a script binds it to a variable (later aliases keep that name).
    pub fn name_if_unnamed(&self, name: &str) {
        if let Some(NodeKind::Leaf { name: slot, .. }) = self.node.as_deref().map(|node| &node.kind) {
            if slot.borrow().is_none() {
                slot.replace(Some(name.to_string()));
            }
        }
    }

    /// The same values cut from the graph.
    pub fn detach(&self) -> Var {
        Var::constant(self.tensor.clone())
    }

    /// Identity of the graph node (`None` for constants); equal for the outputs of one op.
    pub fn node_id(&self) -> Option<u64> {
        self.node.as_ref().map(|node| node.id)
    }

    /// Which output of its node this value is.
    pub fn output_index(&self) -> usize {
        self.output
    }

    pub(crate) fn into_node(self) -> Option<Rc<Node>> {
        self.node
    }

    pub(crate) fn node(&self) -> Option<&Rc<Node>> {
        self.node.as_ref()
    }

    /// The same value and graph position with another valid-region marker (no values change).
    pub(crate) fn with_valid_marker(&self, valid: Option<Vec<usize>>) -> Var {
        Var { tensor: self.tensor.clone().with_valid_shape(valid), node: self.node.clone(), output: self.output }
    }
}

impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Var")
            .field("shape", &self.tensor.shape())
            .field("dtype", &self.tensor.dtype())
            .field("node", &self.node_id())
            .field("output", &self.output)
            .finish()
    }
}

impl From<Tensor> for Var {
    fn from(tensor: Tensor) -> Var {
        Var::constant(tensor)
    }
}

/// Wraps the outputs of an op: records a node when grad mode is on and some input requires grad,
/// otherwise returns constants (no graph is built). Integer and bool outputs (casts, masks, indices)
/// are never differentiable, so an op producing only those is not recorded either.
pub(crate) fn record(
    op: Op,
    inputs: &[&Var],
    outputs: Vec<Tensor>,
    extra_saved: Vec<Var>,
    extension: Option<Extension>,
) -> Vec<Var> {
    let differentiable = outputs.iter().any(|output| output.dtype().is_float());
    if !is_grad_enabled() || !differentiable || inputs.iter().all(|input| input.node.is_none()) {
        return outputs.into_iter().map(Var::constant).collect();
    }
    let plan = op.saves();
    let mut values: Vec<Var> =
        if plan.inputs { inputs.iter().map(|&input| input.clone()).collect() } else { Vec::new() };
    let input_count = values.len();
    values.extend(extra_saved);
    let saved_outputs = if plan.outputs { outputs.clone() } else { Vec::new() };
    let (saved, saved_info) = Saved::new(values, saved_outputs, input_count);
    let edges = inputs
        .iter()
        .map(|input| Edge { node: input.node.clone(), output: input.output, meta: ValueMeta::of(&input.tensor) })
        .collect();
    let node = Rc::new(Node {
        id: next_node_id(),
        kind: NodeKind::Operation(Operation {
            op,
            inputs: edges,
            saved: RefCell::new(Some(saved)),
            saved_info,
            extension,
            backward_ran: std::cell::Cell::new(false),
        }),
        outputs: outputs.iter().map(ValueMeta::of).collect(),
    });
    outputs
        .into_iter()
        .enumerate()
        .map(|(index, tensor)| Var { tensor, node: Some(node.clone()), output: index })
        .collect()
}

/// `record` for an op with one output.
pub(crate) fn record_one(op: Op, inputs: &[&Var], output: Tensor) -> Var {
    record(op, inputs, vec![output], Vec::new(), None).pop().expect("one output in, one out")
}
