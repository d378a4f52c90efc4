#![cfg(not(target_arch = "wasm32"))]
//! Gallery examples 10–13 run cell by cell through `Session`, then the probe expressions listed in
//! tests/golden/gallery_b.json are evaluated in the notebook's session and compared with the values
//! numpy computed independently (tests/golden/make_gallery_golden_b.py, float64 math, BF16/F16
//! rounding emulated): every element must satisfy |actual − expected| ≤ atol + rtol·|expected|.
//!
//! Every cell must run without an error, the schedule and sweep cells included, so the notebooks'
//! own assertions (on the tile schedules, the sweep table, the golden sums) are checked here too.

use std::path::Path;

use serde_json::Value as Json;
use tilelab::session::{CellKind, Notebook, Session};

fn golden() -> Json {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/gallery_b.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("golden file")).expect("golden JSON")
}

fn notebook_source(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name))
        .expect("example notebook")
}

/// Runs every code cell of `source` in `session`; panics on the first error.
fn run_notebook(session: &mut Session, name: &str, source: &str) {
    let notebook = Notebook::from_py(source).expect("notebook parses");
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
        let result = session.run_cell(&cell.source);
        // A kernel that cannot be recorded falls back to the CPU with this warning; the gallery's
        // kernels must run on the simulated NPU.
        if let Some(fallback) = result.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/cpu-fallback") {
            panic!("{name}: the cell at line {} fell back to the CPU: {}", cell.first_line, fallback.message);
        }
        if let Some(error) = result.error() {
            panic!(
                "{name}: the cell at line {} failed: {} ({})\nstdout:\n{}",
                cell.first_line, error.message, error.code, result.stdout
            );
        }
    }
}

/// The numbers `print(expr)` writes: a number or (nested) lists of numbers, flattened.
fn evaluate(session: &mut Session, expr: &str) -> Vec<f64> {
    let result = session.run_cell(&format!("print({expr})"));
    if let Some(error) = result.error() {
        panic!("probe `{expr}` failed: {}", error.message);
    }
    let text = result.stdout.replace(['[', ']', '(', ')'], " ");
    text.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| match item {
            "True" => 1.0,
            "False" => 0.0,
            other => other.parse::<f64>().unwrap_or_else(|_| panic!("probe `{expr}` printed a non-number: {other:?}")),
        })
        .collect()
}

/// Checks every probe of `probes` (a JSON list) against the session: |a − e| ≤ atol + rtol·|e|.
fn check_probes(session: &mut Session, name: &str, probes: &Json) -> usize {
    let probes = probes.as_array().expect("probes list");
    for probe in probes {
        let expr = probe["expr"].as_str().expect("expr");
        let expected: Vec<f64> = match &probe["expected"] {
            Json::Array(items) => items.iter().map(|item| item.as_f64().expect("number")).collect(),
            single => vec![single.as_f64().expect("number")],
        };
        let rtol = probe["rtol"].as_f64().expect("rtol");
        // atol: one number, or one per element (sums of BF16 partials, see the generator).
        let atol: Vec<f64> = match &probe["atol"] {
            Json::Array(items) => items.iter().map(|item| item.as_f64().expect("number")).collect(),
            single => vec![single.as_f64().expect("atol"); expected.len()],
        };
        assert_eq!(atol.len(), expected.len(), "{name}: `{expr}` atol list");
        let actual = evaluate(session, expr);
        assert_eq!(
            actual.len(),
            expected.len(),
            "{name}: `{expr}` gave {} numbers, the golden has {}",
            actual.len(),
            expected.len()
        );
        for (index, ((a, e), atol)) in actual.iter().zip(&expected).zip(&atol).enumerate() {
            let bound = atol + rtol * e.abs();
            assert!(
                (a - e).abs() <= bound,
                "{name}: `{expr}` [{index}] = {a}, golden {e} (|diff| {} > {bound}; {})",
                (a - e).abs(),
                probe["why"]
            );
        }
    }
    probes.len()
}

fn check_example(file: &str, section: &str, source: &str) {
    let golden = golden();
    let mut session = Session::new();
    run_notebook(&mut session, file, source);
    let case = &golden[section];
    assert!(check_probes(&mut session, file, &case["probes"]) > 0);
    if let Some(probes) = case.get("schedule_probes") {
        check_probes(&mut session, file, probes);
    }
}

