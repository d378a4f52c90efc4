//! Each `pypto` function against an independent f64 reference written here (formulas, loops,
//! `half` for rounding), through the session as a user runs it.

use tilelab::session::{Display, Session};

/// Runs `setup`, then evaluates `expression`; returns (shape, values, dtype).
fn tensor(session: &mut Session, expression: &str) -> (Vec<usize>, Vec<f64>, String) {
    let result = session.run_cell(expression);
    assert!(result.is_ok(), "{expression}: {:?}", result.error());
    match result.displays.first() {
        Some(Display::Tensor(tensor)) => (tensor.shape.clone(), tensor.values.clone(), tensor.dtype.clone()),
        other => panic!("{expression}: expected a tensor, got {other:?}"),
    }
}

fn session_with(setup: &str) -> Session {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto as pt\nimport math\n{setup}"));
    assert!(result.is_ok(), "setup failed: {:?}", result.error());
    session
}

fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths");
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!((a - e).abs() <= tolerance * (1.0 + e.abs()), "{what}[{index}]: {a} vs {e}");
    }
}

const INPUT: [f64; 5] = [-1.5, -0.3, 0.2, 0.7, 2.0];

#[test]
fn element_wise_functions_match_f64_formulas() {
    let mut session = session_with("x = pt.as_tensor([-1.5, -0.3, 0.2, 0.7, 2.0])\np = pt.abs(x) + 0.5");
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    type Reference = Box<dyn Fn(f64) -> f64>;
    let cases: Vec<(&str, Reference, bool)> = vec![
        ("exp", Box::new(f64::exp), false),
        ("log", Box::new(f64::ln), true),
        ("sqrt", Box::new(f64::sqrt), true),
        ("rsqrt", Box::new(|x: f64| 1.0 / x.sqrt()), true),
        ("reciprocal", Box::new(|x: f64| 1.0 / x), false),
        ("abs", Box::new(f64::abs), false),
        ("neg", Box::new(|x: f64| -x), false),
        ("sin", Box::new(f64::sin), false),
        ("cos", Box::new(f64::cos), false),
        ("tanh", Box::new(f64::tanh), false),
        ("sigmoid", Box::new(sigmoid), false),
        ("relu", Box::new(|x: f64| x.max(0.0)), false),
        ("silu", Box::new(move |x: f64| x * sigmoid(x)), false),
        // gelu(x) = x·Φ(x) = ½x(1 + erf(x/√2)).
        ("gelu", Box::new(|x: f64| 0.5 * x * (1.0 + libm::erf(x / 2f64.sqrt()))), false),
    ];
    for (name, reference, positive) in cases {
        let input: Vec<f64> = if positive { INPUT.iter().map(|x| x.abs() + 0.5).collect() } else { INPUT.to_vec() };
        let argument = if positive { "p" } else { "x" };
        let (shape, values, dtype) = tensor(&mut session, &format!("pt.{name}({argument})"));
        assert_eq!(shape, vec![5]);
        assert_eq!(dtype, "DT_FP32");
        let expected: Vec<f64> = input.iter().map(|&x| reference(x)).collect();
        assert_close(&values, &expected, 1e-6, name);
    }
    // The tanh approximation: ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
    let (_, values, _) = tensor(&mut session, "pt.gelu(x, approximate='tanh')");
    let expected: Vec<f64> = INPUT
        .iter()
        .map(|&x| 0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh()))
        .collect();
    assert_close(&values, &expected, 1e-6, "gelu tanh");
}

