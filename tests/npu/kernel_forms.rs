//! Forms of real pypto kernels that run on the simulated NPU rather than the CPU fallback (issue 13
//! item 6): a reduction written into a 1-D output, `reshape`/`transpose` of an argument (a GM
//! view the DMA reads), and `full`/`zeros`/`ones` used as operands. The reference is the same
//! computation with pypto ops outside any kernel (the CPU path).

use tilelab::session::Session;

/// Runs `code`, which must succeed without any kernel falling back to the CPU; returns stdout.
pub fn run_on_npu(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    let fallbacks: Vec<&String> = result
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.code == "npu/cpu-fallback")
        .map(|diagnostic| &diagnostic.message)
        .collect();
    assert!(fallbacks.is_empty(), "fell back to the CPU: {fallbacks:?}");
    result.stdout
}

/// The numbers the cell printed, one per line.
pub fn printed(stdout: &str) -> Vec<f64> {
    stdout.lines().map(|line| line.trim().parse().unwrap_or_else(|_| panic!("not a number: {stdout}"))).collect()
}

/// The largest |kernel − reference| the cell printed last.
fn worst_error(stdout: &str) -> f64 {
    let last = stdout.lines().last().unwrap_or_default();
    last.trim().parse().unwrap_or_else(|_| panic!("not a number: {stdout}"))
}

#[test]
fn a_reduction_with_keepdim_false_is_written_into_a_one_dimensional_output() {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def row_sums(a, out):\n    pypto.set_vec_tile_shapes(16, 64)\n    out[:] = pypto.sum(a, dim=-1, keepdim=False)\n\
         a = pypto.randn([40, 64], seed=3)\nout = pypto.zeros([40])\n\
         s = pypto.schedule(row_sums, a, out)\n\
         print(s.cores_used)\n\
         print(pypto.amax(pypto.abs(out - pypto.sum(a, dim=-1))).item())\n",
    );
    assert!(stdout.lines().next().unwrap().trim().parse::<usize>().unwrap() >= 3, "3 row tiles: {stdout}");
    assert!(worst_error(&stdout) <= 1e-5, "{stdout}");
}

#[test]
fn reshape_and_transpose_of_an_argument_are_read_as_gm_views() {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def flip(a, out):\n    pypto.set_vec_tile_shapes(32, 32)\n    out[:] = pypto.transpose(a, 0, 1) * 2.0\n\
         @pypto.frontend.jit\n\
         def fold(a, out):\n    pypto.set_vec_tile_shapes(16, 32)\n    out[:] = pypto.exp(pypto.reshape(a, [64, 32]))\n\
         a = pypto.randn([32, 64], seed=4)\n\
         flipped = pypto.zeros([64, 32])\nflip(a, flipped)\n\
         folded = pypto.zeros([64, 32])\nfold(a, folded)\n\
         print(pypto.amax(pypto.abs(flipped - pypto.transpose(a, 0, 1) * 2.0)).item())\n\
         print(pypto.amax(pypto.abs(folded - pypto.exp(pypto.reshape(a, [64, 32])))).item())\n",
    );
    let errors: Vec<f64> = stdout.lines().map(|line| line.trim().parse().unwrap()).collect();
    assert_eq!(errors[0], 0.0, "a transpose moves values exactly: {stdout}");
    assert!(errors[1] <= 1e-6, "{stdout}");
}

#[test]
fn full_zeros_and_ones_inside_a_kernel_are_folded_into_the_ops_that_use_them() {
    // The sigmoid of pypto's FFN example: ones / (exp(-x) + ones), with `ones` made by `full`.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def sigmoid(x, out):\n    pypto.set_vec_tile_shapes(32, 64)\n\
         \x20   ones = pypto.full([64, 64], 1.0, pypto.DT_FP32)\n\
         \x20   zero = pypto.zeros([64, 64])\n\
         \x20   out[:] = pypto.div(ones, pypto.add(pypto.exp(pypto.neg(x)), ones)) + zero\n\
         x = pypto.randn([64, 64], seed=5)\nout = pypto.zeros([64, 64])\nsigmoid(x, out)\n\
         print(pypto.amax(pypto.abs(out - pypto.sigmoid(x))).item())\n",
    );
    assert!(worst_error(&stdout) <= 1e-6, "{stdout}");
}

