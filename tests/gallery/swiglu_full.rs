#![cfg(not(target_arch = "wasm32"))]
//! Example 10 at its full size (M = 2200, K = 512, N = 1024): every element of dw_g, dw_fc and dx
//! against an f64 reference computed here from the notebook's own BF16 inputs (x, w_g, w_fc) and
//! kernel b's BF16 outputs (dg, dfc), with the per-element bound derived in
//! tests/golden/swiglu_bound.py for any FP32 summation order:
//!   dw = BF16(Σ_t BF16(P_t)), P_t = Σ_{m in M tile t} x[m,k]·d[m,n] (tiles of 2048 rows);
//!   dx = BF16(BF16(Q_g) + BF16(Q_fc)), Q = Σ_n d[m,n]·w[k,n];
//!   |TileLab − reference| ≤ Σ_t [γ_L·S_t + 2⁻⁷(|P_t| + γ_L·S_t) + 2⁻²⁴|P_t|] + (2⁻⁷ + 2⁻²³)(|ref| + D)
//! with S_t = Σ|terms| (products of BF16 values are exact in FP32), γ_L = L·2⁻²⁴/(1 − L·2⁻²⁴) the
//! FP32 reduction error over L terms, 2⁻⁷|y| the largest BF16 step at y, D the sum before the last
//! rounding. The reference rounds like the golden script (f64 → f32 → BF16, round to nearest even).
//! Set TILELAB_SWIGLU_DUMP=DIR to also write the three outputs as raw f32 for swiglu_bound.py.

use std::path::Path;

use tilelab::session::{CellKind, Notebook, Session};

const U32: f64 = 1.0 / 16_777_216.0;
const STEP: f64 = 1.0 / 128.0;

fn gamma(length: usize) -> f64 {
    let n = length as f64 * U32;
    n / (1.0 - n)
}

/// f64 → f32 → BF16 (round to nearest even on the upper 16 bits), as the golden script rounds.
fn bf16(value: f64) -> f64 {
    let bits = (value as f32).to_bits();
    let rounded = (bits.wrapping_add(0x7fff + ((bits >> 16) & 1))) & 0xffff_0000;
    f64::from(f32::from_bits(rounded))
}

/// One output: (reference, bound) per element from its partials (value, Σ|terms|, terms per sum).
fn reference(partials: &[(Vec<f64>, Vec<f64>, usize)]) -> (Vec<f64>, Vec<f64>) {
    let count = partials[0].0.len();
    let (mut total, mut moved) = (vec![0.0; count], vec![0.0; count]);
    for (index, (values, magnitudes, length)) in partials.iter().enumerate() {
        for element in 0..count {
            let (partial, reduction) = (values[element], gamma(*length) * magnitudes[element]);
            total[element] = bf16(total[element] + bf16(partial));
            moved[element] += reduction + STEP * (partial.abs() + reduction) + U32 * partial.abs();
            if index > 0 {
                moved[element] += (STEP + 2.0 * U32) * (total[element].abs() + moved[element]);
            }
        }
    }
    (total, moved)
}

/// Elements outside their bound: (index, actual, reference, bound).
fn outside(actual: &[f64], wanted: &[f64], bound: &[f64]) -> Vec<(usize, f64, f64, f64)> {
    (0..actual.len())
        .filter(|&i| {
            let error = (actual[i] - wanted[i]).abs();
            error > bound[i] || error.is_nan()
        })
        .map(|i| (i, actual[i], wanted[i], bound[i]))
        .collect()
}

/// Σ_{rows} a[m, i]·b[m, j] (a: rows×I, b: rows×J, row-major) and Σ|…|, as I×J.
fn transposed_product(
    a: &[f64],
    b: &[f64],
    rows: std::ops::Range<usize>,
    width_a: usize,
    width_b: usize,
) -> (Vec<f64>, Vec<f64>) {
    let (mut sum, mut magnitude) = (vec![0.0; width_a * width_b], vec![0.0; width_a * width_b]);
    for m in rows {
        let b_row = &b[m * width_b..(m + 1) * width_b];
        for i in 0..width_a {
            let value = a[m * width_a + i];
            let (sum_row, magnitude_row) =
                (&mut sum[i * width_b..(i + 1) * width_b], &mut magnitude[i * width_b..(i + 1) * width_b]);
            for j in 0..width_b {
                let term = value * b_row[j];
                sum_row[j] += term;
                magnitude_row[j] += term.abs();
            }
        }
    }
    (sum, magnitude)
}

