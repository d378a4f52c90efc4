//! Agreement of the SIMD kernels with plain loops (and of the packed GEMM with a naive one).

use super::*;
use crate::tensor::Rng;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const SIZES: [usize; 7] = [0, 1, 3, 7, 17, 64, 129];

/// Guards the browser run: without `+simd128` (set in .cargo/config.toml) these tests would
/// compare the portable kernels with themselves.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test::wasm_bindgen_test]
#[allow(clippy::assertions_on_constants)] // the constant is the build configuration under test
fn wasm_builds_run_the_simd128_kernels() {
    assert!(USES_WASM_SIMD, "this wasm build lacks target-feature=+simd128");
}

fn random_values(rng: &mut Rng, count: usize) -> Vec<f32> {
    (0..count).map(|_| rng.normal() as f32).collect()
}

/// Same value, counting every NaN as equal and telling −0 from +0 apart.
pub(super) fn same(x: f32, y: f32) -> bool {
    (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
}

/// `op(a)` over a stored `rows × cols` row-major buffer, transposed when asked.
fn view<T>(data: &[T], rows: usize, cols: usize, transposed: bool) -> MatrixRef<'_, T> {
    if transposed {
        MatrixRef { data, rows: cols, cols: rows, row_stride: 1, col_stride: cols }
    } else {
        MatrixRef { data, rows, cols, row_stride: cols, col_stride: 1 }
    }
}

