//! `pypto.autodiff.LossScaler`: the autograd core's dynamic loss scaler for scripts. A mixed
//! precision step multiplies the loss by `scale` before `backward()` (`scale_loss`), divides the
//! gradients by it in f32 and checks them for inf/NaN (`unscale`), and `update(finite)` halves the
//! scale after an overflow or grows it after `growth_interval` finite steps in a row.

use std::cell::RefCell;
use std::rc::Rc;

use crate::autograd::{LossScaler, LossScalerConfig, ScaleUpdate, Var};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage};

/// The methods a script can call on a scaler.
pub const METHODS: [&str; 3] = ["scale_loss", "unscale", "update"];

/// `pypto.autodiff.LossScaler(init_scale=2**15, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000)`.
pub(crate) fn construct(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let names = ["init_scale", "growth_factor", "backoff_factor", "growth_interval"];
    let bound = interpreter.bind("pypto.autodiff.LossScaler", &names, arguments, false, span)?;
    let defaults = LossScalerConfig::default();
    let interval = bound.int(3, Some(i64::from(defaults.growth_interval)))?;
    let config = LossScalerConfig {
        init_scale: bound.float(0, Some(defaults.init_scale))?,
        growth_factor: bound.float(1, Some(defaults.growth_factor))?,
        backoff_factor: bound.float(2, Some(defaults.backoff_factor))?,
        growth_interval: u32::try_from(interval).unwrap_or(0),
    };
    let scaler =
        // Its one error is the settings check, said here with the settings as given.
        LossScaler::new(config).map_err(|_| {
            let message = LibraryKernelMessage::LossScalerSettings { got: format!("{config:?}") };
            interpreter.error(ErrorKind::Value, "", span).with_message(message)
        })?;
    Ok(Value::object(Object::LossScaler(RefCell::new(scaler))))
}

/// `scaler.scale` (the current scale) and its bound methods.
pub(crate) fn attribute(value: &Value, scaler: &RefCell<LossScaler>, name: &str) -> Option<Value> {
    match name {
        "scale" => Some(Value::Float(scaler.borrow().scale())),
        _ if METHODS.contains(&name) => Some(Value::Method(Rc::new((value.clone(), name.to_string())))),
        _ => None,
    }
}

/// Calls `scaler.name(...)`.
pub(crate) fn call_method(
    interpreter: &Interpreter,
    scaler: &RefCell<LossScaler>,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    match name {
        // loss · scale, recorded, so backward from it gives the scaled gradients.
        "scale_loss" => {
            let bound = interpreter.bind("LossScaler.scale_loss", &["loss"], arguments, false, span)?;
            let loss = bound.tensor(0)?;
            interpreter.tensor_result(scaler.borrow().scale_loss(&loss), span)
        }
        // ([gradient / scale in f32, one per parameter], all finite).
        "unscale" => {
            let bound = interpreter.bind("LossScaler.unscale", &["parameters"], arguments, false, span)?;
            let items = interpreter.iterate(bound.required(0)?, bound.span_of(0))?;
            let parameters = items
                .iter()
                .map(|item| match item {
                    Value::Tensor(object) => Ok(object.get()),
                    other => Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(
                        LibraryMessage::Expected {
                            function: "LossScaler.unscale".into(),
                            expected: Kind::Tensors,
                            got: other.type_name().to_string(),
                        },
                    )),
                })
                .collect::<Result<Vec<_>>>()?;
            let unscaled =
                scaler.borrow().unscale(&parameters).map_err(|error| interpreter.autograd_error(error, span))?;
            let gradients = unscaled.gradients.into_iter().map(|tensor| TensorObject::value(Var::constant(tensor)));
            Ok(Value::tuple(vec![Value::list(gradients.collect()), Value::Bool(unscaled.finite)]))
        }
        // "kept", "grew" or "backed_off".
        "update" => {
            let bound = interpreter.bind("LossScaler.update", &["finite"], arguments, false, span)?;
            let finite = match bound.required(0)? {
                Value::Bool(flag) => *flag,
                other => {
                    let message = LibraryMessage::ArgumentType {
                        function: "LossScaler.update".into(),
                        parameter: "finite".into(),
                        expected: Kind::Bool,
                        got: other.type_name().to_string(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(message));
                }
            };
            let change = match scaler.borrow_mut().update(finite) {
                ScaleUpdate::Kept => "kept",
                ScaleUpdate::Grew => "grew",
                ScaleUpdate::BackedOff => "backed_off",
            };
            Ok(Value::string(change))
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NoMethod { type_name: "LossScaler".into(), name: name.to_string() })),
    }
}
