//! pypto's operations added from its operation docs (docs/zh/api/operation/pypto-<op>.md) on the
//! host: values against the docs' examples and hand-computed results, gradients against values
//! worked out by hand, and the located errors of bad input.

use tilelab::session::Session;

/// The lines `code` prints (after `import pypto`), which must run.
pub fn stdout(code: &str) -> Vec<String> {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto\n{code}"));
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result.stdout.lines().map(str::to_string).collect()
}

/// The message and line (the cell's first line is the import) of the error `code` raises.
pub fn error(code: &str) -> (String, usize) {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto\n{code}"));
    let error = result.error().unwrap_or_else(|| panic!("expected an error from {code}"));
    (error.message.clone(), error.line)
}

#[test]
fn unsqueeze_inserts_a_dim_anywhere_from_minus_rank_minus_one_to_rank() {
    let printed = stdout(
        "x = pypto.as_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n\
         print(pypto.unsqueeze(x, 0).shape, pypto.unsqueeze(x, 2).shape, pypto.unsqueeze(x, -1).shape, pypto.unsqueeze(x, -3).shape)\n\
         print(pypto.unsqueeze(x, 1))\n",
    );
    assert_eq!(printed[0], "[1, 2, 3] [2, 3, 1] [2, 3, 1] [1, 2, 3]");
    assert_eq!(printed[1], "tensor([[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]], dtype=DT_FP32)");
    let (message, line) = error("x = pypto.zeros([2, 3])\ny = pypto.unsqueeze(x, 3)\n");
    assert!(message.contains("unsqueeze") && message.contains('3'), "{message}");
    assert_eq!(line, 3);
}

#[test]
fn index_select_follows_the_docs_example_and_its_gradient_sums_repeated_rows() {
    // pypto's doc: x [3, 4], index [0, 2] along dim 0 and along dim 1.
    let printed = stdout(
        "x = pypto.as_tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]], requires_grad=True)\n\
         index = pypto.as_tensor([0, 2], pypto.DT_INT32)\n\
         print(pypto.index_select(x, 0, index))\n\
         print(pypto.index_select(x, -1, index))\n\
         repeated = pypto.as_tensor([2, 0, 2], pypto.DT_INT64)\n\
         y = pypto.index_select(x, 0, repeated)\n\
         w = pypto.as_tensor([[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0]])\n\
         pypto.sum(y * w).backward()\n\
         print(x.grad)\n",
    );
    let grad = ", requires_grad=True)";
    assert_eq!(printed[0], format!("tensor([[1.0, 2.0, 3.0, 4.0], [9.0, 10.0, 11.0, 12.0]], dtype=DT_FP32{grad}"));
    assert_eq!(printed[1], format!("tensor([[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]], dtype=DT_FP32{grad}"));
    // Row 0 was selected once with weight 2; row 2 twice with weights 1 and 3; row 1 never.
    assert_eq!(printed[2], "tensor([[2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0], [4.0, 4.0, 4.0, 4.0]], dtype=DT_FP32)");
    let (message, line) = error("x = pypto.zeros([3, 4])\ny = pypto.index_select(x, 0, pypto.as_tensor([0.0, 1.0]))\n");
    assert!(message.contains("DT_FP32"), "a float index is refused: {message}");
    assert_eq!(line, 3);
    let (message, _) =
        error("x = pypto.zeros([3, 4])\ny = pypto.index_select(x, 0, pypto.as_tensor([0, 3], pypto.DT_INT32))\n");
    assert!(message.contains('3'), "an index past the dim is refused: {message}");
    let (message, _) =
        error("x = pypto.zeros([3, 4])\ny = pypto.index_select(x, 0, pypto.as_tensor([[0, 1]], pypto.DT_INT32))\n");
    assert!(message.contains("index_select"), "a 2-D index is refused: {message}");
}

#[test]
fn argmax_and_argmin_give_int32_indices_with_the_first_of_equal_values() {
    let printed = stdout(
        "x = pypto.as_tensor([[1.0, 3.0, 3.0, -2.0], [0.5, -4.0, 9.0, -4.0]])\n\
         print(pypto.argmax(x, -1), pypto.argmin(x, 1))\n\
         print(pypto.argmax(x, 0, True), pypto.argmin(x, dim=0, keepdim=True).shape)\n\
         print(pypto.argmax(pypto.as_tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]), -1, True))\n",
    );
    assert_eq!(printed[0], "tensor([1, 2], dtype=DT_INT32) tensor([3, 1], dtype=DT_INT32)");
    assert_eq!(printed[1], "tensor([[0, 0, 1, 0]], dtype=DT_INT32) [1, 4]");
    // The doc's example: [[1, 2, 3], [1, 2, 3]] along -1 with keepdim gives [[2], [2]].
    assert_eq!(printed[2], "tensor([[2], [2]], dtype=DT_INT32)");
    let (message, line) = error("i = pypto.as_tensor([1, 2], pypto.DT_INT32)\nj = pypto.argmax(i, 0)\n");
    assert!(message.contains("argmax") && message.contains("DT_INT32"), "{message}");
    assert_eq!(line, 3);
    let (message, _) = error("x = pypto.zeros([2, 3])\nj = pypto.argmin(x, 2)\n");
    assert!(message.contains("argmin"), "{message}");
}

