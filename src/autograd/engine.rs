//! The backward pass: topological order from the outputs, one rule call per node, gradients summed
//! per value, `+=` into leaves' `.grad` (`backward`) or returned (`grad`).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::error::{AutogradError, Result};
use super::mode::set_grad_enabled;
use super::node::{topological_order, Node, NodeKind};
use super::rules::{input_gradients, RuleContext};
use super::var::Var;
use crate::tensor::{BinaryOp, Tensor};

/// Options of `backward`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BackwardOptions {
    /// Keep the saved tensors so that backward can run again through the same graph.
    pub retain_graph: bool,
    /// Record the backward itself so its results can be differentiated (implies `retain_graph`).
    pub create_graph: bool,
}

impl Var {
    /// Backward from a scalar: `d self / d leaf` accumulates (`+=`) into every reachable leaf.
    pub fn backward(&self) -> Result<()> {
        self.backward_with(None, BackwardOptions::default())
    }

    /// Backward with an explicit gradient of `self`'s shape (required when `self` is not a scalar).
    pub fn backward_with(&self, gradient: Option<&Tensor>, options: BackwardOptions) -> Result<()> {
        let seed = seed_gradient(self, gradient.map(|tensor| Var::constant(tensor.clone())))?;
        run(&[(self.clone(), seed)], None, options.retain_graph || options.create_graph, options.create_graph)
            .map(|_| ())
    }
}

/// Gradients of `outputs` (weighted by `grad_outputs`, default ones for scalars) with respect to
/// `inputs`, returned instead of accumulated. `None` where an input does not influence the outputs.
/// With `create_graph` the backward is recorded, so the results can be differentiated again.
pub fn grad(
    outputs: &[Var],
    inputs: &[Var],
    grad_outputs: Option<&[Var]>,
    create_graph: bool,
) -> Result<Vec<Option<Var>>> {
    grad_with_options(outputs, inputs, grad_outputs, BackwardOptions { retain_graph: create_graph, create_graph })
}

/// `grad` with explicit options (`retain_graph` lets the same graph be differentiated repeatedly).
pub fn grad_with_options(
    outputs: &[Var],
    inputs: &[Var],
    grad_outputs: Option<&[Var]>,
    options: BackwardOptions,
) -> Result<Vec<Option<Var>>> {
    if let Some(given) = grad_outputs {
        if given.len() != outputs.len() {
            return Err(AutogradError::BadArgument {
                op: "grad".into(),
                detail: crate::messages::AutogradDetail::GradOutputsCount {
                    given: given.len(),
                    outputs: outputs.len(),
                },
            });
        }
    }
    let mut roots = Vec::with_capacity(outputs.len());
    for (index, output) in outputs.iter().enumerate() {
        roots.push((output.clone(), seed_gradient(output, grad_outputs.map(|given| given[index].clone()))?));
    }
    let targets: Vec<(u64, usize)> =
        inputs.iter().filter_map(|input| input.node_id().map(|id| (id, input.output_index()))).collect();
    let found = run(&roots, Some(&targets), options.retain_graph || options.create_graph, options.create_graph)?;
    Ok(inputs
        .iter()
        .map(|input| input.node_id().and_then(|id| found.get(&(id, input.output_index())).cloned()))
        .collect())
}

fn seed_gradient(output: &Var, gradient: Option<Var>) -> Result<Var> {
    if !output.requires_grad() {
        return Err(AutogradError::DoesNotRequireGrad { what: format!("the output (shape {:?})", output.shape()) });
    }
    match gradient {
        None if output.tensor().numel() == 1 => Ok(Var::constant(Tensor::ones(output.shape(), output.dtype())?)),
        None => Err(AutogradError::NonScalarOutput { shape: output.shape().to_vec() }),
        Some(gradient) if gradient.shape() != output.shape() => Err(AutogradError::GradientShapeMismatch {
            op: "backward".into(),
            expected: output.shape().to_vec(),
            got: gradient.shape().to_vec(),
        }),
        Some(gradient) => Ok(gradient),
    }
}