#[test]
fn binary_functions_and_operators_broadcast_with_scalars() {
    let mut session = session_with("x = pt.as_tensor([-1.5, -0.3, 0.2, 0.7, 2.0])");
    let (_, values, _) = tensor(&mut session, "pt.pow(pt.abs(x), 1.5)");
    assert_close(&values, &INPUT.map(|x: f64| x.abs().powf(1.5)), 1e-6, "pow");
    let (_, values, _) = tensor(&mut session, "pt.maximum(x, 0.1)");
    assert_close(&values, &INPUT.map(|x: f64| x.max(0.1)), 1e-7, "maximum");
    let (_, values, _) = tensor(&mut session, "pt.minimum(x, 0.1)");
    assert_close(&values, &INPUT.map(|x: f64| x.min(0.1)), 1e-7, "minimum");
    let (_, values, _) = tensor(&mut session, "pt.clip(x, min=-1.0, max=1.0)");
    assert_close(&values, &INPUT.map(|x: f64| x.clamp(-1.0, 1.0)), 1e-7, "clip");
    let (_, values, _) = tensor(&mut session, "2 - x * 3 / 2 + x ** 2");
    assert_close(&values, &INPUT.map(|x: f64| 2.0 - x * 3.0 / 2.0 + x * x), 1e-6, "operators");
    // [2, 1] + [3] broadcasts to [2, 3]: out[i][j] = a[i] + b[j].
    let (shape, values, _) = tensor(&mut session, "pt.as_tensor([[10.0], [20.0]]) + pt.as_tensor([1.0, 2.0, 3.0])");
    assert_eq!(shape, vec![2, 3]);
    assert_eq!(values, vec![11.0, 12.0, 13.0, 21.0, 22.0, 23.0]);
}

#[test]
fn a_python_scalar_takes_the_tensor_dtype() {
    let mut session = session_with("h = pt.ones([2], dtype=pt.DT_FP16)");
    let (_, values, dtype) = tensor(&mut session, "h * 0.1");
    assert_eq!(dtype, "DT_FP16");
    // 0.1 rounded to f16 first, then the product rounded to f16: both equal f16(0.1).
    let rounded = half::f16::from_f64(0.1).to_f64();
    assert_eq!(values, vec![rounded, rounded]);
    let (_, values, dtype) = tensor(&mut session, "pt.cast(pt.as_tensor([1.0 / 3.0]), pt.DT_BF16)");
    assert_eq!(dtype, "DT_BF16");
    assert_eq!(values, vec![half::bf16::from_f64(1.0 / 3.0).to_f64()]);
}

#[test]
fn reductions_take_dim_and_keepdim() {
    let mut session = session_with("m = pt.as_tensor([[1.0, 2.0, 6.0], [4.0, -5.0, 3.0]])");
    let rows = [[1.0, 2.0, 6.0], [4.0, -5.0, 3.0]];
    let (shape, values, _) = tensor(&mut session, "pt.sum(m, dim=1)");
    assert_eq!((shape, values), (vec![2], vec![9.0, 2.0]));
    let (shape, values, _) = tensor(&mut session, "m.mean(dim=0, keepdim=True)");
    assert_eq!(shape, vec![1, 3]);
    assert_close(&values, &[2.5, -1.5, 4.5], 1e-7, "mean");
    let (_, values, _) = tensor(&mut session, "pt.amax(m, dim=-1)");
    assert_eq!(values, vec![6.0, 4.0]);
    let (shape, values, _) = tensor(&mut session, "pt.amin(m)");
    assert_eq!((shape, values), (vec![], vec![-5.0]));
    // Population variance per row: Σ(x − μ)²/n.
    let variance: Vec<f64> = rows
        .iter()
        .map(|row| {
            let mean = row.iter().sum::<f64>() / 3.0;
            row.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 3.0
        })
        .collect();
    let (_, values, _) = tensor(&mut session, "pt.var(m, dim=1)");
    assert_close(&values, &variance, 1e-6, "var");
    let (shape, values, _) = tensor(&mut session, "m.sum(dim=[0, 1])");
    assert_eq!((shape, values), (vec![], vec![11.0]));
}

