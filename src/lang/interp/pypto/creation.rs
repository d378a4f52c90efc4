//! Creation: `tensor` (allocates, as in pypto), `as_tensor` (from data), `zeros`, `ones`, `full`, `arange`, `randn`, `rand`, `manual_seed` (and
//! `zeros_like`/`ones_like`), with DESIGN §2's signatures and defaults.

use super::capture::CapturedOp;
use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTensorMessage};
use crate::tensor::{manual_seed, DType, Tensor};

/// Calls the creation function `name`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let tensor_error = |error| interpreter.tensor_error(error, span);
    // The value every element of a `full`-like tensor holds (a kernel folds it into its ops).
    let mut fill = None;
    let (tensor, requires_grad) = match name {
        "tensor" => {
            if let Some((_, _, keyword_span)) = arguments.keywords.iter().find(|(key, _, _)| key == "requires_grad") {
                return Err(interpreter
                    .error(ErrorKind::Type, "", *keyword_span)
                    .with_message(LibraryTensorMessage::TensorNoRequiresGrad)
                    .with_help_message(LibraryTensorMessage::DataWithGradients));
            }
            let bound = interpreter.bind("pypto.tensor", &["shape", "dtype", "name"], arguments, false, span)?;
            // `pypto.tensor()`: an empty placeholder that a later `move` gives its value (pypto's tests
            // write `res = tensor()` then `res.move(pypto.maximum(a, b))`).
            let shape = match bound.optional(0) {
                None => vec![0],
                Some(_) => allocation_shape(interpreter, &bound)?,
            };
            interpreter.check_elements(&shape, span)?;
            // `name` labels the tensor in pypto's IR; a TileLab tensor has no name to give.
            if let Some(name) = bound.optional(2) {
                if !matches!(name, Value::Str(_)) {
                    let message = LibraryMessage::ArgumentType {
                        function: "pypto.tensor".into(),
                        parameter: "name".into(),
                        expected: Kind::Str,
                        got: name.type_name().to_string(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(2)).with_message(message));
                }
            }
            fill = Some(0.0);
            (Tensor::full(&shape, 0.0, bound.dtype(1, DType::F32)?).map_err(tensor_error)?, false)
        }
        "as_tensor" => {
            let bound =
                interpreter.bind("pypto.as_tensor", &["data", "dtype", "requires_grad"], arguments, false, span)?;
            let dtype = bound.dtype(1, DType::F32)?;
            (interpreter.tensor_from_data(bound.required(0)?, dtype, bound.span_of(0))?, bound.flag(2, false)?)
        }
        "zeros" | "ones" => {
            // pypto's `zeros(*size, dtype=None)`: `zeros(4, 8)` is `zeros([4, 8])`.
            let mut arguments = arguments;
            if arguments.positional.len() > 1
                && arguments.positional.iter().all(|(value, _)| matches!(value, Value::Int(_)))
            {
                let first = arguments.positional[0].1;
                let last = arguments.positional[arguments.positional.len() - 1].1;
                let sizes = arguments.positional.drain(..).map(|(value, _)| value).collect();
                arguments.positional.push((Value::list(sizes), first.cover(last)));
            }
            let bound = interpreter.bind(
                &format!("pypto.{name}"),
                &["shape", "dtype", "requires_grad"],
                arguments,
                false,
                span,
            )?;
            let shape = bound.shape(0)?;
            interpreter.check_elements(&shape, span)?;
            let value = if name == "ones" { 1.0 } else { 0.0 };
            fill = Some(value);
            (Tensor::full(&shape, value, bound.dtype(1, DType::F32)?).map_err(tensor_error)?, bound.flag(2, false)?)
        }
        "zeros_like" | "ones_like" => {
            let bound = interpreter.bind(&format!("pypto.{name}"), &["input", "dtype"], arguments, false, span)?;
            let like = bound.tensor(0)?;
            let value = if name == "ones_like" { 1.0 } else { 0.0 };
            fill = Some(value);
            (Tensor::full(like.shape(), value, bound.dtype(1, like.dtype())?).map_err(tensor_error)?, false)
        }
        "full" => {
            let bound = interpreter.bind(
                "pypto.full",
                &["size", "fill_value", "dtype", "valid_shape", "requires_grad"],
                arguments,
                false,
                span,
            )?;
            let shape = bound.shape(0)?;
            interpreter.check_elements(&shape, span)?;
            let value = bound.float(1, None)?;
            fill = Some(value);
            let full = Tensor::full(&shape, value, bound.dtype(2, DType::F32)?).map_err(tensor_error)?;
            let tensor = match bound.optional(3) {
                // A ragged tile: the value inside valid_shape, 0 outside (as a view reads it).
                Some(_) => full.view(&shape, &vec![0; shape.len()], Some(&bound.shape(3)?)).map_err(tensor_error)?,
                None => full,
            };
            (tensor, bound.flag(4, false)?)
        }
        "arange" => {
            let bound = interpreter.bind(
                "pypto.arange",
                &["start", "stop", "step", "dtype", "requires_grad"],
                arguments,
                false,
                span,
            )?;
            let (start, stop, step) = arange_range(interpreter, &bound, "pypto", span)?;
            // pypto's doc: DT_INT32 when start, end and step are all ints, DT_FP32 when one is a float.
            let all_ints = (0..3).all(|index| matches!(bound.optional(index), None | Some(Value::Int(_))));
            let default = if all_ints { DType::I32 } else { DType::F32 };
            (Tensor::arange(start, stop, step, bound.dtype(3, default)?).map_err(tensor_error)?, bound.flag(4, false)?)
        }
        "randn" | "rand" => {
            let bound = interpreter.bind(
                &format!("pypto.{name}"),
                &["shape", "dtype", "requires_grad", "seed"],
                arguments,
                false,
                span,
            )?;
            let shape = bound.shape(0)?;
            interpreter.check_elements(&shape, span)?;
            let dtype = bound.dtype(1, DType::F32)?;
            let seed = match bound.optional(3) {
                None => None,
                Some(_) => Some(bound.int(3, None)? as u64),
            };
            let tensor =
                if name == "randn" { Tensor::randn(&shape, dtype, seed) } else { Tensor::rand(&shape, dtype, seed) };
            (tensor.map_err(tensor_error)?, bound.flag(2, false)?)
        }
        _ => {
            let bound = interpreter.bind("pypto.manual_seed", &["seed"], arguments, false, span)?;
            manual_seed(bound.int(0, None)? as u64);
            return Ok(Value::None);
        }
    };
    let result = Var::try_new(tensor, requires_grad)
        .map(TensorObject::value)
        .map_err(|error| interpreter.autograd_error(error, span))?;
    if let Some(value) = fill {
        interpreter.capture(Some(&result), || CapturedOp::Fill { value });
    } else if name == "arange" {
        interpreter.capture(Some(&result), || CapturedOp::Constant { op: "arange" });
    }
    Ok(result)
}

