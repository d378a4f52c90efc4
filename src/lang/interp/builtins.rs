//! The builtins (`print len range min max abs float int round list tuple enumerate zip …`), the
//! `math` module, iteration, and the methods of lists, dicts and strings.

use crate::messages::OperationMessage;
use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::format::{repr, to_str};
use super::interpreter::Interpreter;
use super::sequences::range_length;
use super::value::Value;
use crate::lang::syntax::Span;

const BUILTINS: [&str; 30] = [
    "print",
    "exit",
    "quit",
    "help",
    "dir",
    "len",
    "range",
    "min",
    "max",
    "abs",
    "float",
    "int",
    "round",
    "list",
    "tuple",
    "set",
    "dict",
    "enumerate",
    "zip",
    "sum",
    "str",
    "bool",
    "sorted",
    "reversed",
    "map",
    "filter",
    "any",
    "all",
    "repr",
    "open",
];

/// The names of the builtin functions.
pub(crate) fn builtin_names() -> &'static [&'static str] {
    &BUILTINS
}

/// Whether `name` is a builtin function.
pub(crate) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name) || super::classes::CLASS_BUILTINS.contains(&name) || super::raising::is_exception(name)
}

const MATH_FUNCTIONS: [&str; 20] = [
    "sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "atan", "erf", "floor", "ceil", "fabs", "pow",
    "isclose", "isnan", "isinf", "isfinite", "prod",
];

impl Interpreter {
    /// Calls a builtin by qualified name.
    pub(crate) fn call_builtin(&self, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
        if let Some(function) = name.strip_prefix("math.") {
            return self.call_math(function, arguments, span);
        }
        if name.starts_with("numpy.") {
            return super::numpy::call(self, name, arguments, span);
        }
        if super::host::is_host_module(name) {
            return super::host::call(self, name, arguments, span);
        }
        if name.starts_with("torch.") || name.starts_with("torch_npu.") {
            return super::torch::call(self, name, arguments, span);
        }
        if name.starts_with("pypto.") {
            return super::pypto::call(self, name, arguments, span);
        }
        if super::raising::is_exception(name) {
            return self.make_exception(name, arguments, span);
        }
        if super::classes::is_class_builtin(name) {
            return self.call_class_builtin(name, arguments, span);
        }
        match name {
            // The site's `exit()` and `quit()` are `sys.exit()`.
            "exit" | "quit" => super::host::call(self, "sys.exit", arguments, span),
            "help" => self.call_help(arguments, span),
            "open" => super::host::files::open(self, arguments, span),
            "dir" => self.call_dir(arguments, span),
            "print" => {
                let (positional, bound) = self.bind_keywords("print", &["sep", "end"], arguments, span)?;
                let sep = bound.optional(0).map_or(" ".to_string(), to_str);
                let end = bound.optional(1).map_or("\n".to_string(), to_str);
                let parts: Vec<String> =
                    positional.iter().map(|(value, _)| self.text_of(value, span)).collect::<Result<_>>()?;
                self.write_output(&format!("{}{end}", parts.join(&sep)), span)?;
                Ok(Value::None)
            }
            "zip" if arguments.keywords.is_empty() && arguments.positional.len() > 2 => self.zip_many(&arguments),
            "range" => {
                let bound = self.bind("range", &["start", "stop", "step"], arguments, false, span)?;
                let (start, stop) = match bound.optional(1) {
                    None => (0, bound.int(0, None)?),
                    Some(_) => (bound.int(0, None)?, bound.int(1, None)?),
                };
                let step = bound.int(2, Some(1))?;
                if step == 0 {
                    return Err(self
                        .error(ErrorKind::Value, "", bound.span_of(2))
                        .with_message(crate::messages::RuntimeMessage::ZeroStep));
                }
                Ok(Value::Range(start, stop, step))
            }
            "min" | "max" => self.min_max(name, arguments, span),
            "sorted" => self.sorted(arguments, span),
            "reversed" => self.reversed(arguments, span),
            "set" => self.set_builtin(arguments, span),
            "dict" => self.dict_builtin(arguments, span),
            "map" => self.map(arguments, span),
            "filter" => self.filter(arguments, span),
            _ => {
                let bound = self.bind(name, &["value", "second"], arguments, false, span)?;
                let value = bound.required(0).ok().cloned();
                self.call_simple_builtin(name, value, bound.optional(1).cloned(), span)
            }
        }
    }

    fn call_simple_builtin(
        &self,
        name: &str,
        value: Option<Value>,
        second: Option<Value>,
        span: Span,
    ) -> Result<Value> {
        let missing = || self.coded(ErrorKind::Type, OperationMessage::NeedsArgument { function: name.into() }, span);
        match name {
            "list" => Ok(Value::list(match value {
                Some(value) => self.iterate(&value, span)?,
                None => Vec::new(),
            })),
            "tuple" => Ok(Value::tuple(match value {
                Some(value) => self.iterate(&value, span)?,
                None => Vec::new(),
            })),
            "str" => Ok(Value::string(match value {
                Some(value) => self.text_of(&value, span)?,
                None => String::new(),
            })),
            "repr" => Ok(Value::string(self.repr_of(&value.ok_or_else(missing)?, span)?)),
            "bool" => Ok(Value::Bool(match value {
                Some(value) => self.truthy(&value, span)?,
                None => false,
            })),
            _ => {
                let value = value.ok_or_else(missing)?;
                self.call_unary_builtin(name, value, second, span)
            }
        }
    }

