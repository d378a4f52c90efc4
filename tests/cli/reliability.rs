//! The CLI on awkward files and options: invalid UTF-8 located, a BOM accepted, bare-CR line ends
//! read as lines, .ipynb locations naming the cell, `--timeout` ending a runaway notebook with a
//! located error, `--steps` setting the step budget, `--memory` the session's limits, and custom NPU presets from `--npu FILE.json` and `pypto.npu.use(dict)`.

use std::path::PathBuf;
use std::process::Command;

use tilelab::npu::NpuConfig;
use tilelab::session::Session;

/// A scratch file with `bytes`, unique per test.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("tilelab-cli-reliability-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("scratch directory");
    let path = directory.join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}

/// Runs `tilelab run ARGS…`; returns (exit code, stdout, stderr).
fn tilelab(arguments: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab")).arg("run").args(arguments).output().expect("run");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

#[test]
fn invalid_utf8_is_an_error_at_the_first_bad_byte() {
    let path = scratch("bad.py", b"x = 1\ny = \"\xff\"\n");
    let (code, _, stderr) = tilelab(&[path.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.starts_with(&format!("{}:2:6: error: the file is not valid UTF-8", path.display())), "{stderr}");
    assert!(stderr.contains("0xFF at offset 11"), "{stderr}");
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let path = scratch("bom.py", "\u{feff}print('with a BOM')\n".as_bytes());
    assert_eq!(tilelab(&[path.to_str().unwrap()]), (Some(0), "with a BOM\n".to_string(), String::new()));
}

#[test]
fn bare_carriage_returns_end_lines() {
    let path = scratch("cr.py", b"x = 1\rprint(x)\ry = (\r");
    let (code, stdout, stderr) = tilelab(&[path.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""), "{stderr}");
    assert!(stderr.starts_with(&format!("{}:3:", path.display())), "the error is on line 3: {stderr}");
    let path = scratch("crlf.py", b"x = 1\r\nprint(x + 1)\r\n");
    assert_eq!(tilelab(&[path.to_str().unwrap()]).1, "2\n");
}

#[test]
fn ipynb_locations_name_the_cell() {
    let notebook = r##"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "# title", "metadata": {}},
        {"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [], "execution_count": null},
        {"cell_type": "code", "source": ["y = 2\n", "z = x / 0\n"], "metadata": {}, "outputs": [], "execution_count": null}]}"##;
    let path = scratch("cells.ipynb", notebook.as_bytes());
    let (code, _, stderr) = tilelab(&[path.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(stderr.starts_with(&format!("{}[cell 3]:2:5: error:", path.display())), "{stderr}");
}

#[test]
fn timeout_ends_a_runaway_notebook_with_a_located_error() {
    let path = scratch("forever.py", b"print('start')\nn = 0\nwhile True:\n    n = n + 1\n");
    let (code, stdout, stderr) = tilelab(&["--timeout", "0.5", path.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (Some(1), "start\n"), "{stderr}");
    let located = format!("{}:", path.display());
    assert!(stderr.starts_with(&located) && stderr.contains("error: timeout"), "{stderr}");
    for bad in ["-1", "soon", "nan"] {
        let (code, _, stderr) = tilelab(&["--timeout", bad, path.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{bad}: {stderr}");
    }
}

/// `--steps N` sets each cell's step budget: a loop of 1000 iterations runs out of 100 steps with
/// the budget's error and runs with 0 (no limit) or the default.
#[test]
fn steps_sets_the_step_budget_of_each_cell() {
    let path = scratch(
        "loop.py",
        b"n = 0
for i in range(1000):
    n = n + i
print(n)
",
    );
    let (code, _, stderr) = tilelab(&["--steps", "100", path.to_str().unwrap()]);
    assert!(code == Some(1) && stderr.contains("step budget exceeded"), "{stderr}");
    for budget in [&["--steps", "0"][..], &[]] {
        let arguments: Vec<&str> = budget.iter().copied().chain([path.to_str().unwrap()]).collect();
        let (code, stdout, stderr) = tilelab(&arguments);
        assert_eq!((code, stdout.as_str()), (Some(0), "499500\n"), "{stderr}");
    }
    let (code, _, stderr) = tilelab(&["--steps", "many", path.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
}

/// A tensor past the page's limit of 64 M elements is an error whose help names `--memory`; with
/// `--memory 2` (a 512 MiB tensor, 128 M elements of 4 bytes) it is made.
#[test]
fn memory_raises_the_session_budget_and_the_largest_tensor() {
    let path = scratch("large.py", b"import torch\nx = torch.zeros(100000000)\nprint(x.shape[0])\n");
    let (code, _, stderr) = tilelab(&[path.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("exceeds the limit of 67108864 elements") && stderr.contains("--memory GIB"), "{stderr}");
    let (code, stdout, stderr) = tilelab(&["--memory", "2", path.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (Some(0), "100000000\n"), "{stderr}");
    let (code, _, stderr) = tilelab(&["--memory", "lots", path.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
}

/// The teaching preset as JSON with `changes` applied.
fn preset_json(changes: &[(&str, serde_json::Value)]) -> String {
    let mut value = serde_json::to_value(NpuConfig::preset("teaching").unwrap()).unwrap();
    for (field, item) in changes {
        value[*field] = item.clone();
    }
    value.to_string()
}

#[test]
fn npu_file_json_selects_a_custom_preset_and_names_a_bad_field() {
    let good = scratch("chip.json", preset_json(&[("name", "my_chip".into()), ("ub_bytes", 32768.into())]).as_bytes());
    let script = scratch(
        "uses_chip.py",
        b"import pypto as pt\nsettings = pt.npu.config()\nprint(settings['preset'], settings['ub_bytes'])\n",
    );
    let (code, stdout, stderr) = tilelab(&["--npu", good.to_str().unwrap(), script.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (Some(0), "my_chip 32768\n"), "{stderr}");
    for (field, item) in [
        ("clock_mhz", serde_json::json!(0)),
        ("l2_bytes", serde_json::json!(1e18)),
        ("vector_cores", serde_json::json!(-2)),
    ] {
        let bad = scratch("bad_chip.json", preset_json(&[(field, item)]).as_bytes());
        let (code, _, stderr) = tilelab(&["--npu", bad.to_str().unwrap(), script.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(&format!("field '{field}'")), "{field}: {stderr}");
    }
}

#[test]
fn npu_use_takes_a_dict_or_json_text() {
    let mut session = Session::new();
    let code = "import pypto as pt\nsettings = pt.npu.config()\nsettings['name'] = 'half_ub'\nsettings['ub_bytes'] = settings['ub_bytes'] // 2\npt.npu.use(settings)\nprint(pt.npu.config()['preset'], pt.npu.config()['ub_bytes'])";
    let result = session.run_cell(code);
    // Half of the default chip's (Ascend910B2) 192 KiB.
    assert_eq!(result.stdout, "half_ub 98304\n", "{:?}", result.error());
    let text = preset_json(&[("name", "from_text".into())]);
    let result = session.run_cell(&format!("pt.npu.use('{text}')\nprint(pt.npu.config()['preset'])"));
    assert_eq!(result.stdout, "from_text\n", "{:?}", result.error());
    // A preset name switches back.
    assert_eq!(session.run_cell("pt.npu.use('teaching')\nprint(pt.npu.config()['ub_bytes'])").stdout, "16384\n");
    for (change, field) in [("settings['clock_mhz'] = -1.0", "clock_mhz"), ("settings['l1_size'] = 1", "l1_size")] {
        let result = session.run_cell(&format!("settings = pt.npu.config()\n{change}\npt.npu.use(settings)"));
        let error = result.error().expect("an error");
        assert_eq!((error.code.as_str(), error.line), ("runtime/value-error", 3));
        assert!(error.message.contains(&format!("'{field}'")), "{}", error.message);
    }
}

/// What follows `--` is the script's command line: `sys.argv` is the file then those arguments,
/// so an example's `ArgumentParser` reads them; a rejected one exits non-zero with argparse's message.
#[test]
fn arguments_after_a_double_dash_are_the_scripts_command_line() {
    let script = "import argparse, sys\nparser = argparse.ArgumentParser()\n\
                  parser.add_argument('--run_mode', default='npu', choices=['npu', 'sim'])\n\
                  args = parser.parse_args()\nprint(len(sys.argv), args.run_mode)\n";
    let path = scratch("argv.py", script.as_bytes());
    let file = path.to_str().unwrap();
    assert_eq!(tilelab(&[file]), (Some(0), "1 npu\n".to_string(), String::new()));
    assert_eq!(tilelab(&[file, "--", "--run_mode", "sim"]), (Some(0), "3 sim\n".to_string(), String::new()));
    let (code, _, stderr) = tilelab(&[file, "--", "--run_mode", "gpu"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("error: argument --run_mode: invalid choice: 'gpu' (choose from 'npu', 'sim')"),
        "{stderr}"
    );
}
