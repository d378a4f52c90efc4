//! The `torch` module (the host side of a pypto test) through the session, as a golden function
//! uses it. Expected values are worked out by hand in the comments (or from f64 formulas), never
//! read back from the code under test.

use tilelab::lang::interp::api_table::{api_table, ApiKind};
use tilelab::session::{CellResult, Display, Session};

fn session() -> Session {
    let mut session = Session::new();
    let result = session.run_cell("import torch\nimport pypto");
    assert!(result.is_ok(), "{:?}", result.error());
    session
}

fn run(session: &mut Session, code: &str) -> CellResult {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result
}

/// The value of `expression`: (shape, values, dtype).
fn tensor(session: &mut Session, expression: &str) -> (Vec<usize>, Vec<f64>, String) {
    match run(session, expression).displays.first() {
        Some(Display::Tensor(tensor)) => (tensor.shape.clone(), tensor.values.clone(), tensor.dtype.clone()),
        other => panic!("{expression}: expected a tensor, got {other:?}"),
    }
}

/// What `print(expression)` writes, without the newline.
fn printed(session: &mut Session, expression: &str) -> String {
    run(session, &format!("print({expression})")).stdout.trim_end().to_string()
}

/// The error of running `code`: (message, help).
fn error(session: &mut Session, code: &str) -> (String, String) {
    let result = session.run_cell(code);
    let diagnostic = result.error().unwrap_or_else(|| panic!("{code}: expected an error"));
    (diagnostic.message.clone(), diagnostic.help.clone().unwrap_or_default())
}

fn assert_values(actual: &[f64], expected: &[f64], tolerance: f64) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= tolerance, "{actual:?} vs {expected:?}");
    }
}

#[test]
fn creation_takes_sizes_as_varargs_or_a_sequence_and_ignores_the_device() {
    let mut session = session();
    for call in ["torch.zeros(2, 3)", "torch.zeros((2, 3))", "torch.zeros([2, 3], device='npu:0')"] {
        assert_eq!(tensor(&mut session, call), (vec![2, 3], vec![0.0; 6], "DT_FP32".into()), "{call}");
    }
    assert_eq!(tensor(&mut session, "torch.ones(3, dtype=torch.bfloat16)"), (vec![3], vec![1.0; 3], "DT_BF16".into()));
    assert_eq!(tensor(&mut session, "torch.empty(2, 2, dtype=torch.half)").1, vec![0.0; 4]);
    assert_eq!(tensor(&mut session, "torch.full((2,), 1.5)").1, vec![1.5, 1.5]);
    assert_eq!(
        tensor(&mut session, "torch.tensor([[1.0, -2], [3, 4]])"),
        (vec![2, 2], vec![1.0, -2.0, 3.0, 4.0], "DT_FP32".into())
    );
    assert_eq!(tensor(&mut session, "torch.tensor([1, 8, 2], dtype=torch.float16)").2, "DT_FP16");
    assert_eq!(tensor(&mut session, "torch.arange(0, 1, 0.25)").1, vec![0.0, 0.25, 0.5, 0.75]);
    assert_eq!(tensor(&mut session, "torch.arange(3, dtype=torch.float32)").1, vec![0.0, 1.0, 2.0]);
    run(&mut session, "base = torch.ones(2, 4, dtype=torch.bfloat16)");
    assert_eq!(tensor(&mut session, "torch.zeros_like(base)"), (vec![2, 4], vec![0.0; 8], "DT_BF16".into()));
    assert_eq!(tensor(&mut session, "torch.full_like(base, 3, dtype=torch.float32)").1, vec![3.0; 8]);
    assert_eq!(tensor(&mut session, "torch.empty_like(base)").0, vec![2, 4]);
}

#[test]
fn integer_data_and_integer_dtypes_follow_torch() {
    let mut session = session();
    // Integer data without a dtype is int64, as in torch, and prints as torch's dtype.
    assert_eq!(
        printed(&mut session, "torch.tensor([1, 2, 3]).dtype, torch.arange(4).dtype"),
        "torch.int64 torch.int64"
    );
    assert_eq!(printed(&mut session, "torch.zeros(2, dtype=torch.int32).tolist()"), "[0, 0]");
    assert_eq!(printed(&mut session, "torch.int == torch.int32, torch.long == torch.int64"), "True True");
    assert_eq!(printed(&mut session, "(torch.tensor([7, -7]) // 2).tolist()"), "[3, -4]");
}

