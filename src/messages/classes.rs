//! Runtime errors of classes: the `class` statement and its bases, dataclass and NamedTuple fields,
//! instances and their attributes, `super()`, and the reflection builtins (`isinstance`,
//! `getattr`, `dataclasses.replace` …).

use serde::Serialize;

/// A runtime error about a class or an instance, or its help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ClassMessage {
    /// `return`, `break` or `continue` directly in a class body.
    #[serde(rename = "class.flow_in_body")]
    FlowInBody,
    /// `class C(3):`.
    #[serde(rename = "class.bad_base")]
    BadBase {
        /// The base's type.
        got: String,
    },
    /// Help: the bases a class may have.
    #[serde(rename = "class.bases")]
    Bases,
    /// Help: one base only.
    #[serde(rename = "class.single_inheritance")]
    SingleInheritance,
    /// `@dataclass` above a NamedTuple.
    #[serde(rename = "class.dataclass_of_named_tuple")]
    DataclassOfNamedTuple {
        /// The class.
        class_name: String,
    },
    /// `@dataclass` above something that is not a class.
    #[serde(rename = "class.dataclass_target")]
    DataclassTarget {
        /// The decorated value's type.
        got: String,
    },
    /// A list or dict as a field's default.
    #[serde(rename = "class.mutable_default")]
    MutableDefault {
        /// `list` or `dict`.
        kind: String,
        /// The field.
        field: String,
        /// The class.
        class_name: String,
    },
    /// Help: a default factory.
    #[serde(rename = "class.default_factory")]
    DefaultFactory {
        /// The field.
        field: String,
        /// `list` or `dict`.
        kind: String,
    },
    /// A field without a default after one with a default.
    #[serde(rename = "class.default_order")]
    DefaultOrder {
        /// The class.
        class_name: String,
        /// The field without a default.
        field: String,
        /// The earlier field with one.
        previous: String,
    },
    /// Help of the default order error.
    #[serde(rename = "class.defaults_last")]
    DefaultsLast,
    /// `__init__` returned a value.
    #[serde(rename = "class.init_returned")]
    InitReturned {
        /// The class.
        class_name: String,
        /// The returned value's type.
        got: String,
    },
    /// Help: define `__init__` (a class without one called with arguments).
    #[serde(rename = "class.define_init")]
    DefineInit {
        /// The class.
        class_name: String,
    },
    /// Help: define `__call__` (an instance called).
    #[serde(rename = "class.define_call")]
    DefineCall {
        /// The class.
        class_name: String,
    },
    /// Help: the fields of a dataclass or NamedTuple, and the closest one to a misspelt keyword.
    #[serde(rename = "class.fields")]
    Fields {
        /// The class.
        class_name: String,
        /// The fields, comma-separated.
        fields: String,
        /// The closest field, if one is close.
        suggestion: Option<String>,
    },
    /// `Class.name` of a name the class does not have.
    #[serde(rename = "class.no_class_attribute")]
    NoClassAttribute {
        /// The class.
        class_name: String,
        /// The attribute.
        name: String,
    },
    /// An assignment to a field of a NamedTuple.
    #[serde(rename = "class.named_tuple_immutable")]
    NamedTupleImmutable {
        /// The field.
        name: String,
        /// The class.
        class_name: String,
    },
    /// Help: `._replace(name=…)`.
    #[serde(rename = "class.use_replace_method")]
    UseReplaceMethod {
        /// The field.
        name: String,
    },
    /// An assignment to a field of a frozen dataclass.
    #[serde(rename = "class.frozen_field")]
    FrozenField {
        /// The field.
        name: String,
        /// The class.
        class_name: String,
    },
    /// Help: `dataclasses.replace(obj, name=value)`.
    #[serde(rename = "class.use_dataclasses_replace")]
    UseDataclassesReplace {
        /// The field.
        name: String,
    },
    /// An assignment to a property.
    #[serde(rename = "class.property_without_setter")]
    PropertyWithoutSetter {
        /// The property.
        name: String,
        /// The class.
        class_name: String,
    },
    /// `replace`/`_replace` with a positional argument, or `dataclasses.replace` with not one object.
    #[serde(rename = "class.replace_form")]
    ReplaceForm,
    /// `replace()`/`asdict()` of something that is not a dataclass or NamedTuple instance.
    #[serde(rename = "class.needs_dataclass_instance")]
    NeedsDataclassInstance {
        /// `replace` or `asdict`.
        function: String,
        /// The value's type.
        got: String,
    },
    /// `replace(obj, name=…)` of a field the class does not have.
    #[serde(rename = "class.no_field")]
    NoField {
        /// The class.
        class_name: String,
        /// The keyword.
        name: String,
    },
    /// `super()` outside a method.
    #[serde(rename = "class.super_outside_method")]
    SuperOutsideMethod,
    /// Help: where `super()` works.
    #[serde(rename = "class.super_in_method")]
    SuperInMethod,
    /// `super().name(…)` of an attribute that is not a method.
    #[serde(rename = "class.super_not_callable")]
    SuperNotCallable {
        /// The attribute.
        name: String,
    },
    /// `__str__`/`__repr__` returned something other than a string.
    #[serde(rename = "class.text_method_type")]
    TextMethodType {
        /// `__str__` or `__repr__`.
        method: String,
        /// The returned value's type.
        got: String,
    },
    /// Help: `object` as a base class.
    #[serde(rename = "class.object_as_base")]
    ObjectAsBase,
    /// `field(default=…, default_factory=…)`.
    #[serde(rename = "class.field_default_and_factory")]
    FieldDefaultAndFactory,
    /// Help: the class form of a NamedTuple.
    #[serde(rename = "class.named_tuple_class_form")]
    NamedTupleClassForm,
    /// A `typing` name called.
    #[serde(rename = "class.annotation_called")]
    AnnotationCalled {
        /// `typing.Optional` …
        name: String,
    },
    /// Help: annotations are accepted and ignored.
    #[serde(rename = "class.annotations_ignored")]
    AnnotationsIgnored,
    /// `isinstance(x, typing.List)`.
    #[serde(rename = "class.isinstance_annotation")]
    IsinstanceAnnotation {
        /// The `typing` name.
        name: String,
    },
    /// Help: check against concrete types.
    #[serde(rename = "class.isinstance_concrete")]
    IsinstanceConcrete,
    /// `isinstance(x, 3)` or `isinstance(x, len)`.
    #[serde(rename = "class.isinstance_type")]
    IsinstanceType {
        /// The value's type, or the builtin's name.
        got: String,
    },
    /// `getattr(x, 3)`.
    #[serde(rename = "class.attribute_name_type")]
    AttributeNameType {
        /// The name's type.
        got: String,
    },
    /// Help: a `typing` name that is not listed can be left out.
    #[serde(rename = "class.typing_names")]
    TypingNames,
    /// A class derived from an enumeration that has members (Python's words).
    #[serde(rename = "class.extend_enumeration")]
    ExtendEnumeration {
        /// The new class.
        class_name: String,
        /// The enumeration.
        base_name: String,
    },
    /// A member of an `IntEnum`/`StrEnum` whose value is not of its type.
    #[serde(rename = "class.enumeration_value")]
    EnumerationValue {
        /// The enumeration.
        class_name: String,
        /// The member.
        name: String,
        /// `int` or `str`.
        expected: String,
        /// The value's type.
        got: String,
    },
    /// `Color(value)` of a value no member has (Python's words).
    #[serde(rename = "class.not_enumeration_value")]
    NotEnumerationValue {
        /// The value's repr.
        value: String,
        /// The enumeration.
        class_name: String,
    },
    /// `@enum.unique` over an enumeration with an alias (Python's words).
    #[serde(rename = "class.duplicate_enumeration_value")]
    DuplicateEnumerationValue {
        /// The enumeration.
        class_name: String,
        /// The second name of a value.
        alias: String,
        /// The member's name.
        name: String,
    },
    /// `@enum.unique` over something that is not an enumeration.
    #[serde(rename = "class.unique_target")]
    UniqueTarget {
        /// Its type.
        got: String,
    },
    /// `vars(x)` of a value without instance attributes (Python's words).
    #[serde(rename = "class.no_attribute_dict")]
    NoAttributeDict,
}

