//! The values of tile scripts: Python scalars and containers, functions, modules, and the `pypto`
//! objects (tensors backed by autograd `Var`s, kernels, reports, graphs).

use std::cell::RefCell;
use std::rc::Rc;

use super::scope::Scope;
use super::sequences::range_length;
use crate::autograd::{Context, GradCheckReport, GraphData, Var};
use crate::lang::syntax::ast::FunctionDef;
use crate::tensor::DType;

/// A script value. Containers and objects are shared handles, as in Python.
#[derive(Clone)]
pub enum Value {
    /// `None`.
    None,
    /// `True`/`False`.
    Bool(bool),
    /// A 64-bit integer (overflow is an error, not a wrap).
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(Rc<str>),
    /// A mutable list.
    List(Rc<RefCell<Vec<Value>>>),
    /// A tuple.
    Tuple(Rc<Vec<Value>>),
    /// A dict (insertion ordered; keys compared with `==`).
    Dict(Rc<RefCell<Vec<(Value, Value)>>>),
    /// A set (members unique by `==`, kept in insertion order; see `sets`).
    Set(Rc<RefCell<Vec<Value>>>),
    /// `range(start, stop, step)` (also what `pypto.loop` returns).
    Range(i64, i64, i64),
    /// `start:stop:step` in a subscript (boxed: it is rare, and keeps every value small).
    Slice(Rc<[Option<i64>; 3]>),
    /// `...`.
    Ellipsis,
    /// A function defined with `def`.
    Function(Rc<Function>),
    /// A builtin function, by qualified name (`len`, `pypto.exp`, `math.sqrt`).
    Builtin(Rc<str>),
    /// A module, by qualified name (`pypto`, `pypto.nn`, `math`).
    Module(Rc<str>),
    /// A method bound to its receiver.
    Method(Rc<(Value, String)>),
    /// A `pypto` tensor.
    Tensor(Rc<TensorObject>),
    /// A dtype, as the object of the library that named it (`pypto.DT_FP32`, `torch.float32`,
    /// `numpy.float32`): the same dtype whichever names it (they compare equal), printed as that
    /// library prints it.
    DType(DType, DTypeFamily),
    /// A `@pypto.kernel` or `@pypto.frontend.jit` function.
    Kernel(Rc<Kernel>),
    /// Other `pypto` objects.
    Object(Rc<Object>),
    /// A class defined with `class` (also a dataclass or NamedTuple).
    Class(Rc<super::classes::Class>),
    /// An instance of a script class.
    Instance(Rc<super::classes::Instance>),
}

/// The library a dtype value belongs to: what `str()` of it shows (pypto's `DT_FP32` name, torch's
/// `torch.float32`, numpy's `float32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DTypeFamily {
    /// `pypto.DT_…` (also what a kernel's tensors report).
    Pypto,
    /// `torch.float32` …: torch's dtypes and the dtype of a tensor made on the torch side.
    Torch,
    /// `numpy.float32` …
    Numpy,
}

/// A tensor object: a `Var` that `x[...] = v` and `assemble` may replace (aliases see the change).
pub struct TensorObject {
    /// The current value.
    pub var: RefCell<Var>,
    /// Whether torch made it (a torch function, or an operation on such a tensor): its `dtype` is
    /// then torch's dtype object, as a torch tensor's is (the data is the same TileLab tensor).
    pub torch: std::cell::Cell<bool>,
    /// torch_npu's storage format (an ACL value: 2 ND, 29 FRACTAL_NZ) it was cast to; the values
    /// are the same in every format (see `torch::npu_format`).
    pub npu_format: std::cell::Cell<i64>,
    /// The device torch would have it on (`None`: made here without one, which is the CPU).
    pub device: std::cell::Cell<Option<super::torch::device::Device>>,
    /// Whether numpy made it (a numpy function, or an operation, index or method of such an array):
    /// its `size` is then numpy's element count rather than torch's method.
    pub numpy: std::cell::Cell<bool>,
    /// The tensor this one is a basic-index view of, and the index (see `torch::views`).
    pub base: RefCell<Option<(Rc<TensorObject>, Value)>>,
}

