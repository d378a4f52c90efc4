//! Kernels: the `@pypto.kernel` and `@pypto.frontend.jit` decorators, `run_kernel` (the one place
//! a kernel is executed: its body runs on the CPU reference path while its ops are recorded, then
//! the record is compiled and run on the simulated NPU, whose values the caller receives),
//! tile-shape settings (validated and recorded), `save_for_backward` (`pypto.loop` is in `loops`).

use std::rc::Rc;

use super::autodiff::{record_gradient_node, run_detached};
use super::npu_run::{chip_error, named_tensors, run_on_npu, wants_npu, NpuCall, Outcome};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::value::{Kernel, KernelStyle, Object, Value};
use crate::lang::syntax::ast::{ExprKind, Stmt, StmtKind};
use crate::lang::syntax::Span;
use crate::messages::KernelStage;
use crate::tensor::{DType, Tensor};

use super::options::{effect, Effect, PASS_OPTIONS, RUNTIME_OPTIONS};

/// Calls a kernel-related `pypto` function.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match name {
        "kernel" => {
            if let Some((function @ Value::Function(_), _)) = arguments.positional.first() {
                let function = function.clone();
                return interpreter.apply_decorator(Value::Builtin(Rc::from("pypto.kernel")), function, span);
            }
            let bound = interpreter.bind("pypto.kernel", &["name"], arguments, false, span)?;
            let name = bound.optional(0).map(crate::lang::interp::format::to_str);
            Ok(Value::object(Object::KernelDecorator { name }))
        }
        "frontend.jit" => {
            if let Some((function @ Value::Function(_), _)) = arguments.positional.first() {
                let function = function.clone();
                return interpreter.apply_decorator(Value::Builtin(Rc::from("pypto.frontend.jit")), function, span);
            }
            let bound =
                interpreter.bind("pypto.frontend.jit", &["pass_options", "runtime_options"], arguments, false, span)?;
            let pass_options =
                interpreter.options(bound.optional(0), "pass_options", &PASS_OPTIONS, bound.span_of(0))?;
            let runtime_options =
                interpreter.options(bound.optional(1), "runtime_options", &RUNTIME_OPTIONS, bound.span_of(1))?;
            Ok(Value::object(Object::JitDecorator { pass_options, runtime_options }))
        }
        "set_vec_tile_shapes" => {
            let bound = interpreter.bind("pypto.set_vec_tile_shapes", &[], arguments, true, span)?;
            let mut dims = Vec::new();
            for (value, value_span) in &bound.rest {
                match value.as_int() {
                    Some(dim) if dim > 0 => dims.push(dim as usize),
                    _ => {
                        return Err(interpreter.error(
                            ErrorKind::TileShape,
                            format!(
                                "set_vec_tile_shapes: tile dims are positive ints, not {}",
                                crate::lang::interp::format::repr(value)
                            ),
                            *value_span,
                        ))
                    }
                }
            }
            interpreter.set_vec_tiles(dims, bound.rest.last().map_or(span, |(_, last)| *last))?;
            if let Some(frame) = interpreter.npu.kernel_frames.borrow_mut().last_mut() {
                frame.vec_tile_site = Some(interpreter.at(span));
            }
            Ok(Value::None)
        }
        "set_cube_tile_shapes" => {
            let bound = interpreter.bind(
                "pypto.set_cube_tile_shapes",
                &["m", "k", "n", "enable_split_k"],
                arguments,
                false,
                span,
            )?;
            // pypto's split-K splits K over cores with an accumulating store: not modelled, the
            // flag is accepted so pypto code runs.
            bound.flag(3, false)?;
            let mut shapes = [[0usize; 2]; 3];
            for (index, label) in ["m", "k", "n"].iter().enumerate() {
                let pair =
                    interpreter.to_shape(bound.required(index)?, bound.span_of(index), "set_cube_tile_shapes")?;
                let valid = pair.len() == 2 && pair[0] > 0 && pair[1] % pair[0] == 0 && pair[0] % 16 == 0;
                if !valid {
                    return Err(interpreter
                        .error(ErrorKind::TileShape, format!("set_cube_tile_shapes: {label} tiles {pair:?} must be [{label}L0, {label}L1] with {label}L0 a multiple of 16 and {label}L1 a multiple of {label}L0"), bound.span_of(index))
                        .with_help("the cube unit works on 16×16 fractals; e.g. [64, 128]"));
                }
                shapes[index] = [pair[0], pair[1]];
            }
            if let Some(frame) = interpreter.npu.kernel_frames.borrow_mut().last_mut() {
                frame.cube_tile_shapes = Some(shapes);
                frame.cube_tile_site = Some(interpreter.at(span));
            }
            Ok(Value::None)
        }
        _ => {
            let bound = interpreter.bind("pypto.save_for_backward", &[], arguments, true, span)?;
            let mut frames = interpreter.npu.kernel_frames.borrow_mut();
            let Some(frame) = frames.last_mut() else {
                return Err(interpreter.error(
                    ErrorKind::Value,
                    "pypto.save_for_backward can only be called inside a @pypto.kernel",
                    span,
                ));
            };
            for (value, value_span) in bound.rest {
                if !matches!(value, Value::Tensor(_)) {
                    return Err(interpreter.error(
                        ErrorKind::Type,
                        format!("pypto.save_for_backward saves tensors, not {}", value.type_name()),
                        value_span,
                    ));
                }
                frame.saved.push(value);
            }
            Ok(Value::None)
        }
    }
}

