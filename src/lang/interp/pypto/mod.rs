//! The `pypto` module (DESIGN §2): names, dispatch of its functions, its objects' attributes, and
//! the conversion of tensor and autograd errors into runtime errors at a span.

pub mod autodiff;
mod backward;
pub mod capture;
pub mod check;
pub mod check_sides;
pub mod config;
pub mod copies;
pub mod cost_model_output;
pub mod creation;
pub mod experimental;
pub mod functions;
pub mod generated_backward;
pub mod kernel;
pub mod kernel_call;
pub mod loops;
mod matmul_extend;
pub mod methods;
mod new_axes;
pub mod npu_context;
pub mod npu_run;
pub mod npu_use;
pub mod npu_values;
pub mod option_scopes;
pub mod options;
mod paged_gather;
mod pypto_impl;
mod recent_plans;
pub mod scaler;
pub mod schedule;
pub mod spec;
pub mod sweep;
pub mod symbolic;
pub mod tensor_ops;
mod tensor_ops_owned;
mod tensor_ref;
pub mod traces;
mod unit_tensor_index;
pub mod vec_tiles;
pub mod work_batched;
pub mod work_compute;
pub mod work_jit;
pub mod work_ops;
pub mod work_shapes;
pub mod work_vector;

use std::rc::Rc;

use super::api_table::{self, ApiKind};
use super::error::{ErrorKind, Result, RuntimeError};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::{Object, TensorObject, Value};
use crate::autograd::{AutogradError, Var};
use crate::error::TensorError;
use crate::lang::syntax::Span;
use crate::npu::NpuConfig;

/// `module.name` for the `pypto` modules, resolved through the API table (the same table the
/// editor's completion and `help()` read); a misspelt name suggests the closest one.
pub(crate) fn module_attribute(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Value> {
    // `pypto.operation`'s names other than `op_wrapper` are `pypto`'s own (pypto re-exports the
    // module whole), so `operation.view` is `pypto.view` and dispatches as it.
    if module == "pypto.operation" && name != "op_wrapper" && api_table::lookup(&format!("{module}.{name}")).is_some() {
        return module_attribute(interpreter, "pypto", name, span);
    }
    let qualified = format!("{module}.{name}");
    let kind = api_table::lookup(&qualified).map(|entry| entry.kind);
    if kind == Some(ApiKind::Constant) {
        if let Some(value) = spec::constant(interpreter, module, name, span)? {
            return Ok(value);
        }
    }
    match kind {
        // `pypto.jit` is pypto's alias of `pypto.frontend.jit` (hello world uses it).
        Some(ApiKind::Function) if qualified == "pypto.jit" => Ok(Value::Builtin(Rc::from("pypto.frontend.jit"))),
        Some(ApiKind::Function) => Ok(Value::Builtin(Rc::from(qualified.as_str()))),
        Some(ApiKind::Module) => Ok(Value::Module(Rc::from(qualified.as_str()))),
        _ => {
            let help = crate::messages::LibraryMessage::ModuleLists { module: module.to_string() };
            Err(missing_attribute(interpreter, module, name, help.into(), span))
        }
    }
}

/// The error for `module.name` that the API table does not have: the closest member as a "did you
/// mean", else `fallback_help` (shared by every table-driven module).
pub(crate) fn missing_attribute(
    interpreter: &Interpreter,
    module: &str,
    name: &str,
    fallback_help: crate::messages::Message,
    span: Span,
) -> crate::lang::interp::error::RuntimeError {
    let error = interpreter.error(ErrorKind::Attribute, String::new(), span).with_message(
        crate::messages::Message::NoModuleAttribute { module: module.to_string(), name: name.to_string() },
    );
    match api_table::closest(name, api_table::members(module).map(|entry| entry.short_name())) {
        Some(near) => {
            error.with_help_message(crate::messages::Message::DidYouMean { suggestion: format!("{module}.{near}") })
        }
        None => error.with_help_message(fallback_help),
    }
}

/// Calls the `pypto` function with qualified name `name`, charging its work to the step budget
/// (a matmul before it runs, any other op by the tensors it returns).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let short = name.strip_prefix("pypto.").unwrap_or(name);
    if let ("matmul", [(a, _), (b, _), ..]) = (short, arguments.positional.as_slice()) {
        let keyword = arguments.keywords.iter().find(|(key, _, _)| key == "a_trans");
        let a_transposed = keyword.map(|(_, value, _)| value).or(arguments.positional.get(3).map(|(value, _)| value));
        interpreter.charge_matmul(a, b, a_transposed.is_some_and(|value| value.truthy() == Some(true)), span)?;
    }
    let result = call_unmetered(interpreter, short, arguments, span)?;
    interpreter.charge_result(&result, span)?;
    Ok(result)
}

