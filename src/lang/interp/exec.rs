//! Statements: assignment (with unpacking and subscripts), control flow, `def`, `assert`,
//! `with` (in `with_statement`).

use crate::messages::OperationMessage;
use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::sequences::range_length;
use super::value::Value;
use crate::lang::syntax::ast::{Expr, ExprKind, FunctionDef, Stmt, StmtKind};
use crate::lang::syntax::Span;

/// How a statement ended.
pub(crate) enum Flow {
    /// Fell through.
    Normal,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return value`.
    Return(Value),
}

impl Interpreter {
    /// Runs statements in order until one breaks the flow.
    pub(crate) fn exec_block(&self, body: &[Stmt], scope: &Rc<Scope>) -> Result<Flow> {
        for statement in body {
            match self.exec(statement, scope)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs one statement (compound kinds are separate, never inlined functions: see `eval`).
    pub(crate) fn exec(&self, statement: &Stmt, scope: &Rc<Scope>) -> Result<Flow> {
        self.step(statement.span)?;
        match &statement.kind {
            StmtKind::Expr(expression) => self.eval(expression, scope).map(|_| Flow::Normal),
            StmtKind::Assign { targets, value } => self.exec_assign(targets, value, scope),
            StmtKind::AugAssign { target, op, value } => {
                self.augmented_assign(target, *op, value, scope).map(|_| Flow::Normal)
            }
            StmtKind::AnnAssign { target, value, .. } => match value {
                Some(value) => self.exec_assign(std::slice::from_ref(target), value, scope),
                None => Ok(Flow::Normal),
            },
            StmtKind::Import { names } => {
                for alias in names {
                    self.import(alias, scope)?;
                }
                Ok(Flow::Normal)
            }
            StmtKind::ImportFrom { module, names } => self.import_from(module, names, scope).map(|_| Flow::Normal),
            StmtKind::FunctionDef(definition) => {
                let function = self.function_value(definition, scope, scope)?;
                scope.set(&definition.name.name, function);
                Ok(Flow::Normal)
            }
            StmtKind::Try(statement) => self.exec_try(statement, scope),
            StmtKind::Raise { exception, cause } => {
                self.raise(exception.as_ref(), cause.as_ref(), scope, statement.span).map(|_| Flow::Normal)
            }
            StmtKind::Delete { targets } => self.delete(targets, scope).map(|_| Flow::Normal),
            StmtKind::Declare { names, nonlocal } => {
                for name in names {
                    if !scope.declare(&name.name, *nonlocal) {
                        let message = crate::messages::StatementMessage::NoNonlocalBinding { name: name.name.clone() };
                        return Err(self.coded(super::error::ErrorKind::Name, message, name.span));
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::ClassDef(definition) => self.define_class(definition, scope).map(|_| Flow::Normal),
            StmtKind::Return(value) => self.exec_return(value.as_ref(), scope),
            StmtKind::If { test, body, orelse } => self.exec_if(test, body, orelse, scope),
            StmtKind::For { target, iter, body } => self.exec_for(target, iter, body, scope),
            StmtKind::While { test, body } => self.exec_while(test, body, scope),
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Pass => Ok(Flow::Normal),
            StmtKind::Assert { test, message } => self.exec_assert(test, message.as_ref(), scope),
            StmtKind::With { items, body } => self.exec_with(items, body, scope),
            StmtKind::Error => {
                let message = OperationMessage::NotParsed { what: "statement".into() };
                Err(self.coded(ErrorKind::Unsupported, message, statement.span))
            }
        }
    }

    #[inline(never)]
    fn exec_assign(&self, targets: &[Expr], value: &Expr, scope: &Rc<Scope>) -> Result<Flow> {
        let value = self.eval(value, scope)?;
        for target in targets {
            self.assign(target, value.clone(), scope)?;
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_return(&self, value: Option<&Expr>, scope: &Rc<Scope>) -> Result<Flow> {
        let value = match value {
            Some(value) => self.eval(value, scope)?,
            None => Value::None,
        };
        Ok(Flow::Return(value))
    }

    #[inline(never)]
    fn exec_if(&self, test: &Expr, body: &[Stmt], orelse: &[Stmt], scope: &Rc<Scope>) -> Result<Flow> {
        let condition = self.eval(test, scope)?;
        let branch = if self.truthy(&condition, test.span)? { body } else { orelse };
        self.exec_block(branch, scope)
    }

    #[inline(never)]
    fn exec_while(&self, test: &Expr, body: &[Stmt], scope: &Rc<Scope>) -> Result<Flow> {
        loop {
            let condition = self.eval(test, scope)?;
            if !self.truthy(&condition, test.span)? {
                return Ok(Flow::Normal);
            }
            match self.exec_block(body, scope)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return(value) => return Ok(Flow::Return(value)),
                Flow::Normal | Flow::Continue => {}
            }
        }
    }

    #[inline(never)]
    fn exec_assert(&self, test: &Expr, message: Option<&Expr>, scope: &Rc<Scope>) -> Result<Flow> {
        let condition = self.eval(test, scope)?;
        if self.truthy(&condition, test.span)? {
            return Ok(Flow::Normal);
        }
        let message = match message {
            Some(message) => {
                let value = self.eval(message, scope)?;
                crate::messages::RuntimeMessage::AssertionFailedWith { text: super::format::to_str(&value) }
            }
            None => crate::messages::RuntimeMessage::AssertionFailed,
        };
        Err(self.error(ErrorKind::Assertion, "", test.span).with_message(message))
    }

    #[inline(never)]
    fn exec_for(&self, target: &Expr, iter: &Expr, body: &[Stmt], scope: &Rc<Scope>) -> Result<Flow> {
        let iterable = self.eval(iter, scope)?;
        // A range is walked lazily so that a huge range costs steps, not memory.
        if let Value::Range(start, stop, step) = iterable {
            let count = range_length(start, stop, step);
            // A `pypto.loop` is on the loop stack while it runs (`pypto.is_loop_begin/end`).
            let pypto_loop = super::pypto::loops::is_loop_call(iter).then(|| self.enter_loop(start, stop, step));
            for index in 0..count {
                let value = (start as i128 + index * step as i128) as i64;
                if pypto_loop.is_some() {
                    self.set_loop_index(value);
                }
                self.assign(target, Value::Int(value), scope)?;
                match self.exec_block(body, scope)? {
                    Flow::Break => break,
                    Flow::Return(value) => return Ok(Flow::Return(value)),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            return Ok(Flow::Normal);
        }
        let items = self.iterate(&iterable, iter.span)?;
        // Each pass of a `pypto.loop_unroll` is a `pypto.loop` on the loop stack while it runs.
        let unroll_frames = super::pypto::loops::is_loop_unroll_call(iter)
            .then(|| (super::pypto::loops::unroll_frames(&items), self.enter_loop(0, 0, 1)));
        for (position, item) in items.into_iter().enumerate() {
            if let Some((frames, _)) = &unroll_frames {
                if let Some(frame) = frames[position] {
                    self.set_loop_frame(frame);
                }
            }
            self.assign(target, item, scope)?;
            match self.exec_block(body, scope)? {
                Flow::Break => break,
                Flow::Return(value) => return Ok(Flow::Return(value)),
                Flow::Normal | Flow::Continue => {}
            }
        }
        Ok(Flow::Normal)
    }

    /// The value a `def` binds: the function with its defaults (evaluated in `scope`, as are the
    /// decorators) and `closure` as the scope its body sees (a method's is the class's enclosing
    /// scope, not the class body), decorated bottom-up.
    pub(crate) fn function_value(
        &self,
        definition: &FunctionDef,
        scope: &Rc<Scope>,
        closure: &Rc<Scope>,
    ) -> Result<Value> {
        let function = self.new_function(std::sync::Arc::new(definition.clone()), scope, closure)?;
        let mut value = Value::Function(function);
        for decorator in definition.decorators.iter().rev() {
            let decorate = self.eval(decorator, scope)?;
            value = self.decorate(decorate, value, decorator.span)?;
        }
        Ok(value)
    }

    /// Binds `value` to an assignment target.
    pub(crate) fn assign(&self, target: &Expr, value: Value, scope: &Rc<Scope>) -> Result<()> {
        match &target.kind {
            ExprKind::Name(name) => {
                // The graph view shows leaves by the name the script first gave them.
                if let Value::Tensor(object) = &value {
                    object.get().name_if_unnamed(name);
                }
                scope.set(name, value);
                Ok(())
            }
            ExprKind::Tuple(targets) | ExprKind::List(targets) => {
                let items = self.iterate(&value, target.span)?;
                if items.len() != targets.len() {
                    let message = OperationMessage::CannotUnpack { values: items.len(), targets: targets.len() };
                    return Err(self.coded(ErrorKind::Value, message, target.span));
                }
                for (target, item) in targets.iter().zip(items) {
                    self.assign(target, item, scope)?;
                }
                Ok(())
            }
            ExprKind::Subscript { value: container, index } => {
                let container_value = self.eval(container, scope)?;
                let index_value = self.eval(index, scope)?;
                self.set_item(&container_value, &index_value, value, target.span)
            }
            ExprKind::Attribute { value: object, attribute } => {
                let object = self.eval(object, scope)?;
                self.set_attribute(&object, &attribute.name, value, target.span)
            }
            _ => Err(self.coded(ErrorKind::Unsupported, OperationMessage::CannotAssignExpression, target.span)),
        }
    }

    fn augmented_assign(
        &self,
        target: &Expr,
        op: crate::lang::syntax::ast::BinaryOp,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<()> {
        let right = self.eval(value, scope)?;
        match &target.kind {
            ExprKind::Name(name) => {
                let current = self.lookup(name, scope, target.span)?;
                let result = self.binary_in_place(op, &current, &right, target.span.cover(value.span))?;
                scope.set(name, result);
                Ok(())
            }
            ExprKind::Subscript { value: container, index } => {
                let container = self.eval(container, scope)?;
                let index = self.eval(index, scope)?;
                let current = self.get_item(&container, &index, target.span)?;
                let result = self.binary(op, &current, &right, target.span.cover(value.span))?;
                self.set_item(&container, &index, result, target.span)
            }
            ExprKind::Attribute { .. } => {
                let current = self.eval(target, scope)?;
                let result = self.binary(op, &current, &right, target.span.cover(value.span))?;
                self.assign(target, result, scope)
            }
            _ => Err(self.coded(ErrorKind::Unsupported, OperationMessage::CannotAssignExpression, target.span)),
        }
    }

    /// The truth of a condition (a tensor of several elements is ambiguous, as in torch).
    pub(crate) fn truthy(&self, value: &Value, span: Span) -> Result<bool> {
        value.truthy().ok_or_else(|| {
            self.error(ErrorKind::Value, "", span)
                .with_message(crate::messages::RuntimeMessage::AmbiguousTruth)
                .with_help_message(crate::messages::RuntimeMessage::UseAllclose)
        })
    }
}
