//! The gradient rules: ONE exhaustive match over `Op` (no wildcard arm). Every rule is written with
//! differentiable `Var` ops, so with `create_graph` the backward is itself recorded (second order).
//!
//! Conventions at kinks (as PyTorch): relu'(0) = 0; abs'(0) = 0; ceil, floor, trunc, round and sign
//! have zero gradient; clip passes the gradient where
//! `low ≤ x ≤ high` (bounds included); `maximum`/`minimum` split a tie ½/½; `amax`/`amin` split the
//! gradient evenly among all elements equal to the extreme (k ties get 1/k each).

use std::rc::Rc;

use super::algebra::{
    binary_gradients, matmul_gradients, softmax_gradient, standard_normal_density, sum_gradient, unary_gradient,
    GradientAlgebra, RuleOperands,
};
use super::algebra_masks::{clip_gradient, extreme_gradient, extremum_gradients, pow_gradients, variance_gradient};
use super::error::{AutogradError, Result};
use super::helpers::{broadcast_to, exact_difference, keepdim_shape, sum_to_shape};
use super::node::{Node, Operation, Saved};
use super::op::Op;
use super::var::Var;
use crate::tensor::{BinaryOp, CompareOp, DType, ReduceOp, SliceSpec, SoftmaxOp, Tensor, UnaryOp};

/// What a rule sees: the node, its saved values, the gradients of its outputs, and which inputs
/// need a gradient.
pub(crate) struct RuleContext<'a> {
    pub node: &'a Rc<Node>,
    pub operation: &'a Operation,
    pub saved: &'a Saved,
    pub grads: &'a [Var],
    pub needs: &'a [bool],
}

impl RuleContext<'_> {
    pub(super) fn input(&self, index: usize) -> Result<&Var> {
        self.saved.value(&self.operation.op, index)
    }

    fn output(&self, index: usize) -> Result<Var> {
        self.saved.output(self.node, &self.operation.op, index)
    }

    pub(super) fn input_shape(&self, index: usize) -> &[usize] {
        &self.operation.inputs[index].meta.shape
    }

    fn scalar(&self, value: f64) -> Var {
        self.grads[0].scalar_like(value)
    }
}

