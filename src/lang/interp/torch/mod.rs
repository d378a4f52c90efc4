//! The `torch` module of tile scripts (DESIGN §2): the host side of a pypto test, over the same
//! TileLab tensors as `pypto`. A golden written against torch (`torch.randn`, `torch.matmul`,
//! `torch.softmax`, `torch.testing.assert_close` …) runs as written; `pypto.from_torch` and
//! `pypto.to_torch` are identities because both sides hold the same tensors.
//!
//! Where it knowingly differs from torch: seeded random numbers come from TileLab's generator (the
//! same seed gives the same numbers here on every platform, not torch's numbers); `device=` only
//! sets the device a tensor reports (see `device`); `.numpy()` returns the tensor itself.

mod checks;
pub(crate) mod convert;
mod creation;
pub(crate) mod device;
mod element_classes;
mod golden_functions;
pub(crate) mod indexing;
pub(crate) mod library;
mod method_forms;
pub(crate) mod methods;
pub(crate) mod module;
pub(crate) mod npu_format;
mod npu_quant;
pub(crate) mod ops;
mod padding;
mod return_types;
mod schema;
pub(crate) mod views;

use std::rc::Rc;

use super::api_table::{self, ApiKind};
use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::{DTypeFamily, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTorchMessage};
use crate::tensor::DType;

/// `module.name` for `torch`, `torch.testing`, `torch.nn`, `torch.nn.functional`, `torch.npu`
/// (and `torch_npu`, imported by real tests for its side effect): functions and
/// submodules through the API table, dtypes as dtype values.
pub(crate) fn module_attribute(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Value> {
    let qualified = format!("{module}.{name}");
    match qualified.as_str() {
        "torch.nn.Module" => return Ok(Value::Class(interpreter.torch_module_class())),
        _ if npu_format::attribute(interpreter, module, name).is_some() => {
            return Ok(npu_format::attribute(interpreter, module, name).unwrap_or(Value::None))
        }
        _ if module == "torch.ops" || module.starts_with("torch.ops.") => {
            return library::ops_attribute(interpreter, module, name, span)
        }
        // torch_npu registers the NPU as `torch.npu`; its own `npu` is the same module.
        "torch_npu.npu" => return Ok(Value::Module(Rc::from("torch.npu"))),
        "torch_npu.npu.config" => return Ok(Value::Module(Rc::from("torch.npu.config"))),
        "torch.nan" => return Ok(Value::Float(f64::NAN)),
        "torch.inf" => return Ok(Value::Float(f64::INFINITY)),
        "torch.pi" => return Ok(Value::Float(std::f64::consts::PI)),
        "torch.e" => return Ok(Value::Float(std::f64::consts::E)),
        _ => {}
    }
    match api_table::lookup(&qualified).map(|entry| entry.kind) {
        Some(ApiKind::Function) => Ok(Value::Builtin(Rc::from(qualified.as_str()))),
        Some(ApiKind::Module) => Ok(Value::Module(Rc::from(qualified.as_str()))),
        Some(ApiKind::Constant) => match dtype_named(name) {
            Some(Ok(dtype)) => Ok(Value::DType(dtype, DTypeFamily::Torch)),
            // A dtype pypto names but the tensor core does not hold (uint16 …) is pypto's name for it.
            Some(Err(pypto_name)) if pypto_name.starts_with("DT_UINT") && pypto_name != "DT_UINT8" => {
                super::pypto::module_attribute(interpreter, "pypto", pypto_name, span)
            }
            Some(Err(pypto_name)) => {
                pypto_dtype(interpreter, pypto_name, span).map(|dtype| Value::DType(dtype, DTypeFamily::Torch))
            }
            None => Err(interpreter
                .error(ErrorKind::Attribute, "", span)
                .with_message(LibraryMessage::NoValueHere { name: qualified.clone() })),
        },
        _ => Err(crate::lang::interp::pypto::missing_attribute(
            interpreter,
            module,
            name,
            LibraryMessage::TorchCovers { module: module.to_string() }.into(),
            span,
        )),
    }
}

/// The dtype of the torch name `name` (`float32`, `half` …); `Err` holds the pypto name of an
/// integer or boolean dtype, which is whatever `pypto.DT_…` of that name is.
pub(crate) fn dtype_named(name: &str) -> Option<std::result::Result<DType, &'static str>> {
    match name {
        "float32" | "float" => Some(Ok(DType::F32)),
        "float16" | "half" => Some(Ok(DType::F16)),
        "bfloat16" => Some(Ok(DType::Bf16)),
        "float64" | "double" => Some(Ok(DType::F64)),
        // torch's quantised dtypes, as torch_npu's quantisation ops take them: int8 and uint8 here.
        "int8" | "qint8" => Some(Err("DT_INT8")),
        "uint8" | "quint8" => Some(Err("DT_UINT8")),
        "int16" => Some(Err("DT_INT16")),
        "uint16" => Some(Err("DT_UINT16")),
        "uint32" => Some(Err("DT_UINT32")),
        "uint64" => Some(Err("DT_UINT64")),
        "int32" | "int" => Some(Err("DT_INT32")),
        "int64" | "long" => Some(Err("DT_INT64")),
        "bool" => Some(Err("DT_BOOL")),
        _ => None,
    }
}

