#![cfg(not(target_arch = "wasm32"))]
//! Gallery examples 06–09 against golden values from an independent float64 reference
//! (tests/golden/make_gallery_golden_a.py, numpy; not run in CI). Each notebook runs cell by cell
//! in one `Session`; then every probe expression listed in tests/golden/gallery_a.json is printed
//! in that session and compared with its expected value:
//!   numbers: |actual − expected| ≤ atol + rtol·|expected| element by element (the tolerances and
//!            the reason for them are next to each probe in the golden file: a few f32 ulp for the
//!            f32 examples, 4 roundings of 2⁻¹¹ (f16) or 2⁻⁸ (bf16) for the narrow ones);
//!   booleans, ints and index lists: equal.
//! A wrong kernel or a wrong registered gradient moves the probed values by far more than these
//! tolerances (the tutorial's GELU backward is off by up to 0.24, a missing β in Swish by ≥ 5e-2).

use std::path::Path;

use serde_json::Value;
use tilelab::session::{CellKind, Notebook, Session};

fn golden() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/gallery_a.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("golden file")).expect("golden JSON")
}

/// Runs every code cell of `examples/<name>` in a fresh session; a failing cell fails the test.
fn run_notebook(name: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name);
    let notebook = Notebook::from_py(&std::fs::read_to_string(&path).expect("example file")).expect("a notebook");
    let mut session = Session::new();
    let mut code_cells = 0;
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
        let result = session.run_cell(&cell.source);
        assert!(
            result.is_ok(),
            "{name}: the cell at line {} failed: {:?}\n{}",
            cell.first_line,
            result.error(),
            result.stdout
        );
        code_cells += 1;
    }
    assert!(code_cells >= 4, "{name}: only {code_cells} code cells");
    session
}

/// The printed value of `expression` as JSON (Python's `True`/`False` become JSON booleans).
fn printed(session: &mut Session, name: &str, expression: &str) -> Value {
    let result = session.run_cell(&format!("print({expression})"));
    assert!(result.is_ok(), "{name}: probe `{expression}` failed: {:?}", result.error());
    let text = result.stdout.trim().replace("True", "true").replace("False", "false");
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{name}: probe `{expression}` printed {text:.200}: {error}"))
}

/// Numbers in row-major order and the nested lengths (the shape) of a JSON value.
fn flatten(value: &Value, numbers: &mut Vec<f64>, shape: &mut Vec<usize>, depth: usize) {
    match value {
        Value::Array(items) => {
            if shape.len() == depth {
                shape.push(items.len());
            }
            for item in items {
                flatten(item, numbers, shape, depth + 1);
            }
        }
        Value::Number(number) => numbers.push(number.as_f64().expect("a finite number")),
        other => panic!("not a number: {other}"),
    }
}

fn contains_floats(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(contains_floats),
        Value::Number(number) => number.is_f64(),
        _ => false,
    }
}

fn check_probe(session: &mut Session, name: &str, probe: &Value) {
    let expression = probe["expr"].as_str().expect("expr");
    let expected = &probe["expected"];
    let actual = printed(session, name, expression);
    if !contains_floats(expected) {
        assert_eq!(&actual, expected, "{name}: `{expression}` ({})", probe["why"]);
        return;
    }
    let (rtol, atol) = (probe["rtol"].as_f64().expect("rtol"), probe["atol"].as_f64().expect("atol"));
    let (mut want, mut want_shape, mut got, mut got_shape) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    flatten(expected, &mut want, &mut want_shape, 0);
    flatten(&actual, &mut got, &mut got_shape, 0);
    assert_eq!(got_shape, want_shape, "{name}: `{expression}` shape");
    let mut worst: Option<(usize, f64, f64, f64)> = None;
    for (index, (&a, &e)) in got.iter().zip(&want).enumerate() {
        // numpy's allclose: |a − e| ≤ atol + rtol·|e|; keep the element furthest past its bound.
        let excess = (a - e).abs() - (atol + rtol * e.abs());
        if excess > 0.0 && worst.is_none_or(|(_, _, _, largest)| excess > largest) {
            worst = Some((index, a, e, excess));
        }
    }
    if let Some((index, a, e, _)) = worst {
        panic!(
            "{name}: `{expression}` element {index}: {a} vs golden {e} (rtol {rtol}, atol {atol}; {})",
            probe["why"]
        );
    }
}

fn check_example(name: &str) {
    let golden = golden();
    let probes = golden["examples"][name].as_array().unwrap_or_else(|| panic!("no probes for {name}"));
    assert!(!probes.is_empty());
    let mut session = run_notebook(name);
    for probe in probes {
        check_probe(&mut session, name, probe);
    }
}

#[test]
fn gelu_with_the_tutorial_backward_fails_where_expected_and_the_right_one_matches_the_golden() {
    check_example("06_gelu_registered_gradient.py");
}

#[test]
fn layer_norm_kernel_and_registered_backward_match_the_golden() {
    check_example("07_layernorm_register_gradient.py");
}

#[test]
fn swish_recompute_matches_the_golden_in_f32_f16_and_bf16_and_holds_half_the_bytes() {
    check_example("08_swish_recompute.py");
}

#[test]
fn group_norm_jit_backward_matches_the_golden() {
    check_example("09_groupnorm_jit_backward.py");
}

#[test]
fn a_probe_outside_its_tolerance_fails() {
    // The comparison itself must be able to fail: 1.0 against 1.1 with rtol 1e-5, atol 1e-6.
    let mut session = Session::new();
    let probe = serde_json::json!({"expr": "[1.0, 2.0]", "expected": [1.1, 2.0], "rtol": 1e-5, "atol": 1e-6, "why": "self-test"});
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_probe(&mut session, "self-test", &probe)));
    assert!(outcome.is_err());
    let within = serde_json::json!({"expr": "[1.0, 2.0]", "expected": [1.000001, 2.0], "rtol": 1e-5, "atol": 1e-6, "why": "self-test"});
    check_probe(&mut session, "self-test", &within);
}

#[test]
fn a_layer_whose_buffers_drop_the_f64_copy_to_f32_fails_the_check_instead_of_verifying_nothing() {
    // Example 09's layer, but with its intermediate buffers in the default f32: the numerical side's
    // f64 copy is rounded to f32 inside, central differences turn into rounding noise and every
    // projection looks like a kink. Nothing is verified, so the check must not pass.
    let mut session = run_notebook("09_groupnorm_jit_backward.py");
    let setup = "@pt.kernel
def group_norm_f32(x, gamma, beta):
    y = pt.zeros(x.shape)
    mean = pt.zeros([N, G, 1])
    rstd = pt.zeros([N, G, 1])
    group_norm_forward(x, pt.reshape(gamma, [1, C, 1]), pt.reshape(beta, [1, C, 1]), y, mean, rstd)
    pt.save_for_backward(mean, rstd)
    return y

@pt.register_gradient('group_norm_f32')
def group_norm_f32_gradient(dy, saved, ctx):
    return group_norm_gradient(dy, saved, ctx)

lossy = pt.autodiff.check_gradient(group_norm_f32, [x, gamma, beta])
print(lossy.passed, lossy.non_differentiable > 0, len(lossy.worst))";
    let result = session.run_cell(setup);
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "False True 0\n");
    let shown = session.run_cell("lossy");
    let text = tilelab::session::display_text(&shown.displays[0]);
    assert!(text.starts_with("Gradient check: FAILED") && text.contains("nothing was verified"), "{text}");
}
