//! The done-when figure of issue 18: the SwiGLU forward in the pypto-gym form (BF16 storage, FP32
//! compute, M = 2200, K = 512, N = 1024) differentiated automatically, against the three
//! hand-written backward kernels of example 10 (their code below is the example's, fed the forward's
//! pre-activations g, fc and the same incoming gradient dh).
//!
//! Values: dx, dw_g, db_g, dw_fc, db_fc agree within rtol 1/128 of the sum of the magnitudes of
//! their terms, + 1e-4 — |generated − hand| ≤ Σ|terms|/128 + 1e-4, with Σ|terms| computed in f32 on
//! the CPU from the inputs (for dw = xᵀ·dg it is |x|ᵀ·|dg|). The plain rtol·|hand| does not hold
//! where the hand-written BF16 partials cancel (example 10's note: a BF16 partial may round one step
//! either way); the generated kernel accumulates its partials in f32 and is the nearer of the two to
//! the f32 formulas (printed below).
//! Time: the generated backward's simulated cycles against the sum of the three kernels' (all cold
//! runs on Ascend910B2; simulated cycles are deterministic, so the bound is a test).

use tilelab::session::Session;

const SCRIPT: &str = r#"import pypto as pt
M, K, N = 2200, 512, 1024
BF16 = pt.DT_BF16
FP32 = pt.DT_FP32
pt.npu.use("Ascend910B2")
def grid(rows, cols, row_step, col_step, phase, scale, use_cos):
    row_index = pt.arange(rows).reshape([rows, 1])
    col_index = pt.arange(cols).reshape([1, cols])
    angle = row_index * row_step + col_index * col_step + phase
    wave = pt.cos(angle) if use_cos else pt.sin(angle)
    return pt.cast(wave * scale, BF16)
x = grid(M, K, 0.011, 0.037, 0.0, 1.0, False)
w_g = grid(K, N, 0.023, 0.017, 0.5, 0.05, True)
w_fc = grid(K, N, 0.019, -0.031, 0.2, 0.05, False)
b_g = grid(1, N, 0.0, 0.013, 0.1, 0.5, False)
b_fc = grid(1, N, 0.0, 0.029, 0.4, 0.5, True)
dh = grid(M, N, 0.017, -0.023, 1.0, 1.0, False)

@pt.kernel
def swiglu(x, w_g, b_g, w_fc, b_fc):
    pt.set_vec_tile_shapes(32, 128)
    g = pt.matmul(x, w_g, out_dtype=BF16) + b_g
    fc = pt.matmul(x, w_fc, out_dtype=BF16) + b_fc
    g32 = pt.cast(g, FP32)
    return pt.cast(g32 * pt.sigmoid(g32) * pt.cast(fc, FP32), BF16)

leaves = [pt.cast(t, BF16) for t in [x, w_g, b_g, w_fc, b_fc]]
for leaf in leaves:
    leaf.requires_grad = True
swiglu(*leaves).backward(dh)

TILE_M_B = 1024
TILE_M_W = 2048
TILE_M_X = 1024
VEC_M, VEC_N = 128, 128
KERNELS

g = pt.matmul(x, w_g, out_dtype=BF16) + b_g
fc = pt.matmul(x, w_fc, out_dtype=BF16) + b_fc
dg = pt.zeros([M, N], dtype=BF16)
dfc = pt.zeros([M, N], dtype=BF16)
db_g = pt.zeros([1, N], dtype=BF16)
db_fc = pt.zeros([1, N], dtype=BF16)
swiglu_backward_b(dh, g, fc, dg, dfc, db_g, db_fc)
dw_g = pt.zeros([K, N], dtype=BF16)
dw_fc = pt.zeros([K, N], dtype=BF16)
swiglu_backward_w(x, dg, dfc, dw_g, dw_fc)
dx = pt.zeros([M, K], dtype=BF16)
swiglu_backward_x(dg, dfc, w_g, w_fc, dx)