#[test]
fn a_computed_tile_is_reshaped_by_a_vector_copy() {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def k(a, out):\n    pypto.set_vec_tile_shapes(16, 32)\n    out[:] = pypto.reshape(a * 2.0, [64, 32])\n\
         a = pypto.randn([32, 64], seed=6)\nout = pypto.zeros([64, 32])\nk(a, out)\n\
         print(pypto.amax(pypto.abs(out - pypto.reshape(a * 2.0, [64, 32]))).item())\n",
    );
    assert_eq!(worst_error(&stdout), 0.0, "{stdout}");
}

#[test]
fn cube_buffers_hold_the_smaller_of_the_tile_and_the_matrix() {
    // kL1 = 512 and nL1 = 256 in f32 would need 1.5 MiB of L1; with K = 8 the operand strips are
    // 8 deep, so the matmul fits the 512 KiB L1 and runs on the cube.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto\n\
         @pypto.frontend.jit\n\
         def mm(a, b, out):\n    pypto.set_cube_tile_shapes([128, 128], [256, 512], [128, 256])\n    out[:] = pypto.matmul(a, b)\n\
         a = pypto.randn([256, 8], seed=7)\nb = pypto.randn([8, 512], seed=8)\nout = pypto.zeros([256, 512])\n\
         s = pypto.schedule(mm, a, b, out)\nprint(s.cores_used)\n\
         print(pypto.amax(pypto.abs(out - pypto.matmul(a, b))).item())\n",
    );
    assert_eq!(stdout.lines().next().unwrap().trim(), "4", "2 × 2 output blocks: {stdout}");
    assert!(worst_error(&stdout) <= 1e-4, "{stdout}");
}

#[test]
fn accumulating_outputs_do_not_depend_on_the_preset() {
    // 30 iterations add BF16-rounded column sums into two BF16 outputs. The chips run the
    // iterations on different cores in different orders; the values must not differ (before the
    // adds were applied in program order, `teaching` differed from Ascend910B2 by up to 64).
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def col_sums(x, db, dg):\n    pt.set_vec_tile_shapes(16, 64)\n    for i in pt.loop(30):\n\
         \x20       t = pt.view(x, [16, 64], [i * 16, 0])\n\
         \x20       db[0:1, :] = db[0:1, :] + pt.sum(t, dim=0, keepdim=True)\n\
         \x20       dg[0:1, :] = dg[0:1, :] + pt.sum(t * t, dim=0, keepdim=True)\n\
         x = pt.cast(pt.randn([480, 64], seed=11) * 3.0, pt.DT_BF16)\n\
         results = []\n\
         for preset in ['Ascend910B2', 'Ascend910A', 'teaching']:\n\
         \x20   pt.npu.use(preset)\n\
         \x20   db = pt.zeros([1, 64], dtype=pt.DT_BF16)\n    dg = pt.zeros([1, 64], dtype=pt.DT_BF16)\n\
         \x20   col_sums(x, db, dg)\n    results.append((db, dg))\n\
         worst = 0.0\n\
         for db, dg in results[1:]:\n\
         \x20   worst = max(worst, pt.amax(pt.abs(pt.cast(db - results[0][0], pt.DT_FP32))).item())\n\
         \x20   worst = max(worst, pt.amax(pt.abs(pt.cast(dg - results[0][1], pt.DT_FP32))).item())\n\
         print(worst)\n",
    );
    assert_eq!(worst_error(&stdout), 0.0, "{stdout}");
}

