//! The derivative rules that build values and the rules that build ops are one table: each rule
//! below is written once against `GradientAlgebra`, which autograd implements over `Var` (values,
//! recorded for second order) and the generated backward kernels implement over a kernel capture
//! (ops on tiles). Rules that need the values themselves (tie masks, pow's zero conventions …)
//! stay in `rules.rs`, which is the one exhaustive match over `Op` and calls these for the rest.

use crate::tensor::{BinaryOp, CompareOp, UnaryOp};

/// What the rules build with: element-wise ops, numbers, matmul and the broadcast bookkeeping.
pub trait GradientAlgebra {
    /// A value (a `Var`, or a tensor or number of a capture).
    type Value: Clone;
    /// Why an op could not be built.
    type Error;
    /// An element-wise op of one input.
    fn unary(&mut self, op: UnaryOp, x: &Self::Value) -> Result<Self::Value, Self::Error>;
    /// An element-wise op of two broadcast inputs.
    fn binary(&mut self, op: BinaryOp, a: &Self::Value, b: &Self::Value) -> Result<Self::Value, Self::Error>;
    /// The number `value` in the dtype of `like`.
    fn number(&mut self, value: f64, like: &Self::Value) -> Self::Value;
    /// Φ(x), the standard normal CDF.
    fn normal_cdf(&mut self, x: &Self::Value) -> Result<Self::Value, Self::Error>;
    /// `op(a) @ op(b)`.
    fn matmul(
        &mut self,
        a: &Self::Value,
        b: &Self::Value,
        a_trans: bool,
        b_trans: bool,
    ) -> Result<Self::Value, Self::Error>;
    /// A broadcast gradient summed back to `shape`.
    fn sum_to_shape(&mut self, gradient: &Self::Value, shape: &[usize]) -> Result<Self::Value, Self::Error>;
    /// The gradient of a reduction over `axes` of a value of `shape`, brought back to `shape`.
    fn expand_reduced(
        &mut self,
        gradient: &Self::Value,
        shape: &[usize],
        axes: &[usize],
        keepdim: bool,
    ) -> Result<Self::Value, Self::Error>;
    /// The sum over `axes`, dims kept.
    fn sum_keepdim(&mut self, x: &Self::Value, axes: &[usize]) -> Result<Self::Value, Self::Error>;
    /// `g` where `a op b` holds and zero elsewhere, broadcast together (the mask is locally
    /// constant: no gradient flows through it; a NaN compares false).
    fn select_where(
        &mut self,
        op: CompareOp,
        a: &Self::Value,
        b: &Self::Value,
        g: &Self::Value,
    ) -> Result<Self::Value, Self::Error>;
}

/// The values a rule may read, fetched only when the rule reads them (what `Op::saves` promises).
pub trait RuleOperands<V, E> {
    /// Input `index`.
    fn input(&self, index: usize) -> Result<V, E>;
    /// The (first) output.
    fn output(&self) -> Result<V, E>;
}

/// The gradients of a two-input op (`None`: not needed).
pub type PairGradients<V> = [Option<V>; 2];

pub(crate) type Built<A> = Result<<A as GradientAlgebra>::Value, <A as GradientAlgebra>::Error>;

pub(crate) fn mul<A: GradientAlgebra>(algebra: &mut A, a: &A::Value, b: &A::Value) -> Built<A> {
    algebra.binary(BinaryOp::Mul, a, b)
}

pub(crate) fn scale<A: GradientAlgebra>(algebra: &mut A, a: &A::Value, factor: f64) -> Built<A> {
    let factor = algebra.number(factor, a);
    algebra.binary(BinaryOp::Mul, a, &factor)
}

/// `value − x` for a number `value`.
fn number_minus<A: GradientAlgebra>(algebra: &mut A, value: f64, x: &A::Value) -> Built<A> {
    let number = algebra.number(value, x);
    algebra.binary(BinaryOp::Sub, &number, x)
}

pub(crate) fn standard_normal_density<A: GradientAlgebra>(algebra: &mut A, x: &A::Value) -> Built<A> {
    // φ(x) = e^{−x²/2}/√(2π)
    let square = mul(algebra, x, x)?;
    let exponent = scale(algebra, &square, -0.5)?;
    let exp = algebra.unary(UnaryOp::Exp, &exponent)?;
    scale(algebra, &exp, 1.0 / (2.0 * std::f64::consts::PI).sqrt())
}

