//! Autograd from scripts: `register_gradient`, `no_grad`, `checkpoint`, `graph`,
//! `autodiff.grad`, `autodiff.check_gradient` and the report object it returns; and the autograd
//! node of a kernel call with a registered gradient (made after the call ran on the NPU).

use std::cell::RefCell;
use std::rc::Rc;

use super::capture::identity;
pub use super::check_sides::GradCheckSides;
use crate::autograd::{call_custom_once, no_grad, Attribute, Attributes, CustomForward, ForwardOutput};
use crate::autograd::{
    checkpoint, grad, CheckMode, CheckOptions, CheckpointFunction, GradCheckReport, GraphData, Tolerance, Var,
};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::value::{Kernel, Object, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage};
use crate::tensor::Tensor;

/// Calls an autograd function of `pypto`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match name {
        "register_gradient" => {
            let bound = interpreter.bind("pypto.register_gradient", &["name"], arguments, false, span)?;
            match bound.required(0)? {
                Value::Str(kernel) => Ok(Value::object(Object::GradientDecorator { name: kernel.to_string() })),
                other => Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(
                    LibraryMessage::ArgumentType {
                        function: "pypto.register_gradient".into(),
                        parameter: "name".into(),
                        expected: Kind::Str,
                        got: other.type_name().to_string(),
                    },
                )),
            }
        }
        "no_grad" => {
            interpreter.bind("pypto.no_grad", &[], arguments, false, span)?;
            Ok(Value::object(Object::NoGrad))
        }
        "graph" => {
            let bound = interpreter.bind("pypto.graph", &["t"], arguments, false, span)?;
            let outputs = interpreter.tensors_of(bound.required(0)?, bound.span_of(0), "pypto.graph")?;
            Ok(Value::object(Object::Graph(GraphData::from_outputs(&outputs))))
        }
        "checkpoint" => {
            let bound = interpreter.bind("pypto.checkpoint", &["fn"], arguments, true, span)?;
            let function = bound.required(0)?.clone();
            let template: Vec<Value> = bound.rest.iter().map(|(value, _)| value.clone()).collect();
            let inputs: Vec<Var> = template
                .iter()
                .filter_map(|value| if let Value::Tensor(object) = value { Some(object.get()) } else { None })
                .collect();
            let weak = interpreter.me.clone();
            let site = interpreter.at(span);
            let single = std::cell::Cell::new(true);
            let single_flag = Rc::new(single);
            let flag = single_flag.clone();
            let recompute: CheckpointFunction = Rc::new(move |vars: &[Var]| {
                let Some(interpreter) = weak.upgrade() else {
                    return Err(crate::autograd::AutogradError::BadArgument {
                        op: "checkpoint".into(),
                        detail: crate::messages::AutogradDetail::SessionGone,
                    });
                };
                let mut fresh = vars.iter();
                let values: Vec<Value> = template
                    .iter()
                    .map(|value| match value {
                        Value::Tensor(_) => fresh.next().cloned().map(TensorObject::value).unwrap_or(Value::None),
                        other => other.clone(),
                    })
                    .collect();
                interpreter.cells.borrow_mut().push(site.cell);
                let result = interpreter.call_values(&function, values, site.span);
                interpreter.cells.borrow_mut().pop();
                let result = result.map_err(|error| interpreter.stash(error, "checkpoint"))?;
                flag.set(matches!(result, Value::Tensor(_)));
                interpreter
                    .tensors_of(&result, site.span, "checkpoint")
                    .map_err(|error| interpreter.stash(error, "checkpoint"))
            });
            let outputs = checkpoint("checkpoint", recompute, &inputs)
                .map_err(|error| interpreter.autograd_error(error, span))?;
            let mut values: Vec<Value> = outputs.into_iter().map(TensorObject::value).collect();
            Ok(if single_flag.get() && values.len() == 1 {
                values.pop().unwrap_or(Value::None)
            } else {
                Value::tuple(values)
            })
        }
        "autodiff.grad" => {
            let bound = interpreter.bind(
                "pypto.autodiff.grad",
                &["outputs", "inputs", "grad_outputs", "create_graph"],
                arguments,
                false,
                span,
            )?;
            let outputs = interpreter.tensors_of(bound.required(0)?, bound.span_of(0), "pypto.autodiff.grad")?;
            let inputs = interpreter.tensors_of(bound.required(1)?, bound.span_of(1), "pypto.autodiff.grad")?;
            let grad_outputs = match bound.optional(2) {
                Some(value) => Some(interpreter.tensors_of(value, bound.span_of(2), "pypto.autodiff.grad")?),
                None => None,
            };
            let results = grad(&outputs, &inputs, grad_outputs.as_deref(), bound.flag(3, false)?)
                .map_err(|error| interpreter.autograd_error(error, span))?;
            let values: Vec<Value> =
                results.into_iter().map(|result| result.map_or(Value::None, TensorObject::value)).collect();
            Ok(if matches!(bound.required(1)?, Value::Tensor(_)) {
                values.into_iter().next().unwrap_or(Value::None)
            } else {
                Value::list(values)
            })
        }
        "autodiff.policy" | "autodiff.last_backward" => {
            super::generated_backward::call(interpreter, name, arguments, span)
        }
        _ => check(interpreter, arguments, span),
    }
}