/// The same seed gives the same numbers; a later draw differs; and the draws have the moments of
/// their distributions (10 000 normals: mean within 0.05 of 0, variance within 0.05 of 1).
#[test]
fn seeded_random_numbers_repeat() {
    let mut session = session();
    run(&mut session, "torch.manual_seed(42)\na = torch.randn(3, 4)\nb = torch.randn(3, 4)\ntorch.manual_seed(42)\nc = torch.randn((3, 4))");
    assert_eq!(printed(&mut session, "torch.equal(a, c), torch.equal(a, b)"), "True False");
    run(&mut session, "torch.manual_seed(1)\nn = torch.randn(100, 100)\nu = torch.rand(100, 100)");
    let mean = tensor(&mut session, "n.mean()").1[0];
    let variance = tensor(&mut session, "n.var()").1[0];
    assert!(mean.abs() < 0.05 && (variance - 1.0).abs() < 0.05, "mean {mean} variance {variance}");
    let low = tensor(&mut session, "u.min()").1[0];
    let high = tensor(&mut session, "u.max()").1[0];
    assert!((0.0..0.01).contains(&low) && (0.99..1.0).contains(&high), "rand in [{low}, {high}]");
}

#[test]
fn dtypes_are_pyptos_and_casts_round() {
    let mut session = session();
    assert_eq!(printed(&mut session, "torch.float == torch.float32 == pypto.DT_FP32"), "True");
    assert_eq!(printed(&mut session, "torch.half == pypto.DT_FP16, torch.bfloat16 == pypto.DT_BF16"), "True True");
    // 1 + 2^-9 is below half a bf16 step at 1 (2^-8): it rounds to 1. In f16 (step 2^-10) it stays.
    run(&mut session, "x = torch.tensor([1.001953125, 3.0])");
    assert_eq!(tensor(&mut session, "x.to(torch.bfloat16)"), (vec![2], vec![1.0, 3.0], "DT_BF16".into()));
    assert_eq!(tensor(&mut session, "x.bfloat16().float()"), (vec![2], vec![1.0, 3.0], "DT_FP32".into()));
    assert_eq!(tensor(&mut session, "x.half()").1, vec![1.001953125, 3.0]);
    assert_eq!(tensor(&mut session, "x.to(dtype=torch.float16)").2, "DT_FP16");
    assert_eq!(tensor(&mut session, "x.to(torch.ones(1, dtype=torch.bfloat16))").2, "DT_BF16");
    // A device or an unchanged dtype returns the tensor itself, as torch does.
    assert_eq!(printed(&mut session, "x.to('cpu') is x, x.float() is x, x.cpu().numpy() is x"), "True True True");
    assert_eq!(printed(&mut session, "x.size(), x.size(-1), x.dim(), x.device"), "(2,) 2 1 cpu");
}

