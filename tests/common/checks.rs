//! Checks of the arithmetic ops against the f64 reference, shared by the native and the wasm tests.
//!
//! The rule for every dtype: inputs are values of the dtype, the kernel computes in f32 (f64 for the
//! reference dtype) and rounds the result once. So the expected value is `round_dtype(f64_op(x))`,
//! and the tolerance is (error of the f32 computation) + (one ulp of the dtype for f16/bf16, because
//! the f32 result may sit on the other side of a rounding boundary). The f32 error bounds are stated
//! per op below; correctly rounded IEEE operations (+ − × ÷ √, max, min) get none at all.

use tilelab::tensor::{BinaryOp, DType, ReduceOp, SoftmaxOp, Tensor, UnaryOp};

use super::reference::{self, ALL_BINARY, ALL_REDUCE, ALL_UNARY};
use super::{assert_close, assert_exact, compute_epsilon, narrow_slack, random_tensor, round_to, Inputs, ALL_DTYPES};

/// Input range of each unary op: inside its domain and, for f16, inside the finite range of results.
fn unary_domain(op: UnaryOp) -> (f64, f64) {
    match op {
        UnaryOp::Exp => (-8.0, 8.0),
        UnaryOp::Log | UnaryOp::Sqrt | UnaryOp::Rsqrt => (0.01, 100.0),
        UnaryOp::Log1p => (-0.9, 100.0),
        UnaryOp::Log2 | UnaryOp::Log10 => (0.01, 100.0),
        UnaryOp::Acosh => (1.0, 100.0),
        UnaryOp::Atanh => (-0.99, 0.99),
        UnaryOp::Tan => (-1.4, 1.4),
        UnaryOp::Reciprocal => (0.05, 20.0),
        _ => (-6.0, 6.0),
    }
}

/// Error bound of the f32 (or f64) computation of `op` at `x` whose exact result is `exact`.
/// Transcendentals get 8 ulps of the compute precision (libm is within 1–2, vectorised polynomial
/// kernels within a few). Where the result is small because of cancellation, the error is bounded
/// in absolute terms instead: sin/cos/tanh/log near their zeros (scale 1) and gelu for negative x,
/// where 1 + erf(x/√2) cancels (scale |x|).
fn unary_tolerance(op: UnaryOp, x: f64, exact: f64, epsilon: f64) -> f64 {
    let (ulps, floor) = match op {
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Relu
        | UnaryOp::Sqrt
        | UnaryOp::Reciprocal
        | UnaryOp::Ceil
        | UnaryOp::Floor
        | UnaryOp::Trunc
        | UnaryOp::Round
        | UnaryOp::Sign => (0.0, 0.0),
        UnaryOp::Exp2 | UnaryOp::Erf | UnaryOp::Erfc => (8.0, 0.0),
        UnaryOp::Expm1
        | UnaryOp::Log1p
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Atan
        | UnaryOp::Asinh
        | UnaryOp::Atanh
        | UnaryOp::Cbrt => (8.0, 0.0),
        // Zeros where the result cancels (log₂ 1, log₁₀ 1, acosh 1) or the slope is steep (tan near
        // its poles): bounded in absolute terms at scale 1, as log is.
        UnaryOp::Log2 | UnaryOp::Log10 | UnaryOp::Acosh | UnaryOp::Tan => (8.0, 1.0),
        UnaryOp::Rsqrt => (2.0, 0.0),
        UnaryOp::Exp | UnaryOp::Sigmoid | UnaryOp::Silu => (8.0, 0.0),
        UnaryOp::Log | UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tanh => (8.0, 1.0),
        UnaryOp::GeluErf | UnaryOp::GeluTanh => (8.0, (-x).max(0.0)),
    };
    ulps * epsilon * (exact.abs() + floor)
}

/// Error bound of the f32 computation of `op(a, b)`: none for the correctly rounded ops; for pow,
/// computed as e^(b·ln a), the relative error of the exponent b·ln a becomes |b·ln a| relative error
/// of the result.
fn binary_tolerance(op: BinaryOp, a: f64, b: f64, exact: f64, epsilon: f64) -> f64 {
    match op {
        BinaryOp::Pow => 8.0 * epsilon * exact.abs() * (1.0 + (b * a.ln()).abs()),
        _ => 0.0,
    }
}

