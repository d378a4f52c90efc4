//! A one-element integer tensor as a slice bound (Python calls `__index__`, which torch's tensors
//! have), in a list and in a tensor; what CPython and torch print for the same code.

use super::cell_output::printed;
use tilelab::session::Session;

#[test]
fn a_zero_dimensional_int_tensor_bounds_a_slice_of_a_list_and_of_a_tensor() {
    // t = 3: [10, 20, 30, 40, 50][1:3] = [20, 30]; arange(6)[3:] = [3, 4, 5]; t - 2 and t + 1 are
    // tensors too: [1:4] = [20, 30, 40].
    let code = "import torch\nt = torch.tensor(3, dtype=torch.int64)\nitems = [10, 20, 30, 40, 50]\n\
                print(items[1:t], torch.arange(6)[t:].tolist(), items[t - 2:t + 1])";
    assert_eq!(printed(code), "[20, 30] [3, 4, 5] [20, 30, 40]\n");
}

#[test]
fn a_float_tensor_bound_is_still_an_error() {
    let mut session = Session::new();
    let result = session.run_cell("import torch\n[1, 2, 3][0:torch.tensor(1.5)]");
    let diagnostic = result.error().expect("an error");
    assert_eq!(diagnostic.message, "slice indices must be integers, not Tensor");
}
