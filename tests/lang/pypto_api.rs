#![cfg(not(target_arch = "wasm32"))]
//! pypto's kernel-authoring names as real pypto code writes them (issue 13 items 1, 2, 4): hello
//! world's `@pypto.jit` kernel with `pypto.Tensor[...]` annotations and an output allocated by
//! `pypto.tensor(shape, dtype)`, run modes and dim markers, `@pypto.options`, the configuration
//! calls, and the diagnostics of the mistakes the new `tensor` signature invites. Expected values
//! are computed by hand (the inputs are small integer grids, exact in every dtype used).

use tilelab::session::{CellResult, Session};

use super::cell_output::{run, stdout};

fn codes(result: &CellResult) -> Vec<String> {
    result.diagnostics.iter().map(|diagnostic| diagnostic.code.clone()).collect()
}

fn no_fallback(result: &CellResult) {
    let codes = codes(result);
    assert!(!codes.iter().any(|code| code == "npu/cpu-fallback"), "ran on the CPU: {:?}", result.diagnostics);
}

fn error(session: &mut Session, code: &str) -> (String, Option<String>, usize) {
    let result = session.run_cell(code);
    let error = result.error().unwrap_or_else(|| panic!("expected an error from {code}"));
    (error.message.clone(), error.help.clone(), error.line)
}

const HELLO_WORLD: &str = r#"import pypto

runtime_options = {"run_mode": pypto.RunMode.NPU}

@pypto.jit(runtime_options=runtime_options)
def add_kernel(x: pypto.Tensor[...], y: pypto.Tensor[...], out: pypto.Tensor[...]):
    pypto.set_vec_tile_shapes(32, 32)
    out[:] = x + y
"#;

#[test]
fn hello_world_runs_on_the_npu_into_an_output_made_by_tensor() {
    let mut session = Session::new();
    run(&mut session, HELLO_WORLD);
    let result = run(
        &mut session,
        "x = pypto.arange(4096).reshape([64, 64])\ny = pypto.full([64, 64], 0.5)\nout = pypto.tensor([64, 64], pypto.DT_FP32)\nadd_kernel(x, y, out)\nprint(out[5, 7].item(), out[63, 63].item(), out[0, 0].item())",
    );
    no_fallback(&result);
    // out[i, j] = 64 i + j + 0.5.
    assert_eq!(result.stdout.trim(), "327.5 4095.5 0.5");
}

#[test]
fn jit_without_arguments_is_frontend_jit_and_run_mode_sim_is_accepted() {
    let mut session = Session::new();
    let code = "import pypto\n@pypto.jit\ndef double(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32), out: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):\n    pypto.set_vec_tile_shapes(8, 32)\n    out[:] = x * 2\n@pypto.frontend.jit(runtime_options={\"run_mode\": pypto.RunMode.SIM})\ndef triple(x, out):\n    pypto.set_vec_tile_shapes(8, 32)\n    out[:] = x * 3\nx = pypto.arange(256).reshape([8, 32])\na = pypto.tensor([8, 32])\nb = pypto.tensor([8, 32])\ndouble(x, a)\ntriple(x, b)\nprint(a[7, 31].item(), b[7, 31].item())";
    let result = run(&mut session, code);
    no_fallback(&result);
    assert_eq!(result.stdout.trim(), "510.0 765.0");
}

#[test]
fn tensor_allocates_zeros_and_as_tensor_takes_data() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    let text = stdout(
        &mut session,
        "w = pypto.tensor([2, 3], pypto.DT_FP16, name=\"w\")\nprint(w.shape, w.dtype, w.tolist())",
    );
    assert_eq!(text, "[2, 3] pypto.DT_FP16 [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]");
    let text = stdout(&mut session, "d = pypto.as_tensor([[1.5, -2.0]], dtype=pypto.DT_BF16, requires_grad=True)\nprint(d.tolist(), d.dtype, d.requires_grad)");
    assert_eq!(text, "[[1.5, -2.0]] pypto.DT_BF16 True");
}