fn check(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(
        "pypto.autodiff.check_gradient",
        &["func", "inputs", "eps", "atol", "rtol", "fast"],
        arguments,
        false,
        span,
    )?;
    let function = bound.required(0)?.clone();
    let inputs: Vec<Tensor> = interpreter
        .tensors_of(bound.required(1)?, bound.span_of(1), "check_gradient")?
        .iter()
        .map(|var| var.tensor().clone())
        .collect();
    let Some(first) = inputs.first() else {
        return Err(interpreter
            .error(ErrorKind::Value, "", bound.span_of(1))
            .with_message(LibraryKernelMessage::NoInputs));
    };
    let mut options = CheckOptions::default();
    if bound.flag(5, false)? {
        options.mode = CheckMode::Projection;
    }
    if bound.optional(2).is_some() || bound.optional(3).is_some() || bound.optional(4).is_some() {
        let base = Tolerance::for_dtype(first.dtype());
        options.tolerance = Some(Tolerance {
            step: bound.float(2, Some(base.step))?,
            atol: bound.float(3, Some(base.atol))?,
            rtol: bound.float(4, Some(base.rtol))?,
        });
    }
    let site = interpreter.at(span);
    let evaluate = |vars: &[Var]| -> crate::autograd::Result<Var> {
        let values: Vec<Value> = vars.iter().cloned().map(TensorObject::value).collect();
        let result = interpreter
            .call_values(&function, values, site.span)
            .map_err(|error| interpreter.stash(error, "check_gradient"))?;
        match &result {
            Value::Tensor(object) => Ok(object.get()),
            other => {
                let message = LibraryKernelMessage::ReturnedNonTensor { got: other.type_name().to_string() };
                let error = interpreter.error(ErrorKind::Type, "", site.span).with_message(message);
                Err(interpreter.stash(error, "check_gradient"))
            }
        }
    };
    let (npu_before, cpu_before) = interpreter.npu.call_counts.get();
    let progress = |done, total| crate::lang::interp::progress::report_progress("check_gradient", done, total);
    let report =
        crate::autograd::gradcheck::check_gradient_with_progress(&evaluate, &inputs, &options, Some(&progress))
            .map_err(|error| interpreter.autograd_error(error, span))?;
    let (npu_after, cpu_after) = interpreter.npu.call_counts.get();
    let registered =
        matches!(&function, Value::Kernel(kernel) if interpreter.gradients.borrow().contains_key(&kernel.name));
    let sides = GradCheckSides {
        npu_calls: npu_after - npu_before,
        cpu_calls: cpu_after - cpu_before,
        registered,
        preset: interpreter.npu_preset(),
    };
    Ok(Value::object(Object::GradCheck { report, sides }))
}

