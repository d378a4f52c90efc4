//! The parser's and lexer's messages: the syntax errors a beginner meets most (a missing ':',
//! brackets, indentation, strings, stray characters) with their help lines.

use serde::Serialize;

use super::grammar::GrammarMessage;
use super::literals::LiteralMessage;
use super::unsupported::UnsupportedMessage;
use super::words::Token;

/// A syntax diagnostic's message, help or note.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum SyntaxMessage {
    /// A block header without its ':' (`keyword` is `for`, `if`, `def`, `lambda` …).
    #[serde(rename = "syntax.expected_colon")]
    ExpectedColon {
        /// The header's keyword.
        keyword: String,
    },
    /// Help: '=' where '==' was meant.
    #[serde(rename = "syntax.compare_with_equals")]
    CompareWithEquals,
    /// A header's ':' with no indented body after it.
    #[serde(rename = "syntax.expected_indented_block")]
    ExpectedIndentedBlock {
        /// The header's keyword.
        keyword: String,
        /// The header's line.
        line: usize,
    },
    /// Help: how to write a body.
    #[serde(rename = "syntax.indent_the_body")]
    IndentTheBody,
    /// A missing expression, after a token's text (if any) and at what was found (if anything).
    #[serde(rename = "syntax.expected_expression")]
    ExpectedExpression {
        /// The text of the token before.
        after: Option<String>,
        /// What stands where the expression should.
        found: Option<Token>,
    },
    /// Help: a keyword used as a value.
    #[serde(rename = "syntax.keyword_not_a_value")]
    KeywordNotAValue {
        /// The keyword.
        keyword: String,
    },
    /// Items of a bracket not separated by commas.
    #[serde(rename = "syntax.expected_comma")]
    ExpectedComma {
        /// The closing bracket.
        closing: String,
        /// What the items are.
        item: BracketItem,
        /// What was found.
        found: Token,
    },
    /// Help: a forgotten comma.
    #[serde(rename = "syntax.forgot_comma")]
    ForgotComma,
    /// A token after a complete statement.
    #[serde(rename = "syntax.unexpected_after_statement")]
    UnexpectedAfterStatement {
        /// What was found.
        found: Token,
    },
    /// Help: `print x`.
    #[serde(rename = "syntax.print_is_a_function")]
    PrintIsAFunction,
    /// Help: a `match` statement.
    #[serde(rename = "syntax.match_unsupported")]
    MatchUnsupported,
    /// Help: '=' inside an expression.
    #[serde(rename = "syntax.equals_cannot_appear")]
    EqualsCannotAppear,
    /// Help: the usual causes of a token after a statement.
    #[serde(rename = "syntax.forgot_operator")]
    ForgotOperator,
    /// An indented line where no block starts.
    #[serde(rename = "syntax.unexpected_indent")]
    UnexpectedIndent,
    /// A dedent to a column no enclosing block uses.
    #[serde(rename = "syntax.inconsistent_dedent")]
    InconsistentDedent,
    /// Help of [`SyntaxMessage::InconsistentDedent`].
    #[serde(rename = "syntax.indent_like_block")]
    IndentLikeBlock,
    /// Tabs and spaces mixed.
    #[serde(rename = "syntax.mixed_tabs_and_spaces")]
    MixedTabsAndSpaces,
    /// Help of [`SyntaxMessage::MixedTabsAndSpaces`].
    #[serde(rename = "syntax.indent_with_spaces")]
    IndentWithSpaces,
    /// An opening bracket never closed.
    #[serde(rename = "syntax.unclosed_bracket")]
    UnclosedBracket {
        /// The bracket.
        bracket: String,
    },
    /// Help: the closing bracket to add.
    #[serde(rename = "syntax.add_closing_bracket")]
    AddClosingBracket {
        /// The closing bracket.
        closing: String,
    },
    /// A closing bracket of the wrong type.
    #[serde(rename = "syntax.mismatched_bracket")]
    MismatchedBracket {
        /// The closing bracket found.
        closing: String,
        /// The bracket it should close.
        opening: String,
    },
    /// Note: where a bracket was opened.
    #[serde(rename = "syntax.opened_here")]
    OpenedHere {
        /// The bracket.
        bracket: String,
    },
    /// A closing bracket with no opening one.
    #[serde(rename = "syntax.unmatched_closing_bracket")]
    UnmatchedClosingBracket {
        /// The bracket.
        bracket: String,
    },
    /// Help of [`SyntaxMessage::UnmatchedClosingBracket`].
    #[serde(rename = "syntax.remove_or_open")]
    RemoveOrOpen,
    /// A string without its closing quote.
    #[serde(rename = "syntax.unterminated_string")]
    UnterminatedString,
    /// A triple-quoted string without its closing quotes.
    #[serde(rename = "syntax.unterminated_triple_string")]
    UnterminatedTripleString,
    /// Help: close the string on its line.
    #[serde(rename = "syntax.close_string")]
    CloseString {
        /// The quote character.
        quote: String,
    },
    /// Help: close the triple-quoted string.
    #[serde(rename = "syntax.close_triple_string")]
    CloseTripleString {
        /// The quote character.
        quote: String,
    },
    /// Full-width punctuation typed with a Chinese input method.
    #[serde(rename = "syntax.full_width")]
    FullWidth {
        /// The character.
        character: String,
        /// Its code point, `FF0C`.
        code_point: String,
    },
    /// Help: the ASCII character to use.
    #[serde(rename = "syntax.use_ascii")]
    UseAscii {
        /// The ASCII character.
        ascii: String,
    },
    /// A printable character that starts no token.
    #[serde(rename = "syntax.invalid_character")]
    InvalidCharacter {
        /// The character.
        character: String,
        /// Its code point, `0024`.
        code_point: String,
    },
    /// A control or space character that starts no token.
    #[serde(rename = "syntax.invalid_invisible_character")]
    InvalidInvisibleCharacter {
        /// Its code point, `200B`.
        code_point: String,
    },
    /// Help: `!` is not Python's negation.
    #[serde(rename = "syntax.use_not")]
    UseNot,
    /// Help: `?` is not Python's conditional.
    #[serde(rename = "syntax.use_conditional")]
    UseConditional,
    /// Help: what a name may hold.
    #[serde(rename = "syntax.name_characters")]
    NameCharacters,
    /// A `return` outside a function.
    #[serde(rename = "syntax.return_outside_function")]
    ReturnOutsideFunction,
    /// Help: a cell's last expression is displayed.
    #[serde(rename = "syntax.last_expression_displayed")]
    LastExpressionDisplayed,
    /// `f(x + 1=2)`.
    #[serde(rename = "syntax.keyword_needs_name")]
    KeywordNeedsName,
    /// Help of [`SyntaxMessage::KeywordNeedsName`].
    #[serde(rename = "syntax.write_name_value")]
    WriteNameValue,
    /// `f(a=1, 2)`.
    #[serde(rename = "syntax.positional_after_keyword")]
    PositionalAfterKeyword,
    /// Help of [`SyntaxMessage::PositionalAfterKeyword`].
    #[serde(rename = "syntax.positional_first")]
    PositionalFirst,
    /// Help: how a lambda reads.
    #[serde(rename = "syntax.lambda_reads")]
    LambdaReads,
    /// `else if` instead of `elif`.
    #[serde(rename = "syntax.else_if")]
    ElseIf,
    /// Help of [`SyntaxMessage::ElseIf`].
    #[serde(rename = "syntax.use_elif")]
    UseElif,
    /// The grammar's other checks (missing tokens and names, parameters, targets).
    #[serde(untagged)]
    Grammar(GrammarMessage),
    /// Literals: f-strings, escapes, numbers, line continuations.
    #[serde(untagged)]
    Literal(LiteralMessage),
    /// A construct outside the subset (also raised at run time), or what to use instead.
    #[serde(untagged)]
    Unsupported(UnsupportedMessage),
}

