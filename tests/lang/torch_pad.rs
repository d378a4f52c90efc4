//! `torch.nn.functional.pad` in constant mode: pairs from the last dim backwards, negative pads
//! crop; the expected lines are what torch prints for the same code, and its errors are torch's.

use super::cell_output::printed;
use tilelab::session::Session;

const SETUP: &str =
    "import torch\nimport torch.nn.functional as F\nx = torch.arange(6, dtype=torch.float32).reshape(2, 3)\n";

#[test]
fn pads_run_from_the_last_dim_backwards_and_negative_pads_crop() {
    let code = format!(
        "{SETUP}print(F.pad(x, (1, 2)).tolist())\n\
         print(F.pad(x, (0, 0, 1, 0), value=-1.0).tolist())\n\
         print(F.pad(x, [1, -2, -1, 0], 'constant', 7).tolist())\n\
         y = F.pad(torch.ones(2, 2, 2), (1, 1))\n\
         print(list(y.shape), y.sum().item(), list(F.pad(x, (-1, 1)).shape))\n\
         lengths = torch.tensor([0, 3])\n\
         print(list(F.pad(x, (0, lengths[1] - lengths[0])).shape))\n"
    );
    assert_eq!(
        printed(&code),
        "[[0.0, 0.0, 1.0, 2.0, 0.0, 0.0], [0.0, 3.0, 4.0, 5.0, 0.0, 0.0]]\n\
         [[-1.0, -1.0, -1.0], [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]\n\
         [[7.0, 3.0]]\n\
         [2, 2, 4] 8.0 [2, 3]\n\
         [2, 6]\n"
    );
}

#[test]
fn bad_pads_and_other_modes_are_torchs_errors_at_the_argument() {
    let cases = [
        ("F.pad(x, (1, 2, 3))", "Padding length must be divisible by 2"),
        (
            "F.pad(x, (1, 1, 1, 1, 1, 1))",
            "Padding length should be less than or equal to two times the input dimension but got padding length 6 and input of dimension 2",
        ),
        (
            "F.pad(x, (-2, -2))",
            "The input size 3, plus negative padding -2 and -2 resulted in a negative output size, which is invalid. Check dimension 1 of your input.",
        ),
        ("F.pad(x, (1, 1), mode='reflect')", "mode 'reflect' is not available here"),
        ("F.pad(x, (1, 0.5))", "'pad' must be an int or a list of ints"),
    ];
    for (call, expected) in cases {
        let result = Session::new().run_cell(&format!("{SETUP}{call}\n"));
        let error = result.error().unwrap_or_else(|| panic!("{call} should fail"));
        assert!(error.message.contains(expected), "{call}: {error:?}");
        assert_eq!(error.line, 4, "{call}: {error:?}");
    }
}