#[test]
fn the_vec_tile_alignment_is_checked_in_the_dtype_of_the_tensors_it_tiles_and_narrow_rows_are_padded() {
    // A [16, 8] tile is 32 B per row in FP32 and 16 B in BF16: the BF16 argument that no op under
    // the tile touches does not make it misaligned (it did when the first argument's dtype was
    // taken), and a column tile (last dim 1) is padded by the chip.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def scale(x, r, out, column, sums):\n    pt.set_vec_tile_shapes(16, 8)\n    out[:] = r * 2.0\n\
         \x20   pt.set_vec_tile_shapes(16, 1)\n    sums[:] = column + 1.0\n\
         x = pt.cast(pt.randn([64, 64], seed=9), pt.DT_BF16)\nr = pt.randn([64, 8], seed=10)\n\
         column = pt.randn([64, 1], seed=12)\nout = pt.zeros([64, 8])\nsums = pt.zeros([64, 1])\n\
         scale(x, r, out, column, sums)\n\
         print(max(pt.amax(pt.abs(out - r * 2.0)).item(), pt.amax(pt.abs(sums - (column + 1.0))).item()))\n",
    );
    assert_eq!(worst_error(&stdout), 0.0, "{stdout}");
    // A [16, 8] tile over BF16 tensors fills half a granule per row: as pypto's compiler does, the
    // rows are padded to 16 elements in UB and the kernel runs on the NPU (before, a misaligned UB
    // tile stopped it), with a warning at the tile shape naming the aligned sizes.
    let padded = session.run_cell(
        "@pt.frontend.jit\n\
         def widen(x, r, out):\n    pt.set_vec_tile_shapes(16, 8)\n    out[:] = pt.cast(x, pt.DT_FP32) + r\n\
         low = pt.cast(r, pt.DT_BF16)\nwidened = pt.zeros([64, 8])\nwiden(low, r, widened)\n\
         print(pt.amax(pt.abs(widened - (pt.cast(low, pt.DT_FP32) + r))).item())\n",
    );
    assert!(padded.is_ok(), "{:?}", padded.error());
    let codes: Vec<&str> = padded.diagnostics.iter().map(|diagnostic| diagnostic.code.as_str()).collect();
    assert!(!codes.contains(&"npu/cpu-fallback"), "{codes:?}");
    let warning =
        padded.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/vec-tile-padded").expect("warned");
    assert!(warning.message.contains("not 32-byte aligned for DT_BF16"), "{}", warning.message);
    assert!(warning.help.as_deref().is_some_and(|help| help.contains("padded to a multiple of 16")), "{warning:?}");
    assert_eq!(warning.line, 3, "the warning points at the tile shape line");
    assert_eq!(worst_error(&padded.stdout), 0.0, "{}", padded.stdout);
}

#[test]
fn a_kernel_local_tensor_carried_across_iterations_is_an_ordered_workspace() {
    // `running` and `acc` are the kernel's own tensors, read and written by every iteration: they
    // live in GM workspaces whose tasks run on one core in program order (a running sum of blocks,
    // and a split-K matmul accumulated in f32).
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def block_sum(stacked, total):\n    pt.set_vec_tile_shapes(8, 64)\n    running = pt.zeros([8, 64])\n\
         \x20   for blk in pt.loop(6):\n\
         \x20       tile = pt.view(stacked, [8, 64], [blk * 8, 0])\n        running[:] = running + tile\n\
         \x20   total[:] = running * 2.0\n\
         @pt.frontend.jit\n\
         def split_k(a, b, c):\n    pt.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])\n    pt.set_vec_tile_shapes(16, 64)\n\
         \x20   acc = pt.zeros([32, 64])\n\
         \x20   for kb in pt.loop(4):\n\
         \x20       a_blk = pt.view(a, [32, 64], [0, kb * 64])\n        b_blk = pt.view(b, [64, 64], [kb * 64, 0])\n\
         \x20       acc[:] = acc + pt.matmul(a_blk, b_blk, pt.DT_FP32)\n\
         \x20   c[:] = acc + pt.full([32, 64], 0.25)\n\
         stacked = pt.rand([48, 64], seed=13)\ntotal = pt.zeros([8, 64])\nblock_sum(stacked, total)\n\
         a = pt.cast(pt.randn([32, 256], seed=14), pt.DT_FP16)\nb = pt.cast(pt.randn([256, 64], seed=15) / 16.0, pt.DT_FP16)\n\
         c = pt.zeros([32, 64])\nsplit_k(a, b, c)\n\
         print(pt.amax(pt.abs(total - pt.reshape(stacked, [6, 8, 64]).sum(dim=0) * 2.0)).item())\n\
         print(pt.amax(pt.abs(c - (pt.matmul(a, b, pt.DT_FP32) + 0.25))).item())\n",
    );
    let errors: Vec<f64> = stdout.lines().map(|line| line.trim().parse().unwrap()).collect();
    assert!(errors[0] <= 1e-5, "{stdout}");
    assert!(errors[1] <= 1e-4, "{stdout}");
}

