//! The library's messages about arguments and availability: the `pypto`, `torch` and `numpy`
//! functions of tile scripts and the functional builtins (`sorted`, `min`, `map`). Grouped by
//! meaning: one code with parameters (the function, the parameter, what it needed, what it got)
//! serves every function that makes the same mistake.

use serde::Serialize;

/// What kind of value a library function needed (a word its sentence embeds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum Kind {
    /// A tensor.
    #[serde(rename = "library.kind.tensor")]
    Tensor,
    /// Tensors (the items of a list).
    #[serde(rename = "library.kind.tensors")]
    Tensors,
    /// A tensor or a list of tensors.
    #[serde(rename = "library.kind.tensor_or_list")]
    TensorOrList,
    /// A tensor or a number.
    #[serde(rename = "library.kind.tensor_or_number")]
    TensorOrNumber,
    /// A tensor or a number, to compare.
    #[serde(rename = "library.kind.compared")]
    Compared,
    /// A number.
    #[serde(rename = "library.kind.number")]
    Number,
    /// An int.
    #[serde(rename = "library.kind.int")]
    Int,
    /// A str.
    #[serde(rename = "library.kind.str")]
    Str,
    /// A dict.
    #[serde(rename = "library.kind.dict")]
    Dict,
    /// True or False.
    #[serde(rename = "library.kind.bool")]
    Bool,
    /// A kernel.
    #[serde(rename = "library.kind.kernel")]
    Kernel,
    /// A torch dtype.
    #[serde(rename = "library.kind.torch_dtype")]
    TorchDtype,
    /// A numpy dtype.
    #[serde(rename = "library.kind.numpy_dtype")]
    NumpyDtype,
    /// A dtype, a device or a tensor (`tensor.to(…)`).
    #[serde(rename = "library.kind.dtype_device_tensor")]
    DtypeDeviceOrTensor,
    /// An array or a number.
    #[serde(rename = "library.kind.array_or_number")]
    ArrayOrNumber,
    /// A member of a pypto enumeration.
    #[serde(rename = "library.kind.enumeration")]
    Enumeration {
        /// The enumeration (`CastMode`).
        name: String,
    },
    /// The model (`torch.nn.Module` methods).
    #[serde(rename = "library.kind.model")]
    Model,
    /// A dim.
    #[serde(rename = "library.kind.dim")]
    Dim,
    /// At least one tensor.
    #[serde(rename = "library.kind.one_tensor")]
    AtLeastOneTensor,
}

impl Kind {
    /// The kind in English, with its article.
    pub fn english(&self) -> String {
        match self {
            Kind::Tensor => "a tensor".into(),
            Kind::Tensors => "tensors".into(),
            Kind::TensorOrList => "a tensor or a list of tensors".into(),
            Kind::TensorOrNumber => "a tensor or a number".into(),
            Kind::Compared => "a tensor or a number to compare".into(),
            Kind::Number => "a number".into(),
            Kind::Int => "an int".into(),
            Kind::Str => "a str".into(),
            Kind::Dict => "a dict".into(),
            Kind::Bool => "True or False".into(),
            Kind::Kernel => "a kernel".into(),
            Kind::TorchDtype => "a torch dtype".into(),
            Kind::NumpyDtype => "a dtype (np.float32 …)".into(),
            Kind::DtypeDeviceOrTensor => "a dtype, a device or a tensor".into(),
            Kind::ArrayOrNumber => "an array or a number".into(),
            Kind::Enumeration { name } => format!("a pypto.{name}"),
            Kind::Model => "the model".into(),
            Kind::Dim => "a dim".into(),
            Kind::AtLeastOneTensor => "at least one tensor".into(),
        }
    }
}

