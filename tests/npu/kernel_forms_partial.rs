//! Partial tiles as pypto computes them, on the simulated NPU: a reduction covers a tile's valid
//! region only, `fillpad` fills the rest, a reshape of a view whose valid rows come first keeps
//! them valid, and `full` operands of `where`/comparisons are immediates. References are computed
//! outside any kernel from plain slices of the inputs (no `valid_shape` involved).

use tilelab::session::Session;

use super::kernel_forms::{printed, run_on_npu};

#[test]
fn a_row_max_and_sum_over_a_ragged_last_column_block_cover_its_valid_columns() {
    // 26 columns in blocks of 16: the second block holds 10. Every element is −3, so a max that
    // saw the padding would be 0 and the sum of exp(x − max) would gain 6 × e⁻³ ≈ 0.3.
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def rows(x, top, total):\n    pypto.set_vec_tile_shapes(4, 16)\n\
         \x20   for block in pypto.loop(2):\n\
         \x20       t = pypto.view(x, [4, 16], [0, block * 16], valid_shape=[4, pypto.min(16, 26 - block * 16)])\n\
         \x20       m = pypto.amax(t, -1, keepdim=True)\n\
         \x20       top[:, block:block + 1] = m\n\
         \x20       total[:, block:block + 1] = pypto.sum(pypto.exp(t - m), -1, keepdim=True)\n\
         x = pypto.full([4, 26], -3.0)\n\
         top = pypto.zeros([4, 2])\ntotal = pypto.zeros([4, 2])\n\
         rows(x, top, total)\n\
         print(top[0, 1].item())\nprint(total[0, 0].item())\nprint(total[0, 1].item())\n",
    );
    assert_eq!(printed(&stdout), vec![-3.0, 16.0, 10.0], "{stdout}");
}

#[test]
fn fillpad_fills_past_the_valid_region_and_a_reduction_then_covers_the_whole_tile() {
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def padded(x, top, low):\n    pypto.set_vec_tile_shapes(4, 16)\n\
         \x20   t = pypto.view(x, [4, 16], [0, 0], valid_shape=[4, 10])\n\
         \x20   top[:] = pypto.amax(pypto.fillpad(t, \"constant\", 2.5), -1, keepdim=True)\n\
         \x20   low[:] = pypto.amin(pypto.fillpad(t, \"constant\", \"-inf\"), -1, keepdim=True)\n\
         x = pypto.full([4, 10], -3.0)\n\
         top = pypto.zeros([4, 1])\nlow = pypto.zeros([4, 1])\n\
         padded(x, top, low)\n\
         print(top[3, 0].item())\nprint(low[2, 0].item())\n",
    );
    assert_eq!(stdout.lines().next().unwrap().trim(), "2.5", "{stdout}");
    assert_eq!(stdout.lines().nth(1).unwrap().trim(), "-inf", "{stdout}");
}

#[test]
fn a_reshape_of_a_view_with_leading_valid_rows_keeps_them_valid() {
    // [1, 16, 32] views of a [2, 16, 32] input, the second with 10 valid rows, reshaped to
    // [16, 32]: the column sums and maxima cover the valid rows (the reference slices them).
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def columns(x, out):\n    pypto.set_vec_tile_shapes(16, 32)\n\
         \x20   for b in pypto.loop(2):\n\
         \x20       rows = 16 - 6 * b\n\
         \x20       v = pypto.view(x, [1, 16, 32], [b, 0, 0], valid_shape=[1, rows, 32])\n\
         \x20       flat = pypto.reshape(v, [16, 32])\n\
         \x20       out[b:b + 1, :] = pypto.sum(flat, 0, keepdim=True) + pypto.amax(flat, 0, keepdim=True)\n\
         x = pypto.randn([2, 16, 32], seed=5)\nout = pypto.zeros([2, 32])\ncolumns(x, out)\n\
         first = pypto.sum(x[0], 0) + pypto.amax(x[0], 0)\n\
         second = pypto.sum(x[1, 0:10], 0) + pypto.amax(x[1, 0:10], 0)\n\
         print(pypto.amax(pypto.abs(out[0] - first)).item())\n\
         print(pypto.amax(pypto.abs(out[1] - second)).item())\n",
    );
    assert!(printed(&stdout).iter().all(|error| *error <= 1e-5), "{stdout}");
}

#[test]
fn full_operands_of_where_and_comparisons_are_immediates_on_the_npu() {
    // masked_fill (−1e9 where x > 0) and any (a bool row summed through where(…, 1.0, 0.0)).
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def fill(x, out):\n    pypto.set_vec_tile_shapes(1, 32)\n\
         \x20   for i in pypto.loop(4):\n\
         \x20       row = pypto.view(x, [1, 32], [i, 0])\n\
         \x20       mask = pypto.gt(row, pypto.full([1, 32], 0.0, pypto.DT_FP32))\n\
         \x20       out[i:i + 1, :] = pypto.where(mask, pypto.full([1, 32], -1e9, pypto.DT_FP32), row)\n\
         @pypto.frontend.jit\n\
         def any_row(flags, out):\n    pypto.set_vec_tile_shapes(1, 32)\n\
         \x20   for i in pypto.loop(4):\n\
         \x20       row = pypto.view(flags, [1, 32], [i, 0])\n\
         \x20       ones = pypto.where(row, pypto.full([1, 32], 1.0, pypto.DT_FP32), pypto.full([1, 32], 0.0, pypto.DT_FP32))\n\
         \x20       out[i:i + 1, :] = pypto.gt(pypto.sum(ones, -1, keepdim=True), pypto.full([1, 1], 0.5, pypto.DT_FP32))\n\
         x = pypto.randn([4, 32], seed=6)\nout = pypto.zeros([4, 32])\nfill(x, out)\n\
         print(pypto.amax(pypto.abs(out - pypto.where(x > 0, -1e9, x))).item())\n\
         flags = pypto.randn([4, 32], seed=7) > 1.8\n\
         found = pypto.zeros([4, 1], dtype=pypto.DT_BOOL)\nany_row(flags, found)\n\
         print(pypto.sum(pypto.cast(found, pypto.DT_INT32)).item())\n\
         print(pypto.sum(pypto.cast(pypto.amax(pypto.cast(flags, pypto.DT_INT32), -1) > 0, pypto.DT_INT32)).item())\n",
    );
    let numbers = printed(&stdout);
    assert_eq!(numbers[0], 0.0, "{stdout}");
    assert_eq!(numbers[1], numbers[2], "rows with a true flag: {stdout}");
}
