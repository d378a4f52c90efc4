//! Generated backward kernels (issue 18): a `@pypto.kernel` without a registered gradient gets its
//! backward derived from its capture, compiled and run on the simulated NPU; its schedule follows
//! the forward's, and `check_gradient`'s analytic side is that kernel.

use tilelab::session::{Display, GraphDisplay, Session};

/// Swish with β = 1.5 on [32, 64] (x from −4 in steps of 1/256), weighted by w = cos(0.23·i):
/// dL/dx = w · s · (1 + β·x·(1 − s)), s = σ(βx) — written out by hand below, not by the code
/// under test.
const SWISH: &str = "import pypto as pt
pt.npu.use('teaching')
x = pt.reshape(pt.arange(-4, 4, 1.0 / 256), [32, 64])
w = pt.reshape(pt.cos(pt.arange(0, 2048) * 0.23), [32, 64])
@pt.kernel
def swish(x, beta):
    pt.set_vec_tile_shapes(4, 64)
    return x * pt.sigmoid(x * beta)
";

fn session_with(code: &str) -> Session {
    let mut session = Session::new();
    let defined = session.run_cell(code);
    assert!(defined.is_ok(), "{:?}", defined.diagnostics);
    session
}

#[test]
fn a_kernel_without_a_registered_gradient_gets_its_backward_on_the_npu() {
    let mut session = session_with(SWISH);
    let cell = session.run_cell(
        "xk = pt.as_tensor(x.tolist(), requires_grad=True)
loss = (swish(xk, 1.5) * w).sum()
loss.backward()
s = pt.sigmoid(x * 1.5)
pt.assert_allclose(xk.grad, w * s * (1 + 1.5 * x * (1 - s)), rtol=1e-5, atol=1e-6)",
    );
    assert!(cell.is_ok(), "{:?}", cell.diagnostics);
    // The backward is a kernel call of its own, after the forward's.
    let kernels: Vec<&str> = cell.kernel_schedules.iter().map(|entry| entry.kernel.as_str()).collect();
    assert_eq!(kernels, vec!["swish", "swish.backward"]);
    let backward = &cell.kernel_schedules[1].schedule.summary;
    // It reads x and the incoming gradient and writes dx: 3 tensors of 32·64·4 = 8 KiB through GM
    // (s is recomputed in each tile, not read).
    assert_eq!((backward.gm_bytes_read, backward.gm_bytes_written), (2 * 8192, 8192));
    assert!(backward.cycles > 0);
}

#[test]
fn check_gradient_runs_the_generated_backward_in_f32_and_bf16() {
    let mut session = session_with(SWISH);
    let cell = session.run_cell(
        "def f(x):
    return swish(x, 1.5)
r32 = pt.autodiff.check_gradient(f, [x])
r16 = pt.autodiff.check_gradient(f, [pt.cast(x, pt.DT_BF16)])
print(r32.passed, r16.passed, r32.max_abs_err < 1e-5)",
    );
    assert!(cell.is_ok(), "{:?}", cell.diagnostics);
    assert_eq!(cell.stdout, "True True True\n");
    // Each check's analytic side ran the forward and the generated backward on the NPU.
    assert!(cell.kernel_schedules.iter().any(|entry| entry.kernel == "swish.backward"));
}

#[test]
fn a_layer_norm_kernel_is_differentiated_through_its_reductions() {
    // y = (x − μ)/√(σ² + ε)·γ over rows of [16, 64]; the loss Σ y·w. The reference gradient is the
    // same forward written with tensor ops outside any kernel, differentiated by the tape.
    let mut session = session_with(
        "import pypto as pt
x = pt.reshape(pt.sin(pt.arange(0, 1024) * 0.37), [16, 64])
gamma = pt.reshape(pt.cos(pt.arange(0, 64) * 0.11) + 1.5, [1, 64])
w = pt.reshape(pt.cos(pt.arange(0, 1024) * 0.05), [16, 64])
def layer_norm(x, gamma):
    mean = x.mean(dim=-1, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=-1, keepdim=True)
    return centred * pt.rsqrt(var + 1e-5) * gamma
@pt.kernel
def layer_norm_kernel(x, gamma):
    pt.set_vec_tile_shapes(8, 64)
    return layer_norm(x, gamma)
",
    );
    let cell = session.run_cell(
        "xk = pt.as_tensor(x.tolist(), requires_grad=True)
gk = pt.as_tensor(gamma.tolist(), requires_grad=True)
(layer_norm_kernel(xk, gk) * w).sum().backward()
xr = pt.as_tensor(x.tolist(), requires_grad=True)
gr = pt.as_tensor(gamma.tolist(), requires_grad=True)
(layer_norm(xr, gr) * w).sum().backward()
pt.assert_allclose(xk.grad, xr.grad, rtol=1e-4, atol=1e-5)
pt.assert_allclose(gk.grad, gr.grad, rtol=1e-4, atol=1e-5)",
    );
    assert!(cell.is_ok(), "{:?}", cell.diagnostics);
    let kernels: Vec<&str> = cell.kernel_schedules.iter().map(|entry| entry.kernel.as_str()).collect();
    assert_eq!(kernels, vec!["layer_norm_kernel", "layer_norm_kernel.backward"]);
}