/// Compute slack plus the one-ulp slack of a narrow result dtype.
fn with_rounding(dtype: DType, expected: f64, compute: f64) -> f64 {
    compute + narrow_slack(dtype, expected)
}

/// Every unary op in every dtype, on an odd length (37, so vector kernels run their tail) plus the
/// fixed points 0 and 1 where they are in the domain.
pub fn unary_ops() {
    let mut inputs = Inputs::new(11);
    for op in ALL_UNARY {
        for dtype in ALL_DTYPES {
            let (low, high) = unary_domain(op);
            let mut values = inputs.values(37, low, high, dtype);
            values.extend([1.0, if low <= 0.0 { 0.0 } else { 2.0 }, round_to(dtype, low)]);
            let tensor = Tensor::from_f64(values.clone(), &[40], dtype).unwrap();
            let got = tensor.unary(op).unwrap();
            assert_eq!((got.shape(), got.dtype()), (&[40][..], dtype), "{op:?} keeps shape and dtype");
            let exact: Vec<f64> = values.iter().map(|&x| reference::unary(op, x)).collect();
            let expected: Vec<f64> = exact.iter().map(|&e| round_to(dtype, e)).collect();
            assert_close(&format!("{op:?} {dtype}"), &got.to_f64_vec(), &expected, |i, e| {
                with_rounding(dtype, e, unary_tolerance(op, values[i], exact[i], compute_epsilon(dtype)))
            });
        }
    }
}

/// Large inputs (±20, ±88, ±1e4) where a naive formula overflows: the saturating ops stay finite
/// (σ(−1e4) = 0, not NaN from ∞/∞; silu(−1e4) = −0; gelu(−1e4) = 0; gelu_tanh(1e4) = 1e4 even though
/// 0.044715·x³ is 4.5e10) and exp overflows only where e^x does in the dtype (e^88 ≈ 1.65e38: finite in
/// f32 and bf16, ∞ in f16).
pub fn unary_extremes() {
    let ops = [
        UnaryOp::Sigmoid,
        UnaryOp::Tanh,
        UnaryOp::Silu,
        UnaryOp::GeluErf,
        UnaryOp::GeluTanh,
        UnaryOp::Relu,
        UnaryOp::Exp,
        UnaryOp::Neg,
    ];
    for dtype in ALL_DTYPES {
        let values: Vec<f64> = [-1e4, -88.0, -20.0, 20.0, 88.0, 1e4].iter().map(|&v| round_to(dtype, v)).collect();
        let tensor = Tensor::from_f64(values.clone(), &[6], dtype).unwrap();
        for op in ops {
            let got = tensor.unary(op).unwrap().to_f64_vec();
            let exact: Vec<f64> = values.iter().map(|&x| reference::unary(op, x)).collect();
            let expected: Vec<f64> = exact.iter().map(|&e| round_to(dtype, e)).collect();
            assert!(got.iter().all(|v| !v.is_nan()), "{op:?} {dtype}: {got:?}");
            assert_close(&format!("{op:?} {dtype} at extremes"), &got, &expected, |i, e| {
                with_rounding(dtype, e, unary_tolerance(op, values[i], exact[i], compute_epsilon(dtype)))
            });
        }
    }
}

