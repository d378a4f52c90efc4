//! torch's tensor methods as model tests call them around pypto kernels (hicann/pypto's
//! DeepSeek-V4 and Qwen3-Next tests): a torch function as a method (`x.clamp`, `x.chunk`,
//! `x.repeat_interleave`), in-place forms (`add_`, `clamp_`, `abs_`), the random fills `uniform_`
//! and `normal_`, `repeat`, `tile`, `square`, `std`, numpy's keyword names (`axis`, `keepdims`) and
//! `torch.npu.is_available()`, `torch.is_floating_point`, `view(dtype)`, and the autograd forms
//! `torch.autograd.grad`, `torch.no_grad`.
//! Expected values are worked out by hand.

use tilelab::session::Session;

fn printed(code: &str) -> Vec<String> {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import torch\nx = torch.tensor([[1.0, -2.0], [3.0, -4.0]])\n{code}"));
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result.stdout.lines().map(str::to_string).collect()
}

fn failure(code: &str) -> String {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import torch\nx = torch.tensor([[1.0, -2.0], [3.0, -4.0]])\n{code}"));
    result.error().map(|error| error.message.clone()).unwrap_or_else(|| panic!("expected an error: {code}"))
}

#[test]
fn torch_functions_are_methods_with_the_tensor_first() {
    let lines = printed(
        "print(x.clamp(-1, 2).tolist(), x.square().tolist(), torch.square(x).tolist())\n\
         print([c.tolist() for c in x.chunk(2)], x.sort().values.tolist(), x.repeat_interleave(2, dim=0).tolist())\n",
    );
    assert_eq!(lines[0], "[[1.0, -1.0], [2.0, -1.0]] [[1.0, 4.0], [9.0, 16.0]] [[1.0, 4.0], [9.0, 16.0]]");
    assert_eq!(
        lines[1],
        "[[[1.0, -2.0]], [[3.0, -4.0]]] [[-2.0, 1.0], [-4.0, 3.0]] [[1.0, -2.0], [1.0, -2.0], [3.0, -4.0], [3.0, -4.0]]"
    );
}

#[test]
fn in_place_forms_write_into_the_tensor_and_return_it() {
    let lines = printed(
        "y = x.clone()\nz = y.add_(1)\nprint(y.tolist(), z is y)\n\
         y.clamp_(0, 2.5)\nprint(y.tolist())\ny.abs_().mul_(2)\nprint(y.tolist(), x.tolist())\n",
    );
    assert_eq!(
        lines,
        [
            "[[2.0, -1.0], [4.0, -3.0]] True",
            "[[2.0, 0.0], [2.5, 0.0]]",
            "[[4.0, 0.0], [5.0, 0.0]] [[1.0, -2.0], [3.0, -4.0]]"
        ]
    );
    let message = failure("w = torch.ones(2, requires_grad=True)\nw.add_(1)\n");
    assert!(message.contains("requires grad") || message.contains("requires_grad"), "{message}");
}

#[test]
fn repeat_tiles_along_each_dim() {
    let lines = printed(
        "print(x.repeat(2, 1).tolist())\nprint(list(x.repeat(1, 2, 1).shape), torch.eye(2).repeat(1, 3).tolist())\n\
         print(list(x.repeat(0, 1).shape))\n",
    );
    assert_eq!(lines[0], "[[1.0, -2.0], [3.0, -4.0], [1.0, -2.0], [3.0, -4.0]]");
    assert_eq!(lines[1], "[1, 4, 2] [[1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]]");
    assert_eq!(lines[2], "[0, 2]");
    let message = failure("x.repeat(2)\n");
    assert!(message.contains("1 sizes for a tensor of 2 dims"), "{message}");
}

/// torch.tile pads `dims` with leading 1s (where `repeat` refuses fewer sizes than dims) and is
/// a method too; a 0-d integer tensor is a size, as in DeepSeek-V4's `.reshape(seq_len, d)` with
/// `seq_len` computed from an element of a length tensor.
#[test]
fn tile_pads_dims_with_leading_ones_and_reshape_takes_zero_d_integer_sizes() {
    let lines = printed(
        "print(torch.tile(x, (2,)).tolist(), list(x.tile((2, 1)).shape))\n\
         print(torch.tile(torch.tensor([1, 2]), (2, 2)).tolist())\n\
         lengths = torch.tensor([3, 6])\nn = lengths[1] // 3\n\
         print(torch.arange(8).reshape(n, 4).tolist(), torch.arange(4).reshape(n * 2).tolist())\n",
    );
    assert_eq!(lines[0], "[[1.0, -2.0, 1.0, -2.0], [3.0, -4.0, 3.0, -4.0]] [4, 2]");
    assert_eq!(lines[1], "[[1, 2, 1, 2], [1, 2, 1, 2]]");
    assert_eq!(lines[2], "[[0, 1, 2, 3], [4, 5, 6, 7]] [0, 1, 2, 3]");
    let message = failure("x.reshape(torch.tensor(2.0), 2)\n");
    assert!(message.contains("a shape holds ints"), "{message}");
}

