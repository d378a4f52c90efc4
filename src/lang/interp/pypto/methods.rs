//! Tensor attributes (`.shape .dtype .grad .requires_grad .T`) and methods (`.backward .item
//! .tolist .detach .sum .mean .reshape …`).

use std::rc::Rc;

use super::capture::CapturedOp;

use crate::autograd::{BackwardOptions, Var};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{DTypeFamily, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryMessage, LibraryTensorMessage};
use crate::tensor::{DType, ReduceOp, Tensor};

const METHODS: [&str; 17] = [
    "backward",
    "item",
    "tolist",
    "detach",
    "sum",
    "mean",
    "amax",
    "amin",
    "var",
    "reshape",
    "transpose",
    "numel",
    "cast",
    "exp",
    "zero_grad",
    "clone",
    "move",
];

impl Interpreter {
    /// `tensor.name`.
    pub(crate) fn tensor_attribute(&self, object: &Rc<TensorObject>, name: &str, span: Span) -> Result<Value> {
        let var = object.get();
        Ok(match name {
            // A torch tensor's shape is a `torch.Size`, a tuple (`x.shape == (32, 32)` holds); a
            // pypto tensor's is a list, as pypto returns it.
            "shape" if object.torch.get() && !self.in_kernel() => {
                Value::tuple(var.shape().iter().map(|&dim| Value::Int(dim as i64)).collect())
            }
            "shape" => Value::list(var.shape().iter().map(|&dim| Value::Int(dim as i64)).collect()),
            "dtype" => {
                let family =
                    if object.torch.get() && !self.in_kernel() { DTypeFamily::Torch } else { DTypeFamily::Pypto };
                Value::DType(var.dtype(), family)
            }
            "ndim" => Value::Int(var.shape().len() as i64),
            // A numpy array's `size` is its element count; torch's `size()` is a method (below).
            "size" if object.numpy.get() && !object.torch.get() && !self.in_kernel() => {
                Value::Int(var.shape().iter().product::<usize>() as i64)
            }
            // In a kernel a tensor is pypto's, whose `Tensor.dim` is the rank, a property; on the host
            // `x.dim()` is torch's method (below).
            "dim" if self.in_kernel() => Value::Int(var.shape().len() as i64),
            "requires_grad" => Value::Bool(var.requires_grad()),
            "is_leaf" => Value::Bool(var.is_leaf()),
            "grad" => match var.grad() {
                Some(grad) => TensorObject::value(Var::constant(grad)),
                None => Value::None,
            },
            // pypto's `GetValidShape`: a tensor without a valid shape of its own is valid throughout.
            "valid_shape" => {
                Value::list(var.tensor().valid_or_full_shape().iter().map(|&dim| Value::Int(dim as i64)).collect())
            }
            "T" => {
                let rank = var.shape().len();
                if rank < 2 {
                    return Ok(Value::Tensor(object.clone()));
                }
                return self.tensor_result(var.transpose(-2, -1), span);
            }
            _ if METHODS.contains(&name) => Value::Method(Rc::new((Value::Tensor(object.clone()), name.to_string()))),
            // torch's methods and attributes (`.to`, `.float`, `.mT` …) apply to the same tensors.
            _ => return crate::lang::interp::torch::methods::attribute(self, object, name, span),
        })
    }

    /// `tensor.name = value` (`requires_grad` on a constant leaf, `grad = None`).
    pub(crate) fn set_tensor_attribute(
        &self,
        object: &Rc<TensorObject>,
        name: &str,
        value: Value,
        span: Span,
    ) -> Result<()> {
        let var = object.get();
        match (name, &value) {
            ("grad", Value::None) => {
                var.zero_grad();
                Ok(())
            }
            ("requires_grad", flag) => {
                let wanted = self.truthy(flag, span)?;
                if !var.is_leaf() {
                    return Err(self
                        .error(ErrorKind::Autograd, "", span)
                        .with_message(LibraryTensorMessage::RequiresGradNonLeaf)
                        .with_help_message(LibraryTensorMessage::UseDetach));
                }
                if wanted != var.requires_grad() {
                    *object.var.borrow_mut() =
                        Var::try_new(var.tensor().clone(), wanted).map_err(|error| self.autograd_error(error, span))?;
                }
                Ok(())
            }
            _ => Err(self
                .error(ErrorKind::Attribute, "", span)
                .with_message(LibraryMessage::CannotSetAttribute { name: name.to_string(), object: "Tensor".into() })),
        }
    }

    /// Calls `tensor.name(…)`.
    pub(crate) fn call_tensor_method(
        &self,
        object: &Rc<TensorObject>,
        name: &str,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        // A method reads its receiver (a reduction, a copy, backward through its graph).
        self.charge_elements(object.get().tensor().numel(), span)?;
        self.captured_call(&format!("Tensor.{name}"), || self.tensor_method(object, name, arguments, span))
    }