#[test]
fn matmul_and_shape_methods() {
    let mut session = session();
    run(&mut session, "a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\nb = torch.tensor([[5.0, 6.0], [7.0, 8.0]])");
    // [[1·5+2·7, 1·6+2·8], [3·5+4·7, 3·6+4·8]]
    for call in ["torch.matmul(a, b)", "a @ b", "torch.mm(a, b)", "a.matmul(b)"] {
        assert_eq!(tensor(&mut session, call).1, vec![19.0, 22.0, 43.0, 50.0], "{call}");
    }
    // Batch broadcasting: [2, 2, 3] @ [1, 3, 2] of ones and twos: every element 3·1·2.
    let (shape, values, _) = tensor(&mut session, "torch.matmul(torch.ones(2, 2, 3), torch.full((1, 3, 2), 2.0))");
    assert_eq!((shape, values), (vec![2, 2, 2], vec![6.0; 8]));
    let (message, help) = error(&mut session, "torch.mm(torch.ones(2, 2, 2), a)");
    assert!(message.contains("2-D") && help.contains("torch.matmul"), "{message}");
    assert_eq!(tensor(&mut session, "a.t()").1, vec![1.0, 3.0, 2.0, 4.0]);
    assert_eq!(tensor(&mut session, "a.mT").1, vec![1.0, 3.0, 2.0, 4.0]);
    assert_eq!(tensor(&mut session, "a.view(4)").0, vec![4]);
    assert_eq!(tensor(&mut session, "a.view(-1, 1)").0, vec![4, 1]);
    assert_eq!(tensor(&mut session, "torch.ones(2, 3, 4).flatten()").0, vec![24]);
    assert_eq!(tensor(&mut session, "torch.ones(2, 3, 4).flatten(1)").0, vec![2, 12]);
    assert_eq!(tensor(&mut session, "torch.ones(2, 3, 4).flatten(0, 1)").0, vec![6, 4]);
    assert_eq!(tensor(&mut session, "a.unsqueeze(0).squeeze()").0, vec![2, 2]);
    assert_eq!(tensor(&mut session, "torch.unsqueeze(a, -1)").0, vec![2, 2, 1]);
    assert_eq!(tensor(&mut session, "a.reshape(1, 2, 2).permute(2, 0, 1)").1, vec![1.0, 3.0, 2.0, 4.0]);
    assert_eq!(tensor(&mut session, "torch.transpose(a, 0, 1)").1, vec![1.0, 3.0, 2.0, 4.0]);
    assert_eq!(tensor(&mut session, "torch.cat([a, b], dim=1)").1, vec![1.0, 2.0, 5.0, 6.0, 3.0, 4.0, 7.0, 8.0]);
    let (shape, values, _) = tensor(&mut session, "torch.stack([a, b])");
    assert_eq!((shape, values), (vec![2, 2, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]));
}

#[test]
fn element_wise_functions_match_their_formulas() {
    let mut session = session();
    run(&mut session, "import torch.nn.functional as F\nx = torch.tensor([-1.0, 0.0, 1.0])");
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    assert_values(&tensor(&mut session, "torch.sigmoid(x)").1, &[sigmoid(-1.0), 0.5, sigmoid(1.0)], 1e-6);
    assert_values(&tensor(&mut session, "torch.exp(x)").1, &[(-1f64).exp(), 1.0, 1f64.exp()], 1e-6);
    assert_eq!(tensor(&mut session, "torch.relu(x)").1, vec![0.0, 0.0, 1.0]);
    assert_values(&tensor(&mut session, "F.silu(x)").1, &[-sigmoid(-1.0), 0.0, sigmoid(1.0)], 1e-6);
    // gelu(1) = Φ(1) = 0.841344746…; the tanh form ½(1 + tanh(√(2/π)(1 + 0.044715))) = 0.841191990…
    assert_values(&tensor(&mut session, "F.gelu(x)").1[2..], &[0.841_344_746_068_542_9], 1e-6);
    assert_values(&tensor(&mut session, "F.gelu(x, approximate='tanh')").1[2..], &[0.841_191_990_607_477], 1e-6);
    assert_eq!(tensor(&mut session, "torch.add(x, torch.ones(3), alpha=2)").1, vec![1.0, 2.0, 3.0]);
    assert_eq!(tensor(&mut session, "torch.mul(x, 3)").1, vec![-3.0, 0.0, 3.0]);
    assert_eq!(tensor(&mut session, "torch.maximum(x, torch.zeros(3))").1, vec![0.0, 0.0, 1.0]);
    assert_eq!(tensor(&mut session, "torch.clamp(x, min=-0.5, max=0.5)").1, vec![-0.5, 0.0, 0.5]);
    assert_eq!(tensor(&mut session, "x.abs().max()").1, vec![1.0]);
    assert_eq!(tensor(&mut session, "torch.pow(x, 2)").1, vec![1.0, 0.0, 1.0]);
}

