//! Classes of tile scripts: `class` with attributes and methods, single inheritance, `@dataclass`
//! and `typing.NamedTuple` (real pypto kernels take their tiling configs as these), instances,
//! `@staticmethod`/`@classmethod`/`@property`, `enum` enumerations, and the collection of instance
//! reference cycles.

mod collect;
mod define;
pub(crate) mod enumeration;
mod instances;
mod methods;
mod reflection;

use std::cell::RefCell;
use std::rc::Rc;

use super::value::Value;

pub(crate) use collect::InstanceRegistry;
pub(crate) use methods::MethodFrame;
pub(crate) use reflection::{is_class_builtin, is_type_name, CLASS_BUILTINS};

/// What generates a class's `__init__`, `__repr__` and `==`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// A plain class: `__init__` is whatever the class defines; instances compare by identity.
    Plain,
    /// A `@dataclass`: `__init__(fields…)`, `Name(field=value, …)`, `==` field by field.
    Dataclass {
        /// `@dataclass(frozen=True)`: fields cannot be assigned after `__init__`.
        frozen: bool,
    },
    /// A `typing.NamedTuple`: like a frozen dataclass that is also a tuple of its fields.
    NamedTuple,
}

/// A field of a dataclass or NamedTuple.
#[derive(Clone)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its default value (`x: int = 4`, `field(default=4)`).
    pub default: Option<Value>,
    /// A function called for each instance's default (`field(default_factory=list)`).
    pub factory: Option<Value>,
}

/// A class defined with `class`.
pub struct Class {
    /// The class's name.
    pub name: String,
    /// The base class (single inheritance), if it is a user class.
    pub base: Option<Rc<Class>>,
    /// Plain, dataclass or NamedTuple.
    pub kind: ClassKind,
    /// The fields of a dataclass or NamedTuple, inherited ones first.
    pub fields: Vec<Field>,
    /// The names annotated in the body (`tile_m: int = 128`), in order: a dataclass's fields.
    pub annotations: Vec<String>,
    /// The class's own attributes and methods, in definition order.
    pub attributes: RefCell<Vec<(String, Value)>>,
}

/// An instance of a script class.
pub struct Instance {
    /// Its class.
    pub class: Rc<Class>,
    /// Its own attributes, in the order they were first set.
    pub attributes: RefCell<Vec<(String, Value)>>,
}

impl Class {
    /// The classes from this one up to the root of its inheritance chain.
    pub fn chain(self: &Rc<Class>) -> impl Iterator<Item = Rc<Class>> {
        let mut next = Some(self.clone());
        std::iter::from_fn(move || {
            let current = next.take()?;
            next = current.base.clone();
            Some(current)
        })
    }

    /// The attribute `name` of this class or the nearest base that has it, with that class.
    pub fn lookup(self: &Rc<Class>, name: &str) -> Option<(Value, Rc<Class>)> {
        self.chain().find_map(|class| {
            let found = class.attributes.borrow().iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
            found.map(|value| (value, class))
        })
    }

    /// The nearest class of the chain whose `__init__`, `__repr__` and `==` are generated from
    /// fields (a dataclass or NamedTuple), unless a class below it defines `method` itself.
    pub fn generated(self: &Rc<Class>, method: &str) -> Option<Rc<Class>> {
        for class in self.chain() {
            if class.attributes.borrow().iter().any(|(key, _)| key == method) {
                return None;
            }
            if class.kind != ClassKind::Plain {
                return Some(class);
            }
        }
        None
    }

    /// Whether this class is `other` or derives from it.
    pub fn derives_from(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        self.chain().any(|class| Rc::ptr_eq(&class, other))
    }
}

