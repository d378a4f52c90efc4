//! The f64 reference: every op of the tensor core written from its mathematical definition with
//! plain loops over multi-indices. Shapes are row-major; a tensor is `(shape, values)`.

use tilelab::tensor::{BinaryOp, ReduceOp, UnaryOp};

/// Every op of each kind: the tensor core's own lists (the exhaustive matches below fail to
/// compile when a variant is added, so a new op cannot go untested).
pub const ALL_UNARY: [UnaryOp; 35] = UnaryOp::ALL;
/// Every binary op.
pub const ALL_BINARY: [BinaryOp; 9] = BinaryOp::ALL;
/// Every reduction.
pub const ALL_REDUCE: [ReduceOp; 5] = ReduceOp::ALL;

/// σ(x) = 1 / (1 + e^−x).
fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The unary ops from their definitions. gelu uses Φ(x) = ½(1 + erf(x/√2)) with libm's double
/// precision `erf`, a separate routine from the single-precision `erff` the f32 kernel calls.
pub fn unary(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Reciprocal => 1.0 / x,
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sigmoid => logistic(x),
        UnaryOp::Relu if x.is_nan() => x,
        UnaryOp::Relu => x.max(0.0),
        UnaryOp::Silu => x * logistic(x),
        UnaryOp::GeluErf => 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2)),
        UnaryOp::GeluTanh => {
            let inner = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
            0.5 * x * (1.0 + inner.tanh())
        }
        UnaryOp::Exp2 => 2f64.powf(x),
        UnaryOp::Erf => libm::erf(x),
        UnaryOp::Erfc => libm::erfc(x),
        UnaryOp::Ceil => x.ceil(),
        UnaryOp::Floor => x.floor(),
        UnaryOp::Trunc => x.trunc(),
        UnaryOp::Round => x.round_ties_even(),
        // torch: (0 < x) − (x < 0), so NaN and ±0 give 0.
        UnaryOp::Sign => f64::from(u8::from(x > 0.0)) - f64::from(u8::from(x < 0.0)),
        UnaryOp::Expm1 => libm::expm1(x),
        UnaryOp::Log1p => libm::log1p(x),
        UnaryOp::Sinh => libm::sinh(x),
        UnaryOp::Cosh => libm::cosh(x),
        UnaryOp::Atan => libm::atan(x),
        UnaryOp::Asinh => libm::asinh(x),
        UnaryOp::Log2 => libm::log2(x),
        UnaryOp::Log10 => libm::log10(x),
        UnaryOp::Tan => libm::tan(x),
        UnaryOp::Acosh => libm::acosh(x),
        UnaryOp::Atanh => libm::atanh(x),
        // the real cube root written out: the sign of x times |x|^(1/3).
        UnaryOp::Cbrt => x.signum() * x.abs().powf(1.0 / 3.0),
    }
}

/// The binary ops; maximum/minimum propagate NaN like numpy.
pub fn binary(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Maximum | BinaryOp::Minimum if a.is_nan() || b.is_nan() => f64::NAN,
        BinaryOp::Maximum => a.max(b),
        BinaryOp::Minimum => a.min(b),
        // numpy: a // b = floor(a / b) and a % b = a − b·(a // b), the remainder taking b's sign.
        // In f64 the quotient of the test's inputs (|a/b| ≤ 20, far from integers by more than
        // f64 rounding) is exact enough for `floor` to be the mathematical floor.
        BinaryOp::FloorDivide => (a / b).floor(),
        // a − b·⌊a/b⌋ exactly: the truncated remainder (fmod is exact) moved into b's sign.
        BinaryOp::Remainder => {
            let truncated = a % b;
            if truncated != 0.0 && (truncated < 0.0) != (b < 0.0) {
                truncated + b
            } else {
                truncated
            }
        }
    }
}

/// Row-major multi-index of flat position `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for axis in (0..shape.len()).rev() {
        index[axis] = flat % shape[axis];
        flat /= shape[axis];
    }
    index
}

/// Flat position of a multi-index in `shape`.
pub fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |flat, (&i, &d)| flat * d + i)
}