#[test]
fn data_given_to_tensor_names_as_tensor() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    for data in ["[[1.0, 2.0]]", "[1.0, 2.0]", "2.5", "pypto.ones([2])"] {
        let (message, help, line) = error(&mut session, &format!("\nx = pypto.tensor({data})"));
        assert!(message.contains("allocates a tensor of zeros from a shape"), "{data}: {message}");
        assert!(help.unwrap_or_default().contains("pypto.as_tensor(data"), "{data}");
        assert_eq!(line, 2, "{data}");
    }
    let (message, help, _) = error(&mut session, "pypto.tensor([2], requires_grad=True)");
    assert!(message.contains("no 'requires_grad'"), "{message}");
    assert!(help.unwrap_or_default().contains("as_tensor(data, requires_grad=True)"));
    let (message, _, _) = error(&mut session, "pypto.as_tensor([[1.0], [2.0, 3.0]])");
    assert!(message.starts_with("pypto.as_tensor: ragged"), "{message}");
}

#[test]
fn tensor_specs_markers_and_enums_read_like_pypto() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    let text = stdout(&mut session, "s = pypto.Tensor([pypto.DYNAMIC, 128, ...], pypto.DT_FP16, name=\"q\")\nprint(s)\nprint(s.shape, s.dtype, s.name)");
    assert_eq!(
        text,
        "pypto.Tensor([pypto.DYNAMIC, 128, ...], pypto.DT_FP16)\n[StatusType.DYNAMIC, 128, Ellipsis] pypto.DT_FP16 q"
    );
    let text = stdout(
        &mut session,
        "print(pypto.RunMode.NPU, pypto.RunMode.SIM.value, pypto.RunMode.NPU == pypto.RunMode.NPU, pypto.RunMode.NPU == pypto.RunMode.SIM)\nprint(pypto.DYNAMIC == pypto.DYNAMIC, pypto.STATIC == pypto.DYNAMIC, pypto.STATIC.value, pypto.DataType.DT_FP16 == pypto.DT_FP16)",
    );
    assert_eq!(text, "RunMode.NPU 1 True False\nTrue False STATIC True");
    let (message, help, _) = error(&mut session, "pypto.Tensor([2.5, 4])");
    assert!(message.contains("a dim is an int, pypto.DYNAMIC, pypto.STATIC or ..."), "{message}");
    assert!(help.unwrap_or_default().contains("pypto.tensor(shape, dtype)"));
    let (message, _, _) = error(&mut session, "pypto.Tensor([4, 4])(1)");
    assert!(message.contains("'TensorSpec' object is not callable"), "{message}");
}

#[test]
fn a_tensor_spec_inside_a_kernel_is_a_workspace() {
    let mut session = Session::new();
    let code = "import pypto\n@pypto.frontend.jit\ndef k(x, out):\n    pypto.set_vec_tile_shapes(16, 32)\n    tmp = pypto.Tensor([16, 32], pypto.DT_FP32)\n    tmp[:] = x * 2\n    out[:] = tmp + 1\nx = pypto.arange(512).reshape([16, 32])\nout = pypto.tensor([16, 32])\nk(x, out)\nprint(out[0, 0].item(), out[15, 31].item())";
    // out = 2 x + 1: 1 at the first element, 2 · 511 + 1 = 1023 at the last.
    assert_eq!(stdout(&mut session, code), "1.0 1023.0");
}

#[test]
fn options_over_a_jit_kernel_act_like_the_jit_decorators_own() {
    // 128 row tiles on at most 48 cores: a core runs several, alternating two UB copies by default;
    // asking for one copy halves the UB peak, whichever decorator carries the option.
    let mut session = Session::new();
    let body = "(x, out):\n    pypto.set_vec_tile_shapes(8, 64)\n    for i in pypto.loop(0, x.shape[0] // 8):\n        t = pypto.view(x, [8, 64], [i * 8, 0])\n        pypto.assemble(t * 2.0, [i * 8, 0], out)\n";
    let code = format!("import pypto\n@pypto.frontend.jit\ndef plain{body}@pypto.frontend.jit(pass_options={{\"vec_nbuffer_setting\": {{-1: 1}}}})\ndef direct{body}@pypto.options(pass_options={{\"vec_nbuffer_setting\": {{-1: 1}}}})\n@pypto.jit\ndef scoped{body}x = pypto.ones([1024, 64])\nout = pypto.tensor([1024, 64])");
    run(&mut session, &code);
    let text = stdout(&mut session, "a = pypto.schedule(plain, x, out).peak_occupancy['UB']\nb = pypto.schedule(direct, x, out).peak_occupancy['UB']\nc = pypto.schedule(scoped, x, out).peak_occupancy['UB']\nprint(b == c, 2 * b == a, out[1023, 63].item())");
    assert_eq!(text, "True True 2.0");
}

