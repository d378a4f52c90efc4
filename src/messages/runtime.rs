//! The interpreter's everyday runtime errors: calls with the wrong arguments, indices out of range,
//! failed assertions and the common value errors.

use serde::Serialize;

use super::classes::ClassMessage;
use super::operations::OperationMessage;
use super::statements::StatementMessage;
use super::words::Expected;

/// A runtime error's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum RuntimeMessage {
    /// More positional arguments than a function has parameters.
    #[serde(rename = "call.too_many_positional")]
    TooManyPositional {
        /// The function.
        function: String,
        /// Its positional parameters.
        expected: usize,
        /// Arguments given.
        given: usize,
    },
    /// More positional arguments than a builtin takes.
    #[serde(rename = "call.at_most_positional")]
    AtMostPositional {
        /// The function.
        function: String,
        /// The most it takes.
        count: usize,
    },
    /// One parameter given twice (by position and by name).
    #[serde(rename = "call.multiple_values")]
    MultipleValues {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
    },
    /// A keyword-only parameter without a value.
    #[serde(rename = "call.missing_keyword")]
    MissingKeyword {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
    },
    /// Arguments to a function that takes none.
    #[serde(rename = "call.takes_no_arguments")]
    TakesNoArguments {
        /// The function.
        function: String,
        /// Arguments given.
        given: usize,
    },
    /// An argument of the wrong type.
    #[serde(rename = "call.argument_type")]
    ArgumentType {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// What it must be.
        expected: Expected,
        /// The type given.
        got: String,
    },
    /// A call of a value that is not a function.
    #[serde(rename = "call.not_callable")]
    NotCallable {
        /// The value's type.
        type_name: String,
    },
    /// An attribute an object does not have.
    #[serde(rename = "attribute.missing")]
    NoAttribute {
        /// The object's type (or class).
        type_name: String,
        /// The attribute.
        name: String,
    },
    /// A list, tuple or string index past the end.
    #[serde(rename = "index.out_of_range")]
    IndexOutOfRange {
        /// The index as written.
        index: i64,
        /// The length.
        length: usize,
    },
    /// A tensor index past the end of a dim.
    #[serde(rename = "index.tensor_out_of_range")]
    TensorIndexOutOfRange {
        /// The index as written.
        index: i64,
        /// The dim.
        dim: usize,
        /// Its size.
        size: usize,
    },
    /// An index of a type that cannot index.
    #[serde(rename = "index.wrong_type")]
    IndexType {
        /// The index's type.
        got: String,
    },
    /// A dict key that is not there.
    #[serde(rename = "index.missing_key")]
    MissingKey {
        /// The key's repr.
        key: String,
    },
    /// `set.remove(member)` of a member that is not there.
    #[serde(rename = "index.missing_member")]
    MissingMember {
        /// The member's repr.
        member: String,
    },
    /// `set.pop()` on an empty set.
    #[serde(rename = "index.empty_set")]
    EmptySet,
    /// `assert condition` failed.
    #[serde(rename = "assert.failed")]
    AssertionFailed,
    /// `assert condition, message` failed.
    #[serde(rename = "assert.failed_with")]
    AssertionFailedWith {
        /// The user's message.
        text: String,
    },
    /// `assert_allclose` with tensors of different shapes.
    #[serde(rename = "assert.allclose_shapes")]
    AllcloseShapes {
        /// The actual shape.
        actual: Vec<usize>,
        /// The desired shape.
        desired: Vec<usize>,
    },
    /// Help of [`RuntimeMessage::AllcloseShapes`].
    #[serde(rename = "assert.same_shape")]
    CompareSameShape,
    /// `assert_allclose` found elements apart.
    #[serde(rename = "assert.allclose")]
    AllcloseFailed {
        /// Elements that differ.
        differ: usize,
        /// Elements compared.
        count: usize,
        /// The relative tolerance, as printed.
        rtol: String,
        /// The absolute tolerance, as printed.
        atol: String,
        /// The largest absolute difference, as printed.
        largest: String,
    },
    /// Note of [`RuntimeMessage::AllcloseFailed`]: the worst elements, one per line.
    #[serde(rename = "assert.worst_mismatches")]
    WorstMismatches {
        /// The elements.
        mismatches: Vec<Mismatch>,
    },
    /// Integer division or modulo by zero.
    #[serde(rename = "value.division_by_zero")]
    DivisionByZero,
    /// Float division or modulo by zero.
    #[serde(rename = "value.float_division_by_zero")]
    FloatDivisionByZero,
    /// `list.remove`/`index` of a value not in the list.
    #[serde(rename = "value.not_in_list")]
    NotInList,
    /// `pop` from an empty list.
    #[serde(rename = "value.pop_empty")]
    PopFromEmpty,
    /// `min()`/`max()` of an empty sequence.
    #[serde(rename = "value.empty_sequence")]
    EmptySequence {
        /// The function.
        function: String,
    },
    /// Help of [`RuntimeMessage::EmptySequence`].
    #[serde(rename = "value.give_default")]
    GiveDefault {
        /// The function.
        function: String,
    },
    /// `int("x")`.
    #[serde(rename = "value.invalid_int")]
    InvalidIntLiteral {
        /// The text's repr.
        text: String,
    },
    /// The truth value of a tensor of many elements.
    #[serde(rename = "value.ambiguous_truth")]
    AmbiguousTruth,
    /// Help of [`RuntimeMessage::AmbiguousTruth`].
    #[serde(rename = "value.use_allclose")]
    UseAllclose,
    /// `range()` with step 0.
    #[serde(rename = "value.zero_step")]
    ZeroStep,
    /// A slice with step 0 (`items[::0]`).
    #[serde(rename = "value.slice_step_zero")]
    SliceStepZero,
    /// A format spec asking for a field wider than the limit.
    #[serde(rename = "format.width_too_large")]
    FormatWidthTooLarge {
        /// The spec.
        spec: String,
        /// The widest field.
        limit: usize,
    },
    /// A format spec asking for more digits than the limit.
    #[serde(rename = "format.precision_too_large")]
    FormatPrecisionTooLarge {
        /// The spec.
        spec: String,
        /// The most digits.
        limit: usize,
    },
    /// A format spec that does not parse (`.x`).
    #[serde(rename = "format.invalid_spec")]
    InvalidFormatSpec {
        /// The spec.
        spec: String,
    },
    /// `d` of a value that is not an integer.
    #[serde(rename = "format.integer_code")]
    FormatNeedsInteger {
        /// The value's type.
        got: String,
    },
    /// A format code the value's type does not have.
    #[serde(rename = "format.unknown_code")]
    UnknownFormatCode {
        /// The code.
        code: String,
        /// The value's type.
        type_name: String,
    },
    /// Types, conversions, overflow and the session's limits.
    #[serde(untagged)]
    Operation(OperationMessage),
    /// Errors of statements (`del`, `import`, `raise`, `with` …).
    #[serde(untagged)]
    Statement(StatementMessage),
    /// Errors of classes, instances and the reflection builtins.
    #[serde(untagged)]
    Class(ClassMessage),
}

