//! `pypto.experimental` ops: `transposed_batchmatmul` (the configuration call
//! `set_operation_options` is in `config`).

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::LibraryTensorMessage;

/// `pypto.experimental.transposed_batchmatmul(tensor_a, tensor_b, out_dtype)`: `a` is `[M, B, K]`,
/// `b` is `[B, K, N]`; the result is `[M, B, N]`, each batch `b` the matmul `a[:, b, :] @ b[b]` in
/// `out_dtype` (pypto's batch matmul over the transposed `a`, transposed back).
pub(crate) fn transposed_batchmatmul(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let full = "pypto.experimental.transposed_batchmatmul";
    let bound = interpreter.bind(full, &["tensor_a", "tensor_b", "out_dtype"], arguments, false, span)?;
    let (a, b) = (bound.tensor(0)?, bound.tensor(1)?);
    bound.required(2)?;
    let out_dtype = bound.dtype(2, a.dtype())?;
    let (a_shape, b_shape) = (a.shape().to_vec(), b.shape().to_vec());
    let fits = a_shape.len() == 3 && b_shape.len() == 3 && a_shape[1] == b_shape[0] && a_shape[2] == b_shape[1];
    if !fits {
        let message =
            LibraryTensorMessage::BatchMatmulShapes { function: full.to_string(), lhs: a_shape, rhs: b_shape };
        return Err(interpreter
            .error(ErrorKind::Tensor, "", span)
            .with_message(message)
            .with_help_message(LibraryTensorMessage::BatchMatmulForm));
    }
    let product = a
        .transpose(0, 1)
        .and_then(|batched| batched.matmul(&b, false, false, Some(out_dtype)))
        .and_then(|result| result.transpose(0, 1));
    interpreter.tensor_result(product, span)
}
