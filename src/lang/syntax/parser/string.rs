//! String literals: prefixes (`r`, `u`, `f`; `b` is rejected), escapes, and implicit
//! concatenation; f-string bodies are handed to `fstring`.

use super::Parser;
use crate::lang::syntax::ast::{Expr, ExprKind, FStringPart};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{Construct, LiteralMessage, UnsupportedMessage};

/// The parts of one literal token: prefix flags and the body's absolute byte range.
pub(super) struct Literal {
    pub(super) raw: bool,
    formatted: bool,
    bytes: bool,
    pub(super) body: Span,
}

fn split_literal(text: &str, start: usize) -> Literal {
    let prefix_length = text.find(['"', '\'']).unwrap_or(0);
    let prefix = text[..prefix_length].to_ascii_lowercase();
    let rest = &text[prefix_length..];
    let quote = rest.chars().next().unwrap_or('"');
    let triple_quote = quote.to_string().repeat(3);
    let quote_length = if rest.starts_with(&triple_quote) { 3 } else { 1 };
    let body_start = (prefix_length + quote_length).min(text.len());
    let closing = &triple_quote[..quote_length];
    let terminated = text.len() >= body_start + quote_length && text[body_start..].ends_with(closing);
    let body_end = if terminated { text.len() - quote_length } else { text.len() };
    Literal {
        raw: prefix.contains('r'),
        formatted: prefix.contains('f'),
        bytes: prefix.contains('b'),
        body: Span::new(start + body_start, start + body_end),
    }
}

impl Parser<'_> {
    /// One or more adjacent string tokens, joined as Python joins `"a" "b"`.
    pub(super) fn strings(&mut self) -> Expr {
        let first_span = self.current().span;
        let mut parts: Vec<FStringPart> = Vec::new();
        let mut any_formatted = false;
        while matches!(self.kind(), TokenKind::String | TokenKind::UnterminatedString) {
            let token = self.bump();
            let literal = split_literal(self.text(token.span), token.span.start);
            if literal.bytes {
                let help = UnsupportedMessage::RemovePrefix { prefix: "b".into() };
                self.unsupported(Construct::BytesLiteral, token.span, Some(help));
            }
            if literal.formatted {
                any_formatted = true;
                self.formatted_parts(&literal, &mut parts);
            } else {
                let text = self.decode(literal.body, literal.raw);
                push_literal(&mut parts, text);
            }
        }
        let span = first_span.cover(self.previous().span);
        if any_formatted {
            return Expr::new(ExprKind::FString(parts), span);
        }
        let text = parts
            .into_iter()
            .map(|part| match part {
                FStringPart::Literal(text) => text,
                FStringPart::Field { .. } => String::new(),
            })
            .collect();
        Expr::new(ExprKind::Str(text), span)
    }

    /// Decode escapes in `source[span]` (unless `raw`); unknown escapes are kept and warned about.
    pub(super) fn decode(&mut self, span: Span, raw: bool) -> String {
        let text = self.text(span);
        if raw {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut characters = text.char_indices().peekable();
        while let Some((offset, character)) = characters.next() {
            if character != '\\' {
                out.push(character);
                continue;
            }
            let Some((_, escape)) = characters.next() else {
                out.push('\\');
                break;
            };
            let simple = match escape {
                '\n' => Some(None),
                '\r' => {
                    characters.next_if(|&(_, c)| c == '\n');
                    Some(None)
                }
                '\\' => Some(Some('\\')),
                '\'' => Some(Some('\'')),
                '"' => Some(Some('"')),
                'n' => Some(Some('\n')),
                't' => Some(Some('\t')),
                'r' => Some(Some('\r')),
                'a' => Some(Some('\x07')),
                'b' => Some(Some('\x08')),
                'f' => Some(Some('\x0c')),
                'v' => Some(Some('\x0b')),
                _ => None,
            };
            if let Some(decoded) = simple {
                out.extend(decoded);
                continue;
            }
            let escape_start = span.start + offset;
            let (digits, radix, count) = match escape {
                'x' => (2, 16, 2),
                'u' => (4, 16, 4),
                'U' => (8, 16, 8),
                '0'..='7' => (3, 8, 2),
                _ => (0, 0, 0),
            };
            if radix == 16 {
                let hex: String = (0..digits)
                    .map_while(|_| characters.next_if(|(_, c)| c.is_ascii_hexdigit()).map(|(_, c)| c))
                    .collect();
                let end = span.start + offset + 2 + hex.len();
                match (hex.len() == count)
                    .then(|| u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32))
                    .flatten()
                {
                    Some(decoded) => out.push(decoded),
                    None => self.coded(
                        SyntaxErrorKind::InvalidEscape,
                        LiteralMessage::HexEscape { escape: escape.to_string(), count },
                        Span::new(escape_start, end),
                    ),
                }
                continue;
            }
            if radix == 8 {
                let mut value = escape.to_digit(8).unwrap_or(0);
                for _ in 0..count {
                    match characters.next_if(|(_, c)| c.is_digit(8)) {
                        Some((_, digit)) => value = value * 8 + digit.to_digit(8).unwrap_or(0),
                        None => break,
                    }
                }
                out.extend(char::from_u32(value));
                continue;
            }
            let end = escape_start + 1 + escape.len_utf8();
            if escape == 'N' {
                self.report(
                    SyntaxErrorKind::InvalidEscape
                        .coded(
                            UnsupportedMessage::NotSupported { construct: Construct::NamedEscape },
                            Span::new(escape_start, end),
                        )
                        .with_help_message(UnsupportedMessage::WriteCharacter),
                );
                continue;
            }
            self.report(
                SyntaxErrorKind::InvalidEscape
                    .coded_warning(
                        LiteralMessage::InvalidEscape { escape: escape.to_string() },
                        Span::new(escape_start, end),
                    )
                    .with_help_message(LiteralMessage::EscapeBackslash),
            );
            out.push('\\');
            out.push(escape);
        }
        out
    }
}

