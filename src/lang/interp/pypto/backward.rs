//! The autograd backward of a kernel with a registered gradient: calls the user's
//! `def bwd(grad_output, saved, ctx)` and checks what it returned. A wrong return is reported at the
//! backward's own `return` line (in the cell that defined it), not at the call that ran the backward.

use crate::messages::LibraryKernelMessage;
use std::rc::Rc;

use crate::autograd::{AutogradError, Context, CustomBackward, Var};
use crate::lang::interp::error::{ErrorKind, RuntimeError, SourceSpan};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, TensorObject, Value};
use crate::lang::syntax::ast::{Stmt, StmtKind};

/// The backward of kernel `name`: runs `function` (the registered backward) with the incoming
/// gradients, the saved tensors and the context; `site` is the kernel call that made the node.
pub(crate) fn make_backward(
    interpreter: &Interpreter,
    name: String,
    function: Value,
    attributes: Value,
    input_count: usize,
    site: SourceSpan,
) -> CustomBackward {
    let weak = interpreter.me.clone();
    Rc::new(move |grads: &[Var], saved: &[Var], context: &Context| {
        let Some(interpreter) = weak.upgrade() else {
            return Err(AutogradError::CustomOp {
                name: name.clone(),
                detail: crate::messages::AutogradDetail::SessionGone,
            });
        };
        let grad_value = if grads.len() == 1 {
            TensorObject::value(grads[0].clone())
        } else {
            Value::tuple(grads.iter().cloned().map(TensorObject::value).collect())
        };
        let saved_value = Value::tuple(saved.iter().cloned().map(TensorObject::value).collect());
        let context_value =
            Value::object(Object::GradientContext { context: context.clone(), attributes: attributes.clone() });
        interpreter.cells.borrow_mut().push(site.cell);
        let result = interpreter.call_values(&function, vec![grad_value, saved_value, context_value], site.span);
        interpreter.cells.borrow_mut().pop();
        let returned = result.map_err(|error| interpreter.stash(error, &name))?;
        // Mistakes in what the backward returned belong to its `return`, wherever it was defined.
        let at_return = return_location(&function).unwrap_or(site);
        let fail = |kind: ErrorKind, message: LibraryKernelMessage, help: LibraryKernelMessage| {
            let error = RuntimeError::new(kind, "", at_return).with_message(message).with_help_message(help);
            Err(interpreter.stash(error, &name))
        };
        let items = match returned {
            Value::Tuple(_) | Value::List(_) => {
                interpreter.iterate(&returned, site.span).map_err(|error| interpreter.stash(error, &name))?
            }
            single => vec![single],
        };
        if items.len() != input_count {
            return fail(
                ErrorKind::Autograd,
                LibraryKernelMessage::GradientCount {
                    kernel: name.to_string(),
                    count: items.len(),
                    inputs: input_count,
                },
                LibraryKernelMessage::OneGradientEach,
            );
        }
        let mut gradients = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            match item {
                Value::None => gradients.push(None),
                Value::Tensor(object) => {
                    let gradient = object.get();
                    let expected = saved.get(index).map(|input| input.shape().to_vec());
                    if let Some(expected) = expected.filter(|shape| shape.as_slice() != gradient.shape()) {
                        return fail(
                            ErrorKind::Autograd,
                            LibraryKernelMessage::GradientShape {
                                kernel: name.to_string(),
                                shape: gradient.shape().to_vec(),
                                index,
                                expected,
                            },
                            LibraryKernelMessage::ReduceBroadcast,
                        );
                    }
                    gradients.push(Some(gradient));
                }
                other => {
                    return fail(
                        ErrorKind::Type,
                        LibraryKernelMessage::GradientType {
                            kernel: name.to_string(),
                            got: other.type_name().to_string(),
                        },
                        LibraryKernelMessage::ReturnTensorOrNone,
                    )
                }
            }
        }
        Ok(gradients)
    })
}

/// Where a user function returns: its last `return` statement (searched through nested blocks),
/// in the cell that defined it; `None` for a builtin or a function without `return`.
fn return_location(function: &Value) -> Option<SourceSpan> {
    let Value::Function(function) = function else { return None };
    last_return(&function.definition.body).map(|span| SourceSpan { cell: function.cell, span })
}

fn last_return(body: &[Stmt]) -> Option<crate::lang::syntax::Span> {
    body.iter().rev().find_map(|statement| match &statement.kind {
        StmtKind::Return(_) => Some(statement.span),
        StmtKind::If { body, orelse, .. } => last_return(orelse).or_else(|| last_return(body)),
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => last_return(body),
        _ => None,
    })
}
