//! torch's tensor methods that goldens call (`.to .float .half .bfloat16 .cpu .numpy .size .view
//! .unsqueeze .permute .abs .max …`) and the attributes `.mT` and `.device`. They apply to every
//! tensor (pypto's and torch's are the same objects); pypto's own methods are looked up first.

use std::rc::Rc;

use super::ops::{extreme, permutation, squeezed_shape};
use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{
    AutogradMessage, Kind, LibraryMessage, LibraryTensorMessage, LibraryTorchMessage, RuntimeMessage,
};
use crate::tensor::{BinaryOp, DType, SoftmaxOp, UnaryOp};

/// The torch methods of a tensor.
const METHODS: [&str; 45] = [
    "requires_grad_",
    "copy_",
    "fill_",
    "zero_",
    "to",
    "astype",
    "float",
    "half",
    "bfloat16",
    "double",
    "bool",
    "int",
    "long",
    "cpu",
    "npu",
    "cuda",
    "numpy",
    "contiguous",
    "is_contiguous",
    "size",
    "dim",
    "view",
    "unsqueeze",
    "squeeze",
    "permute",
    "t",
    "abs",
    "neg",
    "sqrt",
    "rsqrt",
    "sigmoid",
    "relu",
    "tanh",
    "log",
    "reciprocal",
    "max",
    "min",
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "matmul",
    "softmax",
    "flatten",
];

/// `tensor.name` for the torch attributes and methods (after pypto's own).
pub(crate) fn attribute(interpreter: &Interpreter, object: &Rc<TensorObject>, name: &str, span: Span) -> Result<Value> {
    match name {
        "mT" => {
            let var = object.get();
            if var.shape().len() < 2 {
                let message = LibraryTensorMessage::NeedsDims { function: "tensor.mT".into(), count: 2 };
                return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
            }
            interpreter.tensor_result(var.transpose(-2, -1), span)
        }
        "device" => Ok(super::device::of_tensor(object)),
        _ if is_torch_method(name) || is_pypto_function(name) || super::method_forms::is_method(name) => {
            Ok(Value::Method(Rc::new((Value::Tensor(object.clone()), name.to_string()))))
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(RuntimeMessage::NoAttribute { type_name: "Tensor".into(), name: name.to_string() })),
    }
}

/// Whether `name` is one of torch's tensor methods of this file or the goldens'.
pub(crate) fn is_torch_method(name: &str) -> bool {
    METHODS.contains(&name) || super::golden_functions::METHODS.contains(&name)
}

/// Whether `pypto.<name>` is a function: pypto's Tensor has it as a method too (`x.fillpad(…)`).
pub(crate) fn is_pypto_function(name: &str) -> bool {
    crate::lang::interp::api_table::lookup(&format!("pypto.{name}"))
        .is_some_and(|entry| entry.kind == crate::lang::interp::api_table::ApiKind::Function)
}

/// `x.var(dim=None, unbiased=True, keepdim=False, correction=None)`, torch's form (pypto's
/// `x.var(dim, keepdim)` is the population variance).
pub(crate) fn variance(interpreter: &Interpreter, var: &Var, arguments: Arguments, span: Span) -> Result<Value> {
    let names = ["dim", "unbiased", "keepdim", "correction"];
    let bound = interpreter.bind("Tensor.var", &names, arguments, false, span)?;
    super::ops::variance(interpreter, var, &bound, [0, 1, 2, 3], span)
}

