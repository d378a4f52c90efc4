//! Flash attention written as a pypto user writes it (a `pypto.frontend.jit` kernel: a loop over
//! 128-row query blocks, an inner loop over 512-key blocks with the online softmax, the running
//! max, sum and output in kernel workspaces, `α·o_old` written before `p·v`) runs on the simulated
//! 910B2 with no CPU fallback: the compiler splits each iteration into cube and vector stages.

use tilelab::session::Session;

const SCRIPT: &str = r#"
import pypto as pt
pt.npu.use("Ascend910B2")
SQ, SK, D = 256, 1024, 128
BQ, BK = 128, 512
FP16, FP32 = pt.DT_FP16, pt.DT_FP32

def grid(rows, cols, row_step, col_step, phase, scale):
    r = pt.arange(rows).reshape([rows, 1])
    c = pt.arange(cols).reshape([1, cols])
    return pt.cast(pt.sin(r * row_step + c * col_step + phase) * scale, FP16)

q = grid(SQ, D, 0.013, 0.071, 0.0, 0.3)
k = grid(SK, D, 0.017, 0.053, 0.4, 0.3)
v = grid(SK, D, 0.011, 0.037, 0.9, 1.0)

@pt.frontend.jit
def fa_forward(q, k, v, out):
    pt.set_vec_tile_shapes(64, 128)
    pt.set_cube_tile_shapes([128, 128], [128, 256], [128, 128])
    for b in pt.loop(0, SQ // BQ, name="q_blocks", idx_name="b"):
        qb = pt.view(q, [BQ, D], [b * BQ, 0])
        m_ws = pt.tensor([BQ, 1], FP32)
        l_ws = pt.tensor([BQ, 1], FP32)
        o_ws = pt.tensor([BQ, D], FP32)
        for j in pt.loop(0, SK // BK, name="k_blocks", idx_name="j"):
            kb = pt.view(k, [BK, D], [j * BK, 0])
            vb = pt.view(v, [BK, D], [j * BK, 0])
            s = pt.matmul(qb, kb, out_dtype=FP32, b_trans=True)
            block_max = pt.amax(s, dim=1, keepdim=True)
            if pt.cond(pt.is_loop_begin(j)):
                m = block_max
                e = pt.exp(s - m)
                l = pt.sum(e, dim=1, keepdim=True)
                o = pt.matmul(pt.cast(e, FP16), vb, out_dtype=FP32)
            else:
                m_old = pt.view(m_ws, [BQ, 1], [0, 0])
                m = pt.maximum(m_old, block_max)
                e = pt.exp(s - m)
                alpha = pt.exp(m_old - m)
                l = alpha * pt.view(l_ws, [BQ, 1], [0, 0]) + pt.sum(e, dim=1, keepdim=True)
                o = alpha * pt.view(o_ws, [BQ, D], [0, 0]) + pt.matmul(pt.cast(e, FP16), vb, out_dtype=FP32)
            pt.assemble(m, [0, 0], m_ws)
            pt.assemble(l, [0, 0], l_ws)
            pt.assemble(o, [0, 0], o_ws)
        pt.assemble(pt.cast(pt.view(o_ws, [BQ, D], [0, 0]) / pt.view(l_ws, [BQ, 1], [0, 0]), FP16), [b * BQ, 0], out)

out = pt.tensor([SQ, D], FP16)
fa_forward(q, k, v, out)
ref = pt.matmul(pt.softmax(pt.matmul(pt.cast(q, FP32), pt.cast(k, FP32), b_trans=True), dim=1), pt.cast(v, FP32))
print(pt.amax(pt.abs(pt.cast(out, FP32) - ref)).item())
s = pt.schedule(fa_forward, q, k, v, out)
print(s.cores_used)
"#;

#[test]
fn a_pypto_flash_attention_kernel_runs_on_the_npu_and_matches_softmax_attention() {
    let mut session = Session::new();
    let result = session.run_cell(SCRIPT);
    assert!(result.is_ok(), "{:?}", result.error());
    assert!(
        result.diagnostics.iter().all(|diagnostic| diagnostic.code != "npu/cpu-fallback"),
        "{:?}",
        result.diagnostics
    );
    let printed: Vec<f64> = result.stdout.split_whitespace().map(|word| word.parse().unwrap()).collect();
    // The reference is f32 softmax attention on the CPU tensor core from the same fp16 inputs; the
    // kernel rounds p and y to fp16 (y below 1.2: an fp16 ulp is at most 2^-10 ≈ 1e-3).
    assert!(printed[0] < 2e-3, "worst error {}", printed[0]);
    // Two query blocks, each on one cube core and the two vector cores it feeds.
    assert_eq!(printed[1], 6.0);
}