fn call_unmetered(interpreter: &Interpreter, short: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match short {
        "tensor" | "zeros" | "ones" | "full" | "arange" | "randn" | "rand" | "manual_seed" | "zeros_like"
        | "ones_like" => {
            recorded(interpreter, short, arguments, |arguments| creation::call(interpreter, short, arguments, span))
        }
        // Data made inside a kernel has no NPU form (it is not one value): captured as unsupported.
        "as_tensor" => {
            recorded(interpreter, short, arguments, |arguments| creation::call(interpreter, short, arguments, span))
        }
        "Tensor" => spec::construct(interpreter, arguments, span),
        "frontend.dynamic" => spec::dynamic(interpreter, arguments, span),
        "experimental.gather_in_ub" => recorded(interpreter, short, arguments, |arguments| {
            paged_gather::gather_in_ub(interpreter, arguments, span)
        }),
        "experimental.gather_in_l1" => recorded(interpreter, short, arguments, |arguments| {
            paged_gather::gather_in_l1(interpreter, arguments, span)
        }),
        "experimental.transposed_batchmatmul" => recorded(interpreter, short, arguments, |arguments| {
            experimental::transposed_batchmatmul(interpreter, arguments, span)
        }),
        "frontend.jit" => config::jit(interpreter, arguments, span),
        "function" => option_scopes::record_function(interpreter, arguments, span),
        "runtime._device_run_once_data_from_host" => interpreter.run_recorded_on(arguments, span),
        // The simulated NPU needs no device set-up, and a kernel call returns with its outputs written.
        "runtime._device_init" | "runtime._device_fini" | "runtime._device_synchronize" => {
            interpreter.bind(&format!("pypto.{short}"), &[], arguments, false, span)?;
            Ok(Value::None)
        }
        // pypto's wrapper converts between its two tensor kinds; here there is one: `func` itself.
        "operation.op_wrapper" => {
            let bound = interpreter.bind("pypto.operation.op_wrapper", &["func"], arguments, false, span)?;
            Ok(bound.required(0)?.clone())
        }
        _ if pypto_impl::handles(short) => pypto_impl::call(interpreter, short, arguments, span),
        "pypto_impl.GetCompilerMonitorTotalElapsed" => {
            interpreter.bind(&format!("pypto.{short}"), &[], arguments, false, span)?;
            Ok(Value::Float(interpreter.npu.compile_seconds.get()))
        }
        "options"
        | "set_pass_options"
        | "set_host_options"
        | "set_options"
        | "set_semantic_label"
        | "set_matrix_size"
        | "reset_options"
        | "get_vec_tile_shapes"
        | "get_cube_tile_shapes"
        | "experimental.set_operation_options" => config::call(interpreter, short, arguments, span),
        "loop" | "loop_unroll" | "is_loop_begin" | "is_loop_end" | "ceildiv" | "min" | "max" | "cond"
        | "symbolic_scalar" | "SymbolicScalar" => loops::call(interpreter, short, arguments, span),
        // A cast with a rounding or saturation mode records its own ops (the rounding, then the
        // plain cast), so a kernel's recorder sees what the modes compute.
        "cast"
            if arguments.positional.len() > 2
                || arguments.keywords.iter().any(|(key, _, _)| key == "mode" || key == "satmode") =>
        {
            copies::call(interpreter, short, arguments, span)
        }
        "reshape" | "clone" | "expand_clone" | "cast" => {
            recorded(interpreter, short, arguments, |arguments| copies::call(interpreter, short, arguments, span))
        }
        "schedule" => schedule::call(interpreter, arguments, span),
        // Two results: `topk` records its indices and values itself; `scatter_update` returns its
        // input, written in place (its capture marks the write).
        "topk" | "scatter_update" => functions::call(interpreter, short, arguments, span),
        "npu.sweep" => sweep::call(interpreter, arguments, span),
        "kernel" | "set_vec_tile_shapes" | "set_cube_tile_shapes" | "save_for_backward" => {
            kernel::call(interpreter, short, arguments, span)
        }
        "register_gradient"
        | "checkpoint"
        | "no_grad"
        | "graph"
        | "autodiff.grad"
        | "autodiff.check_gradient"
        | "autodiff.policy"
        | "autodiff.last_backward" => autodiff::call(interpreter, short, arguments, span),
        "autodiff.LossScaler" => scaler::construct(interpreter, arguments, span),
        "allclose" | "assert_allclose" => check::call(interpreter, short, arguments, span),
        "from_torch" | "to_torch" => crate::lang::interp::torch::convert::call(interpreter, short, arguments, span),
        "npu.use" => npu_use::call(interpreter, arguments, span),
        "npu.config" => {
            interpreter.bind("pypto.npu.config", &[], arguments, false, span)?;
            let config = interpreter.npu_config(span)?;
            let mut json = serde_json::to_value(&config).map_err(|error| {
                let reason = Box::new(crate::messages::Message::Text { text: error.to_string() });
                let message =
                    crate::messages::LibraryKernelMessage::Failed { function: "pypto.npu.config".into(), reason };
                interpreter.error(ErrorKind::Value, "", span).with_message(message)
            })?;
            // `preset` is the name scripts select with `npu.use`; the rest is every parameter of the chip.
            if let serde_json::Value::Object(entries) = &mut json {
                entries.insert("preset".into(), serde_json::Value::String(config.name.clone()));
            }
            Ok(json_to_value(&json))
        }
        _ => recorded(interpreter, short, arguments, |arguments| functions::call(interpreter, short, arguments, span)),
    }
}

