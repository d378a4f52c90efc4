//! Atoms and postfix forms: names, literals, `(…)`/`[…]`/`{…}` displays, calls, subscripts with
//! slices, attribute access.

use super::Parser;
use crate::lang::syntax::ast::{Argument, ArgumentKind, Expr, ExprKind, Identifier};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::literal::{parse_number, NumberValue};
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{After, BracketItem, Construct, GrammarMessage, NameSlot, SyntaxMessage, Token};

impl Parser<'_> {
    /// An atom followed by any number of `.name`, `(args)` and `[index]`.
    pub(super) fn postfix(&mut self) -> Expr {
        let mut value = self.atom();
        let mut levels = 0;
        loop {
            let kind = self.kind();
            if matches!(kind, TokenKind::Dot | TokenKind::LeftParen | TokenKind::LeftBracket)
                && !self.enter_chain(&mut levels)
            {
                break;
            }
            match kind {
                TokenKind::Dot => {
                    self.bump();
                    let attribute = self.identifier(NameSlot::Attribute);
                    let span = value.span.cover(self.previous().span);
                    value = Expr::new(ExprKind::Attribute { value: Box::new(value), attribute }, span);
                }
                TokenKind::LeftParen => {
                    let arguments = self.arguments();
                    let span = value.span.cover(self.previous().span);
                    value = Expr::new(ExprKind::Call { function: Box::new(value), arguments }, span);
                }
                TokenKind::LeftBracket => {
                    let index = self.subscript();
                    let span = value.span.cover(self.previous().span);
                    value = Expr::new(ExprKind::Subscript { value: Box::new(value), index: Box::new(index) }, span);
                }
                _ => break,
            }
        }
        self.depth -= levels;
        value
    }

    fn atom(&mut self) -> Expr {
        let token = self.current();
        let literal = |kind| Expr::new(kind, token.span);
        match token.kind {
            TokenKind::Name => {
                self.bump();
                literal(ExprKind::Name(self.text(token.span).to_string()))
            }
            TokenKind::Int | TokenKind::Float => {
                self.bump();
                literal(match parse_number(self.text(token.span)) {
                    Ok(NumberValue::Int(value)) => ExprKind::Int(value),
                    Ok(NumberValue::Float(value)) => ExprKind::Float(value),
                    // Already reported by the lexer.
                    Err(_) => ExprKind::Error,
                })
            }
            TokenKind::String | TokenKind::UnterminatedString => self.strings(),
            TokenKind::True | TokenKind::False => {
                self.bump();
                literal(ExprKind::Bool(token.kind == TokenKind::True))
            }
            TokenKind::None => {
                self.bump();
                literal(ExprKind::None)
            }
            TokenKind::Ellipsis => {
                self.bump();
                literal(ExprKind::Ellipsis)
            }
            TokenKind::LeftParen => self.parenthesized(),
            TokenKind::LeftBracket => self.list_display(),
            TokenKind::LeftBrace => self.dict_display(),
            TokenKind::Await | TokenKind::Yield => {
                self.bump();
                let construct = if token.kind == TokenKind::Await { Construct::Await } else { Construct::Yield };
                self.unsupported(construct, token.span, None);
                let operand = self.postfix();
                Expr::error(token.span.cover(operand.span))
            }
            _ => self.expected_expression(),
        }
    }

    /// Report a missing expression (not consuming anything, so the caller can resynchronise).
    pub(super) fn expected_expression(&mut self) -> Expr {
        let span = self.missing_span();
        let previous = self.previous();
        let after = match previous.kind {
            TokenKind::Newline | TokenKind::Indent | TokenKind::Dedent => None,
            _ if self.position == 0 || previous.span.is_empty() => None,
            _ => Some(self.text(previous.span).to_string()),
        };
        let found = (!self.at(TokenKind::Newline) && !self.at(TokenKind::EndOfFile)).then(|| self.found_token());
        let mut diagnostic =
            SyntaxErrorKind::ExpectedExpression.coded(SyntaxMessage::ExpectedExpression { after, found }, span);
        if self.kind().is_keyword() && !matches!(self.kind(), TokenKind::Not | TokenKind::Lambda) {
            let keyword = self.kind().spelling().trim_matches('\'').to_string();
            diagnostic = diagnostic.with_help_message(SyntaxMessage::KeywordNotAValue { keyword });
        }
        self.report(diagnostic);
        Expr::error(span)
    }

    /// Items separated by commas up to `closer` (the current token is the opening bracket). A
    /// malformed item is reported and skipped up to the next ',' or the closer, so every bad item
    /// of a long list is reported. Returns the items and whether a comma was seen.
    fn bracketed<T>(
        &mut self,
        closer: TokenKind,
        what: BracketItem,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> (Vec<T>, bool) {
        let unclosed = self.unclosed_opens.get(self.position).copied().unwrap_or(false);
        self.suppressed += usize::from(unclosed);
        self.bump();
        let mut items = Vec::new();
        let mut saw_comma = false;
        while !self.at(closer) && !self.at(TokenKind::EndOfFile) {
            if let Some(value) = item(self) {
                items.push(value);
            }
            if self.eat(TokenKind::Comma) {
                saw_comma = true;
                continue;
            }
            if self.at(closer) {
                break;
            }
            if self.at(TokenKind::For) || (self.at(TokenKind::Async) && self.nth_kind(1) == TokenKind::For) {
                self.misplaced_comprehension();
            } else if !self.kind().is_close_bracket() {
                let span = self.current().span;
                let found = self.found_token();
                let closing = closer.spelling().trim_matches('\'').to_string();
                self.report(
                    SyntaxErrorKind::ExpectedToken
                        .coded(SyntaxMessage::ExpectedComma { closing, item: what, found }, span)
                        .with_help_message(SyntaxMessage::ForgotComma),
                );
            }
            self.skip_until(|kind| kind == TokenKind::Comma);
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        // The lexer balances brackets, so the closer (possibly zero-width) is here.
        self.bump();
        self.suppressed -= usize::from(unclosed);
        (items, saw_comma)
    }

    fn parenthesized(&mut self) -> Expr {
        if self.comprehension_ahead() {
            return self.comprehension(TokenKind::RightParen);
        }
        let open = self.current().span;
        let (mut items, saw_comma) =
            self.bracketed(TokenKind::RightParen, BracketItem::Item, |parser| Some(parser.star_or_expression()));
        let span = open.cover(self.previous().span);
        if items.len() == 1 && !saw_comma {
            let mut inner = items.pop().expect("one item");
            inner.span = span;
            return inner;
        }
        Expr::new(ExprKind::Tuple(items), span)
    }

    fn list_display(&mut self) -> Expr {
        if self.comprehension_ahead() {
            return self.comprehension(TokenKind::RightBracket);
        }
        let open = self.current().span;
        let (items, _) =
            self.bracketed(TokenKind::RightBracket, BracketItem::ListItem, |parser| Some(parser.star_or_expression()));
        Expr::new(ExprKind::List(items), open.cover(self.previous().span))
    }

    fn dict_display(&mut self) -> Expr {
        if self.comprehension_ahead() {
            return self.dict_comprehension();
        }
        let open = self.current().span;
        // The first entry decides: `{a, b}` is a set, `{a: b}` a dict.
        let mut is_set = None;
        let (entries, _) = self.bracketed(TokenKind::RightBrace, BracketItem::DictionaryEntry, |parser| {
            if parser.at(TokenKind::DoubleStar) {
                let star = parser.bump();
                let operand = parser.binary(1);
                parser.unsupported(Construct::DictUnpacking, star.span.cover(operand.span), None);
                return None;
            }
            let key = parser.expression();
            let set_item = *is_set.get_or_insert(matches!(parser.kind(), TokenKind::Comma | TokenKind::RightBrace));
            if set_item {
                return Some((key, None));
            }
            if !parser.eat(TokenKind::Colon) {
                if !parser.at(TokenKind::For) {
                    let span = parser.missing_span();
                    let message = GrammarMessage::ExpectedAfter {
                        expected: Token::Quoted { text: ":".into() },
                        after: After::DictionaryKey,
                        found: None,
                    };
                    parser.coded(SyntaxErrorKind::ExpectedToken, message, span);
                }
                return None;
            }
            let value = parser.expression();
            Some((key, Some(value)))
        });
        let span = open.cover(self.previous().span);
        if is_set == Some(true) {
            Expr::new(ExprKind::Set(entries.into_iter().map(|(item, _)| item).collect()), span)
        } else {
            let pairs = entries.into_iter().filter_map(|(key, value)| Some((key, value?))).collect();
            Expr::new(ExprKind::Dict(pairs), span)
        }
    }

    /// `(a, *rest, key=value, **options)`; the current token is '('.
    fn arguments(&mut self) -> Vec<Argument> {
        let mut seen_keywords: Vec<String> = Vec::new();
        let mut saw_keyword = false;
        if self.comprehension_ahead() {
            let generator = self.comprehension(TokenKind::RightParen);
            let span = generator.span;
            return vec![Argument { kind: ArgumentKind::Positional(generator), span }];
        }
        let (arguments, _) = self.bracketed(TokenKind::RightParen, BracketItem::Argument, |parser| {
            let start = parser.current().span.start;
            let kind = match parser.kind() {
                TokenKind::Star => {
                    parser.bump();
                    ArgumentKind::Unpack(parser.expression())
                }
                TokenKind::DoubleStar => {
                    parser.bump();
                    saw_keyword = true;
                    ArgumentKind::UnpackKeywords(parser.expression())
                }
                TokenKind::Name if parser.nth_kind(1) == TokenKind::Equal => {
                    let token = parser.bump();
                    parser.bump();
                    let name = Identifier { name: parser.text(token.span).to_string(), span: token.span };
                    if seen_keywords.contains(&name.name) {
                        let message = GrammarMessage::KeywordRepeated { name: name.name.clone() };
                        parser.coded(SyntaxErrorKind::InvalidArguments, message, token.span);
                    } else {
                        seen_keywords.push(name.name.clone());
                    }
                    saw_keyword = true;
                    ArgumentKind::Keyword { name, value: parser.expression() }
                }
                _ => {
                    let value = parser.expression();
                    if parser.at(TokenKind::Equal) {
                        let span = value.span;
                        parser.report(
                            SyntaxErrorKind::InvalidArguments
                                .coded(SyntaxMessage::KeywordNeedsName, span)
                                .with_help_message(SyntaxMessage::WriteNameValue),
                        );
                        parser.skip_until(|kind| kind == TokenKind::Comma);
                        return None;
                    }
                    if saw_keyword && !matches!(value.kind, ExprKind::Error) {
                        parser.report(
                            SyntaxErrorKind::InvalidArguments
                                .coded(SyntaxMessage::PositionalAfterKeyword, value.span)
                                .with_help_message(SyntaxMessage::PositionalFirst),
                        );
                    }
                    ArgumentKind::Positional(value)
                }
            };
            Some(Argument { kind, span: Span::new(start, parser.previous().span.end.max(start)) })
        });
        arguments
    }

    /// `[index]`, `[a, b:c]`, `[::2]`, `[...]`; the current token is '['.
    fn subscript(&mut self) -> Expr {
        let open = self.current().span;
        let (mut items, saw_comma) =
            self.bracketed(TokenKind::RightBracket, BracketItem::Index, |parser| Some(parser.slice_or_expression()));
        let close = self.previous().span;
        match items.len() {
            0 => {
                let span = open.cover(close);
                self.coded(SyntaxErrorKind::ExpectedExpression, GrammarMessage::ExpectedIndex, span);
                Expr::error(span)
            }
            1 if !saw_comma => items.pop().expect("one item"),
            _ => {
                let span = items[0].span.cover(items[items.len() - 1].span);
                Expr::new(ExprKind::Tuple(items), span)
            }
        }
    }

    fn slice_or_expression(&mut self) -> Expr {
        let start = self.current().span.start;
        let bound = |parser: &mut Self| {
            (!matches!(parser.kind(), TokenKind::Colon | TokenKind::Comma | TokenKind::RightBracket))
                .then(|| Box::new(parser.star_or_expression()))
        };
        let lower = bound(self);
        if !self.at(TokenKind::Colon) {
            return match lower {
                Some(value) => *value,
                None => self.expected_expression(),
            };
        }
        self.bump();
        let upper = bound(self);
        let step = if self.eat(TokenKind::Colon) { bound(self) } else { None };
        let span = Span::new(start, self.previous().span.end.max(start));
        Expr::new(ExprKind::Slice { lower, upper, step }, span)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::messages;
    use crate::lang::syntax::ast::dump;
    use crate::lang::syntax::parse;

    #[test]
    fn every_bad_item_of_a_list_is_reported() {
        assert_eq!(
            messages("x = [1 2, 3, 4 5]\n"),
            [
                "expected ',' or ']' after the list item, found '2'",
                "expected ',' or ']' after the list item, found '5'"
            ]
        );
        let output = parse("x = [1 2, 3]\n");
        assert_eq!(dump(&output.module), "assign x = (list 1 3)\n");
    }

    #[test]
    fn call_argument_rules() {
        assert_eq!(messages("f(a=1, a=2)\n"), ["keyword argument 'a' repeated"]);
        assert_eq!(messages("f(a.b=1)\n"), ["a keyword argument needs a plain name before '='"]);
        assert!(messages("f(x for x in y)\n").is_empty());
        assert_eq!(messages("f(a, x for x in y)\n"), ["a comprehension must be alone in its brackets"]);
        assert!(messages("f(*a, b, **c)\n").is_empty());
    }

    #[test]
    fn displays_outside_the_subset() {
        assert!(messages("s = {1, 2}\n").is_empty());
        assert_eq!(dump(&parse("s = {1, 2}\n").module), "assign s = (set 1 2)\n");
        assert_eq!(messages("s = {1, 2: 3}\n").len(), 1);
        assert_eq!(messages("d = {**a}\n"), ["'**' unpacking in a dict display is not supported in tile scripts"]);
        assert_eq!(messages("d = {1 2}\n"), ["expected ':' after the dictionary key"]);
        assert_eq!(messages("l = [*a]\n").len(), 1);
    }

    #[test]
    fn subscripts_and_slices() {
        assert_eq!(messages("x[]\n"), ["expected an index inside '[]'"]);
        let output = parse("x[1:, ::-1, a:b:c, ...]\n");
        assert!(output.diagnostics.is_empty());
        assert_eq!(dump(&output.module), "expr (sub x (tuple (slice 1 _ _) (slice _ _ (neg 1)) (slice a b c) ...))\n");
        // A single index with a trailing comma is a tuple, as in Python.
        assert_eq!(dump(&parse("x[0,]\n").module), "expr (sub x (tuple 0))\n");
    }

    #[test]
    fn parentheses_widen_the_span() {
        let source = "y = (a + b)\n";
        let output = parse(source);
        let crate::lang::syntax::ast::StmtKind::Assign { value, .. } = &output.module.body[0].kind else { panic!() };
        assert_eq!(value.span.text(source), "(a + b)");
    }
}