    fn tensor_method(&self, object: &Rc<TensorObject>, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
        let var = object.get();
        // A torch tensor's methods go through torch's argument parser, which takes numpy's names
        // too (as `torch.call` does for the functions): `axis` for `dim`, `keepdims` for `keepdim`.
        let mut arguments = arguments;
        if object.torch.get() {
            for (keyword, _, _) in arguments.keywords.iter_mut() {
                match keyword.as_str() {
                    "axis" => *keyword = "dim".to_string(),
                    "keepdims" => *keyword = "keepdim".to_string(),
                    _ => {}
                }
            }
        }
        let full = format!("Tensor.{name}");
        // Methods without parameters still reject arguments: `x.item(3)` is a mistake, not a no-op.
        let given = arguments.positional.len() + arguments.keywords.len();
        if given > 0 && matches!(name, "item" | "tolist" | "detach" | "clone" | "numel" | "zero_grad") {
            // A keyword is named (as Python does), so completion and the API table agree on it.
            if let Some((keyword, _, keyword_span)) = arguments.keywords.first() {
                let message = crate::messages::Message::UnexpectedKeyword {
                    function: full.to_string(),
                    keyword: keyword.clone(),
                };
                return Err(self.error(ErrorKind::Type, "", *keyword_span).with_message(message));
            }
            let message = crate::messages::RuntimeMessage::TakesNoArguments { function: full.to_string(), given };
            return Err(self.error(ErrorKind::Type, "", span).with_message(message));
        }
        match name {
            "backward" => {
                let bound = self.bind(&full, &["grad", "retain_graph"], arguments, false, span)?;
                if !var.requires_grad() {
                    let own_name = self.name_of(object);
                    let candidates = self.tensors_without_grad(own_name.as_deref());
                    let help = match candidates.first() {
                        Some(first) => crate::messages::AutogradMessage::TensorsWithoutGrad {
                            names: candidates.join(", "),
                            first: first.clone(),
                        },
                        None => crate::messages::AutogradMessage::CreateWithGrad,
                    };
                    return Err(self
                        .error(ErrorKind::BackwardWithoutGrad, "", span)
                        .with_message(match own_name {
                            Some(name) => crate::messages::AutogradMessage::BackwardWithoutGrad { name },
                            None => crate::messages::AutogradMessage::BackwardWithoutGradUnnamed,
                        })
                        .with_help_message(help));
                }
                let gradient = match bound.optional(0) {
                    Some(value) => Some(self.operand(value, var.dtype(), bound.span_of(0))?.tensor().clone()),
                    None => None,
                };
                let options = BackwardOptions { retain_graph: bound.flag(1, false)?, create_graph: false };
                var.backward_with(gradient.as_ref(), options).map_err(|error| self.autograd_error(error, span))?;
                Ok(Value::None)
            }
            // Methods without parameters still bind, so a stray keyword is an error, not ignored.
            "item" | "tolist" | "detach" | "clone" | "numel" | "zero_grad"
                if !(arguments.positional.is_empty() && arguments.keywords.is_empty()) =>
            {
                self.bind(&full, &[], arguments, false, span).map(|_| Value::None)
            }
            "item" => {
                self.item(&var, span)?;
                Ok(element_values(var.tensor()).swap_remove(0))
            }
            "tolist" => {
                // Each element becomes a script value (32 bytes, plus the lists): bounded like a list.
                self.check_items(var.tensor().numel(), span)?;
                Ok(to_list(var.tensor()))
            }
            "detach" => Ok(TensorObject::value(var.detach())),
            "clone" => self.cloned(&var, span),
            "numel" => Ok(Value::Int(var.tensor().numel() as i64)),
            "zero_grad" => {
                var.zero_grad();
                Ok(Value::None)
            }
            // torch's `x.var(dim, unbiased=False)` / `correction=`: the torch form of the same reduction.
            // In a kernel `x.var(dim, correction=…)` is pypto's var (the NPU runs it).
            "var" if self.in_kernel() && arguments.keywords.iter().any(|(key, _, _)| key == "correction") => {
                let mut arguments = arguments;
                arguments.positional.insert(0, (Value::Tensor(object.clone()), span));
                super::functions::call(self, "var", arguments, span)
            }
            "var" if arguments.keywords.iter().any(|(key, _, _)| key == "unbiased" || key == "correction") => {
                crate::lang::interp::torch::methods::variance(self, &var, arguments, span)
            }
            "sum" | "mean" | "amax" | "amin" | "var" => {
                let bound = self.bind(&full, &["dim", "keepdim"], arguments, false, span)?;
                let op = match name {
                    "sum" => ReduceOp::Sum,
                    "mean" => ReduceOp::Mean,
                    "amax" => ReduceOp::Amax,
                    "amin" => ReduceOp::Amin,
                    _ => ReduceOp::Var,
                };
                let dims = bound.dims(0)?;
                let result = self.tensor_result(var.reduce(op, dims.as_deref(), bound.flag(1, false)?), span)?;
                self.capture(Some(&result), || CapturedOp::reduce(op, var.tensor(), dims));
                Ok(result)
            }
            "reshape" => {
                let mut arguments = arguments;
                if arguments.positional.len() > 1 {
                    // `x.reshape(2, 3)`: the dims as separate arguments.
                    let dims = arguments.positional.drain(..).map(|(value, _)| value).collect();
                    arguments.positional.push((Value::list(dims), span));
                }
                let bound = self.bind(&full, &["shape", "valid_shape", "inplace"], arguments, false, span)?;
                let valid = match bound.optional(1) {
                    Some(_) => Some(bound.shape(1)?),
                    None => None,
                };
                bound.flag(2, false)?;
                self.reshaped(&var, bound.required(0)?, valid, bound.span_of(0))
            }
            "move" => self.move_into(object, arguments, span),
            "transpose" => {
                let bound = self.bind(&full, &["dim0", "dim1"], arguments, false, span)?;
                let (first, second) = (bound.int(0, Some(0))?, bound.int(1, Some(1))?);
                let result = self.tensor_result(var.transpose(first as isize, second as isize), span)?;
                self.capture(Some(&result), || CapturedOp::transpose(var.tensor(), first, second));
                Ok(result)
            }
            "cast" => {
                let bound = self.bind(&full, &["dtype"], arguments, false, span)?;
                bound.required(0)?;
                let result = self.tensor_result(var.cast(bound.dtype(0, var.dtype())?), span)?;
                self.capture(Some(&result), || CapturedOp::Cast { x: super::capture::TensorRef::of(var.tensor()) });
                Ok(result)
            }
            "exp" => {
                // pypto's `x.exp(precision_type=…)`: checked, and the simulation computes in f32.
                let bound = self.bind(&full, &["precision_type"], arguments, false, span)?;
                super::functions::unary::check_precision_type(self, &full, bound.values[0].as_ref())?;
                let result = self.tensor_result(var.unary(crate::tensor::UnaryOp::Exp), span)?;
                self.capture(Some(&result), || CapturedOp::Unary {
                    op: crate::tensor::UnaryOp::Exp,
                    x: super::capture::TensorRef::of(var.tensor()),
                });
                Ok(result)
            }
            other => {
                // pypto's Tensor has a method for most of its functions (`x.fillpad(…)`, `x.log2()`):
                // the function with the tensor first. In a kernel that is all a method can be; on
                // the host torch's method of the name comes first.
                let function = format!("pypto.{other}");
                let is_function = crate::lang::interp::torch::methods::is_pypto_function(other);
                let forward = |arguments: Arguments| {
                    let mut positional = vec![(Value::Tensor(object.clone()), span)];
                    positional.extend(arguments.positional);
                    super::call(self, &function, Arguments { positional, keywords: arguments.keywords }, span)
                };
                if is_function && self.in_kernel() {
                    return forward(arguments);
                }
                let kept = is_function.then(|| arguments.clone());
                match crate::lang::interp::torch::methods::call(self, object, other, arguments, span) {
                    Err(error) if error.kind == ErrorKind::Attribute && kept.is_some() => {
                        forward(kept.expect("kept when a function"))
                    }
                    result => result,
                }
            }
        }
    }