#[test]
fn one_hot_follows_the_docs_example_and_refuses_elements_outside_the_classes() {
    let printed = stdout(
        "y = pypto.one_hot(pypto.as_tensor([0, 2, 4], pypto.DT_INT32), 5)\nprint(y)\n\
         print(pypto.one_hot(pypto.as_tensor([[1], [0]], pypto.DT_INT8), 2).shape)\n",
    );
    assert_eq!(printed[0], "tensor([[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]], dtype=DT_INT64)");
    assert_eq!(printed[1], "[2, 1, 2]");
    let (message, line) = error("y = pypto.one_hot(pypto.as_tensor([0, 5], pypto.DT_INT32), 5)\n");
    assert!(message.contains('5') && message.contains("one_hot"), "{message}");
    assert_eq!(line, 2);
    let (message, _) = error("y = pypto.one_hot(pypto.as_tensor([0, -1], pypto.DT_INT32), 5)\n");
    assert!(message.contains("-1"), "{message}");
    let (message, _) = error("y = pypto.one_hot(pypto.as_tensor([0, 1], pypto.DT_INT32), 0)\n");
    assert!(message.contains("num_classes"), "{message}");
    let (message, _) = error("y = pypto.one_hot(pypto.as_tensor([0.0, 1.0]), 3)\n");
    assert!(message.contains("DT_FP32"), "{message}");
}

#[test]
fn scatter_update_writes_rows_in_place_in_both_of_the_docs_forms() {
    // 2-D, the doc's example: index [[1, 2], [4, 5]] takes rows 1..4 of src.
    let printed = stdout(
        "x = pypto.zeros([8, 3], pypto.DT_INT32)\n\
         y = pypto.as_tensor([[1, 2], [4, 5]], pypto.DT_INT64)\n\
         z = pypto.as_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], pypto.DT_INT32)\n\
         x2 = pypto.scatter_update(x, -2, y, z)\n\
         print(x)\nprint(x2 is x)\n\
         c = pypto.zeros([3, 2, 1, 2])\n\
         i = pypto.as_tensor([[5, 0]], pypto.DT_INT32)\n\
         s = pypto.as_tensor([[[[1.0, 2.0]], [[3.0, 4.0]]]])\n\
         pypto.scatter_update(c, -2, i, s)\n\
         print(pypto.reshape(c, [6, 2]))\n",
    );
    assert_eq!(
        printed[0],
        "tensor([[0, 0, 0], [1, 2, 3], [4, 5, 6], [0, 0, 0], [7, 8, 9], [10, 11, 12], [0, 0, 0], [0, 0, 0]], dtype=DT_INT32)"
    );
    assert_eq!(printed[1], "True");
    // Row 5 is block 2's second row; row 0 is block 0's first.
    assert_eq!(
        printed[2],
        "tensor([[3.0, 4.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [1.0, 2.0]], dtype=DT_FP32)"
    );
    let (message, line) = error(
        "x = pypto.zeros([8, 3])\ny = pypto.as_tensor([[1, 2]], pypto.DT_INT32)\npypto.scatter_update(x, 1, y, pypto.zeros([2, 3]))\n",
    );
    assert!(message.contains("dim") && message.contains("-2"), "{message}");
    assert_eq!(line, 4);
    let (message, _) = error(
        "x = pypto.zeros([8, 3])\ny = pypto.as_tensor([[1, 2]], pypto.DT_INT32)\npypto.scatter_update(x, -2, y, pypto.zeros([3, 3]))\n",
    );
    assert!(message.contains("scatter_update"), "a source of the wrong row count: {message}");
}

#[test]
fn scatter_update_gradient_goes_to_the_written_rows_of_src_and_the_kept_rows_of_input() {
    let printed = stdout(
        "base = pypto.ones([4, 2], requires_grad=True)\n\
         src = pypto.ones([2, 2], requires_grad=True)\n\
         x = base * 1.0\n\
         pypto.scatter_update(x, -2, pypto.as_tensor([[3, 1]], pypto.DT_INT32), src)\n\
         w = pypto.as_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])\n\
         pypto.sum(x * w).backward()\n\
         print(base.grad)\nprint(src.grad)\n",
    );
    // src row 0 lands on row 3, row 1 on row 1; those rows of the input are overwritten.
    assert_eq!(printed[0], "tensor([[1.0, 2.0], [0.0, 0.0], [5.0, 6.0], [0.0, 0.0]], dtype=DT_FP32)");
    assert_eq!(printed[1], "tensor([[7.0, 8.0], [3.0, 4.0]], dtype=DT_FP32)");
}

#[test]
fn unsqueeze_gradient_is_the_upstream_gradient_reshaped() {
    let printed = stdout(
        "x = pypto.as_tensor([1.0, 2.0, 3.0], requires_grad=True)\n\
         w = pypto.as_tensor([[[2.0], [4.0], [8.0]]])\n\
         pypto.sum(pypto.unsqueeze(pypto.unsqueeze(x, -1), 0) * w * x.unsqueeze(-1)).backward()\n\
         print(x.grad)\n",
    );
    // L = Σ w_i x_i²: dL/dx_i = 2 w_i x_i.
    assert_eq!(printed[0], "tensor([4.0, 16.0, 48.0], dtype=DT_FP32)");
}
