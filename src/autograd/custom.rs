//! Custom ops: a thread-local registry mapping a name to a forward (on tensors, knows nothing about
//! autograd) and an optional backward (on `Var`s, so it may call back into an interpreter and be
//! differentiated again).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::error::{AutogradError, Result};
use super::node::Extension;
use super::op::Op;
use super::rules::RuleContext;
use super::var::Var;
use crate::tensor::Tensor;

/// A non-tensor argument of a custom op.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Attribute {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A flag.
    Bool(bool),
    /// A string.
    Text(String),
    /// A list of integers (shapes, dims).
    Ints(Vec<i64>),
    /// A list of floats.
    Floats(Vec<f64>),
}

/// Named non-tensor arguments.
pub type Attributes = BTreeMap<String, Attribute>;

/// What a forward returns: its outputs, and extra tensors it wants its backward to see.
#[derive(Clone, Debug)]
pub struct ForwardOutput {
    /// The results.
    pub outputs: Vec<Tensor>,
    /// Extra values passed to the backward after the inputs.
    pub saved: Vec<Tensor>,
}

/// The context a custom backward receives besides gradients and saved values.
#[derive(Clone, Debug)]
pub struct Context {
    /// The op's name.
    pub name: String,
    /// The forward's outputs.
    pub outputs: Vec<Tensor>,
    /// The non-tensor arguments of the call.
    pub attributes: Attributes,
}

/// A forward kernel: tensors and attributes in, outputs (and extra saved tensors) out.
pub type CustomForward = Rc<dyn Fn(&[Tensor], &Attributes) -> Result<ForwardOutput>>;

/// A backward: (gradients of the outputs, saved = inputs then extras, context) → one gradient or
/// `None` per input.
pub type CustomBackward = Rc<dyn Fn(&[Var], &[Var], &Context) -> Result<Vec<Option<Var>>>>;

#[derive(Clone)]
struct CustomOp {
    forward: CustomForward,
    backward: Option<CustomBackward>,
}

thread_local! {
    static REGISTRY: RefCell<HashMap<String, CustomOp>> = RefCell::new(HashMap::new());
}

/// Registers (or replaces) the op `name`. Without a backward, differentiating it fails at backward
/// time with "gradient not implemented for <name>".
pub fn register_custom_op(name: &str, forward: CustomForward, backward: Option<CustomBackward>) {
    REGISTRY.with(|registry| registry.borrow_mut().insert(name.to_string(), CustomOp { forward, backward }));
}

/// Sets or replaces the backward of a registered op (`@register_gradient` after the forward).
pub fn register_gradient(name: &str, backward: CustomBackward) -> Result<()> {
    REGISTRY.with(|registry| match registry.borrow_mut().get_mut(name) {
        Some(op) => {
            op.backward = Some(backward);
            Ok(())
        }
        None => Err(AutogradError::UnknownCustomOp { name: name.to_string() }),
    })
}

/// Removes the op `name`; returns whether it was registered.
pub fn unregister_custom_op(name: &str) -> bool {
    REGISTRY.with(|registry| registry.borrow_mut().remove(name).is_some())
}

/// The names of the registered ops, sorted.
pub fn custom_op_names() -> Vec<String> {
    let mut names: Vec<String> = REGISTRY.with(|registry| registry.borrow().keys().cloned().collect());
    names.sort();
    names
}

/// Runs the custom op `name` on `inputs`; records it when an input requires grad.
pub fn call_custom(name: &str, inputs: &[Var], attributes: Attributes) -> Result<Vec<Var>> {
    let op = REGISTRY
        .with(|registry| registry.borrow().get(name).cloned())
        .ok_or_else(|| AutogradError::UnknownCustomOp { name: name.to_string() })?;
    run_custom(name, op, inputs, attributes, super::graph::GeneratedShown::default())
}

/// Runs a custom op made for one call: `forward` now, and `backward` kept by the node it records,
/// not by the registry. A kernel call's closures hold its tensors (the saved values, the reference
/// run's graph); registered under the kernel's name they stayed alive until the kernel's next call,
/// and kept the graph of its last call in the session for good. `shown` records a generated
/// backward's save-or-recompute decisions and tile ops on the node (the graph view shows them).
pub fn call_custom_once(
    name: &str,
    forward: CustomForward,
    backward: Option<CustomBackward>,
    inputs: &[Var],
    attributes: Attributes,
    shown: super::graph::GeneratedShown,
) -> Result<Vec<Var>> {
    run_custom(name, CustomOp { forward, backward }, inputs, attributes, shown)
}

fn run_custom(
    name: &str,
    op: CustomOp,
    inputs: &[Var],
    attributes: Attributes,
    shown: super::graph::GeneratedShown,
) -> Result<Vec<Var>> {
    let tensors: Vec<Tensor> = inputs.iter().map(|input| input.tensor().clone()).collect();
    let result = (op.forward)(&tensors, &attributes)?;
    if result.outputs.is_empty() {
        return Err(AutogradError::CustomOp {
            name: name.to_string(),
            detail: crate::messages::AutogradDetail::NoOutputs,
        });
    }
    let extra = result.saved.into_iter().map(Var::constant).collect();
    let references: Vec<&Var> = inputs.iter().collect();
    let extension = Extension::Custom { backward: op.backward, attributes, shown: Box::new(shown) };
    Ok(Var::record_many(Op::Custom { name: name.to_string() }, &references, result.outputs, extra, extension))
}

/// The rule of a custom node: calls its registered backward.
pub(crate) fn custom_gradients(name: &str, context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let Some(Extension::Custom { backward, attributes, .. }) = &context.operation.extension else {
        return Err(AutogradError::GradientNotImplemented { name: name.to_string() });
    };
    let backward = backward.as_ref().ok_or_else(|| AutogradError::GradientNotImplemented { name: name.to_string() })?;
    let call =
        Context { name: name.to_string(), outputs: context.saved.outputs.clone(), attributes: attributes.clone() };
    let gradients = backward(context.grads, &context.saved.values, &call)?;
    if gradients.len() != context.operation.inputs.len() {
        return Err(AutogradError::CustomOp {
            name: name.to_string(),
            detail: crate::messages::AutogradDetail::GradientsCount {
                given: gradients.len(),
                inputs: context.operation.inputs.len(),
            },
        });
    }
    Ok(gradients)
}
