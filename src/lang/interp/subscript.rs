//! Subscripts (`x[i]`, `x[a:b]`, `x[k] = v`), attributes and the methods of lists and dicts (strings' in string_methods.rs).

use crate::messages::OperationMessage;
use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::format::to_str;
use super::interpreter::Interpreter;
use super::operators::values_equal;
use super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::tensor::SliceSpec;

/// A step longer than the sequence picks the same single element as a step of its length; clamping
/// keeps the slice arithmetic far from `i64` overflow.
pub(crate) fn clamp_step(step: Option<i64>, size: usize) -> Option<i64> {
    let limit = size.max(1) as i64;
    step.map(|step| step.clamp(-limit, limit))
}

impl Interpreter {
    /// The error of a slice with step 0 (the one failure of `SliceSpec::from_python`).
    pub(crate) fn slice_step_zero(&self, span: Span) -> crate::lang::interp::error::RuntimeError {
        self.coded(ErrorKind::Value, crate::messages::RuntimeMessage::SliceStepZero, span)
    }

    /// `container[index]`.
    pub(crate) fn get_item(&self, container: &Value, index: &Value, span: Span) -> Result<Value> {
        match container {
            Value::List(items) => self.sequence_item(&items.borrow(), index, span, Value::list),
            Value::Tuple(items) => self.sequence_item(items, index, span, Value::tuple),
            Value::Str(text) if !matches!(index, Value::Slice(_)) => self.text_item(text, index, span),
            Value::Str(text) => {
                self.charge_bytes(text.len(), span)?;
                let characters: Vec<Value> = text.chars().map(|c| Value::string(c.to_string())).collect();
                let item = self.sequence_item(&characters, index, span, |parts| {
                    Value::string(parts.iter().map(to_str).collect::<String>())
                })?;
                Ok(item)
            }
            Value::Range(start, stop, step) => self.range_item(*start, *stop, *step, index, span),
            Value::Dict(entries) => entries
                .borrow()
                .iter()
                .find(|(key, _)| values_equal(key, index))
                .map(|(_, value)| value.clone())
                .ok_or_else(|| {
                    let key = super::format::repr(index);
                    self.error(ErrorKind::Index, "", span)
                        .with_message(crate::messages::RuntimeMessage::MissingKey { key })
                }),
            Value::Tensor(object) if super::torch::indexing::applies(self, index) => {
                super::torch::indexing::get(self, &object.get(), index, span).inspect(|item| object.pass_torch_to(item))
            }
            Value::Tensor(object) => self.tensor_get_item(&object.get(), index, span).inspect(|item| {
                object.pass_torch_to(item);
                super::torch::views::link(self, object, index, item);
            }),
            Value::Instance(instance) if instance.is_named_tuple() => {
                let fields = instance.field_values().unwrap_or_default();
                self.sequence_item(&fields, index, span, Value::tuple)
            }
            Value::Builtin(name) if name.starts_with("typing.") => Ok(container.clone()),
            Value::Class(class) if super::classes::enumeration::member_type(class).is_some() => {
                self.enumeration_item(class, index, span)
            }
            other => {
                let message = OperationMessage::NotSubscriptable { type_name: other.type_name().into() };
                Err(self.coded(ErrorKind::Type, message, span))
            }
        }
    }

    fn sequence_item(
        &self,
        items: &[Value],
        index: &Value,
        span: Span,
        build: impl Fn(Vec<Value>) -> Value,
    ) -> Result<Value> {
        match index {
            Value::Slice(bounds) => {
                let [start, stop, step] = &**bounds;
                let spec = SliceSpec::from_python(*start, *stop, clamp_step(*step, items.len()), items.len())
                    .map_err(|_| self.slice_step_zero(span))?;
                let picked = (0..spec.count)
                    .map(|k| items[(spec.start as isize + k as isize * spec.step) as usize].clone())
                    .collect();
                Ok(build(picked))
            }
            other => {
                let position = self.sequence_index(items.len(), other, span)?;
                Ok(items[position].clone())
            }
        }
    }

