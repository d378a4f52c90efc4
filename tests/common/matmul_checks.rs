//! Checks of matmul and of tensor creation against the f64 reference.

use tilelab::tensor::{DType, Tensor};

use super::reference;
use super::{assert_close, assert_exact, narrow_slack, random_tensor, round_to, Inputs, ALL_DTYPES};

/// 2-D sizes (m, k, n): odd sizes that are not multiples of any vector width or block (some larger
/// than a cache block), single rows and columns, and empty dims (k = 0 gives zeros).
pub const MATMUL_SIZES: [(usize, usize, usize); 13] = [
    (1, 1, 1),
    (3, 5, 7),
    (17, 13, 19),
    (33, 31, 29),
    (64, 1, 65),
    (1, 70, 1),
    (9, 16, 8),
    (5, 67, 3),
    (67, 129, 33),
    (130, 70, 65),
    (0, 3, 4),
    (3, 0, 4),
    (5, 4, 0),
];

/// The stored shape of an operand whose oriented matrix is rows × cols.
fn stored(rows: usize, cols: usize, transposed: bool) -> Vec<usize> {
    if transposed {
        vec![cols, rows]
    } else {
        vec![rows, cols]
    }
}

/// Runs one matmul and compares it with the reference. Error bound of a dot product of length k
/// accumulated in precision ε: |error| ≤ (k+2)·ε·Σ_p |a_ip·b_pj| (γ_k of Higham's analysis, with room
/// for any summation order, e.g. split over vector lanes or k-blocks), plus one ulp of a narrow output.
pub fn check_matmul(
    inputs: &mut Inputs,
    a_shape: &[usize],
    b_shape: &[usize],
    a_trans: bool,
    b_trans: bool,
    dtypes: (DType, DType, Option<DType>),
) {
    let (a_dtype, b_dtype, out_dtype) = dtypes;
    let (a, a_values) = random_tensor(inputs, a_shape, -2.0, 2.0, a_dtype);
    let (b, b_values) = random_tensor(inputs, b_shape, -2.0, 2.0, b_dtype);
    let context = format!(
        "matmul {a_shape:?}·{a_dtype} (trans {a_trans}) @ {b_shape:?}·{b_dtype} (trans {b_trans}) → {out_dtype:?}"
    );
    let got = a.matmul(&b, a_trans, b_trans, out_dtype).unwrap_or_else(|error| panic!("{context}: {error}"));
    let (shape, exact, scale) = reference::matmul(&a_values, a_shape, &b_values, b_shape, a_trans, b_trans);
    let result_dtype = out_dtype.unwrap_or(if a_dtype == b_dtype {
        a_dtype
    } else if a_dtype == DType::F64 || b_dtype == DType::F64 {
        DType::F64
    } else {
        DType::F32
    });
    assert_eq!((got.shape(), got.dtype()), (&shape[..], result_dtype), "{context}");
    let any_f64 = [a_dtype, b_dtype, result_dtype].contains(&DType::F64);
    let epsilon = if any_f64 { f64::EPSILON } else { f32::EPSILON as f64 };
    let k = if a_trans { a_shape[a_shape.len() - 2] } else { a_shape[a_shape.len() - 1] } as f64;
    let expected: Vec<f64> = exact.iter().map(|&e| round_to(result_dtype, e)).collect();
    assert_close(&context, &got.to_f64_vec(), &expected, |i, e| {
        (k + 2.0) * epsilon * scale[i] + narrow_slack(result_dtype, e)
    });
}

/// 2-D matmul of every size with every transpose combination in f32, and a few sizes in the other
/// dtype combinations (narrow inputs, an f32 output from bf16, a bf16 output from f32, f64).
pub fn matmul_2d() {
    let mut inputs = Inputs::new(21);
    for (m, k, n) in MATMUL_SIZES {
        for (a_trans, b_trans) in [(false, false), (true, false), (false, true), (true, true)] {
            check_matmul(
                &mut inputs,
                &stored(m, k, a_trans),
                &stored(k, n, b_trans),
                a_trans,
                b_trans,
                (DType::F32, DType::F32, None),
            );
        }
    }
    let combos = [
        (DType::F16, DType::F16, None),
        (DType::Bf16, DType::Bf16, None),
        (DType::Bf16, DType::Bf16, Some(DType::F32)),
        (DType::F32, DType::F32, Some(DType::Bf16)),
        (DType::F32, DType::F32, Some(DType::F16)),
        (DType::Bf16, DType::F16, None),
        (DType::F64, DType::F64, None),
        (DType::F32, DType::F64, None),
        (DType::F16, DType::F16, Some(DType::F64)),
    ];
    for dtypes in combos {
        for (m, k, n) in [(3, 5, 7), (17, 13, 19), (0, 3, 2), (4, 0, 2)] {
            check_matmul(&mut inputs, &[m, k], &[k, n], false, false, dtypes);
            check_matmul(&mut inputs, &[k, m], &[n, k], true, true, dtypes);
        }
    }
}

