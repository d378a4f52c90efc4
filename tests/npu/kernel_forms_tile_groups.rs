//! A kernel that sets several vec tiles (Snowflake Arctic's LSTM computes its fused gates under a
//! `[1, 4H]` tile, then the gates under `[1, H]`): a core runs the tasks of one tile at a time,
//! and as pypto sizes UB per task, the buffers of one tile's tasks take the memory the other's
//! had. The core's UB need is that of its largest tile's tasks, not their sum. References are
//! computed outside any kernel (the CPU path).

use tilelab::npu::{occupancy, NpuConfig};
use tilelab::session::Session;
use tilelab::tensor::DType;
use tilelab::tile::{Memory, ProgramBuilder};

use super::kernel_forms::{printed, run_on_npu};

/// Two rows of fused gates: the f32 sum of two `[1, 4h]` fp16 rows under a `[1, 4h]` tile, then
/// `sigmoid(second quarter) * third quarter` under `[1, h]`.
fn gates_script(h: usize) -> String {
    format!(
        "import pypto, torch\n\
         pypto.npu.use('Ascend910B2')\n\
         H = {h}\n\
         @pypto.frontend.jit\n\
         def gates(x: pypto.Tensor([2, 4 * H], pypto.DT_FP16), y: pypto.Tensor([2, 4 * H], pypto.DT_FP16),\n\
         \x20         out: pypto.Tensor([2, H], pypto.DT_FP16)):\n\
         \x20   for row in pypto.loop(0, 2, 1, name='rows', idx_name='row'):\n\
         \x20       pypto.set_vec_tile_shapes(1, 4 * H)\n\
         \x20       a = pypto.view(x, [1, 4 * H], [row, 0])\n\
         \x20       b = pypto.view(y, [1, 4 * H], [row, 0])\n\
         \x20       joined = pypto.add(pypto.cast(a, pypto.DT_FP32), pypto.mul(pypto.cast(b, pypto.DT_FP32), 0.5))\n\
         \x20       left = pypto.view(joined, [1, H], [0, H])\n\
         \x20       right = pypto.view(joined, [1, H], [0, 2 * H])\n\
         \x20       pypto.set_vec_tile_shapes(1, H)\n\
         \x20       pypto.assemble(pypto.cast(pypto.mul(pypto.sigmoid(left), right), pypto.DT_FP16), [row, 0], out)\n\
         torch.manual_seed(3)\n\
         x = torch.randn(2, 4 * H, dtype=torch.float16)\n\
         y = torch.randn(2, 4 * H, dtype=torch.float16)\n\
         out = torch.zeros(2, H, dtype=torch.float16)\n"
    )
}

#[test]
fn tasks_under_different_vec_tiles_share_the_cores_ub() {
    // The [1, 16384] tasks need 160 KiB (an fp16 row and two f32 rows), the [1, 4096] ones 40 KiB:
    // together 200 KiB, more than the 192 KiB of UB, which failed with a UB overflow before.
    let stdout = run_on_npu(
        &mut Session::new(),
        &format!(
            "{}gates(x, y, out)\n\
             g = x.float() + 0.5 * y.float()\n\
             reference = torch.sigmoid(g[:, H:2 * H]) * g[:, 2 * H:3 * H]\n\
             print(((out.float() - reference).abs() / (1.0 + reference.abs())).max().item())\n\
             s = pypto.schedule(gates, x, y, out)\n\
             print(s.peak_occupancy['UB'])\n",
            gates_script(4096)
        ),
    );
    let numbers = printed(&stdout);
    // fp16 output: within one fp16 ulp of the f32 reference, relative.
    assert!(numbers[0] <= 1e-3, "largest relative error {}: {stdout}", numbers[0]);
    assert_eq!(numbers[1], 163_840.0, "the wide tasks' UB (32 + 2 × 64 KiB), not the sum: {stdout}");
}

#[test]
fn a_tile_too_large_alone_is_reported_at_the_line_that_set_it() {
    // At H = 5120 the [1, 20480] tasks alone need 200 KiB: the error names that tile's line (8),
    // not the narrower tile set after it.
    let result = Session::new().run_cell(&format!("{}gates(x, y, out)\n", gates_script(5120)));
    let error = result.error().expect("the wide tile does not fit");
    assert!(error.message.contains("[1, 20480]"), "{error:?}");
    assert_eq!(error.line, 8, "{error:?}");
}

