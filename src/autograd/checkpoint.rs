//! Gradient checkpointing: run `f` without recording, save only its inputs, and recompute `f` inside
//! the backward to get the gradients. Trades compute for the memory of the intermediate values.

use std::rc::Rc;

use std::collections::HashSet;

use super::engine::{grad_with_options, BackwardOptions};
use super::error::{AutogradError, Result};
use super::mode::{enable_grad, is_grad_enabled, no_grad};
use super::node::{next_node_id, Extension, Node};
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
        return Err(AutogradError::BadArgument {
            op: "checkpoint".into(),
            detail: crate::messages::AutogradDetail::NoOutputs,
        });
    }
    let tensors = outputs.into_iter().map(|output| output.tensor().clone()).collect();
    let references: Vec<&Var> = inputs.iter().collect();
    Ok(Var::record_many(
        Op::Checkpoint { name: name.to_string() },
        &references,
        tensors,
        Vec::new(),
        Extension::Checkpoint(function),
    ))
}

/// The rule of a checkpoint node: recompute `f` on aliases of the saved inputs, then differentiate
/// the recomputation with respect to the aliases. The aliases (identity reshapes) connect the
/// recomputation to the outer graph, so with `create_graph` the result is differentiable again,
/// while the traversal of the inner `grad` stops at them.
pub(crate) fn checkpoint_gradients(context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let Some(Extension::Checkpoint(function)) = &context.operation.extension else {
        return Err(AutogradError::BadArgument {
            op: context.operation.op.name(),
            detail: crate::messages::AutogradDetail::Internal { what: "checkpoint without its function".into() },
        });
    };
    let create_graph = is_grad_enabled();
    let _on = enable_grad();
    let first_new_id = next_node_id();
    let aliases = context
        .saved
        .values
        .iter()
        .zip(context.needs)
        .map(|(input, &need)| if need { input.reshape(input.shape()) } else { Ok(input.detach()) })
        .collect::<Result<Vec<Var>>>()?;
    let outputs = function(&aliases)?;
    if outputs.len() != context.grads.len() {
        return Err(AutogradError::BadArgument {
            op: context.operation.op.name(),
            detail: crate::messages::AutogradDetail::RecomputationOutputs {
                recomputed: outputs.len(),
                forward: context.grads.len(),
            },
        });
    }
    let alias_ids: HashSet<u64> = aliases.iter().filter_map(Var::node_id).collect();
    if uses_outside_values(&outputs, &alias_ids, first_new_id) {
        return Err(AutogradError::BadArgument {
            op: context.operation.op.name(),
            detail: crate::messages::AutogradDetail::CapturedGrad,
        });
    }
    let (live, seeds): (Vec<Var>, Vec<Var>) = outputs
        .iter()
        .zip(context.grads)
        .filter(|(output, _)| output.requires_grad())
        .map(|(output, g)| (output.clone(), g.clone()))
        .unzip();
    if live.is_empty() {
        return Ok(vec![None; aliases.len()]);
    }
    let options = BackwardOptions { retain_graph: create_graph, create_graph };
    grad_with_options(&live, &aliases, Some(&seeds), options)
}

/// Whether the recomputed graph reaches a node made before the recomputation other than through
/// the aliases of the inputs (a captured value that requires grad).
fn uses_outside_values(outputs: &[Var], alias_ids: &HashSet<u64>, first_new_id: u64) -> bool {
    let mut stack: Vec<Rc<Node>> = outputs.iter().filter_map(|output| output.node().cloned()).collect();
    let mut seen = HashSet::new();
    while let Some(node) = stack.pop() {
        if !seen.insert(node.id) || alias_ids.contains(&node.id) {
            continue;
        }
        if node.id < first_new_id {
            return true;
        }
        stack.extend(node.inputs().iter().filter_map(|edge| edge.node.clone()));
    }
    false
}
