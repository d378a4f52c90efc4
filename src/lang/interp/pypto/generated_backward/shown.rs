//! What the graph view shows of a generated backward: its save-or-recompute decisions, and its
//! tile ops in order, each marked with the forward values it reads and the gradient it writes.

use super::policy::Choice;
use super::GeneratedBackward;
use crate::autograd::{BackwardOp, GeneratedShown, SaveChoice, ValueMeta};
use crate::lang::interp::pypto::capture::{identity, Arg, CapturedOp, TensorRef};

fn meta_of(value: &TensorRef) -> ValueMeta {
    ValueMeta { shape: value.shape().to_vec(), dtype: value.dtype(), valid_shape: None }
}

/// The decisions and ops of `generated`'s backward for the inputs in `needs`.
pub(crate) fn shown(generated: &GeneratedBackward, choices: &[Choice], needs: &[bool]) -> GeneratedShown {
    GeneratedShown { choices: shown_choices(generated, choices), ops: shown_ops(generated, choices, needs) }
}

/// The decisions, each value named by the forward op that made it.
fn shown_choices(generated: &GeneratedBackward, choices: &[Choice]) -> Vec<SaveChoice> {
    choices
        .iter()
        .map(|choice| {
            let key = identity(&choice.value);
            let made =
                generated.forward_ops.iter().rev().find(|op| op.result.as_ref().map(identity) == Some(key.clone()));
            let bytes = choice.value.shape().iter().product::<usize>() * choice.value.dtype().size_in_bytes();
            SaveChoice {
                op: made.map_or_else(|| "value".to_string(), |op| op.op.name()),
                line: made.and_then(|op| op.line),
                meta: meta_of(&choice.value),
                saved: choice.save,
                bytes,
            }
        })
        .collect()
}

/// The backward capture's ops (derived with gradients in the outputs' tile forms, as `check`
/// derives it), without the marks that start loop iterations.
fn shown_ops(generated: &GeneratedBackward, choices: &[Choice], needs: &[bool]) -> Vec<BackwardOp> {
    let grads: Vec<TensorRef> = generated
        .gradient_forms()
        .iter()
        .zip(&generated.outputs)
        .map(|(form, output)| TensorRef::fresh(form, None, output.dtype()))
        .collect();
    // `prepare` derived the same adjoint before choosing, so this cannot fail here; a failure
    // would only leave the node without its op list.
    let Ok(adjoint) = generated.adjoint(needs, &grads) else { return Vec::new() };
    let reads = |save: bool, tensors: &[&TensorRef]| {
        choices.iter().filter(|choice| choice.save == save).any(|choice| {
            let key = identity(&choice.value);
            tensors.iter().any(|tensor| identity(*tensor) == key)
        })
    };
    adjoint
        .ops
        .iter()
        .filter(|op| !matches!(op.op, CapturedOp::UnitStart))
        .map(|op| {
            let tensors = op.op.tensors();
            let result = op.result.as_ref().map(identity);
            let gradient_of =
                adjoint.gradients.iter().zip(&generated.inputs).find_map(|(gradient, (name, _))| match gradient {
                    Some(Arg::Tensor(tensor)) if Some(identity(tensor)) == result => Some(name.clone()),
                    _ => None,
                });
            BackwardOp {
                op: op.op.name(),
                line: op.line,
                meta: op.result.as_ref().map(meta_of),
                reads_saved: reads(true, &tensors),
                reads_recomputed: reads(false, &tensors),
                gradient_of,
            }
        })
        .collect()
}
