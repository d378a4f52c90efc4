//! Generated backward of `@pypto.frontend.jit` kernels (issue 18): a jit kernel writes its outputs
//! (arguments) region by region from views of its inputs; without a registered gradient, its call
//! becomes one autograd node whose backward is derived per loop iteration and runs on the NPU as
//! `<kernel>.backward`. Values are compared with the tape of the same math written with ops outside
//! any kernel (or a hand-written formula), and `check_gradient` compares the generated kernel with
//! f64 central differences of the body run on the CPU.

use tilelab::session::{CellResult, Session};

fn run(code: &str) -> CellResult {
    let mut session = Session::new();
    let cell = session.run_cell(code);
    assert!(cell.is_ok(), "{:?}\n{}", cell.diagnostics, cell.stdout);
    cell
}

/// The kernels the cell ran, in order.
fn kernels(cell: &CellResult) -> Vec<&str> {
    cell.kernel_schedules.iter().map(|entry| entry.kernel.as_str()).collect()
}

/// `agree(f, reference, args, atol)`: the gradients of Σ(f(args)·w) match those of the same loss
/// over `reference` (ops outside any kernel, on the tape) to rtol 1e-4 and `atol`; then prints
/// whether `check_gradient` (the generated kernel against f64 central differences) passed. The
/// script defines `w`.
const AGREE: &str = "
def agree(f, reference, args, atol):
    ours = [pt.as_tensor(t.tolist(), requires_grad=True) for t in args]
    (f(*ours) * w).sum().backward()
    theirs = [pt.as_tensor(t.tolist(), requires_grad=True) for t in args]
    (reference(*theirs) * w).sum().backward()
    for a, b in zip(ours, theirs):
        pt.assert_allclose(a.grad, pt.reshape(b.grad, a.shape), rtol=1e-4, atol=atol)
    print(pt.autodiff.check_gradient(f, args).passed)
";

/// The cell ran `kernel` (a generated backward) on the NPU and its check printed `True`.
fn assert_generated(cell: &CellResult, kernel: &str) {
    assert_on_the_npu(cell);
    assert_eq!(cell.stdout, "True\n");
    assert!(kernels(cell).contains(&kernel), "{:?}", kernels(cell));
}

fn assert_on_the_npu(cell: &CellResult) {
    assert!(
        cell.diagnostics.iter().all(|diagnostic| !diagnostic.message.contains("CPU")
            && !diagnostic.message.contains("generated backward")),
        "{:?}",
        cell.diagnostics
    );
}

