//! Scopes: a chain of name tables. A call gets a fresh scope whose parent is the scope its function
//! was defined in (closures); the root is the session's globals.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::value::Value;

/// One table of names and the scope it is nested in.
pub struct Scope {
    names: RefCell<HashMap<String, Value>>,
    parent: Option<Rc<Scope>>,
    /// Names declared `global` or `nonlocal` here, with the scope they live in (none in most
    /// scopes: the table is made by the first declaration).
    declared: RefCell<Option<HashMap<String, Rc<Scope>>>>,
}

impl Scope {
    /// The root (globals) scope.
    pub fn root() -> Rc<Scope> {
        Rc::new(Scope { names: RefCell::new(HashMap::new()), parent: None, declared: RefCell::new(None) })
    }

    /// A scope nested in `parent`.
    pub fn child(parent: &Rc<Scope>) -> Rc<Scope> {
        Rc::new(Scope {
            names: RefCell::new(HashMap::new()),
            parent: Some(parent.clone()),
            declared: RefCell::new(None),
        })
    }

    /// The scope `name` was declared to live in (`global`, `nonlocal`), if it was declared here.
    fn declared_home(&self, name: &str) -> Option<Rc<Scope>> {
        self.declared.borrow().as_ref().and_then(|declared| declared.get(name).cloned())
    }

    /// Declares `name` global (it lives in the outermost scope) or, when `nonlocal`, a name of the
    /// nearest enclosing scope below the outermost that binds it; false when none does.
    pub(crate) fn declare(&self, name: &str, nonlocal: bool) -> bool {
        let mut ancestors = Vec::new();
        let mut current = self.parent.clone();
        while let Some(scope) = current {
            current = scope.parent.clone();
            ancestors.push(scope);
        }
        let home = if nonlocal {
            // The outermost scope is the module's: `nonlocal` never reaches it.
            let enclosing = &ancestors[..ancestors.len().saturating_sub(1)];
            enclosing
                .iter()
                .find(|scope| scope.names.borrow().contains_key(name) || scope.declared_home(name).is_some())
        } else {
            ancestors.last()
        };
        let Some(home) = home.cloned() else {
            // `global` in the outermost scope itself: its names live there already.
            return !nonlocal;
        };
        let home = home.declared_home(name).unwrap_or(home);
        self.declared.borrow_mut().get_or_insert_with(HashMap::new).insert(name.to_string(), home);
        true
    }

    /// Looks `name` up here, then in the enclosing scopes.
    pub fn get(&self, name: &str) -> Option<Value> {
        if let Some(value) = self.names.borrow().get(name) {
            return Some(value.clone());
        }
        if let Some(home) = self.declared_home(name) {
            return home.get(name);
        }
        self.parent.as_ref().and_then(|parent| parent.get(name))
    }

    /// Binds `name` in this scope (in the scope it was declared to live in, if declared here).
    pub fn set(&self, name: &str, value: Value) {
        if let Some(home) = self.declared_home(name) {
            return home.set(name, value);
        }
        let mut names = self.names.borrow_mut();
        // Rebinding is the common case (loop variables, accumulators): no new key allocation.
        match names.get_mut(name) {
            Some(slot) => *slot = value,
            None => {
                names.insert(name.to_string(), value);
            }
        }
    }

    /// Unbinds `name` in this scope (not in the enclosing ones); its value, if it was bound.
    pub fn remove(&self, name: &str) -> Option<Value> {
        if let Some(home) = self.declared_home(name) {
            return home.remove(name);
        }
        self.names.borrow_mut().remove(name)
    }

    /// The names bound in this scope, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.names.borrow().keys().cloned().collect();
        names.sort();
        names
    }

    /// A copy of this scope's table (to restore after a failed cell).
    pub fn snapshot(&self) -> HashMap<String, Value> {
        self.names.borrow().clone()
    }

    /// Replaces this scope's table.
    pub fn restore(&self, names: HashMap<String, Value>) {
        *self.names.borrow_mut() = names;
    }

    /// Empties a call's scope when nothing outside it can reach it any more. A function defined in
    /// a call (`def helper(): …` inside `def outer(): …`) holds the call's scope as its closure
    /// while the scope holds the function: without reference counting's help that cycle would
    /// outlive the call. `self` is the caller's handle; when every other handle is such a function
    /// (or a kernel of one) held by this scope alone, the scope is garbage and is emptied. Any
    /// other holder (a returned closure, a list that escaped) keeps it as it is.
    pub(crate) fn release_call_scope(self: &Rc<Scope>) {
        // The common case: no function kept the scope as its closure.
        if Rc::strong_count(self) == 1 {
            return;
        }
        let inner = |value: &Value| -> bool {
            let function = match value {
                Value::Function(function) if Rc::strong_count(function) == 1 => function,
                Value::Kernel(kernel) if Rc::strong_count(kernel) == 1 && Rc::strong_count(&kernel.function) == 1 => {
                    &kernel.function
                }
                _ => return false,
            };
            Rc::ptr_eq(&function.closure, self)
        };
        let cycles = self.names.borrow().values().filter(|value| inner(value)).count();
        if cycles > 0 && Rc::strong_count(self) == 1 + cycles {
            // Taken out first: dropping the values drops the functions, whose closures are `self`.
            let names = std::mem::take(&mut *self.names.borrow_mut());
            drop(names);
        }
    }

    /// The scope this one is nested in.
    pub(crate) fn parent(&self) -> Option<&Rc<Scope>> {
        self.parent.as_ref()
    }

    /// Calls `visit` with each value bound here (none while the table is being changed).
    pub(crate) fn for_each_value(&self, visit: &mut dyn FnMut(&Value)) {
        if let Ok(names) = self.names.try_borrow() {
            names.values().for_each(visit);
        }
    }

    /// Takes every binding out (the caller drops them after its borrows end); nothing while the
    /// table is in use.
    pub(crate) fn take_names(&self) -> HashMap<String, Value> {
        self.names.try_borrow_mut().map(|mut names| std::mem::take(&mut *names)).unwrap_or_default()
    }

    /// Empties a scope about to be dropped: its values and its parent, so the caller can drop a long
    /// chain of closures one link at a time instead of by recursion.
    pub(crate) fn take_contents(&mut self) -> (Vec<Value>, Option<Rc<Scope>>) {
        self.declared.get_mut().take();
        (self.names.get_mut().drain().map(|(_, value)| value).collect(), self.parent.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_see_parents_and_shadow_locally() {
        let globals = Scope::root();
        globals.set("x", Value::Int(1));
        let local = Scope::child(&globals);
        assert!(matches!(local.get("x"), Some(Value::Int(1))));
        local.set("x", Value::Int(2));
        assert!(matches!(local.get("x"), Some(Value::Int(2))));
        assert!(matches!(globals.get("x"), Some(Value::Int(1))), "assignment binds in the local scope");
        let snapshot = globals.snapshot();
        globals.set("y", Value::Int(3));
        globals.restore(snapshot);
        assert_eq!(globals.names(), vec!["x".to_string()]);
    }
}
