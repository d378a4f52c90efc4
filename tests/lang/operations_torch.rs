//! The host `torch` functions pypto tests' goldens use around the added operations: `torch.where`,
//! `torch.argmax` and `torch.argmin`, against hand-computed values.

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