/// The fills draw from the seeded generator: the same seed gives the same numbers; their range
/// and moments are those asked for.
#[test]
fn uniform_and_normal_fill_in_place_from_the_seeded_generator() {
    let lines = printed(
        "torch.manual_seed(7)\nu = torch.empty(4000).uniform_(-1, 3)\n\
         print(u.min().item() >= -1, u.max().item() < 3, abs(u.mean().item() - 1) < 0.1)\n\
         n = torch.zeros(4000, dtype=torch.bfloat16).normal_(2.0, 0.5)\n\
         print(n.dtype, abs(n.float().mean().item() - 2) < 0.05, abs(n.float().std().item() - 0.5) < 0.05)\n\
         torch.manual_seed(7)\nprint(torch.equal(torch.empty(4000).uniform_(-1, 3), u))\n",
    );
    assert_eq!(lines, ["True True True", "torch.bfloat16 True True", "True"]);
}

#[test]
fn std_numpy_keyword_names_and_npu_availability() {
    let lines = printed(
        "print(torch.std(torch.tensor([1.0, 2.0, 3.0, 4.0])).item(), x.std(dim=0).tolist())\n\
         print(torch.max(x, dim=0, keepdims=True).values.tolist(), torch.sum(x, axis=1).tolist(), torch.npu.is_available())\n",
    );
    // std of 1, 2, 3, 4 with Bessel's correction: sqrt(5/3); of each column pair: sqrt(2).
    assert_eq!(lines[0], "1.2909945249557495 [1.4142135381698608, 1.4142135381698608]");
    assert_eq!(lines[1], "[[3.0, -2.0]] [-1.0, -1.0] True");
}

/// Kimi's reference computes its gradients with `torch.autograd.grad`: a tuple, one per input;
/// d/dw of Σw² is 2w, of 2·Σb is 2. An unused input is torch's error unless `allow_unused=True`.
#[test]
fn autograd_grad_gives_a_tuple_and_no_grad_records_nothing() {
    let lines = printed(
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\nb = torch.tensor([3.0], requires_grad=True)\n\
         u = torch.tensor([5.0], requires_grad=True)\n\
         g = torch.autograd.grad(outputs=(w * w).sum() + b.sum() * 2, inputs=[w, b], grad_outputs=torch.tensor(1.0))\n\
         print(type(g).__name__, [t.tolist() for t in g], torch.autograd.grad((w * 3).sum(), w)[0].tolist())\n\
         print(torch.autograd.grad((w * w).sum(), [w, u], allow_unused=True)[1])\n\
         with torch.no_grad():\n    z = w * 2\n\
         with torch.inference_mode():\n    v = w * 2\n\
         print(z.requires_grad, v.requires_grad)\n\
         import numpy as np\nnp.set_printoptions(formatter={'float': '{:.6f}'.format})\n",
    );
    assert_eq!(lines, ["tuple [[2.0, 4.0], [2.0]] [3.0, 3.0]", "None", "False False"]);
    let message = failure(
        "w = torch.tensor([1.0], requires_grad=True)\nu = torch.tensor([1.0], requires_grad=True)\n\
         torch.autograd.grad((w * w).sum(), [w, u])\n",
    );
    assert!(message.contains("Set allow_unused=True"), "{message}");
}

/// `x.split(sections, dim)` is `torch.split(x, …)`, whose tensor torch names `tensor` (GLM-4.5's
/// golden splits the q, k and v columns this way).
#[test]
fn split_is_a_method_too() {
    assert_eq!(
        super::cell_output::printed(
            "import torch\nx = torch.arange(12).reshape(2, 6)\nq, k = x.split([2, 4], dim=-1)\nprint(q.tolist(), k.shape)\n"
        ),
        "[[0, 1], [6, 7]] (2, 4)\n"
    );
}

/// DeepSeek-V3.2's goldens: numpy's names on a torch tensor's methods (`x.amax(dim=-1,
/// keepdims=True)`), `torch.is_floating_point` (and the method), and `view(dtype)`, which reads the
/// bytes as another dtype: bfloat16 1.0 is 0x3F80, little-endian bytes 0x80, 0x3F = int8 -128, 63;
/// -2.0 is 0xC000 = bytes 0x00, 0xC0 = 0, -64.
#[test]
fn numpy_names_on_methods_is_floating_point_and_view_as_a_dtype() {
    let lines = printed(
        "print(x.amax(dim=-1, keepdims=True).tolist(), x.sum(axis=0).tolist())\n\
         print(torch.is_floating_point(x), torch.tensor([1, 2]).is_floating_point(), torch.is_floating_point(x.bfloat16()))\n\
         b = torch.tensor([[1.0, -2.0]], dtype=torch.bfloat16).view(torch.int8)\n\
         print(list(b.shape), b.dtype, b.tolist())\n\
         print(b.view(dtype=torch.bfloat16).tolist(), torch.tensor([1.0]).view(torch.int32).item())\n",
    );
    assert_eq!(lines[0], "[[1.0], [3.0]] [4.0, -6.0]");
    assert_eq!(lines[1], "True False True");
    assert_eq!(lines[2], "[1, 4] torch.int8 [[-128, 63, 0, -64]]");
    // f32 1.0 is 0x3F800000 = 1065353216.
    assert_eq!(lines[3], "[[1.0, -2.0]] 1065353216");
    assert!(failure("torch.tensor([1, 2, 3], dtype=torch.int8).view(torch.int32)").contains("whole number of"));
}
