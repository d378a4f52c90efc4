use crate::session::CellStatus;
use crate::session::Session;

/// Runs `code` in a new session and returns its printed output.
fn printed(code: &str) -> String {
    let result = Session::new().run_cell(code);
    assert_eq!(result.status, CellStatus::Ok, "{:?}", result.diagnostics);
    result.stdout
}

/// Temporaries lend their buffers to the results; variables, views, list items and values saved
/// for backward keep theirs, and every result is the value of the same expression computed
/// without reuse (the reference: each step assigned to a variable, so nothing is a temporary).
#[test]
fn temporaries_lend_their_buffers_and_held_values_keep_theirs() {
    let output = printed(
        r#"
import pypto as pt
x = pt.reshape(pt.sin(pt.arange(0, 4096) * 0.37), [64, 64])
s = pt.sigmoid(x)
fused = pt.cast(x, pt.DT_FP32) * s * (1 + x * (1 - s)) / (2 - s) - 0.5
a = pt.cast(x, pt.DT_FP32)
b = a * s
c = 1 - s
d = x * c
e = 1 + d
f = b * e
g = 2 - s
h = f / g
reference = h - 0.5
print(fused.tolist() == reference.tolist())
view = pt.reshape(x, [4096])
items = [x * 1.0]
y = pt.reshape(items[0] + 0, [4096])
before = x.tolist()
z = (view * 2.0) + (pt.reshape(items[0], [4096]) * 3.0)
print(x.tolist() == before, items[0].tolist() == x.tolist())
w = pt.as_tensor(x.tolist(), requires_grad=True)
loss = ((w * 2.0) * (w + 1.0)).sum()
loss.backward()
pt.assert_allclose(w.grad, w.detach() * 4.0 + 2.0, rtol=1e-6, atol=1e-6)
print(True)
"#,
    );
    assert_eq!(output, "True\nTrue True\nTrue\n");
}

/// The address of a tensor value's f32 data.
fn data_address(value: &crate::lang::interp::value::Value) -> usize {
    match value {
        crate::lang::interp::value::Value::Tensor(object) => object.get().tensor().f32_data_address(),
        _ => panic!("not a tensor"),
    }
}

/// A temporary operand's buffer holds the result; an operand another value holds keeps its own.
#[test]
fn the_result_of_a_temporary_is_written_into_its_buffer() {
    use crate::autograd::Var;
    use crate::lang::interp::value::{TensorObject, Value};
    use crate::lang::interp::{Interpreter, Limits};
    use crate::lang::syntax::ast::BinaryOp;
    use crate::lang::syntax::Span;
    use crate::tensor::{DType, Tensor};
    let interpreter = Interpreter::new(Limits::default());
    let make = || TensorObject::value(Var::constant(Tensor::from_f32(vec![1.5; 4096], &[64, 64], DType::F32).unwrap()));
    let span = Span { start: 0, end: 0 };
    let temporary = make();
    let address = data_address(&temporary);
    let result = interpreter.binary_owned(BinaryOp::Multiply, temporary, Value::Float(2.0), span).unwrap();
    assert_eq!(data_address(&result), address);
    let held = make();
    let address = data_address(&held);
    let result = interpreter.binary_owned(BinaryOp::Subtract, Value::Float(1.0), held.clone(), span).unwrap();
    assert_ne!(data_address(&result), address);
    let Value::Tensor(object) = &held else { unreachable!() };
    assert!(object.get().tensor().to_f32_vec().iter().all(|&x| x == 1.5), "the held operand is unchanged");
}
