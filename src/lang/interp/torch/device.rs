//! torch's devices: the `torch.device` objects that `tensor.device` returns and that `device=`,
//! `.to(device)`, `.npu()` and `.cpu()` take. A tensor reports the device torch would give it (CPU
//! until it is made on or moved to another one); the data is the same host memory whichever it
//! reports, and every kernel reads it there.

use std::rc::Rc;

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::LibraryMessage;

/// The device types torch and torch_npu name.
const TYPES: [&str; 4] = ["cpu", "npu", "cuda", "meta"];

/// A torch device: its type (one of [`TYPES`]) and index (`None` for `"cpu"` and a bare `"npu"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// `"cpu"`, `"npu"` …
    pub kind: &'static str,
    /// The device's number.
    pub index: Option<i64>,
}

impl Device {
    /// The host, where a tensor is until it is moved.
    pub const CPU: Device = Device { kind: "cpu", index: None };

    /// `str(device)`: `cpu`, `npu:0`.
    pub fn text(&self) -> String {
        match self.index {
            Some(index) => format!("{}:{index}", self.kind),
            None => self.kind.to_string(),
        }
    }

    /// `repr(device)`: `device(type='npu', index=0)`.
    pub fn repr(&self) -> String {
        match self.index {
            Some(index) => format!("device(type='{}', index={index})", self.kind),
            None => format!("device(type='{}')", self.kind),
        }
    }

    /// Where a tensor moved to this device is: an accelerator without an index is its current
    /// one, device 0 (torch.npu.current_device()).
    fn placed(self) -> Device {
        match (self.kind, self.index) {
            ("cpu", _) => Device::CPU,
            (kind, None) => Device { kind, index: Some(0) },
            _ => self,
        }
    }

    /// `device.name`: `type` and `index`.
    pub fn attribute(&self, name: &str) -> Option<Value> {
        match name {
            "type" => Some(Value::string(self.kind)),
            "index" => Some(self.index.map(Value::Int).unwrap_or(Value::None)),
            _ => None,
        }
    }
}

/// The device `text` names (`"npu"`, `"npu:0"`), if it is one.
fn parse(text: &str) -> Option<Device> {
    let (kind, index) = match text.split_once(':') {
        Some((kind, index)) => (kind, Some(index.parse::<i64>().ok().filter(|index| *index >= 0)?)),
        None => (text, None),
    };
    let kind = TYPES.iter().find(|known| **known == kind)?;
    Some(Device { kind, index })
}

/// The device a `device=` argument names (a device, its text, or an index: with torch_npu an
/// int names that NPU, as pypto's tests write `device=0`), if it is one.
pub(crate) fn named(value: &Value) -> Option<Device> {
    match value {
        Value::Str(text) => parse(text),
        Value::Int(index) if *index >= 0 => Some(Device { kind: "npu", index: Some(*index) }),
        Value::Object(object) => match object.as_ref() {
            Object::Device(device) => Some(*device),
            _ => None,
        },
        _ => None,
    }
}

/// The error for a device argument that names no device.
fn unknown(
    interpreter: &Interpreter,
    function: &str,
    value: &Value,
    span: Span,
) -> crate::lang::interp::error::RuntimeError {
    let message = LibraryMessage::OneOf {
        function: function.to_string(),
        parameter: "device type".into(),
        choices: TYPES.iter().map(|kind| format!("'{kind}'")).collect(),
        got: Some(crate::lang::interp::format::repr(value)),
    };
    interpreter.coded(ErrorKind::Value, message, span)
}

/// The device a `device=` argument names; an error when it names none.
pub(crate) fn argument(interpreter: &Interpreter, function: &str, value: &Value, span: Span) -> Result<Device> {
    named(value).ok_or_else(|| unknown(interpreter, function, value, span))
}

/// `torch.device(type, index=None)`: `torch.device("npu:0")`, `torch.device("npu", 0)`, or a device.
pub(crate) fn construct(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind("torch.device", &["type", "index"], arguments, false, span)?;
    let given = bound.required(0)?;
    let device = argument(interpreter, "torch.device", given, bound.span_of(0))?;
    let device = match bound.optional(1) {
        Some(Value::None) | None => device,
        Some(_) => {
            let index = bound.int(1, None)?;
            if device.index.is_some() || index < 0 {
                return Err(unknown(interpreter, "torch.device", given, bound.span_of(0)));
            }
            Device { index: Some(index), ..device }
        }
    };
    Ok(Value::object(Object::Device(device)))
}

/// `tensor.device`: where torch would have the tensor.
pub(crate) fn of_tensor(object: &TensorObject) -> Value {
    Value::object(Object::Device(object.device.get().unwrap_or(Device::CPU)))
}

/// The tensor moved to `device` (`.to(device)`, `.npu()`, `.cpu()`): the tensor itself when it is
/// there already, else a copy (torch's: writing into one leaves the other as it was) that reports
/// `device`. A tensor that requires grad keeps its data and its place in the graph.
pub(crate) fn moved(object: &Rc<TensorObject>, device: Device) -> Value {
    let device = device.placed();
    if object.device.get().unwrap_or(Device::CPU) == device {
        return Value::Tensor(object.clone());
    }
    let var = object.get();
    let var = if var.requires_grad() { var } else { crate::autograd::Var::constant(var.tensor().deep_copy()) };
    let moved = TensorObject::value(var);
    if let Value::Tensor(copy) = &moved {
        copy.torch.set(object.torch.get());
        copy.npu_format.set(object.npu_format.get());
        copy.device.set(Some(device));
    }
    moved
}

/// Places the tensors of `result` on `device` (a `device=` argument, or the device of the inputs)
/// unless they were placed already.
pub(crate) fn place(result: &Value, device: Device) {
    match result {
        Value::Tensor(object) if object.device.get().is_none() => object.device.set(Some(device.placed())),
        Value::Tuple(items) => items.iter().for_each(|item| place(item, device)),
        Value::List(items) => items.borrow().iter().for_each(|item| place(item, device)),
        _ => {}
    }
}

/// The device of a torch call's result: its `device=` argument, else the first input tensor's
/// device that is not the CPU (torch's operations keep their inputs' device).
pub(crate) fn of_call(interpreter: &Interpreter, function: &str, arguments: &Arguments) -> Result<Option<Device>> {
    if let Some((_, value, span)) = arguments.keywords.iter().find(|(keyword, _, _)| keyword == "device") {
        return match value {
            Value::None => Ok(None),
            _ => argument(interpreter, function, value, *span).map(Some),
        };
    }
    let inputs =
        arguments.positional.iter().map(|(value, _)| value).chain(arguments.keywords.iter().map(|(_, value, _)| value));
    Ok(inputs.filter_map(tensor_device).find(|device| device.kind != "cpu"))
}

/// The device of a tensor (or of the first tensor of a list or tuple) other than a new one's.
fn tensor_device(value: &Value) -> Option<Device> {
    match value {
        Value::Tensor(object) => object.device.get(),
        Value::List(items) => items.borrow().iter().find_map(tensor_device),
        Value::Tuple(items) => items.iter().find_map(tensor_device),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_text_parses_as_torch_does() {
        assert_eq!(parse("npu:1"), Some(Device { kind: "npu", index: Some(1) }));
        assert_eq!(parse("cpu"), Some(Device::CPU));
        assert_eq!(parse("npu:-1"), None);
        assert_eq!(parse("gpu"), None);
        assert_eq!(Device { kind: "npu", index: Some(0) }.repr(), "device(type='npu', index=0)");
        assert_eq!(Device { kind: "npu", index: None }.placed().text(), "npu:0");
    }
}
