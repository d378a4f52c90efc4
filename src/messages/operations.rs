//! The interpreter's other runtime errors about values: operand and argument types, conversions,
//! overflow, shapes, and the session's limits (steps, time, memory, sizes, call depth).

use serde::Serialize;

/// A runtime error about a value or a limit, or its help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum OperationMessage {
    /// A unary `-`/`+` of a value that has none.
    #[serde(rename = "type.bad_unary")]
    BadUnaryOperand {
        /// `-` or `+`.
        operator: String,
        /// The operand's type.
        type_name: String,
    },
    /// A `for` over a value that cannot be iterated.
    #[serde(rename = "type.not_iterable")]
    NotIterable {
        /// The value's type.
        type_name: String,
    },
    /// `x[i]` of a value without items.
    #[serde(rename = "type.not_subscriptable")]
    NotSubscriptable {
        /// The value's type.
        type_name: String,
    },
    /// `x[i] = v` of an immutable value.
    #[serde(rename = "type.no_item_assignment")]
    NoItemAssignment {
        /// The value's type.
        type_name: String,
    },
    /// A dict key that cannot be hashed.
    #[serde(rename = "type.unhashable")]
    Unhashable {
        /// The key's type.
        type_name: String,
    },
    /// `dict.update(pairs)` with an item that is not a key and a value.
    #[serde(rename = "type.update_sequence")]
    UpdateSequence {
        /// The item's length.
        length: usize,
    },
    /// An ordering comparison of values without an order.
    #[serde(rename = "type.not_orderable")]
    NotOrderable {
        /// `<`, `<=` …
        operator: String,
        /// The left operand's type.
        left: String,
        /// The right operand's type.
        right: String,
    },
    /// Help: compare a tensor's scalar.
    #[serde(rename = "type.compare_scalar")]
    CompareScalar,
    /// `*` of an int and a value that is not a sequence.
    #[serde(rename = "type.repeat_sequence")]
    RepeatSequence,
    /// `x in "text"` with a non-string `x`.
    #[serde(rename = "type.in_string")]
    InString {
        /// The left operand's type.
        got: String,
    },
    /// A slice bound that is not an int.
    #[serde(rename = "type.slice_index")]
    SliceIndexType {
        /// The index's type.
        got: String,
    },
    /// A builtin called without its argument.
    #[serde(rename = "call.needs_argument")]
    NeedsArgument {
        /// The builtin.
        function: String,
    },
    /// A builtin given a value of a type it does not take.
    #[serde(rename = "call.unsupported_argument")]
    UnsupportedArgument {
        /// The builtin.
        function: String,
        /// The argument's type.
        type_name: String,
    },
    /// Keywords given to a function that takes none.
    #[serde(rename = "call.no_keywords")]
    NoKeywords {
        /// The function.
        function: String,
    },
    /// `f(**{1: 2})`.
    #[serde(rename = "call.keywords_must_be_strings")]
    KeywordsMustBeStrings,
    /// `f(**x)` of a value that is not a dict.
    #[serde(rename = "call.double_star_dict")]
    DoubleStarNeedsDict {
        /// The value's type.
        got: String,
    },
    /// `len()` of a 0-d tensor.
    #[serde(rename = "type.len_of_scalar")]
    LenOfScalar,
    /// `float("x")`.
    #[serde(rename = "value.float_parse")]
    FloatParse {
        /// The string's repr.
        text: String,
    },
    /// `math.sqrt(-1)`.
    #[serde(rename = "value.math_domain")]
    MathDomain {
        /// `sqrt`, `log` …
        function: String,
    },
    /// `int(nan)`.
    #[serde(rename = "value.nan_to_int")]
    NanToInt,
    /// `int(inf)`.
    #[serde(rename = "overflow.infinity_to_int")]
    InfinityToInt,
    /// A float past 64 bits converted to an int.
    #[serde(rename = "overflow.float_too_large")]
    FloatTooLarge {
        /// The float, as printed.
        value: String,
    },
    /// An int operation past 64 bits.
    #[serde(rename = "overflow.integer")]
    IntegerOverflow,
    /// `a << n` or `a >> n` with a negative `n`.
    #[serde(rename = "operation.negative_shift_count")]
    NegativeShiftCount,
    /// A range too long for its length to be an int.
    #[serde(rename = "overflow.range_too_long")]
    RangeTooLong,
    /// Help of the range overflow.
    #[serde(rename = "overflow.iterate_range")]
    IterateRange,
    /// A shape with a negative size.
    #[serde(rename = "value.negative_size")]
    NegativeSize {
        /// The function.
        function: String,
        /// The size.
        size: i64,
    },
    /// A shape that is not a list.
    #[serde(rename = "type.shape_not_list")]
    ShapeNotList {
        /// The function.
        function: String,
        /// The value's type.
        got: String,
    },
    /// A shape holding a non-int.
    #[serde(rename = "type.shape_item")]
    ShapeItem {
        /// The function.
        function: String,
        /// The item's type.
        got: String,
    },
    /// Too many nested calls.
    #[serde(rename = "limit.call_depth")]
    CallDepth {
        /// The limit.
        limit: usize,
    },
    /// Nested calls past the native stack budget.
    #[serde(rename = "limit.stack")]
    StackBudget {
        /// Nested calls.
        depth: usize,
        /// The budget in KiB.
        kib: usize,
    },
    /// Help of the call depth errors.
    #[serde(rename = "limit.recursion_help")]
    RecursionHelp,
    /// The cell ran out of steps.
    #[serde(rename = "limit.step_budget")]
    StepBudget {
        /// The budget.
        budget: u64,
    },
    /// Help: large ops cost steps.
    #[serde(rename = "limit.large_ops")]
    LargeOpsCost,
    /// Help: an endless loop.
    #[serde(rename = "limit.endless_loop")]
    EndlessLoop,
    /// The run passed its deadline.
    #[serde(rename = "limit.timeout")]
    Timeout {
        /// The limit in seconds.
        seconds: f64,
    },
    /// Help of the timeout.
    #[serde(rename = "limit.give_more_time")]
    GiveMoreTime,
    /// The session holds more than its memory budget.
    #[serde(rename = "limit.memory")]
    MemoryBudget {
        /// What the values take, as printed.
        held: String,
        /// The budget, as printed.
        budget: String,
    },
    /// Help of the memory error.
    #[serde(rename = "limit.free_values")]
    FreeValues,
    /// Printed output past its limit.
    #[serde(rename = "limit.output")]
    OutputLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// A list past its size limit.
    #[serde(rename = "limit.list")]
    ListLimit {
        /// Items.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A string past its size limit.
    #[serde(rename = "limit.string")]
    StringLimit {
        /// Bytes.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// `a, b = 1, 2, 3`.
    #[serde(rename = "value.cannot_unpack")]
    CannotUnpack {
        /// Values.
        values: usize,
        /// Targets.
        targets: usize,
    },
    /// `text.split("")`.
    #[serde(rename = "value.empty_separator")]
    EmptySeparator,
    /// A method a value does not have.
    #[serde(rename = "attribute.no_method")]
    NoMethod {
        /// The value's type.
        type_name: String,
        /// The method.
        name: String,
    },
    /// A string method given a non-string.
    #[serde(rename = "type.str_needs_string")]
    StrNeedsString {
        /// `split`, `join` …
        method: String,
        /// The argument's type.
        got: String,
    },
    /// `", ".join([1, 2])`.
    #[serde(rename = "type.join_items")]
    JoinItems {
        /// The item's type.
        got: String,
    },
    /// `x.name = v` on a value without settable attributes.
    #[serde(rename = "attribute.cannot_set")]
    CannotSetAttribute {
        /// The attribute.
        name: String,
        /// The object's type.
        type_name: String,
    },
    /// Help: `np` without an import.
    #[serde(rename = "name.numpy_unavailable")]
    NoNumpyHere,
    /// An assignment target the interpreter cannot write.
    #[serde(rename = "runtime.cannot_assign")]
    CannotAssignExpression,
    /// A statement or expression left by a syntax error.
    #[serde(rename = "runtime.not_parsed")]
    NotParsed {
        /// `statement` or `expression`.
        what: String,
    },
    /// `break` escaping a function.
    #[serde(rename = "control.break_outside_loop")]
    BreakOutsideLoop,
    /// `return` at the top level.
    #[serde(rename = "control.outside_function")]
    OutsideFunction,
}

impl OperationMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use OperationMessage::*;
        match self {
            BadUnaryOperand { operator, type_name } => format!("bad operand type for unary {operator}: '{type_name}'"),
            NotIterable { type_name } => format!("'{type_name}' object is not iterable"),
            NotSubscriptable { type_name } => format!("'{type_name}' object is not subscriptable"),
            NoItemAssignment { type_name } => format!("'{type_name}' object does not support item assignment"),
            Unhashable { type_name } => format!("unhashable type: '{type_name}'"),
            UpdateSequence { length } => {
                format!("dictionary update sequence element has length {length}; 2 is required")
            }
            NotOrderable { operator, left, right } => format!("'{operator}' not supported between '{left}' and '{right}'"),
            CompareScalar => "compare a scalar: x.item() < 1.0, or use pypto.allclose".into(),
            RepeatSequence => "can only repeat a sequence".into(),
            InString { got } => format!("'in <string>' requires a string, not {got}"),
            SliceIndexType { got } => format!("slice indices must be integers, not {got}"),
            NeedsArgument { function } => format!("{function}() needs an argument"),
            UnsupportedArgument { function, type_name } => format!("{function}(): unsupported argument type '{type_name}'"),
            NoKeywords { function } => format!("{function}() takes no keyword arguments"),
            KeywordsMustBeStrings => "keywords must be strings".into(),
            DoubleStarNeedsDict { got } => format!("argument after ** must be a dict, not {got}"),
            LenOfScalar => "len() of a 0-d tensor".into(),
            FloatParse { text } => format!("could not convert string to float: {text}"),
            MathDomain { function } => format!("math.{function}: math domain error"),
            NanToInt => "ValueError: cannot convert float NaN to integer".into(),
            InfinityToInt => "OverflowError: cannot convert float infinity to integer".into(),
            FloatTooLarge { value } => format!("OverflowError: {value} does not fit in a 64-bit int"),
            IntegerOverflow => "integer overflow: the result does not fit in 64 bits".into(),
            NegativeShiftCount => "ValueError: negative shift count".into(),
            RangeTooLong => "OverflowError: the range has more than 2**63 - 1 items".into(),
            IterateRange => "len() and slicing need the length as a 64-bit int; iterating such a range works".into(),
            NegativeSize { function, size } => format!("{function}(): negative size {size} in a shape"),
            ShapeNotList { function, got } => format!("{function}(): a shape is a list of ints, not {got}"),
            ShapeItem { function, got } => format!("{function}(): a shape holds ints, not {got}"),
            CallDepth { limit } => format!("call depth exceeded: more than {limit} nested calls"),
            StackBudget { depth, kib } => format!("call depth exceeded: {depth} nested calls use more than the stack budget of {kib} KiB"),
            RecursionHelp => "look for a recursion without a base case, or raise the session's call depth or stack budget".into(),
            StepBudget { budget } => format!("step budget exceeded: the cell ran more than {budget} steps"),
            LargeOpsCost => "large ops cost steps in proportion to their size (tensor elements, multiply-adds, bytes of text): look for a loop that repeats work on large tensors or strings, or raise the session's step budget".into(),
            EndlessLoop => "look for a loop that never ends, or raise the session's step budget".into(),
            Timeout { seconds } => format!("timeout: the run took longer than its limit of {seconds} s"),
            GiveMoreTime => "the statement shown was running when time ran out; give more time with --timeout SECONDS (0: no limit)".into(),
            MemoryBudget { held, budget } => format!("MemoryError: the session's values take {held}, more than its memory budget of {budget}"),
            FreeValues => "free large values you no longer need (rebind them: `x = None`), or work on smaller tensors".into(),
            OutputLimit { limit } => format!("print: the cell's output exceeds the limit of {limit} bytes"),
            ListLimit { count, limit } => format!("a list of {count} items exceeds the limit of {limit} items"),
            StringLimit { bytes, limit } => format!("a string of {bytes} bytes exceeds the limit of {limit} bytes"),
            CannotUnpack { values, targets } => format!("cannot unpack {values} values into {targets} targets"),
            EmptySeparator => "empty separator".into(),
            NoMethod { type_name, name } => format!("'{type_name}' object has no method '{name}'"),
            StrNeedsString { method, got } => format!("str.{method}() needs a string, not {got}"),
            JoinItems { got } => format!("str.join(): expected str items, found {got}"),
            CannotSetAttribute { name, type_name } => format!("cannot set attribute '{name}' of a {type_name}"),
            NoNumpyHere => "numpy is not available; use the pypto module (or torch)".into(),
            CannotAssignExpression => "cannot assign to this expression".into(),
            NotParsed { what } => format!("this {what} could not be parsed"),
            BreakOutsideLoop => "'break' or 'continue' outside a loop".into(),
            OutsideFunction => "'return', 'break' or 'continue' outside of a function or loop".into(),
        }
    }
}

impl From<OperationMessage> for super::Message {
    fn from(message: OperationMessage) -> Self {
        super::Message::Runtime(super::RuntimeMessage::Operation(message))
    }
}