impl Interpreter {
    /// Validates a `pass_options`/`runtime_options` dict against its table (warnings for unknown
    /// and not-modelled keys).
    pub(crate) fn options(
        &self,
        value: Option<&Value>,
        what: &str,
        table: &[(&str, Effect)],
        span: Span,
    ) -> Result<Vec<(String, Value)>> {
        let Some(value) = value else { return Ok(Vec::new()) };
        let Value::Dict(entries) = value else {
            return Err(self.error(ErrorKind::Type, format!("{what} must be a dict, not {}", value.type_name()), span));
        };
        let mut options = Vec::new();
        for (key, option) in entries.borrow().iter() {
            let key = crate::lang::interp::format::to_str(key);
            match effect(table, &key) {
                None => {
                    let known: Vec<&str> = table.iter().map(|(name, _)| *name).collect();
                    let message =
                        crate::messages::NpuMessage::UnknownOption { table: what.to_string(), key: key.clone() };
                    let help = crate::messages::NpuMessage::DocumentedOptions { known: known.join(", ") };
                    self.warn_message("lang/unknown-option", message.into(), span, Some(help.into()));
                }
                Some(Effect::NotModelled(what_it_does)) => {
                    let feature = what_it_does.to_string();
                    let message = crate::messages::NpuMessage::OptionNotModelled {
                        table: what.to_string(),
                        key: key.clone(),
                        feature,
                    };
                    self.warn_message("npu/option-not-modelled", message.into(), span, None)
                }
                Some(Effect::Modelled(_)) => {
                    let depth_option = key == "vec_nbuffer_setting" || key == "cube_nbuffer_setting";
                    if depth_option && super::options::buffer_depth(option).is_none() {
                        return Err(self
                            .error(
                                ErrorKind::Value,
                                format!(
                                    "{what} '{key}': {} is not a buffer depth",
                                    crate::lang::interp::format::repr(option)
                                ),
                                span,
                            )
                            .with_help("give a positive int, or pypto's {-1: default_depth, op_index: depth} form"));
                    }
                }
            }
            options.push((key, option.clone()));
        }
        Ok(options)
    }

    /// Applies a decorator to a function value.
    pub(crate) fn apply_decorator(&self, decorator: Value, function: Value, span: Span) -> Result<Value> {
        let Value::Function(function) = &function else {
            return self.call_values(&decorator, vec![function], span);
        };
        let function = function.clone();
        let kernel = |style, name: Option<String>, pass_options, runtime_options| {
            Value::Kernel(Rc::new(Kernel {
                name: name.unwrap_or_else(|| function.name.clone()),
                function: function.clone(),
                style,
                pass_options,
                runtime_options,
                checked: std::cell::Cell::new(false),
            }))
        };
        match &decorator {
            Value::Builtin(name) if name.as_ref() == "pypto.kernel" => {
                Ok(kernel(KernelStyle::Functional, None, Vec::new(), Vec::new()))
            }
            Value::Builtin(name) if name.as_ref() == "pypto.frontend.jit" => {
                Ok(kernel(KernelStyle::Jit, None, Vec::new(), Vec::new()))
            }
            Value::Object(object) => match object.as_ref() {
                Object::KernelDecorator { name } => {
                    Ok(kernel(KernelStyle::Functional, name.clone(), Vec::new(), Vec::new()))
                }
                Object::JitDecorator { pass_options, runtime_options } => {
                    Ok(kernel(KernelStyle::Jit, None, pass_options.clone(), runtime_options.clone()))
                }
                Object::GradientDecorator { name } => {
                    self.gradients.borrow_mut().insert(name.clone(), Value::Function(function.clone()));
                    Ok(Value::Function(function))
                }
                _ => self.call_values(&decorator, vec![Value::Function(function)], span),
            },
            _ => self.call_values(&decorator, vec![Value::Function(function)], span),
        }
    }

