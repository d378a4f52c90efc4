//! Generated backwards with sums over every row (issue 18): a bias's or γ's gradient and a
//! weight's `xᵀ·g` are added, one row block at a time, into zero-initialised outputs by
//! accumulating stores (as pypto-gym's backward kernels do), so the blocks spread over the cores.

use tilelab::session::Session;

fn run(session: &mut Session, code: &str) -> tilelab::session::CellResult {
    let cell = session.run_cell(code);
    assert!(cell.is_ok(), "{:?}\n{}", cell.diagnostics, cell.stdout);
    assert!(
        cell.diagnostics
            .iter()
            .all(|warning| !warning.message.contains("CPU") && !warning.message.contains("no generated backward")),
        "{:?}",
        cell.diagnostics
    );
    cell
}

/// LayerNorm over rows of [100, 64] with γ and β of shape [1, 64], vec tile [8, 64], on
/// Ascend910B2 (48 vector cores). The backward is simulated with the forward's 8-row tile and with
/// 4 rows, and keeps the faster: 4 rows here (asserted by the bytes below). 100 rows are 25 tiles
/// of 4 rows; 25 tiles over 48 cores make blocks of one tile: 25 units. Each writes its rows of dx
/// and adds its [1, 64] partials of dγ and dβ (f32, 256 B each) into the outputs: GM written =
/// dx 100·64·4 = 25600 B + 25·2·256 = 12800 B = 38400 B (with 8-row blocks: 13 units, 32256 B;
/// one unit over all rows would write dγ and dβ once: 26112 B).
#[test]
fn layer_norm_gamma_and_beta_gradients_are_accumulated_over_row_blocks() {
    let mut session = Session::new();
    let cell = run(
        &mut session,
        "import pypto as pt
pt.npu.use('Ascend910B2')
R, C = 100, 64
x = pt.reshape(pt.sin(pt.arange(0, R * C) * 0.37) * 3, [R, C])
w = pt.reshape(pt.cos(pt.arange(0, R * C) * 0.23), [R, C])
gamma = pt.reshape(pt.cos(pt.arange(0, C) * 0.5) * 0.1 + 1, [1, C])
beta = pt.reshape(pt.arange(0, C) * 0.001 - 0.2, [1, C])
def layer_norm(x, gamma, beta):
    mean = pt.mean(x, dim=-1, keepdim=True)
    centred = x - mean
    rstd = pt.rsqrt(pt.mean(centred * centred, dim=-1, keepdim=True) + 1e-5)
    return centred * rstd * gamma + beta
@pt.kernel
def layer_norm_kernel(x, gamma, beta):
    pt.set_vec_tile_shapes(8, 64)
    return layer_norm(x, gamma, beta)
ours = [pt.as_tensor(t.tolist(), requires_grad=True) for t in [x, gamma, beta]]
(layer_norm_kernel(*ours) * w).sum().backward()
tape = [pt.as_tensor(t.tolist(), requires_grad=True) for t in [x, gamma, beta]]
(layer_norm(*tape) * w).sum().backward()
for a, b in zip(ours, tape):
    pt.assert_allclose(a.grad, b.grad, rtol=1e-4, atol=1e-4)",
    );
    let backward = cell
        .kernel_schedules
        .iter()
        .find(|entry| entry.kernel == "layer_norm_kernel.backward")
        .expect("the generated backward ran on the NPU");
    assert_eq!(backward.schedule.summary.gm_bytes_written, 38400);
}
