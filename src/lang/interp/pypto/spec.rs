//! pypto's kernel-authoring objects that are not tensors: `pypto.Tensor(shape, dtype)` shape-only
//! specs, the members of pypto's enums (`RunMode`, `StatusType` markers `DYNAMIC`/`STATIC`,
//! `CastMode`, `SaturationMode`, `PrecisionType`, `DataType`), `pypto.platform.npuarch`, and the
//! `pypto.options(...)` decorator object. Names resolve through the API table like every `pypto`
//! name; this module gives the constants their values.

use std::rc::Rc;

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{DTypeFamily, Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage, LibraryTensorMessage};
use crate::tensor::DType;

/// A pypto object that is neither a tensor nor a kernel.
#[derive(Clone)]
pub enum ApiObject {
    /// `pypto.Tensor(shape, dtype, name)`: a shape and dtype without storage.
    TensorSpec { dims: Vec<SpecDim>, dtype: DType, name: String },
    /// A member of one of pypto's enums (`RunMode.NPU`), with the value pypto gives it.
    EnumMember { enumeration: &'static str, member: &'static str, value: i64 },
    /// `pypto.options(...)`, a decorator of kernels and functions.
    Options(Rc<super::config::ScopedOptions>),
}

/// One dim of a tensor spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecDim {
    /// A fixed size.
    Size(usize),
    /// `pypto.DYNAMIC` / `pypto.DYN`: known when the kernel is called.
    Dynamic,
    /// `pypto.STATIC`: fixed by the first call.
    Static,
    /// `...`: the remaining dims, whatever they are.
    Rest,
}

/// pypto's enums: (enum name, members with pypto's values). `StatusType` members are the dim markers
/// `pypto.DYN`, `pypto.DYNAMIC`, `pypto.STATIC`.
const ENUMS: [(&str, &[(&str, i64)]); 9] = [
    ("RunMode", &[("NPU", 0), ("SIM", 1)]),
    ("StatusType", &[("DYN", 0), ("DYNAMIC", 1), ("STATIC", 2)]),
    (
        "CastMode",
        &[
            ("CAST_NONE", 0),
            ("CAST_RINT", 1),
            ("CAST_ROUND", 2),
            ("CAST_FLOOR", 3),
            ("CAST_CEIL", 4),
            ("CAST_TRUNC", 5),
            ("CAST_ODD", 6),
        ],
    ),
    ("SaturationMode", &[("OFF", 0), ("ON", 1)]),
    ("PrecisionType", &[("INTRINSIC", 0), ("HIGH_PRECISION", 1)]),
    // A tensor's layout in device memory (`pypto.Tensor(…, format=…)`): values are the same in both.
    ("TileOpFormat", &[("TILEOP_ND", 0), ("TILEOP_NZ", 1)]),
    // Where `set_host_options(compile_stage=…)` stops pypto's compiler.
    (
        "CompStage",
        &[
            ("ALL_COMPLETE", 0),
            ("TENSOR_GRAPH", 1),
            ("TILE_GRAPH", 2),
            ("EXECUTE_GRAPH", 3),
            ("CODEGEN_INSTRUCTION", 4),
            ("CODEGEN_BINARY", 5),
        ],
    ),
    // The cube output path's ReLU (`matmul(…, extend_params={"relu_type": …})`).
    ("ReLuType", &[("NO_RELU", 0), ("RELU", 1)]),
    // pypto's dtypes the tensor core does not hold, with pypto's values: named so that code which
    // lists them (a torch ↔ pypto dtype table) runs; a tensor of one is an error that says so.
    ("DataType", &[("DT_UINT16", 12), ("DT_UINT32", 13), ("DT_UINT64", 14)]),
];

/// The member `member` of pypto enum `enumeration`, as a value.
pub fn enum_member(enumeration: &str, member: &str) -> Option<Value> {
    let (name, members) = ENUMS.iter().find(|(name, _)| *name == enumeration)?;
    let (member, value) = members.iter().find(|(candidate, _)| *candidate == member)?;
    Some(Value::object(Object::Api(ApiObject::EnumMember { enumeration: name, member, value: *value })))
}

