//! Forms that real pypto kernels use (pypto-gym's AdamW and Gemma softmax, pypto's own docs): the
//! `precision_type=` of the division and the transcendental ops, a reduction's `[1, 1]` result
//! assigned into a `[1]` tensor, and the documented `max_workspace_kb` runtime option. References
//! are computed outside any kernel (the CPU path).

use tilelab::session::Session;

use super::kernel_forms::{printed, run_on_npu};

#[test]
fn precision_type_is_accepted_by_the_functions_and_methods_that_take_it() {
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         P = pypto.PrecisionType\n\
         @pypto.frontend.jit\n\
         def precise(x: pypto.Tensor([8, 64], pypto.DT_FP32), out: pypto.Tensor([8, 64], pypto.DT_FP32)):\n\
         \x20   pypto.set_vec_tile_shapes(8, 64)\n\
         \x20   a = pypto.div(x, 2.0, precision_type=P.HIGH_PRECISION) + pypto.exp(x, P.INTRINSIC)\n\
         \x20   b = pypto.sqrt(x, precision_type=P.INTRINSIC) + pypto.rsqrt(x, precision_type=P.HIGH_PRECISION)\n\
         \x20   c = pypto.log(x, precision_type=P.INTRINSIC) + pypto.reciprocal(x, precision_type=P.HIGH_PRECISION)\n\
         \x20   out[:] = a + b + c + x.exp(precision_type=P.INTRINSIC) + x.sqrt(P.INTRINSIC)\n\
         x = pypto.rand([8, 64], seed=21) + 0.5\nout = pypto.zeros([8, 64])\nprecise(x, out)\n\
         expected = x / 2.0 + pypto.exp(x) + pypto.sqrt(x) + pypto.rsqrt(x) + pypto.log(x) + 1.0 / x + pypto.exp(x) + pypto.sqrt(x)\n\
         print(pypto.amax(pypto.abs(out - expected) / pypto.abs(expected)).item())\n",
    );
    let numbers = printed(&stdout);
    assert!(numbers[0] <= 1e-6, "largest relative error {}: {stdout}", numbers[0]);
}

#[test]
fn a_precision_type_that_is_not_one_is_an_error_naming_the_enumeration() {
    let mut session = Session::new();
    for call in ["pypto.div(x, 2.0, precision_type='high')", "pypto.exp(x, precision_type=1)"] {
        let result = session.run_cell(&format!("import pypto\nx = pypto.ones([2, 2])\ny = {call}\n"));
        let error = result.error().unwrap_or_else(|| panic!("{call} ran"));
        assert!(error.message.contains("PrecisionType"), "{call}: {}", error.message);
        assert_eq!(error.line, 3, "{call}: the error points at the call");
    }
}

#[test]
fn a_keepdim_reduction_is_assigned_into_a_tensor_without_its_leading_unit_dim() {
    // pypto-gym's Gemma softmax: gmax = pypto.tensor([1], …); gmax[:] = amax(row, -1, keepdim=True).
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def row_max(x: pypto.Tensor([1, 64], pypto.DT_FP32), out: pypto.Tensor([1], pypto.DT_FP32)):\n\
         \x20   pypto.set_vec_tile_shapes(1, 64)\n\
         \x20   m = pypto.tensor([1], pypto.DT_FP32, 'm')\n\
         \x20   m[:] = pypto.amax(x, dim=-1, keepdim=True)\n\
         \x20   out[:] = m\n\
         x = pypto.randn([1, 64], seed=22)\nout = pypto.zeros([1])\nrow_max(x, out)\n\
         print(out[0].item() - pypto.amax(x).item())\n\
         host = pypto.zeros([3])\nhost[:] = pypto.ones([1, 1, 3]) * 2.0\nprint(pypto.sum(host).item())\n",
    );
    assert_eq!(printed(&stdout), vec![0.0, 6.0], "{stdout}");
}

