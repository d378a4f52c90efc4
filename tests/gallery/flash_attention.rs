#![cfg(not(target_arch = "wasm32"))]
//! Example 15, "Flash attention forward and backward": every code cell runs; the notebook checks the
//! forward against softmax attention and the FA v2 backward with `check_gradient`. Here,
//! independently of the notebook's own asserts: the gradient check printed a pass within 1e-4, the
//! forward and both backward kernels ran on the NPU (each has a schedule, no CPU-fallback
//! diagnostic), and the fidelity-size schedule ran on one cube core and its two vector cores.

use std::path::Path;

use tilelab::session::{CellKind, Notebook, Session};

#[test]
fn example_15_runs_flash_attention_and_its_backward_on_the_npu_and_the_gradient_check_passes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/15_flash_attention.py");
    let notebook = Notebook::from_py(&std::fs::read_to_string(&path).expect("example file")).expect("a notebook");
    let mut session = Session::new();
    let mut kernels = Vec::new();
    let mut stdout = String::new();
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
        let result = session.run_cell(&cell.source);
        assert!(result.is_ok(), "line {}: {:?}\n{}", cell.first_line, result.error(), result.stdout);
        assert!(
            result
                .diagnostics
                .iter()
                .all(|diagnostic| diagnostic.code != "npu/cpu-fallback"
                    && !diagnostic.message.contains("ran on the CPU")),
            "line {}: {:?}",
            cell.first_line,
            result.diagnostics
        );
        kernels.extend(result.kernel_schedules.iter().map(|entry| entry.kernel.clone()));
        stdout.push_str(&result.stdout);
    }
    for kernel in ["flash_attention_forward", "flash_attention_backward_kv", "flash_attention_backward_q"] {
        assert!(kernels.iter().any(|name| name == kernel), "{kernel} has no NPU schedule: {kernels:?}");
    }
    let report = stdout.lines().find(|line| line.starts_with("passed:")).expect("the gradient check's line");
    let words: Vec<&str> = report.split_whitespace().collect();
    assert_eq!(words[1], "True", "{report}");
    let error: f64 = words.last().unwrap().parse().expect("max abs err");
    assert!(error < 1e-4, "{report}");
    let simulated = stdout.lines().find(|line| line.starts_with("simulated")).expect("the schedule's line");
    assert!(simulated.ends_with("on 3 cores"), "{simulated}");
}
