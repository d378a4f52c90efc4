//! Gradient checkpointing: run `f` without recording, save only its inputs, and recompute `f` inside
//! the backward to get the gradients. Trades compute for the memory of the intermediate values.

use std::rc::Rc;

use super::engine::grad;
use super::error::{AutogradError, Result};
use super::mode::{enable_grad, no_grad};
use super::node::{next_node_id, topological_order, Extension};
use super::op::Op;
use super::rules::RuleContext;
use super::var::Var;

/// A checkpointed function. It must be deterministic, and every value it differentiates through
/// must be one of its inputs (a captured value that requires grad is an error at backward time).
pub type CheckpointFunction = Rc<dyn Fn(&[Var]) -> Result<Vec<Var>>>;

/// Runs `function` on `inputs` keeping only the inputs for backward; `name` labels the graph node.
pub fn checkpoint(name: &str, function: CheckpointFunction, inputs: &[Var]) -> Result<Vec<Var>> {
    let outputs = {
        let _off = no_grad();
        let detached: Vec<Var> = inputs.iter().map(Var::detach).collect();
        function(&detached)?
    };
    if outputs.is_empty() {
        return Err(AutogradError::BadArgument { op: "checkpoint".into(), detail: "the function returned no outputs".into() });
    }
    let tensors = outputs.into_iter().map(|output| output.tensor().clone()).collect();
    let references: Vec<&Var> = inputs.iter().collect();
    Ok(Var::record_many(Op::Checkpoint { name: name.to_string() }, &references, tensors, Vec::new(), Extension::Checkpoint(function)))
}

/// The rule of a checkpoint node: recompute with fresh leaves, then differentiate the recomputation.
/// (The recomputation is not connected to the outer graph, so a checkpoint is first-order only.)
pub(crate) fn checkpoint_gradients(context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let Some(Extension::Checkpoint(function)) = &context.operation.extension else {
        return Err(AutogradError::BadArgument { op: context.operation.op.name(), detail: "internal: checkpoint without its function".into() });
    };
    let first_new_id = next_node_id();
    let fresh: Vec<Var> = context
        .saved
        .values
        .iter()
        .zip(context.needs)
        .map(|(input, &need)| if need { Var::leaf(input.tensor().clone()) } else { input.detach() })
        .collect();
    let outputs = {
        let _on = enable_grad();
        function(&fresh)?
    };
    if outputs.len() != context.grads.len() {
        return Err(AutogradError::BadArgument {
            op: context.operation.op.name(),
            detail: format!("the recomputation returned {} outputs, the forward {}", outputs.len(), context.grads.len()),
        });
    }
    let roots: Vec<_> = outputs.iter().filter_map(|output| output.node().cloned()).collect();
    if topological_order(&roots).iter().any(|node| node.id < first_new_id) {
        return Err(AutogradError::BadArgument {
            op: context.operation.op.name(),
            detail: "the function uses a value that requires grad but is not among its inputs; pass it as an input".into(),
        });
    }
    let (live, seeds): (Vec<Var>, Vec<Var>) =
        outputs.iter().zip(context.grads).filter(|(output, _)| output.requires_grad()).map(|(output, g)| (output.clone(), g.detach())).unzip();
    if live.is_empty() {
        return Ok(vec![None; fresh.len()]);
    }
    grad(&live, &fresh, Some(&seeds), false)
}
