//! `torch.isnan`, `isinf`, `isfinite` as functions and tensor methods; the expected lines are what
//! torch prints for the same code.

use super::cell_output::printed;

#[test]
fn nan_and_infinity_tests_give_bool_tensors_as_torch_does() {
    // [1, nan, inf, -inf, 0.5]: nan only at 1; inf at 2 and 3 (either sign); finite at 0 and 4,
    // so 3 elements are not finite. An int tensor is finite everywhere.
    let code = "import torch\nx = torch.tensor([1.0, float('nan'), float('inf'), -float('inf'), 0.5])\n\
                print(torch.isnan(x).tolist(), x.isinf().tolist(), torch.isfinite(x).tolist())\n\
                print(torch.isnan(x).dtype, (~torch.isfinite(x)).sum().item(), torch.isfinite(torch.tensor([1, 2], dtype=torch.int32)).all().item())";
    assert_eq!(
        printed(code),
        "[False, True, False, False, False] [False, False, True, True, False] [True, False, False, False, True]\n\
         torch.bool 3 True\n"
    );
}