#[test]
fn a_schedule_takes_shape_only_specs_and_names_a_spec_without_sizes() {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def add(x, y, out):\n    pt.set_vec_tile_shapes(32, 512)\n    out[:] = x + y\n\
         spec = pt.Tensor([2048, 2048], pt.DT_FP16)\n\
         s = pt.schedule(add, spec, spec, pt.Tensor([2048, 2048], pt.DT_FP16))\n\
         print(s.cores_used)\nprint(s.gm_bytes_read)\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "48", "64 row tiles over the 48 vector cores: {stdout}");
    assert_eq!(lines[1], (2 * 2048 * 2048 * 2).to_string(), "x and y read once: {stdout}");
    let refused = session.run_cell("pt.schedule(add, spec, spec, pt.Tensor([pt.DYNAMIC, 2048], pt.DT_FP16))");
    let error = refused.error().expect("a dynamic dim has no size to schedule");
    assert!(error.message.contains("needs a size for every dim"), "{}", error.message);
}

#[test]
fn a_value_made_from_a_workspace_before_it_changed_is_never_recomputed_from_the_new_content() {
    // `base` is made from `running` before the loop; every iteration overwrites `running`. Units
    // recompute what they need, and recomputing `base` would read the new content: the kernel
    // falls back to the CPU with a note rather than give wrong values.
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def stale(x, out):\n    pt.set_vec_tile_shapes(8, 64)\n    running = pt.zeros([8, 64])\n\
         \x20   running[:] = pt.view(x, [8, 64], [0, 0])\n    base = running * 2.0\n\
         \x20   for i in pt.loop(1, 3):\n\
         \x20       t = pt.view(x, [8, 64], [i * 8, 0])\n        running[:] = running + t\n        out[:] = base + running\n\
         x = pt.rand([24, 64], seed=16)\nout = pt.zeros([8, 64])\nstale(x, out)\n\
         first, second = pt.view(x, [8, 64], [0, 0]), pt.view(x, [8, 64], [8, 0])\n\
         third = pt.view(x, [8, 64], [16, 0])\n\
         print(pt.amax(pt.abs(out - (3.0 * first + second + third))).item())\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    let fallback = result.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/cpu-fallback");
    let message = &fallback.expect("the kernel falls back").message;
    assert!(message.contains("before it was overwritten"), "{message}");
    assert!(worst_error(&result.stdout) <= 1e-6, "{}", result.stdout);
}