    /// Warns (once per kernel, at its first call) where a jit kernel rebinds a parameter that
    /// received a tensor (`y = x + 1`): outputs are written in place, so the caller would never see
    /// the new value. Parameters holding numbers may be rebound freely.
    fn check_jit_rebinding(&self, kernel: &Kernel, arguments: &Arguments) {
        if kernel.checked.replace(true) {
            return;
        }
        let function = &kernel.function;
        let parameters: Vec<&str> =
            function.definition.parameters.positional.iter().map(|parameter| parameter.name.name.as_str()).collect();
        let is_tensor = |name: &str| {
            let positional = parameters
                .iter()
                .position(|parameter| *parameter == name)
                .and_then(|index| arguments.positional.get(index))
                .map(|(value, _)| value);
            let keyword = arguments.keywords.iter().find(|(key, _, _)| key == name).map(|(_, value, _)| value);
            matches!(positional.or(keyword), Some(Value::Tensor(_)))
        };
        let mut found = Vec::new();
        collect_rebinds(&function.definition.body, &parameters, &mut found);
        for (name, name_span) in found.into_iter().filter(|(name, _)| is_tensor(name)) {
            let message =
                crate::messages::NpuMessage::JitOutputRebound { name: name.clone(), kernel: function.name.to_string() };
            let help = crate::messages::NpuMessage::WriteOutputInPlace { name };
            self.warn_message_in(
                function.cell,
                "lang/jit-output-rebound",
                message.into(),
                name_span,
                Some(help.into()),
            );
        }
    }
}