#[test]
fn options_on_a_test_function_keep_it_callable_and_global_options_say_what_is_not_modelled() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    let result = run(&mut session, "@pypto.options(pass_options={\"vec_nbuffer_setting\": {-1: 2}})\ndef test_case(n):\n    return n + 1\nprint(test_case(41))");
    assert_eq!(result.stdout.trim(), "42");
    // Each call opens the options' scope for the kernels it calls (tests/lang/context_managers.rs).
    assert!(!codes(&result).contains(&"npu/option-scope-not-modelled".to_string()), "{:?}", result.diagnostics);
    let result = run(&mut session, "pypto.set_pass_options(vec_nbuffer_setting={-1: 2})\npypto.set_semantic_label(\"attn_qk\")\npypto.set_matrix_size([128, 256, 64])\npypto.experimental.set_operation_options(combine_axis=True)\npypto.reset_options()");
    assert_eq!(codes(&result), vec!["npu/option-scope-not-modelled".to_string()]);
    let (message, _, _) = error(&mut session, "pypto.set_semantic_label(\"func12_3\")");
    assert!(message.contains("per-function key"), "{message}");
    let (message, _, _) = error(&mut session, "pypto.set_pass_options(vec_nbufer_setting=2)");
    assert!(message.contains("unexpected keyword argument 'vec_nbufer_setting'"), "{message}");
}

const GYM_TILES: &str = r#"import pypto

@pypto.frontend.jit
def scale_rows(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32), out: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):
    tile_m = 32
    m_total = x.shape[0]
    pypto.set_vec_tile_shapes(tile_m, 32)
    for m_off in pypto.loop(0, m_total, tile_m):
        valid_m = (m_total - m_off).min(tile_m)
        tile = pypto.view(x, [tile_m, 32], [m_off, 0], valid_shape=[valid_m, 32])
        pypto.assemble(tile * 3, [m_off, 0], out)
"#;

#[test]
fn a_ragged_last_tile_sized_by_min_of_a_loop_scalar() {
    let mut session = Session::new();
    run(&mut session, GYM_TILES);
    let result = run(&mut session, "x = pypto.arange(3200).reshape([100, 32])\nout = pypto.tensor([100, 32])\nscale_rows(x, out)\nprint(out[99, 31].item(), out[64, 0].item(), out[96, 1].item())");
    no_fallback(&result);
    // out = 3 x: 3 · 3199, 3 · 2048, 3 · (96 · 32 + 1).
    assert_eq!(result.stdout.trim(), "9597.0 6144.0 9219.0");
    let text = stdout(&mut session, "sizes = []\nfor off in pypto.loop(0, 100, 32):\n    sizes.append((100 - off).min(32))\nprint(sizes, (7).max(9), pypto.min(3, -2), pypto.max(2.5, 1))");
    assert_eq!(text, "[32, 32, 32, 4] 9 -2 2.5");
}

