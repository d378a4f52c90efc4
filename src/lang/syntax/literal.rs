//! Number literals: validation (for the lexer) and conversion (for the parser).

use crate::messages::{Construct, LiteralMessage, Message, UnsupportedMessage};

/// The value of a number literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumberValue {
    /// An integer literal (tile scripts use 64-bit integers).
    Int(i64),
    /// A float literal.
    Float(f64),
}

/// An invalid literal's message and the help line to show with it.
pub type LiteralError = Box<(Message, Option<Message>)>;

/// Check and convert the number literal `text`; the error is a message for the user and the
/// help line to show with it.
pub fn parse_number(text: &str) -> Result<NumberValue, LiteralError> {
    let lower = text.to_ascii_lowercase();
    if lower.ends_with('j') && !lower.starts_with("0x") {
        return Err(Box::new((UnsupportedMessage::NotSupported { construct: Construct::ComplexLiteral }.into(), None)));
    }
    let radix_part = lower.get(..2).and_then(|prefix| match prefix {
        "0x" => Some((16, "hexadecimal")),
        "0o" => Some((8, "octal")),
        "0b" => Some((2, "binary")),
        _ => None,
    });
    if let Some((radix, name)) = radix_part {
        let digits = &lower[2..];
        let digits = digits.strip_prefix('_').unwrap_or(digits);
        if digits.is_empty() || !digits.chars().all(|c| c == '_' || c.is_digit(radix)) {
            return Err(Box::new((invalid(text, name), None)));
        }
        check_underscores(digits, text)?;
        let clean: String = digits.chars().filter(|&c| c != '_').collect();
        return i64::from_str_radix(&clean, radix).map(NumberValue::Int).map_err(|_| Box::new((too_large(text), None)));
    }
    let valid_chars = lower.chars().all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | 'e' | '+' | '-'));
    if !valid_chars {
        return Err(Box::new((invalid(text, "decimal"), Some(LiteralMessage::NameStartsWithDigit.into()))));
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (lower.as_str(), None),
    };
    let exponent_ok = exponent.is_none_or(|exponent| {
        let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    });
    let mantissa_ok = mantissa.matches('.').count() <= 1
        && !mantissa.contains(['+', '-'])
        && mantissa.chars().any(|c| c.is_ascii_digit());
    if !exponent_ok || !mantissa_ok {
        return Err(Box::new((invalid(text, "number"), None)));
    }
    for part in mantissa.split('.').chain(exponent.map(|e| e.trim_start_matches(['+', '-']))) {
        check_underscores(part, text)?;
    }
    let clean: String = lower.chars().filter(|&c| c != '_').collect();
    if exponent.is_some() || mantissa.contains('.') {
        return clean.parse::<f64>().map(NumberValue::Float).map_err(|_| Box::new((invalid(text, "float"), None)));
    }
    if clean.len() > 1 && clean.starts_with('0') && clean.chars().any(|c| c != '0') {
        let digits = clean.trim_start_matches('0').to_string();
        return Err(Box::new((
            LiteralMessage::LeadingZeros { text: text.into() }.into(),
            Some(LiteralMessage::WriteWithoutZeros { digits }.into()),
        )));
    }
    clean.parse::<i64>().map(NumberValue::Int).map_err(|_| Box::new((too_large(text), None)))
}

fn invalid(text: &str, kind: &str) -> Message {
    LiteralMessage::InvalidNumber { text: text.into(), kind: kind.into() }.into()
}

fn too_large(text: &str) -> Message {
    LiteralMessage::IntegerTooLarge { text: text.into(), limit: i64::MAX }.into()
}

/// Underscores may only sit between two digits.
fn check_underscores(digits: &str, text: &str) -> Result<(), LiteralError> {
    if digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return Err(Box::new((
            LiteralMessage::InvalidUnderscore { text: text.into() }.into(),
            Some(LiteralMessage::UnderscoresSeparateDigits.into()),
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> NumberValue {
        parse_number(text).unwrap_or_else(|error| panic!("{text}: {}", error.0))
    }

    #[test]
    fn accepts_python_number_forms() {
        assert_eq!(value("0"), NumberValue::Int(0));
        assert_eq!(value("000"), NumberValue::Int(0));
        assert_eq!(value("1_000_000"), NumberValue::Int(1_000_000));
        assert_eq!(value("0x_FF"), NumberValue::Int(255));
        assert_eq!(value("0o17"), NumberValue::Int(15));
        assert_eq!(value("0b1010"), NumberValue::Int(10));
        assert_eq!(value("1e-5"), NumberValue::Float(1e-5));
        assert_eq!(value("1."), NumberValue::Float(1.0));
        assert_eq!(value(".5"), NumberValue::Float(0.5));
        assert_eq!(value("3.25E+2"), NumberValue::Float(325.0));
        assert_eq!(value("1_0.0_1"), NumberValue::Float(10.01));
    }

    #[test]
    fn rejects_malformed_numbers_with_a_reason() {
        for (text, fragment) in [
            ("0x", "invalid hexadecimal"),
            ("0b102", "invalid binary"),
            ("1__0", "invalid underscore"),
            ("1_", "invalid underscore"),
            ("012", "leading zeros"),
            ("1abc", "invalid decimal"),
            ("2j", "complex"),
            ("1e", "invalid number"),
            ("99999999999999999999", "too large"),
        ] {
            let (message, _) = *parse_number(text).expect_err(text);
            assert!(message.english().contains(fragment), "{text}: {message}");
        }
    }
}