impl TensorObject {
    /// A new tensor object value.
    pub fn value(var: Var) -> Value {
        Value::Tensor(Rc::new(TensorObject {
            var: RefCell::new(var),
            torch: std::cell::Cell::new(false),
            npu_format: std::cell::Cell::new(super::torch::npu_format::ND),
            device: std::cell::Cell::new(None),
            numpy: std::cell::Cell::new(false),
            base: RefCell::new(None),
        }))
    }

    /// Marks the tensors of `result` as torch's when this tensor is (a method, an index or an
    /// operation of a torch tensor gives torch tensors), on this tensor's device.
    pub fn pass_torch_to(&self, result: &Value) {
        if self.torch.get() {
            TensorObject::mark_torch(result);
        }
        if let (true, Value::Tensor(object)) = (self.numpy.get(), result) {
            object.numpy.set(true);
        }
        if let Some(device) = self.device.get() {
            super::torch::device::place(result, device);
        }
    }

    /// Marks every tensor in `value` (itself, or the items of a tuple or list) as made by torch.
    pub fn mark_torch(value: &Value) {
        match value {
            Value::Tensor(object) => object.torch.set(true),
            Value::Tuple(items) => items.iter().for_each(TensorObject::mark_torch),
            Value::List(items) => items.borrow().iter().for_each(TensorObject::mark_torch),
            _ => {}
        }
    }

    /// The current `Var` (a cheap handle).
    pub fn get(&self) -> Var {
        self.var.borrow().clone()
    }
}

/// A function defined in a script: its definition, defaults (evaluated at `def`) and closure.
pub struct Function {
    /// The name.
    pub name: String,
    /// The definition (shared, so the cell's tree may be dropped).
    pub definition: std::sync::Arc<FunctionDef>,
    /// Defaults of the positional parameters (aligned with them).
    pub defaults: Vec<Option<Value>>,
    /// Defaults of the keyword-only parameters.
    pub keyword_defaults: Vec<Option<Value>>,
    /// The scope the function was defined in.
    pub closure: Rc<Scope>,
    /// The execution number of the cell that defined it (its spans belong to that source).
    pub cell: usize,
}

/// How a kernel receives and returns its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelStyle {
    /// `@pypto.kernel`: returns its outputs.
    Functional,
    /// `@pypto.frontend.jit`: outputs are parameters written in place.
    Jit,
}

/// A kernel: a function run as one unit on the simulated NPU (the CPU reference path only for what
/// the recorder cannot express, with an `npu/cpu-fallback` warning).
pub struct Kernel {
    /// The kernel's name (the gradient registry key).
    pub name: String,
    /// The body.
    pub function: Rc<Function>,
    /// Functional or jit.
    pub style: KernelStyle,
    /// `pass_options` of a jit kernel (stored for the simulator).
    pub pass_options: Vec<(String, Value)>,
    /// `runtime_options` of a jit kernel.
    pub runtime_options: Vec<(String, Value)>,
    /// Whether the first call's checks (parameters rebound in a jit kernel) already ran.
    pub checked: std::cell::Cell<bool>,
}

