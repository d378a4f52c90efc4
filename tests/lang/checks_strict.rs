//! Checks in the language that must catch a minimal wrong input (issue 20): each test gives the
//! smallest input that a lax check would let through and asserts that it is rejected, next to the
//! right input that passes. Also `//` and `%` on tensors (numpy semantics, with gradients) and
//! graphs that show backward nodes only after a backward pass.

use tilelab::session::{Display, Session};

fn session() -> Session {
    let mut session = Session::new();
    let result = session.run_cell("import pypto as pt");
    assert!(result.is_ok(), "{:?}", result.error());
    session
}

/// The error code and message of a cell that must fail.
fn failure(session: &mut Session, code: &str) -> (String, String) {
    let result = session.run_cell(code);
    let error = result.error().unwrap_or_else(|| panic!("`{code}` should fail, printed {:?}", result.stdout));
    (error.code.clone(), error.message.clone())
}

fn printed(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "`{code}`: {:?}", result.error());
    result.stdout
}

#[test]
fn assert_allclose_rejects_a_shape_mismatch_like_numpy() {
    let mut session = session();
    // numpy.testing.assert_allclose(np.ones([1, 3]), np.ones([5, 3])) raises: the shapes differ.
    let (code, message) = failure(&mut session, "pt.assert_allclose(pt.ones([1, 3]), pt.ones([5, 3]))");
    assert_eq!(code, "runtime/assertion-failed");
    assert!(message.contains("[1, 3]") && message.contains("[5, 3]"), "{message}");
    // A one-element difference in the trailing dim is a shape mismatch too.
    failure(&mut session, "pt.assert_allclose(pt.ones([3]), pt.ones([3, 1]))");
    // Equal shapes, and a 0-d side (numpy broadcasts scalars), still pass.
    printed(&mut session, "pt.assert_allclose(pt.ones([5, 3]), pt.ones([5, 3]))");
    printed(&mut session, "pt.assert_allclose(pt.ones([5, 3]), 1.0)");
    // allclose keeps numpy.allclose's broadcasting.
    assert_eq!(printed(&mut session, "print(pt.allclose(pt.ones([1, 3]), pt.ones([5, 3])))"), "True\n");
}

#[test]
fn assert_allclose_rejects_one_wrong_element() {
    let mut session = session();
    // 1000 equal elements and one off by 2e-7·|d| more than rtol allows.
    printed(&mut session, "a = pt.ones([1000])\nb = pt.ones([1000])\nb[999] = 1.0 + 2e-6");
    let (_, message) = failure(&mut session, "pt.assert_allclose(a, b, rtol=1e-6, atol=0.0)");
    assert!(message.contains("1 of 1000"), "{message}");
}

#[test]
fn approximate_is_only_gelu_and_only_none_or_tanh() {
    let mut session = session();
    printed(&mut session, "x = pt.as_tensor([-1.0, 0.5, 2.0])");
    // gelu(x, "none") is the erf form, "tanh" the tanh approximation: different values.
    let exact = 0.5 * 2.0 * (1.0 + libm::erf(2.0 / std::f64::consts::SQRT_2));
    let tanh = 0.5 * 2.0 * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (2.0 + 0.044715 * 8.0)).tanh());
    let values = printed(
        &mut session,
        "print(pt.gelu(x).tolist()[2], pt.gelu(x, approximate='none').tolist()[2], pt.gelu(x, approximate='tanh').tolist()[2])",
    );
    let numbers: Vec<f64> = values.split_whitespace().map(|word| word.parse().unwrap()).collect();
    assert!((numbers[0] - exact).abs() < 1e-6 && (numbers[1] - exact).abs() < 1e-6, "{values}");
    assert!((numbers[2] - tanh).abs() < 1e-6 && (numbers[2] - exact).abs() > 1e-5, "{values}");
    // Any other mode is an error, not a silent erf.
    for mode in ["'bogus'", "True", "'Tanh'", "None"] {
        let (code, message) = failure(&mut session, &format!("pt.gelu(x, approximate={mode})"));
        assert_eq!(code, "runtime/value-error", "{mode}: {message}");
        assert!(message.contains("must be one of [\"none\", \"tanh\"]"), "{message}");
    }
    // Other unary ops have no such keyword.
    for op in ["exp", "relu", "sigmoid", "tanh"] {
        let (code, message) = failure(&mut session, &format!("pt.{op}(x, approximate='tanh')"));
        assert_eq!(code, "runtime/type-error", "{op}: {message}");
        assert!(message.contains("unexpected keyword argument 'approximate'"), "{message}");
    }
}

