//! Portable kernels: plain loops the compiler can vectorise, used where wasm `simd128` is absent
//! (public so tests can check the SIMD kernels against them).

use super::MatrixRef;
use crate::tensor::elementwise::{BinaryOp, UnaryOp};

pub fn gemm(a: MatrixRef<'_, f32>, b: MatrixRef<'_, f32>, out: &mut [f32]) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    out.iter_mut().for_each(|x| *x = 0.0);
    for i in 0..m {
        let row = &mut out[i * n..(i + 1) * n];
        for p in 0..k {
            let scale = a.at(i, p);
            for (j, value) in row.iter_mut().enumerate() {
                *value += scale * b.at(p, j);
            }
        }
    }
}

pub fn binary(op: BinaryOp, a: &[f32], b: &[f32], out: &mut [f32]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = op.apply(x, y);
    }
}

pub fn binary_scalar(op: BinaryOp, values: &mut [f32], scalar: f32) {
    values.iter_mut().for_each(|x| *x = op.apply(*x, scalar));
}

pub fn unary_in_place(op: UnaryOp, values: &mut [f32]) {
    values.iter_mut().for_each(|x| *x = op.apply(*x));
}

pub fn sum(values: &[f32]) -> f32 {
    values.iter().sum()
}

pub fn max(values: &[f32]) -> f32 {
    values.iter().fold(f32::NEG_INFINITY, |acc, &x| if x.is_nan() || acc.is_nan() { f32::NAN } else { acc.max(x) })
}

pub fn sum_squared_deviation(values: &[f32], mean: f32) -> f32 {
    values.iter().map(|&x| (x - mean) * (x - mean)).sum()
}