#[test]
fn is_loop_begin_and_end_follow_the_loop_the_index_belongs_to() {
    let mut session = Session::new();
    let code = "import pypto\n@pypto.frontend.jit\ndef edges(a, out, val: int):\n    pypto.set_vec_tile_shapes(1, 32)\n    for idx in pypto.loop(a.shape[0]):\n        t = a[idx:idx + 1, :]\n        if pypto.is_loop_begin(idx):\n            out[idx:idx + 1, :] = t + val\n        elif pypto.is_loop_end(idx):\n            out[idx:idx + 1, :] = t + val + 1\n        else:\n            out[idx:idx + 1, :] = t\na = pypto.ones([4, 32])\nout = pypto.tensor([4, 32])\nedges(a, out, 10)\nprint(out[0, 0].item(), out[1, 5].item(), out[2, 0].item(), out[3, 31].item())";
    // Row 0 is the first iteration (1 + 10), row 3 the last (1 + 10 + 1), rows 1 and 2 neither.
    assert_eq!(stdout(&mut session, code), "11.0 1.0 1.0 12.0");
    let text = stdout(&mut session, "marks = []\nfor i in pypto.loop(2):\n    for j in pypto.loop(10, 13):\n        marks.append((pypto.is_loop_end(i), pypto.is_loop_begin(j), pypto.is_loop_end(j)))\nprint(marks[0], marks[5])\nfor k in pypto.loop(3, 10, 3):\n    print(k, pypto.is_loop_begin(k), pypto.is_loop_end(k))");
    assert_eq!(text, "(False, True, False) (True, False, True)\n3 True False\n6 False False\n9 False True");
    let (message, help, _) = error(&mut session, "pypto.is_loop_begin(0)");
    assert!(message.contains("must be called inside"), "{message}");
    assert!(help.is_some());
    let (message, _, _) = error(&mut session, "for i in pypto.loop(3):\n    pypto.is_loop_end(i + 7)");
    assert!(message.contains("is not the index of a running pypto.loop"), "{message}");
    // The stack is empty again after a loop that failed.
    let (message, _, _) = error(&mut session, "pypto.is_loop_end(2)");
    assert!(message.contains("must be called inside"), "{message}");
}

#[test]
fn unrolled_loops_split_the_range_as_pypto_does_and_hints_keep_iterations() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    let result = run(
        &mut session,
        "print(pypto.loop_unroll(0, 10, unroll_list=[4, 2]))\nprint(pypto.loop_unroll(3, 20, 2, unroll_list=[4]))",
    );
    assert_eq!(codes(&result), vec!["lang/loop-unroll-skips".to_string()]);
    let text = result.stdout.trim_end();
    // [0, 10) by 4: 0, 4; the remainder [8, 10) by 2: 8. [3, 20) step 2 by 8: 3, 11; then pypto's
    // factor-1 pass runs to 20 - (20 - 3) % 2 = 19 (exclusive), so index 19 is not visited.
    assert_eq!(text, "[(0, 4), (4, 4), (8, 2)]\n[(3, 4), (11, 4)]");
    let text = stdout(&mut session, "seen = []\nfor i in pypto.loop(1, 7, 2, unroll_list=[4, 2], submit_before_loop=True, parallel=True):\n    seen.append(i)\nprint(seen)");
    assert_eq!(text, "[1, 3, 5]");
    let (message, _, _) = error(&mut session, "pypto.loop(4, unroll_list=[0, 2])");
    assert!(message.contains("unroll_list holds positive ints"), "{message}");
}

#[test]
fn is_loop_begin_and_end_ask_the_pass_of_a_loop_unroll_an_index_belongs_to() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    // pypto runs each factor's indices as one loop: factor 4 is loop(0, 8, 4) (0 begins it, 4 ends
    // it), factor 1 is loop(8, 10, 1) (8 begins, 9 ends). A set is accepted as pypto code writes it.
    let text = stdout(
        &mut session,
        "for i, n in pypto.loop_unroll(0, 10, 1, unroll_list={4}):\n    print(i, n, pypto.is_loop_begin(i), pypto.is_loop_end(i))",
    );
    assert_eq!(text, "0 4 True False\n4 4 False True\n8 1 True False\n9 1 False True");
    // A single-index pass both begins and ends; an index of no running loop is still an error.
    let text = stdout(
        &mut session,
        "for i, n in pypto.loop_unroll(3, unroll_list=[2]):\n    print(i, n, pypto.is_loop_begin(i), pypto.is_loop_end(i))",
    );
    assert_eq!(text, "0 2 True True\n2 1 True True");
    let (message, _, _) = error(&mut session, "for i, n in pypto.loop_unroll(2):\n    pypto.is_loop_begin(i + 5)");
    assert!(message.contains("is not the index of a running pypto.loop"), "{message}");
}