#[test]
fn online_softmax_attention_keeps_its_running_state_in_ordered_workspaces() {
    // Flash attention's running max, sum and output: each iteration rescales what the earlier
    // ones left, with a tile shape change inside the iteration.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def attend(q, k, v, out):\n\
         \x20   running_max = pt.tensor([32, 1], pt.DT_FP32)\n    running_sum = pt.tensor([32, 1], pt.DT_FP32)\n\
         \x20   acc = pt.tensor([32, 64], pt.DT_FP32)\n\
         \x20   for blk in pt.loop(4):\n\
         \x20       k_blk = pt.view(k, [32, 64], [blk * 32, 0])\n        v_blk = pt.view(v, [32, 64], [blk * 32, 0])\n\
         \x20       pt.set_cube_tile_shapes([32, 32], [64, 64], [32, 32])\n\
         \x20       scores = pt.matmul(q, k_blk, pt.DT_FP32, b_trans=True) * 0.125\n\
         \x20       pt.set_vec_tile_shapes(16, 32)\n\
         \x20       block_max = pt.amax(scores, dim=-1, keepdim=True)\n\
         \x20       if pt.is_loop_begin(blk):\n\
         \x20           new_max = block_max\n            carry = pt.zeros([32, 1])\n\
         \x20       else:\n\
         \x20           new_max = pt.maximum(running_max, block_max)\n            carry = pt.exp(running_max - new_max)\n\
         \x20       probs = pt.exp(scores - new_max)\n\
         \x20       running_sum[:] = running_sum * carry + pt.sum(probs, dim=-1, keepdim=True)\n\
         \x20       running_max[:] = new_max\n\
         \x20       pt.set_cube_tile_shapes([32, 32], [32, 32], [64, 64])\n\
         \x20       update = pt.matmul(pt.cast(probs, pt.DT_FP16), v_blk, pt.DT_FP32)\n\
         \x20       pt.set_vec_tile_shapes(16, 64)\n\
         \x20       acc[:] = acc * carry + update\n\
         \x20       if pt.is_loop_end(blk):\n            out[:] = acc / running_sum\n\
         q = pt.cast(pt.randn([32, 64], seed=17), pt.DT_FP16)\n\
         k = pt.cast(pt.randn([128, 64], seed=18), pt.DT_FP16)\n\
         v = pt.cast(pt.randn([128, 64], seed=19), pt.DT_FP16)\n\
         out = pt.zeros([32, 64])\nattend(q, k, v, out)\n\
         probs = pt.softmax(pt.matmul(q, k, pt.DT_FP32, b_trans=True) * 0.125, dim=-1)\n\
         print(pt.amax(pt.abs(out - pt.matmul(pt.cast(probs, pt.DT_FP32), pt.cast(v, pt.DT_FP32)))).item())\n",
    );
    // probs are rounded to fp16 before the second matmul on both the kernel's path and not on the
    // reference's: the bound is fp16's relative step on values of magnitude ≤ 1 times Σ|v|.
    assert!(worst_error(&stdout) <= 2e-2, "{stdout}");
}

#[test]
fn float_to_integer_casts_follow_their_cast_mode_on_the_cpu_and_on_the_npu() {
    // Hand-computed: 2·x = [-2.6, -0.4, 0.8, 1.98, 3.2, 6.6, -5.0, 5.0]; round is half away from zero.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def k(x, t, n, f):\n    pt.set_vec_tile_shapes(8, 8)\n    s = x * 2.0\n\
         \x20   t[:] = pt.cast(s, pt.DT_INT32, pt.CastMode.CAST_TRUNC)\n\
         \x20   n[:] = pt.cast(s, pt.DT_INT32, mode=pt.CastMode.CAST_ROUND)\n\
         \x20   f[:] = pt.cast(s, pt.DT_INT32, pt.CastMode.CAST_FLOOR)\n\
         x = pt.as_tensor([[-1.3, -0.2, 0.4, 0.99, 1.6, 3.3, -2.5, 2.5]] * 8)\n\
         t = pt.zeros([8, 8], pt.DT_INT32)\nn = pt.zeros([8, 8], pt.DT_INT32)\nf = pt.zeros([8, 8], pt.DT_INT32)\n\
         k(x, t, n, f)\nprint(t.tolist()[7])\nprint(n.tolist()[7])\nprint(f.tolist()[7])\n\
         print(pt.cast(x * 2.0, pt.DT_INT32, pt.CastMode.CAST_CEIL).tolist()[0])\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "[-2, 0, 0, 1, 3, 6, -5, 5]");
    assert_eq!(lines[1], "[-3, 0, 1, 2, 3, 7, -5, 5]");
    assert_eq!(lines[2], "[-3, -1, 0, 1, 3, 6, -5, 5]");
    assert_eq!(lines[3], "[-2, 0, 1, 2, 4, 7, -5, 5]");
}

