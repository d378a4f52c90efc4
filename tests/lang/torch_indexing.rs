//! Indexing by a tensor on the host, as the goldens and checks of hicann/pypto's model tests write
//! it (`input[small_mask] - golden[small_mask]`): a bool mask selects elements (rows for a mask of
//! the leading dims), an integer tensor selects rows, `x[mask] = value` writes them; torch's dtype
//! of `torch.tensor([True, False])` is bool. Expected values are worked out by hand.

use tilelab::session::Session;

fn run(code: &str) -> (Vec<String>, Option<String>) {
    let mut session = Session::new();
    let result =
        session.run_cell(&format!("import torch\nx = torch.tensor([[1.0, -2.0, 3.0], [4.0, -5.0, 6.0]])\n{code}"));
    (result.stdout.lines().map(str::to_string).collect(), result.error().map(|error| error.message.clone()))
}

#[test]
fn a_bool_mask_selects_elements_or_rows() {
    let (lines, error) =
        run("print(x[x > 0].tolist(), list(x[x < -10].shape), x[torch.tensor([True, False])].tolist())\n\
         print(torch.tensor([True, False]).dtype, torch.tensor([True, 2]).dtype)\n\
         print(torch.sum(torch.abs(x[x > 0] - x[x > 0] * 2) > 3.5).item())\n");
    assert!(error.is_none(), "{error:?}");
    assert_eq!(lines, ["[1.0, 3.0, 4.0, 6.0] [0] [[1.0, -2.0, 3.0]]", "torch.bool torch.int64", "2"]);
}

#[test]
fn an_integer_tensor_selects_rows_and_writes_go_through_either() {
    let (lines, error) = run("print(x[torch.tensor([1, 0, 1])].tolist(), x[torch.tensor([-1])].tolist())\n\
         y = x.clone()\ny[y < 0] = 0.0\nprint(y.tolist())\n\
         z = x.clone()\nz[torch.tensor([0])] = torch.tensor([9.0, 8.0, 7.0])\nprint(z.tolist(), x.tolist())\n");
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        lines,
        [
            "[[4.0, -5.0, 6.0], [1.0, -2.0, 3.0], [4.0, -5.0, 6.0]] [[4.0, -5.0, 6.0]]",
            "[[1.0, 0.0, 3.0], [4.0, 0.0, 6.0]]",
            "[[9.0, 8.0, 7.0], [4.0, -5.0, 6.0]] [[1.0, -2.0, 3.0], [4.0, -5.0, 6.0]]",
        ]
    );
}

#[test]
fn bad_tensor_indices_are_torchs_errors() {
    let (_, error) = run("x[torch.tensor([5])]\n");
    assert_eq!(error.as_deref(), Some("index 5 is out of range for dim 0 of size 2"));
    let (_, error) = run("x[torch.tensor([True, False, True])]\n");
    assert_eq!(
        error.as_deref(),
        Some("the shape of the mask [3] does not match the shape of the indexed tensor [2, 3]")
    );
    let (_, error) = run("x[x > 0] = torch.tensor([1.0, 2.0])\n");
    assert!(
        error
            .as_deref()
            .is_some_and(|message| message.contains("cannot be broadcast to the indexing result of shape [4]")),
        "{error:?}"
    );
    let (_, error) = run("w = torch.ones(2, requires_grad=True)\nw[w > 0]\n");
    assert!(error.as_deref().is_some_and(|message| message.contains("not recorded for backward")), "{error:?}");
}
