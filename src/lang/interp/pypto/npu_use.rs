//! `pypto.npu.use(preset)`: a preset name, or a custom preset as a dict or JSON text with every
//! field of `pypto.npu.config()` (checked field by field in `npu::custom_preset`).

use super::PRESETS;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage};
use crate::npu::{custom_preset, custom_preset_from_json, NpuConfig};

/// Calls `pypto.npu.use`.
pub(crate) fn call(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind("pypto.npu.use", &["preset"], arguments, false, span)?;
    let at = bound.span_of(0);
    let custom = match bound.required(0)? {
        Value::Dict(_) => Some(custom_preset(&to_json(interpreter, bound.required(0)?, at)?)),
        Value::Str(text) if text.trim_start().starts_with('{') => Some(custom_preset_from_json(text)),
        _ => None,
    };
    if let Some(custom) = custom {
        let config = custom.map_err(|error| {
            let message =
                LibraryKernelMessage::Failed { function: "pypto.npu.use".into(), reason: Box::new(error.message()) };
            interpreter
                .error(ErrorKind::Value, "", at)
                .with_message(message)
                .with_help_message(LibraryKernelMessage::PresetFields)
        })?;
        interpreter.set_npu_preset(&config.name);
        *interpreter.npu.custom.borrow_mut() = Some(config);
        return Ok(Value::None);
    }
    let requested = match bound.required(0)? {
        Value::Str(preset) => preset.to_string(),
        other => crate::lang::interp::format::repr(other),
    };
    match NpuConfig::preset(&requested) {
        Ok(config) => {
            interpreter.set_npu_preset(&config.name);
            *interpreter.npu.custom.borrow_mut() = None;
            Ok(Value::None)
        }
        Err(error) => {
            let message =
                LibraryKernelMessage::Failed { function: "pypto.npu.use".into(), reason: Box::new(error.message()) };
            let runtime = interpreter.error(ErrorKind::Value, "", at).with_message(message);
            let help = crate::messages::NpuMessage::Presets { known: PRESETS.join(", ") };
            match error {
                crate::npu::NpuError::UnknownPreset { name, known } => {
                    let function = Some("pypto.npu.use".to_string());
                    let message =
                        crate::messages::NpuMessage::UnknownPreset { function, name, known: known.join(", ") };
                    Err(runtime.with_message(message).with_help_message(help))
                }
                _ => Err(runtime.with_help_message(help)),
            }
        }
    }
}

/// A script dict of numbers and strings as JSON (what a custom preset is written in).
fn to_json(interpreter: &Interpreter, value: &Value, span: Span) -> Result<serde_json::Value> {
    let Value::Dict(entries) = value else {
        let message = LibraryMessage::Expected {
            function: "pypto.npu.use".into(),
            expected: Kind::Dict,
            got: value.type_name().to_string(),
        };
        return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
    };
    let mut object = serde_json::Map::new();
    for (key, item) in entries.borrow().iter() {
        let Value::Str(key) = key else {
            return Err(interpreter.error(ErrorKind::Type, "", span).with_message(LibraryKernelMessage::PresetKeys));
        };
        // `pypto.npu.config()` adds the preset's name as `preset`; a dict made from it carries it.
        if key.as_ref() == "preset" {
            continue;
        }
        let json = match item {
            Value::Bool(flag) => serde_json::Value::Bool(*flag),
            Value::Int(number) => serde_json::Value::from(*number),
            Value::Float(number) => serde_json::Number::from_f64(*number)
                .map(serde_json::Value::Number)
                .unwrap_or_else(|| serde_json::Value::String(crate::lang::interp::format::format_float(*number))),
            Value::Str(text) => serde_json::Value::String(text.to_string()),
            other => {
                let message =
                    LibraryKernelMessage::PresetField { key: key.to_string(), got: other.type_name().to_string() };
                return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
            }
        };
        object.insert(key.to_string(), json);
    }
    Ok(serde_json::Value::Object(object))
}