#[test]
fn iterations_overwriting_one_output_run_in_program_order_on_one_core() {
    // pypto's loop examples write the whole output in every iteration (`out.move(a + a)` inside
    // nested `pypto.loop`s): the stores race unless they keep the loop's order, so every task
    // that writes `out` runs on one core, in program order, and the last iteration's value stays.
    // `other` is written by disjoint rows and spreads over the cores as usual.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def overwrite(x, out, other):\n    pt.set_vec_tile_shapes(16, 64)\n\
         \x20   for i in pt.loop(3):\n\
         \x20       for j in pt.loop(4):\n\
         \x20           out.move(pt.add(x, x) * (i * 4 + j))\n\
         @pt.frontend.jit\n\
         def rows(x, other):\n    pt.set_vec_tile_shapes(16, 64)\n\
         \x20   for i in pt.loop(4):\n\
         \x20       other[i * 16:(i + 1) * 16, :] = pt.view(x, [16, 64], [i * 16, 0]) * 2.0\n\
         x = pt.rand([64, 64], seed=3)\nout = pt.zeros([64, 64])\nother = pt.zeros([64, 64])\n\
         s = pt.schedule(overwrite, x, out, other)\nr = pt.schedule(rows, x, other)\n\
         print(s.cores_used, r.cores_used)\n\
         print(pt.amax(pt.abs(out - x * 22.0)).item())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "1 4", "{stdout}");
    assert!(lines[1].trim().parse::<f64>().unwrap() <= 1e-5, "{stdout}");
}

#[test]
fn batched_matmuls_with_a_broadcast_batch_or_padded_columns_run_on_the_npu() {
    // pypto's matmul examples: [2, 2, 2] f32 operands (2 columns, padded to the 32-byte granule in
    // UB) and a batch broadcast `[1, 2, 2] @ [2, 2, 2]`. Each is one cube matmul per batch index:
    // 2 batches × 2·2·2·2 FLOP = 32 FLOP per kernel.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def bmm(a, b, out):\n    pt.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])\n    out[:] = pt.matmul(a, b, pt.DT_FP32)\n\
         a = pt.as_tensor([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])\n\
         b = pt.as_tensor([[[5.0, 6.0], [7.0, 8.0]], [[1.0, 2.0], [3.0, 4.0]]])\n\
         one = pt.as_tensor([[[1.0, 2.0], [3.0, 4.0]]])\n\
         out = pt.zeros([2, 2, 2])\nwide = pt.zeros([2, 2, 2])\n\
         bmm(a, b, out)\nbmm(one, b, wide)\n\
         s = pt.schedule(bmm, a, b, pt.zeros([2, 2, 2]))\nt = pt.schedule(bmm, one, b, pt.zeros([2, 2, 2]))\n\
         print(s.flops, t.flops)\nprint(out.tolist())\nprint(wide.tolist())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "32 32", "{stdout}");
    // By hand: [[1,2],[3,4]]·[[5,6],[7,8]] = [[19,22],[43,50]], [[5,6],[7,8]]·[[1,2],[3,4]] = [[23,34],[31,46]],
    // and the broadcast [[1,2],[3,4]]·[[1,2],[3,4]] = [[7,10],[15,22]].
    assert_eq!(lines[1], "[[[19.0, 22.0], [43.0, 50.0]], [[23.0, 34.0], [31.0, 46.0]]]", "{stdout}");
    assert_eq!(lines[2], "[[[19.0, 22.0], [43.0, 50.0]], [[7.0, 10.0], [15.0, 22.0]]]", "{stdout}");
}

