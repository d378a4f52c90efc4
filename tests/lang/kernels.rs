//! Kernels and registered gradients, checked against f64 references and central finite differences
//! computed here (never against the kernels themselves).

use tilelab::session::{Display, Session};

fn session_with(setup: &str) -> Session {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto as pt\n{setup}"));
    assert!(result.is_ok(), "setup failed: {:?}", result.error());
    session
}

fn values(session: &mut Session, expression: &str) -> Vec<f64> {
    let result = session.run_cell(expression);
    assert!(result.is_ok(), "{expression}: {:?}", result.error());
    match result.displays.first() {
        Some(Display::Tensor(tensor)) => tensor.values.clone(),
        other => panic!("{expression}: expected a tensor, got {other:?}"),
    }
}

/// Central differences of a scalar function of each input element, in f64.
fn finite_differences(f: &dyn Fn(&[f64]) -> f64, point: &[f64]) -> Vec<f64> {
    let step = 1e-6;
    (0..point.len())
        .map(|index| {
            let mut plus = point.to_vec();
            let mut minus = point.to_vec();
            plus[index] += step;
            minus[index] -= step;
            (f(&plus) - f(&minus)) / (2.0 * step)
        })
        .collect()
}

fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths");
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!((a - e).abs() <= tolerance * (1.0 + e.abs()), "{what}[{index}]: {a} vs {e}");
    }
}

const SWISH: &str = "
@pt.kernel
def swish(x):
    s = pt.sigmoid(x)
    pt.save_for_backward(s)
    return x * s

@pt.register_gradient('swish')
def swish_backward(grad_output, saved, ctx):
    x, s = saved
    return grad_output * s * (1 + x * (1 - s))
";

const POINT: [f64; 6] = [-2.0, -0.7, -0.1, 0.3, 1.1, 2.5];

fn swish_weighted_sum(x: &[f64]) -> f64 {
    // L(x) = Σ w_i · x_i σ(x_i) with w_i = i + 1.
    x.iter().enumerate().map(|(i, &v)| (i as f64 + 1.0) * v / (1.0 + (-v).exp())).sum()
}

#[test]
fn a_registered_gradient_matches_finite_differences() {
    let mut session =
        session_with(&format!("{SWISH}\nx = pt.as_tensor({POINT:?}, requires_grad=True)\nw = pt.arange(1, 7)"));
    let forward = values(&mut session, "swish(x)");
    let expected_forward: Vec<f64> = POINT.iter().map(|&v| v / (1.0 + (-v).exp())).collect();
    assert_close(&forward, &expected_forward, 1e-6, "forward");
    assert!(session.run_cell("(swish(x) * w).sum().backward()").is_ok());
    let gradient = values(&mut session, "x.grad");
    assert_close(&gradient, &finite_differences(&swish_weighted_sum, &POINT), 1e-5, "registered gradient");
    // The call is one custom node in the graph.
    assert_eq!(session.run_cell("print(pt.graph(swish(x)).num_nodes)").stdout, "2\n");
}

#[test]
fn a_kernel_without_a_registered_gradient_is_differentiated_through_its_ops() {
    let source = "
@pt.kernel
def softplus_sq(x):
    pt.set_vec_tile_shapes(8, 8)
    y = pt.log(pt.exp(x) + 1)
    return y * y
x = pt.as_tensor([-1.0, 0.0, 0.5, 2.0], requires_grad=True)
softplus_sq(x).sum().backward()
";
    let mut session = session_with(source);
    let point = [-1.0, 0.0, 0.5, 2.0];
    let loss = |x: &[f64]| x.iter().map(|&v| (1.0 + v.exp()).ln().powi(2)).sum::<f64>();
    assert_close(&values(&mut session, "x.grad"), &finite_differences(&loss, &point), 1e-5, "through ops");
}

#[test]
fn the_backward_sees_saved_inputs_outputs_and_attributes() {
    let source = "
@pt.kernel
def scaled(x, y, alpha, mode='sum'):
    return x * y * alpha

seen = []
@pt.register_gradient('scaled')
def scaled_backward(grad_output, saved, ctx):
    x, y = saved
    seen.append(ctx.attrs['alpha'])
    seen.append(ctx.attrs['mode'])
    seen.append(len(ctx.outputs))
    return grad_output * y * ctx.attrs['alpha'], None

x = pt.as_tensor([1.0, 2.0], requires_grad=True)
y = pt.as_tensor([3.0, -4.0], requires_grad=True)
scaled(x, y, 2.5, mode='mean').sum().backward()
print(seen, y.grad)
";
    let mut session = session_with(source);
    // d/dx Σ αxy = αy = [7.5, −10]; y's gradient was returned as None so y.grad stays None.
    assert_close(&values(&mut session, "x.grad"), &[7.5, -10.0], 1e-7, "x.grad");
    assert_eq!(session.run_cell("print(seen, y.grad)").stdout, "[2.5, 'mean', 1] None\n");
}

