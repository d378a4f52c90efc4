//! The parser's other messages: a token or name missing after a construct, parameter lists,
//! misplaced keywords and clauses, assignment targets.

use serde::Serialize;

use super::words::Token;

/// What name the parser expected (`expected a parameter name, found '1'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum NameSlot {
    /// After `as`.
    #[serde(rename = "slot.after_as")]
    AfterAs,
    /// After `.` (an attribute).
    #[serde(rename = "slot.attribute")]
    Attribute,
    /// After `.` in a dotted module path.
    #[serde(rename = "slot.after_dot")]
    AfterDot,
    /// After `class`.
    #[serde(rename = "slot.class_name")]
    ClassName,
    /// After `def`.
    #[serde(rename = "slot.function_name")]
    FunctionName,
    /// After `global` or `nonlocal`.
    #[serde(rename = "slot.declared")]
    Declared,
    /// In a parameter list.
    #[serde(rename = "slot.parameter")]
    Parameter,
    /// After `import`.
    #[serde(rename = "slot.module_after_import")]
    ModuleAfterImport,
    /// After `from`.
    #[serde(rename = "slot.module_after_from")]
    ModuleAfterFrom,
    /// In `from m import …`.
    #[serde(rename = "slot.imported_name")]
    ImportedName,
}

impl NameSlot {
    fn english(self) -> &'static str {
        use NameSlot::*;
        match self {
            AfterAs => "a name after 'as'",
            Attribute => "an attribute name after '.'",
            AfterDot => "a name after '.'",
            ClassName => "a class name after 'class'",
            FunctionName => "a function name after 'def'",
            Declared => "a name after 'global' or 'nonlocal'",
            Parameter => "a parameter name",
            ModuleAfterImport => "a module name after 'import'",
            ModuleAfterFrom => "a module name after 'from'",
            ImportedName => "a name to import",
        }
    }
}

/// A syntax message of the parser's grammar checks.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum GrammarMessage {
    /// A name expected and something else found.
    #[serde(rename = "syntax.expected_name")]
    ExpectedName {
        /// Which name.
        slot: NameSlot,
        /// What was found.
        found: Token,
    },
    /// Help: a keyword where a name should be.
    #[serde(rename = "syntax.keyword_not_a_name")]
    KeywordNotAName {
        /// The keyword.
        keyword: String,
    },
    /// A token missing after a construct (`expected 'in' after the for target`).
    #[serde(rename = "syntax.expected_after")]
    ExpectedAfter {
        /// The token expected.
        expected: Token,
        /// After what.
        after: After,
        /// What was found, when the message names it.
        found: Option<Token>,
    },
    /// A list without its separator or closing bracket (`expected ',' or ')' after a base class`).
    #[serde(rename = "syntax.expected_comma_or")]
    ExpectedCommaOr {
        /// The closing bracket.
        closing: String,
        /// After what.
        after: After,
        /// What was found.
        found: Token,
    },
    /// `x[]`.
    #[serde(rename = "syntax.expected_index")]
    ExpectedIndex,
    /// `a if b` without `else`.
    #[serde(rename = "syntax.expected_else")]
    ExpectedElse,
    /// Help: how a conditional expression reads.
    #[serde(rename = "syntax.conditional_reads")]
    ConditionalReads,
    /// `try:` without `except`/`finally`.
    #[serde(rename = "syntax.try_without_handler")]
    TryWithoutHandler,
    /// Help: add an `except` clause.
    #[serde(rename = "syntax.add_except")]
    AddExcept,
    /// `elif`, `else`, `except`, `finally` with no statement to belong to.
    #[serde(rename = "syntax.clause_without_statement")]
    ClauseWithoutStatement {
        /// The clause's keyword (`else`).
        keyword: String,
        /// The statement it needs (`if`).
        statement: String,
    },
    /// Help: check the indentation against the statement above.
    #[serde(rename = "syntax.check_indentation")]
    CheckIndentation {
        /// The statement (`if`, `try`).
        statement: String,
    },
    /// `x = 1; if …` — a compound statement after another on one line.
    #[serde(rename = "syntax.own_line")]
    OwnLine {
        /// Its keyword.
        keyword: String,
    },
    /// `break`/`continue` outside a loop.
    #[serde(rename = "syntax.outside_loop")]
    OutsideLoop {
        /// The keyword.
        keyword: String,
    },
    /// `f(a=1, a=2)`.
    #[serde(rename = "syntax.keyword_repeated")]
    KeywordRepeated {
        /// The keyword.
        name: String,
    },
    /// A starred expression outside call arguments.
    #[serde(rename = "syntax.starred_outside_call")]
    StarredOutsideCall,
    /// Help of [`GrammarMessage::StarredOutsideCall`].
    #[serde(rename = "syntax.unpack_fixed")]
    UnpackFixed,
    /// Something that cannot be assigned to (`what` is a word: `call`, `literal` …).
    #[serde(rename = "syntax.cannot_assign")]
    CannotAssign {
        /// What it is.
        what: Assignee,
    },
    /// Help: write into a tensor in place.
    #[serde(rename = "syntax.write_in_place")]
    WriteInPlace,
    /// Help: compare or assign.
    #[serde(rename = "syntax.compare_or_assign")]
    CompareOrAssign,
    /// Help: what an assignment's left side may be.
    #[serde(rename = "syntax.assignable")]
    Assignable,
    /// A comprehension beside other items.
    #[serde(rename = "syntax.comprehension_alone")]
    ComprehensionAlone,
    /// Help of [`GrammarMessage::ComprehensionAlone`].
    #[serde(rename = "syntax.write_comprehension_alone")]
    WriteComprehensionAlone,
    /// A decorator above something other than `def` or `class`.
    #[serde(rename = "syntax.decorator_target")]
    DecoratorTarget,
    /// `def f(*, *)`.
    #[serde(rename = "syntax.one_star")]
    OneStar,
    /// `def f(**kwargs, a)`.
    #[serde(rename = "syntax.after_kwargs")]
    AfterKwargs,
    /// `def f(a=1, b)`.
    #[serde(rename = "syntax.default_order")]
    DefaultOrder {
        /// The parameter without a default.
        name: String,
    },
    /// `def f(a, a)`.
    #[serde(rename = "syntax.duplicate_parameter")]
    DuplicateParameter {
        /// The parameter.
        name: String,
    },
    /// Nesting deeper than the parser's limit.
    #[serde(rename = "syntax.nested_too_deeply")]
    NestedTooDeeply {
        /// The limit.
        limit: usize,
    },
}

