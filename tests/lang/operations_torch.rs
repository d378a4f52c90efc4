//! The host `torch` functions pypto tests' goldens use around the added operations: `torch.where`,
//! `torch.argmax` and `torch.argmin`, and the in-place writes `copy_`, `fill_`, `zero_`, against
//! hand-computed values.

use tilelab::session::Session;

fn stdout(code: &str) -> Vec<String> {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import torch\n{code}"));
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result.stdout.lines().map(str::to_string).collect()
}

#[test]
fn torch_where_selects_between_tensors_and_numbers() {
    let printed = stdout(
        "x = torch.tensor([1.0, -2.0, 3.0])\n\
         print(torch.where(x > 0, x, torch.zeros(3)).tolist(), torch.where(x < 0, 10.0, x).tolist())\n",
    );
    assert_eq!(printed[0], "[1.0, 0.0, 3.0] [1.0, 10.0, 3.0]");
}

#[test]
fn torch_argmax_and_argmin_flatten_without_dim_and_give_int64() {
    let printed = stdout(
        "x = torch.tensor([[1.0, 7.0, 7.0], [9.0, -3.0, 0.0]])\n\
         print(torch.argmax(x).item(), torch.argmin(x).item(), torch.argmax(x).dtype == torch.int64)\n\
         print(torch.argmax(x, dim=1).tolist(), torch.argmin(x, 0, keepdim=True).tolist(), list(torch.argmax(x, keepdim=True).shape))\n\
         print(torch.argmax(torch.tensor([3, 5, 5, 1]), 0).item())\n",
    );
    assert_eq!(printed[0], "3 4 True");
    assert_eq!(printed[1], "[1, 0] [[0, 1, 1]] [1, 1]");
    assert_eq!(printed[2], "1");
}

#[test]
fn torch_eye_has_ones_on_the_diagonal_only() {
    let printed = stdout(
        "print(torch.eye(3).tolist())\nprint(torch.eye(2, 3, dtype=torch.int32).tolist(), torch.eye(0).numel())\n",
    );
    assert_eq!(printed[0], "[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]");
    assert_eq!(printed[1], "[[1, 0, 0], [0, 1, 0]] 0");
    let mut session = Session::new();
    let result = session.run_cell("import torch\nx = torch.eye(-2)\n");
    let error = result.error().expect("a negative size is refused");
    assert!(error.message.contains('n') && error.line == 2, "{}", error.message);
}

#[test]
fn copy_fill_and_zero_write_in_place_and_return_the_tensor() {
    // pypto-gym's InplaceAddRmsNorm writes its kernel's outputs back with `x1.copy_(y.view(…))`.
    let printed = stdout(
        "a = torch.zeros(2, 3)\nb = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])\n\
         print(a.copy_(b) is a, a.tolist())\n\
         a.copy_(torch.tensor([7.0, 8.0, 9.0]))\nprint(a.tolist())\n\
         print(a.fill_(2.5).tolist(), a.zero_().tolist())\n\
         h = torch.zeros(3, dtype=torch.bfloat16)\nh.copy_(torch.tensor([1.0, 1.0 / 3.0, 300.7]))\n\
         print(h.dtype == torch.bfloat16, h.float().tolist())\n",
    );
    assert_eq!(printed[0], "True [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]");
    assert_eq!(printed[1], "[[7.0, 8.0, 9.0], [7.0, 8.0, 9.0]]");
    assert_eq!(printed[2], "[[2.5, 2.5, 2.5], [2.5, 2.5, 2.5]] [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]");
    // bf16 keeps 8 significant bits: 1/3 → 0.333984375, 300.7 → 300 (steps of 2 above 256).
    assert_eq!(printed[3], "True [1.0, 0.333984375, 300.0]");
}

#[test]
fn copy_into_a_leaf_that_requires_grad_is_refused_and_a_wrong_shape_is_an_error() {
    let mut session = Session::new();
    let result = session.run_cell("import torch\nleaf = torch.zeros(2, requires_grad=True)\nleaf.zero_()\n");
    let error = result.error().expect("a leaf that requires grad refuses an in-place write");
    assert_eq!(error.line, 3, "{}", error.message);
    let result = session.run_cell("import torch\na = torch.zeros(2, 3)\na.copy_(torch.ones(4))\n");
    let error = result.error().expect("[4] does not broadcast to [2, 3]");
    assert!(error.message.contains("[4]") && error.message.contains("[2, 3]"), "{}", error.message);
}

/// `torch.is_floating_point` (and the method) is true for the float dtypes only; the goldens of
/// the models choose how to fill a tensor with it.
#[test]
fn is_floating_point_tells_float_dtypes() {
    let printed = stdout(
        "print(torch.is_floating_point(torch.tensor(0, dtype=torch.float16)), torch.is_floating_point(torch.tensor(0, dtype=torch.bfloat16)))\n\
         print(torch.is_floating_point(torch.tensor(0, dtype=torch.int32)), torch.tensor([True]).is_floating_point(), torch.ones(2).is_floating_point())\n",
    );
    assert_eq!(printed, ["True True", "False False True"]);
}

/// A reshape dim may be a one-element integer tensor (torch's `__index__`), as the goldens'
/// `qk.reshape(s1, n1, min(block, seq_len[b] - start))` gives: 12 elements into (2, 3, 2).
#[test]
fn a_reshape_dim_may_be_a_one_element_integer_tensor() {
    let printed = stdout(
        "seq = torch.tensor([[5], [7]], dtype=torch.int32)\nx = torch.arange(12)\n\
         tail = min(2, seq[1] - 5)\nprint(list(x.reshape(2, 3, tail).shape), list(x.reshape([seq[0] - 2, -1]).shape))\n",
    );
    assert_eq!(printed, ["[2, 3, 2] [3, 4]"]);
}
