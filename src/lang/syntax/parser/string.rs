//! String literals: prefixes, escapes, implicit concatenation and f-strings (`f"{x} {y:.3f}"`,
//! with `!r`/`!s`/`!a` conversions and literal format specs; fields are parsed as expressions).

use super::Parser;
use crate::lang::syntax::ast::{Expr, ExprKind, FStringPart};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::lexer;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;

/// The parts of one literal token: prefix flags and the body's absolute byte range.
struct Literal {
    raw: bool,
    formatted: bool,
    bytes: bool,
    body: Span,
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
                self.report(
                    SyntaxErrorKind::Unsupported
                        .error("bytes literals are not supported in tile scripts", token.span)
                        .with_help("remove the 'b' prefix"),
                );
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
    fn decode(&mut self, span: Span, raw: bool) -> String {
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
                let hex: String = (0..digits).map_while(|_| characters.next_if(|(_, c)| c.is_ascii_hexdigit()).map(|(_, c)| c)).collect();
                let end = span.start + offset + 2 + hex.len();
                match (hex.len() == count).then(|| u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)).flatten() {
                    Some(decoded) => out.push(decoded),
                    None => self.error(
                        SyntaxErrorKind::InvalidEscape,
                        format!("invalid '\\{escape}' escape: it needs exactly {count} hexadecimal digits of a valid character"),
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
            self.report(
                SyntaxErrorKind::InvalidEscape
                    .warning(format!("invalid escape sequence '\\{escape}'"), Span::new(escape_start, end))
                    .with_help("write '\\\\' for a backslash, or use a raw string r\"...\""),
            );
            out.push('\\');
            out.push(escape);
        }
        out
    }

    /// Split an f-string body into literal text and `{…}` fields.
    fn formatted_parts(&mut self, literal: &Literal, parts: &mut Vec<FStringPart>) {
        let body = self.text(literal.body);
        let base = literal.body.start;
        let bytes = body.as_bytes();
        let mut text_start = 0;
        let mut index = 0;
        while index < bytes.len() {
            match bytes[index] {
                b'{' if bytes.get(index + 1) == Some(&b'{') => {
                    self.flush_text(literal, text_start, index + 1, parts);
                    index += 2;
                    text_start = index;
                }
                b'}' if bytes.get(index + 1) == Some(&b'}') => {
                    self.flush_text(literal, text_start, index + 1, parts);
                    index += 2;
                    text_start = index;
                }
                b'}' => {
                    self.report(
                        SyntaxErrorKind::InvalidFString
                            .error("single '}' is not allowed in an f-string", Span::new(base + index, base + index + 1))
                            .with_help("write '}}' for a literal brace"),
                    );
                    index += 1;
                }
                b'{' => {
                    self.flush_text(literal, text_start, index, parts);
                    index = self.field(literal, index, parts);
                    text_start = index;
                }
                _ => index += 1,
            }
        }
        self.flush_text(literal, text_start, bytes.len(), parts);
    }

    fn flush_text(&mut self, literal: &Literal, from: usize, to: usize, parts: &mut Vec<FStringPart>) {
        if from < to {
            let text = self.decode(Span::new(literal.body.start + from, literal.body.start + to), literal.raw);
            push_literal(parts, text);
        }
    }

