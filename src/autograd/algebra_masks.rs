//! The shared derivative rules that select by a mask (`GradientAlgebra::select_where`): clip,
//! maximum/minimum, amax/amin, pow (its conventions at zero), and var (which needs the mean). Written once for autograd's values
//! and the generated backward kernels' ops, with PyTorch's conventions at the kinks: clip passes
//! the gradient where `low ≤ x ≤ high` (bounds included), `maximum`/`minimum` split a tie ½/½,
//! `amax`/`amin` split the gradient evenly among the k elements equal to the extreme.

use super::algebra::{mul, scale, Built, GradientAlgebra, PairGradients, RuleOperands};
use crate::tensor::{BinaryOp, CompareOp};

/// The gradient of `clip(x, low, high)` (either bound may be absent): `g` where `low ≤ x ≤ high`.
pub fn clip_gradient<A: GradientAlgebra>(
    algebra: &mut A,
    x: &A::Value,
    low: Option<&A::Value>,
    high: Option<&A::Value>,
    g: &A::Value,
) -> Built<A> {
    let mut gradient = g.clone();
    if let Some(low) = low {
        gradient = algebra.select_where(CompareOp::Ge, x, low, &gradient)?;
    }
    if let Some(high) = high {
        gradient = algebra.select_where(CompareOp::Le, x, high, &gradient)?;
    }
    Ok(gradient)
}

/// The gradients of `maximum(a, b)` (`maximum: true`) or `minimum(a, b)` for the inputs in
/// `needs`, summed back to their shapes: all of `g` to the winner, half to each at a tie.
pub fn extremum_gradients<A: GradientAlgebra, S: RuleOperands<A::Value, A::Error>>(
    algebra: &mut A,
    maximum: bool,
    operands: &S,
    g: &A::Value,
    needs: [bool; 2],
    shapes: [&[usize]; 2],
) -> Result<PairGradients<A::Value>, A::Error> {
    let (a, b) = (operands.input(0)?, operands.input(1)?);
    let (wins, loses) = if maximum { (CompareOp::Gt, CompareOp::Lt) } else { (CompareOp::Lt, CompareOp::Gt) };
    let half = scale(algebra, g, 0.5)?;
    let share = |algebra: &mut A, winning: CompareOp| -> Built<A> {
        let won = algebra.select_where(winning, &a, &b, g)?;
        let tied = algebra.select_where(CompareOp::Eq, &a, &b, &half)?;
        algebra.binary(BinaryOp::Add, &won, &tied)
    };
    let grad_a = if needs[0] { Some(share(algebra, wins)?) } else { None };
    let grad_b = if needs[1] { Some(share(algebra, loses)?) } else { None };
    let grad_a = grad_a.map(|gradient| algebra.sum_to_shape(&gradient, shapes[0])).transpose()?;
    let grad_b = grad_b.map(|gradient| algebra.sum_to_shape(&gradient, shapes[1])).transpose()?;
    Ok([grad_a, grad_b])
}

/// The gradient of `amax`/`amin` over `axes` of `x` (of `shape`), from its result `y`: `g` split
/// evenly among the elements equal to the extreme (k ties get g/k each).
pub fn extreme_gradient<A: GradientAlgebra>(
    algebra: &mut A,
    x: &A::Value,
    y: &A::Value,
    g: &A::Value,
    shape: &[usize],
    axes: &[usize],
    keepdim: bool,
) -> Built<A> {
    let extreme = algebra.expand_reduced(y, shape, axes, keepdim)?;
    let expanded = algebra.expand_reduced(g, shape, axes, keepdim)?;
    let picked = algebra.select_where(CompareOp::Eq, x, &extreme, &expanded)?;
    // The tie count: Σ [x = extreme] over the axes (≥ 1: the extreme is one of the elements).
    let zero = scale(algebra, &expanded, 0.0)?;
    let one = algebra.number(1.0, &zero);
    let ones = algebra.binary(BinaryOp::Add, &zero, &one)?;
    let hits = algebra.select_where(CompareOp::Eq, x, &extreme, &ones)?;
    let ties = algebra.sum_keepdim(&hits, axes)?;
    algebra.binary(BinaryOp::Div, &picked, &ties)
}

/// The gradient of the (population) variance over `axes` of `x` (of `shape`, valid extents `valid`:
/// a partial tile's n counts its valid region): 2(x − μ)/n · g.
pub fn variance_gradient<A: GradientAlgebra>(
    algebra: &mut A,
    x: &A::Value,
    g: &A::Value,
    [shape, valid]: [&[usize]; 2],
    axes: &[usize],
    keepdim: bool,
) -> Built<A> {
    let count: usize = axes.iter().map(|&axis| valid[axis]).product();
    let expanded = algebra.expand_reduced(g, shape, axes, keepdim)?;
    let total = algebra.sum_keepdim(x, axes)?;
    let mean = scale(algebra, &total, 1.0 / count as f64)?;
    let centred = algebra.binary(BinaryOp::Sub, x, &mean)?;
    let product = mul(algebra, &expanded, &centred)?;
    scale(algebra, &product, 2.0 / count as f64)
}

/// The gradients of `aᵇ` for the inputs in `needs`, summed back to their shapes: d/da = b·a^(b−1),
/// d/db = aᵇ·ln a, with PyTorch's conventions: the first is 0 where b = 0 (the exponent is made 0
/// there, so 0·0⁻¹ stays finite at a = 0), the second 0 where a = 0 (ln takes 1 there).
pub fn pow_gradients<A: GradientAlgebra, S: RuleOperands<A::Value, A::Error>>(
    algebra: &mut A,
    operands: &S,
    g: &A::Value,
    needs: [bool; 2],
    shapes: [&[usize]; 2],
) -> Result<PairGradients<A::Value>, A::Error> {
    let (a, b) = (operands.input(0)?, operands.input(1)?);
    let grad_a = if needs[0] {
        let one = algebra.number(1.0, &b);
        let lowered = algebra.binary(BinaryOp::Sub, &b, &one)?;
        let zero = algebra.number(0.0, &b);
        let exponent = algebra.select_where(CompareOp::Ne, &b, &zero, &lowered)?;
        let power = algebra.binary(BinaryOp::Pow, &a, &exponent)?;
        let derivative = mul(algebra, &power, &b)?;
        Some(mul(algebra, g, &derivative)?)
    } else {
        None
    };
    let grad_b = if needs[1] {
        let y = operands.output()?;
        // a + [a = 0]: the ones are built from a (0·a + 1) so they take its shape.
        let nothing = scale(algebra, &a, 0.0)?;
        let one = algebra.number(1.0, &a);
        let ones = algebra.binary(BinaryOp::Add, &nothing, &one)?;
        let zero = algebra.number(0.0, &a);
        let bump = algebra.select_where(CompareOp::Eq, &a, &zero, &ones)?;
        let shifted = algebra.binary(BinaryOp::Add, &a, &bump)?;
        let log = algebra.unary(crate::tensor::UnaryOp::Log, &shifted)?;
        let derivative = mul(algebra, &y, &log)?;
        Some(mul(algebra, g, &derivative)?)
    } else {
        None
    };
    let grad_a = grad_a.map(|gradient| algebra.sum_to_shape(&gradient, shapes[0])).transpose()?;
    let grad_b = grad_b.map(|gradient| algebra.sum_to_shape(&gradient, shapes[1])).transpose()?;
    Ok([grad_a, grad_b])
}