/// What the items between brackets are, for [`SyntaxMessage::ExpectedComma`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum BracketItem {
    /// A tuple's or parenthesised item.
    #[serde(rename = "item.item")]
    Item,
    /// A list item.
    #[serde(rename = "item.list_item")]
    ListItem,
    /// A dict entry.
    #[serde(rename = "item.dictionary_entry")]
    DictionaryEntry,
    /// A call argument.
    #[serde(rename = "item.argument")]
    Argument,
    /// A subscript index.
    #[serde(rename = "item.index")]
    Index,
}

impl BracketItem {
    fn english(self) -> &'static str {
        match self {
            BracketItem::Item => "item",
            BracketItem::ListItem => "list item",
            BracketItem::DictionaryEntry => "dictionary entry",
            BracketItem::Argument => "argument",
            BracketItem::Index => "index",
        }
    }
}

/// The header a ':' follows, as the English messages name it.
fn header_of(keyword: &str) -> String {
    match keyword {
        "if" | "elif" | "while" => format!("the {keyword} condition"),
        "for" | "with" => format!("the {keyword} header"),
        "class" => "the class header".into(),
        "def" => "the function signature".into(),
        "except" => "the except clause".into(),
        "lambda" => "the lambda's parameters".into(),
        other => format!("'{other}'"),
    }
}

