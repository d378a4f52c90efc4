//! List comprehensions `[x * 2 for x in values if x > 0]`, and generator expressions (`(… for …)`,
//! `sum(x for x in values)`), which tile scripts evaluate to lists.

use super::Parser;
use crate::lang::syntax::ast::{Comprehension, Expr, ExprKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{After, GrammarMessage, Token};

impl Parser<'_> {
    /// Whether the bracket at the current token holds a comprehension: a `for` at its own level
    /// before any comma.
    pub(super) fn comprehension_ahead(&self) -> bool {
        let mut depth = 0usize;
        for token in self.tokens.iter().skip(self.position + 1) {
            match token.kind {
                kind if kind.is_open_bracket() => depth += 1,
                kind if kind.is_close_bracket() => {
                    if depth == 0 {
                        return false;
                    }
                    depth -= 1;
                }
                TokenKind::Comma if depth == 0 => return false,
                TokenKind::For if depth == 0 => return true,
                TokenKind::EndOfFile => return false,
                _ => {}
            }
        }
        false
    }

    /// `[element for target in iterable if condition …]` up to `closer`; the current token is the
    /// opening bracket.
    pub(super) fn comprehension(&mut self, closer: TokenKind) -> Expr {
        self.bracketed_comprehension(closer, |parser| {
            let element = parser.expression();
            let generators = parser.comprehension_clauses(closer);
            ExprKind::ListComp { element: Box::new(element), generators }
        })
    }

    /// `{key: value for …}` or the set comprehension `{element for …}`; the current token is '{'.
    pub(super) fn dict_comprehension(&mut self) -> Expr {
        self.bracketed_comprehension(TokenKind::RightBrace, |parser| {
            let key = parser.expression();
            if !parser.eat(TokenKind::Colon) {
                let generators = parser.comprehension_clauses(TokenKind::RightBrace);
                return ExprKind::SetComp { element: Box::new(key), generators };
            }
            let value = parser.expression();
            let generators = parser.comprehension_clauses(TokenKind::RightBrace);
            ExprKind::DictComp { key: Box::new(key), value: Box::new(value), generators }
        })
    }

    /// Opens the bracket, parses the inside with `inside`, closes it at `closer`.
    fn bracketed_comprehension(&mut self, closer: TokenKind, inside: impl FnOnce(&mut Self) -> ExprKind) -> Expr {
        let unclosed = self.unclosed_opens.get(self.position).copied().unwrap_or(false);
        self.suppressed += usize::from(unclosed);
        let open = self.bump();
        let kind = inside(self);
        if !self.at(closer) {
            let span = self.missing_span();
            let expected = Token::Quoted { text: closer.spelling().trim_matches('\'').into() };
            let message = GrammarMessage::ExpectedAfter {
                expected,
                after: After::Comprehension,
                found: Some(self.found_token()),
            };
            self.coded(SyntaxErrorKind::ExpectedToken, message, span);
            self.skip_until(|kind| kind == closer);
        }
        // The lexer balances brackets, so the closer (possibly zero-width) is here.
        self.bump();
        self.suppressed -= usize::from(unclosed);
        Expr::new(kind, open.span.cover(self.previous().span))
    }

    /// The `for target in iterable if condition …` clauses, nested left to right.
    fn comprehension_clauses(&mut self, closer: TokenKind) -> Vec<Comprehension> {
        let mut generators = Vec::new();
        while self.eat(TokenKind::For) {
            let target = self.target_list();
            self.check_target(&target, false);
            if !self.eat(TokenKind::In) {
                let span = self.missing_span();
                let message = GrammarMessage::ExpectedAfter {
                    expected: Token::Quoted { text: "in".into() },
                    after: After::ComprehensionTarget,
                    found: None,
                };
                self.coded(SyntaxErrorKind::ExpectedToken, message, span);
                self.skip_until(|kind| kind == closer);
                break;
            }
            let iterable = self.or_expression();
            let mut conditions = Vec::new();
            while self.eat(TokenKind::If) {
                conditions.push(self.or_expression());
            }
            generators.push(Comprehension { target, iterable, conditions });
        }
        generators
    }

    /// A `for` after other items: a comprehension that is not alone in its brackets.
    pub(super) fn misplaced_comprehension(&mut self) {
        let span = self.current().span;
        self.report(
            SyntaxErrorKind::Unsupported
                .coded(GrammarMessage::ComprehensionAlone, span)
                .with_help_message(GrammarMessage::WriteComprehensionAlone),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::syntax::ast::dump;
    use crate::lang::syntax::parse;

    #[test]
    fn comprehensions_in_lists_parentheses_and_calls() {
        let output = parse("a = [x * 2 for x in v if x > 0 if x < 9]\nb = sum(y for y, z in p)\nc = (i for i in range(3))\nd = [(x, y) for x in a for y in b]\n");
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
        let text = dump(&output.module);
        assert!(text.contains("(listcomp (* x 2) for x in v if (compare x > 0) if (compare x < 9))"), "{text}");
        assert!(text.contains("(call sum (listcomp y for (tuple y z) in p))"), "{text}");
        assert!(text.contains("for x in a for y in b"), "{text}");
    }

    #[test]
    fn dict_comprehensions_nest_like_list_comprehensions() {
        let output = parse("d = {k: v * 2 for k, v in items if v for j in range(2)}\n");
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
        assert_eq!(
            dump(&output.module),
            "assign d = (dictcomp k (* v 2) for (tuple k v) in items if v for j in (call range 2))\n"
        );
    }

    #[test]
    fn set_comprehensions_parse_and_crowded_brackets_are_named() {
        let messages = |source: &str| -> Vec<String> {
            parse(source).diagnostics.into_iter().map(|diagnostic| diagnostic.message).collect()
        };
        assert!(messages("s = {x for x in v}\n").is_empty());
        assert_eq!(dump(&parse("s = {x for x in v}\n").module), "assign s = (setcomp x for x in v)\n");
        assert_eq!(messages("d = {1: 2, k: v for k in v}\n"), ["a comprehension must be alone in its brackets"]);
    }

    #[test]
    fn a_broken_comprehension_is_reported_once() {
        let output = parse("a = [x for x v]\n");
        assert_eq!(output.diagnostics.len(), 1, "{:?}", output.diagnostics);
        assert_eq!(output.diagnostics[0].message, "expected 'in' after the comprehension's target");
    }
}