/// Runs a tensor function; inside a kernel, its op site captures it (or it is captured as an op
/// the NPU cannot run: see `Interpreter::captured_call`).
fn recorded(
    interpreter: &Interpreter,
    name: &str,
    arguments: Arguments,
    run: impl FnOnce(Arguments) -> Result<Value>,
) -> Result<Value> {
    interpreter.captured_call(name, || run(arguments))
}

/// A JSON value as a script value (objects become dicts with keys in the serialised order).
pub(crate) fn json_to_value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::None,
        serde_json::Value::Bool(flag) => Value::Bool(*flag),
        serde_json::Value::Number(number) => match number.as_i64() {
            Some(integer) => Value::Int(integer),
            None => Value::Float(number.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(text) => Value::string(text.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(json_to_value).collect()),
        serde_json::Value::Object(entries) => {
            Value::dict(entries.iter().map(|(key, item)| (Value::string(key.as_str()), json_to_value(item))).collect())
        }
    }
}

/// The NPU presets of DESIGN §3 (the simulator's table).
pub const PRESETS: [&str; 3] = crate::npu::PRESET_NAMES;

/// `object.name` for `pypto` objects.
pub(crate) fn object_attribute(
    interpreter: &Interpreter,
    value: &Value,
    object: &Object,
    name: &str,
    span: Span,
) -> Result<Value> {
    let found = match (object, name) {
        (Object::GradCheck { sides, .. }, "sides") => Some(Value::string(sides.text().as_str())),
        (Object::GradCheck { report, .. }, _) => autodiff::report_attribute(report, name),
        (Object::Schedule(simulation), _) => schedule::attribute(value, simulation, name),
        (Object::Sweep(table), _) => sweep::attribute(table, name),
        (Object::LossScaler(scaler), _) => scaler::attribute(value, scaler, name),
        (Object::Graph(graph), "num_nodes") => Some(Value::Int(graph.nodes.len() as i64)),
        (Object::Graph(graph), "num_backward_nodes") => Some(Value::Int(graph.backward_nodes.len() as i64)),
        // Bytes the tape holds for backward (every distinct saved buffer), and the same without the
        // leaves, which live anyway: what recomputing instead of saving shrinks.
        (Object::Graph(graph), "saved_bytes") => Some(Value::Int(graph.saved_bytes as i64)),
        (Object::Graph(graph), "saved_activation_bytes") => Some(Value::Int(graph.saved_activation_bytes as i64)),
        (Object::Graph(_), "to_dot") => Some(Value::Method(Rc::new((value.clone(), name.to_string())))),
        (Object::GradientContext { context, .. }, "outputs") => Some(Value::tuple(
            context.outputs.iter().map(|tensor| TensorObject::value(Var::constant(tensor.clone()))).collect(),
        )),
        (Object::GradientContext { attributes, .. }, "attrs") => Some(attributes.clone()),
        (Object::GradientContext { context, .. }, "name") => Some(Value::string(context.name.as_str())),
        (Object::Api(api), _) => api.attribute(name),
        _ => None,
    };
    found.ok_or_else(|| {
        let message = crate::messages::RuntimeMessage::NoAttribute {
            type_name: value.type_name().to_string(),
            name: name.to_string(),
        };
        interpreter.error(ErrorKind::Attribute, "", span).with_message(message)
    })
}

