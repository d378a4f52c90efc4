//! `pypto.operation` (the module pypto defines its view, reshape and assemble functions in) and
//! `op_wrapper`, which model files import from it to decorate their own wrappers over
//! `pypto.pypto_impl`'s scalar ops (`ScalarDivS(x, Element(dtype, v), reverse_operand)`).

use tilelab::session::{CellResult, Session};

use super::cell_output::{run, stdout};

fn no_fallback(result: &CellResult) {
    let codes: Vec<&str> = result.diagnostics.iter().map(|diagnostic| diagnostic.code.as_str()).collect();
    assert!(!codes.contains(&"npu/cpu-fallback"), "ran on the CPU: {:?}", result.diagnostics);
}

/// The decorator of the model files, over reversed and plain scalar divisions: 1 / [2, 4, -8] is
/// [0.5, 0.25, -0.125]; [2, 4, -8] / 4 is [0.5, 1, -2].
#[test]
fn op_wrapper_returns_the_function_and_scalar_divs_divide_either_way() {
    let mut session = Session::new();
    let code = r#"
import pypto
from pypto import pypto_impl
from pypto.operation import op_wrapper

@op_wrapper
def scalar_div(tensor, other, is_reserve=False):
    return pypto_impl.ScalarDivS(tensor, pypto_impl.Element(tensor.dtype, other), is_reserve)

x = pypto.as_tensor([2.0, 4.0, -8.0])
print(scalar_div(x, 1.0, True).tolist(), scalar_div(x, 4.0).tolist())
print(pypto_impl.ScalarSubS(x, 1.0, True).tolist(), pypto_impl.ScalarMaxS(x, 3.0).tolist())
print(pypto_impl.Element(pypto.DT_INT32, 7.9), scalar_div.__name__)
"#;
    assert_eq!(
        stdout(&mut session, code),
        "[0.5, 0.25, -0.125] [0.5, 1.0, -2.0]\n[-1.0, -3.0, 9.0] [3.0, 4.0, 3.0]\n7 scalar_div"
    );
}

/// In a jit kernel the wrapped op runs on the simulated NPU: 127 / max|row| per row, as the models'
/// quantisation computes it (rows [1 … 32] and [-64, …]: 127 / 32 and 127 / 64).
#[test]
fn a_wrapped_scalar_op_runs_in_a_kernel() {
    let mut session = Session::new();
    let code = r#"
import pypto
from pypto import pypto_impl
from pypto.operation import op_wrapper

@op_wrapper
def scalar_div(tensor, other, is_reserve=False):
    return pypto_impl.ScalarDivS(tensor, pypto_impl.Element(tensor.dtype, other), is_reserve)

@pypto.frontend.jit
def scale(x, out):
    pypto.set_vec_tile_shapes(2, 32)
    out[:] = scalar_div(pypto.amax(pypto.abs(x), -1, keepdim=True), 127.0, True)

x = pypto.arange(1, 65).reshape([2, 32])
x[1, 0] = -64.0
out = pypto.tensor([2, 1])
scale(x, out)
print(out.tolist())
"#;
    let result = run(&mut session, code);
    no_fallback(&result);
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout.trim(), format!("[[{}], [{}]]", 127.0f32 / 32.0, 127.0f32 / 64.0));
}

/// The module's other names are pypto's own functions: `operation.view` is `pypto.view`.
#[test]
fn operation_names_are_the_pypto_functions() {
    let mut session = Session::new();
    let code = r#"
import pypto
import pypto.operation as operation
from pypto.operation import view, reshape, DataType
x = pypto.arange(6).reshape([2, 3])
print(operation.view is pypto.view, view(x, [1, 2], [1, 1]).tolist(), reshape(x, [3, 2]).shape)
print(DataType.DT_FP16 == pypto.DT_FP16, operation.max(2, 5))
"#;
    assert_eq!(stdout(&mut session, code), "True [[4, 5]] [3, 2]\nTrue 5");
}

/// A name the module does not have says so, with the closest one.
#[test]
fn a_misspelt_operation_name_suggests_the_right_one() {
    let mut session = Session::new();
    let result = session.run_cell("from pypto.operation import op_wraper");
    let error = result.error().expect("an error");
    assert!(error.message.contains("op_wraper"), "{}", error.message);
    assert!(error.help.as_deref().unwrap_or("").contains("pypto.operation.op_wrapper"), "{:?}", error.help);
}