/// Gallery example 04's form: 4-row views of a [10, 16] input, the last one ragged (valid 2 rows).
const ELEMENTWISE: &str = "import pypto as pt
@pt.frontend.jit
def exp_times(x, out):
    pt.set_vec_tile_shapes(4, 16)
    rows = x.shape[0]
    for i in pt.loop(0, (rows + 3) // 4, name=\"row_tiles\", idx_name=\"i\"):
        start = i * 4
        valid = min(4, rows - start)
        tile = pt.view(x, [4, 16], [start, 0], valid_shape=[valid, 16])
        pt.assemble(pt.exp(tile) * tile, [start, 0], out)

def f(x):
    out = pt.zeros(x.shape, dtype=x.dtype)
    exp_times(x, out)
    return out

x = pt.reshape(pt.sin(pt.arange(0, 160) * 0.37) * 2, [10, 16])
w = pt.reshape(pt.cos(pt.arange(0, 160) * 0.23), [10, 16])
";

#[test]
fn a_jit_kernel_gets_a_generated_backward_per_loop_iteration() {
    let cell = run(&format!(
        "{ELEMENTWISE}
xk = pt.as_tensor(x.tolist(), requires_grad=True)
(f(xk) * w).sum().backward()
# d/dx (x·eˣ) = eˣ·(1 + x), by hand.
pt.assert_allclose(xk.grad, w * pt.exp(x) * (1 + x), rtol=1e-5, atol=1e-6)
report = pt.autodiff.check_gradient(f, [x])
print(report.passed, report.max_abs_err < 1e-4)"
    ));
    assert_on_the_npu(&cell);
    assert_eq!(cell.stdout, "True True\n");
    assert_eq!(&kernels(&cell)[..2], ["exp_times", "exp_times.backward"]);
    let backward = &cell.kernel_schedules[1].schedule.summary;
    // Each unit reads its view of x and of the output's gradient and stores its rows of dx (a
    // plain store: the views do not overlap): 10·16·4 = 640 B each way per tensor, the ragged last
    // unit moving its 2 valid rows only.
    assert_eq!((backward.gm_bytes_read, backward.gm_bytes_written), (2 * 640, 640));
}

#[test]
fn softmax_rows_as_in_example_04_differentiate_through_amax_and_the_row_sums() {
    let cell = run("import pypto as pt
@pt.frontend.jit
def row_softmax(x, out):
    pt.set_vec_tile_shapes(4, 16)
    rows = x.shape[0]
    for i in pt.loop(0, (rows + 3) // 4, name=\"row_tiles\", idx_name=\"i\"):
        start = i * 4
        valid = min(4, rows - start)
        tile = pt.view(x, [4, 16], [start, 0], valid_shape=[valid, 16])
        shifted = tile - pt.amax(tile, dim=-1, keepdim=True)
        e = pt.exp(shifted)
        pt.assemble(e / pt.sum(e, dim=-1, keepdim=True), [start, 0], out)

def f(x):
    out = pt.zeros(x.shape, dtype=x.dtype)
    row_softmax(x, out)
    return out

x = pt.randn([10, 16], seed=4)
w = pt.randn([10, 16], seed=5)
xk = pt.as_tensor(x.tolist(), requires_grad=True)
(f(xk) * w).sum().backward()
xr = pt.as_tensor(x.tolist(), requires_grad=True)
(pt.softmax(xr, dim=-1) * w).sum().backward()
pt.assert_allclose(xk.grad, xr.grad, rtol=1e-5, atol=1e-6)
print(pt.autodiff.check_gradient(f, [x]).passed)");
    assert_generated(&cell, "row_softmax.backward");
}

#[test]
fn broadcast_parameters_of_a_layer_norm_accumulate_their_gradients_over_the_units() {
    let cell = run(&(AGREE.to_string()
        + "import pypto as pt
R, C = 24, 64
@pt.frontend.jit
def layer_norm(x, gamma, beta, y):
    pt.set_vec_tile_shapes(8, 64)
    for i in pt.loop(0, R // 8, name=\"rows\", idx_name=\"i\"):
        tile = pt.view(x, [8, C], [i * 8, 0])
        mean = pt.mean(tile, dim=-1, keepdim=True)
        centred = tile - mean
        rstd = pt.rsqrt(pt.mean(centred * centred, dim=-1, keepdim=True) + 1e-5)
        pt.assemble(centred * rstd * gamma + beta, [i * 8, 0], y)

def f(x, gamma, beta):
    y = pt.zeros(x.shape, dtype=x.dtype)
    layer_norm(x, gamma, beta, y)
    return y

args = [pt.randn([R, C], seed=1), pt.randn([1, C], seed=2), pt.randn([1, C], seed=3)]
w = pt.randn([R, C], seed=6)
agree(f, lambda x, g, b: pt.nn.layer_norm(x, pt.reshape(g, [C]), pt.reshape(b, [C])), args, 1e-4)"));
    assert_on_the_npu(&cell);
    assert_eq!(cell.stdout, "True\n");
    let backward = cell.kernel_schedules.iter().find(|entry| entry.kernel == "layer_norm.backward").expect("backward");
    let summary = &backward.schedule.summary;
    // Written: dx, 24·64·4 = 6144 B, plus per unit (3) an f32 [1, 64] partial of dγ and of dβ
    // added into GM by an accumulating store: 3·2·256 = 1536 B. Read: x and the gradient of y
    // (6144 B each), γ once per unit (3·256 B; β's gradient does not read β), and the GM sums
    // each atomic add reads before it writes (3·2·256 B) — no unit loads a partial itself.
    assert_eq!(summary.gm_bytes_written, 6144 + 1536);
    assert_eq!(summary.gm_bytes_read, 2 * 6144 + 3 * 256 + 1536);
}

#[test]
fn a_matmul_over_row_views_gets_transposed_matmuls_and_a_summed_weight_gradient() {
    let cell = run(&(AGREE.to_string()
        + "import pypto as pt
M, K, N = 32, 32, 48
@pt.frontend.jit
def dense(a, b, out):
    pt.set_vec_tile_shapes(8, 48)
    for i in pt.loop(0, M // 8, name=\"m\", idx_name=\"i\"):
        rows = pt.view(a, [8, K], [i * 8, 0])
        pt.assemble(pt.sigmoid(pt.matmul(rows, b)), [i * 8, 0], out)

def f(a, b):
    out = pt.zeros([M, N], dtype=a.dtype)
    dense(a, b, out)
    return out

args = [pt.randn([M, K], seed=7), pt.randn([K, N], seed=8) * 0.2]
w = pt.randn([M, N], seed=9)
agree(f, lambda a, b: pt.sigmoid(pt.matmul(a, b)), args, 1e-5)"));
    assert_generated(&cell, "dense.backward");
}

/// Example 09's GroupNorm forward: nested loops over samples and groups, [1, C/G, 1] views of γ
/// and β, and three outputs (y and the per-group statistics, which the loss does not use).
#[test]
fn example_09s_group_norm_forward_gets_its_backward_with_nested_loops() {
    let cell = run(&(AGREE.to_string()
        + "import pypto as pt
N, C, HW, G = 2, 8, 8, 4
CG = C // G
@pt.frontend.jit
def group_norm_forward(x, gamma, beta, y, mean, rstd):
    pt.set_vec_tile_shapes(1, CG, HW)
    for n in pt.loop(0, N, name=\"samples\", idx_name=\"n\"):
        for g in pt.loop(0, G, name=\"groups\", idx_name=\"g\"):
            tile = pt.view(x, [1, CG, HW], [n, g * CG, 0])
            m = pt.mean(tile, dim=[1, 2], keepdim=True)
            centred = tile - m
            r = pt.rsqrt(pt.mean(centred * centred, dim=[1, 2], keepdim=True) + 1e-5)
            scale = pt.view(gamma, [1, CG, 1], [0, g * CG, 0])
            shift = pt.view(beta, [1, CG, 1], [0, g * CG, 0])
            pt.assemble(centred * r * scale + shift, [n, g * CG, 0], y)
            pt.assemble(m, [n, g, 0], mean)
            pt.assemble(r, [n, g, 0], rstd)

def f(x, gamma, beta):
    y = pt.zeros([N, C, HW], dtype=x.dtype)
    mean = pt.zeros([N, G, 1], dtype=x.dtype)
    rstd = pt.zeros([N, G, 1], dtype=x.dtype)
    group_norm_forward(x, gamma, beta, y, mean, rstd)
    return y

args = [pt.randn([N, C, HW], seed=1), pt.randn([1, C, 1], seed=2), pt.randn([1, C, 1], seed=3)]
w = pt.randn([N, C, HW], seed=4)
agree(f, lambda x, g, b: pt.nn.group_norm(x, G, pt.reshape(g, [C]), pt.reshape(b, [C])), args, 1e-5)"));
    assert_generated(&cell, "group_norm_forward.backward");
}

/// pypto's own examples index with slices (`x[b:b+1, ...]`) and store with `out[b:, ...] = t`.
#[test]
fn slices_and_slice_stores_as_pypto_examples_write_them() {
    let cell = run("import pypto as pt
@pt.frontend.jit
def add_scaled(x, y, out):
    pt.set_vec_tile_shapes(1, 4, 16)
    for b in pt.loop(0, 3, name=\"batch\", idx_name=\"b\"):
        out[b:b + 1, ...] = x[b:b + 1, :, :] * 2 + pt.sin(y[b:b + 1, :, :])

def f(x, y):
    out = pt.zeros(x.shape, dtype=x.dtype)
    add_scaled(x, y, out)
    return out

x = pt.randn([3, 4, 16], seed=1)
y = pt.randn([3, 4, 16], seed=2)
w = pt.randn([3, 4, 16], seed=3)
xs, ys = pt.as_tensor(x.tolist(), requires_grad=True), pt.as_tensor(y.tolist(), requires_grad=True)
(f(xs, ys) * w).sum().backward()
pt.assert_allclose(xs.grad, w * 2, rtol=1e-6, atol=1e-6)
pt.assert_allclose(ys.grad, w * pt.cos(y), rtol=1e-5, atol=1e-6)
print(pt.autodiff.check_gradient(f, [x, y]).passed)");
    assert_generated(&cell, "add_scaled.backward");
}

#[test]
fn a_kernel_whose_backward_cannot_be_derived_warns_and_keeps_correct_gradients() {
    // The kernel reads back the output it writes: no generated backward; the gradient comes
    // from running the body again on the CPU with the tape.
    let cell = run("import pypto as pt
@pt.frontend.jit
def twice(x, out):
    pt.set_vec_tile_shapes(4, 16)
    pt.assemble(x * 3, [0, 0], out)
    pt.assemble(pt.view(out, [4, 16], [0, 0]) * x, [0, 0], out)

x = pt.randn([4, 16], seed=1)
xk = pt.as_tensor(x.tolist(), requires_grad=True)
out = pt.zeros([4, 16])
twice(xk, out)
out.sum().backward()
# out = 3x·x: d/dx = 6x.
pt.assert_allclose(xk.grad, x * 6, rtol=1e-5, atol=1e-6)");
    let warning = cell.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/no-generated-backward");
    assert!(warning.is_some_and(|warning| warning.message.contains("also writes")), "{:?}", cell.diagnostics);
}

#[test]
fn writing_into_an_argument_that_requires_grad_is_a_located_error() {
    let mut session = Session::new();
    let cell = session.run_cell(
        "import pypto as pt
@pt.frontend.jit
def scale(x, out):
    pt.set_vec_tile_shapes(4, 16)
    pt.assemble(x * 2, [0, 0], out)

x = pt.randn([4, 16], seed=1)
out = pt.as_tensor(pt.zeros([4, 16]).tolist(), requires_grad=True)
scale(x, out)",
    );
    let error = cell.error().expect("an error");
    assert!(error.message.contains("`out`, which requires grad"), "{}", error.message);
    assert_eq!(error.line, 9);
}

/// A jit kernel called inside a `@pt.kernel` keeps the tape: the caller's capture does not see
/// what the jit kernel wrote, so the caller gets no generated backward and the tape differentiates
/// through both.
#[test]
fn a_jit_kernel_called_by_a_kernel_is_differentiated_through_the_tape() {
    let cell = run("import pypto as pt
@pt.frontend.jit
def exp_twice(x, out):
    pt.set_vec_tile_shapes(4, 16)
    pt.assemble(pt.exp(x) * 2, [0, 0], out)

@pt.kernel
def outer(x):
    pt.set_vec_tile_shapes(4, 16)
    out = pt.zeros(x.shape, dtype=x.dtype)
    exp_twice(x * 3, out)
    return out + x

x = pt.randn([4, 16], seed=1)
xk = pt.as_tensor(x.tolist(), requires_grad=True)
outer(xk).sum().backward()
# d/dx (2·e^(3x) + x) = 6·e^(3x) + 1.
pt.assert_allclose(xk.grad, pt.exp(x * 3) * 6 + 1, rtol=1e-5, atol=1e-5)");
    assert!(!kernels(&cell).contains(&"outer.backward"), "{:?}", kernels(&cell));
}
