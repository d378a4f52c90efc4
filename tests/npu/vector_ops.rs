//! The vector unit's selecting and structural ops run on the simulated NPU (issue 13): comparisons
//! into bool masks and `where`, `round(decimals=)`, `clip` with tensor bounds, `expand_clone`,
//! `cumsum`, `concat`, `gather`, and `transpose`/`reshape` of a computed tile. Each kernel runs with
//! no CPU fallback; the reference is the same computation with pypto ops outside any kernel (the
//! CPU path), and hand-computed values where they are easy to state.

use tilelab::npu::{instruction_cost, Cost, NpuConfig};
use tilelab::tensor::{CompareOp, DType};
use tilelab::tile::{GmTensor, KernelPlan, Memory, ProgramBuilder, TileOp, VectorOp, VectorOperand};

use super::kernel_forms::run_on_npu;
use tilelab::session::Session;

/// The numbers of the cell's printed lines.
fn numbers(stdout: &str) -> Vec<f64> {
    stdout.lines().map(|line| line.trim().parse().unwrap_or_else(|_| panic!("not a number: {stdout}"))).collect()
}

#[test]
fn a_causal_mask_from_integer_comparisons_selects_over_four_row_tiles() {
    // rows [64, 1] and cols [1, 64] (INT32) compared into a bool mask; `where` keeps the scores on
    // and below the diagonal. Row r keeps r + 1 scores: 64·65/2 = 2080 in all.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def causal(scores, rows, cols, out):\n    pypto.set_vec_tile_shapes(16, 64)\n\
         \x20   out[:] = pypto.where(cols <= rows, scores, -1000.0)\n\
         scores = pypto.rand([64, 64], seed=7)\n\
         rows = pypto.reshape(pypto.arange(64, dtype=pypto.DT_INT32), [64, 1])\n\
         cols = pypto.reshape(pypto.arange(64, dtype=pypto.DT_INT32), [1, 64])\n\
         out = pypto.zeros([64, 64])\n\
         s = pypto.schedule(causal, scores, rows, cols, out)\n\
         print(s.cores_used)\n\
         print(pypto.amax(pypto.abs(out - pypto.where(cols <= rows, scores, -1000.0))).item())\n\
         print(pypto.sum(pypto.cast(out > -1.0, pypto.DT_FP32)).item())\n",
    );
    let values = numbers(&stdout);
    assert!(values[0] >= 4.0, "four row tiles on four cores: {stdout}");
    assert_eq!(values[1], 0.0, "a select moves values exactly: {stdout}");
    assert_eq!(values[2], 2080.0, "{stdout}");
}

#[test]
fn round_with_decimals_and_clip_with_tensor_bounds_match_the_reference() {
    // round(x, 1), ties to even: 0.25 → 0.2, 0.75 → 0.8, -0.25 → -0.2, 1.0 → 1.0 (×10 is exact).
    // clip(x, low, high) with low > high at the last element gives high.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def shape_values(x, low, high, rounded, bounded):\n    pypto.set_vec_tile_shapes(1, 8)\n\
         \x20   rounded[:] = pypto.round(x, decimals=1)\n\
         \x20   bounded[:] = pypto.clip(x, low, high)\n\
         x = pypto.as_tensor([[0.25, 0.75, -0.25, 1.0, 3.0, -3.0, 0.5, 2.0]])\n\
         low = pypto.as_tensor([[0.0, 0.0, 0.0, 0.0, -1.0, -1.0, -1.0, 5.0]])\n\
         high = pypto.as_tensor([[1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0]])\n\
         rounded = pypto.zeros([1, 8])\nbounded = pypto.zeros([1, 8])\n\
         shape_values(x, low, high, rounded, bounded)\n\
         for v in rounded.tolist()[0][:4]:\n    print(v)\n\
         for v in bounded.tolist()[0]:\n    print(v)\n",
    );
    let values = numbers(&stdout);
    let expected_rounded = [0.2, 0.8, -0.2, 1.0];
    for (got, want) in values[..4].iter().zip(expected_rounded) {
        assert!((got - want).abs() <= 1e-7, "round: {stdout}");
    }
    assert_eq!(values[4..].to_vec(), vec![0.25, 0.5, 0.0, 1.0, 1.0, -1.0, 0.5, 4.0], "clip: {stdout}");
}

