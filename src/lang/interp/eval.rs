//! Expressions: names, literals, containers, attributes, subscripts, calls, operators.

use crate::messages::{Construct, OperationMessage, UnsupportedMessage};
use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::ast::{ArgumentKind, CompareOp, Expr, ExprKind, FStringPart, LogicalOp, UnaryOp};
use crate::lang::syntax::Span;
use crate::messages::Message;

/// Evaluated call arguments: positional values and `name=value` pairs, with their spans.
#[derive(Clone)]
pub(crate) struct Arguments {
    /// Positional values.
    pub positional: Vec<(Value, Span)>,
    /// Keyword values.
    pub keywords: Vec<(String, Value, Span)>,
}

impl Arguments {
    /// No arguments.
    pub(crate) fn empty() -> Self {
        Arguments { positional: Vec::new(), keywords: Vec::new() }
    }
}

impl Interpreter {
    /// Evaluates an expression. Each compound kind is its own (never inlined) function so that the
    /// frame of this recursive dispatcher stays small: deep script recursion then fits the stack.
    pub(crate) fn eval(&self, expression: &Expr, scope: &Rc<Scope>) -> Result<Value> {
        self.step(expression.span)?;
        let span = expression.span;
        match &expression.kind {
            ExprKind::Name(name) => self.lookup(name, scope, span),
            ExprKind::Int(value) => Ok(Value::Int(*value)),
            ExprKind::Float(value) => Ok(Value::Float(*value)),
            ExprKind::Str(text) => Ok(Value::string(text.as_str())),
            ExprKind::FString(parts) => self.eval_fstring(parts, scope, span),
            ExprKind::Bool(value) => Ok(Value::Bool(*value)),
            ExprKind::None => Ok(Value::None),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::List(items) => self.eval_items(items, scope, span).map(Value::list),
            ExprKind::Tuple(items) => self.eval_items(items, scope, span).map(Value::tuple),
            ExprKind::Dict(pairs) => self.eval_dict(pairs, scope, span),
            ExprKind::Set(items) => self.eval_set(items, scope, span),
            ExprKind::Attribute { value, attribute } => self.eval_attribute(value, attribute, scope),
            ExprKind::Subscript { value, index } => self.eval_subscript(value, index, scope, span),
            ExprKind::Slice { lower, upper, step } => self.eval_slice([lower, upper, step], scope),
            ExprKind::Call { function, arguments } => self.eval_call(function, arguments, scope, span),
            ExprKind::Unary { op, operand } => self.eval_unary(*op, operand, scope, span),
            ExprKind::Binary { op, left, right } => self.eval_binary(*op, left, right, scope, span),
            ExprKind::Logical { op, left, right } => self.eval_logical(*op, left, right, scope),
            ExprKind::Compare { left, comparisons } => self.eval_compare(left, comparisons, scope),
            ExprKind::IfElse { test, body, orelse } => self.eval_if_else(test, body, orelse, scope),
            ExprKind::ListComp { element, generators } => self.eval_comprehension(element, generators, scope, span),
            ExprKind::SetComp { element, generators } => self.eval_set_comprehension(element, generators, scope, span),
            ExprKind::DictComp { key, value, generators } => {
                self.eval_dict_comprehension(key, value, generators, scope, span)
            }
            ExprKind::Lambda(definition) => self.lambda_value(definition, scope),
            ExprKind::Error => {
                Err(self.coded(ErrorKind::Unsupported, OperationMessage::NotParsed { what: "expression".into() }, span))
            }
        }
    }

    #[inline(never)]
    fn eval_dict(&self, pairs: &[(Expr, Expr)], scope: &Rc<Scope>, span: Span) -> Result<Value> {
        self.check_items(pairs.len(), span)?;
        let mut entries: Vec<(Value, Value)> = Vec::with_capacity(pairs.len());
        for (key, value) in pairs {
            let key_value = self.eval(key, scope)?;
            self.check_hashable(&key_value, key.span)?;
            let value = self.eval(value, scope)?;
            match entries.iter_mut().find(|(existing, _)| super::operators::values_equal(existing, &key_value)) {
                Some(entry) => entry.1 = value,
                None => entries.push((key_value, value)),
            }
        }
        Ok(Value::dict(entries))
    }

