//! torch's `return_types`: what `torch.max(x, dim)`, `torch.min(x, dim)` and `torch.sort` return is
//! a named tuple of `values` and `indices` (`x.max(dim=-1, keepdim=True).values` in pypto's
//! goldens), which also unpacks and indexes as the pair.

use std::cell::RefCell;
use std::rc::Rc;

use crate::autograd::Var;
use crate::lang::interp::classes::{Class, ClassKind, Field, Instance};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};

/// `torch.return_types.<name>(values=…, indices=…)`.
pub(super) fn values_and_indices(interpreter: &Interpreter, name: &str, values: Var, indices: Var) -> Value {
    let fields = [("values", values), ("indices", indices)];
    let class = Rc::new(Class {
        name: format!("torch.return_types.{name}"),
        base: None,
        kind: ClassKind::NamedTuple,
        fields: fields
            .iter()
            .map(|(field, _)| Field { name: field.to_string(), default: None, factory: None })
            .collect(),
        annotations: fields.iter().map(|(field, _)| field.to_string()).collect(),
        attributes: RefCell::new(Vec::new()),
    });
    let attributes = fields
        .into_iter()
        .map(|(field, var)| {
            let tensor = TensorObject::value(var);
            TensorObject::mark_torch(&tensor);
            (field.to_string(), tensor)
        })
        .collect();
    let instance = Rc::new(Instance { class, attributes: RefCell::new(attributes) });
    interpreter.instances.register(&instance);
    Value::Instance(instance)
}