#[test]
fn a_value_with_a_leading_dim_larger_than_one_still_does_not_fit_a_smaller_slice() {
    let result = Session::new().run_cell("import pypto\nhost = pypto.zeros([3])\nhost[:] = pypto.ones([2, 3])\n");
    let error = result.error().expect("[2, 3] into [3] is an error");
    assert!(error.message.contains("[2, 3]") && error.message.contains("[3]"), "{}", error.message);
}

#[test]
fn max_workspace_kb_is_accepted_and_said_not_modelled() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto\n\
         @pypto.frontend.jit(runtime_options={'max_workspace_kb': 27776})\n\
         def plus(x: pypto.Tensor([8, 64], pypto.DT_FP32), out: pypto.Tensor([8, 64], pypto.DT_FP32)):\n\
         \x20   pypto.set_vec_tile_shapes(8, 64)\n\
         \x20   out[:] = x + 1.0\n\
         out = pypto.zeros([8, 64])\nplus(pypto.ones([8, 64]), out)\nprint(pypto.sum(out).item())\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout.trim(), "1024.0");
    let codes: Vec<&str> = result.diagnostics.iter().map(|diagnostic| diagnostic.code.as_str()).collect();
    assert!(codes.contains(&"npu/option-not-modelled"), "{codes:?}");
    assert!(!codes.contains(&"lang/unknown-option"), "{codes:?}");
}

#[test]
fn rms_norm_is_pypto_s_operator_with_and_without_gamma() {
    // pypto-gym's RMSNorm kernels call pypto.rms_norm(x, gamma, eps); the reference is the formula.
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def norm(x: pypto.Tensor([4, 64], pypto.DT_BF16), g: pypto.Tensor([64], pypto.DT_FP32),\n\
         \x20        out: pypto.Tensor([4, 64], pypto.DT_BF16), plain: pypto.Tensor([4, 64], pypto.DT_BF16)):\n\
         \x20   pypto.set_vec_tile_shapes(4, 64)\n\
         \x20   out[:] = pypto.rms_norm(x, g, 1e-6)\n\
         \x20   plain[:] = pypto.rms_norm(x)\n\
         x = pypto.cast(pypto.randn([4, 64], seed=23), pypto.DT_BF16)\ng = pypto.randn([64], seed=24)\n\
         out = pypto.zeros([4, 64], dtype=pypto.DT_BF16)\nplain = pypto.zeros([4, 64], dtype=pypto.DT_BF16)\n\
         norm(x, g, out, plain)\n\
         x32 = pypto.cast(x, pypto.DT_FP32)\n\
         unit = x32 / pypto.sqrt(pypto.mean(x32 * x32, -1, keepdim=True) + 1e-6)\n\
         print(pypto.amax(pypto.abs(pypto.cast(out, pypto.DT_FP32) - pypto.cast(pypto.cast(unit * g, pypto.DT_BF16), pypto.DT_FP32))).item())\n\
         print(pypto.amax(pypto.abs(pypto.cast(plain, pypto.DT_FP32) - pypto.cast(pypto.cast(unit, pypto.DT_BF16), pypto.DT_FP32))).item())\n\
         print(out.dtype == pypto.DT_BF16)\n",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    // One bf16 rounding step apart at most where the f32 sums differ in their last bit.
    for line in &lines[..2] {
        let error: f64 = line.trim().parse().unwrap_or_else(|_| panic!("{stdout}"));
        assert!(error <= 0.02, "{stdout}");
    }
    assert_eq!(lines[2].trim(), "True", "{stdout}");
}

#[test]
fn in_a_kernel_dim_is_pypto_s_rank_property_and_on_the_host_torch_s_method() {
    // pypto-gym's GutenOCR RMSNorm: `rank = hidden_states.dim` sizes its vec tile.
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\nimport torch\n\
         @pypto.frontend.jit\n\
         def plus(x: pypto.Tensor([4, 2, 64], pypto.DT_FP32), out: pypto.Tensor([4, 2, 64], pypto.DT_FP32)):\n\
         \x20   rank = x.dim\n\
         \x20   pypto.set_vec_tile_shapes(*[2 for _ in range(rank - 1)], 64)\n\
         \x20   out[:] = x + float(rank)\n\
         x = torch.ones(4, 2, 64)\nout = torch.zeros(4, 2, 64)\nplus(x, out)\n\
         print(out[3, 1, 63].item())\nprint(x.dim())\n",
    );
    assert_eq!(stdout, "4.0\n3\n");
}

