//! pypto's configuration calls: the `@pypto.options(...)` decorator and `pypto.set_pass_options`,
//! `set_options`, `set_semantic_label`, `set_matrix_size`, `reset_options`, `experimental.set_operation_options`. Options a
//! kernel carries (`@pypto.options` over a jit kernel) take effect like the jit decorator's own; a
//! scope (`with pypto.options(…)`, `@pypto.options` over a function, `set_pass_options` inside
//! them) reaches the kernels called in it (`option_scopes`); the global forms are accepted and
//! validated, and a modelled option given where it has no effect here is a warning that says where
//! to give it instead.

use std::rc::Rc;

use super::options::{effect, Effect, PASS_OPTIONS, RUNTIME_OPTIONS};
use super::spec::ApiObject;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Kernel, Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage};

/// The options of one `pypto.options(...)` call, validated.
#[derive(Clone)]
pub struct ScopedOptions {
    /// `pass_options`, in the order given.
    pub pass_options: Vec<(String, Value)>,
    /// `runtime_options`, in the order given.
    pub runtime_options: Vec<(String, Value)>,
    /// Other fields given (`vec_tile_shapes`, `codegen_options` …): accepted, not modelled.
    pub other: Vec<String>,
}

/// The parameters of `pypto.options`, as pypto declares them.
const OPTIONS_PARAMETERS: [&str; 12] = [
    "name",
    "codegen_options",
    "host_options",
    "pass_options",
    "runtime_options",
    "verify_options",
    "operation_options",
    "debug_options",
    "vec_tile_shapes",
    "cube_tile_shapes",
    "conv_tile_shapes",
    "matrix_size",
];

/// The keywords of `pypto.set_pass_options`, as pypto declares them.
const SET_PASS_OPTIONS: [&str; 9] = [
    "vec_nbuffer_setting",
    "cube_l1_reuse_setting",
    "cube_nbuffer_setting",
    "sg_set_scope",
    "sg_set_ooo_scope",
    "ooo_sched_mode",
    "auto_mix_partition",
    "sg_set_tunevf_mode",
    "enable_slice",
];

