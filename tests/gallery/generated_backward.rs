#![cfg(not(target_arch = "wasm32"))]
//! Example 14, "Generated vs hand-written backward": every code cell runs; the notebook's own
//! asserts compare the generated gradients with the tape's and the hand-written kernels' (values),
//! and bound Swish's generated backward to 1.2× the hand-written one's cycles. Here: each forward's
//! generated backward ran on the NPU (no CPU-fallback warning) and its schedule follows.

use std::path::Path;

use tilelab::session::{CellKind, Notebook, Session};

#[test]
fn every_forward_of_example_14_gets_its_backward_on_the_npu() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/14_generated_backward.py");
    let notebook = Notebook::from_py(&std::fs::read_to_string(&path).expect("example file")).expect("a notebook");
    let mut session = Session::new();
    let mut backwards = Vec::new();
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
        let result = session.run_cell(&cell.source);
        assert!(result.is_ok(), "line {}: {:?}\n{}", cell.first_line, result.error(), result.stdout);
        assert!(
            result.diagnostics.iter().all(|diagnostic| !diagnostic.message.contains("ran on the CPU")),
            "line {}: {:?}",
            cell.first_line,
            result.diagnostics
        );
        // The figures the notebook prints (cycles, bytes, ratios), for `--nocapture`.
        print!("{}", result.stdout);
        backwards.extend(
            result
                .kernel_schedules
                .iter()
                .filter(|entry| entry.kernel.ends_with(".backward"))
                .map(|entry| entry.kernel.clone()),
        );
    }
    assert_eq!(backwards, vec!["swish.backward", "layer_norm.backward", "swiglu_kernel.backward", "swish16.backward"]);
}
