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

/// A one-element integer tensor in an index tuple picks one position like an int but, as torch's
/// advanced index, leaves a dim of size 1 per dim of its own: `x[1, t]` with `t = [[2]]`-shaped
/// [1, 1] is [[6.0]]; ints drop their dims first, so in `x[t1, :]` the unit dim stays in place and
/// `x[t1, 0:2]` is [[4.0, -5.0]] (shape [1, 2]); tensors parted by a slice put it in front.
#[test]
fn one_element_integer_tensors_in_a_tuple_keep_unit_dims() {
    let (lines, error) = run("t = torch.tensor([[2]])\nt1 = torch.tensor([1])\n\
         print(x[1, t].tolist(), x[t1, 0:2].tolist(), x[0, t1].tolist())\n\
         y = torch.zeros(2, 3, 4)\nprint(list(y[t1, :, t1].shape), list(y[:, t1, t1].shape), list(y[0, :, t1].shape))\n\
         z = x.clone()\nz[1, t1] = torch.tensor([7.0])\nprint(z[1].tolist())\n");
    assert!(error.is_none(), "{error:?}");
    assert_eq!(lines, ["[[6.0]] [[4.0, -5.0]] [-2.0]", "[1, 3] [2, 1] [3, 1]", "[4.0, 7.0, 6.0]"]);
}

/// A 0-d integer tensor indexes as an int (torch's rule): `cache[index][:] = row` writes through
/// the view into `cache`, as the models' golden `scatter_update` does with `indices[b][s]`.
#[test]
fn a_zero_d_integer_tensor_index_is_a_view() {
    let (lines, error) = run("cache = torch.zeros(3, 2)\nindices = torch.tensor([[2, 0]])\n\
         cache[indices[0][0]][:] = torch.tensor([1.0, 2.0])\ncache[indices[0][1]] = 5.0\nprint(cache.tolist())\n");
    assert!(error.is_none(), "{error:?}");
    assert_eq!(lines, ["[[5.0, 5.0], [0.0, 0.0], [1.0, 2.0]]"]);
}

/// `torch.nonzero`: one row of positions per non-zero element in row-major order (int64), or
/// one 1-d tensor per dim with `as_tuple=True`; `x > 0` is true at (0, 0),
/// (0, 2), (1, 0), (1, 2).
#[test]
fn nonzero_lists_positions_row_major() {
    let (lines, error) = run("p = torch.nonzero(x > 0)\nprint(p.tolist(), p.dtype, list(torch.nonzero(x > 9).shape))\n\
         rows, cols = torch.nonzero(x > 0, as_tuple=True)\nprint(rows.tolist(), cols.tolist(), (x < 0).nonzero().tolist())\n");
    assert!(error.is_none(), "{error:?}");
    assert_eq!(
        lines,
        ["[[0, 0], [0, 2], [1, 0], [1, 2]] torch.int64 [0, 2]", "[0, 0, 1, 1] [0, 2, 0, 2] [[0, 1], [1, 1]]"]
    );
}
