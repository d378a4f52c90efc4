//! Reference cycles through instances (`node.parent = tree; tree.children = [node]`, `self.me =
//! self`) would never be freed by reference counting alone. The registry tracks every instance
//! and, from time to time, finds the groups that only hold each other (CPython's trial deletion):
//! each instance's count of references drops by the references other instances hold to it through
//! what they own alone; an instance left with a reference is reached from outside, and so is
//! everything it holds. What remains is garbage, and its attributes are released. A container
//! shared with anything else is not looked into, so an unsure case keeps its instances alive.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::Instance;
use crate::lang::interp::value::{Object, Value};

/// Every instance created by a session, weakly held, for the cycle collection.
#[derive(Default)]
pub(crate) struct InstanceRegistry {
    instances: RefCell<Vec<Weak<Instance>>>,
    /// Instances alive after the last collection: the next one runs when twice as many exist.
    survivors: Cell<usize>,
}

/// Collection runs when the registry holds this many more instances than survived the last one.
const COLLECTION_SLACK: usize = 4096;

impl InstanceRegistry {
    /// Tracks a new instance (collecting first when many instances were created since the last
    /// collection).
    pub(crate) fn register(&self, instance: &Rc<Instance>) {
        let count = self.instances.borrow().len();
        if count >= 2 * self.survivors.get() + COLLECTION_SLACK {
            self.collect();
        }
        self.instances.borrow_mut().push(Rc::downgrade(instance));
    }

    /// Releases the attributes of the instances that only reference cycles keep alive; returns
    /// how many were released.
    pub(crate) fn collect(&self) -> usize {
        let live: Vec<Rc<Instance>> = self.instances.borrow().iter().filter_map(Weak::upgrade).collect();
        let index: HashMap<*const Instance, usize> =
            live.iter().enumerate().map(|(position, instance)| (Rc::as_ptr(instance), position)).collect();
        // The `live` vector holds one reference of its own to each.
        let mut references: Vec<usize> = live.iter().map(|instance| Rc::strong_count(instance) - 1).collect();
        for instance in &live {
            for target in owned_instances(instance) {
                if let Some(&position) = index.get(&target) {
                    references[position] = references[position].saturating_sub(1);
                }
            }
        }
        let mut reached = vec![false; live.len()];
        let mut pending: Vec<usize> = (0..live.len()).filter(|&position| references[position] > 0).collect();
        while let Some(position) = pending.pop() {
            if std::mem::replace(&mut reached[position], true) {
                continue;
            }
            for target in owned_instances(&live[position]) {
                if let Some(&next) = index.get(&target) {
                    if !reached[next] {
                        pending.push(next);
                    }
                }
            }
        }
        let mut released = Vec::new();
        for (instance, reached) in live.iter().zip(&reached) {
            if !reached {
                released.push(std::mem::take(&mut *instance.attributes.borrow_mut()));
            }
        }
        let count = released.len();
        *self.instances.borrow_mut() = live
            .iter()
            .zip(&reached)
            .filter(|(_, reached)| **reached)
            .map(|(instance, _)| Rc::downgrade(instance))
            .collect();
        self.survivors.set(live.len() - count);
        drop(live);
        drop(released);
        count
    }
}

/// The instances `instance` references through its attributes and through the containers it
/// alone holds (as raw pointers: only compared, never followed). Values are walked as clones, so
/// a container held by one holder only has a count of 2 here.
fn owned_instances(instance: &Instance) -> Vec<*const Instance> {
    let mut pending: Vec<Value> = instance.attributes.borrow().iter().map(|(_, value)| value.clone()).collect();
    let mut found = Vec::new();
    while let Some(value) = pending.pop() {
        match &value {
            Value::Instance(target) => found.push(Rc::as_ptr(target)),
            Value::List(items) if Rc::strong_count(items) == 2 => {
                if let Ok(items) = items.try_borrow() {
                    pending.extend(items.iter().cloned());
                }
            }
            Value::Tuple(items) if Rc::strong_count(items) == 2 => pending.extend(items.iter().cloned()),
            Value::Dict(entries) if Rc::strong_count(entries) == 2 => {
                if let Ok(entries) = entries.try_borrow() {
                    pending.extend(entries.iter().flat_map(|(key, value)| [key.clone(), value.clone()]));
                }
            }
            Value::Method(bound) if Rc::strong_count(bound) == 2 => pending.push(bound.0.clone()),
            Value::Object(object) if Rc::strong_count(object) == 2 => {
                if let Object::StaticMethod(inner) | Object::ClassMethod(inner) | Object::Property(inner) =
                    object.as_ref()
                {
                    pending.push(inner.clone());
                }
            }
            _ => {}
        }
    }
    found
}