/// On [[1, 2], [3, 4]]: mean 2.5, squared deviations 2.25 0.25 0.25 2.25 (sum 5): population
/// variance 5/4, Bessel-corrected 5/3; per row, deviations ±0.5: 0.25 (population), 0.5 (corrected).
#[test]
fn reductions_follow_torch() {
    let mut session = session();
    run(&mut session, "x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])");
    assert_eq!(tensor(&mut session, "torch.sum(x)").1, vec![10.0]);
    assert_eq!(tensor(&mut session, "torch.sum(x, dim=0)").1, vec![4.0, 6.0]);
    assert_eq!(tensor(&mut session, "x.sum(-1, keepdim=True)"), (vec![2, 1], vec![3.0, 7.0], "DT_FP32".into()));
    assert_eq!(tensor(&mut session, "torch.mean(x, dim=(0, 1))").1, vec![2.5]);
    assert_eq!(tensor(&mut session, "torch.amax(x, dim=-1, keepdim=True)").1, vec![2.0, 4.0]);
    assert_values(&tensor(&mut session, "torch.var(x)").1, &[5.0 / 3.0], 1e-6);
    assert_values(&tensor(&mut session, "torch.var(x, unbiased=False)").1, &[1.25], 1e-6);
    assert_values(&tensor(&mut session, "torch.var(x, dim=1)").1, &[0.5, 0.5], 1e-6);
    let (shape, values, _) = tensor(&mut session, "x.var(dim=-1, keepdim=True, unbiased=False)");
    assert_eq!(shape, vec![2, 1]);
    assert_values(&values, &[0.25, 0.25], 1e-6);
    assert_eq!(tensor(&mut session, "torch.max(x)").1, vec![4.0]);
    assert_eq!(tensor(&mut session, "torch.min(x, torch.full((2, 2), 2.5))").1, vec![1.0, 2.0, 2.5, 2.5]);
    // x.max(dim=1) is torch.max(x, 1), as in torch.
    assert_eq!(printed(&mut session, "x.max(dim=1)[0].tolist(), x.min(1)[1].tolist()"), "[2.0, 4.0] [0, 0]");
    // torch.max(x, dim) is the (values, indices) pair: x is [[1, 2], [3, 4]].
    assert_eq!(printed(&mut session, "torch.max(x, 1)[0].tolist(), torch.max(x, 1)[1].tolist()"), "[2.0, 4.0] [1, 1]");
    // softmax of [0, ln 3] is [1/4, 3/4].
    run(&mut session, "import torch.nn.functional as F\ny = torch.tensor([0.0, 1.0986122886681098])");
    assert_values(&tensor(&mut session, "torch.softmax(y, dim=-1)").1, &[0.25, 0.75], 1e-6);
    assert_values(&tensor(&mut session, "F.softmax(y, dim=0)").1, &[0.25, 0.75], 1e-6);
    assert_values(&tensor(&mut session, "y.softmax(-1)").1, &[0.25, 0.75], 1e-6);
}

#[test]
fn allclose_uses_torchs_formula_and_requires_one_dtype() {
    let mut session = session();
    run(&mut session, "one = torch.ones(2)");
    // |1.000005 − 1| ≈ 5e-6 ≤ 1e-8 + 1e-5·1: close; 1.0001 is not.
    assert_eq!(
        printed(&mut session, "torch.allclose(one + 0.000005, one), torch.allclose(one + 0.0001, one)"),
        "True False"
    );
    assert_eq!(printed(&mut session, "torch.allclose(one + 0.05, one, rtol=0.1, atol=0)"), "True");
    let (message, help) = error(&mut session, "torch.allclose(one, one.bfloat16())");
    assert!(message.contains("torch.float32 did not match torch.bfloat16") && help.contains(".float()"), "{message}");
}