/// NaN propagates through every reduction, maximum/minimum, relu and clip, wherever it sits in a row
/// (first element, middle, and the last element, which vector kernels handle in their scalar tail);
/// rows without NaN are unaffected (loosely checked here; their accuracy is checked by `reductions`).
pub fn nan_propagation() {
    let mut inputs = Inputs::new(16);
    for dtype in ALL_DTYPES {
        for position in [0usize, 5, 36] {
            // Row 0 holds the NaN, row 1 does not.
            let mut values = inputs.values(74, -3.0, 3.0, dtype);
            values[position] = f64::NAN;
            let tensor = Tensor::from_f64(values.clone(), &[2, 37], dtype).unwrap();
            let context = |what: &str| format!("{what} {dtype} NaN at {position}");
            for op in ALL_REDUCE {
                let got = tensor.reduce(op, Some(&[-1]), false).unwrap().to_f64_vec();
                let (_, exact) = reference::reduce(op, &[2, 37], &values, &[1], false);
                assert!(got[0].is_nan() && exact[0].is_nan(), "{}: {got:?}", context(&format!("{op:?}")));
                assert!(
                    (got[1] - round_to(dtype, exact[1])).abs() <= 1e-3 * (1.0 + exact[1].abs()),
                    "{}: {got:?} vs {exact:?}",
                    context(&format!("{op:?}"))
                );
            }
            let zero = Tensor::scalar(0.0, dtype);
            for op in [BinaryOp::Maximum, BinaryOp::Minimum] {
                let expected: Vec<f64> = values.iter().map(|&v| reference::binary(op, v, 0.0)).collect();
                assert_exact(&context(&format!("{op:?}")), &tensor.binary(op, &zero).unwrap().to_f64_vec(), &expected);
                assert_exact(
                    &context(&format!("{op:?} swapped")),
                    &zero.binary(op, &tensor).unwrap().to_f64_vec(),
                    &expected,
                );
            }
            let relu: Vec<f64> = values.iter().map(|&v| reference::unary(UnaryOp::Relu, v)).collect();
            assert_exact(&context("relu"), &tensor.unary(UnaryOp::Relu).unwrap().to_f64_vec(), &relu);
            let clipped: Vec<f64> =
                values.iter().map(|&v| if v.is_nan() { v } else { round_to(dtype, v.clamp(-1.0, 1.0)) }).collect();
            assert_exact(&context("clip"), &tensor.clip(Some(-1.0), Some(1.0)).unwrap().to_f64_vec(), &clipped);
        }
    }
}

/// Input ranges of the binary ops: divisors away from 0, pow bases positive.
fn binary_domain(op: BinaryOp) -> ((f64, f64), (f64, f64)) {
    match op {
        BinaryOp::Div | BinaryOp::FloorDivide | BinaryOp::Remainder => ((-10.0, 10.0), (0.5, 10.0)),
        BinaryOp::Pow => ((0.1, 4.0), (-3.0, 3.0)),
        _ => ((-10.0, 10.0), (-10.0, 10.0)),
    }
}

/// Shape pairs that take every path of the broadcasting code: equal shapes (with an odd length),
/// a one-element right operand, a one-element left operand, rank extension, 1-dims on both sides,
/// an empty result.
pub const BROADCAST_CASES: [(&[usize], &[usize]); 11] = [
    (&[37], &[37]),
    (&[2, 3, 4], &[2, 3, 4]),
    (&[2, 3, 4], &[]),
    (&[5, 4], &[1]),
    (&[1], &[2, 3]),
    (&[], &[4, 5]),
    (&[3, 1], &[4]),
    (&[2, 1, 4], &[3, 1]),
    (&[4, 1, 1], &[1, 5, 3]),
    (&[2, 3], &[1, 1, 1]),
    (&[0, 3], &[3]),
];

/// Every binary op on every broadcasting case, with equal and mixed dtypes (the result dtype is the
/// promotion: equal stays, f16 with bf16 widens to f32, anything with f64 is f64).
pub fn binary_ops() {
    let mut inputs = Inputs::new(12);
    let dtype_pairs = [
        (DType::F32, DType::F32, DType::F32),
        (DType::F16, DType::F16, DType::F16),
        (DType::Bf16, DType::Bf16, DType::Bf16),
        (DType::F64, DType::F64, DType::F64),
        (DType::F16, DType::Bf16, DType::F32),
        (DType::Bf16, DType::F32, DType::F32),
        (DType::F16, DType::F64, DType::F64),
    ];
    for op in ALL_BINARY {
        let ((a_low, a_high), (b_low, b_high)) = binary_domain(op);
        for (a_shape, b_shape) in BROADCAST_CASES {
            for (a_dtype, b_dtype, out_dtype) in dtype_pairs {
                let (a, a_values) = random_tensor(&mut inputs, a_shape, a_low, a_high, a_dtype);
                let (b, mut b_values) = random_tensor(&mut inputs, b_shape, b_low, b_high, b_dtype);
                // Divisors of both signs: flip every other one (negation is exact in every dtype).
                let b = if matches!(op, BinaryOp::Div | BinaryOp::FloorDivide | BinaryOp::Remainder) {
                    b_values.iter_mut().step_by(2).for_each(|v| *v = -*v);
                    Tensor::from_f64(b_values.clone(), b_shape, b_dtype).unwrap()
                } else {
                    b
                };
                let context = format!("{op:?} {a_shape:?}·{a_dtype} with {b_shape:?}·{b_dtype}");
                let got = a.binary(op, &b).unwrap();
                let (shape, exact) = reference::broadcast_binary(op, &a_values, a_shape, &b_values, b_shape).unwrap();
                assert_eq!((got.shape(), got.dtype()), (&shape[..], out_dtype), "{context}");
                let expected: Vec<f64> = exact.iter().map(|&e| round_to(out_dtype, e)).collect();
                let index = |flat: usize| reference::unravel(flat, &shape);
                assert_close(&context, &got.to_f64_vec(), &expected, |i, e| {
                    let (x, y) = (
                        reference::broadcast_at(&a_values, a_shape, &index(i)),
                        reference::broadcast_at(&b_values, b_shape, &index(i)),
                    );
                    with_rounding(out_dtype, e, binary_tolerance(op, x, y, exact[i], compute_epsilon(out_dtype)))
                });
            }
        }
    }
}