fn collect_rebinds(body: &[Stmt], parameters: &[&str], found: &mut Vec<(String, Span)>) {
    for statement in body {
        match &statement.kind {
            StmtKind::Assign { targets, .. } => {
                for target in targets {
                    if let ExprKind::Name(name) = &target.kind {
                        if parameters.contains(&name.as_str()) {
                            found.push((name.clone(), target.span));
                        }
                    }
                }
            }
            StmtKind::If { body, orelse, .. } => {
                collect_rebinds(body, parameters, found);
                collect_rebinds(orelse, parameters, found);
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => {
                collect_rebinds(body, parameters, found)
            }
            _ => {}
        }
    }
}

/// Runs `kernel` on `arguments`: the one entry point of kernel execution. The body runs on the CPU
/// reference path (the tensor core through autograd `Var`s), recording what it executes; a
/// registered gradient makes the call one custom autograd node whose backward is the interpreted
/// gradient function. The recorded work then runs on the simulated NPU (`npu_run`), whose values
/// replace the reference's in the outputs; a registered gradient's node is made after that, on the
/// outputs the caller receives (other kernels keep the reference run's graph).
pub(crate) fn run_kernel(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    run_kernel_call(interpreter, kernel, arguments, span).result
}

/// A finished kernel call: its value, its frame, its tensor arguments and where it ran.
pub(crate) struct KernelCall {
    /// What the kernel returned (or its error).
    pub result: Result<Value>,
    /// The kernel's frame: recorded ops, tile settings and where they were set.
    pub frame: Option<KernelFrame>,
    /// The tensor arguments (parameter name, tensor).
    pub arguments: Vec<(String, Tensor)>,
    /// Where it ran (`None`: the CPU by design, for f64 tensors or a kernel called by a kernel).
    pub outcome: Option<Outcome>,
    /// What the reference run returned (the tensors the recorded ops made).
    pub reference: Option<Value>,
}

/// `run_kernel`, also returning the frame and where the call ran.
pub(crate) fn run_kernel_call(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    arguments: Arguments,
    span: Span,
) -> KernelCall {
    let dtype = arguments
        .positional
        .iter()
        .map(|(value, _)| value)
        .chain(arguments.keywords.iter().map(|(_, value, _)| value))
        .find_map(|value| if let Value::Tensor(object) = value { Some(object.get().dtype()) } else { None })
        .unwrap_or(DType::F32);
    let named = named_tensors(kernel, &arguments);
    let on_npu = wants_npu(&named);
    let progress_call = if on_npu { super::npu_run::progress_call(interpreter) } else { None };
    if let Some(number) = progress_call {
        crate::lang::interp::progress::report_kernel_stage(&kernel.name, number, KernelStage::Computing);
    }
    if kernel.style == KernelStyle::Jit {
        interpreter.check_jit_rebinding(kernel, &arguments);
    }
    if let Some(outer) = interpreter.npu.kernel_frames.borrow_mut().last_mut() {
        outer.calls_kernels = true;
    }
    let unit_starts = if kernel.style == KernelStyle::Jit {
        super::work_jit::loop_body_starts(&kernel.function.definition.body)
    } else {
        Vec::new()
    };
    let gradient = interpreter.gradients.borrow().get(&kernel.name).cloned();
    // Without a registered gradient, a functional kernel's backward is generated (issue 18); the
    // frame keeps the tensors the body makes, for the values the backward saves.
    let generated_inputs = (on_npu && gradient.is_none() && kernel.style == KernelStyle::Functional)
        .then(|| super::generated_backward::tensor_inputs(&arguments))
        .filter(|inputs| super::generated_backward::wanted(inputs));
    interpreter.npu.kernel_frames.borrow_mut().push(KernelFrame {
        vec_tile_shapes: None,
        cube_tile_shapes: None,
        dtype,
        saved: Vec::new(),
        ops: Vec::new(),
        vec_tile_site: None,
        vec_tile_history: Vec::new(),
        cube_tile_site: None,
        statement: None,
        unit_starts,
        calls_kernels: false,
        kept_values: generated_inputs.as_ref().map(|_| Vec::new()),
    });
    let mut pending = None;
    let mut result = match (kernel.style, gradient) {
        (KernelStyle::Functional, Some(backward)) => {
            run_detached(interpreter, kernel, arguments, backward, span).map(|(value, gradient)| {
                pending = Some(gradient);
                value
            })
        }
        _ => interpreter.call_function(&kernel.function, arguments, span),
    };
    let frame = interpreter.npu.kernel_frames.borrow_mut().pop();
    if let Some(frame) = &frame {
        interpreter.npu.last_tiles.replace((frame.vec_tile_shapes.clone(), frame.cube_tile_shapes));
    }
    if let (Ok(_), Some(frame)) = (&result, &frame) {
        let call = (kernel.function.name.as_str(), interpreter.at(span));
        if let Err(error) = super::vec_tiles::check_vec_tiles(interpreter, frame, call, span) {
            result = Err(error);
        }
    }
    let mut outcome = None;
    let reference = result.as_ref().ok().cloned();
    let mut prepared = None;
    if let (Some(inputs), Some(value), Some(frame)) = (generated_inputs, &reference, &frame) {
        let made = super::generated_backward::prepare(interpreter, kernel, frame, &named, inputs, value, span);
        match made {
            Ok(made) => prepared = made,
            Err(error) => result = Err(error),
        }
    }
    // The values a generated backward saves are outputs of the forward's NPU run too (their GM
    // writes are in its schedule); their values are the body's, as the outputs' are.
    let npu_result =
        result.clone().map(|value| prepared.as_ref().and_then(|prepared| prepared.extended.clone()).unwrap_or(value));
    if let (true, Ok(value), Some(frame)) = (on_npu, &npu_result, &frame) {
        let call = NpuCall { kernel, frame, arguments: &named, result: value, progress_call };
        match run_on_npu(interpreter, &call, span) {
            Ok(ran) => outcome = Some(ran),
            Err(error) => result = Err(chip_error(interpreter, kernel, frame, &error, span)),
        }
    }
    let finished = result.as_ref().ok().cloned();
    if let (Some(prepared), Ok(value), Some(Outcome::Npu(..))) = (prepared, &npu_result, &outcome) {
        if result.is_ok() {
            result = super::generated_backward::attach(interpreter, prepared, value, span);
        }
    }
    if let (Some(gradient), Some(value), Some(frame)) = (pending, finished, &frame) {
        result = record_gradient_node(interpreter, kernel, gradient, &value, reference.as_ref(), frame, span);
    }
    KernelCall { result, frame, arguments: named, outcome, reference }
}