impl Interpreter {
    /// The configuration of the selected NPU preset.
    pub(crate) fn npu_config(&self, span: Span) -> Result<NpuConfig> {
        // A custom preset chosen by `pypto.npu.use({...})` or `--npu FILE.json`.
        if let Some(custom) = self.npu.custom.borrow().as_ref().filter(|custom| custom.name == self.npu_preset()) {
            return Ok(custom.clone());
        }
        NpuConfig::preset(&self.npu_preset())
            .map_err(|error| self.error(ErrorKind::Value, "", span).with_message(error.message()))
    }

    /// A runtime error from a failed tensor/autograd op, or the script error that a callback
    /// (a registered backward, a checkpointed function) raised inside it.
    pub(crate) fn autograd_error(&self, error: AutogradError, span: Span) -> RuntimeError {
        if let Some(pending) = self.pending.borrow_mut().take() {
            return pending;
        }
        match error {
            AutogradError::Tensor(tensor) => self.tensor_error(tensor, span),
            // The tensor's name is not known here (`x.backward()` names it in methods.rs).
            AutogradError::DoesNotRequireGrad { .. } => self
                .coded(
                    ErrorKind::BackwardWithoutGrad,
                    crate::messages::AutogradMessage::BackwardWithoutGradUnnamed,
                    span,
                )
                .with_help_message(crate::messages::AutogradMessage::CreateWithGrad),
            other => {
                let runtime = self.error(ErrorKind::Autograd, other.to_string(), span);
                match other.message() {
                    Some(message) => runtime.with_message(message),
                    None => runtime,
                }
            }
        }
    }

    /// A runtime error from a failed tensor op.
    pub(crate) fn tensor_error(&self, error: TensorError, span: Span) -> RuntimeError {
        let kind = match &error {
            TensorError::OutOfBounds { .. } => ErrorKind::ViewOutOfBounds,
            TensorError::AllocationTooLarge { .. } | TensorError::ElementCountOverflow { .. } => ErrorKind::SizeLimit,
            _ => ErrorKind::Tensor,
        };
        let runtime = self.error(kind, "", span).with_message(error.message());
        match error {
            TensorError::OutOfBounds { op: "view", .. } => {
                runtime.with_help_message(crate::messages::LibraryTensorMessage::ViewValidShape)
            }
            _ => runtime,
        }
    }

    /// Wraps an op's result as a tensor value.
    pub(crate) fn tensor_result(&self, result: crate::autograd::Result<Var>, span: Span) -> Result<Value> {
        result.map(TensorObject::value).map_err(|error| self.autograd_error(error, span))
    }

    /// Stores a script error raised inside an autograd callback; returns the autograd error that
    /// carries it out of the engine.
    pub(crate) fn stash(&self, error: RuntimeError, what: &str) -> AutogradError {
        let text = error.message.clone();
        *self.pending.borrow_mut() = Some(error);
        AutogradError::CustomOp {
            name: what.to_string(),
            detail: crate::messages::AutogradDetail::ScriptError { text },
        }
    }
}

#[cfg(test)]
mod capture_tests;
#[cfg(test)]
mod paged_gather_tests;
#[cfg(test)]
mod work_tests;
