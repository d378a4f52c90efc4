#![cfg(not(target_arch = "wasm32"))]
//! Writes example 10's full-size dw_g, dw_fc and dx as raw little-endian f32 files, for
//! tests/golden/swiglu_bound.py to compare every element with its proved bound:
//!   TILELAB_SWIGLU_DUMP=/tmp/swiglu cargo test --release --test gallery_swiglu_dump -- --ignored
//!   python3 tests/golden/swiglu_bound.py /tmp/swiglu
//! Not a check by itself (the comparison is the script's), so it is ignored in CI.

use std::path::Path;

use tilelab::session::{CellKind, Notebook, Session};

/// Reads `name` (a 2-D BF16 tensor of the session) row block by row block through `tolist()`.
fn values(session: &mut Session, name: &str, rows: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for start in (0..rows).step_by(64) {
        let stop = (start + 64).min(rows);
        let result = session.run_cell(&format!("print(pt.cast({name}[{start}:{stop}, :], pt.DT_FP32).tolist())"));
        assert!(result.is_ok(), "{name}: {:?}", result.error());
        let text = result.stdout.replace(['[', ']', '\n'], " ");
        out.extend(text.split(',').map(|word| word.trim().parse::<f32>().expect("a number")));
    }
    out
}

#[test]
#[ignore = "writes a dump for tests/golden/swiglu_bound.py when TILELAB_SWIGLU_DUMP is set"]
fn dump_full_size_swiglu_outputs() {
    let Some(directory) = std::env::var_os("TILELAB_SWIGLU_DUMP") else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("examples/10_swiglu_backward.py")).expect("example 10");
    let notebook = Notebook::from_py(&source).expect("a notebook");
    let mut session = Session::new();
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
        let result = session.run_cell(&cell.source);
        assert!(result.is_ok(), "{:?}", result.error());
    }
    std::fs::create_dir_all(&directory).expect("the dump directory");
    for (name, rows) in [("dw_g", 512), ("dw_fc", 512), ("dx", 2200)] {
        let bytes: Vec<u8> = values(&mut session, name, rows).iter().flat_map(|value| value.to_le_bytes()).collect();
        std::fs::write(Path::new(&directory).join(format!("{name}.f32")), bytes).expect("write");
    }
}