/// The gradients of the inputs of one node (`None` where not needed or not defined).
pub(crate) fn input_gradients(context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let g = &context.grads[0];
    let needs = context.needs;
    let one = |gradient: Var| Ok(vec![Some(gradient)]);
    match &context.operation.op {
        Op::Unary(op) => one(unary_rule(*op, context)?),
        Op::Binary(op) => binary_rule(*op, context),
        Op::Clip { low, high } => {
            let x = context.input(0)?;
            let (low, high) = (low.map(|low| x.scalar_like(low)), high.map(|high| x.scalar_like(high)));
            one(clip_gradient(&mut VarAlgebra, x, low.as_ref(), high.as_ref(), g)?)
        }
        Op::Reduce { op, axes, keepdim } => one(reduce_rule(*op, axes, *keepdim, context)?),
        Op::Softmax { op, axis } => {
            let y = context.output(0)?;
            one(softmax_gradient(&mut VarAlgebra, *op == SoftmaxOp::LogSoftmax, &y, g, *axis)?)
        }
        Op::Matmul { a_trans, b_trans, .. } => {
            let shapes = [context.input_shape(0), context.input_shape(1)];
            let needs = [needs[0], needs[1]];
            Ok(matmul_gradients(&mut VarAlgebra, [*a_trans, *b_trans], context, g, needs, shapes)?.into())
        }
        Op::Reshape { .. } => one(g.reshape(context.input_shape(0))?),
        Op::Permute { order } => {
            let mut inverse = vec![0; order.len()];
            for (position, &axis) in order.iter().enumerate() {
                inverse[axis] = position;
            }
            one(g.permute(&inverse)?)
        }
        Op::Concat { axis } => {
            let mut start = 0;
            let mut gradients = Vec::with_capacity(context.operation.inputs.len());
            for (index, edge) in context.operation.inputs.iter().enumerate() {
                let width = edge.meta.shape[*axis];
                let specs: Vec<SliceSpec> =
                    g.shape()
                        .iter()
                        .enumerate()
                        .map(|(dim, &size)| {
                            if dim == *axis {
                                SliceSpec { start, step: 1, count: width }
                            } else {
                                SliceSpec::full(size)
                            }
                        })
                        .collect();
                start += width;
                gradients.push(if needs[index] { Some(g.slice(&specs)?) } else { None });
            }
            Ok(gradients)
        }
        Op::Slice { ranges } => {
            let specs: Vec<SliceSpec> = ranges.iter().map(|range| range.spec()).collect();
            let zeros = Var::constant(Tensor::zeros(context.input_shape(0), g.dtype())?);
            one(zeros.assign_slice(&specs, g)?)
        }
        Op::AssignSlice { ranges } => {
            let specs: Vec<SliceSpec> = ranges.iter().map(|range| range.spec()).collect();
            let target = if needs[0] { Some(g.assign_slice(&specs, &context.scalar(0.0))?) } else { None };
            let value = if needs[1] { Some(sum_to_shape(&g.slice(&specs)?, context.input_shape(1))?) } else { None };
            Ok(vec![target, value])
        }
        Op::View { offsets, valid_shape, .. } => {
            // Elements outside the valid region were constant zeros: only the valid region flows back.
            let zeros = Var::constant(Tensor::zeros(context.input_shape(0), g.dtype())?);
            one(zeros.assemble(&g.with_valid_marker(Some(valid_shape.clone())), offsets)?)
        }
        Op::Assemble { offsets } => {
            let tile = &context.operation.inputs[1].meta;
            let valid = tile.valid_shape.clone().unwrap_or_else(|| tile.shape.clone());
            let target = if needs[0] {
                let hole = Tensor::zeros(&tile.shape, g.dtype())?.with_valid_shape(Some(valid.clone()));
                Some(g.assemble(&Var::constant(hole), offsets)?)
            } else {
                None
            };
            let tile_gradient = if needs[1] { Some(g.view(&tile.shape, offsets, Some(&valid))?) } else { None };
            Ok(vec![target, tile_gradient])
        }
        Op::Cast { .. } => one(g.cast(context.operation.inputs[0].meta.dtype)?),
        Op::Where => super::rules_select::where_gradients(context),
        Op::Gather { axis } => super::rules_select::gather_gradients(*axis, context),
        Op::Scatter { axis, mode } => super::rules_select::scatter_gradients(*axis, *mode, context),
        Op::Cumsum { axis } => one(super::rules_select::cumsum_gradient(*axis, context)?),
        Op::NormalCdf => {
            // Φ'(x) = φ(x) = e^{−x²/2}/√(2π)
            let x = context.input(0)?;
            one(g.mul(&standard_normal_density(&mut VarAlgebra, x)?)?)
        }
        Op::Custom { name } => super::custom::custom_gradients(name, context),
        Op::Checkpoint { .. } => super::checkpoint::checkpoint_gradients(context),
    }
}

fn unary_rule(op: UnaryOp, context: &RuleContext<'_>) -> Result<Var> {
    let g = &context.grads[0];
    match unary_gradient(&mut VarAlgebra, op, context, g)? {
        Some(gradient) => Ok(gradient),
        // Piecewise constant: zero gradient almost everywhere (as torch).
        None => Ok(Var::constant(Tensor::zeros(g.shape(), g.dtype())?)),
    }
}

fn binary_rule(op: BinaryOp, context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let g = &context.grads[0];
    let needs = context.needs;
    let (a_shape, b_shape) = (context.input_shape(0), context.input_shape(1));
    let reduce =
        |gradient: Option<Var>, shape: &[usize]| gradient.map(|gradient| sum_to_shape(&gradient, shape)).transpose();
    let (grad_a, grad_b) = match op {
        // Written once in `algebra`, shared with the generated backward kernels.
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
            let shared = binary_gradients(&mut VarAlgebra, op, context, g, [needs[0], needs[1]], [a_shape, b_shape])?;
            let missing = || super::node::internal(&Op::Binary(op), "the shared rule gave no gradients");
            return Ok(shared.ok_or_else(missing)?.into());
        }
        BinaryOp::Pow => {
            let pair = [needs[0], needs[1]];
            return Ok(pow_gradients(&mut VarAlgebra, context, g, pair, [a_shape, b_shape])?.into());
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            let maximum = op == BinaryOp::Maximum;
            let pair = [needs[0], needs[1]];
            return Ok(extremum_gradients(&mut VarAlgebra, maximum, context, g, pair, [a_shape, b_shape])?.into());
        }
        // a // b is piecewise constant: zero almost everywhere (as torch's floor_divide).
        BinaryOp::FloorDivide => {
            let zero = || Tensor::zeros(g.shape(), g.dtype()).map(Var::constant);
            (if needs[0] { Some(zero()?) } else { None }, if needs[1] { Some(zero()?) } else { None })
        }
        // a % b = a − b·⌊a/b⌋: ∂/∂a = 1, ∂/∂b = −⌊a/b⌋ (away from the jumps at a/b ∈ ℤ).
        BinaryOp::Remainder => {
            let grad_b = if needs[1] {
                let (a, b) = (context.input(0)?, context.input(1)?);
                let quotient = a.tensor().binary(BinaryOp::FloorDivide, b.tensor())?.cast(g.dtype())?;
                Some(g.mul(&Var::constant(quotient))?.neg()?)
            } else {
                None
            };
            (needs[0].then(|| g.clone()), grad_b)
        }
    };
    Ok(vec![reduce(grad_a, a_shape)?, reduce(grad_b, b_shape)?])
}