/// The construct a missing token should follow, for [`GrammarMessage::ExpectedAfter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum After {
    /// `class C(A B)`.
    #[serde(rename = "after.base_class")]
    BaseClass,
    /// `[x for x in y z]`.
    #[serde(rename = "after.comprehension")]
    Comprehension,
    /// `[x for x y]`.
    #[serde(rename = "after.comprehension_target")]
    ComprehensionTarget,
    /// `{a b}`.
    #[serde(rename = "after.dictionary_key")]
    DictionaryKey,
    /// `from m x`.
    #[serde(rename = "after.module_name")]
    ModuleName,
    /// `from m import (a, b`.
    #[serde(rename = "after.imported_names")]
    ImportedNames,
    /// `for x y:`.
    #[serde(rename = "after.for_target")]
    ForTarget,
    /// `@d x`.
    #[serde(rename = "after.decorator")]
    Decorator,
    /// `def f:`.
    #[serde(rename = "after.function_name")]
    FunctionName,
    /// `def f(a b)`.
    #[serde(rename = "after.parameter")]
    Parameter,
}

impl After {
    fn english(self) -> &'static str {
        use After::*;
        match self {
            BaseClass => "after a base class",
            Comprehension => "after the comprehension",
            ComprehensionTarget => "after the comprehension's target",
            DictionaryKey => "after the dictionary key",
            ModuleName => "after the module name",
            ImportedNames => "after the imported names",
            ForTarget => "after the for target",
            Decorator => "after the decorator",
            FunctionName => "after the function name",
            Parameter => "in the parameter list",
        }
    }
}