    /// Parse the field starting at body offset `open` (a '{'); returns the offset after its '}'.
    fn field(&mut self, literal: &Literal, open: usize, parts: &mut Vec<FStringPart>) -> usize {
        let base = literal.body.start;
        let body = self.text(literal.body);
        let Some(layout) = field_layout(body, open) else {
            self.report(
                SyntaxErrorKind::InvalidFString
                    .error("unclosed '{' in the f-string", Span::new(base + open, base + open + 1))
                    .with_help("close the field with '}', or write '{{' for a literal brace; inside a field, use the other kind of quote"),
            );
            return body.len();
        };
        let expression_text = &body[open + 1..layout.expression_end];
        let field_span = Span::new(base + open, base + layout.close + 1);
        if expression_text.trim().is_empty() {
            self.error(SyntaxErrorKind::InvalidFString, "empty expression in an f-string field", field_span);
            return layout.close + 1;
        }
        let trimmed = expression_text.trim_end();
        if trimmed.ends_with('=') && !trimmed.ends_with("==") && !trimmed.ends_with("!=") && !trimmed.ends_with("<=") && !trimmed.ends_with(">=") {
            let name = trimmed.trim_end_matches('=').trim();
            self.report(
                SyntaxErrorKind::InvalidFString
                    .error("self-documenting f-string fields ('{x=}') are not supported", field_span)
                    .with_help(format!("write '{name}={{{name}}}'")),
            );
            return layout.close + 1;
        }
        let expression = self.field_expression(base + open + 1, base + layout.expression_end);
        let conversion = layout.conversion.and_then(|at| {
            let spec = &body[at + 1..layout.spec_start.unwrap_or(layout.close)];
            match spec {
                "r" | "s" | "a" => spec.chars().next(),
                _ => {
                    let span = Span::new(base + at, base + layout.spec_start.unwrap_or(layout.close));
                    self.error(SyntaxErrorKind::InvalidFString, "an f-string conversion must be '!r', '!s' or '!a'", span);
                    None
                }
            }
        });
        let format_spec = layout.spec_start.map(|at| body[at + 1..layout.close].to_string());
        if let Some(spec) = &format_spec {
            if spec.contains('{') {
                let span = Span::new(base + layout.spec_start.unwrap_or(open), base + layout.close);
                self.error(SyntaxErrorKind::InvalidFString, "nested fields in an f-string format spec are not supported", span);
            }
        }
        parts.push(FStringPart::Field { expression: Box::new(expression), conversion, format_spec });
        layout.close + 1
    }

    /// Lex and parse `source[start..end]` as one expression with this parser's remaining depth.
    fn field_expression(&mut self, start: usize, end: usize) -> Expr {
        let lexed = lexer::lex_expression(self.source, start, end);
        self.diagnostics.extend(lexed.diagnostics);
        let mut inner = Parser::new(self.source, lexed.tokens, self.options, self.depth + 1);
        inner.loop_depth = self.loop_depth;
        inner.function_depth = self.function_depth;
        let expression = if inner.depth > self.options.max_depth { inner.expected_nesting() } else { inner.expression_list() };
        if !inner.at(TokenKind::EndOfFile) {
            let span = inner.current().span;
            let found = inner.describe_current();
            inner.error(SyntaxErrorKind::UnexpectedToken, format!("unexpected {found} in the f-string field"), span);
        }
        self.diagnostics.append(&mut inner.diagnostics);
        expression
    }

    fn expected_nesting(&mut self) -> Expr {
        let span = self.current().span;
        self.error(SyntaxErrorKind::NestingTooDeep, "f-strings are nested too deeply", span);
        while !self.at(TokenKind::EndOfFile) {
            self.bump();
        }
        Expr::error(span)
    }
}

fn push_literal(parts: &mut Vec<FStringPart>, text: String) {
    if let Some(FStringPart::Literal(previous)) = parts.last_mut() {
        previous.push_str(&text);
    } else if !text.is_empty() || parts.is_empty() {
        parts.push(FStringPart::Literal(text));
    }
}

/// Byte offsets (in the body) of a field's pieces.
struct FieldLayout {
    expression_end: usize,
    conversion: Option<usize>,
    spec_start: Option<usize>,
    close: usize,
}

/// Find the end of the field opened at `open`, skipping nested brackets and quoted strings.
fn field_layout(body: &str, open: usize) -> Option<FieldLayout> {
    let bytes = body.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut conversion = None;
    let mut spec_start = None;
    let mut index = open + 1;
    while index < bytes.len() {
        let byte = bytes[index];
        if let Some(q) = quote {
            if byte == q {
                quote = None;
            }
            index += 1;
            continue;
        }
        if spec_start.is_some() {
            // A nested `{w}` in a spec is reported later; skip it whole so its '}' does not end the field.
            match byte {
                b'{' => depth += 1,
                b'}' if depth > 0 => depth -= 1,
                b'}' => break,
                _ => {}
            }
            index += 1;
            continue;
        }
        match byte {
            b'\'' | b'"' => quote = Some(byte),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' if depth > 0 => depth -= 1,
            b'}' => break,
            b'!' if depth == 0 && bytes.get(index + 1) != Some(&b'=') && conversion.is_none() => conversion = Some(index),
            b':' if depth == 0 => {
                spec_start = Some(index);
                depth = 0;
            }
            _ => {}
        }
        index += 1;
    }
    if index >= bytes.len() {
        return None;
    }
    let expression_end = conversion.or(spec_start).unwrap_or(index);
    Some(FieldLayout { expression_end, conversion, spec_start, close: index })
}