/// The gradient of `y = op(x)` given `g = dL/dy`; `None` where it is zero almost everywhere
/// (ceil, floor, trunc, round, sign: piecewise constant, as torch). Kinks as PyTorch: relu'(0) =
/// abs'(0) = 0, both from sign(0) = 0.
pub fn unary_gradient<A: GradientAlgebra, S: RuleOperands<A::Value, A::Error>>(
    algebra: &mut A,
    op: UnaryOp,
    operands: &S,
    g: &A::Value,
) -> Result<Option<A::Value>, A::Error> {
    let gradient = match op {
        UnaryOp::Neg => algebra.unary(UnaryOp::Neg, g)?,
        UnaryOp::Abs => {
            let sign = algebra.unary(UnaryOp::Sign, &operands.input(0)?)?;
            mul(algebra, g, &sign)?
        }
        // relu' = 1 where x > 0 = relu(sign(x))
        UnaryOp::Relu => {
            let sign = algebra.unary(UnaryOp::Sign, &operands.input(0)?)?;
            let pass = algebra.unary(UnaryOp::Relu, &sign)?;
            mul(algebra, g, &pass)?
        }
        UnaryOp::Exp => mul(algebra, g, &operands.output()?)?,
        UnaryOp::Log => algebra.binary(BinaryOp::Div, g, &operands.input(0)?)?,
        // √x' = 1/(2√x)
        UnaryOp::Sqrt => {
            let quotient = algebra.binary(BinaryOp::Div, g, &operands.output()?)?;
            scale(algebra, &quotient, 0.5)?
        }
        // (x^-½)' = −½ x^-3/2 = −½ y³
        UnaryOp::Rsqrt => {
            let y = operands.output()?;
            let square = mul(algebra, &y, &y)?;
            let cube = mul(algebra, &square, &y)?;
            let product = mul(algebra, g, &cube)?;
            scale(algebra, &product, -0.5)?
        }
        // (1/x)' = −1/x² = −y²
        UnaryOp::Reciprocal => {
            let y = operands.output()?;
            let square = mul(algebra, &y, &y)?;
            let product = mul(algebra, g, &square)?;
            algebra.unary(UnaryOp::Neg, &product)?
        }
        UnaryOp::Sin => {
            let cos = algebra.unary(UnaryOp::Cos, &operands.input(0)?)?;
            mul(algebra, g, &cos)?
        }
        UnaryOp::Cos => {
            let sin = algebra.unary(UnaryOp::Sin, &operands.input(0)?)?;
            let product = mul(algebra, g, &sin)?;
            algebra.unary(UnaryOp::Neg, &product)?
        }
        // tanh' = 1 − y²
        UnaryOp::Tanh => {
            let y = operands.output()?;
            let square = mul(algebra, &y, &y)?;
            let derivative = number_minus(algebra, 1.0, &square)?;
            mul(algebra, g, &derivative)?
        }
        // σ' = y(1 − y)
        UnaryOp::Sigmoid => {
            let y = operands.output()?;
            let complement = number_minus(algebra, 1.0, &y)?;
            let derivative = mul(algebra, &y, &complement)?;
            mul(algebra, g, &derivative)?
        }
        // (xσ(x))' = σ(1 + x(1 − σ))
        UnaryOp::Silu => {
            let x = operands.input(0)?;
            let s = algebra.unary(UnaryOp::Sigmoid, &x)?;
            let complement = number_minus(algebra, 1.0, &s)?;
            let product = mul(algebra, &x, &complement)?;
            let one = algebra.number(1.0, &product);
            let bracket = algebra.binary(BinaryOp::Add, &one, &product)?;
            let derivative = mul(algebra, &s, &bracket)?;
            mul(algebra, g, &derivative)?
        }
        // (xΦ(x))' = Φ(x) + xφ(x)
        UnaryOp::GeluErf => {
            let x = operands.input(0)?;
            let cdf = algebra.normal_cdf(&x)?;
            let density = standard_normal_density(algebra, &x)?;
            let product = mul(algebra, &x, &density)?;
            let derivative = algebra.binary(BinaryOp::Add, &cdf, &product)?;
            mul(algebra, g, &derivative)?
        }
        // u = c(x + kx³), y = ½x(1 + tanh u): y' = ½(1 + t) + ½x(1 − t²)·c(1 + 3kx²)
        UnaryOp::GeluTanh => {
            let x = operands.input(0)?;
            let (c, k) = ((2.0 / std::f64::consts::PI).sqrt(), 0.044715);
            let x2 = mul(algebra, &x, &x)?;
            let x3 = mul(algebra, &x2, &x)?;
            let kx3 = scale(algebra, &x3, k)?;
            let inner = algebra.binary(BinaryOp::Add, &x, &kx3)?;
            let u = scale(algebra, &inner, c)?;
            let t = algebra.unary(UnaryOp::Tanh, &u)?;
            let kx2 = scale(algebra, &x2, 3.0 * k)?;
            let one = algebra.number(1.0, &kx2);
            let inner_derivative = algebra.binary(BinaryOp::Add, &kx2, &one)?;
            let du = scale(algebra, &inner_derivative, c)?;
            let one = algebra.number(1.0, &t);
            let one_plus_t = algebra.binary(BinaryOp::Add, &one, &t)?;
            let left = scale(algebra, &one_plus_t, 0.5)?;
            let t2 = mul(algebra, &t, &t)?;
            let sech2 = number_minus(algebra, 1.0, &t2)?;
            let x_sech2 = mul(algebra, &x, &sech2)?;
            let right_unscaled = mul(algebra, &x_sech2, &du)?;
            let right = scale(algebra, &right_unscaled, 0.5)?;
            let derivative = algebra.binary(BinaryOp::Add, &left, &right)?;
            mul(algebra, g, &derivative)?
        }
        // (2^x)' = ln2 · 2^x
        UnaryOp::Exp2 => {
            let product = mul(algebra, g, &operands.output()?)?;
            scale(algebra, &product, std::f64::consts::LN_2)?
        }
        // erf' = 2/√π · e^{−x²}; erfc' = −erf'
        UnaryOp::Erf | UnaryOp::Erfc => {
            let x = operands.input(0)?;
            let square = mul(algebra, &x, &x)?;
            let negated = algebra.unary(UnaryOp::Neg, &square)?;
            let exp = algebra.unary(UnaryOp::Exp, &negated)?;
            let product = mul(algebra, g, &exp)?;
            let sign = if op == UnaryOp::Erf { 1.0 } else { -1.0 };
            scale(algebra, &product, sign * std::f64::consts::FRAC_2_SQRT_PI)?
        }
        UnaryOp::Ceil | UnaryOp::Floor | UnaryOp::Trunc | UnaryOp::Round | UnaryOp::Sign => return Ok(None),
        UnaryOp::Expm1
        | UnaryOp::Log1p
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Atan
        | UnaryOp::Asinh
        | UnaryOp::Log2
        | UnaryOp::Log10
        | UnaryOp::Tan
        | UnaryOp::Acosh
        | UnaryOp::Atanh
        | UnaryOp::Cbrt => super::algebra_math::gradient(algebra, op, &operands.input(0)?, g)?,
    };
    Ok(Some(gradient))
}

