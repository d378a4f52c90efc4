//! `class Model(torch.nn.Module)` as pypto tests write it: weights as attributes set after
//! `super().__init__()`, `forward` run by calling the model, the model wrapping a jit kernel call
//! or computing the golden, `parameters()` for the weights. Expected values by hand in comments.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// A golden model and a kernel model on the same input: x = 1 everywhere, weight w = 0.5
/// everywhere, bias 2. Golden: x @ w is 64 · 0.5 = 32 per element, plus 2 = 34; over 16 · 32
/// outputs the sum is 17408. The kernel model computes the same on the simulated NPU.
#[test]
fn a_model_wraps_the_golden_and_the_kernel() {
    let mut session = Session::new();
    let code = r#"
import pypto
import torch


@pypto.frontend.jit
def linear_kernel(x: pypto.Tensor([16, 64], pypto.DT_FP32), w: pypto.Tensor([64, 32], pypto.DT_FP32),
                  out: pypto.Tensor([16, 32], pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([16, 16], [64, 64], [32, 32])
    pypto.set_vec_tile_shapes(16, 32)
    out[:] = pypto.matmul(x, w) + 2.0


class Golden(torch.nn.Module):
    def __init__(self, weight, bias):
        super().__init__()
        self.weight = torch.nn.Parameter(weight)
        self.bias = bias

    def forward(self, x):
        return torch.matmul(x, self.weight) + self.bias


class KernelModel(torch.nn.Module):
    def __init__(self, weight):
        super(KernelModel, self).__init__()
        self.weight = weight

    def forward(self, x):
        out = torch.zeros(16, 32)
        linear_kernel(x, self.weight, out)
        return out


x = torch.ones(16, 64)
w = torch.full((64, 32), 0.5)
golden = Golden(w, 2.0).eval()
model = KernelModel(w)
y = model(x)
expected = golden(x)
torch.testing.assert_close(y, expected)
print(y.sum().item(), expected.sum().item(), isinstance(model, torch.nn.Module))
print(len(golden.parameters()), len(model.parameters()), golden.parameters()[0].requires_grad)
"#;
    assert_eq!(run_ok(&mut session, code), "17408.0 17408.0 True\n1 0 True\n");
}

/// A model without `__init__` (as pypto's aclgraph example writes it) and one holding another:
/// `parameters()` walks submodules, each weight once. A model without `forward` says what to add.
#[test]
fn submodules_parameters_and_a_missing_forward() {
    let mut session = Session::new();
    let code = r#"
import torch

class Scale(torch.nn.Module):
    def forward(self, x):
        return x * 3.0

class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Parameter(torch.ones(2))
        self.inner = Outer()
        self.again = self.first

class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(3))
        self.frozen = torch.nn.Parameter(torch.zeros(3), requires_grad=False)

print(Scale()(torch.ones(2)).tolist(), [p.shape for p in Stack().parameters()])
"#;
    // Scale: 1 * 3 = 3. Stack: first [2] (once, though set twice), then Outer's w [3]; frozen is not one.
    assert_eq!(run_ok(&mut session, code), "[3.0, 3.0] [(2,), (3,)]\n");
    let code = "Stack()(torch.ones(2))";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert!(error.message.contains("'Stack' object has no attribute 'forward'"), "{}", error.message);
    assert!(error.help.as_deref().unwrap_or("").contains("def forward(self"), "{:?}", error.help);
    assert_eq!(spanned(code, &result), "Stack()(torch.ones(2))");
}
