//! The lexer's and parser's messages about literals: f-strings, escapes in strings, number
//! literals and line continuations.

use serde::Serialize;

use super::words::Token;

/// A message about a literal, or its help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LiteralMessage {
    /// f-strings inside f-strings past the limit.
    #[serde(rename = "syntax.f_string_nested_too_deeply")]
    FStringNestedTooDeeply,
    /// A single `}` in an f-string.
    #[serde(rename = "syntax.f_string_single_brace")]
    FStringSingleBrace,
    /// Help: `}}` for a literal brace.
    #[serde(rename = "syntax.double_the_brace")]
    DoubleTheBrace,
    /// An f-string field never closed.
    #[serde(rename = "syntax.f_string_unclosed_field")]
    FStringUnclosedField,
    /// Help of [`LiteralMessage::FStringUnclosedField`].
    #[serde(rename = "syntax.close_the_field")]
    CloseTheField,
    /// `f'{}'`.
    #[serde(rename = "syntax.f_string_empty_field")]
    FStringEmptyField,
    /// `f'{x!q}'`.
    #[serde(rename = "syntax.f_string_conversion")]
    FStringConversion,
    /// `f'{x y}'`.
    #[serde(rename = "syntax.f_string_unexpected")]
    FStringUnexpected {
        /// What was found.
        found: Token,
    },
    /// `'\x4'`.
    #[serde(rename = "syntax.hex_escape")]
    HexEscape {
        /// The escape's letter (`x`, `u`, `U`).
        escape: String,
        /// The digits it needs.
        count: usize,
    },
    /// `'\q'` (a warning).
    #[serde(rename = "syntax.invalid_escape")]
    InvalidEscape {
        /// The escaped character.
        escape: String,
    },
    /// Help of [`LiteralMessage::InvalidEscape`].
    #[serde(rename = "syntax.escape_backslash")]
    EscapeBackslash,
    /// A number literal that is not one.
    #[serde(rename = "syntax.invalid_number")]
    InvalidNumber {
        /// The literal.
        text: String,
        /// `hexadecimal`, `octal`, `binary`, `decimal`, `float` or `number` (a word the page translates).
        kind: String,
    },
    /// An integer past 64 bits.
    #[serde(rename = "syntax.integer_too_large")]
    IntegerTooLarge {
        /// The literal.
        text: String,
        /// `i64::MAX`.
        limit: i64,
    },
    /// Help: a name cannot start with a digit.
    #[serde(rename = "syntax.name_starts_with_digit")]
    NameStartsWithDigit,
    /// `012`.
    #[serde(rename = "syntax.leading_zeros")]
    LeadingZeros {
        /// The literal.
        text: String,
    },
    /// Help of [`LiteralMessage::LeadingZeros`].
    #[serde(rename = "syntax.write_without_zeros")]
    WriteWithoutZeros {
        /// The digits without the zeros.
        digits: String,
    },
    /// `1__0`.
    #[serde(rename = "syntax.invalid_underscore")]
    InvalidUnderscore {
        /// The literal.
        text: String,
    },
    /// Help of [`LiteralMessage::InvalidUnderscore`].
    #[serde(rename = "syntax.underscores_separate_digits")]
    UnderscoresSeparateDigits,
    /// A `\` at the very end of the input.
    #[serde(rename = "syntax.continuation_at_end")]
    ContinuationAtEnd,
    /// A `\` followed by more on its line.
    #[serde(rename = "syntax.character_after_continuation")]
    CharacterAfterContinuation,
    /// Help of [`LiteralMessage::CharacterAfterContinuation`].
    #[serde(rename = "syntax.continuation_last")]
    ContinuationLast,
}

impl LiteralMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LiteralMessage::*;
        match self {
            FStringNestedTooDeeply => "f-strings are nested too deeply".into(),
            FStringSingleBrace => "single '}' is not allowed in an f-string".into(),
            DoubleTheBrace => "write '}}' for a literal brace".into(),
            FStringUnclosedField => "unclosed '{' in the f-string".into(),
            CloseTheField => {
                "close the field with '}', or write '{{' for a literal brace; inside a field, use the other kind of quote"
                    .into()
            }
            FStringEmptyField => "empty expression in an f-string field".into(),
            FStringConversion => "an f-string conversion must be '!r', '!s' or '!a'".into(),
            FStringUnexpected { found } => format!("unexpected {} in the f-string field", found.english()),
            HexEscape { escape, count } => {
                format!("invalid '\\{escape}' escape: it needs exactly {count} hexadecimal digits of a valid character")
            }
            InvalidEscape { escape } => format!("invalid escape sequence '\\{escape}'"),
            EscapeBackslash => "write '\\\\' for a backslash, or use a raw string r\"...\"".into(),
            InvalidNumber { text, kind } => format!("invalid {kind} literal '{text}'"),
            IntegerTooLarge { text, limit } => format!("integer literal '{text}' is too large (the limit is {limit})"),
            NameStartsWithDigit => "a name cannot start with a digit".into(),
            LeadingZeros { text } => format!("leading zeros are not allowed in the decimal literal '{text}'"),
            WriteWithoutZeros { digits } => format!("write {digits} (or 0o{digits} for octal)"),
            InvalidUnderscore { text } => format!("invalid underscore in the number literal '{text}'"),
            UnderscoresSeparateDigits => "underscores may only separate digits, as in 1_000_000".into(),
            ContinuationAtEnd => "a line continuation '\\' must be followed by another line".into(),
            CharacterAfterContinuation => "unexpected character after the line continuation '\\'".into(),
            ContinuationLast => "'\\' continues a line only when it is the last character on the line".into(),
        }
    }
}

impl From<LiteralMessage> for super::Message {
    fn from(message: LiteralMessage) -> Self {
        super::Message::Syntax(super::SyntaxMessage::Literal(message))
    }
}