/// What an invalid assignment target is, for [`GrammarMessage::CannotAssign`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum Assignee {
    /// `a, b += 1`: one target only.
    #[serde(rename = "assignee.tuple_or_list")]
    TupleOrList,
    /// `f() = 1`.
    #[serde(rename = "assignee.call")]
    Call,
    /// `1 = x`.
    #[serde(rename = "assignee.literal")]
    Literal,
    /// `{} = x`.
    #[serde(rename = "assignee.dict")]
    Dict,
    /// `{a} = x`.
    #[serde(rename = "assignee.set")]
    Set,
    /// `a < b = 1`.
    #[serde(rename = "assignee.comparison")]
    Comparison,
    /// `a if b else c = 1`.
    #[serde(rename = "assignee.conditional")]
    Conditional,
    /// `[x for x in y] = 1`.
    #[serde(rename = "assignee.comprehension")]
    Comprehension,
    /// `lambda: 0 = 1`.
    #[serde(rename = "assignee.lambda")]
    Lambda,
    /// A slice outside brackets.
    #[serde(rename = "assignee.slice")]
    Slice,
    /// `a + b = 1`.
    #[serde(rename = "assignee.expression")]
    Expression,
}

impl Assignee {
    fn english(self) -> &'static str {
        use Assignee::*;
        match self {
            TupleOrList => "a tuple or list here (only one name, attribute or subscript)",
            Call => "a function call",
            Literal => "a literal",
            Dict => "a dict display",
            Set => "a set display",
            Comparison => "a comparison",
            Conditional => "a conditional expression",
            Comprehension => "a comprehension",
            Lambda => "a lambda",
            Slice => "a slice",
            Expression => "an expression",
        }
    }
}

impl GrammarMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use GrammarMessage::*;
        match self {
            ExpectedName { slot, found } => format!("expected {}, found {}", slot.english(), found.english()),
            KeywordNotAName { keyword } => format!("'{keyword}' is a keyword and cannot be used as a name"),
            ExpectedAfter { expected, after, found } => {
                let found = found.as_ref().map(|token| format!(", found {}", token.english())).unwrap_or_default();
                format!("expected {} {}{found}", expected.english(), after.english())
            }
            ExpectedCommaOr { closing, after, found } => {
                format!("expected ',' or '{closing}' {}, found {}", after.english(), found.english())
            }
            ExpectedIndex => "expected an index inside '[]'".into(),
            ExpectedElse => "expected 'else' in the conditional expression".into(),
            ConditionalReads => "a conditional expression reads `value if condition else other`".into(),
            TryWithoutHandler => "expected 'except' or 'finally' after the 'try' block".into(),
            AddExcept => "add `except ValueError:` (or another exception type) with a handler".into(),
            ClauseWithoutStatement { keyword, statement } => {
                if keyword == "except" || keyword == "finally" {
                    format!("'except' or 'finally' without a matching '{statement}'")
                } else {
                    format!("'{keyword}' without a matching '{statement}'")
                }
            }
            CheckIndentation { statement } => format!("check the indentation of this line and the `{statement}` above"),
            OwnLine { keyword } => format!("'{keyword}' must start on its own line"),
            OutsideLoop { keyword } => format!("'{keyword}' outside a loop"),
            KeywordRepeated { name } => format!("keyword argument '{name}' repeated"),
            StarredOutsideCall => "starred expressions are only supported in call arguments, like `f(*args)`".into(),
            UnpackFixed => "unpack into a fixed number of names, or index the sequence".into(),
            CannotAssign { what } => format!("cannot assign to {}", what.english()),
            WriteInPlace => "to write into a tensor in place, use `out[:] = value`".into(),
            CompareOrAssign => "to compare, use '=='; to assign, put the name alone on the left".into(),
            Assignable => "the left side must be a name, `obj.attribute`, `x[index]`, or a tuple of these".into(),
            ComprehensionAlone => "a comprehension must be alone in its brackets".into(),
            WriteComprehensionAlone => {
                "write [x for x in items], {k: v for k in items} or f(x for x in items), alone".into()
            }
            DecoratorTarget => "decorators can only be applied to `def` functions and classes in tile scripts".into(),
            OneStar => "only one '*' is allowed in a parameter list".into(),
            AfterKwargs => "no parameter may follow '**kwargs'".into(),
            DefaultOrder { name } => format!("parameter '{name}' without a default follows a parameter with a default"),
            DuplicateParameter { name } => format!("duplicate parameter '{name}'"),
            NestedTooDeeply { limit } => {
                format!("this is nested too deeply (more than {limit} levels of brackets, blocks or operators)")
            }
        }
    }
}

impl From<GrammarMessage> for super::Message {
    fn from(message: GrammarMessage) -> Self {
        super::Message::Syntax(super::SyntaxMessage::Grammar(message))
    }
}