#[test]
fn ceildiv_is_floor_of_a_plus_b_minus_one_over_b() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    let text = stdout(&mut session, "print(pypto.ceildiv(100, 32), pypto.ceildiv(96, 32), pypto.ceildiv(0, 8), pypto.ceildiv(-7, 2), pypto.ceildiv(7, -2))");
    // (7 - 3) // -2 = -2 with Python's floor division.
    assert_eq!(text, "4 3 0 -3 -2");
    let (message, _, _) = error(&mut session, "pypto.ceildiv(4, 0)");
    assert!(message.contains("division by zero"), "{message}");
}

#[test]
fn reshape_clone_expand_clone_and_move() {
    let mut session = Session::new();
    run(&mut session, "import pypto\nx = pypto.arange(6).reshape([2, 3])");
    let text = stdout(&mut session, "v = pypto.reshape(x, [3, 2], inplace=True)\nv[0, 0] = 100\nc = pypto.clone(x)\nc[1, 2] = -1\nprint(x.tolist(), c.tolist())");
    // pypto.arange of ints is DT_INT32: tolist gives ints.
    assert_eq!(text, "[[100, 1, 2], [3, 4, 5]] [[100, 1, 2], [3, 4, -1]]");
    let text = stdout(
        &mut session,
        "print(pypto.reshape(x, [3, 2], valid_shape=[2, 2]).tolist(), x.reshape(6, inplace=True).shape)",
    );
    assert_eq!(text, "[[100, 1], [2, 3], [0, 0]] [6]");
    let text =
        stdout(&mut session, "e = pypto.expand_clone(pypto.as_tensor([[1.0], [2.0]]), [2, 3])\nprint(e.tolist())");
    assert_eq!(text, "[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]");
    let text = stdout(&mut session, "out = pypto.tensor([2, 3])\nr = out.move(x * 2)\nprint(r, out.tolist())");
    assert_eq!(text, "None [[200.0, 2.0, 4.0], [6.0, 8.0, 10.0]]");
    let (message, help, _) = error(&mut session, "out.move(pypto.ones([3, 2]))");
    assert!(message.contains("shape [3, 2] cannot be moved into one of shape [2, 3]"), "{message}");
    assert!(help.unwrap_or_default().contains("assemble"));
    let (message, _, _) = error(&mut session, "out.move(3)");
    assert!(message.contains("'int' type cannot be moved to Tensor"), "{message}");
}

#[test]
fn move_of_a_matmul_writes_a_jit_output_on_the_npu() {
    let mut session = Session::new();
    let code = "import pypto\n@pypto.jit\ndef mm(a, b, out):\n    pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])\n    out.move(pypto.matmul(a, b, a.dtype))\na = pypto.ones([16, 16])\nb = pypto.full([16, 16], 0.25)\nout = pypto.tensor([16, 16])\nmm(a, b, out)\nprint(out[3, 4].item(), out.sum().item())";
    let result = run(&mut session, code);
    no_fallback(&result);
    // Each element sums 16 products 1 · 0.25 = 4; 256 elements give 1024.
    assert_eq!(result.stdout.trim(), "4.0 1024.0");
}

#[test]
fn cast_modes_are_checked_and_the_unmodelled_ones_say_so() {
    let mut session = Session::new();
    run(&mut session, "import pypto\nx = pypto.as_tensor([1.0 / 3.0])");
    let result = run(&mut session, "y = pypto.cast(x, pypto.DT_FP16, mode=pypto.CastMode.CAST_RINT, satmode=pypto.SaturationMode.OFF)\nprint(y.dtype)");
    assert_eq!(result.stdout.trim(), "pypto.DT_FP16");
    assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
    let result = run(&mut session, "y = pypto.cast(x, pypto.DT_BF16, pypto.CastMode.CAST_TRUNC)");
    assert_eq!(codes(&result), vec!["npu/cast-mode-not-modelled".to_string()]);
    let (message, _, _) = error(&mut session, "pypto.cast(x, pypto.DT_FP16, mode=pypto.SaturationMode.ON)");
    assert!(message.contains("'mode' must be a pypto.CastMode"), "{message}");
    let text = stdout(&mut session, "print(pypto.PrecisionType.HIGH_PRECISION, pypto.CastMode.CAST_ODD.name)");
    assert_eq!(text, "PrecisionType.HIGH_PRECISION CAST_ODD");
}