/// The gradients of `y = a op b` (add, sub, mul, div) for the inputs in `needs`, summed back to
/// the inputs' shapes; `None` for the other binary ops, whose rules read values (`rules.rs`).
pub fn binary_gradients<A: GradientAlgebra, S: RuleOperands<A::Value, A::Error>>(
    algebra: &mut A,
    op: BinaryOp,
    operands: &S,
    g: &A::Value,
    needs: [bool; 2],
    shapes: [&[usize]; 2],
) -> Result<Option<PairGradients<A::Value>>, A::Error> {
    let (grad_a, grad_b) = match op {
        BinaryOp::Add => (needs[0].then(|| g.clone()), needs[1].then(|| g.clone())),
        BinaryOp::Sub => (needs[0].then(|| g.clone()), needs[1].then(|| algebra.unary(UnaryOp::Neg, g)).transpose()?),
        BinaryOp::Mul => {
            let grad_a = if needs[0] { Some(mul(algebra, g, &operands.input(1)?)?) } else { None };
            let grad_b = if needs[1] { Some(mul(algebra, g, &operands.input(0)?)?) } else { None };
            (grad_a, grad_b)
        }
        // d(a/b) = da/b − a·db/b²
        BinaryOp::Div => {
            let b = operands.input(1)?;
            let grad_a = if needs[0] { Some(algebra.binary(BinaryOp::Div, g, &b)?) } else { None };
            let grad_b = if needs[1] {
                let numerator = mul(algebra, g, &operands.input(0)?)?;
                let square = mul(algebra, &b, &b)?;
                let quotient = algebra.binary(BinaryOp::Div, &numerator, &square)?;
                Some(algebra.unary(UnaryOp::Neg, &quotient)?)
            } else {
                None
            };
            (grad_a, grad_b)
        }
        BinaryOp::Pow | BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::FloorDivide | BinaryOp::Remainder => {
            return Ok(None)
        }
    };
    let grad_a = grad_a.map(|gradient| algebra.sum_to_shape(&gradient, shapes[0])).transpose()?;
    let grad_b = grad_b.map(|gradient| algebra.sum_to_shape(&gradient, shapes[1])).transpose()?;
    Ok(Some([grad_a, grad_b]))
}

