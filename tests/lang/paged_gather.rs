#![cfg(not(target_arch = "wasm32"))]
//! pypto's paged-cache gathers `pypto.experimental.gather_in_ub` and `gather_in_l1`: the example of
//! pypto's operation doc (a 6-row cache in blocks of 2, indices 0, 4, 3, block table 0, 2, 1), run
//! as written and inside a kernel on the simulated NPU, the valid length of a ragged index row,
//! and the errors of bad operands. Expected rows are worked out by hand in the comments.

use tilelab::session::Session;

use super::cell_output::{run, stdout};

/// Row `r` of the cache holds 10 r + c in column c.
const SETUP: &str = "import pypto
from pypto.experimental import gather_in_ub, gather_in_l1
param = pypto.reshape(pypto.arange(6, dtype=pypto.DT_FP32), [6, 1]) * 10.0 + pypto.arange(4, dtype=pypto.DT_FP32)
indices = pypto.as_tensor([[0, 4, 3]], dtype=pypto.DT_INT32)
table = pypto.as_tensor([[0, 2, 1]], dtype=pypto.DT_INT32)";

fn error(session: &mut Session, code: &str) -> (String, Option<String>, usize) {
    let result = session.run_cell(code);
    let error = result.error().unwrap_or_else(|| panic!("expected an error from {code}"));
    (error.message.clone(), error.help.clone(), error.line)
}

#[test]
fn the_doc_example_gathers_rows_0_2_and_5() {
    // Index 0: block 0 → physical 0, row 0. Index 4: block 2 → physical 1, row 2·1 + 0 = 2.
    // Index 3: block 1 (token 1) → physical 2, row 2·2 + 1 = 5.
    let mut session = Session::new();
    run(&mut session, SETUP);
    assert_eq!(
        stdout(&mut session, "print(gather_in_ub(param, indices, table, 2, -2).tolist())"),
        "[[0.0, 1.0, 2.0, 3.0], [20.0, 21.0, 22.0, 23.0], [50.0, 51.0, 52.0, 53.0]]"
    );
    // gather_in_l1 keeps the first `size` columns; is_b_matrix/is_trans do not change the values.
    assert_eq!(
        stdout(
            &mut session,
            "print(gather_in_l1(param, indices, table, 2, 2, is_b_matrix=True, is_trans=True).tolist())"
        ),
        "[[0.0, 1.0], [20.0, 21.0], [50.0, 51.0]]"
    );
}

#[test]
fn inside_a_kernel_the_gather_runs_on_the_npu() {
    let mut session = Session::new();
    run(&mut session, SETUP);
    let code = "@pypto.frontend.jit
def doubled(cache, ids, blocks, out):
    pypto.set_vec_tile_shapes(8, 8)
    out[:] = gather_in_ub(cache, ids, blocks, 2, -2) * 2.0
out = pypto.zeros([3, 4])
doubled(param, indices, table, out)
print(out[:, 0].tolist())";
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{:?}", result.error());
    let fallbacks: Vec<_> = result.diagnostics.iter().filter(|d| d.code == "npu/cpu-fallback").collect();
    assert!(fallbacks.is_empty(), "ran on the CPU: {fallbacks:?}");
    assert_eq!(result.stdout.trim(), "[0.0, 40.0, 100.0]");
}

#[test]
fn a_ragged_index_row_gathers_its_valid_length() {
    // The view keeps indices 0 and 4 valid: rows 0 and 2, then a zero row outside the valid shape;
    // the cache view's valid columns (3 of 4) bound the columns.
    let mut session = Session::new();
    run(&mut session, SETUP);
    let code = "ids = pypto.view(indices, [1, 3], [0, 0], valid_shape=[1, 2])
cache = pypto.view(param, [6, 4], [0, 0], valid_shape=[6, 3])
rows = gather_in_ub(cache, ids, table, 2, -2)
print(rows.shape, rows.valid_shape, rows.tolist())";
    assert_eq!(
        stdout(&mut session, code),
        "[3, 4] [2, 3] [[0.0, 1.0, 2.0, 0.0], [20.0, 21.0, 22.0, 0.0], [0.0, 0.0, 0.0, 0.0]]"
    );
}

#[test]
fn bad_operands_are_errors_that_name_the_cause() {
    let mut session = Session::new();
    run(&mut session, SETUP);
    let (message, _, line) = error(&mut session, "\ngather_in_ub(param, indices, table, 2, 0)");
    assert!(message.contains("axis") && message.contains("-2"), "{message}");
    assert_eq!(line, 2);
    // indices + 3 = [3, 7, 6]: index 3 is in block 1, index 7 in block 3 of a 3-entry table.
    let (message, _, _) = error(&mut session, "gather_in_ub(param, indices + 3, table, 2, -2)");
    assert!(message.contains("index 7 is in logical block 3, but block_table has 3 entries"), "{message}");
    // Block 1 at physical 5 puts index 3 at row 5·2 + 1 = 11 of 6.
    let (message, _, _) =
        error(&mut session, "gather_in_ub(param, indices, pypto.as_tensor([[0, 5, 1]], dtype=pypto.DT_INT32), 2, -2)");
    assert!(message.contains("index 3 maps to row 11, but the cache has 6 rows"), "{message}");
    let (message, help, _) = error(&mut session, "gather_in_ub(param, pypto.reshape(indices, [3]), table, 2, -2)");
    assert!(message.contains("are not [tokens, hidden], [1, k] and [1, blocks]"), "{message}");
    assert!(help.is_some_and(|help| help.contains("the result is [k, hidden]")));
    let (message, _, _) = error(&mut session, "gather_in_l1(param, indices, table, 2, 5, False, False)");
    assert!(message.contains("size 5 must be between 1 and the cache's 4 columns"), "{message}");
    let (message, _, _) = error(&mut session, "gather_in_ub(param, indices, table, 0, -2)");
    assert!(message.contains("block_size must be positive"), "{message}");
    let (message, _, _) = error(&mut session, "gather_in_ub(param, pypto.cast(indices, pypto.DT_FP32), table, 2, -2)");
    assert!(message.contains("DT_FP32"), "{message}");
}