#[test]
fn npuarch_names_the_architecture_of_the_selected_preset() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    assert_eq!(stdout(&mut session, "print(pypto.platform.npuarch)"), "DAV_2201");
    run(&mut session, "pypto.npu.use(\"Ascend910A\")");
    assert_eq!(stdout(&mut session, "print(pypto.platform.npuarch)"), "DAV_1001");
    run(&mut session, "pypto.npu.use(\"teaching\")");
    assert_eq!(stdout(&mut session, "print(repr(pypto.platform.npuarch))"), "''");
}

#[test]
fn unrolled_chunks_and_clones_inside_a_jit_kernel_run_on_the_npu() {
    let mut session = Session::new();
    let code = "import pypto\n@pypto.frontend.jit\ndef k(x, out):\n    pypto.set_vec_tile_shapes(8, 32)\n    for off, n in pypto.loop_unroll(0, 10, 1, unroll_list=[4]):\n        t = pypto.view(x, [4, 32], [off, 0], valid_shape=[n, 32])\n        c = t.clone()\n        pypto.assemble(pypto.clone(c) * 2.0, [off, 0], out)\nx = pypto.arange(320).reshape([10, 32])\nout = pypto.tensor([10, 32])\nk(x, out)\nprint(out[9, 31].item(), out[5, 0].item(), out[8, 1].item())";
    let result = run(&mut session, code);
    no_fallback(&result);
    // Chunks (0, 4), (4, 4), (8, 1), (9, 1) cover the 10 rows once: out = 2 x.
    assert_eq!(result.stdout.trim(), "638.0 320.0 514.0");
}

#[test]
fn tile_shape_getters_read_the_kernels_settings() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    assert_eq!(stdout(&mut session, "print(pypto.get_vec_tile_shapes(), pypto.get_cube_tile_shapes())"), "[] []");
    let code = "@pypto.frontend.jit\ndef k(a, b, out1, out2):\n    pypto.set_vec_tile_shapes(1, 8)\n    print(pypto.get_vec_tile_shapes())\n    out1.move(pypto.add(a, b))\n    pypto.set_vec_tile_shapes(2, 16)\n    print(pypto.get_vec_tile_shapes())\n    out2.move(pypto.add(a, b))\na = pypto.ones([2, 16])\nb = pypto.ones([2, 16])\no1 = pypto.tensor([2, 16])\no2 = pypto.tensor([2, 16])\nk(a, b, o1, o2)\nprint(pypto.get_vec_tile_shapes(), o1[1, 15].item() + o2[0, 0].item())";
    assert_eq!(stdout(&mut session, code), "[1, 8]\n[2, 16]\n[2, 16] 4.0");
    let code = "@pypto.frontend.jit\ndef m(x, y, out):\n    pypto.set_cube_tile_shapes([16, 16], [16, 32], [16, 16])\n    print(pypto.get_cube_tile_shapes())\n    out.move(pypto.matmul(x, y, x.dtype))\nout = pypto.tensor([16, 16])\nm(pypto.ones([16, 32]), pypto.ones([32, 16]), out)\nprint(out[0, 0].item())";
    assert_eq!(stdout(&mut session, code), "[[16, 16], [16, 32], [16, 16], False]\n32.0");
}

#[test]
fn setting_npuarch_selects_the_preset_of_that_architecture() {
    let mut session = Session::new();
    run(&mut session, "import pypto\npypto.platform.npuarch = \"DAV_1001\"");
    assert_eq!(
        stdout(&mut session, "print(pypto.npu.config()['preset'], pypto.platform.npuarch)"),
        "Ascend910A DAV_1001"
    );
    let (message, help, _) = error(&mut session, "pypto.platform.npuarch = \"DAV_3510\"");
    assert!(message.contains("no NPU preset models the architecture 'DAV_3510'"), "{message}");
    assert!(help.unwrap_or_default().contains("pypto.npu.use"));
}