#[test]
fn an_op_without_an_op_level_adjoint_keeps_the_tape_and_says_why() {
    let mut session = session_with(
        "import pypto as pt
@pt.kernel
def leaky(x):
    return pt.where(x > 0.0, x, x * 0.5) * 2.0
",
    );
    let cell = session.run_cell(
        "xk = pt.as_tensor([[-2.0, 0.5, 3.0, 0.25] * 8] * 8, requires_grad=True)
leaky(xk).sum().backward()
print(xk.grad.tolist()[0][:4])",
    );
    assert!(cell.is_ok(), "{:?}", cell.diagnostics);
    // d(2·where(x > 0, x, x/2))/dx = 2 where x > 0, 1 elsewhere.
    assert_eq!(cell.stdout, "[1.0, 2.0, 2.0, 2.0]\n");
    assert!(
        cell.diagnostics
            .iter()
            .any(|warning| warning.message.contains("no generated backward") && warning.message.contains("select")),
        "{:?}",
        cell.diagnostics
    );
}

/// pow's adjoint on the NPU (its conventions at zero in the shared rule): L = Σ 2·x³ gives
/// dL/dx = 6x², and L = Σ x^y (x > 0) gives dL/dy = x^y·ln x.
#[test]
fn pow_has_an_op_level_adjoint() {
    let mut session = session_with(
        "import pypto as pt
@pt.kernel
def cubed(x):
    return pt.pow(x, 3.0) * 2.0
@pt.kernel
def power(x, y):
    return pt.pow(x, y)
",
    );
    let cell = session.run_cell(
        "xk = pt.as_tensor([[-2.0, 0.5, 3.0, 0.25] * 8] * 8, requires_grad=True)
cubed(xk).sum().backward()
print(xk.grad.tolist()[0][:4])
base = pt.reshape(pt.arange(1, 257) * 0.01, [8, 32])
exponent = pt.reshape(pt.cos(pt.arange(0, 256) * 0.3), [8, 32])
yk = pt.as_tensor(exponent.tolist(), requires_grad=True)
power(base, yk).sum().backward()
pt.assert_allclose(yk.grad, pt.pow(base, exponent) * pt.log(base), rtol=1e-5, atol=1e-6)",
    );
    assert!(cell.is_ok(), "{:?}", cell.diagnostics);
    // 6x²: 24, 1.5, 54, 0.375.
    assert_eq!(cell.stdout, "[24.0, 1.5, 54.0, 0.375]\n");
    assert!(cell.diagnostics.is_empty(), "{:?}", cell.diagnostics);
    let kernels: Vec<&str> = cell.kernel_schedules.iter().map(|entry| entry.kernel.as_str()).collect();
    assert_eq!(kernels, vec!["cubed", "cubed.backward", "power", "power.backward"]);
}