#[test]
fn unknown_keywords_are_errors_and_unknown_options_warnings() {
    let mut session = session();
    for call in [
        "pt.sum(pt.ones([2]), dims=0)",
        "pt.softmax(pt.ones([2]), axis=0)",
        "pt.allclose(pt.ones([2]), pt.ones([2]), rtl=0.1)",
        "pt.assert_allclose(pt.ones([2]), pt.ones([2]), tol=0.1)",
        "pt.matmul(pt.ones([2, 2]), pt.ones([2, 2]), transpose_b=True)",
    ] {
        let (code, message) = failure(&mut session, call);
        assert_eq!(code, "runtime/type-error", "{call}: {message}");
        assert!(message.contains("unexpected keyword argument"), "{call}: {message}");
    }
    let result = session
        .run_cell("@pt.frontend.jit(pass_options={'vec_nbuffer_settings': 2})\ndef k(x, y):\n    y[:] = x + 1.0");
    assert!(result.is_ok(), "{:?}", result.error());
    let warning = result.diagnostics.iter().find(|d| d.code == "lang/unknown-option").expect("a warning");
    assert!(warning.message.contains("vec_nbuffer_settings"), "{}", warning.message);
}

/// numpy.floor_divide / numpy.remainder on float32, printed by numpy 1.26:
/// a = [7, -7, 7, -7, 5.5, -0.5], b = [2, 2, -2, -2, 1.5, 1]
/// a // b = [3, -4, -4, 3, 3, -1]; a % b = [1, 1, -1, -1, 1, 0.5]
#[test]
fn floor_divide_and_remainder_on_tensors_follow_numpy() {
    let mut session = session();
    printed(
        &mut session,
        "a = pt.as_tensor([7.0, -7.0, 7.0, -7.0, 5.5, -0.5])\nb = pt.as_tensor([2.0, 2.0, -2.0, -2.0, 1.5, 1.0])",
    );
    assert_eq!(printed(&mut session, "print((a // b).tolist())"), "[3.0, -4.0, -4.0, 3.0, 3.0, -1.0]\n");
    assert_eq!(printed(&mut session, "print((a % b).tolist())"), "[1.0, 1.0, -1.0, -1.0, 1.0, 0.5]\n");
    // With Python numbers on either side, and the pypto function names.
    assert_eq!(printed(&mut session, "print((a % 3).tolist())"), "[1.0, 2.0, 1.0, 2.0, 2.5, 2.5]\n");
    assert_eq!(printed(&mut session, "print((10.0 // b).tolist())"), "[5.0, 5.0, -5.0, -5.0, 6.0, 10.0]\n");
    assert_eq!(
        printed(
            &mut session,
            "print(pt.allclose(pt.remainder(a, b), a % b), pt.allclose(pt.floor_divide(a, b), a // b))"
        ),
        "True True\n"
    );
    // a == b·(a // b) + a % b.
    assert_eq!(printed(&mut session, "print(pt.allclose(b * (a // b) + a % b, a))"), "True\n");
    // Division by zero: x // 0 is ±inf, x % 0 NaN (numpy, with a warning there).
    assert_eq!(
        printed(&mut session, "print((a[0:2] // 0.0).tolist(), (a[0:1] % 0.0).tolist())"),
        "[inf, -inf] [nan]\n"
    );
}

/// d(a % b)/da = 1 and d(a % b)/db = −⌊a/b⌋; a // b is piecewise constant (zero gradient).
#[test]
fn floor_divide_and_remainder_have_gradients() {
    let mut session = session();
    printed(
        &mut session,
        "a = pt.as_tensor([7.0, -7.0, 5.5], requires_grad=True)\nb = pt.as_tensor([2.0, 2.0, -1.5], requires_grad=True)\n(a % b).sum().backward()",
    );
    assert_eq!(printed(&mut session, "print(a.grad.tolist(), b.grad.tolist())"), "[1.0, 1.0, 1.0] [-3.0, 4.0, 4.0]\n");
    printed(&mut session, "a.grad = None\nb.grad = None\n(a // b).sum().backward()");
    assert_eq!(printed(&mut session, "print(a.grad.tolist(), b.grad.tolist())"), "[0.0, 0.0, 0.0] [0.0, 0.0, 0.0]\n");
    // The checker agrees (f64 central differences away from the jumps).
    let result = session.run_cell(
        "def f(u, v):\n    return u % v\npt.autodiff.check_gradient(f, [pt.as_tensor([7.3, -2.2, 0.4]), pt.as_tensor([2.0, 1.5, -0.7])])",
    );
    let Some(Display::GradCheck(report)) = result.displays.first() else { panic!("{:?}", result.error()) };
    assert!(report.passed, "{report:?}");
}