    pub(crate) fn sequence_index(&self, length: usize, index: &Value, span: Span) -> Result<usize> {
        let Some(raw) = index.as_int() else {
            let got = index.type_name().to_string();
            return Err(self
                .error(ErrorKind::Type, "", span)
                .with_message(crate::messages::RuntimeMessage::IndexType { got }));
        };
        let resolved = if raw < 0 { raw + length as i64 } else { raw };
        if resolved < 0 || resolved >= length as i64 {
            let message = crate::messages::RuntimeMessage::IndexOutOfRange { index: raw, length };
            return Err(self.error(ErrorKind::Index, "", span).with_message(message));
        }
        Ok(resolved as usize)
    }

    /// `container[index] = value`.
    pub(crate) fn set_item(&self, container: &Value, index: &Value, value: Value, span: Span) -> Result<()> {
        match container {
            Value::List(items) => {
                if let Value::Slice(bounds) = index {
                    let [start, stop, step] = &**bounds;
                    let new_items = self.iterate(&value, span)?;
                    let mut items = items.borrow_mut();
                    let spec = SliceSpec::from_python(*start, *stop, clamp_step(*step, items.len()), items.len())
                        .map_err(|_| self.slice_step_zero(span))?;
                    if spec.step != 1 {
                        let construct = crate::messages::Construct::ExtendedSliceAssignment;
                        let message = crate::messages::UnsupportedMessage::NotSupported { construct };
                        return Err(self.coded(ErrorKind::Unsupported, message, span));
                    }
                    let end = spec.start + spec.count;
                    items.splice(spec.start..end, new_items);
                    return Ok(());
                }
                let length = items.borrow().len();
                let position = self.sequence_index(length, index, span)?;
                items.borrow_mut()[position] = value;
                Ok(())
            }
            Value::Dict(entries) => {
                let mut entries = entries.borrow_mut();
                match entries.iter_mut().find(|(key, _)| values_equal(key, index)) {
                    Some(entry) => entry.1 = value,
                    None => {
                        if matches!(index, Value::List(_) | Value::Dict(_) | Value::Tensor(_)) {
                            let message = OperationMessage::Unhashable { type_name: index.type_name().into() };
                            return Err(self.coded(ErrorKind::Type, message, span));
                        }
                        entries.push((index.clone(), value));
                    }
                }
                Ok(())
            }
            Value::Tensor(object) if super::torch::indexing::applies(self, index) => {
                super::torch::indexing::set(self, object, index, &value, span)?;
                super::torch::views::write_through(self, object, span)
            }
            Value::Tensor(object) => {
                self.tensor_set_item(object, index, &value, span)?;
                super::torch::views::write_through(self, object, span)
            }
            other => {
                let message = OperationMessage::NoItemAssignment { type_name: other.type_name().into() };
                Err(self.coded(ErrorKind::Type, message, span))
            }
        }
    }

