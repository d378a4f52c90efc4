//! Kernels: the `@pypto.kernel` and `@pypto.frontend.jit` decorators, tile-shape settings
//! (validated and recorded), `save_for_backward` (`pypto.loop` is in `loops`; a call of a kernel is
//! in `kernel_call`).

use std::rc::Rc;

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Kernel, KernelStyle, Object, Value};
use crate::lang::syntax::ast::{ExprKind, Stmt, StmtKind};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage};

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
                        let message = LibraryKernelMessage::TileDims { got: crate::lang::interp::format::repr(value) };
                        return Err(interpreter.error(ErrorKind::TileShape, "", *value_span).with_message(message));
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
            let fractal = cube_fractal_side(&interpreter.npu_config(span)?);
            let mut shapes = [[0usize; 2]; 3];
            for (index, label) in ["m", "k", "n"].iter().enumerate() {
                let pair =
                    interpreter.to_shape(bound.required(index)?, bound.span_of(index), "set_cube_tile_shapes")?;
                let nested = pair.len() == 2 && pair[0] > 0 && pair[1] % pair[0] == 0;
                // M is A's outer dim, which the cube pads to whole fractals (pypto's decode kernels
                // set [1, 1]); K and N must fill fractals. A transposed A needs whole M fractals
                // too, which the matmul checks.
                if *label == "m" && !nested {
                    return Err(interpreter
                        .error(ErrorKind::TileShape, "", bound.span_of(index))
                        .with_message(crate::messages::LibraryTilingMessage::CubeMTiles { pair }));
                }
                if !(nested && (*label == "m" || pair[0] % fractal == 0)) {
                    return Err(interpreter
                        .error(ErrorKind::TileShape, "", bound.span_of(index))
                        .with_message(crate::messages::LibraryTilingMessage::CubeTiles {
                            label: label.to_string(),
                            pair,
                            fractal,
                        })
                        .with_help_message(crate::messages::LibraryTilingMessage::CubeFractals { fractal }));
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
                let message = LibraryKernelMessage::OutsideKernel { function: "pypto.save_for_backward".into() };
                return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
            };
            for (value, value_span) in bound.rest {
                if !matches!(value, Value::Tensor(_)) {
                    let message = LibraryMessage::Expected {
                        function: "pypto.save_for_backward".into(),
                        expected: Kind::Tensors,
                        got: value.type_name().to_string(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", value_span).with_message(message));
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
            let message = LibraryMessage::Expected {
                function: what.to_string(),
                expected: Kind::Dict,
                got: value.type_name().into(),
            };
            return Err(self.error(ErrorKind::Type, "", span).with_message(message));
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
                Some(Effect::NotModelled(feature)) => {
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
                        let message = crate::messages::LibraryTilingMessage::BufferDepth {
                            table: what.to_string(),
                            key: key.clone(),
                            got: crate::lang::interp::format::repr(option),
                        };
                        return Err(self
                            .error(ErrorKind::Value, "", span)
                            .with_message(message)
                            .with_help_message(crate::messages::LibraryTilingMessage::BufferDepthForm));
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
    pub(super) fn check_jit_rebinding(&self, kernel: &Kernel, arguments: &Arguments) {
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

/// The side of the chip's square cube fractal: one L0A/L0B alignment block of 16-bit values
/// (512 bytes, 16×16, on Ascend's presets).
pub(super) fn cube_fractal_side(config: &crate::npu::NpuConfig) -> usize {
    ((config.l0ab_alignment / 2) as f64).sqrt().round().max(1.0) as usize
}