/// Checks `gemm` against the portable kernel (bit for bit: same order of operations) and
/// against Σₚ a(i,p)·b(p,j) in f64, within the f32 dot-product bound (k+2)·2⁻²³·Σₚ|a||b|.
fn check_gemm(a: MatrixRef<'_, f32>, b: MatrixRef<'_, f32>) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut fast = vec![f32::NAN; m * n];
    let mut plain = vec![f32::NAN; m * n];
    gemm(a, b, &mut fast);
    portable::gemm(a, b, &mut plain);
    for i in 0..m {
        for j in 0..n {
            let index = i * n + j;
            // The relaxed-simd build fuses multiply and add, so only the f64 bound applies there.
            if !cfg!(target_feature = "relaxed-simd") {
                assert!(
                    same(fast[index], plain[index]),
                    "({m},{k},{n}) at ({i},{j}): {} vs {}",
                    fast[index],
                    plain[index]
                );
            }
            let (exact, magnitude) = (0..k).fold((0.0f64, 0.0f64), |(sum, size), p| {
                let term = a.at(i, p) as f64 * b.at(p, j) as f64;
                (sum + term, size + term.abs())
            });
            let bound = (k as f64 + 2.0) * f32::EPSILON as f64 * magnitude + f64::from(f32::MIN_POSITIVE);
            assert!(
                (fast[index] as f64 - exact).abs() <= bound,
                "({m},{k},{n}) at ({i},{j}): {} vs {exact}",
                fast[index]
            );
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn gemm_agrees_on_edge_sizes_and_transposes() {
    let mut rng = Rng::new(7);
    for (x, &m) in SIZES.iter().enumerate() {
        for (y, &k) in SIZES.iter().enumerate() {
            for (z, &n) in SIZES.iter().enumerate() {
                // Every size triple, with the four transpose patterns spread over them.
                let pattern = (x + y + z) % 4;
                let (a_trans, b_trans) = (pattern & 1 == 1, pattern & 2 == 2);
                let a_data = random_values(&mut rng, m * k);
                let b_data = random_values(&mut rng, k * n);
                let a = if a_trans { view(&a_data, k, m, true) } else { view(&a_data, m, k, false) };
                let b = if b_trans { view(&b_data, n, k, true) } else { view(&b_data, k, n, false) };
                check_gemm(a, b);
            }
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn gemm_crosses_every_cache_block() {
    // k > KC, m > MC and n > NC: several K blocks summed into the output, several M and N
    // blocks, ragged last blocks; A is a strided window (row stride 310 > k) of a bigger buffer.
    let mut rng = Rng::new(11);
    let (m, k, n) = (101, 301, 1030);
    let a_data = random_values(&mut rng, m * 310);
    let a = MatrixRef { data: &a_data[..], rows: m, cols: k, row_stride: 310, col_stride: 1 };
    let b_data = random_values(&mut rng, k * n);
    check_gemm(a, view(&b_data, n, k, true));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn gemm_with_empty_inner_dim_writes_zeros() {
    // k = 0: every output is an empty sum, 0, whatever the buffer held before.
    let mut out = vec![f32::NAN; 6];
    gemm(view::<f32>(&[], 2, 0, false), view::<f32>(&[], 0, 3, false), &mut out);
    assert_eq!(out, [0.0; 6]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn narrow_operands_widen_exactly_while_packing() {
    // Every bf16 and f16 value is an f32 value, so the GEMM of bf16/f16 operands must equal,
    // bit for bit, the GEMM of the same values first widened to f32 (same order of operations);
    // the f32 GEMM itself is checked against f64 by `check_gemm`. Sizes cross the K and M blocks.
    use half::{bf16, f16};
    let mut rng = Rng::new(17);
    let (m, k, n) = (37, 300, 45);
    let a_wide: Vec<f32> = random_values(&mut rng, m * k);
    let b_wide: Vec<f32> = random_values(&mut rng, k * n);
    let a_bf16: Vec<bf16> = a_wide.iter().map(|&x| bf16::from_f32(x)).collect();
    let b_f16: Vec<f16> = b_wide.iter().map(|&x| f16::from_f32(x)).collect();
    let a_rounded: Vec<f32> = a_bf16.iter().map(|x| x.to_f32()).collect();
    let b_rounded: Vec<f32> = b_f16.iter().map(|x| x.to_f32()).collect();
    for (a_trans, b_trans) in [(false, false), (true, true)] {
        let (a_rows, a_cols) = if a_trans { (k, m) } else { (m, k) };
        let (b_rows, b_cols) = if b_trans { (n, k) } else { (k, n) };
        let mut narrow = vec![f32::NAN; m * n];
        let mut wide = vec![f32::NAN; m * n];
        gemm(view(&a_bf16, a_rows, a_cols, a_trans), view(&b_f16, b_rows, b_cols, b_trans), &mut narrow);
        gemm(view(&a_rounded, a_rows, a_cols, a_trans), view(&b_rounded, b_rows, b_cols, b_trans), &mut wide);
        assert!(narrow.iter().zip(&wide).all(|(x, y)| same(*x, *y)), "transposed {a_trans}/{b_trans}");
        check_gemm(view(&a_rounded, a_rows, a_cols, a_trans), view(&b_rounded, b_rows, b_cols, b_trans));
    }
}

/// Values that exercise the special cases: NaN, ±∞, ±0, and ordinary normals.
pub(super) fn special_values(rng: &mut Rng, count: usize) -> Vec<f32> {
    let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -2.5];
    (0..count)
        .map(
            |i| {
                if i % 5 == 2 {
                    specials[(rng.next_u64() % specials.len() as u64) as usize]
                } else {
                    rng.normal() as f32
                }
            },
        )
        .collect()
}

/// `op(x, y)` computed in f64 and rounded once: exact for + − × ÷ (f64 has > 2·24 + 2 bits).
fn binary_reference(op: BinaryOp, x: f32, y: f32) -> f32 {
    let (x, y) = (x as f64, y as f64);
    let pick = |larger: bool| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if (x > y) == larger {
            x
        } else {
            y
        }
    };
    (match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Pow => x.powf(y),
        BinaryOp::Maximum => pick(true),
        BinaryOp::Minimum => pick(false),
        // Not vectorised: the portable kernel applies BinaryOp::apply itself, checked here in f64.
        BinaryOp::FloorDivide => return op.apply(x as f32, y as f32),
        BinaryOp::Remainder => return op.apply(x as f32, y as f32),
    }) as f32
}

pub(super) const BINARY_OPS: [BinaryOp; 9] = BinaryOp::ALL;
const LENGTHS: [usize; 9] = [0, 1, 3, 4, 5, 16, 17, 64, 131];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn binary_ops_agree_with_portable_and_f64() {
    let mut rng = Rng::new(3);
    for op in BINARY_OPS {
        for len in LENGTHS {
            let (a, b) = (special_values(&mut rng, len), special_values(&mut rng, len));
            let (mut fast, mut plain) = (vec![0.0; len], vec![0.0; len]);
            binary(op, &a, &b, &mut fast);
            portable::binary(op, &a, &b, &mut plain);
            let scalar = b.first().copied().unwrap_or(1.5);
            let mut fast_scalar = a.clone();
            binary_scalar(op, &mut fast_scalar, scalar);
            // Maximum/Minimum of −0 and +0 may give either zero: f32x4.max prefers +0 while
            // f32::max leaves the choice to the platform. Every other result is bit-exact.
            let agree = |x: f32, y: f32| same(x, y) || (matches!(op, BinaryOp::Maximum | BinaryOp::Minimum) && x == y);
            for i in 0..len {
                assert!(agree(fast[i], plain[i]), "{op:?}({}, {}): {} vs {}", a[i], b[i], fast[i], plain[i]);
                assert!(agree(fast_scalar[i], op.apply(a[i], scalar)), "{op:?}({}, {scalar})", a[i]);
                if op != BinaryOp::Pow {
                    let expected = binary_reference(op, a[i], b[i]);
                    assert!(agree(fast[i], expected), "{op:?}({}, {}) = {}, want {expected}", a[i], b[i], fast[i]);
                }
            }
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn binary_to_vec_matches_the_in_place_kernel() {
    // Same bits as `binary` (itself checked against f64 above) for every op, NaN, ±∞ and ±0
    // included, and the output has the length of the shorter input.
    let mut rng = Rng::new(19);
    for op in BINARY_OPS {
        for len in LENGTHS {
            let (a, b) = (special_values(&mut rng, len), special_values(&mut rng, len));
            let mut expected = vec![0.0; len];
            binary(op, &a, &b, &mut expected);
            let got = binary_to_vec(op, &a, &b);
            assert_eq!(got.len(), len);
            assert!(got.iter().zip(&expected).all(|(x, y)| same(*x, *y)), "{op:?} of {len}");
        }
    }
    assert_eq!(binary_to_vec(BinaryOp::Add, &[1.0, 2.0, 3.0], &[10.0, 20.0]), vec![11.0, 22.0]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn maximum_and_minimum_propagate_nan_from_either_side() {
    let a = [f32::NAN, 1.0, f32::NAN, 2.0, 5.0];
    let b = [1.0, f32::NAN, f32::NAN, 3.0, f32::NAN];
    for op in [BinaryOp::Maximum, BinaryOp::Minimum] {
        let mut out = [0.0; 5];
        binary(op, &a, &b, &mut out);
        assert!(out[0].is_nan() && out[1].is_nan() && out[2].is_nan() && out[4].is_nan(), "{op:?}: {out:?}");
        assert_eq!(out[3], if op == BinaryOp::Maximum { 3.0 } else { 2.0 });
        let mut values = [1.0, 2.0, 3.0, 4.0, 5.0];
        binary_scalar(op, &mut values, f32::NAN);
        assert!(values.iter().all(|x| x.is_nan()), "{op:?} with NaN scalar: {values:?}");
    }
}

/// The vectorised unary ops against f64 math rounded to f32 (each op's own roundings).
fn unary_reference(op: UnaryOp, x: f32) -> Option<f32> {
    let wide = x as f64;
    Some(match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => f32::from_bits(x.to_bits() & 0x7fff_ffff),
        UnaryOp::Sqrt => wide.sqrt() as f32,
        UnaryOp::Reciprocal => (1.0 / wide) as f32,
        UnaryOp::Rsqrt => (1.0 / (wide.sqrt() as f32 as f64)) as f32,
        UnaryOp::Relu => {
            if x.is_nan() || x > 0.0 {
                x
            } else {
                0.0
            }
        }
        _ => return None,
    })
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn unary_ops_agree_with_portable_and_f64() {
    let mut rng = Rng::new(5);
    for op in UnaryOp::ALL {
        for len in LENGTHS {
            let input = special_values(&mut rng, len);
            let (mut fast, mut plain) = (input.clone(), input.clone());
            unary_in_place(op, &mut fast);
            portable::unary_in_place(op, &mut plain);
            for i in 0..len {
                // The vector exp family may differ from the platform's libm by its bound + 1.
                let agree = same(fast[i], plain[i]) || within_ulp(op, input[i], fast[i], plain[i], ulp_bound(op) + 1);
                assert!(agree, "{op:?}({}): {} vs {}", input[i], fast[i], plain[i]);
                if let Some(expected) = unary_reference(op, input[i]) {
                    assert!(same(fast[i], expected), "{op:?}({}) = {}, want {expected}", input[i], fast[i]);
                }
            }
        }
    }
}

/// The error bound, in ulp of the f32 result, of the vector forms of the exp family.
fn ulp_bound(op: UnaryOp) -> u64 {
    match op {
        UnaryOp::Exp => 1,
        UnaryOp::Sigmoid => 2,
        UnaryOp::Silu => 3,
        _ => 0,
    }
}

/// Position of `x` on the number line of f32 values (adjacent floats differ by 1; ±0 → 0).
fn ordinal(x: f32) -> i64 {
    let magnitude = i64::from(x.to_bits() & 0x7fff_ffff);
    magnitude * if x.is_sign_negative() { -1 } else { 1 }
}

/// `value` is within `bound` ulp of `reference` (NaN only matches NaN). For silu, x·σ(x) with a
/// subnormal σ(x) (x < −87) inherits σ's absolute error, ~2⁻¹⁴⁹ per ulp, scaled by |x|.
fn within_ulp(op: UnaryOp, x: f32, value: f32, reference: f32, bound: u64) -> bool {
    if value.is_nan() || reference.is_nan() {
        return value.is_nan() && reference.is_nan();
    }
    if value.is_infinite() || reference.is_infinite() {
        return value == reference;
    }
    let slack = if op == UnaryOp::Silu { f64::from(x).abs() * bound as f64 * 2f64.powi(-149) } else { 0.0 };
    ordinal(value).abs_diff(ordinal(reference)) <= bound || (f64::from(value) - f64::from(reference)).abs() <= slack
}

/// Exp, sigmoid and silu against f64 math over their whole range (overflow, underflow to
/// subnormals and 0, ±∞, NaN): within 1, 2 and 3 ulp of the correctly rounded value.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn exp_family_within_stated_ulp_of_f64() {
    let exact_sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut rng = Rng::new(13);
    let mut input: Vec<f32> = (0..20_000).map(|i| -110.0 + i as f32 * 0.0103).collect();
    input.extend((0..2_000).map(|_| (rng.normal() * 3.0) as f32));
    input.extend([
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        88.72283,
        88.72284,
        -87.33655,
        -103.97,
        1e-30,
        -1e-30,
    ]);
    for op in [UnaryOp::Exp, UnaryOp::Sigmoid, UnaryOp::Silu] {
        let mut values = input.clone();
        unary_in_place(op, &mut values);
        for (&x, &value) in input.iter().zip(&values) {
            let wide = f64::from(x);
            let exact = match op {
                UnaryOp::Exp => wide.exp(),
                UnaryOp::Sigmoid => exact_sigmoid(wide),
                _ => wide * exact_sigmoid(wide),
            };
            assert!(
                within_ulp(op, x, value, exact as f32, ulp_bound(op)),
                "{op:?}({x:e}) = {value:e}, want {:e}",
                exact as f32
            );
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn reductions_agree_with_portable_and_f64() {
    let mut rng = Rng::new(9);
    for len in LENGTHS.into_iter().chain([1000, 4099]) {
        let values: Vec<f32> = (0..len).map(|_| (rng.normal() * 10.0) as f32).collect();
        let mean = 0.75f32;
        // Σx and Σ(x−μ)² in f64; an f32 sum of n terms is within (n+4)·2⁻²³·Σ|terms|.
        let exact_sum: f64 = values.iter().map(|&x| x as f64).sum();
        let abs_sum: f64 = values.iter().map(|&x| (x as f64).abs()).sum();
        let exact_deviation: f64 = values.iter().map(|&x| ((x - mean) as f64).powi(2)).sum();
        let bound = (len as f64 + 4.0) * f32::EPSILON as f64;
        let (fast_sum, fast_deviation) = (sum(&values), sum_squared_deviation(&values, mean));
        assert!(same(fast_sum, portable::sum(&values)), "sum of {len}");
        assert!(same(fast_deviation, portable::sum_squared_deviation(&values, mean)), "deviation of {len}");
        assert!((fast_sum as f64 - exact_sum).abs() <= bound * abs_sum, "sum of {len}: {fast_sum} vs {exact_sum}");
        assert!((fast_deviation as f64 - exact_deviation).abs() <= bound * exact_deviation, "deviation of {len}");
        let largest = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(max(&values), largest, "max of {len}");
        assert_eq!(portable::max(&values), largest, "portable max of {len}");
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn reductions_of_empty_slices_and_nan() {
    assert_eq!(sum(&[]), 0.0);
    assert_eq!(sum_squared_deviation(&[], 1.0), 0.0);
    assert_eq!(max(&[]), f32::NEG_INFINITY);
    // A NaN anywhere — in a full 16-value chunk or in the tail — makes max NaN.
    for len in [1, 5, 16, 17, 40] {
        for position in [0, len / 2, len - 1] {
            let mut values = vec![1.0f32; len];
            values[position] = f32::NAN;
            assert!(max(&values).is_nan(), "NaN at {position} of {len}");
            assert!(portable::max(&values).is_nan(), "portable: NaN at {position} of {len}");
            assert!(sum(&values).is_nan(), "sum with NaN at {position} of {len}");
        }
    }
}
