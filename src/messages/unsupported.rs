//! Python constructs outside the tile script subset, and what to write instead: one message
//! (`unsupported.construct`) names the construct as a translated word, its help says what to use.

use serde::Serialize;

/// A Python construct tile scripts do not take, as a message names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum Construct {
    /// `{**a}`.
    #[serde(rename = "construct.dict_unpacking")]
    DictUnpacking,
    /// `b"…"`.
    #[serde(rename = "construct.bytes_literal")]
    BytesLiteral,
    /// `1j`.
    #[serde(rename = "construct.complex_literal")]
    ComplexLiteral,
    /// `'\N{…}'`.
    #[serde(rename = "construct.named_escape")]
    NamedEscape,
    /// `f'{x:{width}}'`.
    #[serde(rename = "construct.nested_format_field")]
    NestedFormatField,
    /// `(y := f(x))`.
    #[serde(rename = "construct.walrus")]
    Walrus,
    /// `yield`.
    #[serde(rename = "construct.yield")]
    Yield,
    /// `await`.
    #[serde(rename = "construct.await")]
    Await,
    /// `async`.
    #[serde(rename = "construct.async")]
    Async,
    /// `for … else`.
    #[serde(rename = "construct.loop_else")]
    LoopElse,
    /// `from .module import name`.
    #[serde(rename = "construct.relative_import")]
    RelativeImport,
    /// `from module import *`.
    #[serde(rename = "construct.star_import")]
    StarImport,
    /// `class C(metaclass=M)`.
    #[serde(rename = "construct.class_keywords")]
    ClassKeywords,
    /// `def f(a, /)`.
    #[serde(rename = "construct.positional_only")]
    PositionalOnly,
    /// `"%d" % x`.
    #[serde(rename = "construct.percent_format")]
    PercentFormat,
    /// `a == b` of tensors.
    #[serde(rename = "construct.tensor_equality")]
    TensorEquality,
    /// `items[::2] = …`.
    #[serde(rename = "construct.extended_slice_assignment")]
    ExtendedSliceAssignment,
    /// `class C(A, B):`.
    #[serde(rename = "construct.several_bases")]
    SeveralBases,
    /// `object()`.
    #[serde(rename = "construct.object_instances")]
    ObjectInstances,
    /// `NamedTuple("Name", [...])`.
    #[serde(rename = "construct.named_tuple_call")]
    NamedTupleCall,
}

impl Construct {
    /// The construct in English, and whether it reads as a plural ("set literals are").
    fn english(self) -> (&'static str, bool) {
        use Construct::*;
        match self {
            DictUnpacking => ("'**' unpacking in a dict display", false),
            BytesLiteral => ("bytes literals", true),
            ComplexLiteral => ("complex number literals", true),
            NamedEscape => ("named escapes ('\\N{...}')", true),
            NestedFormatField => ("nested fields in an f-string format spec", true),
            Walrus => ("the walrus operator ':='", false),
            Yield => ("`yield`", false),
            Await => ("`await`", false),
            Async => ("`async`", false),
            LoopElse => ("`else` after a loop", false),
            RelativeImport => ("relative imports (`from .module import name`)", true),
            StarImport => ("`from … import *`", false),
            ClassKeywords => ("class keywords (`metaclass=…`)", true),
            PositionalOnly => ("positional-only parameters ('/')", true),
            PercentFormat => ("%-formatting of strings", false),
            TensorEquality => ("comparing tensors with == or !=", false),
            ExtendedSliceAssignment => ("assigning to an extended list slice", false),
            SeveralBases => ("a class with several bases", false),
            ObjectInstances => ("object() instances", true),
            NamedTupleCall => ("the call form NamedTuple(\"Name\", [...])", false),
        }
    }
}

/// A construct outside the subset, or the help saying what to use instead.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum UnsupportedMessage {
    /// `construct` is not supported in tile scripts.
    #[serde(rename = "unsupported.construct")]
    NotSupported {
        /// The construct.
        construct: Construct,
    },
    /// Help: remove a keyword or mark (`async`, `/`).
    #[serde(rename = "unsupported.remove")]
    Remove {
        /// What to remove, as written.
        text: String,
    },
    /// Help: remove a string's prefix.
    #[serde(rename = "unsupported.remove_prefix")]
    RemovePrefix {
        /// The prefix (`b`).
        prefix: String,
    },
    /// Help: the character itself or `\uXXXX`.
    #[serde(rename = "unsupported.write_character")]
    WriteCharacter,
    /// Help: assign on a line of its own.
    #[serde(rename = "unsupported.assign_first")]
    AssignFirst,
    /// Help: a list instead of a generator.
    #[serde(rename = "unsupported.build_a_list")]
    BuildAList,
    /// Help: a flag instead of a loop's `else`.
    #[serde(rename = "unsupported.use_a_flag")]
    UseAFlag,
    /// Help: a notebook is one file.
    #[serde(rename = "unsupported.one_file")]
    OneFile,
    /// Help: import the names used.
    #[serde(rename = "unsupported.name_the_imports")]
    NameTheImports {
        /// The module's dotted path.
        path: String,
    },
    /// Help: a plain class, a dataclass or a NamedTuple.
    #[serde(rename = "unsupported.plain_class")]
    PlainClass,
    /// Help: an f-string instead of `%`.
    #[serde(rename = "unsupported.use_f_string")]
    UseFString,
    /// Help: `pypto.allclose` instead of `==` on tensors.
    #[serde(rename = "unsupported.use_allclose")]
    UseAllclose,
    /// Help: raise a new exception.
    #[serde(rename = "unsupported.raise_new")]
    RaiseNew,
    /// A bare `raise` with no `except` block running: nothing was caught.
    #[serde(rename = "unsupported.nothing_to_reraise")]
    NothingToReraise,
}

impl UnsupportedMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use UnsupportedMessage::*;
        match self {
            NotSupported { construct } => {
                let (name, plural) = construct.english();
                format!("{name} {} not supported in tile scripts", if plural { "are" } else { "is" })
            }
            Remove { text } => format!("remove `{text}`"),
            RemovePrefix { prefix } => format!("remove the '{prefix}' prefix"),
            WriteCharacter => "write the character itself, or its code as '\\uXXXX'".into(),
            AssignFirst => "assign on its own line first".into(),
            BuildAList => "build a list and return it".into(),
            UseAFlag => "use a flag variable set before `break`".into(),
            OneFile => "a notebook is one file: define the names in an earlier cell and use them directly".into(),
            NameTheImports { path } => {
                format!("name what you use: `from {path} import name, other`, or `import {path}`")
            }
            PlainClass => "use a plain class, a @dataclass or a NamedTuple".into(),
            UseFString => "use an f-string: f\"{x:.3f}\"".into(),
            UseAllclose => "use pypto.allclose(a, b) or pypto.assert_allclose(actual, desired)".into(),
            RaiseNew => "raise a new exception: raise ValueError(\"…\")".into(),
            NothingToReraise => "a bare `raise` outside an `except` block has nothing to re-raise".into(),
        }
    }
}

impl From<UnsupportedMessage> for super::Message {
    fn from(message: UnsupportedMessage) -> Self {
        super::Message::Syntax(super::SyntaxMessage::Unsupported(message))
    }
}