#[test]
fn a_kernel_with_two_outputs_gets_a_tuple_of_output_gradients() {
    let source = "
@pt.kernel
def split(x):
    return x * 2, x * x

@pt.register_gradient('split')
def split_backward(grads, saved, ctx):
    g_double, g_square = grads
    x, = saved
    return g_double * 2 + g_square * 2 * x

x = pt.as_tensor([0.5, -1.5], requires_grad=True)
a, b = split(x)
(a * 3 + b).sum().backward()
";
    let mut session = session_with(source);
    // L = Σ 6x + x² → dL/dx = 6 + 2x.
    let loss = |x: &[f64]| x.iter().map(|&v| 6.0 * v + v * v).sum::<f64>();
    assert_close(&values(&mut session, "x.grad"), &finite_differences(&loss, &[0.5, -1.5]), 1e-6, "two outputs");
}

#[test]
fn a_jit_kernel_writes_its_output_in_place_with_a_ragged_last_tile() {
    let source = "
@pt.frontend.jit(pass_options={'vec_nbuffer_setting': 2})
def affine(x, out):
    pt.set_vec_tile_shapes(4, 8)
    rows = x.shape[0]
    for i in pt.loop(0, (rows + 3) // 4, name='tiles', idx_name='i'):
        start = i * 4
        valid = min(4, rows - start)
        tile = pt.view(x, [4, 8], [start, 0], valid_shape=[valid, 8])
        pt.assemble(tile * 2 + 1, [start, 0], out)

x = pt.arange(80).reshape([10, 8])
out = pt.zeros([10, 8])
affine(x, out)
";
    let mut session = session_with(source);
    let expected: Vec<f64> = (0..80).map(|v| v as f64 * 2.0 + 1.0).collect();
    assert_close(&values(&mut session, "out"), &expected, 0.0, "tiled affine");
}

#[test]
fn gradients_flow_through_jit_outputs() {
    let source = "
@pt.frontend.jit
def cube(x, y):
    y[:] = x * x * x

x = pt.as_tensor([0.5, -2.0, 1.5], requires_grad=True)
y = pt.zeros([3])
cube(x, y)
y.sum().backward()
";
    let mut session = session_with(source);
    assert_close(&values(&mut session, "x.grad"), &[0.75, 12.0, 6.75], 1e-6, "3x²");
}

#[test]
fn check_gradient_passes_right_and_catches_wrong_gradients() {
    let mut session = session_with(SWISH);
    let right = session.run_cell("r = pt.autodiff.check_gradient(swish, [pt.randn([3, 4], seed=1)])\nprint(r.passed, bool(r), r.max_abs_err < 1e-4)");
    assert_eq!(right.stdout, "True True True\n");
    let fast = session
        .run_cell("f = pt.autodiff.check_gradient(swish, [pt.randn([64, 64], seed=2)], fast=True)\nprint(f.passed)");
    assert_eq!(fast.stdout, "True\n");
    let half = session.run_cell(
        "h = pt.autodiff.check_gradient(swish, [pt.cast(pt.randn([4], seed=3), pt.DT_FP16)])\nprint(h.passed)",
    );
    assert_eq!(half.stdout, "True\n", "f16 inputs are checked at f16 tolerances");
    session.run_cell("@pt.register_gradient('swish')\ndef wrong(grad_output, saved, ctx):\n    x, s = saved\n    return grad_output * s");
    let wrong = session.run_cell("w = pt.autodiff.check_gradient(swish, [pt.as_tensor([[1.0, -2.0]])])\nprint(w.passed, len(w.worst) > 0)\nprint(w.worst[0][0], w.worst[0][1])");
    assert_eq!(wrong.stdout.lines().next(), Some("False True"));
    // Missing term x·σ(x)(1 − σ(x)) is largest at x = 1 (0.1966) vs x = −2 (−0.2100): the worst is index (0, 1).
    assert_eq!(wrong.stdout.lines().nth(1), Some("0 (0, 1)"));
    let explicit = session.run_cell(
        "e = pt.autodiff.check_gradient(swish, [pt.as_tensor([1.0])], eps=1e-3, atol=1.0, rtol=1.0)\nprint(e.passed)",
    );
    assert_eq!(explicit.stdout, "True\n", "explicit tolerances override the per-dtype table");
}

#[test]
fn a_registered_backward_may_call_kernels_and_errors_inside_it_have_a_traceback() {
    let source = "
@pt.kernel
def times_two(g):
    return g * 2

@pt.kernel
def double(x):
    return x * 2

@pt.register_gradient('double')
def double_backward(grad_output, saved, ctx):
    return times_two(grad_output)

x = pt.as_tensor([1.0, 2.0], requires_grad=True)
double(x).sum().backward()
";
    let mut session = session_with(source);
    assert_close(&values(&mut session, "x.grad"), &[2.0, 2.0], 0.0, "backward via a kernel");
    session.run_cell(
        "@pt.register_gradient('double')\ndef broken(grad_output, saved, ctx):\n    return grad_output * missing_name",
    );
    let result = session.run_cell("z = pt.as_tensor([1.0], requires_grad=True)\ndouble(z).sum().backward()");
    let error = result.error().expect("the backward's error");
    assert_eq!(error.code, "runtime/name-error");
    assert_eq!((error.cell, error.line), (3, 3), "at the name inside the backward, in the cell that defined it");
    assert_eq!(error.traceback.first().map(|frame| frame.function.as_str()), Some("broken"));
    // The session keeps working.
    assert!(session.run_cell("print(1)").is_ok());
}

#[test]
fn tile_shapes_are_validated_and_recorded() {
    let mut session = session_with("@pt.kernel\ndef k(x, n):\n    pt.set_vec_tile_shapes(2, n)\n    pt.set_cube_tile_shapes([16, 32], [64, 128], [32, 32])\n    return x + 1");
    let ok = session.run_cell("k(pt.ones([2, 8]), 8)");
    assert!(ok.is_ok());
    assert_eq!(
        ok.kernel_schedules.iter().map(|entry| (entry.kernel.as_str(), entry.calls)).collect::<Vec<_>>(),
        [("k", 1)]
    );
    // Every call of the cell is counted under its kernel.
    let repeated = session.run_cell("for i in range(3):\n    k(pt.ones([2, 8]), 8)\nk(pt.ones([2, 16]), 16)");
    assert_eq!(repeated.kernel_schedules.iter().map(|entry| entry.calls).collect::<Vec<_>>(), vec![4]);
    // 32 bytes = 8 f32 or 16 f16: 12 f32 lies between 8 and 16; 8 f16 needs 16. A misaligned tile
    // runs with its rows padded in UB, and a warning names the aligned sizes.
    let mut padded_help = |code: &str| {
        let result = session.run_cell(code);
        assert!(result.is_ok(), "{:?}", result.error());
        let warning = result.diagnostics.iter().find(|diagnostic| diagnostic.code == "npu/vec-tile-padded");
        warning.and_then(|warning| warning.help.clone()).unwrap_or_else(|| panic!("no padding warning: {code}"))
    };
    assert!(padded_help("k(pt.ones([2, 8]), 12)").contains("8 or 16"));
    assert!(padded_help("k(pt.ones([2, 8], dtype=pt.DT_FP16), 8)").ends_with("are 16"));
    let cube = session.run_cell("@pt.kernel\ndef c(x):\n    pt.set_cube_tile_shapes([16, 24], [16, 16], [16, 16])\n    return x\nc(pt.ones([1]))");
    assert_eq!(cube.error().map(|e| e.code.clone()), Some("runtime/tile-shape".into()));
}

#[test]
fn save_for_backward_outside_a_kernel_is_an_error() {
    let mut session = session_with("");
    let result = session.run_cell("pt.save_for_backward(pt.ones([1]))");
    assert_eq!(result.error().map(|e| e.code.clone()), Some("runtime/value-error".into()));
}

#[test]
fn slice_writes_of_a_ragged_tile_write_only_its_valid_region() {
    let source = "
@pt.frontend.jit
def shift(x, out):
    for i in pt.loop(0, 3):
        start = i * 4
        tile = pt.view(x, [4, 3], [start, 0], valid_shape=[min(4, 10 - start), 3])
        out[start:start + 4, :] = tile + 100

x = pt.arange(30).reshape([10, 3])
out = pt.full([10, 3], -1.0)
shift(x, out)
";
    let mut session = session_with(source);
    // Rows 8 and 9 come from the last tile, whose valid region has 2 of its 4 rows.
    let expected: Vec<f64> = (0..30).map(|v| v as f64 + 100.0).collect();
    assert_close(&values(&mut session, "out"), &expected, 0.0, "ragged slice writes");
}

#[test]
fn rebinding_a_tensor_parameter_of_a_jit_kernel_warns_once_and_numbers_may_be_rebound() {
    let mut session = session_with(
        "@pt.frontend.jit\ndef k(x, y, n):\n    n = n * 2\n    y = x + n\nx = pt.ones([2])\ny = pt.zeros([2])",
    );
    let first = session.run_cell("k(x, y, 3)\nk(x, y, 4)");
    assert!(first.is_ok());
    let warnings: Vec<_> = first.diagnostics.iter().map(|d| (d.code.as_str(), d.cell, d.line)).collect();
    // Only `y` (a tensor) is reported, at line 4 of the defining cell (line 1 is the import), once.
    assert_eq!(warnings, vec![("lang/jit-output-rebound", 1, 5)]);
    assert_eq!(values(&mut session, "y"), vec![0.0, 0.0], "the caller's output was never written");
}