/// The integer or boolean dtype `pypto.<pypto_name>` (`DT_INT32` …), so torch's names mean exactly
/// what pypto's do; an error naming it while the tensor core does not hold it.
pub(crate) fn pypto_dtype(interpreter: &Interpreter, pypto_name: &str, span: Span) -> Result<DType> {
    match super::pypto::module_attribute(interpreter, "pypto", pypto_name, span) {
        Ok(Value::DType(dtype, _)) => Ok(dtype),
        _ => {
            let torch_name = pypto_name.trim_start_matches("DT_").to_lowercase();
            Err(interpreter
                .error(ErrorKind::Unsupported, "", span)
                .with_message(LibraryTorchMessage::DtypeNotAvailable { dtype: torch_name })
                .with_help_message(LibraryTorchMessage::FloatDtypes))
        }
    }
}

/// Calls the `torch` function with qualified name `name`, charging its result to the step budget.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let short = name.strip_prefix("torch.").unwrap_or(name);
    // pypto traces a kernel by running its Python: a torch call there runs on the host as it
    // would anywhere (a helper that builds its config with `torch.tensor(…)`). One given a tensor
    // is the mistake: the kernel's tensors are pypto's, and its ops pypto's.
    let given_tensor = arguments.positional.iter().map(|(value, _)| value);
    if interpreter.in_kernel()
        && given_tensor.chain(arguments.keywords.iter().map(|(_, value, _)| value)).any(holds_tensor)
    {
        return Err(host_only(interpreter, name, short.rsplit('.').next().unwrap_or(short), span));
    }
    // torch's argument parser takes numpy's names too: `axis` for `dim`, `keepdims` for `keepdim`.
    let mut arguments = arguments;
    for (keyword, _, _) in arguments.keywords.iter_mut() {
        match keyword.as_str() {
            "axis" => *keyword = "dim".to_string(),
            "keepdims" => *keyword = "keepdim".to_string(),
            _ => {}
        }
    }
    if let ("matmul" | "mm" | "bmm", [(a, _), (b, _), ..]) = (short, arguments.positional.as_slice()) {
        interpreter.charge_matmul(a, b, false, span)?;
    }
    if let Some(method) = short.strip_prefix("nn.Module.") {
        return module::call(interpreter, method, arguments, span);
    }
    let device = device::of_call(interpreter, name, &arguments)?;
    let result = match short {
        "device" => device::construct(interpreter, arguments, span),
        "nn.Parameter" => {
            let bound = interpreter.bind(name, &["data", "requires_grad"], arguments, false, span)?;
            let tensor = bound.tensor(0)?.tensor().clone();
            let var = crate::autograd::Var::try_new(tensor, bound.flag(1, true)?)
                .map_err(|error| interpreter.autograd_error(error, bound.span_of(0)))?;
            Ok(super::value::TensorObject::value(var))
        }
        "manual_seed" | "randn" | "rand" | "randint" | "randperm" | "zeros" | "ones" | "empty" | "full" | "tensor"
        | "Tensor" | "arange" | "eye" | "zeros_like" | "ones_like" | "empty_like" | "full_like" | "randn_like"
        | "rand_like" => creation::call(interpreter, short, arguments, span),
        "allclose" | "equal" | "testing.assert_close" => checks::call(interpreter, short, arguments, span),
        "is_tensor" | "from_numpy" => convert::torch_call(interpreter, short, arguments, span),
        "is_floating_point" => {
            let tensor = interpreter.bind(name, &["input"], arguments, false, span)?.tensor(0)?;
            Ok(Value::Bool(tensor.dtype().is_float()))
        }
        // The same triangles as pypto's (`input`, `diagonal` are torch's names too).
        "triu" | "tril" => super::pypto::functions::call(interpreter, short, arguments, span),
        "library.Library" | "library.impl" | "library.define" | "library.register_fake" => {
            library::call(interpreter, short, arguments, span)
        }
        _ if short.starts_with("ops.") => library::call_operator(interpreter, &short["ops.".len()..], arguments, span),
        "_subclasses.fake_tensor.FakeTensor" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Err(interpreter.coded(ErrorKind::Type, crate::messages::LibraryOperatorMessage::NoFakeTensors, span))
        }
        "_dynamo.allow_in_graph" => Ok(interpreter.bind(name, &["fn"], arguments, false, span)?.required(0)?.clone()),
        "square" | "std" => method_forms::function(interpreter, short, arguments, span),
        "torch_npu.npu_format_cast" | "torch_npu.get_npu_format" => {
            npu_format::call(interpreter, short, arguments, span)
        }
        _ if npu_quant::FUNCTIONS.contains(&short) => npu_quant::call(interpreter, short, arguments, span),
        // The same context as `pypto.no_grad()`: nothing in the block is recorded for backward.
        "no_grad" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Ok(Value::object(super::value::Object::NoGrad))
        }
        "inference_mode" => {
            interpreter.bind(name, &["mode"], arguments, false, span)?;
            Ok(Value::object(super::value::Object::NoGrad))
        }
        "autograd.grad" => autograd_grad(interpreter, arguments, span),
        "npu.synchronize" | "npu.set_device" | "npu.current_device" | "npu.empty_cache" | "npu.is_available" => {
            device_call(interpreter, short, arguments, span)
        }
        _ if padding::FUNCTIONS.contains(&short) => padding::call(interpreter, arguments, span),
        _ if element_classes::FUNCTIONS.contains(&short) => element_classes::call(interpreter, short, arguments, span),
        _ if golden_functions::FUNCTIONS.contains(&short) => {
            golden_functions::call(interpreter, short, arguments, span)
        }
        _ => ops::call(interpreter, short, arguments, span),
    }?;
    interpreter.charge_result(&result, span)?;
    TensorObject::mark_torch(&result);
    if let Some(device) = device {
        device::place(&result, device);
    }
    Ok(result)
}