/// The masked adjoints (clip, maximum, minimum, amax, var) on the NPU, against the gradient
/// written out by hand: for L = Σ (2·clip(x, −1, 1) + maximum(x, y) − minimum(x, 0.5)) on
/// distinct values, dL/dx = 2·[−1 ≤ x ≤ 1] + [x > y] − [x < 0.5], dL/dy = [y > x]; and for
/// L = Σ amax(x, −1) the gradient is 1 at each row's maximum, for L = Σ var(x, −1) it is
/// 2(x − μ)/n; for L = Σ clip(x, low, high) with tensor bounds (no ties, low < high) x gets 1
/// inside the bounds, low where x < low, high where x > high.
#[test]
fn masked_adjoints_run_on_the_npu() {
    let mut session = session_with(
        "import pypto as pt
@pt.kernel
def masked(x, y):
    pt.set_vec_tile_shapes(4, 32)
    return pt.clip(x, -1.0, 1.0) * 2.0 + pt.maximum(x, y) - pt.minimum(x, 0.5)
@pt.kernel
def bounded(x, low, high):
    pt.set_vec_tile_shapes(4, 32)
    return pt.clip(x, low, high)
@pt.kernel
def extremes(x):
    pt.set_vec_tile_shapes(4, 32)
    return pt.amax(x, dim=-1, keepdim=True) + pt.var(x, dim=-1, keepdim=True)
",
    );
    let cell = session.run_cell(
        "x = pt.reshape(pt.sin(pt.arange(0, 256) * 0.37) * 2, [8, 32])
y = pt.reshape(pt.cos(pt.arange(0, 256) * 0.11), [8, 32])
xk = pt.as_tensor(x.tolist(), requires_grad=True)
yk = pt.as_tensor(y.tolist(), requires_grad=True)
masked(xk, yk).sum().backward()
inside = pt.where(pt.logical_and(x >= -1.0, x <= 1.0), 2.0, 0.0)
pt.assert_allclose(xk.grad, inside + pt.where(x > y, 1.0, 0.0) - pt.where(x < 0.5, 1.0, 0.0))
pt.assert_allclose(yk.grad, pt.where(y > x, 1.0, 0.0))
xe = pt.as_tensor(x.tolist(), requires_grad=True)
extremes(xe).sum().backward()
top = pt.where(x == pt.amax(x, dim=-1, keepdim=True), 1.0, 0.0)
pt.assert_allclose(xe.grad, top + 2 * (x - pt.mean(x, dim=-1, keepdim=True)) / 32, rtol=1e-6, atol=1e-6)
xb = pt.as_tensor(x.tolist(), requires_grad=True)
low = pt.as_tensor((y - 1.25).tolist(), requires_grad=True)
high = pt.as_tensor((y + 0.5).tolist(), requires_grad=True)
bounded(xb, low, high).sum().backward()
pt.assert_allclose(xb.grad, pt.where(pt.logical_and(x > y - 1.25, x < y + 0.5), 1.0, 0.0))
pt.assert_allclose(low.grad, pt.where(x < y - 1.25, 1.0, 0.0))
pt.assert_allclose(high.grad, pt.where(x > y + 0.5, 1.0, 0.0))",
    );
    assert!(cell.is_ok(), "{:?}", cell.diagnostics);
    assert!(cell.diagnostics.is_empty(), "{:?}", cell.diagnostics);
    let kernels: Vec<&str> = cell.kernel_schedules.iter().map(|entry| entry.kernel.as_str()).collect();
    assert_eq!(
        kernels,
        vec!["masked", "masked.backward", "extremes", "extremes.backward", "bounded", "bounded.backward"]
    );
}