    /// Global tensors created without `requires_grad` (the likely inputs of a failed backward), at
    /// most four, sorted by name.
    fn tensors_without_grad(&self, except: Option<&str>) -> Vec<String> {
        self.globals
            .names()
            .into_iter()
            .filter(|name| Some(name.as_str()) != except)
            .filter(
                |name| matches!(&self.globals.get(name), Some(Value::Tensor(tensor)) if !tensor.get().requires_grad()),
            )
            .take(4)
            .collect()
    }

    /// The global name bound to this tensor object, if any (for messages).
    fn name_of(&self, object: &Rc<TensorObject>) -> Option<String> {
        self.globals
            .names()
            .into_iter()
            .find(|name| matches!(&self.globals.get(name), Some(Value::Tensor(other)) if Rc::ptr_eq(other, object)))
    }
}

/// Nested lists of floats (a float for a 0-d tensor).
fn to_list(tensor: &Tensor) -> Value {
    let values = element_values(tensor);
    fn build(values: &[Value], shape: &[usize]) -> Value {
        match shape.split_first() {
            None => values.first().cloned().unwrap_or(Value::Float(0.0)),
            Some((&size, rest)) => {
                let stride: usize = rest.iter().product();
                Value::list((0..size).map(|index| build(&values[index * stride..(index + 1) * stride], rest)).collect())
            }
        }
    }
    build(&values, tensor.shape())
}

/// The elements of a tensor as script values: ints for integer dtypes (exact, also for int64),
/// bools for DT_BOOL, floats otherwise (what `.tolist()` and `.item()` return, as in torch).
pub(crate) fn element_values(tensor: &Tensor) -> Vec<Value> {
    match tensor.dtype() {
        DType::Bool => tensor.storage().to_i64_vec().into_iter().map(|value| Value::Bool(value != 0)).collect(),
        dtype if !dtype.is_float() => tensor.storage().to_i64_vec().into_iter().map(Value::Int).collect(),
        _ => tensor.to_f64_vec().into_iter().map(Value::Float).collect(),
    }
}