    /// `object.name`.
    pub(crate) fn get_attribute(&self, object: &Value, name: &str, span: Span) -> Result<Value> {
        let method = |names: &[&str]| -> Option<Value> {
            names.contains(&name).then(|| Value::Method(Rc::new((object.clone(), name.to_string()))))
        };
        let found = match object {
            Value::Module(module) if self.is_script_module_attribute(module, name) => {
                return self.user_module_attribute(module, name, span)
            }
            Value::Module(module) if module.as_ref() == "math" => return self.math_attribute(name, span),
            Value::Module(module) if module.starts_with("torch") => {
                return super::torch::module_attribute(self, module, name, span)
            }
            Value::Module(module) if module.starts_with("numpy") => {
                return super::numpy::module_attribute(self, module, name, span)
            }
            Value::Module(module) if module.as_ref() == "typing" => return self.typing_attribute(name, span),
            Value::Module(module) if super::host::is_host_module(module) => {
                return super::host::module_attribute(self, module, name, span)
            }
            Value::Instance(instance) => return self.instance_attribute(object, instance, name, span),
            Value::Object(inner) if matches!(inner.as_ref(), Object::Super { .. }) => {
                let Object::Super { class, receiver } = inner.as_ref() else { unreachable!() };
                return self.super_attribute(object, class, receiver, name, span);
            }
            Value::Class(class) => return self.class_attribute(class, name, span),
            Value::Module(module) => return super::pypto::module_attribute(self, module, name, span),
            Value::Tensor(object) => {
                return self.tensor_attribute(object, name, span).inspect(|value| object.pass_torch_to(value))
            }
            Value::Object(inner)
                if matches!(
                    inner.as_ref(),
                    Object::ArgumentParser(_) | Object::Path(_) | Object::TextFile(_) | Object::RegexMatch(_)
                ) =>
            {
                super::host::object_attribute(object, inner, name)
            }
            Value::Object(inner) if matches!(inner.as_ref(), Object::OperatorLibrary { .. }) => {
                let Object::OperatorLibrary { namespace } = inner.as_ref() else { unreachable!() };
                super::torch::library::library_attribute(object, namespace, name)
            }
            Value::Object(inner) if matches!(inner.as_ref(), Object::Device(_)) => {
                let Object::Device(device) = inner.as_ref() else { unreachable!() };
                device.attribute(name)
            }
            Value::Object(inner) => return super::pypto::object_attribute(self, object, inner, name, span),
            Value::List(_) => {
                method(&["append", "extend", "pop", "insert", "index", "count", "copy", "reverse", "sort"])
            }
            Value::Dict(_) => method(&super::dict_methods::DICT_METHODS),
            Value::Set(_) => method(super::sets::SET_METHODS),
            Value::Str(_) => method(super::string_methods::STRING_METHODS),
            // pypto's scalars (loop indices and what is computed from them) have its methods.
            Value::Int(_) => method(&super::pypto::symbolic::METHODS),
            Value::Kernel(kernel) if name == "name" => Some(Value::string(kernel.name.as_str())),
            Value::Function(function) if name == "__name__" => Some(Value::string(function.name.as_str())),
            // `int.__name__`, `type(error).__name__`, `torch.Tensor.__name__` ("Tensor").
            Value::Builtin(builtin) if name == "__name__" => {
                Some(Value::string(builtin.rsplit('.').next().unwrap_or(builtin)))
            }
            Value::DType(dtype, _) if name == "name" => Some(Value::string(dtype.pypto_name())),
            _ => None,
        };
        found.ok_or_else(|| {
            let message = crate::messages::RuntimeMessage::NoAttribute {
                type_name: object.type_name().to_string(),
                name: name.to_string(),
            };
            self.error(ErrorKind::Attribute, "", span).with_message(message)
        })
    }

    /// `object.name = value`.
    pub(crate) fn set_attribute(&self, object: &Value, name: &str, value: Value, span: Span) -> Result<()> {
        match object {
            Value::Tensor(tensor) => return self.set_tensor_attribute(tensor, name, value, span),
            Value::Instance(instance) => return self.set_instance_attribute(instance, name, value, span),
            Value::Class(class) => {
                self.set_class_attribute(class, name, value);
                return Ok(());
            }
            _ => {}
        }
        if let Some(globals) = match object {
            Value::Module(module) => self.user_modules.globals(module),
            _ => None,
        } {
            globals.set(name, value);
            return Ok(());
        }
        if let Value::Module(module) = object {
            if super::torch::npu_format::set(self, module, name, &value) {
                return Ok(());
            }
        }
        if matches!(object, Value::Module(module) if module.as_ref() == "pypto.platform") {
            return super::pypto::spec::set_platform(self, name, &value, span);
        }
        let message = OperationMessage::CannotSetAttribute { name: name.into(), type_name: object.type_name().into() };
        Err(self.coded(ErrorKind::Attribute, message, span))
    }

