//! `numpy.arange` with numpy's bounds, steps and dtypes; expected values follow numpy's rule
//! (start, start + step, … while below stop; int64 for int bounds, float64 once one is a float).

use tilelab::session::Session;

/// What the cell `code` prints (it must run without an error).
fn printed(code: &str) -> String {
    let mut session = Session::new();
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout
}

#[test]
fn arange_counts_like_numpy_with_its_dtypes() {
    // arange(5) = 0..4; arange(1, 2, 0.25) = 1, 1.25, 1.5, 1.75 (2 excluded); arange(10, 0, -3)
    // = 10, 7, 4, 1; dtype= is kept.
    let code = "import numpy as np\na = np.arange(5)\n\
                print(a.tolist(), np.arange(1, 2, 0.25).tolist(), np.arange(10, 0, -3).tolist(), np.arange(0, 3, dtype=np.float32).tolist())\n\
                print(a.dtype == np.int64, np.arange(1.0, 4).dtype == np.float64, np.arange(0, 3, dtype=np.float32).dtype == np.float32)";
    assert_eq!(printed(code), "[0, 1, 2, 3, 4] [1.0, 1.25, 1.5, 1.75] [10, 7, 4, 1] [0.0, 1.0, 2.0]\nTrue True True\n");
}
