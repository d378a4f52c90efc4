//! f-strings: the body is split into literal text and `{expression!conversion:format_spec}`
//! fields; each field's expression is lexed and parsed in place, so its spans are absolute.

use super::string::{push_literal, Literal};
use super::Parser;
use crate::lang::syntax::ast::{Expr, FStringPart};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::lexer;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{Construct, LiteralMessage, UnsupportedMessage};

impl Parser<'_> {
    /// Split an f-string body into literal text and `{…}` fields.
    pub(super) fn formatted_parts(&mut self, literal: &Literal, parts: &mut Vec<FStringPart>) {
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
                            .coded(LiteralMessage::FStringSingleBrace, Span::new(base + index, base + index + 1))
                            .with_help_message(LiteralMessage::DoubleTheBrace),
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
                    .coded(LiteralMessage::FStringUnclosedField, Span::new(base + open, base + open + 1))
                    .with_help_message(LiteralMessage::CloseTheField),
            );
            return body.len();
        };
        let expression_text = &body[open + 1..layout.expression_end];
        let field_span = Span::new(base + open, base + layout.close + 1);
        if expression_text.trim().is_empty() {
            self.coded(SyntaxErrorKind::InvalidFString, LiteralMessage::FStringEmptyField, field_span);
            return layout.close + 1;
        }
        let trimmed = expression_text.trim_end();
        let self_documenting = trimmed.ends_with('=')
            && !trimmed.ends_with("==")
            && !trimmed.ends_with("!=")
            && !trimmed.ends_with("<=")
            && !trimmed.ends_with(">=");
        // `{x=}`: the text `x=` as written (spaces kept), then the value, by repr unless a
        // conversion or a format spec says otherwise, as Python does.
        let expression_end = if self_documenting {
            parts.push(FStringPart::Literal(expression_text.to_string()));
            open + 1 + trimmed.len() - 1
        } else {
            layout.expression_end
        };
        let expression = self.field_expression(base + open + 1, base + expression_end);
        let default_conversion = (self_documenting && layout.spec_start.is_none()).then_some('r');
        let conversion = layout.conversion.and_then(|at| {
            let spec = &body[at + 1..layout.spec_start.unwrap_or(layout.close)];
            match spec {
                "r" | "s" | "a" => spec.chars().next(),
                _ => {
                    let span = Span::new(base + at, base + layout.spec_start.unwrap_or(layout.close));
                    self.coded(SyntaxErrorKind::InvalidFString, LiteralMessage::FStringConversion, span);
                    None
                }
            }
        });
        let conversion = conversion.or(default_conversion);
        let format_spec = layout.spec_start.map(|at| body[at + 1..layout.close].to_string());
        if let Some(spec) = &format_spec {
            if spec.contains('{') {
                let span = Span::new(base + layout.spec_start.unwrap_or(open), base + layout.close);
                let message = UnsupportedMessage::NotSupported { construct: Construct::NestedFormatField };
                self.coded(SyntaxErrorKind::InvalidFString, message, span);
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
        let expression =
            if inner.depth > self.options.max_depth { inner.expected_nesting() } else { inner.expression_list() };
        if !inner.at(TokenKind::EndOfFile) {
            let span = inner.current().span;
            let found = inner.found_token();
            inner.coded(SyntaxErrorKind::UnexpectedToken, LiteralMessage::FStringUnexpected { found }, span);
        }
        self.diagnostics.append(&mut inner.diagnostics);
        expression
    }

    fn expected_nesting(&mut self) -> Expr {
        let span = self.current().span;
        self.coded(SyntaxErrorKind::NestingTooDeep, LiteralMessage::FStringNestedTooDeeply, span);
        while !self.at(TokenKind::EndOfFile) {
            self.bump();
        }
        Expr::error(span)
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
            b'!' if depth == 0 && bytes.get(index + 1) != Some(&b'=') && conversion.is_none() => {
                conversion = Some(index)
            }
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

#[cfg(test)]
mod tests {
    use crate::lang::syntax::ast::{dump, ExprKind, FStringPart, StmtKind};
    use crate::lang::syntax::parse;

    fn value(source: &str) -> ExprKind {
        let output = parse(source);
        assert!(output.diagnostics.is_empty(), "{source:?}: {:?}", output.diagnostics);
        let StmtKind::Expr(expression) = &output.module.body[0].kind else { panic!("an expression") };
        expression.kind.clone()
    }

    #[test]
    fn f_strings_split_into_text_and_fields() {
        let ExprKind::FString(parts) = value("f\"{x} and {y:.3f}{{}}{z!r:>4}\"\n") else { panic!("an f-string") };
        assert_eq!(parts.len(), 5);
        assert_eq!(parts[1], FStringPart::Literal(" and ".into()));
        let FStringPart::Field { conversion, format_spec, .. } = &parts[4] else { panic!("a field") };
        assert_eq!((*conversion, format_spec.as_deref()), (Some('r'), Some(">4")));
        assert_eq!(parts[3], FStringPart::Literal("{}".into()));
        // Implicit concatenation of a plain string and an f-string is one f-string.
        assert_eq!(dump(&parse("'a' f'{b}'\n").module), "expr (f \"a\" {b})\n");
    }

    #[test]
    fn field_expressions_have_absolute_spans() {
        let source = "s = f'张{a + 1}'\n";
        let output = parse(source);
        let StmtKind::Assign { value, .. } = &output.module.body[0].kind else { panic!() };
        let ExprKind::FString(parts) = &value.kind else { panic!() };
        let FStringPart::Field { expression, .. } = &parts[1] else { panic!() };
        assert_eq!(expression.span.text(source), "a + 1");
    }

    #[test]
    fn malformed_f_strings() {
        let messages =
            |source: &str| -> Vec<String> { parse(source).diagnostics.into_iter().map(|d| d.message).collect() };
        assert_eq!(messages("f'{x!q}'\n"), ["an f-string conversion must be '!r', '!s' or '!a'"]);
        assert_eq!(messages("f'{a b}'\n"), ["unexpected 'b' in the f-string field"]);
        assert_eq!(messages("f'{(}'\n"), ["unclosed '{' in the f-string"]);
        assert!(messages("f'{a == b}{c != d}{d[\"k\"]}'\n").is_empty());
    }
}