    #[inline(never)]
    fn eval_attribute(
        &self,
        value: &Expr,
        attribute: &crate::lang::syntax::ast::Identifier,
        scope: &Rc<Scope>,
    ) -> Result<Value> {
        let object = self.eval(value, scope)?;
        self.get_attribute(&object, &attribute.name, attribute.span)
    }

    #[inline(never)]
    fn eval_subscript(&self, value: &Expr, index: &Expr, scope: &Rc<Scope>, span: Span) -> Result<Value> {
        let container = self.eval(value, scope)?;
        let index = self.eval(index, scope)?;
        self.get_item(&container, &index, span)
    }

    #[inline(never)]
    fn eval_slice(&self, parts: [&Option<Box<Expr>>; 3], scope: &Rc<Scope>) -> Result<Value> {
        let mut bounds = [None; 3];
        for (bound, part) in bounds.iter_mut().zip(parts) {
            if let Some(part) = part {
                *bound = match self.eval(part, scope)? {
                    Value::None => None,
                    value => Some(super::torch::indexing::as_index(&value).ok_or_else(|| {
                        let message = OperationMessage::SliceIndexType { got: value.type_name().into() };
                        self.coded(ErrorKind::Type, message, part.span)
                    })?),
                };
            }
        }
        Ok(Value::Slice(Rc::new(bounds)))
    }

