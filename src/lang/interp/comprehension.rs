//! Comprehensions: `[element for target in iterable if condition …]` (generator expressions too,
//! as lists). The loop targets live in a scope of their own, as in Python 3.

use std::rc::Rc;

use super::error::Result;
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::ast::{Comprehension, Expr};
use crate::lang::syntax::Span;

impl Interpreter {
    /// The list a comprehension makes.
    #[inline(never)]
    pub(crate) fn eval_comprehension(
        &self,
        element: &Expr,
        generators: &[Comprehension],
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<Value> {
        let inner = Scope::child(scope);
        let mut items = Vec::new();
        self.comprehension_level(element, generators, scope, &inner, &mut items, span)?;
        Ok(Value::list(items))
    }

    /// One `for` of the comprehension (the first iterable is evaluated outside, as in Python).
    fn comprehension_level(
        &self,
        element: &Expr,
        generators: &[Comprehension],
        outer: &Rc<Scope>,
        inner: &Rc<Scope>,
        items: &mut Vec<Value>,
        span: Span,
    ) -> Result<()> {
        let Some((generator, rest)) = generators.split_first() else {
            items.push(self.eval(element, inner)?);
            return self.check_items(items.len(), span);
        };
        let iterable = self.eval(&generator.iterable, outer)?;
        'items: for item in self.iterate(&iterable, generator.iterable.span)? {
            self.assign(&generator.target, item, inner)?;
            for condition in &generator.conditions {
                let test = self.eval(condition, inner)?;
                if !self.truthy(&test, condition.span)? {
                    continue 'items;
                }
            }
            self.comprehension_level(element, rest, inner, inner, items, span)?;
        }
        Ok(())
    }
}