    fn call_unary_builtin(&self, name: &str, value: Value, second: Option<Value>, span: Span) -> Result<Value> {
        let type_error = |value: &Value| {
            let message =
                OperationMessage::UnsupportedArgument { function: name.into(), type_name: value.type_name().into() };
            self.coded(ErrorKind::Type, message, span)
        };
        match name {
            "len" => Ok(Value::Int(match &value {
                Value::Str(text) => self.text_facts(text, span)?.1 as i64,
                Value::List(items) => items.borrow().len() as i64,
                Value::Tuple(items) => items.len() as i64,
                Value::Dict(entries) => entries.borrow().len() as i64,
                Value::Set(members) => members.borrow().len() as i64,
                Value::Instance(instance) if instance.is_named_tuple() => {
                    instance.field_values().map_or(0, |fields| fields.len()) as i64
                }
                Value::Class(class) if super::classes::enumeration::member_type(class).is_some() => {
                    super::classes::enumeration::members(class).len() as i64
                }
                Value::Range(start, stop, step) => {
                    i64::try_from(range_length(*start, *stop, *step)).map_err(|_| self.range_too_long(span))?
                }
                Value::Tensor(object) => match object.get().shape().first() {
                    Some(&size) => size as i64,
                    None => return Err(self.coded(ErrorKind::Type, OperationMessage::LenOfScalar, span)),
                },
                other => return Err(type_error(other)),
            })),
            "abs" => match &value {
                Value::Int(number) => number
                    .checked_abs()
                    .map(Value::Int)
                    .ok_or_else(|| self.coded(ErrorKind::Overflow, OperationMessage::IntegerOverflow, span)),
                Value::Bool(flag) => Ok(Value::Int(i64::from(*flag))),
                Value::Float(number) => Ok(Value::Float(number.abs())),
                Value::Tensor(object) => self.tensor_result(object.get().unary(crate::tensor::UnaryOp::Abs), span),
                other => Err(type_error(other)),
            },
            "float" => match &value {
                Value::Str(text) => match text.trim() {
                    "inf" | "+inf" => Ok(Value::Float(f64::INFINITY)),
                    "-inf" => Ok(Value::Float(f64::NEG_INFINITY)),
                    "nan" => Ok(Value::Float(f64::NAN)),
                    trimmed => trimmed.parse().map(Value::Float).map_err(|_| {
                        self.coded(ErrorKind::Value, OperationMessage::FloatParse { text: repr(&value) }, span)
                    }),
                },
                Value::Tensor(object) => self.item(&object.get(), span).map(Value::Float),
                other => other.as_number().map(Value::Float).ok_or_else(|| type_error(other)),
            },
            "int" => match &value {
                Value::Float(number) => self.float_to_int(number.trunc(), span).map(Value::Int),
                Value::Str(text) => text.trim().parse().map(Value::Int).map_err(|_| {
                    self.error(ErrorKind::Value, "", span)
                        .with_message(crate::messages::RuntimeMessage::InvalidIntLiteral { text: repr(&value) })
                }),
                Value::Tensor(object) => {
                    self.float_to_int(self.item(&object.get(), span)?.trunc(), span).map(Value::Int)
                }
                other => other.as_int().map(Value::Int).ok_or_else(|| type_error(other)),
            },
            "round" => {
                let number = match &value {
                    Value::Tensor(object) => self.item(&object.get(), span)?,
                    other => other.as_number().ok_or_else(|| type_error(other))?,
                };
                match second.and_then(|digits| digits.as_int()) {
                    None => self.float_to_int(round_half_even(number), span).map(Value::Int),
                    Some(digits) if digits >= 0 => {
                        // The decimal expansion of the binary value decides, as in Python (2.675 → 2.67).
                        let text = format!("{:.*}", digits.min(300) as usize, number);
                        Ok(Value::Float(text.parse().unwrap_or(number)))
                    }
                    Some(digits) => {
                        let factor = 10f64.powi(digits.clamp(-300, 0) as i32);
                        Ok(Value::Float(round_half_even(number * factor) / factor))
                    }
                }
            }
            "enumerate" => {
                let start = second.and_then(|start| start.as_int()).unwrap_or(0);
                let items = self.iterate(&value, span)?;
                Ok(Value::list(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(index, item)| Value::tuple(vec![Value::Int(start.saturating_add(index as i64)), item]))
                        .collect(),
                ))
            }
            "zip" => {
                let first = self.iterate(&value, span)?;
                let second = match second {
                    Some(second) => self.iterate(&second, span)?,
                    None => return Ok(Value::list(first.into_iter().map(|item| Value::tuple(vec![item])).collect())),
                };
                Ok(Value::list(first.into_iter().zip(second).map(|(a, b)| Value::tuple(vec![a, b])).collect()))
            }
            "sum" => {
                let mut total = second.unwrap_or(Value::Int(0));
                for item in self.iterate(&value, span)? {
                    total = self.binary(crate::lang::syntax::ast::BinaryOp::Add, &total, &item, span)?;
                }
                Ok(total)
            }
            "any" | "all" => {
                let want = name == "all";
                for item in self.iterate(&value, span)? {
                    if self.truthy(&item, span)? != want {
                        return Ok(Value::Bool(!want));
                    }
                }
                Ok(Value::Bool(want))
            }
            _ => Err(self
                .error(ErrorKind::Name, String::new(), span)
                .with_message(crate::messages::Message::NameUndefined { name: name.to_string() })),
        }
    }

    fn call_math(&self, function: &str, arguments: Arguments, span: Span) -> Result<Value> {
        if function == "prod" {
            // `math.prod(iterable, *, start=1)`: the product in order, ints staying ints.
            let bound = self.bind("math.prod", &["iterable", "start"], arguments, false, span)?;
            let mut product = bound.optional(1).cloned().unwrap_or(Value::Int(1));
            for item in self.iterate(bound.required(0)?, bound.span_of(0))? {
                product = self.binary(crate::lang::syntax::ast::BinaryOp::Multiply, &product, &item, span)?;
            }
            return Ok(product);
        }
        let bound = self.bind(&format!("math.{function}"), &["x", "y"], arguments, false, span)?;
        let x = bound.float(0, None)?;
        let domain = || self.coded(ErrorKind::Value, OperationMessage::MathDomain { function: function.into() }, span);
        Ok(Value::Float(match function {
            "sqrt" if x < 0.0 => return Err(domain()),
            "sqrt" => x.sqrt(),
            "exp" => x.exp(),
            "log" | "log2" | "log10" if x <= 0.0 => return Err(domain()),
            "log" => match bound.optional(1) {
                Some(_) => x.ln() / bound.float(1, None)?.ln(),
                None => x.ln(),
            },
            "log2" => x.log2(),
            "log10" => x.log10(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "tanh" => x.tanh(),
            "atan" => x.atan(),
            "erf" => libm::erf(x),
            "fabs" => x.abs(),
            "pow" => x.powf(bound.float(1, None)?),
            "floor" => return self.float_to_int(x.floor(), span).map(Value::Int),
            "ceil" => return self.float_to_int(x.ceil(), span).map(Value::Int),
            "isnan" => return Ok(Value::Bool(x.is_nan())),
            "isinf" => return Ok(Value::Bool(x.is_infinite())),
            "isfinite" => return Ok(Value::Bool(x.is_finite())),
            "isclose" => {
                let y = bound.float(1, None)?;
                return Ok(Value::Bool((x - y).abs() <= 1e-9 * x.abs().max(y.abs())));
            }
            _ => return Err(self.no_math_attribute(function, span)),
        }))
    }

    /// An integral float as an int, as Python raises: NaN is a `ValueError`, an infinity or a value
    /// past 64 bits an `OverflowError` (a saturating cast would answer i64::MAX or 0 silently).
    pub(crate) fn float_to_int(&self, integral: f64, span: Span) -> Result<i64> {
        if integral.is_nan() {
            return Err(self.coded(ErrorKind::Value, OperationMessage::NanToInt, span));
        }
        if integral.is_infinite() {
            return Err(self.coded(ErrorKind::Overflow, OperationMessage::InfinityToInt, span));
        }
        // 2**63 is exactly representable: every float below it in magnitude fits in an i64.
        if integral.abs() >= 9_223_372_036_854_775_808.0 && integral != -9_223_372_036_854_775_808.0 {
            let message = OperationMessage::FloatTooLarge { value: super::format::format_float(integral) };
            return Err(self.coded(ErrorKind::Overflow, message, span));
        }
        Ok(integral as i64)
    }

    /// `math.<name>`.
    pub(crate) fn math_attribute(&self, name: &str, span: Span) -> Result<Value> {
        match name {
            "pi" => Ok(Value::Float(std::f64::consts::PI)),
            "e" => Ok(Value::Float(std::f64::consts::E)),
            "inf" => Ok(Value::Float(f64::INFINITY)),
            "nan" => Ok(Value::Float(f64::NAN)),
            _ if MATH_FUNCTIONS.contains(&name) => Ok(Value::Builtin(Rc::from(format!("math.{name}").as_str()))),
            _ => Err(self.no_math_attribute(name, span)),
        }
    }

    fn no_math_attribute(&self, name: &str, span: Span) -> super::error::RuntimeError {
        let message = crate::messages::Message::NoModuleAttribute { module: "math".into(), name: name.into() };
        self.coded(ErrorKind::Attribute, message, span)
    }
}

fn round_half_even(value: f64) -> f64 {
    let rounded = value.round();
    if (value - value.trunc()).abs() == 0.5 {
        2.0 * (value / 2.0).round()
    } else {
        rounded
    }
}