/// Append literal text, merging with a previous literal part.
pub(super) fn push_literal(parts: &mut Vec<FStringPart>, text: String) {
    if let Some(FStringPart::Literal(previous)) = parts.last_mut() {
        previous.push_str(&text);
    } else if !text.is_empty() || parts.is_empty() {
        parts.push(FStringPart::Literal(text));
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::syntax::ast::{ExprKind, StmtKind};
    use crate::lang::syntax::diagnostic::Severity;
    use crate::lang::syntax::parse;

    fn value(source: &str) -> ExprKind {
        let output = parse(source);
        assert!(output.diagnostics.is_empty(), "{source:?}: {:?}", output.diagnostics);
        let StmtKind::Expr(expression) = &output.module.body[0].kind else { panic!("an expression") };
        expression.kind.clone()
    }

    #[test]
    fn escapes_decode_like_python() {
        assert_eq!(
            value("'a\\tb\\n\\\\\\'\\x41\\u5f20\\U0001F600\\101\\0'\n"),
            ExprKind::Str("a\tb\n\\'A张😀A\0".into())
        );
        assert_eq!(value("r'\\n\\d'\n"), ExprKind::Str("\\n\\d".into()));
        assert_eq!(value("'line \\\ncontinued'\n"), ExprKind::Str("line continued".into()));
        assert_eq!(value("'''a\n\"b\"'''\n"), ExprKind::Str("a\n\"b\"".into()));
    }

    #[test]
    fn bad_escapes_warn_or_fail() {
        let output = parse("'\\q' + '\\x4' + b'x'\n");
        let kinds: Vec<(Severity, &str)> = output.diagnostics.iter().map(|d| (d.severity, d.code)).collect();
        assert_eq!(
            kinds,
            [
                (Severity::Warning, "syntax/invalid-escape"),
                (Severity::Error, "syntax/invalid-escape"),
                (Severity::Error, "syntax/unsupported")
            ]
        );
        assert!(!parse("'\\q'\n").has_errors());
        assert!(parse("'\\N{BULLET}'\n").has_errors());
    }
}