/// The gradients of `C = op(A)·op(B)`: d op(A) = G·op(B)ᵀ, d op(B) = op(A)ᵀ·G, then the transposes
/// undone — each one matmul with transposed operands, never an explicit transpose.
pub fn matmul_gradients<A: GradientAlgebra, S: RuleOperands<A::Value, A::Error>>(
    algebra: &mut A,
    transposes: [bool; 2],
    operands: &S,
    g: &A::Value,
    needs: [bool; 2],
    shapes: [&[usize]; 2],
) -> Result<[Option<A::Value>; 2], A::Error> {
    let [a_trans, b_trans] = transposes;
    let grad_a = if !needs[0] {
        None
    } else if a_trans {
        Some(algebra.matmul(&operands.input(1)?, g, b_trans, true)?)
    } else {
        Some(algebra.matmul(g, &operands.input(1)?, false, !b_trans)?)
    };
    let grad_b = if !needs[1] {
        None
    } else if b_trans {
        Some(algebra.matmul(g, &operands.input(0)?, true, a_trans)?)
    } else {
        Some(algebra.matmul(&operands.input(0)?, g, !a_trans, false)?)
    };
    let grad_a = grad_a.map(|gradient| algebra.sum_to_shape(&gradient, shapes[0])).transpose()?;
    let grad_b = grad_b.map(|gradient| algebra.sum_to_shape(&gradient, shapes[1])).transpose()?;
    Ok([grad_a, grad_b])
}

/// The gradient of a sum (`mean_of: None`) or of a mean over `axes` of a value of `shape`; a mean
/// divides by the extents in `mean_of` (the value's valid shape: a partial tile's mean counts its
/// valid region only).
pub fn sum_gradient<A: GradientAlgebra>(
    algebra: &mut A,
    mean_of: Option<&[usize]>,
    g: &A::Value,
    shape: &[usize],
    axes: &[usize],
    keepdim: bool,
) -> Built<A> {
    let expanded = algebra.expand_reduced(g, shape, axes, keepdim)?;
    let Some(extents) = mean_of else {
        return Ok(expanded);
    };
    let count: usize = axes.iter().map(|&axis| extents[axis]).product();
    scale(algebra, &expanded, 1.0 / count as f64)
}

/// The gradient of softmax (`log: false`) or log-softmax along `axis`, from the output `y`:
/// softmax: dx = y ⊙ (g − Σ g ⊙ y); log-softmax: dx = g − exp(y) ⊙ Σ g.
pub fn softmax_gradient<A: GradientAlgebra>(
    algebra: &mut A,
    log: bool,
    y: &A::Value,
    g: &A::Value,
    axis: usize,
) -> Built<A> {
    if log {
        let total = algebra.sum_keepdim(g, &[axis])?;
        let probabilities = algebra.unary(UnaryOp::Exp, y)?;
        let share = mul(algebra, &probabilities, &total)?;
        algebra.binary(BinaryOp::Sub, g, &share)
    } else {
        let product = mul(algebra, g, y)?;
        let total = algebra.sum_keepdim(&product, &[axis])?;
        let centred = algebra.binary(BinaryOp::Sub, g, &total)?;
        mul(algebra, y, &centred)
    }
}