/// Example 08's comparison, generated: the loss Σ swish(x)·w on [32, 64] f32 (8 KiB per tensor).
/// The backward reads s = σ(βx) (x is an argument, y is never read).
/// - "save": the forward writes y and s (16 KiB), the backward reads x, s and the gradient
///   (24 KiB); the tape keeps y (read by `y·w`) and s: 16 KiB of activations.
/// - "recompute": the forward writes y (8 KiB), the backward reads x and the gradient (16 KiB)
///   and redoes s in each tile; the tape keeps y only: 8 KiB — half.
#[test]
fn the_policy_saves_or_recomputes_and_recomputing_halves_the_saved_bytes() {
    let mut session = session_with(SWISH);
    let run = |session: &mut Session, policy: &str| {
        let cell = session.run_cell(&format!(
            "pt.autodiff.policy('{policy}')
xk = pt.as_tensor(x.tolist(), requires_grad=True)
loss = (swish(xk, 1.5) * w).sum()
saved = pt.graph(loss).saved_activation_bytes
loss.backward()
s = pt.sigmoid(x * 1.5)
pt.assert_allclose(xk.grad, w * s * (1 + 1.5 * x * (1 - s)), rtol=1e-5, atol=1e-6)
print(saved)"
        ));
        assert!(cell.is_ok(), "{policy}: {:?}", cell.diagnostics);
        let summary = |kernel: &str| {
            let entry = cell.kernel_schedules.iter().find(|entry| entry.kernel == kernel).expect(kernel);
            (entry.schedule.summary.gm_bytes_read, entry.schedule.summary.gm_bytes_written)
        };
        (cell.stdout.trim().parse::<u64>().unwrap(), summary("swish"), summary("swish.backward"))
    };
    let (saved_bytes, forward, backward) = run(&mut session, "save");
    assert_eq!(saved_bytes, 2 * 8192);
    assert_eq!(forward, (8192, 2 * 8192));
    assert_eq!(backward, (3 * 8192, 8192));
    let (recomputed_bytes, forward, backward) = run(&mut session, "recompute");
    assert_eq!(recomputed_bytes, 8192);
    assert_eq!(forward, (8192, 8192));
    assert_eq!(backward, (2 * 8192, 8192));
    // Element-wise work is cheaper to redo than to move through GM: auto recomputes s.
    let (auto_bytes, _, backward) = run(&mut session, "auto");
    assert_eq!((auto_bytes, backward), (8192, (2 * 8192, 8192)));
    // The policy call returns the one it replaces; a wrong name is a located error.
    let cell = session.run_cell("print(pt.autodiff.policy('save'), pt.autodiff.policy())");
    assert_eq!(cell.stdout, "auto save\n");
    let wrong = session.run_cell("pt.autodiff.policy('fast')");
    let error = wrong.error().expect("an unknown policy is an error");
    assert!(error.message.contains("policy must be one of") && error.message.contains("'fast'"), "{}", error.message);
}

/// The graph display of Σ(swish(x)·w) after its backward under `policy`.
fn swish_graph(session: &mut Session, policy: &str) -> GraphDisplay {
    let cell = session.run_cell(&format!(
        "pt.autodiff.policy('{policy}')
xk = pt.as_tensor(x.tolist(), requires_grad=True)
loss = (swish(xk, 1.5) * w).sum()
loss.backward()
pt.graph(loss)"
    ));
    assert!(cell.is_ok(), "{policy}: {:?}", cell.diagnostics);
    cell.displays
        .into_iter()
        .find_map(|display| match display {
            Display::Graph(graph) => Some(graph),
            _ => None,
        })
        .expect("a graph display")
}

/// The graph view's backward node of a generated kernel lists its save-or-recompute decisions
/// and the bytes saved. Swish reads one forward value, s = σ(βx) ([32, 64] f32: 8192 B): under
/// "save" it is saved (8192 B), under "recompute" it is redone (0 B saved).
#[test]
fn the_backward_node_shows_each_choice_and_the_saved_bytes() {
    let mut session = session_with(SWISH);
    for (policy, saved, bytes) in [("save", true, 8192), ("recompute", false, 0)] {
        let graph = swish_graph(&mut session, policy);
        let node = graph.graph.backward_nodes.iter().find(|node| node.label == "swish_backward").expect("swish's node");
        assert_eq!(node.choices.len(), 1, "{policy}: {:?}", node.choices);
        let choice = &node.choices[0];
        // σ(βx) is made on line 8 of the cell that defines the kernel.
        let shown = (choice.op.as_str(), choice.line, choice.saved, choice.bytes);
        assert_eq!(shown, ("sigmoid", Some(8), saved, 8192), "{policy}");
        assert_eq!(choice.meta.shape, vec![32, 64], "{policy}");
        assert_eq!(node.saved_bytes, bytes, "{policy}");
        let verb = if saved { "saved: sigmoid" } else { "recomputed: sigmoid" };
        assert!(graph.dot.contains(verb), "{policy}: {}", graph.dot);
    }
}

