//! Copies and re-views with pypto's signatures: `reshape(x, shape, *, valid_shape=None,
//! inplace=False)`, `clone`, `expand_clone(x, shape, *, valid_shape=None)`, `Tensor.move(src)` and
//! `cast(x, dtype, mode=CastMode.CAST_NONE, satmode=SaturationMode.OFF)`.

use std::rc::Rc;

use super::capture::CapturedOp;
use super::spec::ApiObject;
use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTensorMessage};
use crate::tensor::{leading_box, leads_row_major};

/// Calls `pypto.reshape`, `clone`, `expand_clone` or `cast`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, mut arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    match name {
        "reshape" => {
            let bound = interpreter.bind(&full, &["x", "shape", "valid_shape", "inplace"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let valid = match bound.optional(2) {
                Some(_) => Some(bound.shape(2)?),
                None => None,
            };
            bound.flag(3, false)?;
            interpreter.reshaped(&x, bound.required(1)?, valid, bound.span_of(1))
        }
        "clone" => {
            let bound = interpreter.bind(&full, &["input"], arguments, false, span)?;
            interpreter.cloned(&bound.tensor(0)?, span)
        }
        "expand_clone" => {
            let bound = interpreter.bind(&full, &["input", "shape", "valid_shape"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let shape = bound.shape(1)?;
            interpreter.check_elements(&shape, span)?;
            let zeros = crate::tensor::Tensor::full(&shape, 0.0, x.dtype())
                .map_err(|error| interpreter.tensor_error(error, span))?;
            // Broadcasting against zeros of the target shape is the deep copy pypto makes.
            let expanded = x.add(&Var::constant(zeros)).map_err(|error| interpreter.autograd_error(error, span))?;
            let result = match bound.optional(2) {
                Some(_) => {
                    let valid = bound.shape(2)?;
                    let offsets = vec![0; shape.len()];
                    interpreter.tensor_result(expanded.view(&shape, &offsets, Some(&valid)), span)?
                }
                None => TensorObject::value(expanded),
            };
            let valid_shape = bound.optional(2).is_some();
            interpreter.capture(Some(&result), || match valid_shape {
                true => CapturedOp::Unsupported { what: crate::messages::CompilerReason::ExpandValidShape },
                false => {
                    CapturedOp::Vector { op: crate::tile::VectorOp::Expand, args: vec![super::capture::Arg::var(&x)] }
                }
            });
            Ok(result)
        }
        _ => {
            // The rounding and saturation modes are checked here; the cast itself is the dtype
            // module's (`functions`): to a float it rounds to nearest-even, to an integer it
            // truncates (CAST_NONE). A float-to-integer cast with a rounding mode rounds first,
            // with ops a kernel's recorder sees (floor, ceil, trunc, round).
            let mut rounding: Option<&'static str> = None;
            let mut stripped = false;
            for (key, enumeration) in [("mode", "CastMode"), ("satmode", "SaturationMode")] {
                let position = arguments.keywords.iter().position(|(name, _, _)| name == key);
                let (value, value_span) = match position {
                    Some(position) => {
                        let (_, value, value_span) = arguments.keywords.remove(position);
                        (value, value_span)
                    }
                    None if arguments.positional.len() > 2 => arguments.positional.remove(2),
                    None => continue,
                };
                stripped = true;
                let member = enum_member_name(&value, enumeration).ok_or_else(|| {
                    let message = LibraryMessage::ArgumentType {
                        function: "pypto.cast".into(),
                        parameter: key.to_string(),
                        expected: Kind::Enumeration { name: enumeration.to_string() },
                        got: value.type_name().to_string(),
                    };
                    interpreter.error(ErrorKind::Type, "", value_span).with_message(message)
                })?;
                let integer_target = arguments
                    .positional
                    .get(1)
                    .map(|(value, _)| value)
                    .or_else(|| {
                        arguments.keywords.iter().find(|(name, _, _)| name == "dtype").map(|(_, value, _)| value)
                    })
                    .is_some_and(|value| matches!(value, Value::DType(dtype, _) if !dtype.is_float()));
                let float_source = matches!(arguments.positional.first(), Some((Value::Tensor(object), _)) if object.get().dtype().is_float());
                if integer_target && float_source && member.starts_with("CAST_") && member != "CAST_NONE" {
                    rounding = Some(member);
                    continue;
                }
                if !matches!(member, "CAST_NONE" | "CAST_RINT" | "OFF") {
                    let message =
                        crate::messages::NpuMessage::CastModeNotModelled { mode: format!("{enumeration}.{member}") };
                    interpreter.warn_message("npu/cast-mode-not-modelled", message.into(), value_span, None);
                }
            }
            if let (Some(member), Some((x, x_span))) = (rounding, arguments.positional.first().cloned()) {
                let unary = |name: &str, value: Value| {
                    super::call(
                        interpreter,
                        name,
                        Arguments { positional: vec![(value, x_span)], keywords: Vec::new() },
                        span,
                    )
                };
                let rounded = match member {
                    "CAST_FLOOR" => unary("pypto.floor", x)?,
                    "CAST_CEIL" => unary("pypto.ceil", x)?,
                    "CAST_TRUNC" | "CAST_ODD" => unary("pypto.trunc", x)?,
                    "CAST_RINT" => unary("pypto.round", x)?,
                    // Half away from zero: trunc(x + sign(x) / 2).
                    _ => {
                        let half = interpreter.binary(
                            crate::lang::syntax::ast::BinaryOp::Multiply,
                            &unary("pypto.sign", x.clone())?,
                            &Value::Float(0.5),
                            span,
                        )?;
                        unary(
                            "pypto.trunc",
                            interpreter.binary(crate::lang::syntax::ast::BinaryOp::Add, &x, &half, span)?,
                        )?
                    }
                };
                arguments.positional[0] = (rounded, x_span);
            }
            if stripped {
                // Called unrecorded (it had a mode): the plain cast records itself.
                return super::call(interpreter, "pypto.cast", arguments, span);
            }
            super::functions::call(interpreter, "cast", arguments, span)
        }
    }
}

/// The member name of `value` when it is a member of pypto enum `enumeration`.
pub(super) fn enum_member_name(value: &Value, enumeration: &str) -> Option<&'static str> {
    match value {
        Value::Object(object) => match object.as_ref() {
            Object::Api(ApiObject::EnumMember { enumeration: name, member, .. }) if *name == enumeration => {
                Some(member)
            }
            _ => None,
        },
        _ => None,
    }
}

impl Interpreter {
    /// `x` with `shape` (a `-1` dim inferred), elements outside `valid` reading as 0. The result
    /// shares `x`'s storage with or without `inplace`: a write into it is seen in `x`.
    pub(crate) fn reshaped(&self, x: &Var, shape: &Value, valid: Option<Vec<usize>>, span: Span) -> Result<Value> {
        let shape = self.resolve_shape(x, shape, span)?;
        // A partial tile whose valid elements lead in row-major order keeps them valid in the new
        // shape when they fill a leading box of it, as pypto derives a reshape's valid shape.
        let valid = valid.or_else(|| {
            let source_valid = x.tensor().valid_shape()?;
            leads_row_major(source_valid, x.shape())
                .then(|| leading_box(source_valid.iter().product(), &shape))
                .flatten()
                .filter(|derived| derived != &shape)
        });
        let reshaped = x.reshape(&shape).map_err(|error| self.autograd_error(error, span))?;
        let result = match valid {
            Some(valid) => {
                let offsets = vec![0; shape.len()];
                self.tensor_result(reshaped.view(&shape, &offsets, Some(&valid)), span)?
            }
            None => TensorObject::value(reshaped),
        };
        self.capture(Some(&result), || CapturedOp::Reshape { x: super::capture::TensorRef::of(x.tensor()) });
        Ok(result)
    }

    /// A copy of `x`: to a kernel, a cast to the same dtype (one pass through the vector unit).
    pub(crate) fn cloned(&self, x: &Var, span: Span) -> Result<Value> {
        let result = self.tensor_result(x.scale(1.0), span)?;
        self.capture(Some(&result), || CapturedOp::Cast { x: super::capture::TensorRef::of(x.tensor()) });
        Ok(result)
    }

    /// `out.move(value)`: writes `value` (same shape) into `out`, as pypto's examples write a
    /// kernel's result into an output (`out.move(pypto.matmul(a, b))`).
    pub(crate) fn move_into(&self, out: &Rc<TensorObject>, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("Tensor.move", &["other"], arguments, false, span)?;
        let value = bound.required(0)?.clone();
        let Value::Tensor(source) = &value else {
            return Err(self
                .error(ErrorKind::Type, "", bound.span_of(0))
                .with_message(LibraryTensorMessage::MoveType { got: value.type_name().to_string() })
                .with_help_message(LibraryTensorMessage::FillNumber));
        };
        let (target_shape, source_shape) = (out.get().shape().to_vec(), source.get().shape().to_vec());
        // The placeholder of `pypto.tensor()` takes the value itself, and so does a kernel's view:
        // pypto's `tile.move(pypto.exp2(tile))` makes the tile the result, leaving the tensor it
        // views as it was (a kernel's output argument is written, as its data is the result).
        if target_shape == [0] || (self.in_kernel() && self.made_by_view(out.get().tensor())) {
            *out.var.borrow_mut() = source.get();
            return Ok(Value::None);
        }
        // A source that is the target's own storage under another shape (pypto's
        // `key_cache.move(pypto.scatter_update(key_cache_2d, …))`, where `key_cache_2d` is an
        // in-place reshape of it) already holds the values: nothing moves. pypto's name then sees
        // the source's shape; here it keeps its own.
        let (target, moved) = (out.get(), source.get());
        if target.tensor().buffer_id() == moved.tensor().buffer_id()
            && target.tensor().numel() == moved.tensor().numel()
        {
            return Ok(Value::None);
        }
        if target_shape != source_shape {
            return Err(self
                .error(ErrorKind::Tensor, "", bound.span_of(0))
                .with_message(LibraryTensorMessage::MoveShape { source: source_shape, target: target_shape })
                .with_help_message(LibraryTensorMessage::AssemblePart));
        }
        self.tensor_set_item(out, &Value::Ellipsis, &value, span)?;
        Ok(Value::None)
    }
}