#[test]
fn cumsum_keeps_its_dim_whole_in_every_vec_tile_and_spreads_the_others() {
    // cumsum of ones along dim 1 is the column index + 1; the vec tile [8, 16] cuts the 64 columns,
    // so the scan keeps them whole and the 32 rows go to 4 tasks.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def prefix(x, out):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = pypto.cumsum(x * 1.0, 1)\n\
         x = pypto.ones([32, 64])\nout = pypto.zeros([32, 64])\n\
         s = pypto.schedule(prefix, x, out)\n\
         print(s.cores_used)\n\
         print(out[5, 0].item())\nprint(out[5, 63].item())\nprint(out[31, 17].item())\n\
         y = pypto.randn([32, 64], seed=9)\nprefix(y, out)\n\
         print(pypto.amax(pypto.abs(out - pypto.cumsum(y * 1.0, 1))).item())\n",
    );
    let values = numbers(&stdout);
    assert!(values[0] >= 4.0, "{stdout}");
    assert_eq!(values[1..4].to_vec(), vec![1.0, 64.0, 18.0], "{stdout}");
    assert!(values[4] <= 1e-5, "{stdout}");
}

#[test]
fn concat_gather_and_expand_clone_move_values_exactly() {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def rotate(x, out):\n    pypto.set_vec_tile_shapes(16, 64)\n\
         \x20   first = pypto.view(x, [32, 32], [0, 0])\n    second = pypto.view(x, [32, 32], [0, 32])\n\
         \x20   out[:] = pypto.concat([pypto.neg(second), first], dim=-1)\n\
         @pypto.frontend.jit\n\
         def embed(table, ids, out):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = pypto.gather(table, 0, ids)\n\
         @pypto.frontend.jit\n\
         def spread(x, out):\n    pypto.set_vec_tile_shapes(8, 64)\n\
         \x20   out[:] = pypto.expand_clone(pypto.sum(x, dim=-1, keepdim=True), [16, 64])\n\
         x = pypto.randn([32, 64], seed=11)\nrotated = pypto.zeros([32, 64])\nrotate(x, rotated)\n\
         golden = pypto.concat([pypto.neg(x[:, 32:]), x[:, :32]], dim=-1)\n\
         print(pypto.amax(pypto.abs(rotated - golden)).item())\n\
         table = pypto.randn([40, 16], seed=12)\n\
         ids = pypto.as_tensor([[3], [39], [0], [3], [17], [8], [8], [21]], dtype=pypto.DT_INT32) + pypto.zeros([8, 16], dtype=pypto.DT_INT32)\n\
         rows = pypto.zeros([8, 16])\nembed(table, ids, rows)\n\
         print(pypto.amax(pypto.abs(rows - pypto.gather(table, 0, ids))).item())\n\
         print(pypto.amax(pypto.abs(rows[1:2, :] - table[39:40, :])).item())\n\
         y = pypto.randn([16, 64], seed=13)\nspread_out = pypto.zeros([16, 64])\nspread(y, spread_out)\n\
         print(pypto.amax(pypto.abs(spread_out - pypto.sum(y, dim=-1, keepdim=True))).item())\n",
    );
    let values = numbers(&stdout);
    assert_eq!(values[..3].to_vec(), vec![0.0, 0.0, 0.0], "concat and gather move values: {stdout}");
    assert!(values[3] <= 1e-5, "{stdout}");
}

#[test]
fn transpose_and_reshape_of_computed_tiles_run_as_vector_copies() {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def flip(x, out):\n    out[:] = pypto.transpose(pypto.exp(x), 0, 1)\n\
         @pypto.frontend.jit\n\
         def heads(x, scale, out):\n\
         \x20   split = pypto.reshape(x, [8, 4, 32])\n\
         \x20   scaled = pypto.transpose(pypto.transpose(split, 0, 1) * scale, 0, 1)\n\
         \x20   out[:] = pypto.reshape(scaled, [8, 128])\n\
         x = pypto.randn([16, 32], seed=14)\nflipped = pypto.zeros([32, 16])\nflip(x, flipped)\n\
         print(pypto.amax(pypto.abs(flipped - pypto.transpose(pypto.exp(x), 0, 1))).item())\n\
         h = pypto.randn([8, 128], seed=15)\nscale = pypto.reshape(pypto.as_tensor([0.5, 1.0, 2.0, -1.0]), [4, 1, 1])\n\
         scaled = pypto.zeros([8, 128])\nheads(h, scale, scaled)\n\
         print(pypto.amax(pypto.abs(scaled[:, 96:] + h[:, 96:])).item())\n\
         print(pypto.amax(pypto.abs(scaled[:, :32] - h[:, :32] * 0.5)).item())\n",
    );
    assert_eq!(numbers(&stdout), vec![0.0, 0.0, 0.0], "{stdout}");
}