/// The numpy rule, restated: right-align the shapes, pad with 1s; sizes must agree or be 1.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let padded = |s: &[usize]| [vec![1; rank - s.len()], s.to_vec()].concat();
    let (a, b) = (padded(a), padded(b));
    a.iter()
        .zip(&b)
        .map(|(&x, &y)| {
            if x == y || y == 1 {
                Some(x)
            } else if x == 1 {
                Some(y)
            } else {
                None
            }
        })
        .collect()
}

/// Flat position in a tensor of `shape` of a multi-index of the broadcast shape (right-aligned; dims
/// of size 1 repeat).
pub fn broadcast_position(shape: &[usize], index: &[usize]) -> usize {
    let skip = index.len() - shape.len();
    let own: Vec<usize> = shape.iter().zip(&index[skip..]).map(|(&d, &i)| if d == 1 { 0 } else { i }).collect();
    ravel(&own, shape)
}

/// The value of a tensor of `shape` at a multi-index of the broadcast shape.
pub fn broadcast_at(values: &[f64], shape: &[usize], index: &[usize]) -> f64 {
    values[broadcast_position(shape, index)]
}

/// `values` of `shape` expanded to the broadcast shape `target`.
pub fn expand(values: &[f64], shape: &[usize], target: &[usize]) -> Vec<f64> {
    (0..target.iter().product()).map(|flat| broadcast_at(values, shape, &unravel(flat, target))).collect()
}

/// `op(a, b)` with broadcasting; `None` when the shapes do not broadcast.
pub fn broadcast_binary(
    op: BinaryOp,
    a: &[f64],
    a_shape: &[usize],
    b: &[f64],
    b_shape: &[usize],
) -> Option<(Vec<usize>, Vec<f64>)> {
    let shape = broadcast_shape(a_shape, b_shape)?;
    let values = (0..shape.iter().product())
        .map(|flat| {
            let index = unravel(flat, &shape);
            binary(op, broadcast_at(a, a_shape, &index), broadcast_at(b, b_shape, &index))
        })
        .collect();
    Some((shape, values))
}

/// Resolves dims (negative from the end) to sorted axes; `None` reduces every axis.
pub fn axes_of(dims: Option<&[isize]>, rank: usize) -> Vec<usize> {
    let mut axes: Vec<usize> = match dims {
        None => (0..rank).collect(),
        Some(dims) => dims.iter().map(|&d| if d < 0 { (d + rank as isize) as usize } else { d as usize }).collect(),
    };
    axes.sort_unstable();
    axes
}

/// The reduction of `values` over `axes`: groups the elements by their index with the reduced axes
/// removed, then applies the definition (Σ, Σ/n, max, min, Σ(x−μ)²/n) to each group.
pub fn reduce(op: ReduceOp, shape: &[usize], values: &[f64], axes: &[usize], keepdim: bool) -> (Vec<usize>, Vec<f64>) {
    let kept_shape: Vec<usize> = (0..shape.len()).map(|a| if axes.contains(&a) { 1 } else { shape[a] }).collect();
    let groups: usize = kept_shape.iter().product();
    let mut members: Vec<Vec<f64>> = vec![Vec::new(); groups];
    for (flat, &value) in values.iter().enumerate() {
        let mut index = unravel(flat, shape);
        axes.iter().for_each(|&a| index[a] = 0);
        members[ravel(&index, &kept_shape)].push(value);
    }
    let out = members
        .iter()
        .map(|group| {
            let n = group.len() as f64;
            let mean = group.iter().sum::<f64>() / n;
            match op {
                ReduceOp::Sum => group.iter().sum(),
                ReduceOp::Mean => mean,
                // NaN propagates (like numpy.amax), unlike f64::max, which skips it.
                ReduceOp::Amax | ReduceOp::Amin if group.iter().any(|x| x.is_nan()) => f64::NAN,
                ReduceOp::Amax => group.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                ReduceOp::Amin => group.iter().copied().fold(f64::INFINITY, f64::min),
                ReduceOp::Var => group.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n,
            }
        })
        .collect();
    let out_shape =
        if keepdim { kept_shape } else { (0..shape.len()).filter(|a| !axes.contains(a)).map(|a| shape[a]).collect() };
    (out_shape, out)
}

/// The rows of `values` along `axis`: one list of flat positions per line through the tensor.
pub fn lines_along(shape: &[usize], axis: usize) -> Vec<Vec<usize>> {
    let mut lines = Vec::new();
    for flat in 0..shape.iter().product::<usize>() {
        let index = unravel(flat, shape);
        if index[axis] == 0 {
            lines.push(
                (0..shape[axis])
                    .map(|i| {
                        let mut at = index.clone();
                        at[axis] = i;
                        ravel(&at, shape)
                    })
                    .collect(),
            );
        }
    }
    lines
}