#[test]
fn frontend_jit_keywords_dynamic_dims_cond_and_symbolic_scalars() {
    let mut session = Session::new();
    let code = "import pypto\nBS = pypto.frontend.dynamic(\"BS\")\n@pypto.frontend.jit(debug_options={\"runtime_debug_mode\": 1}, new_ir=True)\ndef k(x: pypto.Tensor((BS, 32), pypto.DT_FP32), out: pypto.Tensor((BS, 32), pypto.DT_FP32), flag: int):\n    pypto.set_vec_tile_shapes(1, 32)\n    for i in pypto.loop(x.shape[0]):\n        if pypto.cond(pypto.is_loop_end(i)):\n            out[i:i + 1, :] = x[i:i + 1, :] + 100\n        elif pypto.cond(pypto.symbolic_scalar(flag)):\n            out[i:i + 1, :] = x[i:i + 1, :] * 2\n        else:\n            out[i:i + 1, :] = x[i:i + 1, :]\nx = pypto.ones([3, 32])\nout = pypto.tensor([3, 32])\nk(x, out, True)\nprint(out[0, 0].item(), out[2, 31].item(), pypto.Tensor((BS, 32)).shape)";
    let result = run(&mut session, code);
    // Rows 0 and 1 take the flag's branch (1 · 2), the last row the loop-end one (1 + 100).
    assert_eq!(result.stdout.trim(), "2.0 101.0 [StatusType.DYNAMIC, 32]");
    let notes: Vec<&str> = result.diagnostics.iter().map(|diagnostic| diagnostic.message.as_str()).collect();
    assert!(notes.iter().any(|note| note.contains("debug_options, new_ir accepted, not modelled")), "{notes:?}");
    let (message, _, _) = error(&mut session, "pypto.cond(True, file=\"a.py\")");
    assert!(message.contains("file and lineno must be given together"), "{message}");
    let (message, _, _) = error(&mut session, "pypto.symbolic_scalar(1.5)");
    assert!(message.contains("expected an int, not float"), "{message}");
}

#[test]
fn transposed_batchmatmul_multiplies_each_batch_of_the_middle_axis() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    // a[m, b, k] = 8 m + 4 b + k; each batch of b is the first 2 columns of the 4 × 4 identity, so
    // out[m, b, n] = a[m, b, n].
    let code = "a = pypto.arange(3 * 2 * 4).reshape([3, 2, 4])\nb = pypto.zeros([2, 4, 2])\nb[0, 0, 0] = 1\nb[0, 1, 1] = 1\nb[1, 0, 0] = 1\nb[1, 1, 1] = 1\nc = pypto.experimental.transposed_batchmatmul(a, b, pypto.DT_FP32)\nprint(c.shape, c[2, 1, 1].item(), c[1, 0, 0].item())";
    // a[2, 1, 1] = 16 + 4 + 1 = 21, a[1, 0, 0] = 8.
    assert_eq!(stdout(&mut session, code), "[3, 2, 2] 21.0 8.0");
    let (message, help, _) = error(
        &mut session,
        "pypto.experimental.transposed_batchmatmul(pypto.ones([3, 2, 4]), pypto.ones([3, 4, 2]), pypto.DT_FP32)",
    );
    assert!(message.contains("are not [M, B, K] and [B, K, N]"), "{message}");
    assert!(help.is_some());
}

#[test]
fn loop_helpers_at_the_ends_of_the_int_range_are_errors_or_values_not_crashes() {
    let mut session = Session::new();
    run(&mut session, "import pypto\nbig = 9223372036854775807\nsmall = -big - 1");
    assert_eq!(stdout(&mut session, "print(pypto.ceildiv(big, 1), pypto.ceildiv(small, 2), pypto.loop_unroll(big - 2, big, unroll_list=[2]), pypto.loop_unroll(5, 1))"), "9223372036854775807 -4611686018427387904 [(9223372036854775805, 2)] []");
    let (message, _, _) = error(&mut session, "pypto.ceildiv(small, -1)");
    assert!(message.contains("integer overflow"), "{message}");
    assert_eq!(
        stdout(
            &mut session,
            "for i in pypto.loop(big - 1, big):\n    print(pypto.is_loop_begin(i), pypto.is_loop_end(i))"
        ),
        "True True"
    );
}
