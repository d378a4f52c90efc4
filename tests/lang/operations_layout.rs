//! `pypto.permute`, `tril` and `triu` on the host: values against hand-computed results (the
//! docs' definitions), gradients worked out by hand, and the located errors of bad input.

use super::operations::{error, stdout};

#[test]
fn permute_puts_dim_perm_i_of_the_input_at_dim_i() {
    // y[a, b, c] = 12a + 4b + c; permute [2, 0, 1] gives z[c, a, b] = y[a, b, c].
    let printed = stdout(
        "y = pypto.arange(24).reshape([2, 3, 4])\n\
         z = pypto.permute(y, [2, 0, 1])\n\
         print(z.shape, z[3, 1, 2].item(), z[1, 0, 1].item())\n\
         print(pypto.permute(y, [1, -1, 0]).shape, pypto.permute(y, [0, 1, 2]).shape)\n",
    );
    // pypto.arange of ints is DT_INT32, so its items are ints.
    assert_eq!(printed[0], "[4, 2, 3] 23 5");
    assert_eq!(printed[1], "[3, 4, 2] [2, 3, 4]");
    let (message, line) = error("y = pypto.zeros([2, 3, 4])\nz = pypto.permute(y, [0, 0, 1])\n");
    assert!(message.contains("permute"), "{message}");
    assert_eq!(line, 3);
    let (message, _) = error("y = pypto.zeros([2, 3, 4])\nz = pypto.permute(y, [0, 1])\n");
    assert!(message.contains("permute"), "{message}");
    let (message, _) = error("y = pypto.zeros([2, 3, 4])\nz = pypto.permute(y, [0, 1, 3])\n");
    assert!(message.contains('3'), "{message}");
}

#[test]
fn permute_gradient_is_the_inverse_permute_of_the_upstream_gradient() {
    let printed = stdout(
        "x = pypto.as_tensor([[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]], requires_grad=True)\n\
         w = pypto.as_tensor([[[10.0, 20.0, 30.0]], [[40.0, 50.0, 60.0]]])\n\
         pypto.sum(pypto.permute(x, [2, 1, 0]) * w).backward()\n\
         print(x.grad)\n",
    );
    // permute [2, 1, 0] of x [3, 1, 2] is [2, 1, 3]: element (c, 0, a) is x[a, 0, c], weight w[c, 0, a].
    assert_eq!(printed[0], "tensor([[[10.0, 40.0]], [[20.0, 50.0]], [[30.0, 60.0]]], dtype=DT_FP32)");
}

#[test]
fn tril_and_triu_keep_the_elements_on_their_side_of_the_diagonal() {
    let printed = stdout(
        "x = pypto.as_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], pypto.DT_INT32)\n\
         print(pypto.tril(x))\nprint(pypto.triu(x, 1))\nprint(pypto.tril(x, diagonal=-1))\n\
         b = pypto.ones([2, 2, 3])\nprint(pypto.sum(pypto.triu(b, -1)).item(), pypto.sum(pypto.tril(b, 5)).item())\n",
    );
    assert_eq!(printed[0], "tensor([[1, 0, 0], [4, 5, 0], [7, 8, 9]], dtype=DT_INT32)");
    assert_eq!(printed[1], "tensor([[0, 2, 3], [0, 0, 6], [0, 0, 0]], dtype=DT_INT32)");
    assert_eq!(printed[2], "tensor([[0, 0, 0], [4, 0, 0], [7, 8, 0]], dtype=DT_INT32)");
    // triu(-1) of a 2×3 matrix keeps all 6 elements; tril(5) keeps all: 12 over the batch of 2.
    assert_eq!(printed[3], "12.0 12.0");
    let (message, line) = error("x = pypto.zeros([4])\ny = pypto.tril(x)\n");
    assert!(message.contains("tril"), "{message}");
    assert_eq!(line, 3);
}

#[test]
fn tril_gradient_is_the_upstream_gradient_on_the_kept_triangle() {
    let printed = stdout(
        "x = pypto.ones([2, 3], requires_grad=True)\n\
         w = pypto.as_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n\
         pypto.sum(pypto.tril(x) * w + pypto.triu(x, 2) * w).backward()\n\
         print(x.grad)\n",
    );
    // tril keeps (0,0), (1,0), (1,1); triu(2) keeps (0,2).
    assert_eq!(printed[0], "tensor([[1.0, 0.0, 3.0], [4.0, 5.0, 0.0]], dtype=DT_FP32)");
}

/// pypto's `Tensor.valid_shape` is `GetValidShape`: a tensor without a valid shape of its own is
/// valid throughout (its shape); a view's valid shape stays what was given.
#[test]
fn a_tensor_without_a_valid_shape_of_its_own_is_valid_throughout() {
    let code = "x = pypto.ones([4, 6])\nv = pypto.view(x, [4, 6], [0, 0], valid_shape=[3, 6])\nprint(x.valid_shape, v.valid_shape, (x + 1).valid_shape)";
    assert_eq!(stdout(code), vec!["[4, 6] [3, 6] [4, 6]".to_string()]);
}