/// The shape `pypto.tensor(shape, …)` allocates. pypto's `tensor` takes a shape, not data: data
/// (floats, nested lists, a tensor) is a diagnostic that names `as_tensor`.
fn allocation_shape(interpreter: &Interpreter, bound: &crate::lang::interp::call::Bound) -> Result<Vec<usize>> {
    let value = bound.required(0)?;
    let span = bound.span_of(0);
    let items = match value {
        Value::List(_) | Value::Tuple(_) => interpreter.iterate(value, span)?,
        _ => Vec::new(),
    };
    let is_data = match value {
        Value::Float(_) | Value::Tensor(_) => true,
        Value::List(_) | Value::Tuple(_) => {
            items.iter().any(|item| matches!(item, Value::Float(_) | Value::List(_) | Value::Tuple(_)))
        }
        _ => false,
    };
    if is_data {
        let given = match value {
            Value::Tensor(_) => "tensor",
            Value::Float(_) => "float",
            _ => "data",
        };
        return Err(interpreter
            .error(ErrorKind::Type, "", span)
            .with_message(LibraryTensorMessage::TensorFromData { given: given.into() })
            .with_help_message(LibraryTensorMessage::UseAsTensor));
    }
    interpreter.to_shape(value, span, "pypto.tensor")
}

/// The deepest nesting of lists `pypto.as_tensor` accepts (a list that contains itself never ends).
const MAX_RANK: usize = 32;