/// The `pypto` objects that are neither tensors nor kernels.
pub enum Object {
    /// The context manager of `pypto.no_grad()`.
    NoGrad,
    /// The decorator returned by `pypto.frontend.jit(pass_options=…, runtime_options=…)`.
    JitDecorator { pass_options: Vec<(String, Value)>, runtime_options: Vec<(String, Value)> },
    /// The decorator returned by `pypto.kernel(name=…)`.
    KernelDecorator { name: Option<String> },
    /// The decorator returned by `pypto.register_gradient("name")`.
    GradientDecorator { name: String },
    /// The `ctx` of a registered backward.
    GradientContext { context: Context, attributes: Value },
    /// A gradient-check report and which side ran where (`report.sides`).
    GradCheck { report: GradCheckReport, sides: crate::lang::interp::pypto::autodiff::GradCheckSides },
    /// The graph up to a tensor.
    Graph(GraphData),
    /// A simulated schedule of one kernel run (`pypto.schedule`).
    Schedule(Rc<crate::npu::Simulation>),
    /// Cycles per vec tile shape of one kernel (`pypto.npu.sweep`).
    Sweep(Rc<super::pypto::sweep::SweepTable>),
    /// A dynamic loss scaler (`pypto.autodiff.LossScaler`), updated in place by `update`.
    LossScaler(RefCell<crate::autograd::LossScaler>),
    /// Tensor specs, enum members and `pypto.options` (see `pypto::spec`).
    Api(super::pypto::spec::ApiObject),
    /// A method of a class that takes no `self` (`@staticmethod`).
    StaticMethod(Value),
    /// A method of a class that takes the class as its first argument (`@classmethod`).
    ClassMethod(Value),
    /// A computed attribute of instances (`@property`).
    Property(Value),
    /// A dataclass field's options (`dataclasses.field(default=…, default_factory=…)`).
    Field { default: Option<Value>, factory: Option<Value> },
    /// The decorator returned by `dataclass(frozen=…)`.
    DataclassDecorator { frozen: bool },
    /// An exception value (`ValueError("message")`), for `raise`.
    Exception { name: String, message: String },
    /// A function decorated with `@pypto.options(…)`: each call opens the options' scope.
    WithOptions { options: Rc<super::pypto::config::ScopedOptions>, function: Value },
    /// `pypto.function(name, *tensors)`, the context manager whose block runs as a jit kernel.
    RecordFunction { name: String },
    /// `pytest.raises(types, match=…)`: the context manager that expects its block to raise.
    ExpectedRaise { types: Vec<String>, pattern: Option<String> },
    /// `argparse.ArgumentParser(…)` (see `host::argparse`).
    ArgumentParser(RefCell<super::host::ArgumentParser>),
    /// `pathlib.Path(…)`: a POSIX path, as its normalized text (see `host::pathlib`).
    Path(String),
    /// `open(path)`: a file of the host opened for reading (see `host::files`).
    TextFile(super::host::files::TextFile),
    /// What `re.match` and `re.search` return (see `host::re_module`).
    RegexMatch(super::host::re_module::RegexMatch),
    /// `enum.auto()` in an enumeration's body: the class numbers it when it makes its members.
    EnumAuto,
    /// `torch.library.Library(namespace, kind)`: defines operators, registers their kernels.
    OperatorLibrary { namespace: String },
    /// The decorator of `torch.library.impl(…)` or `register_fake(…)`: registers what it decorates
    /// as the kernel of `operator` (`pypto::hc_pre`) for the dispatch keys `keys`.
    OperatorRegistration { operator: String, keys: Vec<&'static str> },
    /// `super()` in a method of `class`: `receiver` seen from the class above `class`.
    Super { class: Rc<super::classes::Class>, receiver: Value },
    /// `torch.device(…)`, what `tensor.device` returns.
    Device(super::torch::device::Device),
}

impl Value {
    /// A string value.
    pub fn string(text: impl Into<String>) -> Value {
        let text: String = text.into();
        Value::Str(Rc::from(text.as_str()))
    }