/// One element of an `assert_allclose` failure (a line of its note).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum Mismatch {
    /// The element at `index`.
    #[serde(rename = "assert.mismatch")]
    At {
        /// Its index.
        index: Vec<usize>,
        /// The actual value, as printed.
        actual: String,
        /// The desired value, as printed.
        desired: String,
        /// `|actual - desired|`, as printed.
        difference: String,
    },
}

impl Mismatch {
    fn english(&self) -> String {
        let Mismatch::At { index, actual, desired, difference } = self;
        format!("at {index:?}: actual {actual} desired {desired} (|diff| {difference})")
    }
}

impl RuntimeMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use RuntimeMessage::*;
        match self {
            TooManyPositional { function, expected, given } => {
                format!("{function}() takes {expected} positional arguments but {given} were given")
            }
            AtMostPositional { function, count } => format!("{function}() takes at most {count} positional arguments"),
            MultipleValues { function, parameter } => {
                format!("{function}() got multiple values for argument '{parameter}'")
            }
            MissingKeyword { function, parameter } => format!("{function}() missing keyword argument '{parameter}'"),
            TakesNoArguments { function, given } => format!("{function}() takes no arguments ({given} given)"),
            ArgumentType { function, parameter, expected, got } => {
                format!("{function}(): '{parameter}' must be {}, not {got}", expected.english())
            }
            NotCallable { type_name } => format!("'{type_name}' object is not callable"),
            NoAttribute { type_name, name } => format!("'{type_name}' object has no attribute '{name}'"),
            IndexOutOfRange { index, length } => format!("index {index} is out of range for length {length}"),
            TensorIndexOutOfRange { index, dim, size } => {
                format!("index {index} is out of range for dim {dim} of size {size}")
            }
            IndexType { got } => format!("indices must be integers or slices, not {got}"),
            MissingKey { key } => format!("key {key} is not in the dict"),
            MissingMember { member } => format!("{member} is not in the set"),
            EmptySet => "pop from an empty set".into(),
            AssertionFailed => "assertion failed".into(),
            AssertionFailedWith { text } => format!("assertion failed: {text}"),
            AllcloseShapes { actual, desired } => {
                format!("assert_allclose: shapes {actual:?} (actual) and {desired:?} (desired) differ")
            }
            CompareSameShape => "compare tensors of the same shape (reshape or index one side first)".into(),
            AllcloseFailed { differ, count, rtol, atol, largest } => format!(
                "assert_allclose: {differ} of {count} elements differ (rtol={rtol}, atol={atol}); largest |actual - desired| = {largest}"
            ),
            WorstMismatches { mismatches } => {
                let lines: Vec<String> = mismatches.iter().map(Mismatch::english).collect();
                format!("worst mismatches:\n{}", lines.join("\n"))
            }
            FloatDivisionByZero => "float division by zero".into(),
            DivisionByZero => "division by zero".into(),
            NotInList => "value is not in the list".into(),
            PopFromEmpty => "pop from an empty list".into(),
            EmptySequence { function } => format!("{function}() of an empty sequence"),
            GiveDefault { function } => format!("give a value for the empty case: {function}(items, default=0)"),
            InvalidIntLiteral { text } => format!("invalid literal for int(): {text}"),
            AmbiguousTruth => "the truth value of a tensor with more than one element is ambiguous".into(),
            UseAllclose => "use pypto.allclose(a, b), or reduce first (x.sum().item() > 0)".into(),
            ZeroStep => "range() step must not be zero".into(),
            SliceStepZero => "slice step cannot be zero".into(),
            FormatWidthTooLarge { spec, limit } => format!("format width in '{spec}' is larger than {limit}"),
            FormatPrecisionTooLarge { spec, limit } => format!("format precision in '{spec}' is larger than {limit}"),
            InvalidFormatSpec { spec } => format!("invalid format spec '{spec}'"),
            FormatNeedsInteger { got } => format!("format code 'd' needs an integer, not {got}"),
            UnknownFormatCode { code, type_name } => format!("unknown format code '{code}' for a value of type {type_name}"),
            Operation(message) => message.english(),
            Statement(message) => message.english(),
            Class(message) => message.english(),
        }
    }
}

impl From<RuntimeMessage> for super::Message {
    fn from(message: RuntimeMessage) -> Self {
        super::Message::Runtime(message)
    }
}