    /// Calls the method `name` of `receiver`.
    pub(crate) fn call_method(&self, receiver: &Value, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
        match receiver {
            Value::Tensor(object) => {
                self.call_tensor_method(object, name, arguments, span).inspect(|value| object.pass_torch_to(value))
            }
            Value::Int(_) => super::pypto::symbolic::int_method(self, receiver, name, arguments, span),
            Value::Instance(_) | Value::Class(_) => self.call_class_method(receiver, name, arguments, span),
            Value::Object(object) => match (object.as_ref(), name) {
                (Object::Super { class, receiver }, _) => {
                    self.call_super_method(class, receiver, name, arguments, span)
                }
                (Object::Graph(graph), "to_dot") => Ok(Value::string(graph.to_dot())),
                (Object::ArgumentParser(_) | Object::Path(_) | Object::TextFile(_) | Object::RegexMatch(_), _) => {
                    super::host::call_method(self, receiver, object, name, arguments, span).expect("a host object")
                }
                (Object::OperatorLibrary { namespace }, _) => {
                    super::torch::library::library_method(self, namespace, name, arguments, span)
                }
                (Object::LossScaler(scaler), _) => {
                    super::pypto::scaler::call_method(self, scaler, name, arguments, span)
                }
                (Object::Schedule(simulation), "trace_json") => {
                    self.bind("Schedule.trace_json", &[], arguments, false, span)?;
                    Ok(Value::string(simulation.trace.to_chrome_json()))
                }
                _ => Err(self.coded(
                    ErrorKind::Attribute,
                    OperationMessage::NoMethod { type_name: receiver.type_name().into(), name: name.into() },
                    span,
                )),
            },
            // `list.sort(*, key=None, reverse=False)`: in place, stable, as `sorted` orders.
            Value::List(items) if name == "sort" => {
                if !arguments.positional.is_empty() {
                    self.bind("sort", &[], arguments, false, span)?;
                    return Ok(Value::None);
                }
                let keywords = arguments.keywords;
                let sorted = self.sorted(Arguments { positional: vec![(receiver.clone(), span)], keywords }, span)?;
                if let Value::List(sorted) = &sorted {
                    let sorted = sorted.borrow().clone();
                    *items.borrow_mut() = sorted;
                }
                Ok(Value::None)
            }
            Value::List(items) => {
                let bound = self.bind(name, &["a", "b"], arguments, false, span)?;
                match name {
                    "append" => {
                        let length = items.borrow().len() + 1;
                        self.check_items(length, span)?;
                        items.borrow_mut().push(bound.required(0)?.clone());
                        Ok(Value::None)
                    }
                    "extend" => {
                        let extra = self.iterate(bound.required(0)?, span)?;
                        let length = items.borrow().len() + extra.len();
                        self.check_items(length, span)?;
                        items.borrow_mut().extend(extra);
                        Ok(Value::None)
                    }
                    "pop" => {
                        let length = items.borrow().len();
                        if length == 0 {
                            return Err(self
                                .error(ErrorKind::Index, "", span)
                                .with_message(crate::messages::RuntimeMessage::PopFromEmpty));
                        }
                        let position = match bound.optional(0) {
                            Some(index) => self.sequence_index(length, index, span)?,
                            None => length - 1,
                        };
                        Ok(items.borrow_mut().remove(position))
                    }
                    "insert" => {
                        let length = items.borrow().len();
                        let raw = bound.int(0, None)?;
                        let position =
                            if raw < 0 { (raw + length as i64).max(0) } else { raw.min(length as i64) } as usize;
                        items.borrow_mut().insert(position, bound.required(1)?.clone());
                        Ok(Value::None)
                    }
                    "index" => {
                        let needle = bound.required(0)?;
                        items
                            .borrow()
                            .iter()
                            .position(|item| values_equal(item, needle))
                            .map(|i| Value::Int(i as i64))
                            .ok_or_else(|| {
                                self.error(ErrorKind::Value, "", span)
                                    .with_message(crate::messages::RuntimeMessage::NotInList)
                            })
                    }
                    "count" => {
                        let needle = bound.required(0)?;
                        Ok(Value::Int(items.borrow().iter().filter(|item| values_equal(item, needle)).count() as i64))
                    }
                    "copy" => Ok(Value::list(items.borrow().clone())),
                    _ => {
                        items.borrow_mut().reverse();
                        Ok(Value::None)
                    }
                }
            }
            Value::Dict(entries) => self.call_dict_method(receiver, entries, name, arguments, span),
            Value::Str(text) => self.call_string_method(text, name, arguments, span),
            Value::Set(members) => self.call_set_method(members, name, arguments, span),
            other => Err(self.coded(
                ErrorKind::Attribute,
                OperationMessage::NoMethod { type_name: other.type_name().into(), name: name.into() },
                span,
            )),
        }
    }
}