/// The block a body belongs to, as the English messages name it.
fn block_of(keyword: &str) -> String {
    match keyword {
        "else" | "finally" => format!("'{keyword}'"),
        "except" => "the 'except' clause".into(),
        other => format!("the '{other}' statement"),
    }
}

impl SyntaxMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use SyntaxMessage::*;
        match self {
            ExpectedColon { keyword } => format!("expected ':' after {}", header_of(keyword)),
            CompareWithEquals => "to compare, use '=='".into(),
            ExpectedIndentedBlock { keyword, line } => {
                format!("expected an indented block after {} on line {line}", block_of(keyword))
            }
            IndentTheBody => "indent the body by 4 spaces, or write `pass` for an empty body".into(),
            ExpectedExpression { after, found } => {
                let after = after.as_ref().map(|text| format!(" after '{text}'")).unwrap_or_default();
                let found = found.as_ref().map(|token| format!(", found {}", token.english())).unwrap_or_default();
                format!("expected an expression{after}{found}")
            }
            KeywordNotAValue { keyword } => format!("'{keyword}' is a keyword and cannot be used as a value"),
            ExpectedComma { closing, item, found } => {
                format!("expected ',' or '{closing}' after the {}, found {}", item.english(), found.english())
            }
            ForgotComma => "did you forget a comma?".into(),
            UnexpectedAfterStatement { found } => {
                format!("unexpected {} after the end of the statement", found.english())
            }
            PrintIsAFunction => "print is a function: write print(...)".into(),
            MatchUnsupported => "`match` statements are not supported in tile scripts; use if/elif".into(),
            EqualsCannotAppear => "'=' cannot appear here; to compare, use '=='".into(),
            ForgotOperator => "did you forget an operator, a comma, or to start a new line?".into(),
            UnexpectedIndent => "unexpected indent".into(),
            InconsistentDedent => "this line's indentation does not match any outer block".into(),
            IndentLikeBlock => "indent it exactly as far as the line that starts the block it belongs to".into(),
            MixedTabsAndSpaces => "inconsistent use of tabs and spaces in indentation".into(),
            IndentWithSpaces => "indent with spaces only (4 per level)".into(),
            UnclosedBracket { bracket } => format!("unclosed '{bracket}' opened here"),
            AddClosingBracket { closing } => format!("add the matching '{closing}'"),
            MismatchedBracket { closing, opening } => {
                format!("closing '{closing}' does not match the '{opening}' it should close")
            }
            OpenedHere { bracket } => format!("'{bracket}' opened here"),
            UnmatchedClosingBracket { bracket } => format!("unmatched '{bracket}'"),
            RemoveOrOpen => "remove it, or add the opening bracket it should close".into(),
            UnterminatedTripleString => "unterminated triple-quoted string".into(),
            UnterminatedString => "unterminated string".into(),
            CloseTripleString { quote } => format!("close it with {quote}{quote}{quote}"),
            CloseString { quote } => format!("close it with {quote} before the end of the line"),
            FullWidth { character, code_point } => {
                format!("full-width '{character}' (U+{code_point}) is not valid here")
            }
            UseAscii { ascii } => format!("use the ASCII '{ascii}' (switch the input method to half-width)"),
            InvalidCharacter { character, code_point } => format!("invalid character '{character}' (U+{code_point})"),
            InvalidInvisibleCharacter { code_point } => format!("invalid character U+{code_point}"),
            UseNot => "use `not` for logical negation, or '!=' for 'not equal'".into(),
            UseConditional => "for a conditional expression write `a if condition else b`".into(),
            NameCharacters => "names may contain only letters, digits and '_'".into(),
            ReturnOutsideFunction => "'return' outside a function".into(),
            LastExpressionDisplayed => {
                "the last expression of a cell is displayed; write the value on its own line".into()
            }
            KeywordNeedsName => "a keyword argument needs a plain name before '='".into(),
            WriteNameValue => "write `name=value`, or '==' to compare".into(),
            PositionalAfterKeyword => "a positional argument cannot follow keyword arguments".into(),
            PositionalFirst => "put positional arguments first".into(),
            LambdaReads => "a lambda reads `lambda x, y: x + y`".into(),
            ElseIf => "`else if` is written `elif` in Python".into(),
            UseElif => "replace `else if` with `elif`".into(),
            Grammar(message) => message.english(),
            Literal(message) => message.english(),
            Unsupported(message) => message.english(),
        }
    }
}

impl From<SyntaxMessage> for super::Message {
    fn from(message: SyntaxMessage) -> Self {
        super::Message::Syntax(message)
    }
}
