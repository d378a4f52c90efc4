//! Operands of lower rank broadcast as numpy's do (aligned to the trailing dims) and are tiled
//! with the vec tile like the rest: a `[N]` bias added to `[M, N]` rows is cut into the same
//! column blocks as the rows, the tasks spread over the cores, and UB holds one vec tile per value
//! instead of the whole tensor. References are computed outside any kernel (the CPU path).

use tilelab::session::Session;

use super::kernel_forms::{printed, run_on_npu};

#[test]
fn a_one_dimensional_bias_is_tiled_with_the_rows_it_is_added_to() {
    // [40, 1000] f32 rows and a [1000] bias in [16, 256] tiles: 3 × 4 cells, the last row block
    // and column block ragged. Whole, the rows alone would need 160 000 bytes of UB per value.
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         pypto.npu.use('Ascend910B2')\n\
         @pypto.frontend.jit\n\
         def biased(a: pypto.Tensor([40, 1000], pypto.DT_FP32), b: pypto.Tensor([1000], pypto.DT_FP32),\n\
         \x20          out: pypto.Tensor([40, 1000], pypto.DT_FP32)):\n\
         \x20   pypto.set_vec_tile_shapes(16, 256)\n\
         \x20   out[:] = pypto.mul(pypto.add(a, b), b) - 1.0\n\
         a = pypto.randn([40, 1000], seed=11)\nb = pypto.randn([1000], seed=12)\nout = pypto.zeros([40, 1000])\n\
         biased(a, b, out)\n\
         print(pypto.amax(pypto.abs(out - ((a + b) * b - 1.0))).item())\n\
         s = pypto.schedule(biased, a, b, out)\n\
         print(s.cores_used)\nprint(s.peak_occupancy['UB'])\nprint(s.gm_bytes_read)\n",
    );
    let numbers = printed(&stdout);
    assert!(numbers[0] <= 1e-5, "largest error {}: {stdout}", numbers[0]);
    assert!(numbers[1] >= 12.0, "the 12 cells' tasks spread over the cores: {stdout}");
    // A cell's UB: a [16, 256] f32 tile per value (16 KiB) and b's [256] part, not whole tensors.
    assert!(numbers[2] <= 64.0 * 1024.0, "UB peak {}: {stdout}", numbers[2]);
    // The rows once, and b's columns once per row block: 3 × 4000 bytes.
    assert_eq!(numbers[3], 160_000.0 + 12_000.0, "{stdout}");
}

#[test]
fn a_bias_of_the_repro_shape_fits_ub_under_its_vec_tile() {
    // [4, 32768] bf16 rows plus a [32768] bias under (64, 512) tiles: whole, the unit needed
    // 320 KiB of UB and failed; tiled, each task adds a [4, 512] block.
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         pypto.npu.use('Ascend910B2')\n\
         @pypto.frontend.jit\n\
         def biased(a: pypto.Tensor([4, 32768], pypto.DT_BF16), b: pypto.Tensor([32768], pypto.DT_BF16),\n\
         \x20          out: pypto.Tensor([4, 32768], pypto.DT_BF16)):\n\
         \x20   pypto.set_vec_tile_shapes(64, 512)\n\
         \x20   out[:] = pypto.add(a, b)\n\
         a = pypto.cast(pypto.randn([4, 32768], seed=13), pypto.DT_BF16)\n\
         b = pypto.cast(pypto.randn([32768], seed=14), pypto.DT_BF16)\n\
         out = pypto.zeros([4, 32768], dtype=pypto.DT_BF16)\n\
         biased(a, b, out)\n\
         expected = pypto.cast(pypto.cast(a, pypto.DT_FP32) + pypto.cast(b, pypto.DT_FP32), pypto.DT_BF16)\n\
         print(pypto.amax(pypto.abs(pypto.cast(out, pypto.DT_FP32) - pypto.cast(expected, pypto.DT_FP32))).item())\n",
    );
    assert_eq!(printed(&stdout), vec![0.0], "{stdout}");
}