/// `report.name`.
pub(crate) fn report_attribute(report: &GradCheckReport, name: &str) -> Option<Value> {
    Some(match name {
        "passed" => Value::Bool(report.passed),
        "max_abs_err" => Value::Float(report.inputs.iter().map(|input| input.max_abs_error).fold(0.0, f64::max)),
        "max_rel_err" => Value::Float(report.inputs.iter().map(|input| input.max_rel_error).fold(0.0, f64::max)),
        "worst" => Value::list(
            report
                .inputs
                .iter()
                .flat_map(|input| {
                    input.worst.iter().map(move |element| {
                        let index = Value::tuple(element.input_index.iter().map(|&i| Value::Int(i as i64)).collect());
                        Value::tuple(vec![
                            Value::Int(input.input as i64),
                            index,
                            Value::Float(element.analytic),
                            Value::Float(element.numerical),
                        ])
                    })
                })
                .collect(),
        ),
        "non_differentiable" => {
            Value::Int(report.inputs.iter().map(|input| input.non_differentiable.len() as i64).sum())
        }
        "mode" => Value::string(format!("{:?}", report.mode).to_lowercase()),
        _ => return None,
    })
}

impl Interpreter {
    /// One tensor or a list/tuple of tensors, as `Var`s.
    pub(crate) fn tensors_of(&self, value: &Value, span: Span, what: &str) -> Result<Vec<Var>> {
        match value {
            Value::Tensor(object) => Ok(vec![object.get()]),
            Value::List(_) | Value::Tuple(_) => self
                .iterate(value, span)?
                .iter()
                .map(|item| match item {
                    Value::Tensor(object) => Ok(object.get()),
                    other => Err(self.error(ErrorKind::Type, "", span).with_message(LibraryMessage::Expected {
                        function: what.to_string(),
                        expected: Kind::Tensors,
                        got: other.type_name().to_string(),
                    })),
                })
                .collect(),
            other => Err(self.error(ErrorKind::Type, "", span).with_message(LibraryMessage::Expected {
                function: what.to_string(),
                expected: Kind::TensorOrList,
                got: other.type_name().to_string(),
            })),
        }
    }
}

/// A call of a kernel with a registered gradient between its detached run and its autograd node.
/// The node is made once the outputs are final (the simulator's values), so the node's outputs —
/// `ctx.outputs` in the backward, and what the graph counts as saved — are the tensors the caller
/// received, not the reference run's copies.
pub(crate) struct PendingGradient {
    inputs: Vec<Var>,
    attributes: Attributes,
    attribute_values: Vec<(Value, Value)>,
    backward: Value,
    single: bool,
}

/// Runs the body on detached inputs without recording, and checks that it returned tensors.
pub(crate) fn run_detached(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    arguments: Arguments,
    backward: Value,
    span: Span,
) -> Result<(Value, PendingGradient)> {
    let parameter_names: Vec<String> =
        kernel.function.definition.parameters.positional.iter().map(|parameter| parameter.name.name.clone()).collect();
    let mut inputs: Vec<Var> = Vec::new();
    let mut attribute_values: Vec<(Value, Value)> = Vec::new();
    let mut attributes = Attributes::new();
    let mut detached = Arguments { positional: Vec::new(), keywords: Vec::new() };
    let mut classify = |name: String, value: Value| -> Value {
        match &value {
            Value::Tensor(object) => {
                let var = object.get();
                inputs.push(var.clone());
                TensorObject::value(var.detach())
            }
            other => {
                if let Some(attribute) = to_attribute(other) {
                    attributes.insert(name.clone(), attribute);
                }
                attribute_values.push((Value::string(name), other.clone()));
                value
            }
        }
    };
    for (index, (value, value_span)) in arguments.positional.into_iter().enumerate() {
        let name = parameter_names.get(index).cloned().unwrap_or_else(|| format!("arg{index}"));
        detached.positional.push((classify(name, value), value_span));
    }
    for (name, value, value_span) in arguments.keywords {
        detached.keywords.push((name.clone(), classify(name, value), value_span));
    }
    let outputs = {
        let _off = no_grad();
        interpreter.call_function(&kernel.function, detached, span)?
    };
    let single = matches!(outputs, Value::Tensor(_));
    output_tensors(interpreter, kernel, &outputs, span)?;
    Ok((outputs, PendingGradient { inputs, attributes, attribute_values, backward, single }))
}

