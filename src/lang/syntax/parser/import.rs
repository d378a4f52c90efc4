//! `import a.b as c` and `from a.b import c as d, (e, f)`; relative and star imports are reported.

use super::Parser;
use crate::lang::syntax::ast::{ImportAlias, StmtKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{After, Construct, GrammarMessage, NameSlot, Token, UnsupportedMessage};

impl Parser<'_> {
    /// `import a.b as c, d`; the current token is `import`.
    pub(super) fn import(&mut self) -> StmtKind {
        self.bump();
        let mut names = Vec::new();
        loop {
            let start = self.current().span.start;
            let mut path = vec![self.identifier(NameSlot::ModuleAfterImport)];
            while self.eat(TokenKind::Dot) {
                path.push(self.identifier(NameSlot::AfterDot));
            }
            let alias = self.eat(TokenKind::As).then(|| self.identifier(NameSlot::AfterAs));
            names.push(ImportAlias { path, alias, span: Span::new(start, self.code_end.max(start)) });
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        StmtKind::Import { names }
    }

    /// `from a.b import c as d, e` (the names may be in parentheses); the current token is `from`.
    pub(super) fn import_from(&mut self) -> StmtKind {
        let keyword = self.bump();
        if matches!(self.kind(), TokenKind::Dot | TokenKind::Ellipsis) {
            let dots = self.current().span;
            self.unsupported(Construct::RelativeImport, dots, Some(UnsupportedMessage::OneFile));
            self.skip_rest_of_statement();
            return StmtKind::Error;
        }
        let mut module = vec![self.identifier(NameSlot::ModuleAfterFrom)];
        while self.eat(TokenKind::Dot) {
            module.push(self.identifier(NameSlot::AfterDot));
        }
        if !self.eat(TokenKind::Import) {
            let span = self.missing_span();
            let message = GrammarMessage::ExpectedAfter {
                expected: Token::Quoted { text: "import".into() },
                after: After::ModuleName,
                found: None,
            };
            self.coded(SyntaxErrorKind::ExpectedToken, message, span);
            self.skip_rest_of_statement();
            return StmtKind::Error;
        }
        if self.at(TokenKind::Star) {
            let star = self.bump();
            let path: Vec<&str> = module.iter().map(|part| part.name.as_str()).collect();
            let path = path.join(".");
            let help = UnsupportedMessage::NameTheImports { path };
            self.unsupported(Construct::StarImport, keyword.span.cover(star.span), Some(help));
            return StmtKind::Error;
        }
        let parenthesised = self.eat(TokenKind::LeftParen);
        let mut names = Vec::new();
        loop {
            let start = self.current().span.start;
            let name = self.identifier(NameSlot::ImportedName);
            let alias = self.eat(TokenKind::As).then(|| self.identifier(NameSlot::AfterAs));
            names.push(ImportAlias { path: vec![name], alias, span: Span::new(start, self.code_end.max(start)) });
            if !self.eat(TokenKind::Comma) || (parenthesised && self.at(TokenKind::RightParen)) {
                break;
            }
        }
        if parenthesised && !self.eat(TokenKind::RightParen) {
            let span = self.missing_span();
            let message = GrammarMessage::ExpectedAfter {
                expected: Token::Quoted { text: ")".into() },
                after: After::ImportedNames,
                found: None,
            };
            self.coded(SyntaxErrorKind::ExpectedToken, message, span);
        }
        StmtKind::ImportFrom { module, names }
    }

    /// Skips to the end of the simple statement (its `;` or line end).
    fn skip_rest_of_statement(&mut self) {
        while !matches!(self.kind(), TokenKind::Newline | TokenKind::Semicolon | TokenKind::EndOfFile) {
            self.bump();
        }
    }
}