/// float32 defaults are rtol 1.3e-6, atol 1e-5: at 1, differences up to 1.13e-5 pass.
#[test]
fn assert_close_has_torchs_defaults_and_report() {
    let mut session = session();
    run(&mut session, "one = torch.ones(2)\ntorch.testing.assert_close(one + 0.000005, one)");
    let (message, _) = error(&mut session, "torch.testing.assert_close(one + torch.tensor([0.0, 0.00002]), one)");
    assert!(message.starts_with("Tensor-likes are not close!"), "{message}");
    assert!(message.contains("Mismatched elements: 1 / 2 (50.0%)"), "{message}");
    assert!(message.contains("at index (1,) (up to 1e-05 allowed)"), "{message}");
    assert!(message.contains("(up to 1.3e-06 allowed)"), "{message}");
    // bfloat16: rtol 1.6e-2, so one bf16 step at 1 (2^-7) passes and 0.05 does not.
    run(&mut session, "b = torch.ones(2, dtype=torch.bfloat16)\ntorch.testing.assert_close(b + 0.0078125, b)");
    assert!(error(&mut session, "torch.testing.assert_close(b + 0.05, b)").0.contains("Mismatched elements: 2 / 2"));
    run(&mut session, "torch.testing.assert_close(one + 0.05, one, rtol=0.1, atol=0.0)");
    let (message, _) = error(&mut session, "torch.testing.assert_close(one, one, rtol=0.1)");
    assert!(message.contains("both 'rtol' and 'atol'") && message.contains("no atol"), "{message}");
    let (message, _) = error(&mut session, "torch.testing.assert_close(torch.ones(1, 2), one)");
    assert!(message.contains("torch.Size([1, 2]) != torch.Size([2])"), "{message}");
    let (message, help) = error(&mut session, "torch.testing.assert_close(one, b)");
    assert!(message.contains("'dtype' do not match: torch.float32 != torch.bfloat16"), "{message}");
    assert!(help.contains("check_dtype=False"), "{help}");
    run(&mut session, "torch.testing.assert_close(one, b, check_dtype=False)");
    assert_eq!(
        error(&mut session, "torch.testing.assert_close(one, one * 2, msg='kernel out differs')").0,
        "kernel out differs"
    );
}

/// `from_torch` wraps the same memory: a kernel writing into the wrapper writes the torch tensor.
#[test]
fn from_torch_and_to_torch_are_the_same_tensor() {
    let mut session = session();
    run(
        &mut session,
        "@pypto.frontend.jit\ndef twice(x, out):\n    pypto.set_vec_tile_shapes(2, 8)\n    out[:] = x * 2\n\nx = torch.ones(2, 8)\ny = torch.empty(2, 8)\ntwice(pypto.from_torch(x, \"x\"), pypto.from_torch(y, dynamic_axis=[0]))",
    );
    assert_eq!(tensor(&mut session, "y").1, vec![2.0; 16]);
    assert_eq!(printed(&mut session, "pypto.to_torch(y) is y, pypto.from_torch(x) is x"), "True True");
    let (message, help) = error(&mut session, "pypto.from_torch(x, dtype=pypto.DT_FP16)");
    assert!(message.contains("reinterpret") && help.contains("pypto.cast"), "{message}");
}

/// Inside a kernel, torch is a mistake: the kernel's ops are pypto's (the help names the one to use).
#[test]
fn torch_inside_a_kernel_names_the_pypto_op() {
    let mut session = session();
    let kernel = |body: &str| {
        format!("@pypto.frontend.jit\ndef k(x, out):\n    pypto.set_vec_tile_shapes(8, 8)\n    {body}\n\nk(torch.ones(8, 8), torch.zeros(8, 8))")
    };
    let (message, help) = error(&mut session, &kernel("out[:] = torch.exp(x)"));
    assert!(message.contains("torch.exp runs on the host"), "{message}");
    assert_eq!(help, "use pypto.exp inside the kernel");
    let (message, help) = error(&mut session, &kernel("out[:] = x.float() * 2"));
    assert!(message.contains("tensor.float() runs on the host"), "{message}");
    assert!(help.contains("pypto.cast(x, pypto.DT_FP32)"), "{help}");
}

#[test]
fn device_calls_of_torch_npu_run_and_do_nothing() {
    let mut session = session();
    run(&mut session, "import torch_npu\ntorch.npu.set_device(0)\nx = torch.ones(2)\ntorch.npu.synchronize()");
    assert_eq!(printed(&mut session, "torch.npu.current_device()"), "0");
    let (message, _) = error(&mut session, "torch_npu.npu_rms_norm(x, x)");
    assert!(message.contains("module 'torch_npu' has no attribute 'npu_rms_norm'"), "{message}");
}