    /// A list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    /// A tuple value.
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items))
    }

    /// A dict value.
    pub fn dict(items: Vec<(Value, Value)>) -> Value {
        Value::Dict(Rc::new(RefCell::new(items)))
    }

    /// A set value of `members` (already unique).
    pub fn set(members: Vec<Value>) -> Value {
        Value::Set(Rc::new(RefCell::new(members)))
    }

    /// An object value.
    pub fn object(object: Object) -> Value {
        Value::Object(Rc::new(object))
    }

    /// The Python type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Set(_) => "set",
            Value::Range(..) => "range",
            Value::Slice(..) => "slice",
            Value::Ellipsis => "ellipsis",
            Value::Function(_) => "function",
            Value::Builtin(_) => "builtin_function",
            Value::Module(_) => "module",
            Value::Method(_) => "method",
            Value::Tensor(_) => "Tensor",
            Value::DType(..) => "dtype",
            Value::Kernel(_) => "kernel",
            Value::Object(object) => object_name(object),
            Value::Class(_) => "type",
            Value::Instance(_) => "object",
        }
    }

    /// Python truthiness (a tensor is truthy only as a one-element tensor, like torch).
    pub fn truthy(&self) -> Option<bool> {
        Some(match self {
            Value::None => false,
            Value::Bool(value) => *value,
            Value::Int(value) => *value != 0,
            Value::Float(value) => *value != 0.0,
            Value::Str(text) => !text.is_empty(),
            Value::List(items) => !items.borrow().is_empty(),
            Value::Tuple(items) => !items.is_empty(),
            Value::Instance(instance) if instance.is_named_tuple() => {
                instance.field_values().is_some_and(|fields| !fields.is_empty())
            }
            Value::Dict(items) => !items.borrow().is_empty(),
            Value::Set(members) => !members.borrow().is_empty(),
            Value::Range(start, stop, step) => range_length(*start, *stop, *step) > 0,
            Value::Tensor(tensor) => {
                let var = tensor.get();
                if var.tensor().numel() != 1 {
                    return None;
                }
                var.tensor().to_f64_vec().first().copied().unwrap_or(0.0) != 0.0
            }
            Value::Object(object) => match object.as_ref() {
                Object::GradCheck { report, .. } => report.passed,
                _ => true,
            },
            _ => true,
        })
    }

    /// The value as an f64 when it is a Python number.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Bool(value) => Some(f64::from(u8::from(*value))),
            Value::Int(value) => Some(*value as f64),
            Value::Float(value) => Some(*value),
            _ => None,
        }
    }

    /// The value as an integer when it is an int or bool.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Bool(value) => Some(i64::from(*value)),
            Value::Int(value) => Some(*value),
            _ => None,
        }
    }
}

/// The type name of an object, for messages.
pub fn object_name(object: &Object) -> &'static str {
    match object {
        Object::NoGrad => "no_grad",
        Object::JitDecorator { .. } | Object::KernelDecorator { .. } | Object::GradientDecorator { .. } => "decorator",
        Object::GradientContext { .. } => "GradientContext",
        Object::GradCheck { .. } => "GradCheckReport",
        Object::Graph(_) => "Graph",
        Object::Schedule(_) => "Schedule",
        Object::Sweep(_) => "Sweep",
        Object::LossScaler(_) => "LossScaler",
        Object::Api(api) => api.type_name(),
        Object::StaticMethod(_) => "staticmethod",
        Object::ClassMethod(_) => "classmethod",
        Object::Property(_) => "property",
        Object::Field { .. } => "Field",
        Object::DataclassDecorator { .. } => "decorator",
        Object::Super { .. } => "super",
        Object::WithOptions { .. } => "function",
        Object::RecordFunction { .. } => "function_recorder",
        Object::ExpectedRaise { .. } => "RaisesContext",
        Object::Exception { .. } => "Exception",
        Object::ArgumentParser(_) => "ArgumentParser",
        Object::Path(_) => "PosixPath",
        Object::TextFile(_) => "TextIOWrapper",
        Object::RegexMatch(_) => "re.Match",
        Object::EnumAuto => "auto",
        Object::OperatorLibrary { .. } => "Library",
        Object::OperatorRegistration { .. } => "decorator",
        Object::Device(_) => "device",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_small() {
        // Values fill lists and every `Result` of the evaluator: a range (three i64) is the largest.
        assert!(std::mem::size_of::<Value>() <= 32, "{}", std::mem::size_of::<Value>());
    }
}
