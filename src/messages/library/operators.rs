//! Messages of `torch.library` and `torch.ops`: the custom operators model code registers around
//! its pypto kernels (a schema, a kernel per dispatch key) and calls through `torch.ops`.

use serde::Serialize;

/// A custom operator's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryOperatorMessage {
    /// A schema missing a token (`(`, `)`, `,`, `->`, or its end).
    #[serde(rename = "library.schema_token")]
    SchemaToken {
        /// The schema as written.
        schema: String,
        /// Where (1-based character).
        position: usize,
        /// The token it needs there.
        token: String,
    },
    /// A schema missing a name (of the operator, an argument or a type).
    #[serde(rename = "library.schema_name")]
    SchemaName {
        /// The schema as written.
        schema: String,
        /// Where (1-based character).
        position: usize,
    },
    /// A schema type that is not one of torch's.
    #[serde(rename = "library.schema_type")]
    SchemaType {
        /// The schema as written.
        schema: String,
        /// The type.
        type_name: String,
    },
    /// A default that is not a value.
    #[serde(rename = "library.schema_default")]
    SchemaDefault {
        /// The schema as written.
        schema: String,
        /// The argument.
        argument: String,
        /// The default as written.
        text: String,
    },
    /// Help: the form of a schema and its types.
    #[serde(rename = "library.help.schema_form")]
    SchemaForm,
    /// `torch.library.Library(ns, kind)` of another kind.
    #[serde(rename = "library.library_kind")]
    LibraryKind {
        /// The kind given.
        kind: String,
    },
    /// A dispatch key torch does not have (torch's own words, which model code tests for).
    #[serde(rename = "library.dispatch_key")]
    DispatchKey {
        /// The key given.
        key: String,
    },
    /// Help: the dispatch keys.
    #[serde(rename = "library.help.dispatch_keys")]
    DispatchKeys,
    /// A kernel for an autograd key: the backward of an operator is not registered this way here.
    #[serde(rename = "library.autograd_kernel")]
    AutogradKernel {
        /// The operator (`pypto::rms_norm`).
        operator: String,
        /// The key.
        key: String,
    },
    /// Help of [`LibraryOperatorMessage::AutogradKernel`].
    #[serde(rename = "library.help.register_gradient")]
    RegisterGradient,
    /// `torch.ops.<namespace>.<name>` of an operator never defined.
    #[serde(rename = "library.no_operator")]
    NoOperator {
        /// The namespace.
        namespace: String,
        /// The name.
        name: String,
    },
    /// Help of [`LibraryOperatorMessage::NoOperator`]: how to define it.
    #[serde(rename = "library.help.define_operator")]
    DefineOperator {
        /// The namespace.
        namespace: String,
        /// The name.
        name: String,
    },
    /// A name in another namespace than its library's (`lib.impl("other::x", …)`).
    #[serde(rename = "library.operator_namespace")]
    OperatorNamespace {
        /// The name as given.
        name: String,
        /// The library's namespace.
        namespace: String,
    },
    /// An operator called without a kernel that runs here.
    #[serde(rename = "library.no_kernel")]
    NoKernel {
        /// The operator (`pypto::hc_pre`).
        operator: String,
        /// The keys it has kernels for, comma-separated (may be empty).
        registered: String,
    },
    /// Help of [`LibraryOperatorMessage::NoKernel`]: which kernels run.
    #[serde(rename = "library.help.runnable_kernels")]
    RunnableKernels,
    /// An argument of another type than the schema's.
    #[serde(rename = "library.operator_argument")]
    OperatorArgument {
        /// The operator.
        operator: String,
        /// The argument.
        argument: String,
        /// The schema's type (`Tensor`, `int[]`).
        expected: String,
        /// The type given.
        got: String,
    },
    /// A kernel that returned something else than the schema says.
    #[serde(rename = "library.operator_returns")]
    OperatorReturns {
        /// The operator.
        operator: String,
        /// The schema's returns (`(Tensor, Tensor)`).
        expected: String,
        /// What the kernel returned (`tuple of 3`, `NoneType`).
        got: String,
    },
    /// `FakeTensor(…)`: no fake tensors exist here.
    #[serde(rename = "library.no_fake_tensors")]
    NoFakeTensors,
}

impl LibraryOperatorMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryOperatorMessage::*;
        match self {
            SchemaToken { schema, position, token } => {
                format!("torch.library: the schema '{schema}' needs '{token}' at character {position}")
            }
            SchemaName { schema, position } => {
                format!("torch.library: the schema '{schema}' needs a name at character {position}")
            }
            SchemaType { schema, type_name } => {
                format!("torch.library: the schema '{schema}' has the unknown type '{type_name}'")
            }
            SchemaDefault { schema, argument, text } => {
                format!("torch.library: the default of '{argument}' in the schema '{schema}' is not a value: '{text}'")
            }
            SchemaForm => "a schema reads name(Tensor x, int n=1, *, float eps=1e-06) -> Tensor; its types are Tensor, \
                           int, SymInt, float, bool, str, Scalar, ScalarType, Device, with ? (optional) and [] (a list)"
                .into(),
            LibraryKind { kind } => {
                format!("torch.library.Library: kind must be \"DEF\", \"IMPL\" or \"FRAGMENT\", got \"{kind}\"")
            }
            DispatchKey { key } => format!("could not parse dispatch key: {key}"),
            DispatchKeys => "dispatch keys: \"NPU\" (or \"PrivateUse1\"), \"CPU\", \"Meta\", \
                             \"CompositeExplicitAutograd\", \"CompositeImplicitAutograd\""
                .into(),
            AutogradKernel { operator, key } => {
                format!("{operator}: a kernel for the dispatch key \"{key}\" (a backward) is not supported here")
            }
            RegisterGradient => "register the forward for \"NPU\" and give a pypto kernel its backward with \
                                 @pypto.register_gradient(\"name\")"
                .into(),
            NoOperator { namespace, name } => format!("torch.ops.{namespace} has no operator '{name}'"),
            DefineOperator { namespace, name } => format!(
                "define it first: lib = torch.library.Library(\"{namespace}\", \"FRAGMENT\"); \
                 lib.define(\"{name}(Tensor x) -> Tensor\")"
            ),
            OperatorNamespace { name, namespace } => {
                format!("torch.library: '{name}' is not in the library's namespace '{namespace}'")
            }
            NoKernel { operator, registered } => format!(
                "could not run '{operator}' with arguments from the 'NPU' backend: it has kernels for [{registered}] only"
            ),
            RunnableKernels => "register a kernel for \"NPU\", \"CPU\" or \"CompositeExplicitAutograd\"; a \"Meta\" \
                                kernel only gives output shapes to torch.compile, which does not run here"
                .into(),
            OperatorArgument { operator, argument, expected, got } => {
                format!("{operator}: argument '{argument}' must be {expected}, got {got}")
            }
            OperatorReturns { operator, expected, got } => {
                format!("{operator}: its schema returns {expected}, but its kernel returned {got}")
            }
            NoFakeTensors => "FakeTensor: there are no fake tensors here (torch.compile does not run); \
                              isinstance(x, FakeTensor) is False for every tensor"
                .into(),
        }
    }
}