/// SwiGLU backward with the M = 2200 (three and two ragged M tiles) but K = 64, N = 128,
/// so the debug build runs the matmuls in seconds; the golden "small" case uses the same sizes.
/// Math checked (numpy, f64 with the notebook's BF16 roundings): σ = 1/(1+e^−g),
/// dg = dh·fc·σ(1 + g(1 − σ)), dfc = dh·g·σ, db = Σ over M tiles of BF16(Σ_rows), dw = Σ over
/// M tiles of BF16(x_tᵀ·d_t), dx = BF16(dg·w_gᵀ) + BF16(dfc·w_fcᵀ); rtol 1/128, atol 1e-4 on
/// tile-border blocks (for dw and dx, sums of BF16 partials, the bound is 1e-4 + Σ|partial|/128:
/// the cube may round a partial one step the other way), rtol 2e-3 on the sums of squares of all
/// seven outputs. Every kernel runs on the simulated NPU (a CPU fallback fails the test).
#[test]
fn swiglu_backward_matches_the_golden_at_debug_size() {
    let source = notebook_source("10_swiglu_backward.py");
    let sizes = "M, K, N = 2200, 512, 1024";
    assert!(source.contains(sizes), "the notebook sets its sizes on one line");
    let small = source.replace(sizes, "M, K, N = 2200, 64, 128");
    let golden = golden();
    let mut session = Session::new();
    run_notebook(&mut session, "10_swiglu_backward.py (K=64, N=128)", &small);
    assert!(check_probes(&mut session, "10_swiglu_backward.py", &golden["swiglu_backward"]["small"]["probes"]) >= 20);
}

/// The full sizes (M = 2200, K = 512, N = 1024): about 3 s in a release build.
/// Run with `cargo test --release --test gallery -- --ignored`.
#[test]
#[ignore = "full-size SwiGLU is slow in a debug build"]
fn swiglu_backward_matches_the_golden_at_full_size() {
    let golden = golden();
    let mut session = Session::new();
    run_notebook(&mut session, "10_swiglu_backward.py", &notebook_source("10_swiglu_backward.py"));
    check_probes(&mut session, "10_swiglu_backward.py", &golden["swiglu_backward"]["full"]["probes"]);
}

/// sin(exp(x)) fused and in two kernels, its gradient cos(exp(x))·exp(x) (rtol 1e-5), the GM
/// bytes of the schedules (exactly 2 resp. 4 tensors of 64 KiB), stable log_softmax at ±1e4
/// (x − m − log Σ e^(x−m) in f64) and its gradient 1 − n·softmax.
#[test]
fn fusion_and_stability_matches_the_golden() {
    check_example("11_fusion_and_stability.py", "fusion_and_stability", &notebook_source("11_fusion_and_stability.py"));
}

/// Chain losses of 3 SGD steps with and without checkpointing against a hand-written f64
/// backward (rtol 1e-4), saved bytes n·6 KiB + 4 KiB vs (√n − 1)·2 KiB + 4 KiB (exact), the f32
/// losses (rtol 1e-4), and the f16 run: losses (rtol 1e-2) and skipped steps (exact) from numpy's
/// float16 emulation of the same steps.
#[test]
fn checkpoint_and_mixed_precision_match_the_golden() {
    check_example(
        "12_checkpoint_mixed_precision.py",
        "checkpoint_mixed_precision",
        &notebook_source("12_checkpoint_mixed_precision.py"),
    );
}

/// Row softmax e^(x−m)/Σ e^(x−m) in f64 (rtol 1e-5); the sweep's own assertions run in the
/// notebook once the lowering can schedule the kernel.
#[test]
fn softmax_tile_sweep_matches_the_golden() {
    check_example("13_softmax_tile_sweep.py", "softmax_tile_sweep", &notebook_source("13_softmax_tile_sweep.py"));
}

/// The probe checker itself rejects a wrong value (so a wrong kernel cannot pass unnoticed).
#[test]
#[should_panic(expected = "golden")]
fn a_drifted_value_fails_the_probe_check() {
    let mut session = Session::new();
    session.run_cell("value = 1.01");
    let probes: Json =
        serde_json::json!([{ "expr": "value", "expected": 1.0, "rtol": 1e-3, "atol": 0.0, "why": "test" }]);
    check_probes(&mut session, "inline", &probes);
}