#[test]
fn names_are_checked_and_suggested() {
    let mut bare = Session::new();
    let (message, help) = error(&mut bare, "torch.ones(2)");
    assert!(message.contains("'torch' is not defined") && help.contains("import torch"), "{message} / {help}");
    let mut session = session();
    let (message, help) = error(&mut session, "torch.randm(2)");
    assert!(message.contains("no attribute 'randm'") && help.contains("torch.randn"), "{message} / {help}");
    let (message, _) = error(&mut session, "torch.ones(2).frobnicate()");
    assert!(message.contains("no attribute 'frobnicate'"), "{message}");
}

/// Every torch name of the API table resolves (the integer dtypes say they are missing), and each
/// function binds exactly its documented parameters (what completion and signature help offer).
#[test]
fn the_api_table_is_what_runs() {
    let mut session = session();
    run(&mut session, "import torch.nn.functional\nt = torch.ones(2, 2)");
    for entry in api_table().iter().filter(|entry| entry.name.starts_with("torch.")) {
        run(&mut session, &format!("print(repr({}))", entry.name));
    }
    let mut checked = 0;
    let ours = |name: &str| name.starts_with("torch.") || name == "pypto.from_torch" || name == "pypto.to_torch";
    for entry in api_table().iter().filter(|entry| entry.kind == ApiKind::Function && ours(&entry.name)) {
        let (message, help) = error(&mut session, &format!("{}(zz_unknown=1)", entry.name));
        assert!(message.contains("unexpected keyword argument 'zz_unknown'"), "{}: {message}", entry.name);
        let listed = help.split_once("takes: ").map_or("", |(_, names)| names);
        let listed: Vec<&str> = listed.split(", ").filter(|name| !name.is_empty()).collect();
        assert_eq!(listed, entry.named_parameters(), "{}", entry.name);
        checked += 1;
    }
    assert!(checked > 60, "{checked} checked");
}

#[test]
fn randint_draws_integers_in_its_half_open_range_and_gather_scatter_follow_pypto() {
    let mut session = session();
    // Both forms; 600 draws from [0, 3) and [-2, 2) hit every integer of the range and nothing else.
    let (shape, values, dtype) = tensor(&mut session, "torch.randint(0, 3, (20, 30))");
    assert_eq!((shape, dtype.as_str()), (vec![20, 30], "DT_INT64"));
    let mut seen: Vec<i64> = values.iter().map(|&value| value as i64).collect();
    assert!(values.iter().all(|value| value.fract() == 0.0));
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, vec![0, 1, 2]);
    let (_, values, dtype) = tensor(&mut session, "torch.randint(-2, 2, [600], dtype=torch.int32)");
    assert_eq!(dtype, "DT_INT32");
    assert!(
        values.iter().all(|&value| (-2.0..2.0).contains(&value)) && values.contains(&-2.0) && values.contains(&1.0)
    );
    assert!(tensor(&mut session, "torch.randint(5, (4,))").1.iter().all(|&value| (0.0..5.0).contains(&value)));
    // GLM-4.5's weights: two positionals and `size=` by keyword are (low, high).
    let (shape, values, dtype) = tensor(&mut session, "torch.randint(120, 128, size=(3, 40), dtype=torch.int8)");
    assert_eq!((shape, dtype.as_str()), (vec![3, 40], "DT_INT8"));
    assert!(values.iter().all(|&value| (120.0..128.0).contains(&value)) && values.contains(&120.0));
    let (message, _) = error(&mut session, "torch.randint(3, 3, (2,))");
    assert!(message.contains("[3, 3) is empty"), "{message}");
    // scatter of a number along dim 0: out[index[i][j]][j] = 0.5; gather reads them back.
    run(&mut session, "x = torch.zeros(3, 2)\nindex = torch.tensor([[2, 0]], dtype=torch.int64)");
    assert_eq!(tensor(&mut session, "torch.scatter(x, 0, index, 0.5)").1, vec![0.0, 0.5, 0.0, 0.0, 0.5, 0.0]);
    let gathered = "torch.gather(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), 0, index)";
    assert_eq!(tensor(&mut session, gathered).1, vec![5.0, 2.0]);
}