/// Calls a configuration function of `pypto` (`options`, `set_pass_options` …).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    match name {
        "options" => {
            let bound = interpreter.bind(&full, &OPTIONS_PARAMETERS, arguments, false, span)?;
            let pass_options =
                interpreter.options(bound.optional(3), "pass_options", &PASS_OPTIONS, bound.span_of(3))?;
            let runtime_options =
                interpreter.options(bound.optional(4), "runtime_options", &RUNTIME_OPTIONS, bound.span_of(4))?;
            let other = OPTIONS_PARAMETERS
                .iter()
                .enumerate()
                .filter(|(index, parameter)| {
                    !matches!(**parameter, "name" | "pass_options" | "runtime_options")
                        && bound.optional(*index).is_some()
                })
                .map(|(_, parameter)| parameter.to_string())
                .collect();
            let options = ScopedOptions { pass_options, runtime_options, other };
            Ok(Value::object(Object::Api(ApiObject::Options(Rc::new(options)))))
        }
        "set_pass_options" | "set_options" => {
            let (pass, runtime) = if name == "set_pass_options" {
                let bound = interpreter.bind(&full, &SET_PASS_OPTIONS, arguments, false, span)?;
                let given = SET_PASS_OPTIONS
                    .iter()
                    .enumerate()
                    .filter_map(|(index, key)| bound.optional(index).map(|value| (Value::string(*key), value.clone())))
                    .collect();
                (Some(Value::dict(given)), None)
            } else {
                let bound = interpreter.bind(&full, &OPTIONS_PARAMETERS[1..], arguments, false, span)?;
                (bound.optional(2).cloned(), bound.optional(3).cloned())
            };
            let pass = interpreter.options(pass.as_ref(), "pass_options", &PASS_OPTIONS, span)?;
            let runtime = interpreter.options(runtime.as_ref(), "runtime_options", &RUNTIME_OPTIONS, span)?;
            // Inside `with pypto.options(…)` they change that scope, as pypto's do.
            if !interpreter.set_scoped_options(&pass, &runtime) {
                warn_unapplied(interpreter, &full, pass.iter().chain(&runtime), span);
            }
            Ok(Value::None)
        }
        "set_host_options" => {
            let names = [
                "compile_stage",
                "compile_monitor_enable",
                "compile_timeout",
                "compile_timeout_stage",
                "compile_monitor_print_interval",
            ];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            // The compile monitor's settings only time pypto's compiler: nothing to watch here. A
            // stage other than ALL_COMPLETE stops pypto's compiler early; kernels here always run.
            let stage = bound.optional(0);
            let complete =
                stage.is_none_or(|stage| super::copies::enum_member_name(stage, "CompStage") == Some("ALL_COMPLETE"));
            if !complete {
                let message = crate::messages::NpuMessage::OptionNotModelled {
                    table: "host_options".into(),
                    key: "compile_stage".into(),
                    feature: crate::messages::OptionFeature::CompileStage,
                };
                interpreter.warn_message("npu/option-not-modelled", message.into(), bound.span_of(0), None);
            }
            Ok(Value::None)
        }
        "set_semantic_label" => {
            let bound = interpreter.bind(&full, &["label"], arguments, false, span)?;
            let label = match bound.required(0)? {
                Value::Str(label) => label.clone(),
                other => {
                    let message = LibraryMessage::ArgumentType {
                        function: full.clone(),
                        parameter: "label".into(),
                        expected: Kind::Str,
                        got: other.type_name().to_string(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(message));
                }
            };
            // pypto refuses labels that read as its per-function keys (`func{magic}_{order}`).
            let digits = |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
            let reserved = label
                .strip_prefix("func")
                .and_then(|rest| rest.split_once('_'))
                .is_some_and(|(magic, order)| digits(magic) && digits(order));
            if reserved {
                let message = LibraryKernelMessage::ReservedLabel { function: full.clone(), label: label.to_string() };
                return Err(interpreter
                    .error(ErrorKind::Value, "", bound.span_of(0))
                    .with_message(message)
                    .with_help_message(LibraryKernelMessage::OtherLabel));
            }
            Ok(Value::None)
        }
        "set_matrix_size" => {
            let bound = interpreter.bind(&full, &["size"], arguments, false, span)?;
            bound.shape(0)?;
            Ok(Value::None)
        }
        "get_vec_tile_shapes" | "get_cube_tile_shapes" => {
            interpreter.bind(&full, &[], arguments, false, span)?;
            // The running kernel's settings; outside a kernel, those the last kernel call ended with
            // (pypto's scope outlives the kernel the same way).
            let running = interpreter
                .npu
                .kernel_frames
                .borrow()
                .last()
                .map(|frame| (frame.vec_tile_shapes.clone(), frame.cube_tile_shapes));
            let (vec_tile, cube_tiles) = running.unwrap_or_else(|| interpreter.npu.last_tiles.borrow().clone());
            let ints = |dims: &[usize]| Value::list(dims.iter().map(|&dim| Value::Int(dim as i64)).collect());
            Ok(match name {
                "get_vec_tile_shapes" => ints(&vec_tile.unwrap_or_default()),
                _ => match cube_tiles {
                    // pypto adds `enable_split_k`, which `set_cube_tile_shapes` leaves False here.
                    Some([m, k, n]) => Value::list(vec![ints(&m), ints(&k), ints(&n), Value::Bool(false)]),
                    None => Value::list(Vec::new()),
                },
            })
        }
        "experimental.set_operation_options" => {
            // `combine_axis` asks pypto's code generator to fuse axes: no effect on values.
            let bound = interpreter.bind(&full, &["combine_axis"], arguments, false, span)?;
            bound.flag(0, false)?;
            Ok(Value::None)
        }
        _ => {
            // `reset_options`: back to pypto's defaults, which kernels here start from anyway.
            interpreter.bind(&full, &[], arguments, false, span)?;
            Ok(Value::None)
        }
    }
}

/// The parameters of `pypto.frontend.jit`, as pypto declares them.
const JIT_PARAMETERS: [&str; 8] = [
    "host_options",
    "codegen_options",
    "pass_options",
    "runtime_options",
    "verify_options",
    "debug_options",
    "new_ir",
    "create_new_logical_tensor",
];

