//! `try:` / `except [types [as name]]:` / `else:` / `finally:`.

use super::Parser;
use crate::lang::syntax::ast::{ExceptHandler, StmtKind, TryStatement};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{GrammarMessage, NameSlot};

impl Parser<'_> {
    /// A `try` statement; the current token is `try`.
    pub(super) fn try_statement(&mut self) -> StmtKind {
        let keyword = self.bump();
        self.header_colon("try");
        let body = self.block("try", keyword.span.start);
        let mut handlers = Vec::new();
        while self.at(TokenKind::Except) {
            let except = self.bump();
            let types = (!self.at(TokenKind::Colon)).then(|| self.expression());
            let name = if self.eat(TokenKind::As) { Some(self.identifier(NameSlot::AfterAs)) } else { None };
            let span = Span::new(except.span.start, self.code_end.max(except.span.start));
            self.header_colon("except");
            let handler_body = self.block("except", except.span.start);
            handlers.push(ExceptHandler { types, name, body: handler_body, span });
        }
        let mut orelse = Vec::new();
        if !handlers.is_empty() && self.at(TokenKind::Else) {
            let token = self.bump();
            self.header_colon("else");
            orelse = self.block("else", token.span.start);
        }
        let mut finalbody = Vec::new();
        if self.at(TokenKind::Finally) {
            let token = self.bump();
            self.header_colon("finally");
            finalbody = self.block("finally", token.span.start);
        } else if handlers.is_empty() {
            let span = self.missing_span();
            self.report(
                SyntaxErrorKind::ExpectedToken
                    .coded(GrammarMessage::TryWithoutHandler, span)
                    .with_help_message(GrammarMessage::AddExcept),
            );
        }
        StmtKind::Try(Box::new(TryStatement { body, handlers, orelse, finalbody }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::messages;
    use crate::lang::syntax::ast::dump;
    use crate::lang::syntax::parse;

    #[test]
    fn every_clause_of_a_try_statement() {
        let source =
            "try:\n    a\nexcept (KeyError, IndexError) as e:\n    b\nexcept:\n    c\nelse:\n    d\nfinally:\n    f\n";
        let output = parse(source);
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
        assert_eq!(
            dump(&output.module),
            "try\n  expr a\nexcept (tuple KeyError IndexError) as e\n  expr b\nexcept\n  expr c\nelse\n  expr d\nfinally\n  expr f\n"
        );
    }

    #[test]
    fn a_try_needs_a_handler_and_handlers_need_a_try() {
        assert_eq!(messages("try:\n    a\nb = 1\n"), ["expected 'except' or 'finally' after the 'try' block"]);
        assert_eq!(messages("except ValueError:\n    pass\n"), ["'except' or 'finally' without a matching 'try'"]);
    }
}