/// Whether `value` is a tensor or a list, tuple or dict holding one.
fn holds_tensor(value: &Value) -> bool {
    match value {
        Value::Tensor(_) => true,
        Value::List(items) => items.borrow().iter().any(holds_tensor),
        Value::Tuple(items) => items.iter().any(holds_tensor),
        Value::Dict(entries) => entries.borrow().iter().any(|(key, item)| holds_tensor(key) || holds_tensor(item)),
        _ => false,
    }
}

/// The error for torch inside a kernel: torch is the host side (inputs and goldens); a kernel's
/// ops are pypto's, which the NPU runs. Names the pypto function of the same name when there is one.
pub(crate) fn host_only(interpreter: &Interpreter, what: &str, short: &str, span: Span) -> super::error::RuntimeError {
    let error = interpreter
        .error(ErrorKind::Unsupported, "", span)
        .with_message(LibraryMessage::HostOnly { name: what.to_string() });
    match api_table::lookup(&format!("pypto.{short}")) {
        Some(_) => error.with_help_message(LibraryMessage::UseInKernel { function: format!("pypto.{short}") }),
        None => error.with_help_message(LibraryMessage::PyptoOrTorch),
    }
}

/// `torch.npu.synchronize()`, `set_device(device)`, `current_device()`: the simulated NPU is one
/// device (0) and a kernel call returns once its outputs are written, so there is nothing to wait
/// for or select.
fn device_call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    match name {
        "npu.set_device" => {
            let bound = interpreter.bind(&full, &["device"], arguments, false, span)?;
            bound.required(0)?;
            Ok(Value::None)
        }
        "npu.current_device" => {
            interpreter.bind(&full, &[], arguments, false, span)?;
            Ok(Value::Int(0))
        }
        // The simulated NPU is always there.
        "npu.is_available" => {
            interpreter.bind(&full, &[], arguments, false, span)?;
            Ok(Value::Bool(true))
        }
        _ => {
            interpreter.bind(&full, &[], arguments, false, span)?;
            Ok(Value::None)
        }
    }
}

