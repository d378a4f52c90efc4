//! The simple statements `raise exception [from cause]`, `del targets` and `global`/`nonlocal names`.

use super::Parser;
use crate::lang::syntax::ast::{Expr, ExprKind, StmtKind};
use crate::lang::syntax::token::TokenKind;
use crate::messages::NameSlot;

impl Parser<'_> {
    /// `raise [exception [from cause]]`; the current token is `raise`.
    pub(super) fn raise_statement(&mut self) -> StmtKind {
        self.bump();
        let at_end = matches!(self.kind(), TokenKind::Newline | TokenKind::Semicolon | TokenKind::EndOfFile);
        let exception = (!at_end).then(|| self.expression());
        let cause = (exception.is_some() && self.eat(TokenKind::From)).then(|| self.expression());
        StmtKind::Raise { exception, cause }
    }

    /// `global a, b` or `nonlocal a, b`; the current token is the keyword.
    pub(super) fn declaration(&mut self) -> StmtKind {
        let nonlocal = self.bump().kind == TokenKind::Nonlocal;
        let mut names = vec![self.identifier(NameSlot::Declared)];
        while self.eat(TokenKind::Comma) {
            names.push(self.identifier(NameSlot::Declared));
        }
        StmtKind::Declare { names, nonlocal }
    }

    /// `del a, b[0], c.d`; the current token is `del`.
    pub(super) fn delete_statement(&mut self) -> StmtKind {
        self.bump();
        let targets = match self.target_list() {
            Expr { kind: ExprKind::Tuple(items), .. } => items,
            single => vec![single],
        };
        for target in &targets {
            self.check_target(target, false);
        }
        StmtKind::Delete { targets }
    }
}