/// The value of the API-table constant `module.name` (`pypto.DT_FP32`, `pypto.RunMode.NPU`,
/// `pypto.DYNAMIC`, `pypto.platform.npuarch`), or `None` when TileLab has no value for it.
pub(crate) fn constant(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Option<Value>> {
    let enumeration = module.strip_prefix("pypto.").unwrap_or("");
    if module == "pypto" || enumeration == "DataType" {
        if let Some(dtype) = name.strip_prefix("DT_").and(DType::parse(name)) {
            return Ok(Some(Value::DType(dtype, DTypeFamily::Pypto)));
        }
    }
    if module == "pypto" && matches!(name, "DT_UINT16" | "DT_UINT32" | "DT_UINT64") {
        return Ok(enum_member("DataType", name));
    }
    if module == "pypto" && matches!(name, "DYN" | "DYNAMIC" | "STATIC") {
        return Ok(enum_member("StatusType", name));
    }
    if module == "pypto.platform" && name == "npuarch" {
        return Ok(Some(Value::string(npu_arch(&interpreter.npu_config(span)?.name))));
    }
    Ok(enum_member(enumeration, name))
}

/// pypto's `platform.npuarch` string for a preset: the DaVinci architecture of the modelled chip
/// (`DAV_2201` for the 910B family, `DAV_1001` for the 910A); a preset that models no real chip
/// (the teaching one, a custom JSON) has none, which pypto reports as "".
pub fn npu_arch(preset: &str) -> &'static str {
    if preset.starts_with("Ascend910B") || preset.starts_with("Ascend910C") {
        "DAV_2201"
    } else if preset == "Ascend910A" {
        "DAV_1001"
    } else {
        ""
    }
}

/// `pypto.frontend.dynamic(name)`: a named dynamic dim for `pypto.Tensor` specs (the name is
/// pypto's binding key; a spec here keeps the dim as `pypto.DYNAMIC`).
pub(crate) fn dynamic(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind("pypto.frontend.dynamic", &["name"], arguments, false, span)?;
    if !matches!(bound.required(0)?, Value::Str(_)) {
        let message = LibraryMessage::ArgumentType {
            function: "pypto.frontend.dynamic".into(),
            parameter: "name".into(),
            expected: Kind::Str,
            got: bound.required(0)?.type_name().to_string(),
        };
        return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(message));
    }
    Ok(enum_member("StatusType", "DYNAMIC").unwrap_or(Value::None))
}

/// `pypto.platform.npuarch = "DAV_…"`: selects the preset that models that architecture, as
/// setting it retargets pypto's compiler.
pub(crate) fn set_platform(interpreter: &Interpreter, name: &str, value: &Value, span: Span) -> Result<()> {
    if name != "npuarch" {
        let message = LibraryMessage::CannotSetAttribute { name: name.to_string(), object: "pypto.platform".into() };
        return Err(interpreter.error(ErrorKind::Attribute, "", span).with_message(message));
    }
    let arch = crate::lang::interp::format::to_str(value);
    let preset = super::PRESETS.iter().find(|preset| npu_arch(preset) == arch && !arch.is_empty());
    let Some(preset) = preset else {
        return Err(interpreter
            .error(ErrorKind::Value, "", span)
            .with_message(LibraryKernelMessage::UnknownArch { arch })
            .with_help_message(LibraryKernelMessage::ArchPresets {
                presets: crate::lang::interp::numpy::code_list(&super::PRESETS),
            }));
    };
    interpreter.set_npu_preset(preset);
    *interpreter.npu.custom.borrow_mut() = None;
    Ok(())
}

/// `pypto.Tensor(shape=None, dtype=DT_FP32, name="")`: a shape-only spec. Dims are ints, the
/// markers `pypto.DYNAMIC`/`DYN`/`STATIC`, or `...`.
pub(crate) fn construct(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind("pypto.Tensor", &["shape", "dtype", "name"], arguments, false, span)?;
    let mut dims = Vec::new();
    if let Some(shape) = bound.optional(0) {
        let items = match shape {
            Value::List(_) | Value::Tuple(_) => interpreter.iterate(shape, bound.span_of(0))?,
            other => vec![other.clone()],
        };
        for item in &items {
            dims.push(spec_dim(item).ok_or_else(|| {
                interpreter
                    .error(ErrorKind::Type, "", bound.span_of(0))
                    .with_message(LibraryTensorMessage::SpecDim { got: crate::lang::interp::format::repr(item) })
                    .with_help_message(LibraryTensorMessage::SpecOrTensor)
            })?);
        }
    }
    let name = bound.optional(2).map(crate::lang::interp::format::to_str).unwrap_or_default();
    let dtype = bound.dtype(1, DType::F32)?;
    let sizes: Option<Vec<usize>> =
        dims.iter().map(|dim| if let SpecDim::Size(size) = dim { Some(*size) } else { None }).collect();
    // Inside a kernel pypto's `Tensor(shape, dtype)` is a workspace the kernel writes (pypto's
    // `tensor` is the same class): with every dim known it is allocated, as `pypto.tensor` does.
    if let (true, Some(shape)) = (interpreter.in_kernel(), sizes.filter(|sizes| !sizes.is_empty())) {
        interpreter.check_elements(&shape, span)?;
        let zeros =
            crate::tensor::Tensor::full(&shape, 0.0, dtype).map_err(|error| interpreter.tensor_error(error, span))?;
        let value = crate::lang::interp::value::TensorObject::value(crate::autograd::Var::constant(zeros));
        interpreter.capture(Some(&value), || super::capture::CapturedOp::Fill { value: 0.0 });
        return Ok(value);
    }
    Ok(Value::object(Object::Api(ApiObject::TensorSpec { dims, dtype, name })))
}