#[test]
fn vector_ops_are_charged_per_pass_and_a_scan_per_slice() {
    // teaching: vector issue 8 cycles, 256 B/cycle. Over f32 [16, 64] tiles (4096 B):
    // compare → 8 + 16 = 24 cycles; round(decimals=1) = three passes = 72; cumsum along dim 0 adds
    // 16 slices of 64 elements (256 B) = 16 × (8 + 1) = 144 cycles.
    let config = NpuConfig::preset("teaching").unwrap();
    let mut builder = ProgramBuilder::new();
    let x = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
    let y = builder.buffer("y", Memory::Ub, &[16, 64], DType::F32);
    let mask = builder.buffer("mask", Memory::Ub, &[16, 64], DType::Bool);
    let tile = |buffer| VectorOperand::Tile { buffer, shape: vec![16, 64] };
    let ops = [
        (VectorOp::Compare(CompareOp::Lt), vec![tile(x), tile(y)], mask),
        (VectorOp::Round { decimals: 1 }, vec![tile(x)], y),
        (VectorOp::CumSum { dim: 0 }, vec![tile(x)], y),
    ];
    for (op, inputs, output) in ops {
        builder.push(TileOp::Vector { op, inputs, output, valid_shape: [16, 64].into() }, vec![], vec![]).unwrap();
    }
    let program = builder.finish();
    let tensor = GmTensor { name: "unused".into(), shape: vec![16, 64], dtype: DType::F32 };
    let plan = KernelPlan {
        name: "costs".into(),
        tensors: vec![tensor],
        programs: vec![program.clone()],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    let cycles: Vec<f64> = (0..3)
        .map(|index| match instruction_cost(&plan, &program, index, &config).cost {
            Cost::Fixed { cycles } => cycles,
            Cost::Gm { .. } => f64::NAN,
        })
        .collect();
    assert_eq!(cycles, vec![24.0, 72.0, 144.0]);
    assert!(program.instructions.iter().all(|instruction| instruction.pipe == tilelab::tile::Pipe::Vector));
}

#[test]
fn a_comparison_into_a_float_tile_is_refused_by_the_plan_check() {
    let config = NpuConfig::preset("teaching").unwrap();
    let mut builder = ProgramBuilder::new();
    let x = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
    let op = TileOp::Vector {
        op: VectorOp::Compare(CompareOp::Eq),
        inputs: vec![VectorOperand::Tile { buffer: x, shape: vec![16, 64] }, VectorOperand::Scalar(1.0)],
        output: x,
        valid_shape: [16, 64].into(),
    };
    builder.push(op, vec![], vec![]).unwrap();
    let plan = KernelPlan {
        name: "bad".into(),
        tensors: vec![],
        programs: vec![builder.finish()],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    let error = tilelab::npu::check_plan(&plan, &config).expect_err("a mask must be DT_BOOL");
    assert!(error.to_string().contains("DT_BOOL"), "{error}");
}

#[test]
fn integer_tiles_compute_exactly_in_their_own_dtype() {
    // 2^24 + 7 is odd and above f32's exact integers: an f32 computation would round it away.
    // x = [1, 2, 3, …] INT32: x * 3 + (2^24 + 7) = 2^24 + 10, 2^24 + 13 …; clip to [2^24 + 12,
    // 2^24 + 20]; the row sums of x * 2^22 exceed 2^24 and are odd multiples of 2^22 … exactly.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def shift(x, out, bounded, sums):\n    pypto.set_vec_tile_shapes(4, 8)\n\
         \x20   out[:] = x * 3 + 16777223\n\
         \x20   bounded[:] = pypto.clip(x * 3 + 16777223, 16777228, 16777236)\n\
         \x20   sums[:] = pypto.sum(x * 4194304 + 1, dim=-1, keepdim=True)\n\
         x = pypto.reshape(pypto.arange(1, 33, dtype=pypto.DT_INT32), [4, 8])\n\
         out = pypto.zeros([4, 8], dtype=pypto.DT_INT32)\n\
         bounded = pypto.zeros([4, 8], dtype=pypto.DT_INT32)\n\
         sums = pypto.zeros([4, 1], dtype=pypto.DT_INT64)\n\
         shift(x, out, bounded, sums)\n\
         print(out[0, 0].item() - 16777216)\nprint(out[3, 7].item() - 16777216)\n\
         print(bounded[0, 0].item() - 16777216)\nprint(bounded[0, 1].item() - 16777216)\nprint(bounded[3, 7].item() - 16777216)\n\
         print(sums[0, 0].item())\n",
    );
    // x[0,0] = 1 → 3 + 7 = 10; x[3,7] = 32 → 96 + 7 = 103; clip: 10 → 12, 13 → 13, 103 → 20.
    // Row 0: (1 + … + 8) · 2^22 + 8 = 36 · 4194304 + 8 = 150994952.
    assert_eq!(numbers(&stdout), vec![10.0, 103.0, 12.0, 13.0, 20.0, 150994952.0], "{stdout}");
}

#[test]
fn topk_gives_indices_and_their_values_in_order() {
    // Row 0 = [0.5, 3, -1, 3, 2, 0, 1, 7]: the three largest are 7 (index 7), then the tie 3 at
    // indices 1 and 3 (lower index first); the two smallest of row 1 = -row 0 are -7 and -3.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def best(x, values, indices, low):\n    pypto.set_vec_tile_shapes(2, 8)\n\
         \x20   top, where_top = pypto.topk(x, 3, dim=-1, largest=True)\n\
         \x20   values[:] = top\n    indices[:] = where_top\n\
         \x20   bottom, _ = pypto.topk(x, 2, dim=-1, largest=False)\n    low[:] = bottom\n\
         row = [0.5, 3.0, -1.0, 3.0, 2.0, 0.0, 1.0, 7.0]\n\
         x = pypto.as_tensor([row, [-v for v in row]])\n\
         values = pypto.zeros([2, 3])\nindices = pypto.zeros([2, 3], dtype=pypto.DT_INT32)\nlow = pypto.zeros([2, 2])\n\
         best(x, values, indices, low)\n\
         for v in values.tolist()[0] + indices.tolist()[0] + low.tolist()[1]:\n    print(v)\n",
    );
    assert_eq!(numbers(&stdout), vec![7.0, 3.0, 3.0, 7.0, 1.0, 3.0, -7.0, -3.0], "{stdout}");
}