/// Σ_n a[m, n]·w[k, n] (a: rows×N, w: K×N) and Σ|…|, as rows×K.
fn product_with_transpose(a: &[f64], w: &[f64], rows: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut sum, mut magnitude) = (vec![0.0; rows * k], vec![0.0; rows * k]);
    for m in 0..rows {
        let a_row = &a[m * n..(m + 1) * n];
        for c in 0..k {
            let w_row = &w[c * n..(c + 1) * n];
            let (mut total, mut size) = (0.0, 0.0);
            for j in 0..n {
                let term = a_row[j] * w_row[j];
                total += term;
                size += term.abs();
            }
            sum[m * k + c] = total;
            magnitude[m * k + c] = size;
        }
    }
    (sum, magnitude)
}

#[test]
fn every_element_of_dw_and_dx_is_within_the_proved_bound_at_full_size() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("examples/10_swiglu_backward.py")).expect("example 10");
    assert!(source.contains("M, K, N = 2200, 512, 1024"), "the notebook's full size");
    let (m, k, n, tile) = (2200, 512, 1024, 2048);
    let notebook = Notebook::from_py(&source).expect("a notebook");
    let mut session = Session::new();
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
        let result = session.run_cell(&cell.source);
        assert!(result.is_ok(), "{:?}", result.error());
    }
    let read = |name: &str| session.tensor(name).unwrap_or_else(|| panic!("no tensor {name}")).to_f64_vec();
    let (x, dg, dfc, w_g, w_fc) = (read("x"), read("dg"), read("dfc"), read("w_g"), read("w_fc"));
    let mut failures = Vec::new();
    for (name, d) in [("dw_g", &dg), ("dw_fc", &dfc)] {
        let partials: Vec<_> = (0..m)
            .step_by(tile)
            .map(|start| {
                let rows = start..(start + tile).min(m);
                let length = rows.len();
                let (sum, magnitude) = transposed_product(&x, d, rows, k, n);
                (sum, magnitude, length)
            })
            .collect();
        let (wanted, bound) = reference(&partials);
        let actual = read(name);
        dump(name, &actual);
        failures.extend(outside(&actual, &wanted, &bound).into_iter().take(5).map(|f| format!("{name} {f:?}")));
    }
    let (q_g, s_g) = product_with_transpose(&dg, &w_g, m, k, n);
    let (q_fc, s_fc) = product_with_transpose(&dfc, &w_fc, m, k, n);
    let (wanted, bound) = reference(&[(q_g, s_g, n), (q_fc, s_fc, n)]);
    let actual = read("dx");
    dump("dx", &actual);
    failures.extend(outside(&actual, &wanted, &bound).into_iter().take(5).map(|f| format!("dx {f:?}")));
    assert!(failures.is_empty(), "elements outside the proved bound:\n{}", failures.join("\n"));
    // The check itself: one element moved past its bound is caught.
    let mut wrong = actual.clone();
    wrong[12345] += 1.01 * bound[12345] + (actual[12345] - wanted[12345]).abs();
    assert_eq!(outside(&wrong, &wanted, &bound).len(), 1);
}

fn dump(name: &str, values: &[f64]) {
    let Some(directory) = std::env::var_os("TILELAB_SWIGLU_DUMP") else { return };
    std::fs::create_dir_all(&directory).expect("the dump directory");
    let bytes: Vec<u8> = values.iter().flat_map(|&value| (value as f32).to_le_bytes()).collect();
    std::fs::write(Path::new(&directory).join(format!("{name}.f32")), bytes).expect("write");
}