#[test]
fn a_programs_ub_occupancy_is_its_program_wide_buffers_and_its_largest_group() {
    let config = NpuConfig::preset("Ascend910B2").expect("preset");
    let mut builder = ProgramBuilder::new();
    builder.buffer("whole", Memory::Ub, &[8, 64], DType::F32);
    builder.grouped_buffer("wide_a", Memory::Ub, &[1, 16384], DType::F32, 1);
    builder.grouped_buffer("wide_b", Memory::Ub, &[1, 16384], DType::F16, 1);
    builder.grouped_buffer("narrow", Memory::Ub, &[1, 4096], DType::F32, 2);
    builder.grouped_buffer("l1", Memory::L1, &[64, 64], DType::F16, 0);
    let occupied = occupancy(&builder.finish(), &config);
    assert_eq!(occupied[&Memory::Ub], 2048 + 65536 + 32768);
    assert_eq!(occupied[&Memory::L1], 8192);
}

/// GLM-4.5's attention prologue in small: `residual = cast(x + r)` ([8, 5120] rows) made under a
/// [1, 5120] tile and assembled into its output only after a 3-D tile took effect, beside the
/// `heads` heads of `q` doubled under that tile. Prints both errors against the CPU path, then
/// the GM bytes read and written.
fn prologue_script(heads: usize) -> String {
    format!(
        "import pypto, torch\n\
         pypto.npu.use('Ascend910B2')\n\
         H, N = 5120, {heads}\n\
         @pypto.frontend.jit\n\
         def prologue(x: pypto.Tensor([8, H], pypto.DT_BF16), r: pypto.Tensor([8, H], pypto.DT_BF16),\n\
         \x20            q: pypto.Tensor([8, N, 128], pypto.DT_BF16), residual: pypto.Tensor([8, H], pypto.DT_BF16),\n\
         \x20            q_out: pypto.Tensor([8, N, 128], pypto.DT_BF16)):\n\
         \x20   pypto.set_vec_tile_shapes(1, H)\n\
         \x20   summed = pypto.add(pypto.cast(x, pypto.DT_FP32), pypto.cast(r, pypto.DT_FP32))\n\
         \x20   residual_bf16 = pypto.cast(summed, pypto.DT_BF16)\n\
         \x20   pypto.set_vec_tile_shapes(4, 16, 128)\n\
         \x20   q_out[:] = pypto.mul(q, 2.0)\n\
         \x20   residual[:] = residual_bf16\n\
         torch.manual_seed(5)\n\
         x = torch.randn(8, H, dtype=torch.bfloat16)\n\
         r = torch.randn(8, H, dtype=torch.bfloat16)\n\
         q = torch.randn(8, N, 128, dtype=torch.bfloat16)\n\
         residual = torch.zeros(8, H, dtype=torch.bfloat16)\n\
         q_out = torch.zeros(8, N, 128, dtype=torch.bfloat16)\n\
         prologue(x, r, q, residual, q_out)\n\
         print((residual.float() - (x.float() + r.float()).bfloat16().float()).abs().max().item())\n\
         print((q_out.float() - 2 * q.float()).abs().max().item())\n\
         s = pypto.schedule(prologue, x, r, q, residual, q_out)\n\
         print(s.gm_bytes_read)\n\
         print(s.gm_bytes_written)\n"
    )
}

/// Runs the prologue on the NPU and checks its values (bf16 of an f32 sum of two bf16 values,
/// and a doubling: exact on both paths) and its GM traffic, by hand: x and r read once
/// (2 · 8 · 5120 · 2 B), q read and q_out written, the residual written (81 920 B); no workspace.
fn check_prologue(heads: usize) {
    let stdout = run_on_npu(&mut Session::new(), &prologue_script(heads));
    let numbers = printed(&stdout);
    assert_eq!(numbers[..2], [0.0, 0.0], "{stdout}");
    let q_bytes = 8 * heads * 128 * 2;
    assert_eq!(numbers[2], (2 * 8 * 5120 * 2 + q_bytes) as f64, "{stdout}");
    assert_eq!(numbers[3], (81_920 + q_bytes) as f64, "{stdout}");
}

#[test]
fn a_value_made_under_one_tile_and_stored_under_another_is_tiled_apart_from_the_rest() {
    // The residual, read after the tile change, is computed in the last unit (as every value
    // crossing a tile change is); there its [8, 5120] rows (2-D) and the heads (3-D) cannot share
    // one grid, and the unit was one whole UB tile: its f32 rows alone overflowed UB. The residual's
    // steps share nothing with the heads', so each is now a unit of its own, the rows cut by the
    // tile's trailing [16, 128], the heads by [4, 16, 128].
    check_prologue(16);
}

#[test]
fn independent_work_under_one_tile_is_tiled_part_by_part() {
    // At 64 heads the heads' bf16 tile alone is 128 KiB beside the rows' 80 KiB: more than the
    // 192 KiB of UB together, even without the f32 values.
    check_prologue(64);
}
