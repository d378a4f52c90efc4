//! Collecting the scopes of returned closures. A call's scope that a function defined in the call
//! still holds after the call returned (`def make(n): def add(y): … return add`) forms a cycle
//! with that function: the scope's table holds `add`, whose closure is the scope. Reference
//! counting frees neither when the last outside handle of `add` goes, so such scopes are
//! registered here and collected by trial deletion (as CPython's cycle collector does): a scope
//! or function whose references all come from inside the registered set, and that no outside
//! reference reaches, is garbage; its scope tables are emptied, which frees the cycle.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::scope::Scope;
use super::value::{Function, Value};

/// The call scopes that outlived their call.
#[derive(Default)]
pub(crate) struct ScopeRegistry {
    scopes: RefCell<Vec<Weak<Scope>>>,
    /// Scopes alive after the last collection: the next one runs when many more were added.
    survivors: Cell<usize>,
}

/// Registrations beyond twice the survivors of the last collection that start a new one.
const COLLECTION_SLACK: usize = 256;

/// A node of the reference graph: a registered scope, or a function found inside one.
enum Node {
    Scope(Rc<Scope>),
    Function(Rc<Function>),
}

impl Node {
    fn address(&self) -> usize {
        match self {
            Node::Scope(scope) => Rc::as_ptr(scope) as *const u8 as usize,
            Node::Function(function) => Rc::as_ptr(function) as *const u8 as usize,
        }
    }
}

impl ScopeRegistry {
    /// Tracks a finished call's scope when something besides the caller's handle still holds it
    /// (collecting first when many were added since the last collection).
    pub(crate) fn register_if_held(&self, scope: &Rc<Scope>) {
        if Rc::strong_count(scope) == 1 {
            return;
        }
        if self.scopes.borrow().len() >= 2 * self.survivors.get() + COLLECTION_SLACK {
            self.collect();
        }
        self.scopes.borrow_mut().push(Rc::downgrade(scope));
    }

    /// Empties the registered scopes that only cycles among them keep alive; returns how many.
    pub(crate) fn collect(&self) -> usize {
        let mut nodes: Vec<Node> = self.scopes.borrow().iter().filter_map(Weak::upgrade).map(Node::Scope).collect();
        let mut index: HashMap<usize, usize> =
            nodes.iter().enumerate().map(|(at, node)| (node.address(), at)).collect();
        // Discover the functions the scopes hold, and their edges; `edges[n]` lists the nodes that
        // node n holds one reference to (each entry is one reference).
        let mut edges: Vec<Vec<usize>> = Vec::new();
        let mut position = 0;
        while position < nodes.len() {
            let mut targets = Vec::new();
            let mut found: Vec<Rc<Function>> = Vec::new();
            match &nodes[position] {
                Node::Scope(scope) => {
                    scope.for_each_value(&mut |value| held_functions(value, &mut found));
                    if let Some(parent) = scope.parent() {
                        targets.extend(index.get(&(Rc::as_ptr(parent) as *const u8 as usize)).copied());
                    }
                }
                Node::Function(function) => {
                    let defaults = function.defaults.iter().chain(&function.keyword_defaults).flatten();
                    defaults.for_each(|value| held_functions(value, &mut found));
                    targets.extend(index.get(&(Rc::as_ptr(&function.closure) as *const u8 as usize)).copied());
                }
            }
            for function in found {
                let node = Node::Function(function);
                let at = *index.entry(node.address()).or_insert_with(|| {
                    nodes.push(node);
                    nodes.len() - 1
                });
                targets.push(at);
            }
            edges.push(targets);
            position += 1;
        }
        // References from outside: each node's count, less the one `nodes` holds and the ones
        // from inside the graph. `held_functions` clones what it finds: those clones are gone by
        // now, so the counts are the script's own.
        let mut outside: Vec<isize> = nodes
            .iter()
            .map(|node| match node {
                Node::Scope(scope) => Rc::strong_count(scope) as isize - 1,
                Node::Function(function) => Rc::strong_count(function) as isize - 1,
            })
            .collect();
        for targets in &edges {
            for &target in targets {
                outside[target] -= 1;
            }
        }
        let mut reached = vec![false; nodes.len()];
        let mut pending: Vec<usize> = (0..nodes.len()).filter(|&at| outside[at] > 0).collect();
        while let Some(at) = pending.pop() {
            if std::mem::replace(&mut reached[at], true) {
                continue;
            }
            pending.extend(edges[at].iter().copied().filter(|&next| !reached[next]));
        }
        let mut released = Vec::new();
        let mut kept = Vec::new();
        for (node, reached) in nodes.iter().zip(&reached) {
            if let Node::Scope(scope) = node {
                if *reached {
                    kept.push(Rc::downgrade(scope));
                } else {
                    released.push(scope.take_names());
                }
            }
        }
        let count = released.len();
        self.survivors.set(kept.len());
        *self.scopes.borrow_mut() = kept;
        index.clear();
        drop(nodes);
        drop(released);
        count
    }

    /// Empties every registered scope still alive (the session is ending: nothing can call the
    /// closures any more).
    pub(crate) fn release_all(&self) {
        let scopes: Vec<Rc<Scope>> = self.scopes.borrow_mut().drain(..).filter_map(|scope| scope.upgrade()).collect();
        let released: Vec<HashMap<String, Value>> = scopes.iter().map(|scope| scope.take_names()).collect();
        drop(scopes);
        drop(released);
    }
}

/// The functions `value` holds one reference to each: itself, a kernel's function, and what
/// containers that only this holder has contain (a shared container is an outside holder). Walked
/// with a work list of clones (deep nesting must not recurse), so an exclusively held container
/// has a count of 2 while it is looked at.
fn held_functions(value: &Value, found: &mut Vec<Rc<Function>>) {
    let mut pending = vec![value.clone()];
    while let Some(value) = pending.pop() {
        match &value {
            Value::Function(function) => found.push(function.clone()),
            Value::Kernel(kernel) if Rc::strong_count(kernel) == 2 => found.push(kernel.function.clone()),
            Value::List(items) | Value::Set(items) if Rc::strong_count(items) == 2 => {
                if let Ok(items) = items.try_borrow() {
                    pending.extend(items.iter().cloned());
                }
            }
            Value::Tuple(items) if Rc::strong_count(items) == 2 => pending.extend(items.iter().cloned()),
            Value::Dict(entries) if Rc::strong_count(entries) == 2 => {
                if let Ok(entries) = entries.try_borrow() {
                    pending.extend(entries.iter().flat_map(|(key, item)| [key.clone(), item.clone()]));
                }
            }
            _ => {}
        }
    }
}
