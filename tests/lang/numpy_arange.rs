//! `numpy.arange` with numpy's bounds, steps and dtypes, and `numpy.tile`; expected values follow numpy's rule
//! (start, start + step, … while below stop; int64 for int bounds, float64 once one is a float).

use super::cell_output::printed;

#[test]
fn arange_counts_like_numpy_with_its_dtypes() {
    // arange(5) = 0..4; arange(1, 2, 0.25) = 1, 1.25, 1.5, 1.75 (2 excluded); arange(10, 0, -3)
    // = 10, 7, 4, 1; dtype= is kept.
    let code = "import numpy as np\na = np.arange(5)\n\
                print(a.tolist(), np.arange(1, 2, 0.25).tolist(), np.arange(10, 0, -3).tolist(), np.arange(0, 3, dtype=np.float32).tolist())\n\
                print(a.dtype == np.int64, np.arange(1.0, 4).dtype == np.float64, np.arange(0, 3, dtype=np.float32).dtype == np.float32)";
    assert_eq!(printed(code), "[0, 1, 2, 3, 4] [1.0, 1.25, 1.5, 1.75] [10, 7, 4, 1] [0.0, 1.0, 2.0]\nTrue True True\n");
}

#[test]
fn tile_repeats_along_dims_counted_from_the_last() {
    // numpy: an int tiles the last dim; reps shorter than the rank count from the last dim,
    // longer ones add leading dims.
    let code = "import numpy as np\na = np.arange(3)\nb = np.arange(4).reshape(2, 2)\n\
                print(np.tile(a, 2).tolist(), np.tile(a, (2, 2)).tolist())\n\
                print(np.tile(b, 2).tolist(), list(np.tile(b, (2, 1, 1)).shape))\n\
                print(np.tile([-1] * 3, (2, 1)).astype(np.int32).tolist())";
    assert_eq!(
        printed(code),
        "[0, 1, 2, 0, 1, 2] [[0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 2]]\n[[0, 1, 0, 1], [2, 3, 2, 3]] [2, 2, 2]\n[[-1, -1, -1], [-1, -1, -1]]\n"
    );
}
