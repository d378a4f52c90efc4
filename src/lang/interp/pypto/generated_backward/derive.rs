//! The adjoint derivation: from a forward kernel's typed capture, the backward capture — ops, not
//! values. The forward ops are walked in reverse; each op whose result has a gradient adds its
//! inputs' gradients through the shared rule table (`autograd::algebra`), accumulated with adds.
//! The derivation sees only the capture: which forward values the backward reads is the caller's
//! save-or-recompute decision.

use std::collections::{HashMap, HashSet};

use super::super::capture::{identity, Arg, Captured, CapturedOp, Identity, TensorRef};
use super::algebra::{CaptureAlgebra, NotDerivable};
use crate::autograd::algebra::{
    binary_gradients, matmul_gradients, softmax_gradient, sum_gradient, unary_gradient, GradientAlgebra, RuleOperands,
};
use crate::autograd::algebra_masks::{
    clip_gradient, extreme_gradient, extremum_gradients, pow_gradients, variance_gradient,
};
use crate::messages::DerivationReason;
use crate::tensor::{BinaryOp, ReduceOp};

/// A forward kernel as the derivation sees it.
pub(crate) struct Forward<'a> {
    /// The ops it executed.
    pub ops: &'a [Captured],
    /// Its tensor arguments, in order.
    pub inputs: &'a [TensorRef],
    /// The tensors it returned.
    pub outputs: &'a [TensorRef],
}

/// The backward capture of a forward kernel.
pub(crate) struct Adjoint {
    /// The adjoint ops, in order (they read forward values, the forward's arguments and the
    /// gradients of its outputs).
    pub ops: Vec<Captured>,
    /// Per forward input: its gradient, or `None` (not needed, or zero almost everywhere).
    pub gradients: Vec<Option<Arg>>,
}

/// What a rule reads: the op's operands and its result.
struct Operands {
    inputs: Vec<Arg>,
    output: Option<TensorRef>,
}

impl RuleOperands<Arg, NotDerivable> for Operands {
    fn input(&self, index: usize) -> Result<Arg, NotDerivable> {
        self.inputs.get(index).cloned().ok_or(NotDerivable { what: DerivationReason::MissingOperand, line: None })
    }

    fn output(&self) -> Result<Arg, NotDerivable> {
        self.output.clone().map(Arg::Tensor).ok_or(NotDerivable { what: DerivationReason::NoResult, line: None })
    }
}

fn is_tensor(arg: &Arg) -> Option<&TensorRef> {
    match arg {
        Arg::Tensor(tensor) => Some(tensor),
        Arg::Number(_) => None,
    }
}

/// Non-negative reduction axes of a rank-`rank` value (`None`: every dim).
fn axes_of(dims: &Option<Vec<i64>>, rank: usize) -> Vec<usize> {
    match dims {
        Some(dims) => {
            dims.iter().map(|&dim| if dim < 0 { (dim + rank as i64) as usize } else { dim as usize }).collect()
        }
        None => (0..rank).collect(),
    }
}

/// Derives the backward of `forward` for the inputs in `needs`, given the gradients of its outputs
/// (`grad_outputs[i]` for `forward.outputs[i]`, in its tile form: a reduction's dims kept).
pub(crate) fn derive(
    forward: &Forward<'_>,
    needs: &[bool],
    grad_outputs: &[TensorRef],
) -> Result<Adjoint, NotDerivable> {
    let mut seen = HashSet::new();
    for input in forward.inputs {
        if !seen.insert(identity(input)) {
            return Err(NotDerivable { what: DerivationReason::SameTensor, line: None });
        }
    }
    // The values that depend on an input that needs a gradient: only they carry one.
    let mut active: HashSet<Identity> =
        forward.inputs.iter().zip(needs).filter(|(_, &need)| need).map(|(input, _)| identity(input)).collect();
    for op in forward.ops {
        if let Some(result) = &op.result {
            if op.op.tensors().iter().any(|tensor| active.contains(&identity(*tensor))) {
                active.insert(identity(result));
            }
        }
    }
    let mut algebra = CaptureAlgebra::new();
    let mut adjoints: HashMap<Identity, Arg> = HashMap::new();
    let accumulate = |algebra: &mut CaptureAlgebra,
                      adjoints: &mut HashMap<Identity, Arg>,
                      target: &TensorRef,
                      gradient: Arg|
     -> Result<(), NotDerivable> {
        let key = identity(target);
        if !active.contains(&key) {
            return Ok(());
        }
        let total = match adjoints.remove(&key) {
            Some(previous) => algebra.binary(crate::tensor::BinaryOp::Add, &previous, &gradient)?,
            None => gradient,
        };
        adjoints.insert(key, total);
        Ok(())
    };
    for (output, gradient) in forward.outputs.iter().zip(grad_outputs) {
        accumulate(&mut algebra, &mut adjoints, output, Arg::Tensor(gradient.clone()))?;
    }
    for op in forward.ops.iter().rev() {
        let Some(result) = &op.result else { continue };
        let Some(g) = adjoints.get(&identity(result)).cloned() else { continue };
        algebra.line = op.line;
        for (target, gradient) in op_adjoint(&mut algebra, &op.op, result, &g, &active)? {
            accumulate(&mut algebra, &mut adjoints, &target, gradient)?;
        }
    }
    let mut gradients = Vec::new();
    for (input, &need) in forward.inputs.iter().zip(needs) {
        let gradient = match adjoints.get(&identity(input)).filter(|_| need) {
            Some(gradient) => {
                algebra.line = None;
                let finished = algebra.finish(gradient, input)?;
                Some(algebra.cast(&finished, input.dtype())?)
            }
            None => None,
        };
        gradients.push(gradient);
    }
    Ok(Adjoint { ops: algebra.ops, gradients })
}

