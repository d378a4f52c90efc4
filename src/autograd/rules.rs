//! The gradient rules: ONE exhaustive match over `Op` (no wildcard arm). Every rule is written with
//! differentiable `Var` ops, so with `create_graph` the backward is itself recorded (second order).
//!
//! Conventions at kinks (as PyTorch): relu'(0) = 0; abs'(0) = 0; ceil, floor, trunc, round and sign
//! have zero gradient; clip passes the gradient where
//! `low ≤ x ≤ high` (bounds included); `maximum`/`minimum` split a tie ½/½; `amax`/`amin` split the
//! gradient evenly among all elements equal to the extreme (k ties get 1/k each).

use std::rc::Rc;

use super::error::Result;
use super::helpers::{broadcast_to, constant_map, exact_difference, keepdim_shape, sign, sum_to_shape, winner_share};
use super::node::{Node, Operation, Saved};
use super::op::Op;
use super::var::Var;
use crate::tensor::{BinaryOp, ReduceOp, SliceSpec, SoftmaxOp, Tensor, UnaryOp};

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
            let (low, high) = (*low, *high);
            let pass = constant_map(x.tensor(), g.dtype(), |v| {
                f64::from(u8::from(low.is_none_or(|l| v >= l) && high.is_none_or(|h| v <= h)))
            })?;
            one(g.mul(&pass)?)
        }
        Op::Reduce { op, axes, keepdim } => one(reduce_rule(*op, axes, *keepdim, context)?),
        Op::Softmax { op, axis } => {
            let y = context.output(0)?;
            let dims = [*axis as isize];
            let gradient = match op {
                // dx = y ⊙ (g − Σ_axis g ⊙ y)
                SoftmaxOp::Softmax => y.mul(&g.sub(&g.mul(&y)?.reduce(ReduceOp::Sum, Some(&dims), true)?)?)?,
                // dx = g − softmax(x) ⊙ Σ_axis g, with softmax(x) = exp(y)
                SoftmaxOp::LogSoftmax => {
                    g.sub(&y.unary(UnaryOp::Exp)?.mul(&g.reduce(ReduceOp::Sum, Some(&dims), true)?)?)?
                }
            };
            one(gradient)
        }
        Op::Matmul { a_trans, b_trans, .. } => {
            let (a, b) = (context.input(0)?, context.input(1)?);
            let (a_trans, b_trans) = (*a_trans, *b_trans);
            // C = op(A)·op(B): d op(A) = G·op(B)ᵀ, d op(B) = op(A)ᵀ·G, then undo the transposes.
            let grad_a = if !needs[0] {
                None
            } else if a_trans {
                Some(b.matmul(g, b_trans, true, None)?)
            } else {
                Some(g.matmul(b, false, !b_trans, None)?)
            };
            let grad_b = if !needs[1] {
                None
            } else if b_trans {
                Some(g.matmul(a, true, a_trans, None)?)
            } else {
                Some(a.matmul(g, !a_trans, false, None)?)
            };
            let grad_a = grad_a.map(|grad| sum_to_shape(&grad, context.input_shape(0))).transpose()?;
            let grad_b = grad_b.map(|grad| sum_to_shape(&grad, context.input_shape(1))).transpose()?;
            Ok(vec![grad_a, grad_b])
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
            one(g.mul(&standard_normal_density(x)?)?)
        }
        Op::Custom { name } => super::custom::custom_gradients(name, context),
        Op::Checkpoint { .. } => super::checkpoint::checkpoint_gradients(context),
    }
}

fn standard_normal_density(x: &Var) -> Result<Var> {
    let exponent = x.mul(x)?.scale(-0.5)?;
    exponent.unary(UnaryOp::Exp)?.scale(1.0 / (2.0 * std::f64::consts::PI).sqrt())
}

