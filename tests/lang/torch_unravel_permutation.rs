//! `torch.unravel_index` (coordinates of flat indices, as torch computes them) and
//! `numpy.random.permutation` (a random order of 0..n, or a copy of an array shuffled by rows).

use tilelab::session::Session;

/// What the cell `code` prints after its imports.
fn printed(code: &str) -> String {
    super::cell_output::printed(&format!("import torch\nimport numpy as np\n{code}"))
}

#[test]
fn unravel_index_gives_one_coordinate_tensor_per_dim() {
    // Row-major: 5 in (2, 4) is (1, 1), 7 is (1, 3); 22 in (2, 3, 4) is 12 + 2·4 + 2: (1, 2, 2).
    let code = "print([t.tolist() for t in torch.unravel_index(torch.tensor([0, 5, 7]), (2, 4))])\n\
                c = torch.unravel_index(torch.tensor(22), (2, 3, 4))\n\
                print(type(c).__name__, [t.item() for t in c], c[0].dtype)";
    assert_eq!(printed(code), "[[0, 1, 1], [0, 1, 3]]\ntuple [1, 2, 2] torch.int64\n");
    let result = Session::new().run_cell("import torch\ntorch.unravel_index(torch.tensor([8]), (2, 4))\n");
    assert!(result.error().is_some_and(|error| error.message.contains("out of range")), "{:?}", result.error());
}

#[test]
fn permutation_reorders_a_range_or_an_arrays_rows() {
    // Seeded twice: the same order both times, every number once, and (for this seed) not the
    // identity; an array keeps its rows whole.
    let code = "np.random.seed(5)\np = np.random.permutation(10).tolist()\n\
                np.random.seed(5)\nprint(p == np.random.permutation(10).tolist(), sorted(p) == list(range(10)), p != list(range(10)))\n\
                q = np.random.permutation(np.arange(12).reshape(4, 3))\n\
                print(list(q.shape), sorted(q.tolist()), [row[1] - row[0] for row in q.tolist()])";
    assert_eq!(printed(code), "True True True\n[4, 3] [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]] [1, 1, 1, 1]\n");
}