/// The gradients one forward op sends to its tensor operands, given `g`, its result's gradient.
fn op_adjoint(
    algebra: &mut CaptureAlgebra,
    op: &CapturedOp,
    result: &TensorRef,
    g: &Arg,
    active: &HashSet<Identity>,
) -> Result<Vec<(TensorRef, Arg)>, NotDerivable> {
    // Only operands that carry a gradient get one: no op is built for the others (a bias's
    // row sum would otherwise make every tile span all rows).
    let needed = |arg: &Arg| is_tensor(arg).is_some_and(|tensor| active.contains(&identity(tensor)));
    let line = algebra.line;
    let unsupported = |op: String| Err(NotDerivable { what: DerivationReason::NoAdjoint { op }, line });
    let output = Some(result.clone());
    Ok(match op {
        CapturedOp::Unary { op, x } => {
            let operands = Operands { inputs: vec![Arg::Tensor(x.clone())], output };
            unary_gradient(algebra, *op, &operands, g)?.map(|gradient| (x.clone(), gradient)).into_iter().collect()
        }
        CapturedOp::Binary { op: binary, lhs, rhs } => {
            let operands = Operands { inputs: vec![lhs.clone(), rhs.clone()], output };
            let shape = |arg: &Arg| is_tensor(arg).map_or(Vec::new(), |tensor| tensor.shape().to_vec());
            let (left_shape, right_shape) = (shape(lhs), shape(rhs));
            let needs = [needed(lhs), needed(rhs)];
            if let BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::Pow = binary {
                let shapes = [&left_shape[..], &right_shape[..]];
                let [left, right] = match binary {
                    BinaryOp::Pow => pow_gradients(algebra, &operands, g, needs, shapes)?,
                    _ => extremum_gradients(algebra, *binary == BinaryOp::Maximum, &operands, g, needs, shapes)?,
                };
                return Ok([(lhs, left), (rhs, right)]
                    .into_iter()
                    .filter_map(|(arg, gradient)| Some((is_tensor(arg)?.clone(), gradient?)))
                    .collect());
            }
            let Some([left, right]) =
                binary_gradients(algebra, *binary, &operands, g, needs, [&left_shape, &right_shape])?
            else {
                return unsupported(binary.name().to_string());
            };
            [(lhs, left), (rhs, right)]
                .into_iter()
                .filter_map(|(arg, gradient)| Some((is_tensor(arg)?.clone(), gradient?)))
                .collect()
        }
        CapturedOp::Cast { x } => vec![(x.clone(), algebra.cast(g, x.dtype())?)],
        CapturedOp::Reduce { op: reduce, x, dims } => {
            let axes = axes_of(dims, x.shape().len());
            let keepdim = result.shape().len() == x.shape().len();
            let (value, shape) = (Arg::Tensor(x.clone()), x.shape());
            let valid = x.valid_shape().unwrap_or(shape).to_vec();
            let gradient = match reduce {
                ReduceOp::Sum | ReduceOp::Mean => {
                    sum_gradient(algebra, (*reduce == ReduceOp::Mean).then_some(&valid), g, shape, &axes, keepdim)?
                }
                ReduceOp::Var => variance_gradient(algebra, &value, g, [shape, &valid], &axes, keepdim)?,
                ReduceOp::Amax | ReduceOp::Amin => {
                    let extreme = Arg::Tensor(result.clone());
                    extreme_gradient(algebra, &value, &extreme, g, shape, &axes, keepdim)?
                }
            };
            vec![(x.clone(), gradient)]
        }
        CapturedOp::Clip { x, low, high } => {
            let (low, high) = (low.map(Arg::Number), high.map(Arg::Number));
            vec![(x.clone(), clip_gradient(algebra, &Arg::Tensor(x.clone()), low.as_ref(), high.as_ref(), g)?)]
        }
        CapturedOp::ClipBounds { x, low, high } => {
            clip_bounds_adjoint(algebra, x, low.as_ref(), high.as_ref(), g, active)?
        }
        CapturedOp::Matmul { a, b, a_transposed, b_transposed } => {
            let operands = Operands { inputs: vec![Arg::Tensor(a.clone()), Arg::Tensor(b.clone())], output };
            let shapes = [a.shape(), b.shape()];
            let needs = [needed(&Arg::Tensor(a.clone())), needed(&Arg::Tensor(b.clone()))];
            let [left, right] = matmul_gradients(algebra, [*a_transposed, *b_transposed], &operands, g, needs, shapes)?;
            [(a, left), (b, right)]
                .into_iter()
                .filter_map(|(tensor, gradient)| Some((tensor.clone(), gradient?)))
                .collect()
        }
        CapturedOp::Softmax { x, dim, log } => {
            let rank = x.shape().len() as i64;
            let axis = if *dim < 0 { dim + rank } else { *dim } as usize;
            vec![(x.clone(), softmax_gradient(algebra, *log, &Arg::Tensor(result.clone()), g, axis)?)]
        }
        CapturedOp::Vector { .. }
        | CapturedOp::UnitStart
        | CapturedOp::View { .. }
        | CapturedOp::Index { .. }
        | CapturedOp::Assemble { .. }
        | CapturedOp::SetItem { .. }
        | CapturedOp::InPlace { .. }
        | CapturedOp::Reshape { .. }
        | CapturedOp::Transpose { .. }
        | CapturedOp::Fill { .. }
        | CapturedOp::Constant { .. }
        | CapturedOp::GatherRows { .. }
        | CapturedOp::Unsupported { .. } => return unsupported(op.name()),
    })
}