fn reduce_rule(op: ReduceOp, axes: &[usize], keepdim: bool, context: &RuleContext<'_>) -> Result<Var> {
    let g = &context.grads[0];
    let shape = context.input_shape(0).to_vec();
    match op {
        ReduceOp::Sum | ReduceOp::Mean => {
            let valid = context.operation.inputs[0].meta.valid_shape.clone().unwrap_or_else(|| shape.clone());
            sum_gradient(&mut VarAlgebra, (op == ReduceOp::Mean).then_some(&valid), g, &shape, axes, keepdim)
        }
        ReduceOp::Var => {
            let x = context.input(0)?;
            let valid = context.operation.inputs[0].meta.valid_shape.clone().unwrap_or_else(|| shape.clone());
            variance_gradient(&mut VarAlgebra, x, g, [&shape, &valid], axes, keepdim)
        }
        ReduceOp::Amax | ReduceOp::Amin => {
            let (x, y) = (context.input(0)?, context.output(0)?);
            extreme_gradient(&mut VarAlgebra, x, &y, g, &shape, axes, keepdim)
        }
    }
}

/// The shared rules (`algebra`) over values: each op is a recorded `Var` op, so a backward built
/// with `create_graph` is itself differentiable.
pub(crate) struct VarAlgebra;

impl GradientAlgebra for VarAlgebra {
    type Value = Var;
    type Error = AutogradError;

    fn unary(&mut self, op: UnaryOp, x: &Var) -> Result<Var> {
        x.unary(op)
    }

    fn binary(&mut self, op: BinaryOp, a: &Var, b: &Var) -> Result<Var> {
        a.binary(op, b)
    }

    fn number(&mut self, value: f64, like: &Var) -> Var {
        like.scalar_like(value)
    }

    fn normal_cdf(&mut self, x: &Var) -> Result<Var> {
        x.normal_cdf()
    }

    fn matmul(&mut self, a: &Var, b: &Var, a_trans: bool, b_trans: bool) -> Result<Var> {
        a.matmul(b, a_trans, b_trans, None)
    }

    fn sum_to_shape(&mut self, gradient: &Var, shape: &[usize]) -> Result<Var> {
        sum_to_shape(gradient, shape)
    }

    fn expand_reduced(&mut self, gradient: &Var, shape: &[usize], axes: &[usize], keepdim: bool) -> Result<Var> {
        let kept = if keepdim { gradient.clone() } else { gradient.reshape(&keepdim_shape(shape, axes))? };
        broadcast_to(&kept, shape)
    }

    fn sum_keepdim(&mut self, x: &Var, axes: &[usize]) -> Result<Var> {
        let dims: Vec<isize> = axes.iter().map(|&axis| axis as isize).collect();
        x.reduce(ReduceOp::Sum, Some(&dims), true)
    }

    fn select_where(&mut self, op: CompareOp, a: &Var, b: &Var, g: &Var) -> Result<Var> {
        // Compared exactly (in f64), whatever the operands' dtypes.
        let mask = exact_difference(a.tensor(), b.tensor())?.compare(op, &Tensor::scalar(0.0, DType::F64))?;
        Var::select(&Var::constant(mask), g, &g.scalar_like(0.0))
    }
}

impl RuleOperands<Var, AutogradError> for RuleContext<'_> {
    fn input(&self, index: usize) -> Result<Var> {
        RuleContext::input(self, index).cloned()
    }

    fn output(&self) -> Result<Var> {
        RuleContext::output(self, 0)
    }
}