#[test]
fn softmax_and_log_softmax_are_stable() {
    let mut session = session_with("z = pt.as_tensor([[1000.0, 1001.0, 1002.0], [-1.0, 0.0, 1.0]])");
    // softmax is shift invariant: both rows equal softmax([-1, 0, 1]) = e^k / Σ e^k.
    let denominator: f64 = [-1.0f64, 0.0, 1.0].iter().map(|k| k.exp()).sum();
    let row: Vec<f64> = [-1.0f64, 0.0, 1.0].iter().map(|k| k.exp() / denominator).collect();
    let (_, values, _) = tensor(&mut session, "pt.softmax(z)");
    assert_close(&values, &[row.clone(), row.clone()].concat(), 1e-6, "softmax");
    let (_, values, _) = tensor(&mut session, "pt.log_softmax(z, dim=-1)");
    let log_row: Vec<f64> = row.iter().map(|p| p.ln()).collect();
    assert_close(&values, &[log_row.clone(), log_row].concat(), 1e-5, "log_softmax");
}

#[test]
fn shape_functions() {
    let mut session = session_with("a = pt.arange(6).reshape([2, 3])");
    let (shape, values, _) = tensor(&mut session, "pt.transpose(a, 0, 1)");
    assert_eq!((shape, values), (vec![3, 2], vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
    let (shape, values, _) = tensor(&mut session, "a.T");
    assert_eq!((shape, values), (vec![3, 2], vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
    let (shape, values, _) = tensor(&mut session, "pt.concat([a, a * 10], 0)");
    assert_eq!(shape, vec![4, 3]);
    assert_eq!(values[6..], [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
    let (shape, _, _) = tensor(&mut session, "pt.reshape(a, [3, -1])");
    assert_eq!(shape, vec![3, 2]);
    let (shape, values, _) = tensor(&mut session, "pt.arange(1, 2, 0.25)");
    assert_eq!((shape, values), (vec![4], vec![1.0, 1.25, 1.5, 1.75]));
    let (_, values, _) = tensor(&mut session, "pt.full([2, 2], 3.5)");
    assert_eq!(values, vec![3.5; 4]);
}

#[test]
fn views_read_zero_outside_valid_shape_and_assemble_writes_only_the_valid_region() {
    let mut session = session_with("x = pt.arange(10).reshape([2, 5])\nout = pt.full([2, 5], -1.0)");
    let (shape, values, _) = tensor(&mut session, "pt.view(x, [2, 4], [0, 4], valid_shape=[2, 1])");
    assert_eq!(shape, vec![2, 4]);
    assert_eq!(values, vec![4.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0]);
    // The ragged tile keeps its valid shape through element-wise ops; assemble writes column 4 only.
    let result =
        session.run_cell("t = pt.view(x, [2, 4], [0, 4], valid_shape=[2, 1]) * 2 + 1\npt.assemble(t, [0, 4], out)");
    assert!(result.is_ok(), "{:?}", result.error());
    let (_, values, _) = tensor(&mut session, "out");
    assert_eq!(values, vec![-1.0, -1.0, -1.0, -1.0, 9.0, -1.0, -1.0, -1.0, -1.0, 19.0]);
}

#[test]
fn indexing_and_in_place_writes() {
    let mut session = session_with("q = pt.zeros([3, 4])\nalias = q");
    assert!(session
        .run_cell("q[:, 1] = pt.as_tensor([1.0, 2.0, 3.0])\nq[..., -1] = 9\nq[0] = pt.arange(4)\nq[2, 0] = -5")
        .is_ok());
    let expected = vec![0.0, 1.0, 2.0, 3.0, 0.0, 2.0, 0.0, 9.0, -5.0, 3.0, 0.0, 9.0];
    let (_, values, _) = tensor(&mut session, "alias");
    assert_eq!(values, expected, "writes are in place: the alias sees them");
    let (shape, values, _) = tensor(&mut session, "q[1]");
    assert_eq!((shape, values), (vec![4], vec![0.0, 2.0, 0.0, 9.0]));
    let (shape, values, _) = tensor(&mut session, "q[::-1, 3]");
    assert_eq!((shape, values), (vec![3], vec![9.0, 9.0, 3.0]));
    let (shape, values, _) = tensor(&mut session, "q[1:, 1:3]");
    assert_eq!((shape, values), (vec![2, 2], vec![2.0, 0.0, 3.0, 0.0]));
    assert_eq!(
        session.run_cell("print(q[1, 3].item(), len(q), q.shape, q.dtype)").stdout,
        "9.0 3 [3, 4] pypto.DT_FP32\n"
    );
    assert_eq!(session.run_cell("q[3]").error().map(|e| e.code.clone()), Some("runtime/index-error".into()));
}

#[test]
fn matmul_with_transposes_matches_a_triple_loop() {
    let mut session = session_with(
        "a = pt.as_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\nb = pt.as_tensor([[1.0, -1.0], [2.0, 0.5], [0.0, 3.0]])",
    );
    let a = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let b = [[1.0, -1.0], [2.0, 0.5], [0.0, 3.0]];
    let mut product = Vec::new();
    for row in &a {
        for column in 0..2 {
            product.push(row.iter().zip(&b).map(|(x, b_row)| x * b_row[column]).sum::<f64>());
        }
    }
    let (shape, values, _) = tensor(&mut session, "a @ b");
    assert_eq!(shape, vec![2, 2]);
    assert_close(&values, &product, 0.0, "a @ b");
    let (_, values, _) = tensor(&mut session, "pt.matmul(b, a, a_trans=True, b_trans=True)");
    // bᵀ·aᵀ = (a·b)ᵀ.
    assert_close(&values, &[product[0], product[2], product[1], product[3]], 0.0, "bᵀaᵀ");
    let (_, _, dtype) =
        tensor(&mut session, "pt.matmul(pt.cast(a, pt.DT_FP16), pt.cast(b, pt.DT_FP16), out_dtype=pt.DT_FP32)");
    assert_eq!(dtype, "DT_FP32");
}

#[test]
fn layer_norm_and_group_norm_match_f64_references() {
    let mut session = session_with("x = pt.as_tensor([[1.0, 2.0, 4.0, 8.0], [-1.0, 0.0, 1.0, 3.0]])\ng = pt.as_tensor([1.0, 0.5, 2.0, 1.0])\nb = pt.as_tensor([0.0, 1.0, 0.0, -1.0])");
    let x = [[1.0, 2.0, 4.0, 8.0], [-1.0, 0.0, 1.0, 3.0]];
    let gamma = [1.0, 0.5, 2.0, 1.0];
    let beta = [0.0, 1.0, 0.0, -1.0];
    let normalise = |values: &[f64], eps: f64| -> Vec<f64> {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / values.len() as f64;
        values.iter().map(|v| (v - mean) / (variance + eps).sqrt()).collect()
    };
    let expected: Vec<f64> = x
        .iter()
        .flat_map(|row| {
            normalise(row, 1e-5).into_iter().enumerate().map(|(j, v)| v * gamma[j] + beta[j]).collect::<Vec<_>>()
        })
        .collect();
    let (_, values, _) = tensor(&mut session, "pt.nn.layer_norm(x, g, b)");
    assert_close(&values, &expected, 1e-5, "layer_norm");
    // group_norm on [1, 4, 2] with 2 groups: statistics over channels {0,1} and {2,3} × 2 positions.
    let data: Vec<f64> = (0..8).map(|i| (i as f64 * 0.7).sin() * 3.0).collect();
    let list = format!("{:?}", data);
    let (_, values, _) =
        tensor(&mut session, &format!("pt.nn.group_norm(pt.as_tensor({list}).reshape([1, 4, 2]), 2, g, b, eps=1e-3)"));
    let mut expected = Vec::new();
    for group in 0..2 {
        let normalised = normalise(&data[group * 4..group * 4 + 4], 1e-3);
        for (offset, value) in normalised.iter().enumerate() {
            let channel = group * 2 + offset / 2;
            expected.push(value * gamma[channel] + beta[channel]);
        }
    }
    assert_close(&values, &expected, 1e-5, "group_norm");
}

#[test]
fn allclose_follows_numpy() {
    let mut session = session_with("");
    // |a − d| ≤ atol + rtol·|d|, with the defaults rtol = 1e-5, atol = 1e-8.
    let out = session
        .run_cell(
            "print(pt.allclose(pt.as_tensor([0.0]), pt.as_tensor([5e-9])), pt.allclose(pt.as_tensor([0.0]), pt.as_tensor([1e-6])))",
        )
        .stdout;
    assert_eq!(out, "True False\n");
    let out = session.run_cell("print(pt.allclose(pt.as_tensor([1.0, 2.0]), pt.as_tensor([1.05, 2.0]), rtol=0.1), pt.allclose(pt.ones([2, 2]), pt.ones([2])))").stdout;
    assert_eq!(out, "True True\n");
    let failed =
        session.run_cell("pt.assert_allclose(pt.as_tensor([1.0, 2.0, 3.0]), pt.as_tensor([1.0, 2.5, 2.9]), rtol=1e-3)");
    let error = failed.error().expect("mismatch");
    assert!(error.message.contains("2 of 3 elements differ"), "{}", error.message);
    let note = error.note.as_deref().unwrap_or_default();
    assert!(note.find("at [1]").unwrap_or(usize::MAX) < note.find("at [2]").unwrap_or(0), "worst first: {note}");
}

#[test]
fn random_tensors_are_seeded() {
    let mut session =
        session_with("a = pt.randn([1000], seed=3)\nb = pt.randn([1000], seed=3)\nu = pt.rand([1000], seed=4)");
    assert_eq!(
        session.run_cell("print(pt.allclose(a, b), u.amin().item() >= 0.0, u.amax().item() < 1.0)").stdout,
        "True True True\n"
    );
    // Standard normal: the sample mean of 1000 draws is within 4σ/√n ≈ 0.13 of 0, the variance near 1.
    let (_, values, _) = tensor(&mut session, "a");
    let mean = values.iter().sum::<f64>() / 1000.0;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 1000.0;
    assert!(mean.abs() < 0.13 && (variance - 1.0).abs() < 0.2, "mean {mean} variance {variance}");
    assert_eq!(
        session
            .run_cell(
                "pt.manual_seed(9)\nc = pt.randn([4]).tolist()\npt.manual_seed(9)\nprint(c == pt.randn([4]).tolist())"
            )
            .stdout,
        "True\n"
    );
}

#[test]
fn autograd_from_scripts() {
    let mut session = session_with("x = pt.as_tensor([0.5, -1.0, 2.0], requires_grad=True)");
    assert_eq!(session.run_cell("print(x.grad, x.requires_grad, x.is_leaf)").stdout, "None True True\n");
    // d/dx Σ x³ = 3x²; two backwards accumulate to 6x².
    session.run_cell("(x ** 3).sum().backward()\n(x ** 3).sum().backward()");
    let (_, values, _) = tensor(&mut session, "x.grad");
    assert_close(&values, &[1.5, 6.0, 24.0], 1e-6, "accumulated grad");
    session.run_cell("x.grad = None");
    assert_eq!(session.run_cell("print(x.grad)").stdout, "None\n");
    // autodiff.grad of Σ sin(x) is cos(x), returned not accumulated; second order: −sin(x).
    session
        .run_cell("g = pt.autodiff.grad(pt.sin(x).sum(), x, create_graph=True)\nh = pt.autodiff.grad(g.sum(), [x])[0]");
    let (_, values, _) = tensor(&mut session, "g");
    assert_close(&values, &[0.5f64.cos(), 1.0f64.cos(), 2.0f64.cos()], 1e-6, "cos");
    let (_, values, _) = tensor(&mut session, "h");
    assert_close(&values, &[-(0.5f64.sin()), 1.0f64.sin(), -(2.0f64.sin())], 1e-6, "-sin");
    assert_eq!(session.run_cell("print(x.grad)").stdout, "None\n");
    // Under no_grad nothing is recorded; an in-place update keeps x a leaf.
    assert_eq!(
        session
            .run_cell(
                "with pt.no_grad():\n    y = x * 2\n    x -= 0.5 * x\nprint(y.requires_grad, x.is_leaf, x.tolist())"
            )
            .stdout,
        "False True [0.25, -0.5, 1.0]\n"
    );
    assert_eq!(session.run_cell("print(x.detach().requires_grad)").stdout, "False\n");
    let refused = session.run_cell("x += 1");
    assert_eq!(refused.error().map(|e| e.code.clone()), Some("runtime/autograd-error".into()));
}

#[test]
fn checkpoint_gives_the_same_gradient_and_graph_counts_nodes() {
    let mut session = session_with("def block(u):\n    return pt.tanh(u) * u\na = pt.as_tensor([0.3, -0.8], requires_grad=True)\nb = pt.as_tensor([0.3, -0.8], requires_grad=True)");
    session.run_cell("block(a).sum().backward()\npt.checkpoint(block, b).sum().backward()");
    let (_, direct, _) = tensor(&mut session, "a.grad");
    let (_, checkpointed, _) = tensor(&mut session, "b.grad");
    // d/du u·tanh(u) = tanh(u) + u(1 − tanh²u).
    let expected: Vec<f64> = [0.3f64, -0.8].iter().map(|&u| u.tanh() + u * (1.0 - u.tanh() * u.tanh())).collect();
    assert_close(&direct, &expected, 1e-6, "direct");
    assert_close(&checkpointed, &expected, 1e-6, "checkpoint");
    // Σ a·a: the leaf a, mul and sum; no backward nodes before backward(), one per op after it.
    let out = session.run_cell("y = (a * a).sum()\ngr = pt.graph(y)\nprint(gr.num_nodes, gr.num_backward_nodes, gr.to_dot().startswith('digraph'))").stdout;
    assert_eq!(out, "3 0 True\n");
    let out = session.run_cell("y.backward()\nprint(pt.graph(y).num_backward_nodes)").stdout;
    assert_eq!(out, "2\n");
    // Leaves carry the name the script first bound them to; a later alias does not rename them.
    let dot = session
        .run_cell("alias = a\nprint('a (leaf)' in pt.graph(y).to_dot(), 'alias' in pt.graph(y).to_dot())")
        .stdout;
    assert_eq!(dot, "True False\n");
}

#[test]
fn backward_with_an_explicit_gradient_and_writes_that_carry_gradients() {
    let mut session = session_with(
        "x = pt.as_tensor([1.0, -2.0, 3.0], requires_grad=True)\ny = x * x\ny.backward(pt.as_tensor([1.0, 0.5, -1.0]))",
    );
    // d/dx of Σ gᵢ·xᵢ² = 2gᵢxᵢ with g = [1, 0.5, −1].
    let (_, values, _) = tensor(&mut session, "x.grad");
    assert_eq!(values, vec![2.0, -2.0, -6.0]);
    // out[1:3] = 3·x[0:2] records a differentiable write: d Σ out / dx = [3, 3, 0].
    let result = session.run_cell("x.grad = None\nout = pt.zeros([4])\nout[1:3] = x[0:2] * 3\nout.sum().backward()");
    assert!(result.is_ok(), "{:?}", result.error());
    let (_, values, _) = tensor(&mut session, "x.grad");
    assert_eq!(values, vec![3.0, 3.0, 0.0]);
    let (_, values, _) = tensor(&mut session, "out");
    assert_eq!(values, vec![0.0, 3.0, -6.0, 0.0]);
}

#[test]
fn npu_presets_can_be_chosen_from_scripts() {
    let mut session = session_with("");
    // Real code targets a real chip: the default is Ascend910B2.
    assert_eq!(session.run_cell("print(pt.npu.config()['preset'])").stdout, "Ascend910B2\n");
    assert_eq!(session.run_cell("pt.npu.use('teaching')\nprint(pt.npu.config()['preset'])").stdout, "teaching\n");
    assert_eq!(
        session.run_cell("pt.npu.use('Ascend1')").error().map(|e| e.code.clone()),
        Some("runtime/value-error".into())
    );
    // pypto.npu.sweep exists now (tests/lang/sweep.rs checks what it does).
    assert!(session.run_cell("f = pt.npu.sweep").is_ok());
}