/// `pypto.frontend.jit` / `pypto.jit`, bare or with pypto's keywords: pass and runtime options go to
/// the kernel decorator; the compiler's other settings are accepted with one not-modelled note.
pub(crate) fn jit(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    if matches!(arguments.positional.first(), Some((Value::Function(_), _))) {
        return super::kernel::call(interpreter, "frontend.jit", arguments, span);
    }
    let bound = interpreter.bind("pypto.frontend.jit", &JIT_PARAMETERS, arguments, false, span)?;
    let ignored: Vec<&str> = [0, 1, 4, 5, 6, 7]
        .into_iter()
        .filter(|&index| bound.optional(index).is_some())
        .map(|index| JIT_PARAMETERS[index])
        .collect();
    if !ignored.is_empty() {
        let message = crate::messages::NpuMessage::JitOptionsNotModelled { names: ignored.join(", ") };
        interpreter.warn_message("npu/option-not-modelled", message.into(), span, None);
    }
    let keywords = [2, 3]
        .into_iter()
        .filter_map(|index| {
            bound.values[index]
                .clone()
                .map(|(value, value_span)| (JIT_PARAMETERS[index].to_string(), value, value_span))
        })
        .collect();
    let forwarded = Arguments { positional: Vec::new(), keywords };
    super::kernel::call(interpreter, "frontend.jit", forwarded, span)
}

/// Warns when an option the simulator models is given where no kernel reads it.
fn warn_unapplied<'a>(
    interpreter: &Interpreter,
    what: &str,
    options: impl Iterator<Item = &'a (String, Value)>,
    span: Span,
) {
    let modelled: Vec<&str> = options
        .filter(|(key, _)| key != "run_mode")
        .filter(|(key, _)| {
            matches!(effect(&PASS_OPTIONS, key).or(effect(&RUNTIME_OPTIONS, key)), Some(Effect::Modelled(_)))
        })
        .map(|(key, _)| key.as_str())
        .collect();
    if !modelled.is_empty() {
        let message = crate::messages::NpuMessage::OptionScopeNotModelled {
            function: what.to_string(),
            names: modelled.join(", "),
        };
        let help = crate::messages::NpuMessage::GiveOptionsToKernel;
        interpreter.warn_message("npu/option-scope-not-modelled", message.into(), span, Some(help.into()));
    }
}

/// `@pypto.options(...)` applied to `target`: a kernel gets the options (its own decorator's
/// options win on the same key, as pypto's innermost scope does); a plain function opens the
/// options' scope each time it is called (the kernels it calls use them).
pub(crate) fn decorate(interpreter: &Interpreter, options: &ScopedOptions, target: Value, span: Span) -> Result<Value> {
    interpreter.note_unmodelled_options(options, span);
    match &target {
        Value::Kernel(kernel) => Ok(Value::Kernel(Rc::new(Kernel {
            name: kernel.name.clone(),
            function: kernel.function.clone(),
            style: kernel.style,
            pass_options: merged(&options.pass_options, &kernel.pass_options),
            runtime_options: merged(&options.runtime_options, &kernel.runtime_options),
            checked: std::cell::Cell::new(false),
        }))),
        // Every call of the function opens the options' scope for the kernels it calls.
        Value::Function(_) => {
            Ok(Value::object(Object::WithOptions { options: Rc::new(options.clone()), function: target }))
        }
        other => Err(interpreter
            .error(ErrorKind::Type, "", span)
            .with_message(LibraryKernelMessage::OptionsTarget { got: other.type_name().to_string() })),
    }
}

/// `outer` then `inner`, an inner key replacing the outer one.
pub(crate) fn merged(outer: &[(String, Value)], inner: &[(String, Value)]) -> Vec<(String, Value)> {
    let mut options: Vec<(String, Value)> =
        outer.iter().filter(|(key, _)| !inner.iter().any(|(other, _)| other == key)).cloned().collect();
    options.extend(inner.iter().cloned());
    options
}