/// clip(x, low, high) = min(max(x, low), high), with either bound absent; the bounds need not be
/// representable, so the result is the clamped value rounded once.
pub fn clip() {
    let mut inputs = Inputs::new(13);
    for dtype in ALL_DTYPES {
        let (tensor, values) = random_tensor(&mut inputs, &[41], -3.0, 3.0, dtype);
        for (low, high) in [(Some(-1.3), Some(0.7)), (None, Some(0.1)), (Some(-0.1), None), (None, None)] {
            let clamped: Vec<f64> = values
                .iter()
                .map(|&x| round_to(dtype, low.map_or(x, |l: f64| x.max(l)).min(high.unwrap_or(f64::INFINITY))))
                .collect();
            assert_exact(
                &format!("clip {dtype} {low:?} {high:?}"),
                &tensor.clip(low, high).unwrap().to_f64_vec(),
                &clamped,
            );
        }
    }
}

/// The dim lists to reduce over for a rank-3 tensor: all, single, negative, several, keepdim on/off.
const REDUCE_DIMS: [Option<&[isize]>; 7] =
    [None, Some(&[0]), Some(&[2]), Some(&[-1]), Some(&[0, 2]), Some(&[-3, -2]), Some(&[1, 0, 2])];

/// Error bound of an f32 reduction of the group with n elements: recursive summation errs by at most
/// (n−1)·ε·Σ|x| (pairwise or lane-split sums by less), the mean adds one rounding; max/min are exact.
/// Variance Σ(x−μ̂)²/n with a computed mean μ̂: the mean's error enters only squared (Σ(x−μ) = 0), the
/// squares and their sum err by (n+3)·ε·Σ(x−μ̂)², bounded by 2(n+4)·ε·mean(x²).
fn reduce_tolerance(op: ReduceOp, n: usize, abs_sum: f64, square_mean: f64, epsilon: f64) -> f64 {
    let n = n as f64;
    match op {
        ReduceOp::Sum => n * epsilon * abs_sum,
        ReduceOp::Mean => (n + 1.0) * epsilon * abs_sum / n,
        ReduceOp::Amax | ReduceOp::Amin => 0.0,
        ReduceOp::Var => 2.0 * (n + 4.0) * epsilon * square_mean,
    }
}

/// Every reduction over every dim list, with and without keepdim, in every dtype, on an odd-sized
/// [3, 5, 7] tensor and on a [2, 67] tensor whose rows are longer than any vector width.
pub fn reductions() {
    let mut inputs = Inputs::new(14);
    for dtype in ALL_DTYPES {
        for shape in [&[3usize, 5, 7][..], &[2, 67, 1]] {
            let (tensor, values) = random_tensor(&mut inputs, shape, -4.0, 4.0, dtype);
            for op in ALL_REDUCE {
                for dims in REDUCE_DIMS {
                    for keepdim in [false, true] {
                        let context = format!("{op:?} {dtype} {shape:?} dims {dims:?} keepdim {keepdim}");
                        let got = tensor.reduce(op, dims, keepdim).unwrap();
                        let axes = reference::axes_of(dims, shape.len());
                        let (out_shape, exact) = reference::reduce(op, shape, &values, &axes, keepdim);
                        assert_eq!((got.shape(), got.dtype()), (&out_shape[..], dtype), "{context}");
                        let (_, abs_sums) = reference::reduce(
                            ReduceOp::Sum,
                            shape,
                            &values.iter().map(|v| v.abs()).collect::<Vec<_>>(),
                            &axes,
                            keepdim,
                        );
                        let (_, square_means) = reference::reduce(
                            ReduceOp::Mean,
                            shape,
                            &values.iter().map(|v| v * v).collect::<Vec<_>>(),
                            &axes,
                            keepdim,
                        );
                        let n: usize = axes.iter().map(|&a| shape[a]).product();
                        let expected: Vec<f64> = exact.iter().map(|&e| round_to(dtype, e)).collect();
                        assert_close(&context, &got.to_f64_vec(), &expected, |i, e| {
                            with_rounding(
                                dtype,
                                e,
                                reduce_tolerance(op, n, abs_sums[i], square_means[i], compute_epsilon(dtype)),
                            )
                        });
                    }
                }
            }
        }
    }
}

