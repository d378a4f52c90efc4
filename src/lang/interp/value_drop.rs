//! Dropping values without recursion: a long chain of containers, closures or instances is
//! released one link at a time.

use std::rc::Rc;

use super::scope::Scope;
use super::value::{Function, Object, Value};

/// Dropping a deeply nested container (`a = [a]` a million times), or a chain of functions linked by
/// default arguments or closures (`def g(p=f): …; f = g` in a loop), would recurse once per level
/// and overflow the stack; uniquely owned children are moved to work lists and dropped one by one.
impl Drop for Value {
    fn drop(&mut self) {
        let mut pending = Pending::default();
        take_children(self, &mut pending);
        loop {
            if let Some(mut value) = pending.values.pop() {
                take_children(&mut value, &mut pending);
            } else if let Some(mut scope) = pending.scopes.pop() {
                // Only the last holder empties a scope: the others leave it to whoever drops it last.
                if let Some(scope) = Rc::get_mut(&mut scope) {
                    let (values, parent) = scope.take_contents();
                    pending.values.extend(values);
                    pending.scopes.extend(parent);
                }
            } else {
                break;
            }
        }
    }
}

/// What a drop still has to release.
#[derive(Default)]
struct Pending {
    values: Vec<Value>,
    scopes: Vec<Rc<Scope>>,
}

fn take_children(value: &mut Value, pending: &mut Pending) {
    match value {
        Value::List(items) | Value::Set(items) => {
            if let Some(cell) = Rc::get_mut(items) {
                pending.values.append(cell.get_mut());
            }
        }
        Value::Tuple(items) => {
            if let Some(items) = Rc::get_mut(items) {
                pending.values.append(items);
            }
        }
        Value::Dict(entries) => {
            if let Some(cell) = Rc::get_mut(entries) {
                for (key, item) in cell.get_mut().drain(..) {
                    pending.values.push(key);
                    pending.values.push(item);
                }
            }
        }
        Value::Method(bound) => {
            if let Some((receiver, _)) = Rc::get_mut(bound) {
                pending.values.push(std::mem::replace(receiver, Value::None));
            }
        }
        Value::Function(function) => take_function(function, pending),
        Value::Instance(_) | Value::Class(_) => super::classes::take_children(value, &mut pending.values),
        Value::Object(object) => {
            if let Some(object) = Rc::get_mut(object) {
                match object {
                    Object::StaticMethod(inner) | Object::ClassMethod(inner) | Object::Property(inner) => {
                        pending.values.push(std::mem::replace(inner, Value::None));
                    }
                    Object::Super { receiver, .. } => pending.values.push(std::mem::replace(receiver, Value::None)),
                    Object::WithOptions { function, .. } => {
                        pending.values.push(std::mem::replace(function, Value::None))
                    }
                    Object::Field { default, factory } => {
                        pending.values.extend(default.take().into_iter().chain(factory.take()))
                    }
                    _ => {}
                }
            }
        }
        Value::Kernel(kernel) => {
            if let Some(kernel) = Rc::get_mut(kernel) {
                // A second handle keeps the function alive past the kernel: the work list drops it.
                pending.values.push(Value::Function(kernel.function.clone()));
            }
        }
        _ => {}
    }
}

/// Moves a uniquely held function's defaults and closure to the work lists.
fn take_function(function: &mut Rc<Function>, pending: &mut Pending) {
    let Some(function) = Rc::get_mut(function) else { return };
    let defaults = std::mem::take(&mut function.defaults).into_iter();
    pending.values.extend(defaults.chain(std::mem::take(&mut function.keyword_defaults)).flatten());
    pending.scopes.push(function.closure.clone());
}