g32 = pt.cast(g, FP32)
sig = pt.sigmoid(g32)
dg32 = pt.cast(dh, FP32) * pt.cast(fc, FP32) * (sig * (1.0 + g32 * (1.0 - sig)))
dfc32 = pt.cast(dh, FP32) * (g32 * sig)
xt = pt.transpose(pt.cast(x, FP32), 0, 1)
exact = {"db_g": pt.sum(dg32, dim=0, keepdim=True), "db_fc": pt.sum(dfc32, dim=0, keepdim=True),
         "dw_g": pt.matmul(xt, dg32), "dw_fc": pt.matmul(xt, dfc32),
         "dx": pt.matmul(dg32, pt.transpose(pt.cast(w_g, FP32), 0, 1)) + pt.matmul(dfc32, pt.transpose(pt.cast(w_fc, FP32), 0, 1))}
axt = pt.abs(xt)
magnitude = {"db_g": pt.sum(pt.abs(dg32), dim=0, keepdim=True), "db_fc": pt.sum(pt.abs(dfc32), dim=0, keepdim=True),
             "dw_g": pt.matmul(axt, pt.abs(dg32)), "dw_fc": pt.matmul(axt, pt.abs(dfc32)),
             "dx": pt.matmul(pt.abs(dg32), pt.transpose(pt.abs(pt.cast(w_g, FP32)), 0, 1)) + pt.matmul(pt.abs(dfc32), pt.transpose(pt.abs(pt.cast(w_fc, FP32)), 0, 1))}
for name, ours, theirs in zip(["dx", "dw_g", "db_g", "dw_fc", "db_fc"], [leaf.grad for leaf in leaves], [dx, dw_g, db_g, dw_fc, db_fc]):
    assert ours.dtype == BF16 and ours.shape == theirs.shape, (name, ours.dtype, ours.shape)
    ours32, theirs32 = pt.cast(ours, FP32), pt.cast(theirs, FP32)
    excess = pt.amax(pt.abs(ours32 - theirs32) - (magnitude[name] * (1.0 / 128) + 1e-4)).item()
    assert excess <= 0.0, (name, "exceeds Σ|terms|/128 + 1e-4 by", excess)
    print(name, "generated off f32 by", pt.amax(pt.abs(ours32 - exact[name])).item(), "hand-written by", pt.amax(pt.abs(theirs32 - exact[name])).item())
"#;

#[test]
fn the_generated_swiglu_backward_matches_example_10_and_its_time() {
    let script = SCRIPT.replace("KERNELS", &example_10_kernels());
    let mut session = Session::new();
    let cell = session.run_cell(&script);
    assert!(cell.is_ok(), "{:?}\n{}", cell.error(), cell.stdout);
    assert!(cell.diagnostics.iter().all(|warning| !warning.message.contains("CPU")), "{:?}", cell.diagnostics);
    let cycles = |name: &str| -> u64 {
        cell.kernel_schedules
            .iter()
            .filter(|entry| entry.kernel == name)
            .map(|entry| entry.schedule.summary.cycles)
            .sum()
    };
    let generated = cycles("swiglu.backward");
    let hand = cycles("swiglu_backward_b") + cycles("swiglu_backward_w") + cycles("swiglu_backward_x");
    assert!(generated > 0 && hand > 0, "{generated} {hand}");
    let ratio = generated as f64 / hand as f64;
    let parts = ["swiglu_backward_b", "swiglu_backward_w", "swiglu_backward_x"].map(|name| (name, cycles(name)));
    println!("{}generated {generated} cycles, hand-written {hand} cycles {parts:?}, ratio {ratio:.3}", cell.stdout);
    assert!(ratio <= 1.5, "generated {generated} cycles against hand-written {hand}: {ratio:.3}");
}

/// The three kernels of examples/10_swiglu_backward.py, read from the example: each from its
/// decorator to the blank line after its body.
fn example_10_kernels() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/10_swiglu_backward.py");
    let source = std::fs::read_to_string(path).expect("example 10");
    ["swiglu_backward_b", "swiglu_backward_w", "swiglu_backward_x"]
        .iter()
        .map(|name| {
            let definition = source.find(&format!("def {name}(")).expect("the kernel");
            let start = source[..definition].rfind("@pt.frontend.jit").expect("its decorator");
            let end = source[definition..].find("\n\n").map_or(source.len(), |end| definition + end);
            format!("{}\n\n", &source[start..end])
        })
        .collect()
}