/// A library function's message about its arguments, or about what is available where.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryMessage {
    /// A named argument of the wrong kind.
    #[serde(rename = "library.argument_type")]
    ArgumentType {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// What it must be.
        expected: Kind,
        /// The type given.
        got: String,
    },
    /// A value of the wrong kind (an item of a list, an operand).
    #[serde(rename = "library.expected")]
    Expected {
        /// The function (with `()` when the sentence names it so).
        function: String,
        /// What it needed.
        expected: Kind,
        /// The type given.
        got: String,
    },
    /// An operand of a tensor op that is neither a tensor nor a number.
    #[serde(rename = "library.operand")]
    Operand {
        /// What it needed.
        expected: Kind,
        /// The type given.
        got: String,
    },
    /// A call without an argument it needs.
    #[serde(rename = "library.needs")]
    Needs {
        /// The function, as written in the sentence (`unsqueeze()`).
        function: String,
        /// What it needs.
        what: Kind,
    },
    /// Fewer positional arguments than a builtin needs.
    #[serde(rename = "library.at_least_arguments")]
    AtLeastArguments {
        /// The function.
        function: String,
        /// The fewest it takes.
        count: usize,
        /// How many were given.
        given: usize,
    },
    /// A string argument that is none of the accepted ones.
    #[serde(rename = "library.one_of")]
    OneOf {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// The accepted values, quoted.
        choices: Vec<String>,
        /// The value given, as written (absent when not shown).
        got: Option<String>,
    },
    /// Help of `approximate=`: what each mode computes.
    #[serde(rename = "library.help.gelu_modes")]
    GeluModes,
    /// `pypto.min`/`max` of two values that are not both scalars.
    #[serde(rename = "library.two_scalars")]
    TwoScalars {
        /// The function.
        function: String,
        /// The first type.
        left: String,
        /// The second type.
        right: String,
    },
    /// Help of [`LibraryMessage::TwoScalars`]: the element-wise and the reducing forms.
    #[serde(rename = "library.help.tensor_extremes")]
    TensorExtremes {
        /// `pypto.minimum`.
        elementwise: String,
        /// `amin`.
        reduction: String,
    },
    /// `sorted`/`min`/`max` of keys that do not compare.
    #[serde(rename = "library.cannot_compare")]
    CannotCompare {
        /// The function.
        function: String,
        /// The first type.
        left: String,
        /// The second type.
        right: String,
    },
    /// `sorted` of items that `<` does not order.
    #[serde(rename = "library.less_than_unsupported")]
    LessThanUnsupported {
        /// The function.
        function: String,
        /// The left type.
        left: String,
        /// The right type.
        right: String,
    },
    /// `min(a, b, default=…)`.
    #[serde(rename = "library.default_single_iterable")]
    DefaultSingleIterable {
        /// The function.
        function: String,
    },
    /// A torch function inside a kernel.
    #[serde(rename = "library.host_only")]
    HostOnly {
        /// The function.
        name: String,
    },
    /// A numpy function inside a kernel.
    #[serde(rename = "library.host_code")]
    HostCode {
        /// The function.
        name: String,
    },
    /// Help: the pypto function of the same name.
    #[serde(rename = "library.help.use_in_kernel")]
    UseInKernel {
        /// `pypto.exp`.
        function: String,
    },
    /// Help: no pypto function of that name.
    #[serde(rename = "library.help.pypto_or_torch")]
    PyptoOrTorch,
    /// Help of [`LibraryMessage::HostCode`].
    #[serde(rename = "library.help.numpy_after_call")]
    NumpyAfterCall,
    /// A torch function that tile scripts do not have.
    #[serde(rename = "library.not_in_tile_scripts")]
    NotInTileScripts {
        /// The function.
        name: String,
    },
    /// Help: `help(torch)` lists what is there.
    #[serde(rename = "library.help.torch_listing")]
    TorchListing,
    /// A numpy function that is listed but not available.
    #[serde(rename = "library.not_available_here")]
    NotAvailableHere {
        /// The function.
        name: String,
    },
    /// A listed constant without a value here.
    #[serde(rename = "library.no_value_here")]
    NoValueHere {
        /// `torch.int64`.
        name: String,
    },
    /// Help of a missing `torch.*` name.
    #[serde(rename = "library.help.torch_covers")]
    TorchCovers {
        /// The module.
        module: String,
    },
    /// Help of a missing `pypto.*` name.
    #[serde(rename = "library.help.module_lists")]
    ModuleLists {
        /// The module.
        module: String,
    },
    /// Help of a missing `numpy.*` name: what the numpy here has.
    #[serde(rename = "library.help.numpy_covers")]
    NumpyCovers {
        /// Its functions, in backticks, comma-separated.
        names: String,
    },
    /// A method a library object does not have.
    #[serde(rename = "library.no_method")]
    NoMethod {
        /// The object's type.
        type_name: String,
        /// The method.
        name: String,
    },
    /// An attribute that cannot be set.
    #[serde(rename = "library.cannot_set_attribute")]
    CannotSetAttribute {
        /// The attribute.
        name: String,
        /// The object (`a tensor`, `pypto.platform`).
        object: String,
    },
    /// Help: `torch.nn.Module` subclasses define `forward`.
    #[serde(rename = "library.help.define_forward")]
    DefineForward,
    /// A check's message after the script's own text (`err_msg=`).
    #[serde(rename = "library.with_user_text")]
    WithUserText {
        /// The script's text.
        text: String,
        /// The check's message.
        message: Box<super::Message>,
    },
    /// An int out of range (`numpy.abs`).
    #[serde(rename = "library.int_out_of_range")]
    IntOutOfRange {
        /// The function.
        function: String,
    },
}

