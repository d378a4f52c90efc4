//! Forms of hicann/pypto's Kimi block-attention-residual kernel: a decode matmul with one row per
//! batch and `set_cube_tile_shapes([1, 1], …)` (pypto pads M to whole fractals; only a transposed A
//! needs mL0 in whole fractals), `vec_nbuffer_setting={"DEFAULT": n}` (pypto's current form), and
//! `pypto.loop_unroll(…, idx=…)`, a keyword pypto's loops ignore. References are computed outside
//! any kernel (the CPU path).

use tilelab::session::Session;

use super::kernel_forms::{printed, run_on_npu};

const DECODE: &str = "import pypto\n\
     @pypto.frontend.jit(pass_options={'vec_nbuffer_setting': {'DEFAULT': 8}})\n\
     def decode(w: pypto.Tensor([4, 1, 32], pypto.DT_FP16), v: pypto.Tensor([4, 32, 64], pypto.DT_FP16),\n\
     \x20          out: pypto.Tensor([4, 1, 64], pypto.DT_FP32)):\n\
     \x20   pypto.set_cube_tile_shapes([1, 1], [32, 32], [64, 64])\n\
     \x20   for b, unroll in pypto.loop_unroll(0, 4, 1, name='B', idx='b', unroll_list=[2]):\n\
     \x20       h = pypto.matmul(pypto.view(w, [unroll, 1, 32], [b, 0, 0]), pypto.view(v, [unroll, 32, 64], [b, 0, 0]), pypto.DT_FP32)\n\
     \x20       pypto.assemble(h, [b, 0, 0], out)\n\
     w = pypto.rand([4, 1, 32], seed=5, dtype=pypto.DT_FP16)\n\
     v = pypto.rand([4, 32, 64], seed=6, dtype=pypto.DT_FP16)\n\
     out = pypto.zeros([4, 1, 64])\ndecode(w, v, out)\n\
     expected = pypto.matmul(pypto.cast(w, pypto.DT_FP32), pypto.cast(v, pypto.DT_FP32))\n\
     print(pypto.amax(pypto.abs(out - expected)).item())\n";

#[test]
fn a_decode_matmul_with_one_row_m_tiles_runs_on_the_npu() {
    let mut session = Session::new();
    let result = session.run_cell(DECODE);
    assert!(result.is_ok(), "{:?}", result.error());
    let warnings: Vec<&String> = result.diagnostics.iter().map(|diagnostic| &diagnostic.message).collect();
    assert!(
        warnings.iter().any(|message| message.contains("pypto.loop_unroll ignores the keyword 'idx', as pypto does")),
        "{warnings:?}"
    );
    let stdout = run_on_npu(&mut Session::new(), DECODE);
    // f32 accumulation of 32 products of fp16 values below 1: rounding only.
    assert!(printed(&stdout)[0] <= 1e-5, "{stdout}");
}

/// One-row M tiles still take whole 16-row fractals in L0A: the schedule's L0A buffer is at
/// least 16 × kL0 × 2 bytes.
#[test]
fn one_row_m_tiles_take_whole_fractals_in_l0a() {
    let mut session = Session::new();
    let result =
        session.run_cell(&format!("{DECODE}s = pypto.schedule(decode, w, v, out)\nprint(s.peak_occupancy['L0A'])\n"));
    assert!(result.is_ok(), "{:?}", result.error());
    let peak: f64 = result.stdout.lines().last().unwrap().trim().parse().unwrap();
    assert!(peak >= (16 * 32 * 2) as f64, "L0A peak {peak}");
}

#[test]
fn m_tiles_must_nest_and_a_transposed_a_needs_whole_fractals() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto\n@pypto.frontend.jit\ndef k(a, b, out):\n    pypto.set_cube_tile_shapes([2, 3], [32, 32], [32, 32])\n    out[:] = pypto.matmul(a, b, pypto.DT_FP32)\n\
         a = pypto.ones([16, 32], dtype=pypto.DT_FP16)\nk(a, pypto.ones([32, 32], dtype=pypto.DT_FP16), pypto.zeros([16, 32]))\n",
    );
    let error = result.error().expect("m tiles [2, 3] do not nest");
    assert!(
        error.message.contains("m tiles [2, 3] must be [mL0, mL1] with mL0 > 0 and mL1 a multiple of mL0"),
        "{}",
        error.message
    );
    let result = session.run_cell(
        "import pypto\n@pypto.frontend.jit\ndef t(a, b, out):\n    pypto.set_cube_tile_shapes([1, 1], [32, 32], [32, 32])\n    out[:] = pypto.matmul(a, b, pypto.DT_FP32, a_trans=True)\n\
         t(pypto.ones([32, 16], dtype=pypto.DT_FP16), pypto.ones([32, 32], dtype=pypto.DT_FP16), pypto.zeros([16, 32]))\n",
    );
    let error = result.error().expect("a transposed A with mL0 = 1");
    assert!(
        error.message.contains("with a_trans=True A is stored [K, M], so mL0 = 1 must be a multiple of 16"),
        "{}",
        error.message
    );
}
