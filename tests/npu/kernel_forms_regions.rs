//! Forms of qwen3-next's gated delta rule (hicann/pypto `models/qwen3_next`) that run on the
//! simulated NPU: a `full` tile written into a region of a kernel-made tensor (the vector unit's
//! `duplicate` fills a tile with the number), a matmul of a matrix and a `[1, 1, K, N]` view
//! (the batch dims broadcast across ranks), and a write into a view of an argument
//! (`state = states[b, n]` … `state[:] = t`), which lands in the argument's region; and from
//! GLM-4.5's MoE gate, a `topk` of a reduction taken with keepdim=False. GM bytes, FLOPs and
//! values are worked out by hand.

use tilelab::session::Session;

use super::kernel_forms::run_on_npu;

#[test]
fn a_full_tile_written_into_a_region_is_filled_by_the_vector_unit() {
    // out (32 × 32 f32) is assembled from a (16 × 16, loaded once: 1024 B), two filled blocks and a
    // again; it is written whole (4096 B). Two `duplicate` instructions make the filled tiles.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def blocks(a: pt.Tensor([16, 16], pt.DT_FP32), out: pt.Tensor([32, 32], pt.DT_FP32)):\n\
         \x20   pt.set_vec_tile_shapes(16, 16)\n\
         \x20   zero = pt.full([16, 16], 0.0, pt.DT_FP32)\n\
         \x20   seven = pt.full([16, 16], 7.0, pt.DT_FP32)\n\
         \x20   out[0:16, 0:16] = a\n\
         \x20   out[0:16, 16:32] = zero\n\
         \x20   out[16:32, 0:16] = seven\n\
         \x20   out[16:32, 16:32] = a\n\
         a = pt.arange(256, dtype=pt.DT_FP32).reshape([16, 16])\nout = pt.ones([32, 32])\nblocks(a, out)\n\
         s = pt.schedule(blocks, a, pt.zeros([32, 32]))\n\
         print(s.gm_bytes_read, s.gm_bytes_written, s.trace_json().count('\"duplicate\"'))\n\
         print(out[0, 15].item(), out[0, 16].item(), out[16, 0].item(), out[31, 31].item(), out.sum().item())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "1024 4096 2", "{stdout}");
    // a[0, 15] = 15, zero, seven, a[15, 15] = 255; the sum: 2 · (0 + … + 255) + 256 · 7 = 67072.
    assert_eq!(lines[1], "15.0 0.0 7.0 255.0 67072.0", "{stdout}");
}

#[test]
fn a_matrix_times_a_view_with_leading_unit_dims_is_one_cube_matmul() {
    // [2, 2] @ [1, 1, 2, 2]: one batch of 2·2·2·2 = 16 FLOP. By hand [[1,2],[3,4]]·[[5,6],[7,8]] =
    // [[19,22],[43,50]].
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def product(a: pt.Tensor([2, 2], pt.DT_FP32), b: pt.Tensor([1, 1, 2, 2], pt.DT_FP32),\n\
         \x20           out: pt.Tensor([1, 1, 2, 2], pt.DT_FP32)):\n\
         \x20   pt.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])\n\
         \x20   out[:] = pt.matmul(a, b, pt.DT_FP32)\n\
         a = pt.as_tensor([[1.0, 2.0], [3.0, 4.0]])\nb = pt.as_tensor([[[[5.0, 6.0], [7.0, 8.0]]]])\n\
         out = pt.zeros([1, 1, 2, 2])\nproduct(a, b, out)\n\
         print(pt.schedule(product, a, b, pt.zeros([1, 1, 2, 2])).flops)\nprint(out.tolist())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines, ["16", "[[[[19.0, 22.0], [43.0, 50.0]]]]"], "{stdout}");
}

#[test]
fn a_write_into_an_index_of_an_argument_lands_in_its_region() {
    // Each of the 2 × 3 units loads its [16, 16] block of states (1024 B; 6144 B in all), doubles
    // it, stores it back into that block and into out (6144 B each: 12288 B written). Read again
    // after the store, the block is the stored tile, not a second load.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def twice(states: pt.Tensor([2, 3, 16, 16], pt.DT_FP32), out: pt.Tensor([2, 3, 16, 16], pt.DT_FP32)):\n\
         \x20   pt.set_vec_tile_shapes(16, 16, 16, 16)\n\
         \x20   for b in pt.loop(2, name='B', idx_name='b'):\n\
         \x20       for n in pt.loop(3, name='N', idx_name='n'):\n\
         \x20           state = states[b, n]\n\
         \x20           state[:] = state * 2.0\n\
         \x20           out[b, n] = state\n\
         states = pt.arange(1536, dtype=pt.DT_FP32).reshape([2, 3, 16, 16])\nout = pt.zeros([2, 3, 16, 16])\n\
         twice(states, out)\n\
         s = pt.schedule(twice, pt.arange(1536, dtype=pt.DT_FP32).reshape([2, 3, 16, 16]), pt.zeros([2, 3, 16, 16]))\n\
         print(s.gm_bytes_read, s.gm_bytes_written)\nprint(out[1, 2, 15, 15].item(), out.sum().item())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    // out[1, 2, 15, 15] = 2 · 1535; the sum: 2 · (0 + … + 1535) = 1535 · 1536 = 2357760.
    assert_eq!(lines, ["6144 12288", "3070.0 2357760.0"], "{stdout}");
}

#[test]
fn a_structural_op_reads_a_reduction_taken_without_keepdim_in_its_reference_shape() {
    // amax over the last dim of x [8, 4, 16] keeps [8, 4, 1] in tile form; topk along the groups
    // reads it as [8, 4] (a vector copy, `reshape` in the trace). Row r of x holds r·64 + g·16 + c
    // in group g at column c, except group (r mod 4), whose elements are negated: its max is
    // -(r·64 + g·16), the smallest. The two largest groups are then 3 and 2 (or 3 and 1 when
    // group 2 is the negated one, rows 2 and 6).
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def gate(x: pt.Tensor([8, 4, 16], pt.DT_FP32), out: pt.Tensor([8, 2], pt.DT_INT32)):\n\
         \x20   pt.set_vec_tile_shapes(8, 4, 16)\n\
         \x20   group_max = pt.amax(x, -1, False)\n\
         \x20   pt.set_vec_tile_shapes(8, 4)\n\
         \x20   _, indices = pt.topk(group_max, 2, -1, True)\n\
         \x20   out[:] = indices\n\
         x = pt.arange(512, dtype=pt.DT_FP32).reshape([8, 4, 16])\n\
         for r in range(8):\n    x[r, r % 4, :] = x[r, r % 4, :] * -1.0\n\
         out = pt.zeros([8, 2], pt.DT_INT32)\ngate(x, out)\n\
         print(out.tolist())\n\
         print(pt.schedule(gate, x, pt.zeros([8, 2], pt.DT_INT32)).trace_json().count('\"reshape\"') > 0)\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "[[3, 2], [3, 2], [3, 1], [2, 1], [3, 2], [3, 2], [3, 1], [2, 1]]", "{stdout}");
    assert_eq!(lines[1], "True", "{stdout}");
}