/// Calls the torch method `name` of `object`.
pub(crate) fn call(
    interpreter: &Interpreter,
    object: &Rc<TensorObject>,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let full = format!("Tensor.{name}");
    if interpreter.in_kernel() {
        let error = super::host_only(interpreter, &format!("tensor.{name}()"), name, span);
        return Err(match name {
            "to" | "float" | "half" | "bfloat16" | "double" => error.with_help_message(LibraryMessage::UseInKernel {
                function: "pypto.cast(x, pypto.DT_FP32) (or DT_FP16, DT_BF16)".into(),
            }),
            _ => error,
        });
    }
    let var = object.get();
    let wrap = |result: crate::autograd::Result<Var>| interpreter.tensor_result(result, span);
    let same = || Value::Tensor(object.clone());
    match name {
        "float" | "half" | "bfloat16" | "double" | "bool" | "int" | "long" | "cpu" | "npu" | "cuda" | "numpy"
        | "contiguous" | "is_contiguous" | "dim" | "t" | "abs" | "neg" | "sqrt" | "rsqrt" | "sigmoid" | "relu"
        | "tanh" | "log" | "reciprocal" => {
            interpreter.bind(&full, &[], arguments, false, span)?;
            let cast = |dtype: DType| if var.dtype() == dtype { Ok(same()) } else { wrap(var.cast(dtype)) };
            match name {
                "float" => cast(DType::F32),
                "half" => cast(DType::F16),
                "bfloat16" => cast(DType::Bf16),
                "double" => cast(DType::F64),
                "bool" => cast(DType::Bool),
                "int" => cast(DType::I32),
                "long" => cast(DType::I64),
                // One memory here: the array view and the contiguous copy are the tensor; a move
                // to another device is a tensor of the same values that reports that device.
                "cpu" | "npu" | "cuda" => {
                    let device = super::device::named(&Value::string(name)).unwrap_or(super::device::Device::CPU);
                    Ok(super::device::moved(object, device))
                }
                "numpy" | "contiguous" => Ok(same()),
                "is_contiguous" => Ok(Value::Bool(true)),
                "dim" => Ok(Value::Int(var.shape().len() as i64)),
                "t" if var.shape().len() < 2 => Ok(same()),
                "t" => wrap(var.transpose(0, 1)),
                _ => match UnaryOp::from_name(name) {
                    Some(op) => wrap(var.unary(op)),
                    None => Err(no_method(interpreter, name, span)),
                },
            }
        }
        "to" => {
            let (positional, bound) = interpreter.bind_keywords(&full, &["dtype", "device"], arguments, span)?;
            let mut dtype = bound
                .optional(0)
                .map(|value| super::dtype_argument(interpreter, &full, Some(value), var.dtype(), span))
                .transpose()?;
            let mut device = match bound.optional(1) {
                Some(Value::None) | None => None,
                Some(value) => Some(super::device::argument(interpreter, &full, value, bound.span_of(1))?),
            };
            for (value, value_span) in &positional {
                match value {
                    Value::DType(given, _) => dtype = Some(*given),
                    Value::Tensor(other) => {
                        dtype = Some(other.get().dtype());
                        device = Some(other.device.get().unwrap_or(super::device::Device::CPU));
                    }
                    Value::Str(_) => device = Some(super::device::argument(interpreter, &full, value, *value_span)?),
                    Value::Object(_) | Value::Int(_) if super::device::named(value).is_some() => {
                        device = super::device::named(value)
                    }
                    Value::None => {}
                    other => {
                        let message = LibraryMessage::Expected {
                            function: format!("{full}()"),
                            expected: Kind::DtypeDeviceOrTensor,
                            got: other.type_name().to_string(),
                        };
                        return Err(interpreter.error(ErrorKind::Type, "", *value_span).with_message(message));
                    }
                }
            }
            let placed = match device {
                Some(device) => super::device::moved(object, device),
                None => same(),
            };
            match dtype {
                Some(dtype) if dtype != var.dtype() => {
                    let cast = wrap(var.cast(dtype))?;
                    if let Value::Tensor(moved) = &placed {
                        moved.pass_torch_to(&cast);
                    }
                    Ok(cast)
                }
                _ => Ok(placed),
            }
        }
        // numpy's `array.astype(np.float32)` (an array is a tensor): always a copy, as numpy's default.
        "astype" => {
            let bound = interpreter.bind(&full, &["dtype"], arguments, false, span)?;
            let dtype = super::dtype_argument(interpreter, &full, Some(bound.required(0)?), var.dtype(), span)?;
            let converted = if dtype == var.dtype() { Ok(var.clone()) } else { var.cast(dtype) };
            let converted = converted.map(|var| Var::constant(var.tensor().deep_copy()));
            wrap(converted)
        }
        "size" => {
            let bound = interpreter.bind(&full, &["dim"], arguments, false, span)?;
            let shape = var.shape();
            match bound.optional(0) {
                // A `torch.Size`: a tuple.
                None => Ok(Value::tuple(shape.iter().map(|&size| Value::Int(size as i64)).collect())),
                Some(_) => {
                    let dim = bound.int(0, None)?;
                    let rank = shape.len() as i64;
                    let axis = if dim < 0 { dim + rank } else { dim };
                    match shape.get(axis.max(0) as usize).filter(|_| axis >= 0) {
                        Some(&size) => Ok(Value::Int(size as i64)),
                        None => {
                            let message = AutogradMessage::DimOutOfRange {
                                op: "size".into(),
                                dim,
                                rank: rank as usize,
                                low: -rank,
                                high: rank - 1,
                            };
                            Err(interpreter.error(ErrorKind::Index, "", bound.span_of(0)).with_message(message))
                        }
                    }
                }
            }
        }
        // `view(dtype)` reads the bytes as another dtype (a copy here, not shared memory).
        "view"
            if matches!(arguments.positional.as_slice(), [(Value::DType(..), _)])
                || arguments.keywords.iter().any(|(key, _, _)| key == "dtype") =>
        {
            let bound = interpreter.bind(&full, &["dtype"], arguments, false, span)?;
            let dtype = bound.dtype(0, var.dtype())?;
            match var.tensor().bitcast(dtype) {
                Some(tensor) => wrap(Ok(Var::constant(tensor))),
                None => {
                    let message = LibraryTorchMessage::ViewDtypeSize {
                        from: var.dtype().pypto_name().into(),
                        to: dtype.pypto_name().into(),
                        shape: var.shape().to_vec(),
                    };
                    Err(interpreter.error(ErrorKind::Value, "", bound.span_of(0)).with_message(message))
                }
            }
        }
        "view" | "permute" => {
            let (positional, _) = interpreter.bind_keywords(&full, &[], arguments, span)?;
            let dims = match positional.as_slice() {
                [(value @ (Value::List(_) | Value::Tuple(_)), _)] => value.clone(),
                items => Value::tuple(items.iter().map(|(value, _)| value.clone()).collect()),
            };
            if name == "view" {
                let shape = interpreter.resolve_shape(&var, &dims, span)?;
                wrap(var.reshape(&shape))
            } else {
                let order = permutation(interpreter, &var, &dims, span)?;
                wrap(var.permute(&order))
            }
        }
        "unsqueeze" | "squeeze" => {
            let bound = interpreter.bind(&full, &["dim"], arguments, false, span)?;
            let dim = bound.optional(0).map(|_| bound.int(0, None)).transpose()?;
            let shape = squeezed_shape(interpreter, name, var.shape(), dim, bound.span_of(0))?;
            wrap(var.reshape(&shape))
        }
        // In place through the assignment `x[...] = value` (broadcast, rounded to x's dtype; a leaf
        // that requires grad refuses it as torch does).
        "copy_" | "fill_" | "zero_" => {
            let names: &[&str] = match name {
                "copy_" => &["src", "non_blocking"],
                "fill_" => &["value"],
                _ => &[],
            };
            let bound = interpreter.bind(&full, names, arguments, false, span)?;
            let value = match name {
                "copy_" => {
                    bound.tensor(0)?;
                    bound.required(0)?.clone()
                }
                "fill_" => Value::Float(bound.float(0, None)?),
                _ => Value::Float(0.0),
            };
            interpreter.set_item(&same(), &Value::Ellipsis, value, span)?;
            Ok(same())
        }
        "requires_grad_" => {
            let bound = interpreter.bind(&full, &["requires_grad"], arguments, false, span)?;
            let flag = bound.flag(0, true)?;
            if flag != var.requires_grad() {
                if !var.is_leaf() {
                    let message = LibraryTensorMessage::RequiresGradOfNonLeaf;
                    return Err(interpreter.error(ErrorKind::Autograd, "", span).with_message(message));
                }
                let leaf = Var::try_new(var.tensor().clone(), flag)
                    .map_err(|error| interpreter.autograd_error(error, span))?;
                *object.var.borrow_mut() = leaf;
            }
            Ok(same())
        }
        // `x.max(dim=1, keepdim=True)` (or `x.max(1)`) is `torch.max(x, dim, keepdim)`: values and indices.
        "max" | "min"
            if arguments.keywords.iter().any(|(key, _, _)| key == "dim" || key == "keepdim")
                || matches!(arguments.positional.first(), Some((Value::Int(_), _))) =>
        {
            let mut positional = vec![(same(), span)];
            positional.extend(arguments.positional);
            super::call(
                interpreter,
                &format!("torch.{name}"),
                Arguments { positional, keywords: arguments.keywords },
                span,
            )
        }
        "max" | "min" => {
            let bound = interpreter.bind(&full, &["other"], arguments, false, span)?;
            extreme(interpreter, name, &var, bound.optional(0), bound.span_of(0), span)
        }
        "add" | "sub" | "mul" | "div" | "pow" => {
            let bound = interpreter.bind(&full, &["other"], arguments, false, span)?;
            let other = interpreter.operand(bound.required(0)?, var.dtype(), bound.span_of(0))?;
            match BinaryOp::from_name(name) {
                Some(op) => wrap(var.binary(op, &other)),
                None => Err(no_method(interpreter, name, span)),
            }
        }
        "matmul" => {
            let bound = interpreter.bind(&full, &["other"], arguments, false, span)?;
            let other = bound.required(0)?.clone();
            interpreter.charge_matmul(&same(), &other, false, span)?;
            wrap(super::ops::vector_matmul(&var, &bound.tensor(0)?))
        }
        "flatten" => {
            let bound = interpreter.bind(&full, &["start_dim", "end_dim"], arguments, false, span)?;
            let rank = var.shape().len() as i64;
            let axis = |value: i64| if value < 0 { value + rank } else { value };
            let (start, end) = (axis(bound.int(0, Some(0))?), axis(bound.int(1, Some(-1))?));
            if rank == 0 {
                return wrap(var.reshape(&[1]));
            }
            if !(0..rank).contains(&start) || !(start..rank).contains(&end) {
                let message = LibraryTensorMessage::FlattenRange { start, end, rank: rank as usize };
                return Err(interpreter.error(ErrorKind::Index, "", span).with_message(message));
            }
            let shape = var.shape();
            let mut flat: Vec<usize> = shape[..start as usize].to_vec();
            flat.push(shape[start as usize..=end as usize].iter().product());
            flat.extend_from_slice(&shape[end as usize + 1..]);
            wrap(var.reshape(&flat))
        }
        "softmax" => {
            let bound = interpreter.bind(&full, &["dim"], arguments, false, span)?;
            wrap(var.softmax_like(SoftmaxOp::Softmax, bound.int(0, Some(-1))? as isize))
        }
        _ if super::golden_functions::METHODS.contains(&name) => {
            super::golden_functions::method(interpreter, object, name, arguments, span)
        }
        _ if super::method_forms::is_method(name) => {
            super::method_forms::call(interpreter, object, name, arguments, span)
        }
        other => Err(no_method(interpreter, other, span)),
    }
}

fn no_method(interpreter: &Interpreter, name: &str, span: Span) -> crate::lang::interp::error::RuntimeError {
    let message = LibraryMessage::NoMethod { type_name: "Tensor".into(), name: name.to_string() };
    interpreter.error(ErrorKind::Attribute, "", span).with_message(message)
}
