//! The numpy of pypto examples' golden checks: a kernel's output compared with a torch reference
//! through `np.abs(…).max()` and `numpy.testing.assert_allclose`, as the examples write it (our
//! own kernel and numbers). Expected values are computed by hand in the comments.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// sigmoid(0) = 0.5 everywhere: the kernel and the torch golden agree to the last bit, so the
/// largest difference is 0.0 (a one-element tensor formats as its number, as torch's 0-d tensors
/// do) and every check passes.
#[test]
fn a_kernel_checked_against_a_torch_golden_through_numpy() {
    let mut session = Session::new();
    let code = r#"
import numpy as np
from numpy.testing import assert_allclose
import pypto
import torch


@pypto.frontend.jit
def sigmoid_kernel(x: pypto.Tensor([32, 64], pypto.DT_FP32), y: pypto.Tensor([32, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(32, 64)
    y[:] = pypto.sigmoid(x)


x = torch.zeros(32, 64, dtype=torch.float32)
y = torch.empty(32, 64, dtype=torch.float32)
sigmoid_kernel(pypto.from_torch(x), pypto.from_torch(y))
golden = torch.sigmoid(x)
max_diff = np.abs(y.cpu().numpy() - golden.cpu().numpy()).max()
print(f"max diff: {max_diff:.6f}")
assert_allclose(np.array(y.cpu()), np.array(golden.cpu()), rtol=3e-3, atol=3e-3)
np.testing.assert_allclose(y.numpy(), golden.numpy())
print(np.allclose(y, golden), np.array(y).dtype == np.float32, np.abs(-2), np.abs(-1.5))
"#;
    assert_eq!(run_ok(&mut session, code), "max diff: 0.000000\nTrue True 2 1.5\n");
}

/// numpy's rules: lists become float64, `np.array` copies (writing it leaves the source) while
/// `asarray` of a tensor of the same dtype is the same array. assert_allclose's defaults are
/// rtol 1e-7, atol 0: 1.0 vs 1.0000001 differ by about 1.0000000006e-7, under 1e-7 · 1.0000001,
/// so it passes; 1.0 vs 1.000001 differ by 1e-6 and fail, after err_msg.
#[test]
fn numpy_defaults_copies_and_failures() {
    let mut session = Session::new();
    let code = r#"
import numpy as np
import pypto
data = np.array([[1.0, 2.0], [3.0, 4.0]])
t = pypto.ones([2, 2])
copy = np.array(t)
same = np.asarray(t)
copy[0, 0] = 5.0
print(data.dtype == np.float64, t[0, 0].item(), same is t, np.asarray(t, dtype=np.float16).dtype == np.float16)
np.testing.assert_allclose(np.array([1.0]), np.array([1.0000001]))
"#;
    assert_eq!(run_ok(&mut session, code), "True 1.0 True True\n");
    let code = "np.testing.assert_allclose(np.array([1.0]), np.array([1.000001]), err_msg='row 0')";
    let result = run_err(&mut session, code);
    let message = &result.error().unwrap().message;
    assert!(message.starts_with("row 0\n"), "{message}");
    let code = "np.linalg.norm(data)";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert!(error.message.contains("module 'numpy' has no attribute 'linalg'"), "{}", error.message);
    assert!(error.help.as_deref().unwrap_or("").contains("torch module"), "{:?}", error.help);
    assert_eq!(spanned(code, &result), "linalg");
}