#[test]
fn a_warning_in_a_loop_is_given_once_for_its_place_in_a_cell() {
    // DeepSeek-V4's kernels set `sg_set_scope` around each loop body: twice per iteration, and the
    // kernel is called twice; each place warns once per cell, as Python's warnings do.
    let mut session = Session::new();
    let code = "import pypto\n\
         @pypto.frontend.jit\n\
         def rows(x: pypto.Tensor([4, 64], pypto.DT_FP32), out: pypto.Tensor([4, 64], pypto.DT_FP32)):\n\
         \x20   pypto.set_vec_tile_shapes(1, 64)\n\
         \x20   for i in pypto.loop(4):\n\
         \x20       pypto.set_pass_options(sg_set_scope=1)\n\
         \x20       row = pypto.view(x, [1, 64], [i, 0])\n\
         \x20       pypto.set_pass_options(sg_set_scope=-1)\n\
         \x20       out[i:i + 1, :] = row + 1.0\n\
         x = pypto.ones([4, 64])\nout = pypto.zeros([4, 64])\nrows(x, out)\nrows(x, out)\n\
         print(pypto.sum(out).item())\n";
    for run in 0..2 {
        let result = session.run_cell(code);
        assert!(result.is_ok(), "{:?}", result.error());
        assert_eq!(result.stdout, "512.0\n");
        let lines: Vec<usize> = result.diagnostics.iter().map(|diagnostic| diagnostic.line).collect();
        assert_eq!(lines, vec![6, 8], "run {run}: one warning per place, again in the next cell");
    }
}

/// DeepSeek-V3.2's lightning indexer passes `extend_params={'scale': …, 'relu_type':
/// pypto.ReLuType.RELU}` to the cube: pypto's `DEQF16(ReLU(A @ B)) * scale`. The kernel runs on the
/// NPU; the reference is the CPU path of the same formula.
#[test]
fn matmul_relu_type_applies_relu_before_the_scale() {
    let stdout = run_on_npu(
        &mut Session::new(),
        "import pypto\n\
         @pypto.frontend.jit\n\
         def scored(a: pypto.Tensor([32, 64], pypto.DT_FP16), b: pypto.Tensor([32, 64], pypto.DT_FP16),\n\
         \x20          out: pypto.Tensor([32, 32], pypto.DT_FP16)):\n\
         \x20   pypto.set_cube_tile_shapes([32, 32], [64, 64], [32, 32])\n\
         \x20   params = {'scale': 1 / 8.0, 'relu_type': pypto.ReLuType.RELU}\n\
         \x20   out[:] = pypto.matmul(a, b, pypto.DT_FP16, a_trans=False, b_trans=True, extend_params=params)\n\
         a = pypto.rand([32, 64], seed=3, dtype=pypto.DT_FP16) - 0.5\n\
         b = pypto.rand([32, 64], seed=4, dtype=pypto.DT_FP16) - 0.5\n\
         out = pypto.zeros([32, 32], dtype=pypto.DT_FP16)\nscored(a, b, out)\n\
         product = pypto.matmul(pypto.cast(a, pypto.DT_FP32), pypto.transpose(pypto.cast(b, pypto.DT_FP32), 0, 1))\n\
         expected = pypto.relu(product) * (1 / 8.0)\n\
         print(pypto.amax(pypto.abs(pypto.cast(out, pypto.DT_FP32) - expected)).item())\n\
         print(pypto.amin(pypto.cast(out, pypto.DT_FP32)).item())\nprint(pypto.amin(product).item())\n",
    );
    let numbers = printed(&stdout);
    // fp16 output of values below 1: half an ulp is under 5e-4.
    assert!(numbers[0] <= 5e-4, "largest error {}: {stdout}", numbers[0]);
    assert_eq!(numbers[1], 0.0, "ReLU leaves no negative value: {stdout}");
    assert!(numbers[2] < 0.0, "the product has negative values for ReLU to clear: {stdout}");
}

