//! List comprehensions `[x * 2 for x in values if x > 0]`, and generator expressions (`(… for …)`,
//! `sum(x for x in values)`), which tile scripts evaluate to lists.

use super::Parser;
use crate::lang::syntax::ast::{Comprehension, Expr, ExprKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::token::TokenKind;

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
        let unclosed = self.unclosed_opens.get(self.position).copied().unwrap_or(false);
        self.suppressed += usize::from(unclosed);
        let open = self.bump();
        let element = self.expression();
        let mut generators = Vec::new();
        while self.eat(TokenKind::For) {
            let target = self.target_list();
            self.check_target(&target, false);
            if !self.eat(TokenKind::In) {
                let span = self.missing_span();
                self.error(SyntaxErrorKind::ExpectedToken, "expected 'in' after the comprehension's target", span);
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
        if !self.at(closer) {
            let span = self.missing_span();
            let found = self.describe_current();
            self.error(
                SyntaxErrorKind::ExpectedToken,
                format!("expected {} after the comprehension, found {found}", closer.spelling()),
                span,
            );
            self.skip_until(|kind| kind == closer);
        }
        // The lexer balances brackets, so the closer (possibly zero-width) is here.
        self.bump();
        self.suppressed -= usize::from(unclosed);
        let span = open.span.cover(self.previous().span);
        Expr::new(ExprKind::ListComp { element: Box::new(element), generators }, span)
    }

    /// A `for` after other items: a dict comprehension (outside the subset) or a comprehension
    /// that is not alone in its brackets.
    pub(super) fn misplaced_comprehension(&mut self, what: &str) {
        let span = self.current().span;
        let (message, help) = match what {
            "dictionary entry" => {
                ("dict comprehensions are not supported in tile scripts", "fill the dict in a for loop")
            }
            _ => (
                "a comprehension must be alone in its brackets",
                "write [x for x in items] or f(x for x in items), without other items beside it",
            ),
        };
        self.report(SyntaxErrorKind::Unsupported.error(message, span).with_help(help));
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
    fn a_broken_comprehension_is_reported_once() {
        let output = parse("a = [x for x v]\n");
        assert_eq!(output.diagnostics.len(), 1, "{:?}", output.diagnostics);
        assert_eq!(output.diagnostics[0].message, "expected 'in' after the comprehension's target");
    }
}
