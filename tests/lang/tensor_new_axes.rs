//! numpy's new axes in a host index (`None`, as `x[:, None]` and `g[:, :, i, :, None]` write it):
//! each `None` puts a unit dim where numpy puts it. The expected shapes are numpy's for the same
//! indexes.

/// What the cell `code` prints after its imports.
fn printed(code: &str) -> String {
    super::cell_output::printed(&format!(
        "import torch\nx = torch.arange(6, dtype=torch.float32).reshape(2, 3)\n{code}"
    ))
}

#[test]
fn none_inserts_a_unit_dim_where_numpy_puts_it() {
    let code = "for y in (x[:, None], x[None], x[..., None], x[0, None], x[None, :, None, 1], x[None, None]):\n    print(list(y.shape))\n\
                print(x[:, None][1, 0].tolist(), x[None, :, None, 1].flatten().tolist())\n\
                print((x[:, None] - x[None, :]).shape[0], (x[:, :, None] * x[:, None, :]).sum().item())";
    // The outer product of each row with itself sums to (0+1+2)² + (3+4+5)² = 9 + 144.
    assert_eq!(
        printed(code),
        "[2, 1, 3]\n[1, 2, 3]\n[2, 3, 1]\n[1, 3]\n[1, 2, 1]\n[1, 1, 2, 3]\n[3.0, 4.0, 5.0] [1.0, 4.0]\n2 153.0\n"
    );
}