/// Batched matmul: equal batch dims, broadcast batch dims of size 1, a missing leading batch dim,
/// a 2-D operand against a batch, with transposes.
pub fn matmul_batched() {
    let mut inputs = Inputs::new(22);
    let cases: [(&[usize], &[usize], bool, bool); 7] = [
        (&[4, 3, 5], &[4, 5, 2], false, false),
        (&[2, 1, 3, 4], &[5, 4, 2], false, false),
        (&[3, 4], &[2, 4, 5], false, false),
        (&[2, 3, 7, 5], &[5, 6], false, false),
        (&[2, 1, 5, 3], &[1, 4, 6, 5], true, true),
        (&[3, 9, 17], &[1, 9, 11], true, false),
        (&[1, 0, 3], &[2, 3, 4], false, false),
    ];
    for (a_shape, b_shape, a_trans, b_trans) in cases {
        check_matmul(&mut inputs, a_shape, b_shape, a_trans, b_trans, (DType::F32, DType::F32, None));
        check_matmul(&mut inputs, a_shape, b_shape, a_trans, b_trans, (DType::Bf16, DType::Bf16, Some(DType::F32)));
    }
}

/// zeros/ones/full/scalar hold the value rounded to the dtype (0.1 in bf16 is 0.10009765625; 1e5
/// overflows f16 to ∞); shape, rank, numel and byte size follow the shape.
pub fn creation() {
    for dtype in ALL_DTYPES {
        for shape in [&[][..], &[0], &[2, 3], &[1, 1, 5]] {
            let count: usize = shape.iter().product();
            for (tensor, value) in [
                (Tensor::zeros(shape, dtype).unwrap(), 0.0),
                (Tensor::ones(shape, dtype).unwrap(), 1.0),
                (Tensor::full(shape, 0.1, dtype).unwrap(), 0.1),
                (Tensor::full(shape, -1e5, dtype).unwrap(), -1e5),
            ] {
                assert_eq!(
                    (tensor.shape(), tensor.rank(), tensor.numel(), tensor.dtype()),
                    (shape, shape.len(), count, dtype)
                );
                assert_eq!(tensor.size_in_bytes(), count * dtype.size_in_bytes());
                assert_exact(
                    &format!("full {shape:?} {value} {dtype}"),
                    &tensor.to_f64_vec(),
                    &vec![round_to(dtype, value); count],
                );
            }
        }
        let scalar = Tensor::scalar(-2.5, dtype);
        assert_eq!((scalar.shape(), scalar.item().unwrap()), (&[][..], -2.5));
    }
    assert_eq!(round_to(DType::Bf16, 0.1), 0.10009765625);
    assert_eq!(round_to(DType::F16, -1e5), f64::NEG_INFINITY);
}

/// arange(start, stop, step) = [start + i·step for i = 0, 1, … while the value is before stop],
/// each value rounded to the dtype (f16 spaces 2048..4096 by 2, so 2049 → 2048 and 2051 → 2052).
pub fn arange() {
    let cases = [
        (0.0, 1.0, 0.25),
        (5.0, 0.0, -2.0),
        (0.0, 10.0, 3.0),
        (-1.5, 1.5, 0.5),
        (3.0, 3.0, 1.0),
        (0.0, 5.0, -1.0),
        (2040.0, 2052.0, 1.0),
    ];
    for dtype in ALL_DTYPES {
        for (start, stop, step) in cases {
            let mut expected = Vec::new();
            let mut i = 0.0;
            while (step > 0.0 && start + i * step < stop) || (step < 0.0 && start + i * step > stop) {
                expected.push(round_to(dtype, start + i * step));
                i += 1.0;
            }
            let got = Tensor::arange(start, stop, step, dtype).unwrap();
            assert_eq!(got.shape(), &[expected.len()]);
            assert_exact(&format!("arange({start}, {stop}, {step}) {dtype}"), &got.to_f64_vec(), &expected);
        }
    }
}

/// Values from f64 and f32 data are rounded once, to nearest even, including f16 subnormals
/// (1e-6 → 17·2^-24), values that flush to zero (1e-8 < 2^-25) and overflow (65520 → ∞ in f16).
pub fn from_data() {
    // The last two lie just above the f16 and bf16 ties after 1: rounding once goes up, rounding
    // through f32 first would stop on the tie and go to even (down).
    let values = [
        0.1,
        -1.0 / 3.0,
        1e-6,
        1e-8,
        65519.0,
        65520.0,
        std::f64::consts::PI,
        -0.0,
        3.0e38,
        1.0 + 2f64.powi(-8),
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        1.0 + 2f64.powi(-8) + 2f64.powi(-40),
    ];
    for dtype in ALL_DTYPES {
        let tensor = Tensor::from_f64(values.to_vec(), &[2, 6], dtype).unwrap();
        let expected: Vec<f64> = values.iter().map(|&v| round_to(dtype, v)).collect();
        assert_exact(&format!("from_f64 {dtype}"), &tensor.to_f64_vec(), &expected);
        let singles: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        let tensor = Tensor::from_f32(singles.clone(), &[12], dtype).unwrap();
        let expected: Vec<f64> = singles.iter().map(|&v| round_to(dtype, v as f64)).collect();
        assert_exact(&format!("from_f32 {dtype}"), &tensor.to_f64_vec(), &expected);
        let array = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[6, 2]), values.to_vec()).unwrap();
        let tensor = Tensor::from_ndarray(&array, dtype).unwrap();
        assert_eq!(tensor.shape(), &[6, 2]);
        assert_exact(
            &format!("from_ndarray {dtype}"),
            &tensor.to_ndarray().iter().copied().collect::<Vec<_>>(),
            &values.iter().map(|&v| round_to(dtype, v)).collect::<Vec<_>>(),
        );
    }
    assert_eq!(round_to(DType::F16, 1e-6), 17.0 * 2f64.powi(-24));
    assert_eq!(round_to(DType::F16, 65519.0), 65504.0);
}