/// The backward node of a generated kernel lists its tile ops. Swish's forward (line 8) is
/// t = x·β, s = σ(t), y = x·s. Walking it backwards with g = dL/dy, through the rule table:
/// y = x·s gives g·s (x's part; reads s) and g·x (s's gradient); s = σ(t) gives 1 − s (reads s),
/// s·(1 − s) (reads s) and the product with s's gradient (t's gradient); t = x·β gives t's
/// gradient · β, which is added to x's part: 7 ops, mul mul sub mul mul mul add, the add writing
/// x's gradient (f32, like x, so no cast follows). Only s is a forward value the backward reads.
#[test]
fn the_backward_node_lists_the_derived_tile_ops() {
    let mut session = session_with(SWISH);
    for (policy, saved) in [("save", true), ("recompute", false)] {
        let graph = swish_graph(&mut session, policy);
        let node = graph.graph.backward_nodes.iter().find(|node| node.label == "swish_backward").expect("swish's node");
        let names: Vec<&str> = node.ops.iter().map(|op| op.op.as_str()).collect();
        assert_eq!(names, vec!["mul", "mul", "sub", "mul", "mul", "mul", "add"], "{policy}");
        let reading: Vec<bool> =
            node.ops.iter().map(|op| if saved { op.reads_saved } else { op.reads_recomputed }).collect();
        assert_eq!(reading, vec![true, false, true, true, false, false, false], "{policy}");
        assert!(node.ops.iter().all(|op| if saved { !op.reads_recomputed } else { !op.reads_saved }), "{policy}");
        let writes: Vec<Option<&str>> = node.ops.iter().map(|op| op.gradient_of.as_deref()).collect();
        assert_eq!(writes, vec![None, None, None, None, None, None, Some("x")], "{policy}");
        for op in &node.ops {
            assert_eq!(op.line, Some(8), "{policy}: {op:?}");
            let meta = op.meta.as_ref().expect("every op has a result");
            assert_eq!(
                (meta.shape.as_slice(), meta.dtype),
                (&[32, 64][..], tilelab::tensor::DType::F32),
                "{policy}: {op:?}"
            );
        }
    }
    // A node without a generated backward (the loss's mul and sum) lists no ops.
    let cell = session.run_cell("pt.graph(loss)");
    let graph = cell.displays.iter().find_map(|display| match display {
        Display::Graph(graph) => Some(graph),
        _ => None,
    });
    assert!(graph
        .expect("a graph display")
        .graph
        .backward_nodes
        .iter()
        .filter(|node| node.label != "swish_backward")
        .all(|node| node.ops.is_empty()));
}

/// When the chip refuses the generated backward (here the preset changed to `teaching` between the
/// forward and the backward, and a [1, 8192] f32 tile overflows its 16 KiB UB), the gradients come
/// from running the body again on the CPU with the tape, with a warning: the same values as the
/// derivative written out by hand, d/dx x·σ(βx) = s·(1 + βx·(1 − s)), s = σ(βx), β = 1.5 passed as
/// a non-tensor argument.
#[test]
fn a_refused_generated_backward_runs_the_body_again_on_the_cpu() {
    let mut session = session_with(
        "import pypto as pt
@pt.kernel
def wide_swish(x, beta):
    pt.set_vec_tile_shapes(1, 8192)
    return x * pt.sigmoid(x * beta)
x = pt.reshape(pt.sin(pt.arange(0, 4 * 8192) * 0.37), [4, 8192])
leaf = pt.as_tensor(x.tolist(), requires_grad=True)
y = wide_swish(leaf, 1.5)",
    );
    let result = session.run_cell(
        "pt.npu.use('teaching')\n(y * 2.0).sum().backward()\nprint([round(leaf.grad[r, c].item(), 5) for r, c in [(0, 0), (3, 5), (2, 8191)]])",
    );
    assert!(result.is_ok(), "{:?}", result.diagnostics);
    let warning =
        result.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/cpu-fallback").expect("a warning");
    assert!(warning.message.contains("wide_swish.backward"), "{}", warning.message);
    let expected: Vec<String> = [(0usize, 0usize), (3, 5), (2, 8191)]
        .iter()
        .map(|&(row, column)| {
            // x as the notebook makes it: the index times 0.37 in f32, its sine rounded to f32.
            let x = f64::from(((row * 8192 + column) as f32 * 0.37f32).sin());
            let s = 1.0 / (1.0 + (-1.5 * x).exp());
            let gradient = 2.0 * s * (1.0 + 1.5 * x * (1.0 - s));
            format!("{:?}", (gradient * 1e5).round() / 1e5)
        })
        .collect();
    assert_eq!(result.stdout.trim(), format!("[{}]", expected.join(", ")));
}