/// `pypto.TileOpFormat` names the formats model code declares (`format=…TILEOP_NZ`, module-level
/// `ND = pypto.TileOpFormat.TILEOP_ND`); a `relu_type` that is not a `ReLuType` names it.
#[test]
fn tile_op_format_and_relu_type_are_pyptos_enumerations() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto\nND = pypto.TileOpFormat.TILEOP_ND\nNZ = pypto.TileOpFormat.TILEOP_NZ\n\
         print(ND, NZ, ND == NZ, pypto.ReLuType.NO_RELU)\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "TileOpFormat.TILEOP_ND TileOpFormat.TILEOP_NZ False ReLuType.NO_RELU\n");
    let result = session
        .run_cell("x = pypto.ones([16, 16])\npypto.matmul(x, x, pypto.DT_FP32, extend_params={'relu_type': 'relu'})\n");
    let error = result.error().expect("a str relu_type is an error");
    assert!(
        error.message.contains("extend_params['relu_type']") && error.message.contains("ReLuType"),
        "{}",
        error.message
    );
}

/// GLM-4.5's MoE fusion sets pypto's compile monitor before its test: accepted without a note; a
/// compile stage that would stop pypto's compiler early is a not-modelled warning at the argument.
#[test]
fn set_host_options_accepts_the_monitor_and_notes_a_compile_stage() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto\npypto.set_host_options(compile_monitor_enable=1, compile_timeout=10, compile_timeout_stage=5, compile_monitor_print_interval=2)\n",
    );
    assert!(result.is_ok() && result.diagnostics.is_empty(), "{:?} {:?}", result.error(), result.diagnostics);
    let result = session.run_cell("pypto.set_host_options(compile_stage=pypto.CompStage.TILE_GRAPH)\n");
    assert!(result.is_ok(), "{:?}", result.error());
    let notes: Vec<&str> = result.diagnostics.iter().map(|diagnostic| diagnostic.message.as_str()).collect();
    assert!(
        notes.iter().any(|note| note.contains("host_options 'compile_stage' is accepted, not modelled")),
        "{notes:?}"
    );
    let result = session.run_cell("pypto.set_host_options(compile_timeout_s=10)\n");
    assert!(result
        .error()
        .is_some_and(|error| error.message.contains("unexpected keyword argument 'compile_timeout_s'")));
}

/// GLM-4.5's MoE fusion then reads the monitor's total (`pypto_impl.GetCompilerMonitorTotalElapsed`)
/// and checks it against its 30 s budget: 0.0 before any kernel compiled, then the seconds the last
/// compile took (positive, and far below a second for a small kernel).
#[test]
fn the_compiler_monitor_total_is_the_last_compile_in_seconds() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto\nimport pypto.pypto_impl as pypto_impl\nprint(pypto_impl.GetCompilerMonitorTotalElapsed())\n\
         @pypto.frontend.jit\ndef double(x: pypto.Tensor([8, 8], pypto.DT_FP32), y: pypto.Tensor([8, 8], pypto.DT_FP32)):\n    \
         pypto.set_vec_tile_shapes(8, 8)\n    y[:] = x + x\n\
         y = pypto.tensor([8, 8], pypto.DT_FP32)\ndouble(pypto.ones([8, 8]), y)\n\
         seconds = pypto_impl.GetCompilerMonitorTotalElapsed()\nprint(type(seconds).__name__, 0 < seconds < 1, y[0, 0].item())\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "0.0\nfloat True 2.0\n");
}