impl Instance {
    /// The value of its own attribute `name`.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.attributes.borrow().iter().find(|(key, _)| key == name).map(|(_, value)| value.clone())
    }

    /// Sets its own attribute `name`.
    pub fn set(&self, name: &str, value: Value) {
        let mut attributes = self.attributes.borrow_mut();
        match attributes.iter_mut().find(|(key, _)| key == name) {
            Some(slot) => slot.1 = value,
            None => attributes.push((name.to_string(), value)),
        }
    }

    /// The values of the fields of its dataclass or NamedTuple, in field order (`None` for a
    /// plain class).
    pub fn field_values(&self) -> Option<Vec<Value>> {
        Some(self.named_fields()?.into_iter().map(|(_, value)| value).collect())
    }

    /// The field names with their values, for `Name(field=value, …)`.
    pub fn named_fields(&self) -> Option<Vec<(String, Value)>> {
        let generator = self.class.chain().find(|class| class.kind != ClassKind::Plain)?;
        Some(
            generator
                .fields
                .iter()
                .map(|field| (field.name.clone(), self.get(&field.name).unwrap_or(Value::None)))
                .collect(),
        )
    }

    /// Whether the instance is a NamedTuple (also a tuple of its fields).
    pub fn is_named_tuple(&self) -> bool {
        self.class.chain().any(|class| class.kind == ClassKind::NamedTuple)
    }
}

/// `help(Class)`: the kind of class, its fields with their defaults, and its methods.
pub(crate) fn class_help(class: &Rc<Class>) -> String {
    let kind = match class.chain().map(|class| class.kind).find(|kind| *kind != ClassKind::Plain) {
        Some(ClassKind::NamedTuple) => "NamedTuple",
        Some(ClassKind::Dataclass { frozen: true }) => "frozen dataclass",
        Some(_) => "dataclass",
        None => "class",
    };
    let mut text = format!("class {} ({kind})", class.name);
    if let Some(generator) = class.chain().find(|class| class.kind != ClassKind::Plain) {
        for field in &generator.fields {
            let default = field.default.as_ref().map(|value| format!(" = {}", super::format::repr(value)));
            text.push_str(&format!("\n    {}{}", field.name, default.unwrap_or_default()));
        }
    }
    let mut methods: Vec<String> = Vec::new();
    for class in class.chain() {
        for (name, value) in class.attributes.borrow().iter() {
            if matches!(value, Value::Function(_) | Value::Object(_)) && !methods.contains(name) {
                methods.push(name.clone());
            }
        }
    }
    if !methods.is_empty() {
        text.push_str(&format!("\nmethods: {}", methods.join(", ")));
    }
    text
}

/// `dir(instance)` / `dir(Class)`: its attributes, its classes' attributes and fields.
pub(crate) fn attribute_names(value: &Value) -> Vec<String> {
    let (class, own) = match value {
        Value::Instance(instance) => {
            (instance.class.clone(), instance.attributes.borrow().iter().map(|(name, _)| name.clone()).collect())
        }
        Value::Class(class) => (class.clone(), Vec::new()),
        _ => return Vec::new(),
    };
    let mut names: Vec<String> = own;
    for class in class.chain() {
        names.extend(class.attributes.borrow().iter().map(|(name, _)| name.clone()));
        names.extend(class.fields.iter().map(|field| field.name.clone()));
    }
    names.sort();
    names.dedup();
    names
}

/// Moves what a uniquely held class or instance holds to `values`, so that a long chain (a linked
/// list of a million nodes) is dropped one link at a time rather than by recursion.
pub(crate) fn take_children(value: &mut Value, values: &mut Vec<Value>) {
    match value {
        // The registry's weak handle rules out `Rc::get_mut`: the last strong handle empties it.
        Value::Instance(instance) if Rc::strong_count(instance) == 1 => {
            if let Ok(mut attributes) = instance.attributes.try_borrow_mut() {
                values.extend(attributes.drain(..).map(|(_, value)| value));
            }
            values.push(Value::Class(instance.class.clone()));
        }
        Value::Class(class) => {
            if let Some(class) = Rc::get_mut(class) {
                values.extend(class.attributes.get_mut().drain(..).map(|(_, value)| value));
                for field in class.fields.drain(..) {
                    values.extend(field.default.into_iter().chain(field.factory));
                }
                values.extend(class.base.take().map(Value::Class));
            }
        }
        _ => {}
    }
}