    #[inline(never)]
    fn eval_call(
        &self,
        function: &Expr,
        arguments: &[crate::lang::syntax::ast::Argument],
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<Value> {
        let callee = self.eval(function, scope)?;
        let arguments = self.eval_arguments(arguments, scope)?;
        self.call(&callee, arguments, span)
    }

    #[inline(never)]
    fn eval_unary(&self, op: UnaryOp, operand: &Expr, scope: &Rc<Scope>, span: Span) -> Result<Value> {
        let value = self.eval(operand, scope)?;
        match op {
            UnaryOp::Not => Ok(Value::Bool(!self.truthy(&value, operand.span)?)),
            UnaryOp::Negate => self.negate(&value, span),
            UnaryOp::Invert => self.invert(&value, span),
            UnaryOp::Plus => match value {
                Value::Int(_) | Value::Float(_) | Value::Tensor(_) => Ok(value),
                Value::Bool(flag) => Ok(Value::Int(i64::from(flag))),
                other => Err(self.coded(
                    ErrorKind::Type,
                    OperationMessage::BadUnaryOperand { operator: "+".into(), type_name: other.type_name().into() },
                    span,
                )),
            },
        }
    }

    #[inline(never)]
    fn eval_binary(
        &self,
        op: crate::lang::syntax::ast::BinaryOp,
        left: &Expr,
        right: &Expr,
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<Value> {
        let left = self.eval(left, scope)?;
        let right = self.eval(right, scope)?;
        self.binary_owned(op, left, right, span)
    }

    #[inline(never)]
    fn eval_logical(&self, op: LogicalOp, left: &Expr, right: &Expr, scope: &Rc<Scope>) -> Result<Value> {
        let left_value = self.eval(left, scope)?;
        let left_true = self.truthy(&left_value, left.span)?;
        match (op, left_true) {
            (LogicalOp::And, false) | (LogicalOp::Or, true) => Ok(left_value),
            _ => self.eval(right, scope),
        }
    }

    #[inline(never)]
    fn eval_compare(&self, left: &Expr, comparisons: &[(CompareOp, Expr)], scope: &Rc<Scope>) -> Result<Value> {
        let mut current = self.eval(left, scope)?;
        let mut current_span = left.span;
        for (op, right) in comparisons {
            let right_value = self.eval(right, scope)?;
            // A tensor compares element-wise into a DT_BOOL mask (one comparison, as in torch);
            // `is`, `is not`, `in` and `not in` keep their Python meaning.
            let element_wise = !matches!(op, CompareOp::Is | CompareOp::IsNot | CompareOp::In | CompareOp::NotIn);
            if element_wise && (matches!(current, Value::Tensor(_)) || matches!(right_value, Value::Tensor(_))) {
                return self.tensor_comparison(
                    *op,
                    &current,
                    &right_value,
                    comparisons.len(),
                    left.span.cover(right.span),
                );
            }
            if !self.compare(*op, &current, &right_value, current_span.cover(right.span))? {
                return Ok(Value::Bool(false));
            }
            current = right_value;
            current_span = right.span;
        }
        Ok(Value::Bool(true))
    }

    #[inline(never)]
    fn eval_if_else(&self, test: &Expr, body: &Expr, orelse: &Expr, scope: &Rc<Scope>) -> Result<Value> {
        let condition = self.eval(test, scope)?;
        if self.truthy(&condition, test.span)? {
            self.eval(body, scope)
        } else {
            self.eval(orelse, scope)
        }
    }

    /// Looks a name up in the scopes, then among the builtins.
    pub(crate) fn lookup(&self, name: &str, scope: &Rc<Scope>, span: Span) -> Result<Value> {
        if let Some(value) = scope.get(name) {
            return Ok(value);
        }
        if super::builtins::is_builtin(name) {
            return Ok(Value::Builtin(Rc::from(name)));
        }
        // A notebook is the main program: `if __name__ == "__main__":` runs.
        if name == "__name__" {
            return Ok(Value::string("__main__"));
        }
        let error = self.error(ErrorKind::Name, "", span).with_message(Message::NameUndefined { name: name.into() });
        let import = |statement: String| Message::AddImport { statement };
        Err(match name {
            "pt" => error.with_help_message(import("import pypto as pt".into())),
            "pypto" | "math" | "torch" => error.with_help_message(import(format!("import {name}"))),
            "np" | "numpy" => error.with_help_message(OperationMessage::NoNumpyHere),
            "dataclass" | "field" => error.with_help_message(import(format!("from dataclasses import {name}"))),
            "NamedTuple" | "List" | "Tuple" | "Optional" | "Dict" | "Any" | "Union" | "Callable" => {
                error.with_help_message(import(format!("from typing import {name}")))
            }
            _ => match self.closest_name(name, scope) {
                Some(help) => error.with_help_message(help),
                None => error,
            },
        })
    }

    /// "did you mean …?" for a misspelt name: the closest name in scope or builtin, else a pypto
    /// function of that name used without its module.
    fn closest_name(&self, name: &str, scope: &Rc<Scope>) -> Option<Message> {
        let mut known = scope.names();
        known.extend(self.globals().names());
        known.extend(super::builtins::builtin_names().iter().map(|builtin| builtin.to_string()));
        if let Some(near) = super::api_table::closest(name, known.iter().map(String::as_str)) {
            return Some(Message::DidYouMean { suggestion: near.to_string() });
        }
        let qualified = format!("pypto.{name}");
        super::api_table::lookup(&qualified).map(|_| Message::DidYouMeanPypto { qualified })
    }

    fn eval_items(&self, items: &[Expr], scope: &Rc<Scope>, span: Span) -> Result<Vec<Value>> {
        self.check_items(items.len(), span)?;
        items.iter().map(|item| self.eval(item, scope)).collect()
    }

    fn eval_fstring(&self, parts: &[FStringPart], scope: &Rc<Scope>, span: Span) -> Result<Value> {
        let mut text = String::new();
        for part in parts {
            match part {
                FStringPart::Literal(literal) => text.push_str(literal),
                FStringPart::Field { expression, conversion, format_spec } => {
                    let value = self.eval(expression, scope)?;
                    let piece = match (conversion, format_spec) {
                        (Some('r'), _) => self.repr_of(&value, expression.span)?,
                        (_, Some(spec)) => super::format::format_with_spec(&value, spec)
                            .map_err(|message| self.coded(ErrorKind::Value, message, expression.span))?,
                        _ => self.text_of(&value, expression.span)?,
                    };
                    text.push_str(&piece);
                    self.check_string(text.len(), span)?;
                }
            }
        }
        Ok(Value::string(text))
    }

    /// Evaluates call arguments, unpacking `*list` and `**dict`.
    pub(crate) fn eval_arguments(
        &self,
        arguments: &[crate::lang::syntax::ast::Argument],
        scope: &Rc<Scope>,
    ) -> Result<Arguments> {
        let mut result = Arguments { positional: Vec::new(), keywords: Vec::new() };
        for argument in arguments {
            match &argument.kind {
                ArgumentKind::Positional(value) => result.positional.push((self.eval(value, scope)?, argument.span)),
                ArgumentKind::Keyword { name, value } => {
                    if result.keywords.iter().any(|(existing, _, _)| existing == &name.name) {
                        let message = crate::messages::GrammarMessage::KeywordRepeated { name: name.name.clone() };
                        return Err(self.coded(ErrorKind::Type, message, argument.span));
                    }
                    result.keywords.push((name.name.clone(), self.eval(value, scope)?, argument.span));
                }
                ArgumentKind::Unpack(value) => {
                    let sequence = self.eval(value, scope)?;
                    for item in self.iterate(&sequence, value.span)? {
                        result.positional.push((item, argument.span));
                    }
                }
                ArgumentKind::UnpackKeywords(value) => match &self.eval(value, scope)? {
                    Value::Dict(entries) => {
                        for (key, item) in entries.borrow().iter() {
                            let Value::Str(key) = key else {
                                return Err(self.coded(
                                    ErrorKind::Type,
                                    OperationMessage::KeywordsMustBeStrings,
                                    value.span,
                                ));
                            };
                            result.keywords.push((key.to_string(), item.clone(), argument.span));
                        }
                    }
                    other => {
                        let message = OperationMessage::DoubleStarNeedsDict { got: other.type_name().into() };
                        return Err(self.coded(ErrorKind::Type, message, value.span));
                    }
                },
            }
        }
        Ok(result)
    }

    /// `a op b` for comparisons.
    pub(crate) fn compare(&self, op: CompareOp, left: &Value, right: &Value, span: Span) -> Result<bool> {
        use super::operators::{order, values_equal};
        match op {
            CompareOp::Equal | CompareOp::NotEqual => {
                if matches!(left, Value::Tensor(_)) || matches!(right, Value::Tensor(_)) {
                    return Err(self
                        .coded(
                            ErrorKind::Unsupported,
                            UnsupportedMessage::NotSupported { construct: Construct::TensorEquality },
                            span,
                        )
                        .with_help_message(UnsupportedMessage::UseAllclose));
                }
                Ok(values_equal(left, right) == (op == CompareOp::Equal))
            }
            CompareOp::Is => Ok(super::operators::identical(left, right)),
            CompareOp::IsNot => Ok(!super::operators::identical(left, right)),
            CompareOp::In | CompareOp::NotIn => {
                let found = match right {
                    Value::Dict(entries) => entries.borrow().iter().any(|(key, _)| values_equal(key, left)),
                    Value::Set(members) => super::sets::contains(&members.borrow(), left),
                    Value::Str(text) => match left {
                        Value::Str(needle) => {
                            self.charge_bytes(text.len(), span)?;
                            text.contains(needle.as_ref())
                        }
                        other => {
                            let message = OperationMessage::InString { got: other.type_name().into() };
                            return Err(self.coded(ErrorKind::Type, message, span));
                        }
                    },
                    Value::Range(start, stop, step) => match left.as_int() {
                        Some(value) => {
                            let inside = if *step > 0 {
                                value >= *start && value < *stop
                            } else {
                                value <= *start && value > *stop
                            };
                            inside && (value as i128 - *start as i128) % *step as i128 == 0
                        }
                        None => false,
                    },
                    other => self.iterate(other, span)?.iter().any(|item| values_equal(item, left)),
                };
                Ok(found == (op == CompareOp::In))
            }
            CompareOp::Less | CompareOp::LessEqual | CompareOp::Greater | CompareOp::GreaterEqual => {
                let ordering = order(left, right).ok_or_else(|| {
                    let message = OperationMessage::NotOrderable {
                        operator: op.symbol().into(),
                        left: left.type_name().into(),
                        right: right.type_name().into(),
                    };
                    let error = self.coded(ErrorKind::Type, message, span);
                    if matches!(left, Value::Tensor(_)) || matches!(right, Value::Tensor(_)) {
                        error.with_help_message(OperationMessage::CompareScalar)
                    } else {
                        error
                    }
                })?;
                Ok(match op {
                    CompareOp::Less => ordering.is_lt(),
                    CompareOp::LessEqual => ordering.is_le(),
                    CompareOp::Greater => ordering.is_gt(),
                    _ => ordering.is_ge(),
                })
            }
        }
    }
}