/// `clip(x, low, high)` with a tensor bound, as autograd records it: `minimum(maximum(x, low),
/// high)` (a tie splits ½/½); the middle value is redone in the backward's tile.
fn clip_bounds_adjoint(
    algebra: &mut CaptureAlgebra,
    x: &TensorRef,
    low: Option<&Arg>,
    high: Option<&Arg>,
    g: &Arg,
    active: &HashSet<Identity>,
) -> Result<Vec<(TensorRef, Arg)>, NotDerivable> {
    let needed = |arg: &Arg| is_tensor(arg).is_some_and(|tensor| active.contains(&identity(tensor)));
    let shape = |arg: &Arg| is_tensor(arg).map_or(Vec::new(), |tensor| tensor.shape().to_vec());
    let value = Arg::Tensor(x.clone());
    let middle = match low {
        Some(low) => algebra.binary(BinaryOp::Maximum, &value, low)?,
        None => value.clone(),
    };
    let mut gradients = Vec::new();
    let mut through = g.clone();
    if let Some(high) = high {
        let operands = Operands { inputs: vec![middle.clone(), high.clone()], output: None };
        let (middle_shape, high_shape) = (shape(&middle), shape(high));
        let shapes = [&middle_shape[..], &high_shape[..]];
        let [to_middle, to_high] = extremum_gradients(algebra, false, &operands, g, [true, needed(high)], shapes)?;
        gradients.extend(is_tensor(high).cloned().zip(to_high));
        through = to_middle.ok_or(NotDerivable { what: DerivationReason::ClipLost, line: algebra.line })?;
    }
    match low {
        Some(low) => {
            let operands = Operands { inputs: vec![value.clone(), low.clone()], output: None };
            let low_shape = shape(low);
            let shapes = [x.shape(), &low_shape[..]];
            let needs = [needed(&value), needed(low)];
            let [to_x, to_low] = extremum_gradients(algebra, true, &operands, &through, needs, shapes)?;
            gradients.extend(to_x.map(|gradient| (x.clone(), gradient)));
            gradients.extend(is_tensor(low).cloned().zip(to_low));
        }
        None => gradients.push((x.clone(), through)),
    }
    Ok(gradients)
}
