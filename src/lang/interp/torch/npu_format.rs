//! torch_npu's storage formats, as model tests prepare NZ weights: `torch.npu.config.
//! allow_internal_format` (a setting the session keeps), `torch_npu.Format` (ND 2, NZ 29 …),
//! `torch_npu.npu_format_cast(t, format)` and `torch_npu.get_npu_format(t)`. A cast gives a tensor
//! with the same values that remembers its format: the simulator keeps every tensor row-major,
//! and the values, which are all a kernel reads here, do not depend on the layout.

use std::rc::Rc;

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage};

/// torch_npu's `Format` members and their ACL values.
const FORMATS: [(&str, i64); 7] =
    [("UNDEFINED", -1), ("NCHW", 0), ("NHWC", 1), ("ND", 2), ("NC1HWC0", 3), ("FRACTAL_Z", 4), ("FRACTAL_NZ", 29)];

/// The ACL value of ND, every tensor's format until a cast.
pub(crate) const ND: i64 = 2;

/// `torch_npu.Format.<name>` and `torch.npu.config.<name>` (`None`: not one of these).
pub(crate) fn attribute(interpreter: &Interpreter, module: &str, name: &str) -> Option<Value> {
    match (module, name) {
        ("torch_npu", "Format") => Some(Value::Module(Rc::from("torch_npu.Format"))),
        ("torch_npu.Format", _) => {
            FORMATS.iter().find(|(member, _)| *member == name).map(|(_, value)| Value::Int(*value))
        }
        ("torch.npu", "config") => Some(Value::Module(Rc::from("torch.npu.config"))),
        ("torch.npu.config", "allow_internal_format") => Some(Value::Bool(interpreter.internal_format.get())),
        _ => None,
    }
}

/// `torch.npu.config.allow_internal_format = flag` (`false`: not a setting of this file).
pub(crate) fn set(interpreter: &Interpreter, module: &str, name: &str, value: &Value) -> bool {
    if (module, name) != ("torch.npu.config", "allow_internal_format") {
        return false;
    }
    interpreter.internal_format.set(value.truthy().unwrap_or(false));
    true
}

/// Calls `torch_npu.npu_format_cast(tensor, acl_format)` or `torch_npu.get_npu_format(tensor)`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match name {
        "torch_npu.npu_format_cast" => {
            let bound = interpreter.bind(name, &["input", "acl_format"], arguments, false, span)?;
            let var = bound.tensor(0)?;
            let format = bound.int(1, None)?;
            if !FORMATS.iter().any(|(_, value)| *value == format) {
                let message = LibraryMessage::ArgumentType {
                    function: name.to_string(),
                    parameter: "acl_format".into(),
                    expected: Kind::Enumeration { name: "torch_npu.Format".into() },
                    got: format.to_string(),
                };
                return Err(interpreter.coded(ErrorKind::Value, message, bound.span_of(1)));
            }
            let cast = TensorObject::value(var);
            if let Value::Tensor(object) = &cast {
                object.npu_format.set(format);
            }
            Ok(cast)
        }
        _ => {
            let bound = interpreter.bind(name, &["input"], arguments, false, span)?;
            bound.tensor(0)?;
            match bound.required(0)? {
                Value::Tensor(object) => Ok(Value::Int(object.npu_format.get())),
                _ => Ok(Value::Int(ND)),
            }
        }
    }
}
