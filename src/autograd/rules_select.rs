//! The gradient rules of `where`, `gather`, `scatter` and `cumsum` (called from the one match in
//! `rules.rs`), written with differentiable `Var` ops so that second order works.

use super::error::{AutogradError, Result};
use super::helpers::sum_to_shape;
use super::rules::RuleContext;
use super::var::Var;
use crate::tensor::{ScatterMode, SliceSpec, Tensor};

/// `where(c, a, b)`: the gradient goes to `a` where c holds and to `b` elsewhere.
pub(crate) fn where_gradients(context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let g = &context.grads[0];
    let condition = context.input(0)?;
    let zeros = Var::constant(Tensor::zeros(g.shape(), g.dtype())?);
    let input = if context.needs[1] {
        Some(sum_to_shape(&Var::select(condition, g, &zeros)?, context.input_shape(1))?)
    } else {
        None
    };
    let other = if context.needs[2] {
        Some(sum_to_shape(&Var::select(condition, &zeros, g)?, context.input_shape(2))?)
    } else {
        None
    };
    Ok(vec![None, input, other])
}

/// `gather(x, axis, index)`: each gathered element's gradient is added back where it was read.
pub(crate) fn gather_gradients(axis: usize, context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let g = &context.grads[0];
    let index = context.input(1)?;
    let zeros = Var::constant(Tensor::zeros(context.input_shape(0), g.dtype())?);
    Ok(vec![Some(zeros.scatter(axis as isize, index, g, ScatterMode::Add)?), None])
}

/// `scatter(x, axis, index, src)`: replaced elements of x get no gradient (added ones keep it);
/// src gets the gradient of the elements it was written to.
pub(crate) fn scatter_gradients(axis: usize, mode: ScatterMode, context: &RuleContext<'_>) -> Result<Vec<Option<Var>>> {
    let g = &context.grads[0];
    let index = context.input(1)?;
    if mode == ScatterMode::Multiply {
        return Err(AutogradError::GradientNotImplemented { name: "scatter with reduce=\"multiply\"".into() });
    }
    let input = match (context.needs[0], mode) {
        (false, _) => None,
        (true, ScatterMode::Replace) => {
            Some(g.scatter(axis as isize, index, &g.scalar_like(0.0), ScatterMode::Replace)?)
        }
        (true, _) => Some(g.clone()),
    };
    let source = if context.needs[2] {
        let picked = g.gather(axis as isize, index)?;
        let shape = context.input_shape(2);
        Some(if shape.is_empty() {
            sum_to_shape(&picked, shape)?
        } else if picked.shape() == shape {
            picked
        } else {
            // src may be larger than index: its elements outside index's extent were not written.
            Var::constant(Tensor::zeros(shape, g.dtype())?).assemble(&picked, &vec![0; shape.len()])?
        })
    } else {
        None
    };
    Ok(vec![input, None, source])
}

/// `cumsum(x, axis)`: the gradient of x_i is the sum of the output gradients from i on, a
/// cumulative sum of the reversed gradient, reversed back.
pub(crate) fn cumsum_gradient(axis: usize, context: &RuleContext<'_>) -> Result<Var> {
    let g = &context.grads[0];
    let reverse: Vec<SliceSpec> = g
        .shape()
        .iter()
        .enumerate()
        .map(|(dim, &size)| {
            if dim == axis && size > 1 {
                SliceSpec { start: size - 1, step: -1, count: size }
            } else {
                SliceSpec::full(size)
            }
        })
        .collect();
    g.slice(&reverse)?.cumsum(axis as isize)?.slice(&reverse)
}