/// What a kernel with a registered gradient returned in place of tensors (`among` its outputs or
/// as the whole result).
fn kernel_outputs(kernel: &Kernel, other: &Value, among: bool) -> LibraryKernelMessage {
    let (kernel, got) = (kernel.name.clone(), other.type_name().to_string());
    if among {
        LibraryKernelMessage::KernelOutputItem { kernel, got }
    } else {
        LibraryKernelMessage::KernelOutputs { kernel, got }
    }
}

/// The tensors a kernel with a registered gradient returned (a tensor, or a tuple/list of them).
fn output_tensors(interpreter: &Interpreter, kernel: &Kernel, outputs: &Value, span: Span) -> Result<Vec<Tensor>> {
    match outputs {
        Value::Tensor(object) => Ok(vec![object.get().tensor().clone()]),
        Value::Tuple(_) | Value::List(_) => interpreter
            .iterate(outputs, span)?
            .iter()
            .map(|item| match item {
                Value::Tensor(object) => Ok(object.get().tensor().clone()),
                other => {
                    Err(interpreter.error(ErrorKind::Type, "", span).with_message(kernel_outputs(kernel, other, true)))
                }
            })
            .collect(),
        other => Err(interpreter.error(ErrorKind::Type, "", span).with_message(kernel_outputs(kernel, other, false))),
    }
}

/// Makes the kernel call one custom autograd node whose outputs are `final_outputs` (the values the
/// caller gets: the simulator's, or the reference's when the call ran on the CPU). A tensor the
/// kernel both saved and returned is saved as the returned one, so the graph holds it once.
pub(crate) fn record_gradient_node(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    gradient: PendingGradient,
    final_outputs: &Value,
    reference: Option<&Value>,
    frame: &KernelFrame,
    span: Span,
) -> Result<Value> {
    let outputs = output_tensors(interpreter, kernel, final_outputs, span)?;
    let reference_outputs = match reference {
        Some(reference) => output_tensors(interpreter, kernel, reference, span)?,
        None => Vec::new(),
    };
    let saved: Vec<Tensor> = frame
        .saved
        .iter()
        .filter_map(|value| if let Value::Tensor(object) = value { Some(object.get().tensor().clone()) } else { None })
        .map(|tensor| match reference_outputs.iter().position(|output| identity(output) == identity(&tensor)) {
            Some(index) if index < outputs.len() => outputs[index].clone(),
            _ => tensor,
        })
        .collect();
    let slot = Rc::new(RefCell::new(Some(ForwardOutput { outputs, saved })));
    let forward: CustomForward = Rc::new(move |_inputs: &[Tensor], _attributes: &Attributes| {
        slot.borrow_mut().take().ok_or_else(|| crate::autograd::AutogradError::BadArgument {
            op: "kernel".into(),
            detail: crate::messages::AutogradDetail::ForwardConsumed,
        })
    });
    let PendingGradient { inputs, attributes, attribute_values, backward, single } = gradient;
    let backward = super::backward::make_backward(
        interpreter,
        kernel.name.clone(),
        backward,
        Value::dict(attribute_values),
        inputs.len(),
        interpreter.at(span),
    );
    let shown = Default::default();
    let vars = call_custom_once(&kernel.name, forward, Some(backward), &inputs, attributes, shown)
        .map_err(|error| interpreter.autograd_error(error, span))?;
    let mut values: Vec<Value> = vars.into_iter().map(TensorObject::value).collect();
    Ok(if single { values.pop().unwrap_or(Value::None) } else { Value::tuple(values) })
}

fn to_attribute(value: &Value) -> Option<Attribute> {
    Some(match value {
        Value::Bool(flag) => Attribute::Bool(*flag),
        Value::Int(number) => Attribute::Int(*number),
        Value::Float(number) => Attribute::Float(*number),
        Value::Str(text) => Attribute::Text(text.to_string()),
        _ => return None,
    })
}
