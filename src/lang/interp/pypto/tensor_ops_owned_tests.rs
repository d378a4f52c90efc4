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

/// A `pypto` (or `torch`) element-wise function of a temporary writes into its buffer; of a variable, a list
/// item or a value that requires grad, into a new one, and the held value is unchanged. Every
/// result is the value computed step by step through variables (nothing a temporary).
#[test]
fn a_unary_function_of_a_temporary_takes_its_buffer() {
    let output = printed(
        r#"
import pypto as pt
x = pt.arange(0, 4096) * 0.37
before = x.tolist()
fused = pt.exp(pt.sin(x * 1.0) * 0.5)
a = x * 1.0
b = pt.sin(a)
c = b * 0.5
reference = pt.exp(c)
print(fused.tolist() == reference.tolist(), x.tolist() == before, a.tolist() == before)
items = [x * 1.0]
s = pt.sigmoid(items[0])
print(items[0].tolist() == before, s.tolist() == pt.sigmoid(x).tolist())
w = pt.as_tensor(before, requires_grad=True)
pt.sin(w * 1.0).sum().backward()
pt.assert_allclose(w.grad, pt.cos(w.detach()), rtol=1e-6, atol=1e-6)
print(w.detach().tolist() == before)
"#,
    );
    assert_eq!(output, "True True True\nTrue True\nTrue\n");
    use crate::lang::interp::eval::Arguments;
    use crate::lang::interp::value::Value;
    use crate::lang::interp::{Interpreter, Limits};
    use crate::lang::syntax::Span;
    let interpreter = Interpreter::new(Limits::default());
    let span = Span { start: 0, end: 0 };
    let make = || {
        let tensor = crate::tensor::Tensor::from_f32(vec![0.25; 4096], &[64, 64], crate::tensor::DType::F32).unwrap();
        crate::lang::interp::value::TensorObject::value(crate::autograd::Var::constant(tensor))
    };
    // `pypto.sin` and `torch.sin` alike.
    for torch in [false, true] {
        let call = |argument: Value| {
            let arguments = Arguments { positional: vec![(argument, span)], keywords: Vec::new() };
            let result = if torch {
                crate::lang::interp::torch::ops::call(&interpreter, "sin", arguments, span)
            } else {
                crate::lang::interp::pypto::functions::call(&interpreter, "sin", arguments, span)
            };
            result.unwrap()
        };
        let temporary = make();
        let address = data_address(&temporary);
        assert_eq!(data_address(&call(temporary)), address, "the temporary's buffer holds the result ({torch})");
        let held = make();
        let address = data_address(&held);
        assert_ne!(data_address(&call(held.clone())), address);
        let Value::Tensor(object) = &held else { unreachable!() };
        assert!(object.get().tensor().to_f32_vec().iter().all(|&x| x == 0.25), "the held operand is unchanged");
    }
}