impl Interpreter {
    /// Checks the element count of a new tensor against the session's limit.
    pub(crate) fn check_elements(&self, shape: &[usize], span: Span) -> Result<()> {
        let limit = self.limits().tensor_elements;
        let count = shape.iter().try_fold(1usize, |acc, &dim| acc.checked_mul(dim));
        match count {
            Some(count) if count <= limit => Ok(()),
            _ => Err(self
                .error(ErrorKind::SizeLimit, "", span)
                .with_message(LibraryTensorMessage::TooManyElements { shape: shape.to_vec(), limit })),
        }
    }

    /// A tensor from nested lists of numbers (rectangular), a number (0-d) or a tensor (copied).
    pub(crate) fn tensor_from_data(&self, data: &Value, dtype: DType, span: Span) -> Result<Tensor> {
        if let Value::Tensor(object) = data {
            return object.get().tensor().cast(dtype).map_err(|error| self.tensor_error(error, span));
        }
        let mut shape = Vec::new();
        let mut probe = data.clone();
        while let Value::List(_) | Value::Tuple(_) = probe {
            if shape.len() >= MAX_RANK {
                let message =
                    LibraryTensorMessage::NestedTooDeep { function: "pypto.as_tensor".into(), levels: MAX_RANK };
                return Err(self.error(ErrorKind::Value, "", span).with_message(message));
            }
            let items = self.iterate(&probe, span)?;
            shape.push(items.len());
            match items.into_iter().next() {
                Some(first) => probe = first,
                None => break,
            }
        }
        self.check_elements(&shape, span)?;
        let mut values = Vec::new();
        self.flatten(data, &shape, 0, &mut values, span)?;
        Tensor::from_f64(values, &shape, dtype).map_err(|error| self.tensor_error(error, span))
    }

    fn flatten(&self, data: &Value, shape: &[usize], depth: usize, values: &mut Vec<f64>, span: Span) -> Result<()> {
        if depth == shape.len() {
            return match data.as_number() {
                Some(number) => {
                    values.push(number);
                    Ok(())
                }
                None => Err(self.error(ErrorKind::Type, "", span).with_message(LibraryMessage::Expected {
                    function: "pypto.as_tensor".into(),
                    expected: Kind::Number,
                    got: data.type_name().to_string(),
                })),
            };
        }
        let items = match data {
            Value::List(_) | Value::Tuple(_) => self.iterate(data, span)?,
            other => {
                let message = LibraryTensorMessage::RaggedItem {
                    function: "pypto.as_tensor".into(),
                    got: other.type_name().to_string(),
                };
                return Err(self.error(ErrorKind::Value, "", span).with_message(message));
            }
        };
        if items.len() != shape[depth] {
            let message = LibraryTensorMessage::RaggedLength {
                function: "pypto.as_tensor".into(),
                length: items.len(),
                expected: shape[depth],
            };
            return Err(self.error(ErrorKind::Value, "", span).with_message(message));
        }
        for item in &items {
            self.flatten(item, shape, depth + 1, values, span)?;
        }
        Ok(())
    }
}

/// `arange`'s start, stop and step from its first three parameters (one given: the stop), for
/// `pypto.arange` and `torch.arange` (`module` names it in errors): a zero step, and more elements
/// than the tensor limit, are errors.
pub(crate) fn arange_range(
    interpreter: &Interpreter,
    bound: &crate::lang::interp::call::Bound<'_>,
    module: &str,
    span: Span,
) -> Result<(f64, f64, f64)> {
    let (start, stop) = match bound.optional(1) {
        None => (0.0, bound.float(0, None)?),
        Some(_) => (bound.float(0, None)?, bound.float(1, None)?),
    };
    let step = bound.float(2, Some(1.0))?;
    if step == 0.0 {
        let message = LibraryTensorMessage::ZeroStep { function: format!("{module}.arange") };
        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(2)).with_message(message));
    }
    let count = ((stop - start) / step).ceil().max(0.0);
    if count > interpreter.limits().tensor_elements as f64 {
        let message =
            LibraryTensorMessage::RangeTooLong { function: format!("{module}.arange"), count: count.to_string() };
        return Err(interpreter.error(ErrorKind::SizeLimit, "", span).with_message(message));
    }
    Ok((start, stop, step))
}