fn unary_rule(op: UnaryOp, context: &RuleContext<'_>) -> Result<Var> {
    let g = &context.grads[0];
    let one = context.scalar(1.0);
    match op {
        UnaryOp::Neg => g.neg(),
        UnaryOp::Abs => g.mul(&constant_map(context.input(0)?.tensor(), g.dtype(), sign)?),
        UnaryOp::Exp => g.mul(&context.output(0)?),
        UnaryOp::Log => g.div(context.input(0)?),
        // √x' = 1/(2√x)
        UnaryOp::Sqrt => g.div(&context.output(0)?)?.scale(0.5),
        // (x^-½)' = −½ x^-3/2 = −½ y³
        UnaryOp::Rsqrt => {
            let y = context.output(0)?;
            g.mul(&y.mul(&y)?.mul(&y)?)?.scale(-0.5)
        }
        // (1/x)' = −1/x² = −y²
        UnaryOp::Reciprocal => {
            let y = context.output(0)?;
            g.mul(&y.mul(&y)?)?.neg()
        }
        UnaryOp::Sin => g.mul(&context.input(0)?.unary(UnaryOp::Cos)?),
        UnaryOp::Cos => g.mul(&context.input(0)?.unary(UnaryOp::Sin)?)?.neg(),
        // tanh' = 1 − y²
        UnaryOp::Tanh => {
            let y = context.output(0)?;
            g.mul(&one.sub(&y.mul(&y)?)?)
        }
        // σ' = y(1 − y)
        UnaryOp::Sigmoid => {
            let y = context.output(0)?;
            g.mul(&y.mul(&one.sub(&y)?)?)
        }
        UnaryOp::Relu => {
            g.mul(&constant_map(context.input(0)?.tensor(), g.dtype(), |x| if x > 0.0 { 1.0 } else { 0.0 })?)
        }
        // (xσ(x))' = σ(1 + x(1 − σ))
        UnaryOp::Silu => {
            let x = context.input(0)?;
            let s = x.unary(UnaryOp::Sigmoid)?;
            g.mul(&s.mul(&one.add(&x.mul(&one.sub(&s)?)?)?)?)
        }
        // (xΦ(x))' = Φ(x) + xφ(x)
        UnaryOp::GeluErf => {
            let x = context.input(0)?;
            g.mul(&x.normal_cdf()?.add(&x.mul(&standard_normal_density(x)?)?)?)
        }
        // u = c(x + kx³), y = ½x(1 + tanh u): y' = ½(1 + t) + ½x(1 − t²)·c(1 + 3kx²)
        UnaryOp::GeluTanh => {
            let x = context.input(0)?;
            let (c, k) = ((2.0 / std::f64::consts::PI).sqrt(), 0.044715);
            let x2 = x.mul(x)?;
            let u = x.add(&x2.mul(x)?.scale(k)?)?.scale(c)?;
            let t = u.unary(UnaryOp::Tanh)?;
            let du = x2.scale(3.0 * k)?.add(&one)?.scale(c)?;
            let left = one.add(&t)?.scale(0.5)?;
            let right = x.mul(&one.sub(&t.mul(&t)?)?)?.mul(&du)?.scale(0.5)?;
            g.mul(&left.add(&right)?)
        }
        // (2^x)' = ln2 · 2^x
        UnaryOp::Exp2 => g.mul(&context.output(0)?)?.scale(std::f64::consts::LN_2),
        // erf' = 2/√π · e^{−x²}; erfc' = −erf'
        UnaryOp::Erf | UnaryOp::Erfc => {
            let x = context.input(0)?;
            let sign = if op == UnaryOp::Erf { 1.0 } else { -1.0 };
            g.mul(&x.mul(x)?.neg()?.unary(UnaryOp::Exp)?)?.scale(sign * std::f64::consts::FRAC_2_SQRT_PI)
        }
        // Piecewise constant: zero gradient almost everywhere (as torch).
        UnaryOp::Ceil | UnaryOp::Floor | UnaryOp::Trunc | UnaryOp::Round | UnaryOp::Sign => {
            Ok(Var::constant(Tensor::zeros(g.shape(), g.dtype())?))
        }
    }
}

