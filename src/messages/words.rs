//! Words a message embeds that are themselves translated: what the parser found where it expected
//! something else, and which kind of value an argument needed. Each serialises as a nested
//! `{code, params}`, which the page renders from its tables before the sentence around it.

use serde::Serialize;

/// A token as the parser names it in a message ("found ')'", "found the end of the line").
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum Token {
    /// A token shown by its text or spelling (`'x'`, `')'`, `'for'`).
    #[serde(rename = "token.quoted")]
    Quoted {
        /// The text, without quotes.
        text: String,
    },
    /// A string literal, shortened (`the string "abc…`).
    #[serde(rename = "token.string")]
    StringLiteral {
        /// The literal's start.
        text: String,
    },
    /// The end of the line.
    #[serde(rename = "token.end_of_line")]
    EndOfLine,
    /// The end of the input.
    #[serde(rename = "token.end_of_input")]
    EndOfInput,
    /// An indent.
    #[serde(rename = "token.indent")]
    Indent,
    /// A dedent.
    #[serde(rename = "token.dedent")]
    Dedent,
}

impl Token {
    /// The token in English.
    pub fn english(&self) -> String {
        match self {
            Token::Quoted { text } => format!("'{text}'"),
            Token::StringLiteral { text } => format!("the string {text}"),
            Token::EndOfLine => "the end of the line".into(),
            Token::EndOfInput => "the end of the input".into(),
            Token::Indent => "an indent".into(),
            Token::Dedent => "a dedent".into(),
        }
    }
}

/// What kind of value an argument must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum Expected {
    /// A tensor.
    #[serde(rename = "expected.tensor")]
    Tensor,
    /// An int.
    #[serde(rename = "expected.int")]
    Int,
    /// A number.
    #[serde(rename = "expected.number")]
    Number,
    /// A bool.
    #[serde(rename = "expected.bool")]
    Bool,
    /// A pypto dtype.
    #[serde(rename = "expected.pypto_dtype")]
    PyptoDtype,
    /// An int or a list of ints.
    #[serde(rename = "expected.ints")]
    Ints,
}

impl Expected {
    /// The kind in English, with its article ("a tensor").
    pub fn english(self) -> &'static str {
        match self {
            Expected::Tensor => "a tensor",
            Expected::Int => "an int",
            Expected::Number => "a number",
            Expected::Bool => "a bool",
            Expected::PyptoDtype => "a pypto dtype (pypto.DT_FP32, DT_FP16, DT_BF16)",
            Expected::Ints => "an int or a list of ints",
        }
    }
}
