//! The `tilelab` binary: the examples run clean, errors print `FILE:LINE:COL: error: message` with
//! the source line and a caret and exit with 1, `--json` prints one object per cell, `--npu` checks
//! the preset, `--version` prints the version.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tilelab(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilelab")).args(arguments).output().expect("the binary runs")
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name).to_string_lossy().into_owned()
}

fn temporary(name: &str, text: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("tilelab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("temp dir");
    let path = directory.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn every_example_runs_clean() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut count = 0;
    for entry in std::fs::read_dir(directory).expect("examples") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|ext| ext == "py") {
            let output = tilelab(&["run", &path.to_string_lossy()]);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{} failed:\n{stderr}", path.display());
            assert!(!stderr.contains("error"), "{}: {stderr}", path.display());
            count += 1;
        }
    }
    assert!(count >= 3);
}

#[test]
fn tensor_basics_prints_its_values() {
    let output = tilelab(&["run", &example("01_tensor_basics.py")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    // y = x·2 + 1 for x = [[1,2,3],[4,5,6]].
    assert!(stdout.contains("[[3.0, 5.0, 7.0], [9.0, 11.0, 13.0]]"), "{stdout}");
    assert!(stdout.contains("Tensor shape=[3, 4] dtype=DT_FP32"), "{stdout}");
}

#[test]
fn the_wrong_gradient_is_caught_and_the_right_one_passes() {
    let right = String::from_utf8_lossy(&tilelab(&["run", &example("02_swish_gradient.py")]).stdout).into_owned();
    assert!(right.contains("passed: True max abs err below 1e-4: True"), "{right}");
    assert!(right.contains("Gradient check: passed"), "{right}");
    let wrong =
        String::from_utf8_lossy(&tilelab(&["run", &example("03_wrong_gradient_caught.py")]).stdout).into_owned();
    assert!(wrong.contains("Gradient check: FAILED"), "{wrong}");
}

#[test]
fn a_runtime_error_is_rendered_at_its_file_line_and_exits_with_one() {
    let path = temporary(
        "broken.py",
        "# %%\nimport pypto as pt\n\n# %%\na = pt.ones([4, 3])\nb = pt.matmul(a, a)\nprint('never')\n",
    );
    let output = tilelab(&["run", &path.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected_head =
        format!("{}:6:5: error: matmul: shapes [4, 3] and [4, 3] do not match: inner dims 3 ≠ 4", path.display());
    assert!(stderr.starts_with(&expected_head), "{stderr}");
    assert!(stderr.contains("6 | b = pt.matmul(a, a)\n  |     ^^^^^^^^^^^^^^^"), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("never"));
}

#[test]
fn a_syntax_error_exits_with_one() {
    let path = temporary("syntax.py", "x = (1,\n");
    let output = tilelab(&["run", &path.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains(": error: "));
}

#[test]
fn json_prints_one_object_per_cell() {
    let output = tilelab(&["run", "--json", &example("02_swish_gradient.py")]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let cells: Vec<serde_json::Value> =
        stdout.lines().map(|line| serde_json::from_str(line).expect("one JSON object per line")).collect();
    assert_eq!(cells.len(), 3, "three code cells");
    assert!(cells.iter().all(|cell| cell["status"] == "ok"));
    assert_eq!(cells[1]["displays"][0]["kind"], "graph");
    assert_eq!(cells[2]["displays"][0]["kind"], "grad_check");
    assert_eq!(cells[1]["kernel_schedules"][0]["kernel"], "swish");
    // The session keeps a kernel's trace for the page to ask for; the CLI's JSON carries it.
    let trace = cells[1]["kernel_schedules"][0]["schedule"]["trace_json"].as_str().expect("trace JSON text");
    let trace: serde_json::Value = serde_json::from_str(trace).expect("Chrome trace JSON");
    assert!(trace["traceEvents"].as_array().is_some_and(|events| events.iter().any(|event| event["ph"] == "X")));
    assert!(cells[1].get("kernel_runs").is_none(), "no longer part of the result");
}

#[test]
fn ipynb_notebooks_run() {
    let notebook = r#"{"cells": [{"cell_type": "code", "metadata": {}, "source": ["x = 6\n", "print(x * 7)"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#;
    let path = temporary("small.ipynb", notebook);
    let output = tilelab(&["run", &path.to_string_lossy()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "42\n");
}

#[test]
fn npu_presets_are_checked() {
    assert!(tilelab(&["run", "--npu", "Ascend910B2", &example("01_tensor_basics.py")]).status.success());
    let bad = tilelab(&["run", "--npu", "Ascend999", &example("01_tensor_basics.py")]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown NPU preset"));
}

#[test]
fn version_and_usage() {
    let version = tilelab(&["--version"]);
    assert_eq!(String::from_utf8_lossy(&version.stdout).trim(), format!("tilelab {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(tilelab(&["run"]).status.code(), Some(2));
    assert_eq!(tilelab(&["frobnicate"]).status.code(), Some(2));
}