fn binary_rule(op: BinaryOp, context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let g = &context.grads[0];
    let needs = context.needs;
    let (a_shape, b_shape) = (context.input_shape(0), context.input_shape(1));
    let reduce =
        |gradient: Option<Var>, shape: &[usize]| gradient.map(|gradient| sum_to_shape(&gradient, shape)).transpose();
    let (grad_a, grad_b) = match op {
        BinaryOp::Add => (needs[0].then(|| g.clone()), needs[1].then(|| g.clone())),
        BinaryOp::Sub => (needs[0].then(|| g.clone()), if needs[1] { Some(g.neg()?) } else { None }),
        BinaryOp::Mul => {
            let (a, b) = (context.input(0)?, context.input(1)?);
            (if needs[0] { Some(g.mul(b)?) } else { None }, if needs[1] { Some(g.mul(a)?) } else { None })
        }
        BinaryOp::Div => {
            // d(a/b) = da/b − a·db/b²
            let (a, b) = (context.input(0)?, context.input(1)?);
            let grad_a = if needs[0] { Some(g.div(b)?) } else { None };
            let grad_b = if needs[1] { Some(g.mul(a)?.div(&b.mul(b)?)?.neg()?) } else { None };
            (grad_a, grad_b)
        }
        BinaryOp::Pow => {
            // d(aᵇ) = b·a^(b−1)·da + aᵇ·ln a·db. PyTorch's conventions: the da term is 0 where b = 0
            // (exponent made 0 there so 0·a⁰ stays finite at a = 0), the db term is 0 where a = 0.
            let (a, b) = (context.input(0)?, context.input(1)?);
            let grad_a = if needs[0] {
                let fix = constant_map(b.tensor(), b.dtype(), |e| if e == 0.0 { 1.0 } else { 0.0 })?;
                let exponent = b.sub(&b.scalar_like(1.0))?.add(&fix)?;
                Some(g.mul(b)?.mul(&a.binary(BinaryOp::Pow, &exponent)?)?)
            } else {
                None
            };
            let grad_b = if needs[1] {
                let y = context.output(0)?;
                let bump = constant_map(a.tensor(), a.dtype(), |base| if base == 0.0 { 1.0 } else { 0.0 })?;
                Some(g.mul(&y)?.mul(&a.add(&bump)?.unary(UnaryOp::Log)?)?)
            } else {
                None
            };
            (grad_a, grad_b)
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            let (a, b) = (context.input(0)?, context.input(1)?);
            let difference = exact_difference(a.tensor(), b.tensor())?;
            let orient = if op == BinaryOp::Maximum { 1.0 } else { -1.0 };
            let share_a = constant_map(&difference, g.dtype(), |d| winner_share(orient * d))?;
            let share_b = constant_map(&difference, g.dtype(), |d| winner_share(-orient * d))?;
            (if needs[0] { Some(g.mul(&share_a)?) } else { None }, if needs[1] { Some(g.mul(&share_b)?) } else { None })
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
    let kept = keepdim_shape(&shape, axes);
    let expanded = broadcast_to(&if keepdim { g.clone() } else { g.reshape(&kept)? }, &shape)?;
    let count: usize = axes.iter().map(|&axis| shape[axis]).product();
    match op {
        ReduceOp::Sum => Ok(expanded),
        ReduceOp::Mean => expanded.scale(1.0 / count as f64),
        // d var = 2(x − μ)/n
        ReduceOp::Var => {
            let x = context.input(0)?;
            let dims: Vec<isize> = axes.iter().map(|&axis| axis as isize).collect();
            let centred = x.sub(&x.reduce(ReduceOp::Mean, Some(&dims), true)?)?;
            expanded.mul(&centred)?.scale(2.0 / count as f64)
        }
        ReduceOp::Amax | ReduceOp::Amin => {
            // Ties split evenly: weight 1/k on each of the k elements equal to the extreme.
            let x = context.input(0)?;
            let extreme = context.output(0)?.tensor().reshape(&kept)?;
            let difference = exact_difference(x.tensor(), &extreme)?;
            let hits = constant_map(&difference, crate::tensor::DType::F64, |d| if d == 0.0 { 1.0 } else { 0.0 })?;
            let dims: Vec<isize> = axes.iter().map(|&axis| axis as isize).collect();
            let ties = hits.tensor().reduce(ReduceOp::Sum, Some(&dims), true)?;
            let weights = hits.tensor().binary(BinaryOp::Div, &ties)?.cast(g.dtype())?;
            expanded.mul(&Var::constant(weights))
        }
    }
}
