//! pypto's operation tests as they are written: a `with pypto.function(name, a, b):` block over
//! `pypto.tensor` placeholders, torch data wrapped by `pypto.from_torch`, and
//! `pypto.runtime._device_run_once_data_from_host` running the recorded block on that data (our
//! own kernels and numbers; references computed on the host from the same torch tensors).

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

/// 2ˣ of x in [−2, 2) as exp(x · ln 2) through the recorded block: the outputs land in the torch
/// tensor passed in (8 · 16 = 128 elements, none 0); against the host's `pow(2, x)` the error is
/// the f32 roundings of the product and of exp, about 2 ulp of values ≤ 4: below 2e-6.
#[test]
fn the_recorded_function_runs_again_on_the_data_given() {
    let mut session = Session::new();
    let code = r#"
import numpy as np
import pypto
import torch

n, m = 8, 16
a = pypto.tensor((n, m), pypto.DT_FP32, "a")
b = pypto.tensor((n, m), pypto.DT_FP32, "b")
pypto.runtime._device_init()
with pypto.function("EXP", a, b):
    for row in pypto.loop(int(np.ceil(n / 4)), name="rows", idx_name="row"):
        tile = pypto.view(a, [4, m], [row * 4, 0])
        pypto.set_vec_tile_shapes(4, m)
        result = pypto.tensor()
        result.move(pypto.exp(tile * 0.6931471805599453))
        pypto.assemble(result, [row * 4, 0], b)
x = torch.rand(n, m, dtype=torch.float32) * 4 - 2
y = torch.zeros(n, m, dtype=torch.float32)
pypto.runtime._device_run_once_data_from_host(pypto.from_torch(x, "x"), pypto.from_torch(y, "y"))
pypto.runtime._device_synchronize()
pypto.runtime._device_fini()
print(int((y != 0).sum().item()))
print(float((y - torch.pow(2.0, x)).abs().max().item()) < 2e-6)
print(isinstance(y, torch.Tensor), isinstance(a, pypto.tensor))
"#;
    let stdout = run_ok(&mut session, code);
    assert_eq!(stdout.lines().collect::<Vec<_>>(), ["128", "True", "True True"], "{stdout}");
}

#[test]
fn running_with_no_recorded_function_says_how_to_record_one() {
    let result = run_err(
        &mut Session::new(),
        "import pypto, torch\npypto.runtime._device_run_once_data_from_host(pypto.from_torch(torch.zeros(2)))",
    );
    let error = result.error().unwrap();
    assert!(format!("{:?}", error.message_code).contains("NoRecordedFunction"), "{error:?}");
    assert!(error.help.as_deref().unwrap_or("").contains("with pypto.function("), "{error:?}");
}

/// A 0-d integer tensor indexes as its value (torch goldens write `result[index[i, j], j] = v`).
#[test]
fn a_zero_dimensional_integer_tensor_indexes_as_its_value() {
    let stdout = run_ok(
        &mut Session::new(),
        "import torch\nindex = torch.tensor([[2, 0]], dtype=torch.int64)\nresult = torch.zeros(3, 2)\n\
         for j in range(2):\n    result[index[0, j], j] = 5.0\nprint(result.tolist())",
    );
    assert_eq!(stdout.trim(), "[[0.0, 5.0], [0.0, 0.0], [5.0, 0.0]]");
}

/// `tile.move(pypto.exp2(tile))` on a view makes the tile the result (pypto's operation tests write
/// it so): the viewed input keeps its values, the output gets 2ˣ, and the kernel runs on the NPU.
#[test]
fn moving_into_a_view_rebinds_the_tile_and_leaves_the_input() {
    let mut session = Session::new();
    let code = r#"
import pypto
import torch

@pypto.frontend.jit
def twice(a, b):
    for row in pypto.loop(2):
        tile = pypto.view(a, [4, 16], [row * 4, 0])
        pypto.set_vec_tile_shapes(4, 16)
        tile.move(pypto.exp2(tile))
        pypto.assemble(tile, [row * 4, 0], b)

a = torch.full((8, 16), 3.0)
b = torch.zeros(8, 16)
twice(a, b)
print(a[7, 15].item(), b[7, 15].item(), b[0, 0].item())
"#;
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{:?}", result.error());
    assert!(
        result.diagnostics.iter().all(|diagnostic| diagnostic.code != "npu/cpu-fallback"),
        "{:?}",
        result.diagnostics
    );
    assert_eq!(result.stdout.trim(), "3.0 8.0 8.0");
}