#[test]
fn a_batched_matmul_runs_one_cube_matmul_per_batch_index() {
    // [3, 16, 32] @ [3, 32, 16] in f16 → f32: three cube matmuls; batch 1 of ones @ ones is 32
    // everywhere (hand value), the rest matches the CPU path within f32 summation order.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def bmm(a, b, out):\n    pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])\n\
         \x20   out[:] = pypto.matmul(a, b, pypto.DT_FP32)\n\
         a = pypto.cast(pypto.randn([3, 16, 32], seed=16), pypto.DT_FP16)\n\
         b = pypto.cast(pypto.randn([3, 32, 16], seed=17), pypto.DT_FP16)\n\
         a[1:2, :, :] = pypto.ones([1, 16, 32], dtype=pypto.DT_FP16)\n\
         b[1:2, :, :] = pypto.ones([1, 32, 16], dtype=pypto.DT_FP16)\n\
         out = pypto.zeros([3, 16, 16])\n\
         s = pypto.schedule(bmm, a, b, out)\n\
         print(s.pipe_busy['CUBE'] > 0)\n\
         print(out[1, 3, 5].item())\n\
         print(pypto.amax(pypto.abs(out - pypto.matmul(a, b, pypto.DT_FP32))).item())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0].trim(), "True", "the cube ran: {stdout}");
    assert_eq!(lines[1].trim().parse::<f64>().unwrap(), 32.0, "{stdout}");
    assert!(lines[2].trim().parse::<f64>().unwrap() <= 1e-4, "{stdout}");
}