/// Runs the backward. `targets` = `None`: accumulate into leaves; `Some`: collect the gradients of
/// those (node, output) values and touch no `.grad`.
fn run(
    roots: &[(Var, Var)],
    targets: Option<&[(u64, usize)]>,
    retain: bool,
    create: bool,
) -> Result<HashMap<(u64, usize), Var>> {
    let _mode = set_grad_enabled(create);
    let root_nodes: Vec<Rc<Node>> = roots.iter().filter_map(|(output, _)| output.node().cloned()).collect();
    let order = topological_order(&root_nodes);
    let useful = useful_nodes(&order, targets);
    let mut pending: HashMap<u64, Vec<Option<Var>>> = HashMap::new();
    for (output, gradient) in roots {
        let node = output.node().expect("seeded outputs require grad");
        accumulate(&mut pending, node, output.output_index(), gradient.clone())?;
    }
    let target_set: HashSet<(u64, usize)> = targets.map(|t| t.iter().copied().collect()).unwrap_or_default();
    let mut found = HashMap::new();
    for node in order.iter().rev() {
        let Some(gradients) = pending.remove(&node.id) else { continue };
        for (index, gradient) in gradients.iter().enumerate() {
            if let Some(gradient) = gradient {
                if target_set.contains(&(node.id, index)) {
                    found.insert((node.id, index), gradient.clone());
                }
            }
        }
        match &node.kind {
            NodeKind::Leaf { grad, .. } => {
                if targets.is_none() {
                    if let Some(Some(gradient)) = gradients.into_iter().next() {
                        // The leaf keeps a buffer of its own: a fresh gradient no one else holds
                        // is kept as it is, one shared with another handle is copied (once).
                        let total = match grad.borrow().as_ref() {
                            Some(previous) => previous.binary(BinaryOp::Add, gradient.tensor())?,
                            None if gradient.tensor().is_sole_handle() => gradient.tensor().clone(),
                            None => gradient.tensor().deep_copy(),
                        };
                        grad.replace(Some(total.cast_if_needed(node.outputs[0].dtype)?));
                    }
                }
            }
            NodeKind::Operation(operation) => {
                let needs: Vec<bool> = operation
                    .inputs
                    .iter()
                    .map(|edge| edge.node.as_ref().is_some_and(|n| useful.contains(&n.id)))
                    .collect();
                if !needs.iter().any(|&need| need) {
                    continue;
                }
                let grads = gradients
                    .into_iter()
                    .zip(&node.outputs)
                    .map(|(gradient, meta)| match gradient {
                        Some(gradient) => Ok(gradient),
                        None => Ok(Var::constant(Tensor::zeros(&meta.shape, meta.dtype)?)),
                    })
                    .collect::<Result<Vec<Var>>>()?;
                let input_grads = {
                    let saved = operation.saved.borrow();
                    let saved =
                        saved.as_ref().ok_or_else(|| AutogradError::SavedTensorsFreed { op: operation.op.name() })?;
                    saved.check_versions(&operation.op)?;
                    input_gradients(&RuleContext { node, operation, saved, grads: &grads, needs: &needs })?
                };
                operation.backward_ran.set(true);
                if !retain {
                    operation.saved.replace(None);
                }
                if input_grads.len() != operation.inputs.len() {
                    return Err(AutogradError::CustomOp {
                        name: operation.op.name(),
                        detail: crate::messages::AutogradDetail::GradientsCount {
                            given: input_grads.len(),
                            inputs: operation.inputs.len(),
                        },
                    });
                }
                for ((edge, gradient), need) in operation.inputs.iter().zip(input_grads).zip(needs) {
                    let (Some(input), Some(gradient), true) = (&edge.node, gradient, need) else { continue };
                    if gradient.shape() != edge.meta.shape.as_slice() {
                        return Err(AutogradError::GradientShapeMismatch {
                            op: format!("gradient of {}", operation.op.name()),
                            expected: edge.meta.shape.clone(),
                            got: gradient.shape().to_vec(),
                        });
                    }
                    let gradient =
                        if gradient.dtype() != edge.meta.dtype { gradient.cast(edge.meta.dtype)? } else { gradient };
                    accumulate(&mut pending, input, edge.output, gradient)?;
                }
            }
        }
    }
    Ok(found)
}

/// Nodes from which a target is reachable (all nodes when accumulating into leaves).
fn useful_nodes(order: &[Rc<Node>], targets: Option<&[(u64, usize)]>) -> HashSet<u64> {
    let Some(targets) = targets else { return order.iter().map(|node| node.id).collect() };
    let target_nodes: HashSet<u64> = targets.iter().map(|&(id, _)| id).collect();
    let mut useful = HashSet::new();
    for node in order {
        let reaches = target_nodes.contains(&node.id)
            || node.inputs().iter().any(|edge| edge.node.as_ref().is_some_and(|n| useful.contains(&n.id)));
        if reaches {
            useful.insert(node.id);
        }
    }
    useful
}

fn accumulate(
    pending: &mut HashMap<u64, Vec<Option<Var>>>,
    node: &Rc<Node>,
    output: usize,
    gradient: Var,
) -> Result<()> {
    let slots = pending.entry(node.id).or_insert_with(|| vec![None; node.outputs.len()]);
    slots[output] = Some(match slots[output].take() {
        Some(previous) => previous.add(&gradient)?,
        None => gradient,
    });
    Ok(())
}
