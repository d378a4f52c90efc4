//! Python sets: `{a, b}`, `{x for x in …}`, `set(iterable)`, membership, `-` and the methods real
//! scripts use (pypto code passes `unroll_list={1}`). Members keep their insertion order (CPython
//! orders small ints by hash, which prints `{3, 1}` as `{1, 3}`; the README notes the difference);
//! equality and the set algebra ignore order, as in Python.

use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::operators::values_equal;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::ast::{Comprehension, Expr};
use crate::lang::syntax::Span;

/// The methods a set has.
pub(crate) const SET_METHODS: &[&str] = &[
    "add",
    "remove",
    "discard",
    "pop",
    "clear",
    "update",
    "copy",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
];

/// `members` without repeats (the first of equal members stays, as in Python).
pub(crate) fn unique(members: Vec<Value>) -> Vec<Value> {
    let mut kept: Vec<Value> = Vec::with_capacity(members.len());
    for member in members {
        if !kept.iter().any(|existing| values_equal(existing, &member)) {
            kept.push(member);
        }
    }
    kept
}

/// Whether `member` is in `members`.
pub(crate) fn contains(members: &[Value], member: &Value) -> bool {
    members.iter().any(|existing| values_equal(existing, member))
}

/// Python `==` on two sets' members: the same members in any order.
pub(crate) fn same_members(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().all(|member| contains(b, member))
}

impl Interpreter {
    /// The set a display `{a, b}` makes.
    pub(crate) fn eval_set(&self, items: &[Expr], scope: &Rc<Scope>, span: Span) -> Result<Value> {
        self.check_items(items.len(), span)?;
        let mut members = Vec::with_capacity(items.len());
        for item in items {
            let value = self.eval(item, scope)?;
            self.check_hashable(&value, item.span)?;
            members.push(value);
        }
        Ok(Value::set(unique(members)))
    }

    /// The set a comprehension `{element for …}` makes.
    pub(crate) fn eval_set_comprehension(
        &self,
        element: &Expr,
        generators: &[Comprehension],
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<Value> {
        let list = self.eval_comprehension(element, generators, scope, span)?;
        let Value::List(items) = &list else { unreachable!("a comprehension makes a list") };
        let members = std::mem::take(&mut *items.borrow_mut());
        for member in &members {
            self.check_hashable(member, element.span)?;
        }
        Ok(Value::set(unique(members)))
    }

    /// `set()` / `set(iterable)`.
    pub(crate) fn set_builtin(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("set", &["iterable"], arguments, false, span)?;
        let Some(iterable) = bound.optional(0) else { return Ok(Value::set(Vec::new())) };
        let members = self.hashable_members(iterable, bound.span_of(0))?;
        Ok(Value::set(unique(members)))
    }

    /// The items of `iterable`, each checked hashable.
    fn hashable_members(&self, iterable: &Value, span: Span) -> Result<Vec<Value>> {
        let members = self.iterate(iterable, span)?;
        for member in &members {
            self.check_hashable(member, span)?;
        }
        Ok(members)
    }

    /// `a - b` on two sets: the members of `a` not in `b`.
    pub(crate) fn set_difference(&self, a: &[Value], b: &[Value]) -> Value {
        Value::set(a.iter().filter(|member| !contains(b, member)).cloned().collect())
    }

    /// `members.name(arguments)` for a set's method.
    pub(crate) fn call_set_method(
        &self,
        set: &Rc<std::cell::RefCell<Vec<Value>>>,
        name: &str,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        let bound = self.bind(name, &["other"], arguments, false, span)?;
        let other = || -> Result<Vec<Value>> { self.hashable_members(bound.required(0)?, bound.span_of(0)) };
        let members = set.borrow().clone();
        Ok(match name {
            "add" => {
                let member = bound.required(0)?;
                self.check_hashable(member, bound.span_of(0))?;
                if !contains(&members, member) {
                    self.check_items(members.len() + 1, span)?;
                    set.borrow_mut().push(member.clone());
                }
                Value::None
            }
            "remove" | "discard" => {
                let member = bound.required(0)?;
                match members.iter().position(|existing| values_equal(existing, member)) {
                    Some(position) => {
                        set.borrow_mut().remove(position);
                    }
                    None if name == "remove" => {
                        let message =
                            crate::messages::RuntimeMessage::MissingMember { member: super::format::repr(member) };
                        return Err(self.error(ErrorKind::Index, "", span).with_message(message));
                    }
                    None => {}
                }
                Value::None
            }
            "pop" => {
                if members.is_empty() {
                    let message = crate::messages::RuntimeMessage::EmptySet;
                    return Err(self.error(ErrorKind::Index, "", span).with_message(message));
                }
                set.borrow_mut().remove(0)
            }
            "clear" => {
                set.borrow_mut().clear();
                Value::None
            }
            "update" => {
                let added = unique(members.into_iter().chain(other()?).collect());
                self.check_items(added.len(), span)?;
                *set.borrow_mut() = added;
                Value::None
            }
            "copy" => Value::set(members),
            "union" => Value::set(unique(members.into_iter().chain(other()?).collect())),
            "intersection" => {
                let other = other()?;
                Value::set(members.into_iter().filter(|member| contains(&other, member)).collect())
            }
            "difference" => self.set_difference(&members, &other()?),
            "symmetric_difference" => {
                let other = unique(other()?);
                let mut result: Vec<Value> =
                    members.iter().filter(|member| !contains(&other, member)).cloned().collect();
                result.extend(other.into_iter().filter(|member| !contains(&members, member)));
                Value::set(result)
            }
            "issubset" => {
                let other = other()?;
                Value::Bool(members.iter().all(|member| contains(&other, member)))
            }
            "issuperset" => Value::Bool(other()?.iter().all(|member| contains(&members, member))),
            _ => {
                let other = other()?;
                Value::Bool(members.iter().all(|member| !contains(&other, member)))
            }
        })
    }
}