impl LibraryMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryMessage::*;
        match self {
            ArgumentType { function, parameter, expected, got } => {
                format!("{function}(): '{parameter}' must be {}, not {got}", expected.english())
            }
            Expected { function, expected, got } => format!("{function}: expected {}, not {got}", expected.english()),
            Operand { expected, got } => format!("expected {}, not {got}", expected.english()),
            Needs { function, what } => format!("{function} needs {}", what.english()),
            AtLeastArguments { function, count, given } => {
                let noun = if *count == 1 { "argument" } else { "arguments" };
                format!("{function}() expected at least {count} {noun}, got {given}")
            }
            OneOf { function, parameter, choices, got } => {
                let shown = got.as_ref().map(|got| format!(", not {got}")).unwrap_or_default();
                format!("{function}: {parameter} must be one of [{}]{shown}", choices.join(", "))
            }
            GeluModes => "approximate=\"none\" is the exact erf form; \"tanh\" the tanh approximation".into(),
            TwoScalars { function, left, right } => format!("{function} takes two scalars, not {left} and {right}"),
            TensorExtremes { elementwise, reduction } => {
                format!("for tensors use {elementwise}(a, b) (element-wise) or x.{reduction}(dim) (a reduction)")
            }
            CannotCompare { function, left, right } => format!("{function}(): cannot compare {left} and {right}"),
            LessThanUnsupported { function, left, right } => {
                format!("{function}(): '<' is not supported between '{left}' and '{right}'")
            }
            DefaultSingleIterable { function } => {
                format!("{function}(): 'default' is only allowed with a single iterable")
            }
            HostOnly { name } => format!("{name} runs on the host: a kernel's ops are pypto's, which the NPU runs"),
            HostCode { name } => format!("{name} is host code: it cannot run inside a kernel"),
            UseInKernel { function } => format!("use {function} inside the kernel"),
            PyptoOrTorch => "compute it with pypto ops inside the kernel, or with torch outside it".into(),
            NumpyAfterCall => {
                "inside a kernel use pypto's ops (pypto.abs …); check results with numpy after the call".into()
            }
            NotInTileScripts { name } => format!("{name} is not available in tile scripts"),
            TorchListing => "help(torch) lists the torch functions available here".into(),
            NotAvailableHere { name } => format!("{name} is not available here"),
            NoValueHere { name } => format!("{name} has no value here"),
            TorchCovers { module } => {
                format!("the torch module here covers what pypto tests' goldens use; help({module}) lists it")
            }
            ModuleLists { module } => format!("help({module}) lists what it has"),
            NumpyCovers { names } => format!(
                "the numpy here covers what pypto examples' golden checks use ({names}); for other math use the torch module or pypto on tensors"
            ),
            NoMethod { type_name, name } => format!("'{type_name}' object has no method '{name}'"),
            CannotSetAttribute { name, object } => format!("cannot set attribute '{name}' of {object}"),
            DefineForward => {
                "a torch.nn.Module subclass defines `def forward(self, …)`, which calling the model runs".into()
            }
            WithUserText { text, message } => format!("{text}\n{}", message.english()),
            IntOutOfRange { function } => format!("{function}: the int is out of range"),
        }
    }
}