#[test]
fn scatter_runs_on_the_vector_unit_with_each_reduce_mode() {
    // x = 1 everywhere ([2, 4]); index row 0 = [1, 0, 1, 0] along dim 0 puts src's row 0 into rows
    // 1, 0, 1, 0 of columns 0..4. Replace with 0.5: [[1, .5, 1, .5], [.5, 1, .5, 1]]; add 2 with
    // the index [[1, 1, 0, 0]]: [[1, 1, 3, 3], [3, 3, 1, 1]]; multiply by src row [2, 3, 4, 5]
    // with the index [[0, 1, 0, 1]]: [[2, 1, 4, 1], [1, 3, 1, 5]].
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def put(x, index, src, out, mode):\n    pt.set_vec_tile_shapes(2, 8)\n\
         \x20   if mode == 'number':\n        out[:] = pt.scatter(x, 0, index, 0.5)\n\
         \x20   elif mode == 'add':\n        out[:] = pt.scatter(x, 0, index, src, reduce='add')\n\
         \x20   else:\n        out[:] = pt.scatter(x, 0, index, src, reduce='multiply')\n\
         x = pt.ones([2, 4])\nout = pt.zeros([2, 4])\n\
         put(x, pt.as_tensor([[1, 0, 1, 0]], dtype=pt.DT_INT64), pt.full([1, 4], 2.0), out, 'number')\n\
         print(out.tolist())\n\
         put(x, pt.as_tensor([[1, 1, 0, 0]], dtype=pt.DT_INT64), pt.full([1, 4], 2.0), out, 'add')\n\
         print(out.tolist())\n\
         put(x, pt.as_tensor([[0, 1, 0, 1]], dtype=pt.DT_INT64), pt.as_tensor([[2.0, 3.0, 4.0, 5.0]]), out, 'multiply')\n\
         print(out.tolist())\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[lines.len() - 3..],
        [
            "[[1.0, 0.5, 1.0, 0.5], [0.5, 1.0, 0.5, 1.0]]",
            "[[1.0, 1.0, 3.0, 3.0], [3.0, 3.0, 1.0, 1.0]]",
            "[[2.0, 1.0, 4.0, 1.0], [1.0, 3.0, 1.0, 5.0]]",
        ],
        "{stdout}"
    );
}

/// The largest |kernel − reference| of `a @ bᵀ` batch by batch (`b_trans=True`, pypto's tiling
/// example) under cube tiles `tiles`, run on the NPU.
fn batched_product_error(tiles: &str, a: &str, b: &str) -> f64 {
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        &format!(
            "import pypto as pt\n\
             @pt.frontend.jit\n\
             def product(a, b, out):\n    pt.set_cube_tile_shapes({tiles})\n\
             \x20   out.move(pt.matmul(a, b, a.dtype, b_trans=True))\n\
             a = pt.randn({a}, seed=3)\nb = pt.randn({b}, seed=4)\nout = pt.zeros([{a}[0], {a}[1], {b}[1]])\n\
             product(a, b, out)\n\
             print(pt.amax(pt.abs(out - pt.matmul(a, pt.transpose(b, 1, 2)))).item())\n"
        ),
    );
    worst_error(&stdout)
}

#[test]
fn a_batched_matmul_of_gm_operands_loads_each_matrix_from_gm_and_stores_each_product() {
    // pypto's tiling example: [4, 64, 512] @ [4, 128, 512]ᵀ in f32 into [4, 64, 128]. Its operands
    // are 512 KiB and 1 MiB: sliced out of UB tiles they overflowed UB; loaded per batch from GM
    // into L1 and stored per product from the cube, the kernel needs no UB at all.
    let error = batched_product_error("[32, 32], [32, 32], [32, 32]", "[4, 64, 512]", "[4, 128, 512]");
    assert!(error < 1e-3, "{error}");
}