/// A `dtype=` argument: a dtype value, or `None` for `default`.
pub(crate) fn dtype_argument(
    interpreter: &Interpreter,
    function: &str,
    value: Option<&Value>,
    default: DType,
    span: Span,
) -> Result<DType> {
    match value {
        None | Some(Value::None) => Ok(default),
        Some(Value::DType(dtype, _)) => Ok(*dtype),
        Some(other) => Err(interpreter
            .error(ErrorKind::Type, "", span)
            .with_message(LibraryMessage::ArgumentType {
                function: function.to_string(),
                parameter: "dtype".into(),
                expected: Kind::TorchDtype,
                got: other.type_name().to_string(),
            })
            .with_help_message(LibraryTorchMessage::TorchDtypes)),
    }
}

/// The shape of a call written either way torch allows: `f(2, 3)` or `f((2, 3))` / `f([2, 3])`.
pub(crate) fn shape_of(
    interpreter: &Interpreter,
    function: &str,
    positional: &[(Value, Span)],
    span: Span,
) -> Result<Vec<usize>> {
    match positional {
        [(value @ (Value::List(_) | Value::Tuple(_)), item_span)] => interpreter.to_shape(value, *item_span, function),
        items => {
            let dims = Value::tuple(items.iter().map(|(value, _)| value.clone()).collect());
            interpreter.to_shape(&dims, items.first().map_or(span, |(_, item_span)| *item_span), function)
        }
    }
}

/// `torch.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
/// allow_unused=None)`: `pypto.autodiff.grad`, as a tuple (one gradient per input, as torch gives
/// it); an input the outputs do not depend on is torch's error unless `allow_unused=True`.
fn autograd_grad(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let names = ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "allow_unused"];
    let bound = interpreter.bind("torch.autograd.grad", &names, arguments, false, span)?;
    let mut forwarded = Arguments { positional: Vec::new(), keywords: Vec::new() };
    for (index, keyword) in [(0, "outputs"), (1, "inputs"), (2, "grad_outputs"), (4, "create_graph")] {
        if let Some((value, value_span)) = &bound.values[index] {
            forwarded.keywords.push((keyword.to_string(), value.clone(), *value_span));
        }
    }
    let gradients = super::pypto::call(interpreter, "pypto.autodiff.grad", forwarded, span)?;
    let gradients = match &gradients {
        Value::List(items) => items.borrow().clone(),
        _ => vec![gradients],
    };
    if !bound.flag(5, false)? && gradients.iter().any(|gradient| matches!(gradient, Value::None)) {
        return Err(interpreter.coded(ErrorKind::Autograd, LibraryTorchMessage::UnusedInput, bound.span_of(1)));
    }
    Ok(Value::tuple(gradients))
}