fn spec_dim(item: &Value) -> Option<SpecDim> {
    match item {
        Value::Ellipsis => Some(SpecDim::Rest),
        Value::Object(object) => match object.as_ref() {
            Object::Api(ApiObject::EnumMember { enumeration: "StatusType", member, .. }) => {
                Some(if *member == "STATIC" { SpecDim::Static } else { SpecDim::Dynamic })
            }
            _ => None,
        },
        other => other.as_int().and_then(|size| usize::try_from(size).ok()).map(SpecDim::Size),
    }
}

impl ApiObject {
    /// The Python type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            ApiObject::TensorSpec { .. } => "TensorSpec",
            ApiObject::EnumMember { enumeration, .. } => enumeration,
            ApiObject::Options(_) => "options",
        }
    }

    /// How `print`/`repr` show it (`RunMode.NPU` as pypto prints its enums).
    pub fn repr(&self) -> String {
        match self {
            ApiObject::EnumMember { enumeration, member, .. } => format!("{enumeration}.{member}"),
            ApiObject::TensorSpec { dims, dtype, .. } => {
                let dims: Vec<String> = dims.iter().map(dim_text).collect();
                format!("pypto.Tensor([{}], pypto.{})", dims.join(", "), dtype.pypto_name())
            }
            ApiObject::Options(_) => "<pypto.options>".to_string(),
        }
    }

    /// `a == b` for two pypto objects: enum members compare by enum and member, as in pypto.
    pub fn same(&self, other: &ApiObject) -> bool {
        match (self, other) {
            (
                ApiObject::EnumMember { enumeration: a, member: m, .. },
                ApiObject::EnumMember { enumeration: b, member: n, .. },
            ) => a == b && m == n,
            _ => false,
        }
    }

    /// `object.name`.
    pub fn attribute(&self, name: &str) -> Option<Value> {
        match (self, name) {
            (ApiObject::EnumMember { member, .. }, "name") => Some(Value::string(*member)),
            // `StatusType` is a str enum in pypto.
            (ApiObject::EnumMember { enumeration: "StatusType", member, .. }, "value") => Some(Value::string(*member)),
            (ApiObject::EnumMember { value, .. }, "value") => Some(Value::Int(*value)),
            (ApiObject::TensorSpec { dims, .. }, "shape") => Some(Value::list(dims.iter().map(dim_value).collect())),
            (ApiObject::TensorSpec { dtype, .. }, "dtype") => Some(Value::DType(*dtype, DTypeFamily::Pypto)),
            (ApiObject::TensorSpec { name, .. }, "name") => Some(Value::string(name.as_str())),
            (ApiObject::TensorSpec { dims, .. }, "ndim") => Some(Value::Int(dims.len() as i64)),
            _ => None,
        }
    }
}

fn dim_text(dim: &SpecDim) -> String {
    match dim {
        SpecDim::Size(size) => size.to_string(),
        SpecDim::Dynamic => "pypto.DYNAMIC".to_string(),
        SpecDim::Static => "pypto.STATIC".to_string(),
        SpecDim::Rest => "...".to_string(),
    }
}

fn dim_value(dim: &SpecDim) -> Value {
    match dim {
        SpecDim::Size(size) => Value::Int(*size as i64),
        SpecDim::Dynamic => enum_member("StatusType", "DYNAMIC").unwrap_or(Value::None),
        SpecDim::Static => enum_member("StatusType", "STATIC").unwrap_or(Value::None),
        SpecDim::Rest => Value::Ellipsis,
    }
}

/// `a == b` for two objects: enum members compare by enum and member (the others by identity).
pub fn same_object(a: &Object, b: &Object) -> bool {
    matches!((a, b), (Object::Api(a), Object::Api(b)) if a.same(b))
}

/// Calls a pypto object: `pypto.options(...)` applied to a function or kernel.
pub(crate) fn call_object(
    interpreter: &Interpreter,
    object: &Object,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let Object::Api(object) = object else {
        let type_name = crate::lang::interp::value::object_name(object).to_string();
        return Err(interpreter
            .error(ErrorKind::Type, "", span)
            .with_message(crate::messages::RuntimeMessage::NotCallable { type_name }));
    };
    match object {
        ApiObject::Options(options) => {
            let bound = interpreter.bind("pypto.options", &["function"], arguments, false, span)?;
            super::config::decorate(interpreter, options, bound.required(0)?.clone(), span)
        }
        other => {
            let message = crate::messages::RuntimeMessage::NotCallable { type_name: other.type_name().to_string() };
            let error = interpreter.error(ErrorKind::Type, "", span).with_message(message);
            Err(match other {
                ApiObject::TensorSpec { .. } => error.with_help_message(LibraryTensorMessage::SpecNotCallable),
                _ => error,
            })
        }
    }
}