#[test]
fn a_torch_shape_is_a_tuple_and_a_pypto_shape_a_list() {
    // torch.Size is a tuple: pypto's tests assert `r.shape == (32, 32)`; pypto's own tensors give
    // lists (and a torch tensor inside a kernel is the kernel's tensor).
    let mut session = Session::new();
    let code = "import torch\nimport pypto\nr = torch.zeros(32, 16)\np = pypto.zeros([32, 16])\nprint(r.shape == (32, 16), r.size() == (32, 16), r.shape == [32, 16], p.shape == [32, 16], r.shape[-1], len(r.shape))\n";
    assert_eq!(super::cells::run_ok(&mut session, code), "True True False True 16 2\n");
}

#[test]
fn one_element_tensors_stand_in_for_numbers_as_in_torch() {
    // torch's __index__/__float__: `max` of an int tensor's elements (0-d tensors), that maximum in
    // a shape and a range, `math.ceil` of a 0-d tensor; a float tensor is not an index.
    let mut session = Session::new();
    let code = "import torch, math\nlengths = torch.tensor([3, 7, 5], dtype=torch.int32)\nlongest = max(lengths)\nprint(int(longest), torch.zeros([2, longest]).shape, len(range(longest)), math.ceil(longest / 2), int(min(lengths)))\ntry:\n    torch.zeros([torch.tensor(2.0)])\nexcept TypeError:\n    print('float tensor refused')\n";
    assert_eq!(super::cells::run_ok(&mut session, code), "7 (2, 7) 7 4 3\nfloat tensor refused\n");
}

#[test]
fn randperm_is_a_seeded_permutation_and_size_is_a_keyword() {
    // Every value once; int64; the first element of a 3-permutation takes each value about a third
    // of 600 draws (each count within 150..250 fails with probability below 1e-6); the same seed
    // repeats the order. `randn(size=…)` as pypto's goldens write it.
    let mut session = Session::new();
    let code = "import torch\ntorch.manual_seed(3)\np = torch.randperm(10)\nprint(sorted(p.tolist()) == list(range(10)), p.dtype, torch.randperm(0).shape)\ncounts = [0] * 3\nfor _ in range(600):\n    counts[int(torch.randperm(3)[0])] += 1\nprint(all(150 < c < 250 for c in counts))\ntorch.manual_seed(3)\nprint(torch.randperm(10).tolist() == p.tolist(), torch.randn(size=(2, 3)).shape, torch.zeros(size=[4]).shape)\n";
    assert_eq!(super::cells::run_ok(&mut session, code), "True torch.int64 (0,)\nTrue\nTrue (2, 3) (4,)\n");
}

#[test]
fn max_min_and_sort_along_a_dim_return_values_and_indices_by_name() {
    // torch.return_types: `.values`/`.indices` (pypto's goldens: `s.max(dim=-1, keepdim=True).values`),
    // unpacking, indexing and len as the pair. Expected values written out from torch's semantics.
    let mut session = Session::new();
    let code = "import torch\nx = torch.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 9.0]])\nm = x.max(dim=-1, keepdim=True)\nprint(m.values.tolist(), m.indices.tolist())\nvalues, indices = torch.min(x, 1)\nprint(values.tolist(), indices.tolist(), torch.max(x, 0)[0].tolist())\ns = torch.sort(x, dim=1, descending=True)\nprint(s.values.tolist(), s.indices.tolist(), len(s))\n";
    let expected = "[[5.0], [9.0]] [[1], [2]]\n[1.0, 2.0] [0, 1] [7.0, 5.0, 9.0]\n[[5.0, 3.0, 1.0], [9.0, 7.0, 2.0]] [[1, 2, 0], [2, 0, 1]] 2\n";
    assert_eq!(super::cells::run_ok(&mut session, code), expected);
}
