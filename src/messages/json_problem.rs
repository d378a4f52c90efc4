//! What the JSON parser met where it stopped reading a custom preset (`npu.config.not_json`).

use serde::Serialize;

use super::ConfigDetail;

/// What the JSON parser met where it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum JsonProblem {
    /// The text ends inside a value.
    End,
    /// A value was expected (a stray character, a missing value).
    ExpectedValue,
    /// A `:` was expected after a key.
    ExpectedColon,
    /// A `,` or a closing bracket was expected.
    ExpectedComma,
    /// A key that is not a string (keys are quoted).
    KeyNotString,
    /// A `,` before a closing bracket.
    TrailingComma,
    /// More text after the value.
    TrailingCharacters,
    /// A malformed or out-of-range number.
    InvalidNumber,
    /// A malformed escape or control character in a string.
    InvalidString,
    /// Anything else the parser refused (nesting too deep …).
    Other,
}

impl JsonProblem {
    /// The problem serde_json reports (its codes have no public enum: read from its message).
    pub fn of(error: &serde_json::Error) -> JsonProblem {
        let text = error.to_string();
        let starts = |prefix: &str| text.starts_with(prefix);
        match () {
            _ if error.is_eof() => JsonProblem::End,
            _ if starts("expected value") || starts("expected ident") => JsonProblem::ExpectedValue,
            _ if starts("expected `:`") => JsonProblem::ExpectedColon,
            _ if starts("expected `,`") => JsonProblem::ExpectedComma,
            _ if starts("key must be") => JsonProblem::KeyNotString,
            _ if starts("trailing comma") => JsonProblem::TrailingComma,
            _ if starts("trailing characters") => JsonProblem::TrailingCharacters,
            _ if starts("invalid number") || starts("number out of range") => JsonProblem::InvalidNumber,
            _ if starts("invalid")
                || starts("control character")
                || starts("lone leading")
                || starts("unexpected end") =>
            {
                JsonProblem::InvalidString
            }
            _ => JsonProblem::Other,
        }
    }

    /// The problem in English.
    pub fn english(self) -> &'static str {
        match self {
            JsonProblem::End => "the text ends too early",
            JsonProblem::ExpectedValue => "expected a value",
            JsonProblem::ExpectedColon => "expected `:` after a key",
            JsonProblem::ExpectedComma => "expected `,` or a closing bracket",
            JsonProblem::KeyNotString => "a key must be a quoted string",
            JsonProblem::TrailingComma => "a `,` before a closing bracket",
            JsonProblem::TrailingCharacters => "more text after the value",
            JsonProblem::InvalidNumber => "an invalid number",
            JsonProblem::InvalidString => "an invalid escape or control character in a string",
            JsonProblem::Other => "the parser stopped",
        }
    }
}

impl ConfigDetail {
    /// The detail of text serde_json could not parse.
    pub fn not_json(error: &serde_json::Error) -> ConfigDetail {
        ConfigDetail::NotJson { problem: JsonProblem::of(error), line: error.line(), column: error.column() }
    }
}