#[test]
fn a_graph_shows_backward_nodes_only_after_backward() {
    let mut session = session();
    printed(&mut session, "x = pt.as_tensor([0.5, -1.0], requires_grad=True)\ny = (pt.exp(x) * x).sum()");
    assert_eq!(
        printed(&mut session, "g = pt.graph(y)\nprint(g.num_nodes, g.num_backward_nodes, '_backward' in g.to_dot())"),
        "4 0 False\n"
    );
    assert_eq!(
        printed(
            &mut session,
            "y.backward()\ng = pt.graph(y)\nprint(g.num_nodes, g.num_backward_nodes, '_backward' in g.to_dot())"
        ),
        "4 3 True\n"
    );
}

/// The dynamic loss scaler for scripts (the autograd core's `LossScaler`): scale 8 → the loss
/// times 8; an inf gradient is reported as not finite and halves the scale; two finite steps in a
/// row (growth_interval=2) double it; the unscaled gradient is the scaled one ÷ 8 in f32.
#[test]
fn loss_scaler_scales_unscales_and_adapts() {
    let mut session = session();
    printed(
        &mut session,
        "s = pt.autodiff.LossScaler(init_scale=8.0, growth_interval=2)\nw = pt.as_tensor([1.0, -2.0], requires_grad=True)",
    );
    assert_eq!(
        printed(&mut session, "y = (w * w).sum()\nprint(s.scale_loss(y).item())\ns.scale_loss(y).backward()"),
        "40.0\n"
    );
    // d(8·Σw²)/dw = 16w = [16, −32]; unscaled: [2, −4].
    assert_eq!(
        printed(&mut session, "g, ok = s.unscale([w])\nprint(g[0].tolist(), ok, g[0].dtype)"),
        "[2.0, -4.0] True pypto.DT_FP32\n"
    );
    assert_eq!(
        printed(&mut session, "print(s.update(True), s.scale, s.update(True), s.scale)"),
        "kept 8.0 grew 16.0\n"
    );
    printed(&mut session, "w.grad = None\n(w * float('inf')).sum().backward()");
    assert_eq!(
        printed(&mut session, "g, ok = s.unscale([w])\nprint(ok, s.update(ok), s.scale)"),
        "False backed_off 8.0\n"
    );
    // Bad settings and arguments are errors, not silence.
    for (call, code) in [
        ("pt.autodiff.LossScaler(backoff_factor=1.5)", "runtime/value-error"),
        ("pt.autodiff.LossScaler(init_scale=0.0)", "runtime/value-error"),
        ("pt.autodiff.LossScaler(growth=2.0)", "runtime/type-error"),
        ("s.update(1)", "runtime/type-error"),
        ("s.unscale([1.0])", "runtime/type-error"),
        ("s.step()", "runtime/attribute-error"),
    ] {
        assert_eq!(failure(&mut session, call).0, code, "{call}");
    }
}

#[test]
fn tensor_methods_without_parameters_reject_arguments() {
    let mut session = session();
    printed(&mut session, "x = pt.as_tensor([1.0, 2.0])");
    for call in
        ["x.item(3)", "x.tolist(True)", "x.detach(x)", "x.clone(dim=0)", "x.numel(1)", "x.exp(approximate='tanh')"]
    {
        let (code, message) = failure(&mut session, call);
        assert_eq!(code, "runtime/type-error", "{call}: {message}");
        // Positional arguments are counted; a keyword is named (as Python reports both).
        let named = call.contains('=') && message.contains("unexpected keyword argument");
        assert!(message.contains("takes no arguments") || named, "{message}");
    }
    assert_eq!(printed(&mut session, "print(x.numel(), x.exp().tolist()[0] > 2.7)"), "2 True\n");
}

/// `%` and `//` inside a kernel run on the simulated NPU (no CPU fallback) with the same values.
#[test]
fn floor_divide_and_remainder_run_in_kernels_on_the_npu() {
    let mut session = session();
    let result = session.run_cell(
        "@pt.kernel\ndef wrap(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return x % 3.0 + x // 2.0\nx = pt.randn([16, 128], seed=4) * 5\ny = wrap(x)\npt.assert_allclose(y, x % 3.0 + x // 2.0, rtol=0, atol=0)",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert!(result.diagnostics.iter().all(|d| d.code != "npu/cpu-fallback"), "{:?}", result.diagnostics);
}