impl ClassMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use ClassMessage::*;
        match self {
            FlowInBody => "'return', 'break' or 'continue' in a class body".into(),
            BadBase { got } => format!("a class cannot derive from a '{got}'"),
            Bases => "derive from a class defined in the notebook, from typing.NamedTuple or from object".into(),
            SingleInheritance => "derive from one class (single inheritance)".into(),
            DataclassOfNamedTuple { class_name } => {
                format!("'{class_name}' is a NamedTuple: @dataclass does not apply")
            }
            DataclassTarget { got } => format!("@dataclass decorates a class, not a '{got}'"),
            ExtendEnumeration { class_name, base_name } => {
                format!("<enum '{class_name}'> cannot extend <enum '{base_name}'>")
            }
            EnumerationValue { class_name, name, expected, got } => {
                format!("{class_name}.{name}: the members of this enumeration are {expected} values, got {got}")
            }
            NotEnumerationValue { value, class_name } => format!("{value} is not a valid {class_name}"),
            DuplicateEnumerationValue { class_name, alias, name } => {
                format!("duplicate values found in <enum '{class_name}'>: {alias} -> {name}")
            }
            UniqueTarget { got } => format!("enum.unique decorates an enumeration class, not a '{got}'"),
            NoAttributeDict => "vars() argument must have __dict__ attribute".into(),
            MutableDefault { kind, field, class_name } => format!(
                "mutable default {kind} for field '{field}' of '{class_name}' is not allowed: instances would share it"
            ),
            DefaultFactory { field, kind } => {
                format!("use `{field}: {kind} = field(default_factory={kind})` (from dataclasses import field)")
            }
            DefaultOrder { class_name, field, previous } => {
                format!("{class_name}: field '{field}' without a default follows field '{previous}' with a default")
            }
            DefaultsLast => "put the fields without defaults first, or give this one a default".into(),
            InitReturned { class_name, got } => format!("{class_name}.__init__() should return None, not '{got}'"),
            DefineInit { class_name } => {
                format!("define `def __init__(self, …)` in {class_name}, or make it a @dataclass")
            }
            DefineCall { class_name } => {
                format!("define `def __call__(self, …)` in {class_name} to call its instances")
            }
            Fields { class_name, fields, suggestion } => match suggestion {
                Some(near) => format!("did you mean `{near}`? {class_name} has the fields {fields}"),
                None => format!("{class_name} has the fields {fields}"),
            },
            NoClassAttribute { class_name, name } => format!("type object '{class_name}' has no attribute '{name}'"),
            NamedTupleImmutable { name, class_name } => {
                format!("cannot set attribute '{name}' of the NamedTuple '{class_name}'")
            }
            UseReplaceMethod { name } => {
                format!("a NamedTuple is immutable: make a changed copy with `._replace({name}=…)`")
            }
            FrozenField { name, class_name } => {
                format!("cannot assign to field '{name}': '{class_name}' is a frozen dataclass")
            }
            UseDataclassesReplace { name } => {
                format!("make a changed copy with `dataclasses.replace(obj, {name}=…)`")
            }
            PropertyWithoutSetter { name, class_name } => format!("property '{name}' of '{class_name}' has no setter"),
            ReplaceForm => {
                "replace takes one object and the changed fields by name: `dataclasses.replace(obj, name=value)`".into()
            }
            NeedsDataclassInstance { function, got } => {
                format!("{function}() needs a dataclass or NamedTuple instance, not '{got}'")
            }
            NoField { class_name, name } => format!("'{class_name}' has no field '{name}'"),
            SuperOutsideMethod => "super() is only available inside a method of a class".into(),
            SuperInMethod => "call it in a method: super().__init__(…)".into(),
            SuperNotCallable { name } => format!("super().{name} is not callable"),
            TextMethodType { method, got } => format!("{method} returned a '{got}', not a str"),
            ObjectAsBase => "`object` works as a base class: class Config(object): …".into(),
            FieldDefaultAndFactory => "field() cannot take both default and default_factory".into(),
            NamedTupleClassForm => "write the class form: class Name(NamedTuple):\n    a: int\n    b: int = 4".into(),
            AnnotationCalled { name } => format!("{name} is a type for annotations; it cannot be called"),
            AnnotationsIgnored => "annotations are accepted and ignored: use it after ':' or '->'".into(),
            IsinstanceAnnotation { name } => format!("{name} cannot be used with isinstance()"),
            IsinstanceConcrete => "check against a concrete type: isinstance(x, (list, tuple))".into(),
            IsinstanceType { got } => format!("isinstance() arg 2 must be a type or a tuple of types, not '{got}'"),
            AttributeNameType { got } => format!("attribute name must be a string, not '{got}'"),
            TypingNames => {
                "annotations are ignored: any name from typing that is not listed by help(typing) can be left out"
                    .into()
            }
        }
    }
}

impl From<ClassMessage> for super::Message {
    fn from(message: ClassMessage) -> Self {
        super::Message::Runtime(super::RuntimeMessage::Class(message))
    }
}