/// GLM-4.5's attention fusion traces its kernel as pypto does, by running its Python: a helper it
/// calls builds its config with `torch.tensor` (host code at trace time, no tensor given), one
/// element of an integer tensor is pypto's `GetTensorData`, a scalar with `.min`, and
/// `cache.move(pypto.scatter_update(cache_2d, …))` moves a tensor's own storage (an in-place
/// reshape of it) into it, which leaves the scattered rows where they are.
#[test]
fn trace_time_host_code_tensor_elements_and_a_move_from_an_alias() {
    let stdout = run_on_npu(
        &mut Session::new(),
        "import torch, pypto\n\
         def config():\n    return torch.tensor([3, 5], dtype=torch.int32), 2.0\n\
         @pypto.frontend.jit\n\
         def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), seqs: pypto.Tensor([2], pypto.DT_INT32),\n\
         \x20     index: pypto.Tensor([4, 1], pypto.DT_INT32), cache: pypto.Tensor([2, 2, 8], pypto.DT_FP32),\n\
         \x20     out: pypto.Tensor([4, 8], pypto.DT_FP32)):\n\
         \x20   _, factor = config()\n\
         \x20   rows = (seqs[1] - 1).min(4)\n\
         \x20   pypto.set_vec_tile_shapes(4, 8)\n\
         \x20   out[:] = x * factor * rows\n\
         \x20   cache_2d = pypto.reshape(cache, [4, 8], inplace=True)\n\
         \x20   cache.move(pypto.scatter_update(cache_2d, -2, index, x))\n\
         x = torch.arange(32, dtype=torch.float32).reshape(4, 8)\n\
         index = torch.tensor([[3], [2], [1], [0]], dtype=torch.int32)\n\
         cache = torch.zeros(2, 2, 8)\nout = torch.zeros(4, 8)\n\
         k(x, torch.tensor([3, 5], dtype=torch.int32), index, cache, out)\n\
         print(out[1, 2].item())\nprint(cache[0, 0, 0].item())\nprint(cache[1, 1, 7].item())\n",
    );
    // out = x · 2 · min(5 - 1, 4) = 8x: x[1, 2] = 10 → 80. Row r of x lands in row 3 - r of the
    // [4, 8] view: cache[0, 0] is x's row 3 (first element 24), cache[1, 1] its row 0 (x[0, 7] = 7).
    assert_eq!(printed(&stdout), vec![80.0, 24.0, 7.0]);
}

/// DeepSeek-V4's compressor reshapes a view of its state and scatters rows into it in place: the
/// scatter's result is the tensor it reads, under the same shape. The recorder refuses to resolve
/// that definition through itself (it recursed until the stack overflowed) and the call runs on
/// the CPU with the reason; the values are the reference's: rows 1 and 0 of the view get 5, + 1.
#[test]
fn a_tensor_defined_by_an_op_on_itself_falls_back_instead_of_recursing() {
    let result = Session::new().run_cell(
        "import pypto, torch\n\
         @pypto.frontend.jit\n\
         def k(x: pypto.Tensor([4, 2, 8], pypto.DT_FP32), index: pypto.Tensor([2, 1], pypto.DT_INT32),\n\
         \x20     src: pypto.Tensor([2, 8], pypto.DT_FP32), out: pypto.Tensor([1, 2, 8], pypto.DT_FP32)):\n\
         \x20   pypto.set_vec_tile_shapes(1, 2, 8)\n\
         \x20   state = pypto.view(x, [1, 2, 8], [1, 0, 0])\n\
         \x20   flat = pypto.reshape(state, [2, 8])\n\
         \x20   pypto.set_vec_tile_shapes(2, 8)\n\
         \x20   z = pypto.scatter_update(flat, -2, index, src)\n\
         \x20   pypto.set_vec_tile_shapes(1, 2, 8)\n\
         \x20   z3 = pypto.reshape(z, [1, 2, 8])\n\
         \x20   pypto.set_vec_tile_shapes(1, 2, 8)\n\
         \x20   out[:] = z3 + 1.0\n\
         x = torch.zeros(4, 2, 8)\nout = torch.zeros(1, 2, 8)\n\
         k(x, torch.tensor([[1], [0]], dtype=torch.int32), torch.full((2, 8), 5.0), out)\n\
         print(out[0, :, 0].tolist())\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "[6.0, 6.0]\n");
    let fallback = result.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/cpu-fallback");
    assert!(fallback.is_some_and(|note| note.message.contains("reads the tensor itself")), "{:?}", result.diagnostics);
}
