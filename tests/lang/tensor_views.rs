//! Basic indexing on the host gives views that write through, as torch's and numpy's do: GLM-4.5's
//! block table is filled by `block_table[b][j] = block`, which must land in `block_table`.

use super::cell_output::printed;

#[test]
fn writes_into_a_basic_index_reach_the_tensor_it_was_taken_from() {
    // Each write names the element of x it lands on: x[0][1] = 7; row 1 is x[1]: row[2] = 9 puts 9
    // at x[1, 2]; the slice x[:, 1:] starts at column 1: s[1, 0] = 3 is x[1, 1]; x[0].add_(1) adds 1
    // to row 0; a view of a view (x[1][:2]) reaches x through both.
    let code = "import torch\nx = torch.zeros(2, 3)\nx[0][1] = 7\nrow = x[1]\nrow[2] = 9\n\
        s = x[:, 1:]\ns[1, 0] = 3\nx[0].add_(1)\nx[1][:2][0] = -1\nprint(x.tolist())\n\
        table = torch.full([2, 3], -1, dtype=torch.int32)\nfor b in range(2):\n    for j in range(b + 1):\n        table[b][j] = 10 * b + j\n\
        print(table.tolist())\n";
    assert_eq!(printed(code), "[[1.0, 8.0, 1.0], [-1.0, 3.0, 9.0]]\n[[0, -1, -1], [10, 11, -1]]\n");
}

#[test]
fn a_tensor_index_copies_as_in_torch() {
    // x[[0]] (an index tensor) is a copy: writing it leaves x as it was.
    let code = "import torch\nx = torch.zeros(2, 2)\nc = x[torch.tensor([0])]\nc[0, 0] = 5\nprint(x.sum().item(), c.sum().item())\n";
    assert_eq!(printed(code), "0.0 5.0\n");
}

#[test]
fn reversed_and_numpys_size_and_nan_checks() {
    // np_compare's helpers: an index from a flat position by reversed(shape); a numpy array's size
    // is its element count (torch's size() stays a method); np.isnan of a number and of an array.
    let code = "import numpy as np\nimport torch\n\
        a = np.array([[1.0, float('nan'), 3.0], [4.0, 5.0, 6.0]])\n\
        print(a.size, a.reshape(-1).size, torch.ones(2, 3).size(), list(reversed((2, 3))), tuple(reversed([1, 2, 3])))\n\
        print(np.isnan(float('nan')), np.isnan(2.0), np.isnan(a).tolist(), bool(np.isnan(a.reshape(-1)[1])))\n\
        print(np.isinf(float('inf')), np.isfinite(a).sum().item())\n";
    assert_eq!(
        printed(code),
        "6 6 (2, 3) [3, 2] (3, 2, 1)\nTrue False [[False, True, False], [False, False, False]] True\nTrue 5\n"
    );
}

#[test]
fn pypto_view_names_its_tensor_input_as_pypto_does() {
    // DeepSeek-V3.2's kernels pass every argument of pypto.view by keyword: rows 1..3 of a 4 × 2
    // arange are 2, 3 and 4, 5.
    let code = "import pypto\nx = pypto.reshape(pypto.arange(8), [4, 2])\n\
        print(pypto.view(input=x, shape=[2, 2], offsets=[1, 0]).tolist())\n";
    assert_eq!(printed(code), "[[2, 3], [4, 5]]\n");
}

#[test]
fn pypto_view_with_a_dtype_reads_the_bytes_as_that_dtype() {
    // f32 1.0 is 0x3F800000: little-endian int8 bytes 0, 0, -128, 63. Eight int8 bytes of which the
    // first four are valid are two f32 elements of which one is valid.
    let code = "import pypto\nx = pypto.as_tensor([[0, 0, -128, 63, 0, 0, -128, 63]], dtype=pypto.DT_INT8)\n\
        half = pypto.view(x, [1, 8], [0, 0], valid_shape=[1, 4])\n\
        y = pypto.view(input=half, dtype=pypto.DT_FP32)\n\
        print(y.shape, y.valid_shape, y.tolist())\n";
    assert_eq!(printed(code), "[1, 2] [1, 1] [[1.0, 0.0]]\n");
}