#[test]
fn an_l0_operand_tile_that_fills_its_buffer_is_single_buffered() {
    // The example's other cube tiles, [64, 64], [128, 128], [128, 128] in FP32: the B operand's L0
    // tile is 128 × 128 × 4 B = 64 KiB, all of 910B2's L0B. Two copies overflowed L0B; one copy
    // fits, and the kernel runs.
    let error = batched_product_error("[64, 64], [128, 128], [128, 128]", "[2, 64, 256]", "[2, 128, 256]");
    assert!(error < 1e-3, "{error}");
}

#[test]
fn a_view_of_a_value_computed_before_the_loop_reads_it_from_a_gm_workspace() {
    // pypto's attention example projects the whole batch before its loop, reshapes and transposes
    // the result, then views one batch per iteration: the projection is computed once into a GM
    // workspace and each iteration loads its view (through the reshape and the transpose) from it.
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def heads(h, w, out):\n    pt.set_vec_tile_shapes(1, 8, 16, 64)\n\
         \x20   flat = pt.matmul(h, w, out_dtype=pt.DT_FP32)\n\
         \x20   q = pt.transpose(pt.reshape(flat, [2, 32, 8, 64]), 1, 2)\n\
         \x20   for b in pt.loop(0, 2, 1):\n\
         \x20       view = pt.view(q, [1, 8, 32, 64], [b, 0, 0, 0])\n\
         \x20       out[b:b + 1, ...] = view * 2.0\n\
         h = pt.randn([2, 32, 512], seed=5)\nw = pt.randn([1, 512, 512], seed=6)\nout = pt.zeros([2, 8, 32, 64])\n\
         heads(h, w, out)\n\
         expected = pt.transpose(pt.reshape(pt.matmul(h, w), [2, 32, 8, 64]), 1, 2) * 2.0\n\
         print(pt.amax(pt.abs(out - expected)).item())\n",
    );
    assert!(worst_error(&stdout) < 1e-3, "{stdout}");
}

#[test]
fn attention_over_batched_matmuls_runs_its_vector_work_through_gm_workspaces() {
    // pypto's dynamic attention: q·kᵀ over [batch, heads, seq, dim] views, a scale, a softmax and
    // the product with v, per block of the batch. The scores ([2, 8, 64, 64] f32, 256 KiB) do not
    // fit UB whole: the batched products go to a GM workspace that the softmax reads by its vec
    // tile, and the weights reach the second matmul through another (before, the unit overflowed UB).
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def attention(q, k, v, out):\n    pt.set_cube_tile_shapes([64, 64], [64, 64], [64, 64])\n\
         \x20   for block in pt.loop(0, 2, 1):\n\
         \x20       b = block * 2\n\
         \x20       qs = pt.view(q, [2, 8, 64, 64], [b, 0, 0, 0])\n\
         \x20       ks = pt.view(k, [2, 8, 64, 64], [b, 0, 0, 0])\n\
         \x20       vs = pt.view(v, [2, 8, 64, 64], [b, 0, 0, 0])\n\
         \x20       pt.set_vec_tile_shapes(1, 8, 16, 64)\n\
         \x20       scores = pt.matmul(qs, pt.transpose(ks, 2, 3), out_dtype=pt.DT_FP32) * 0.125\n\
         \x20       weights = pt.softmax(scores, dim=-1)\n\
         \x20       pt.assemble(pt.matmul(weights, vs, out_dtype=pt.DT_FP32), [b, 0, 0, 0], out)\n\
         q = pt.randn([4, 8, 64, 64], seed=7)\nk = pt.randn([4, 8, 64, 64], seed=8)\nv = pt.randn([4, 8, 64, 64], seed=9)\n\
         out = pt.zeros([4, 8, 64, 64])\nattention(q, k, v, out)\n\
         expected = pt.matmul(pt.softmax(pt.matmul(q, pt.transpose(k, 2, 3)) * 0.125, dim=-1), v)\n\
         print(pt.amax(pt.abs(out - expected)).item())\n",
    );
    assert!(worst_error(&stdout) < 1e-4, "{stdout}");
}