/// Softmax and log-softmax along every dim (positive and negative) of a [4, 7, 3] tensor in every
/// dtype. Bounds: each e^(x−m) errs by 8ε relative, the sum of n terms by nε, the quotient by ε, so
/// softmax is within (n+10)ε relative; log-softmax x − m − ln Σ is within (n+10)ε·(1 + |x| + |m|).
pub fn softmax() {
    let mut inputs = Inputs::new(15);
    let shape = [4usize, 7, 3];
    for dtype in ALL_DTYPES {
        let (tensor, values) = random_tensor(&mut inputs, &shape, -5.0, 5.0, dtype);
        for dim in [0isize, 1, 2, -1, -2, -3] {
            let axis = reference::axes_of(Some(&[dim]), 3)[0];
            let n = shape[axis] as f64;
            let epsilon = compute_epsilon(dtype);
            let max_of: Vec<f64> = {
                let mut max = vec![0.0; values.len()];
                for line in reference::lines_along(&shape, axis) {
                    let m = line.iter().map(|&p| values[p]).fold(f64::NEG_INFINITY, f64::max);
                    line.iter().for_each(|&p| max[p] = m);
                }
                max
            };
            for (op, log) in [(SoftmaxOp::Softmax, false), (SoftmaxOp::LogSoftmax, true)] {
                let got = tensor.softmax_like(op, dim).unwrap();
                assert_eq!((got.shape(), got.dtype()), (&shape[..], dtype));
                let exact = reference::softmax(&shape, &values, axis, log);
                let expected: Vec<f64> = exact.iter().map(|&e| round_to(dtype, e)).collect();
                assert_close(&format!("{op:?} {dtype} dim {dim}"), &got.to_f64_vec(), &expected, |i, e| {
                    let scale = if log { 1.0 + values[i].abs() + max_of[i].abs() } else { e.abs() };
                    with_rounding(dtype, e, (n + 10.0) * epsilon * scale)
                });
            }
        }
    }
}

/// Inputs of ±1e4 (e^1e4 overflows every float type): the max-shifted softmax stays finite.
/// softmax([1e4, 0, −1e4, 1e4]) = [½, e^−1e4/2 → 0, 0, ½]; log_softmax = [−ln 2, −1e4 − ln 2, −2e4 − ln 2,
/// −ln 2]. A row of all −1e4 is uniform: [¼, ¼, ¼, ¼]. (bf16 stores 1e4 as 9984; the reference uses
/// the stored value.) Every step is exact except ln Σ and the final subtraction: 4ε relative.
pub fn softmax_extremes() {
    for dtype in ALL_DTYPES {
        let big = round_to(dtype, 1e4);
        let values = vec![big, 0.0, -big, big, -big, -big, -big, -big];
        let x = Tensor::from_f64(values.clone(), &[2, 4], dtype).unwrap();
        let soft = x.softmax_like(SoftmaxOp::Softmax, -1).unwrap().to_f64_vec();
        let log = x.softmax_like(SoftmaxOp::LogSoftmax, 1).unwrap().to_f64_vec();
        assert!(soft.iter().chain(&log).all(|v| v.is_finite()), "{dtype}: {soft:?} {log:?}");
        assert_exact(&format!("softmax ±1e4 {dtype}"), &soft, &[0.5, 0.0, 0.0, 0.5, 0.25, 0.25, 0.25, 0.25]);
        let expected: Vec<f64> =
            reference::softmax(&[2, 4], &values, 1, true).iter().map(|&v| round_to(dtype, v)).collect();
        assert_close(&format!("log_softmax ±1e4 {dtype}"), &log, &expected, |_, e| {
            4.0 * compute_epsilon(dtype) * e.abs() + narrow_slack(dtype, e)
        });
    }
}