/// softmax(x)_i = e^(x_i − m) / Σ_j e^(x_j − m) along `axis` (m = max; shifting changes nothing
/// mathematically and keeps f64 from overflowing at ±1e4), or log_softmax = x_i − m − ln Σ e^(x_j − m).
pub fn softmax(shape: &[usize], values: &[f64], axis: usize, log: bool) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    for line in lines_along(shape, axis) {
        let max = line.iter().map(|&p| values[p]).fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = line.iter().map(|&p| (values[p] - max).exp()).sum();
        for &p in &line {
            out[p] = if log { values[p] - max - total.ln() } else { (values[p] - max).exp() / total };
        }
    }
    out
}

/// `op(a) @ op(b)` over broadcast batch dims, plus Σ_p |a_ip·b_pj| per output (the scale of the
/// rounding error bound of a dot product).
pub fn matmul(
    a: &[f64],
    a_shape: &[usize],
    b: &[f64],
    b_shape: &[usize],
    a_trans: bool,
    b_trans: bool,
) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let (ar, br) = (a_shape.len(), b_shape.len());
    let (a_rows, a_cols, b_rows, b_cols) = (a_shape[ar - 2], a_shape[ar - 1], b_shape[br - 2], b_shape[br - 1]);
    let (m, k) = if a_trans { (a_cols, a_rows) } else { (a_rows, a_cols) };
    let n = if b_trans { b_rows } else { b_cols };
    let batch = broadcast_shape(&a_shape[..ar - 2], &b_shape[..br - 2]).expect("batch dims broadcast");
    let shape = [batch.clone(), vec![m, n]].concat();
    let (mut out, mut scale) = (Vec::new(), Vec::new());
    for flat in 0..batch.iter().product::<usize>() {
        // The matrices of this batch element: each operand's batch dims broadcast against `batch`.
        let batch_index = unravel(flat, &batch);
        let a_base = broadcast_position(&a_shape[..ar - 2], &batch_index) * a_rows * a_cols;
        let b_base = broadcast_position(&b_shape[..br - 2], &batch_index) * b_rows * b_cols;
        // op(a)[i][p] and op(b)[p][j]: a transposed operand is read with row and column swapped.
        let a_at = |i: usize, p: usize| if a_trans { a[a_base + p * a_cols + i] } else { a[a_base + i * a_cols + p] };
        let b_at = |p: usize, j: usize| if b_trans { b[b_base + j * b_cols + p] } else { b[b_base + p * b_cols + j] };
        for i in 0..m {
            for j in 0..n {
                out.push((0..k).map(|p| a_at(i, p) * b_at(p, j)).sum());
                scale.push((0..k).map(|p| (a_at(i, p) * b_at(p, j)).abs()).sum());
            }
        }
    }
    (shape, out, scale)
}

/// `values` with dims reordered: result dim `i` is input dim `order[i]`.
pub fn permute(shape: &[usize], values: &[f64], order: &[usize]) -> (Vec<usize>, Vec<f64>) {
    let out_shape: Vec<usize> = order.iter().map(|&a| shape[a]).collect();
    let out = (0..values.len())
        .map(|flat| {
            let out_index = unravel(flat, &out_shape);
            let mut index = vec![0; shape.len()];
            order.iter().enumerate().for_each(|(i, &a)| index[a] = out_index[i]);
            values[ravel(&index, shape)]
        })
        .collect();
    (out_shape, out)
}

/// The strided slice `x[start_d + i·step_d]` for `i < count_d` in every dim.
pub fn slice(shape: &[usize], values: &[f64], specs: &[(usize, isize, usize)]) -> Vec<f64> {
    let out_shape: Vec<usize> = specs.iter().map(|s| s.2).collect();
    (0..out_shape.iter().product())
        .map(|flat| {
            let index: Vec<usize> = unravel(flat, &out_shape)
                .iter()
                .zip(specs)
                .map(|(&i, &(start, step, _))| (start as isize + i as isize * step) as usize)
                .collect();
            values[ravel(&index, shape)]
        })
        .collect()
}
