//! Statements: the statement loop, blocks, simple statements and the features outside the subset.

use super::Parser;
use crate::lang::syntax::ast::{BinaryOp, Expr, ExprKind, Stmt, StmtKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{Construct, GrammarMessage, SyntaxMessage, UnsupportedMessage};

impl Parser<'_> {
    /// Statements up to the end of the input.
    pub(super) fn statements_until_end(&mut self) -> Vec<Stmt> {
        let mut body = Vec::new();
        while !self.at(TokenKind::EndOfFile) {
            self.statement_into(&mut body);
        }
        body
    }

    /// Parse one statement (or a stray indented group) and append it to `body`.
    fn statement_into(&mut self, body: &mut Vec<Stmt>) {
        match self.kind() {
            TokenKind::Newline | TokenKind::Dedent => {
                self.bump();
            }
            TokenKind::Indent => {
                let indent = self.bump();
                self.report(SyntaxErrorKind::UnexpectedIndent.coded(SyntaxMessage::UnexpectedIndent, indent.span));
                let mut stray = Vec::new();
                self.block_statements(&mut stray);
                body.append(&mut stray);
            }
            TokenKind::If
            | TokenKind::For
            | TokenKind::While
            | TokenKind::Def
            | TokenKind::With
            | TokenKind::At
            | TokenKind::Class
            | TokenKind::Try => {
                body.push(self.compound_statement());
            }
            TokenKind::Async | TokenKind::Elif | TokenKind::Else | TokenKind::Except | TokenKind::Finally => {
                body.push(self.rejected_compound_statement())
            }
            _ => self.simple_statements_into(body),
        }
    }

    /// Statements of an indented block, up to and including its DEDENT. Stops early (after a
    /// diagnostic) when blocks are nested deeper than the limit.
    pub(super) fn block_statements(&mut self, body: &mut Vec<Stmt>) {
        if !self.enter() {
            self.skip_block();
            return;
        }
        loop {
            match self.kind() {
                TokenKind::Dedent => {
                    self.bump();
                    break;
                }
                TokenKind::EndOfFile => break,
                _ => self.statement_into(body),
            }
        }
        self.leave();
    }

    /// Skip an indented block whose INDENT was consumed, with everything nested inside it.
    pub(super) fn skip_block(&mut self) {
        let mut open = 1usize;
        loop {
            match self.bump().kind {
                TokenKind::Indent => open += 1,
                TokenKind::Dedent => {
                    open -= 1;
                    if open == 0 {
                        return;
                    }
                }
                TokenKind::EndOfFile => return,
                _ => {}
            }
        }
    }

    /// The body after a header's ':' — an indented block or simple statements on the same line.
    /// `keyword` names the statement for the message (`for`) and starts at `start`.
    pub(super) fn block(&mut self, keyword: &str, start: usize) -> Vec<Stmt> {
        let mut body = Vec::new();
        if self.eat(TokenKind::Newline) {
            if self.eat(TokenKind::Indent) {
                self.block_statements(&mut body);
            } else {
                let line = self.line_of(start);
                let span = self.missing_span();
                let span = if span.is_empty() { self.current().span } else { span };
                let message = SyntaxMessage::ExpectedIndentedBlock { keyword: keyword.into(), line };
                self.report(
                    SyntaxErrorKind::ExpectedIndentedBlock
                        .coded(message, span)
                        .with_help_message(SyntaxMessage::IndentTheBody),
                );
            }
            return body;
        }
        if matches!(
            self.kind(),
            TokenKind::If | TokenKind::For | TokenKind::While | TokenKind::Def | TokenKind::With | TokenKind::Class
        ) {
            let span = self.current().span;
            let keyword = self.kind().spelling().trim_matches('\'').to_string();
            self.coded(SyntaxErrorKind::UnexpectedToken, GrammarMessage::OwnLine { keyword }, span);
            self.skip_line();
            return body;
        }
        self.simple_statements_into(&mut body);
        body
    }

    /// `a; b; c` up to the end of the line.
    fn simple_statements_into(&mut self, body: &mut Vec<Stmt>) {
        let errors_before = self.diagnostics.len();
        loop {
            body.push(self.simple_statement());
            if !self.eat(TokenKind::Semicolon) || matches!(self.kind(), TokenKind::Newline | TokenKind::EndOfFile) {
                break;
            }
        }
        if matches!(self.kind(), TokenKind::Newline | TokenKind::EndOfFile) {
            self.eat(TokenKind::Newline);
            return;
        }
        if self.diagnostics.len() == errors_before {
            self.report_trailing_tokens(body.last());
        }
        self.skip_line();
    }

    fn report_trailing_tokens(&mut self, last: Option<&Stmt>) {
        let span = self.current().span;
        let found = self.found_token();
        let mut diagnostic =
            SyntaxErrorKind::UnexpectedToken.coded(SyntaxMessage::UnexpectedAfterStatement { found }, span);
        let leading_name = match last {
            Some(Stmt { kind: StmtKind::Expr(Expr { kind: ExprKind::Name(name), .. }), .. }) => name.as_str(),
            _ => "",
        };
        diagnostic = if leading_name == "print" {
            diagnostic.with_help_message(SyntaxMessage::PrintIsAFunction)
        } else if leading_name == "match" {
            diagnostic.with_help_message(SyntaxMessage::MatchUnsupported)
        } else if self.at(TokenKind::Equal) {
            diagnostic.with_help_message(SyntaxMessage::EqualsCannotAppear)
        } else {
            diagnostic.with_help_message(SyntaxMessage::ForgotOperator)
        };
        self.report(diagnostic);
    }

    fn simple_statement(&mut self) -> Stmt {
        let start = self.current().span.start;
        let kind = match self.kind() {
            TokenKind::Pass => {
                self.bump();
                StmtKind::Pass
            }
            TokenKind::Break | TokenKind::Continue => self.loop_control(),
            TokenKind::Return => self.return_statement(),
            TokenKind::Import => self.import(),
            TokenKind::From => self.import_from(),
            TokenKind::Raise => self.raise_statement(),
            TokenKind::Del => self.delete_statement(),
            TokenKind::Assert => {
                self.bump();
                let test = self.expression();
                let message = self.eat(TokenKind::Comma).then(|| self.expression());
                StmtKind::Assert { test, message }
            }
            TokenKind::Global | TokenKind::Nonlocal => self.declaration(),
            TokenKind::Yield => self.rejected_simple_statement(),
            _ => self.expression_statement(),
        };
        Stmt { kind, span: Span::new(start, self.code_end.max(start)) }
    }

    fn loop_control(&mut self) -> StmtKind {
        let token = self.bump();
        let is_break = token.kind == TokenKind::Break;
        if self.loop_depth == 0 {
            let word = if is_break { "break" } else { "continue" };
            self.coded(
                SyntaxErrorKind::OutsideContext,
                GrammarMessage::OutsideLoop { keyword: word.into() },
                token.span,
            );
        }
        if is_break {
            StmtKind::Break
        } else {
            StmtKind::Continue
        }
    }

    fn return_statement(&mut self) -> StmtKind {
        let token = self.bump();
        if self.function_depth == 0 {
            self.report(
                SyntaxErrorKind::OutsideContext
                    .coded(SyntaxMessage::ReturnOutsideFunction, token.span)
                    .with_help_message(SyntaxMessage::LastExpressionDisplayed),
            );
        }
        let value = (!matches!(self.kind(), TokenKind::Newline | TokenKind::Semicolon | TokenKind::EndOfFile))
            .then(|| self.expression_list());
        StmtKind::Return(value)
    }

    /// `yield`: reported and skipped.
    fn rejected_simple_statement(&mut self) -> StmtKind {
        let token = self.current();
        self.unsupported(Construct::Yield, token.span, Some(UnsupportedMessage::BuildAList));
        while !matches!(self.kind(), TokenKind::Newline | TokenKind::Semicolon | TokenKind::EndOfFile) {
            self.bump();
        }
        StmtKind::Error
    }

    /// `async`, and a stray `elif`/`else`/`except`/`finally`: reported, and the
    /// body is parsed (so its own errors show) and dropped.
    fn rejected_compound_statement(&mut self) -> Stmt {
        let token = self.current();
        let (keyword, statement) = match token.kind {
            TokenKind::Except => ("except", "try"),
            TokenKind::Finally => ("finally", "try"),
            TokenKind::Elif => ("elif", "if"),
            _ => ("else", "if"),
        };
        if token.kind == TokenKind::Async {
            self.unsupported(Construct::Async, token.span, Some(UnsupportedMessage::Remove { text: "async".into() }));
        } else {
            let message =
                GrammarMessage::ClauseWithoutStatement { keyword: keyword.into(), statement: statement.into() };
            let help = GrammarMessage::CheckIndentation { statement: statement.into() };
            self.report(SyntaxErrorKind::UnexpectedToken.coded(message, token.span).with_help_message(help));
        }
        self.skip_line();
        if self.eat(TokenKind::Indent) {
            let mut dropped = Vec::new();
            self.block_statements(&mut dropped);
        }
        Stmt { kind: StmtKind::Error, span: Span::new(token.span.start, self.code_end.max(token.span.start)) }
    }

    fn expression_statement(&mut self) -> StmtKind {
        let first = self.expression_list_with_star();
        match self.kind() {
            TokenKind::Equal => {
                let mut targets = vec![first];
                let mut value;
                loop {
                    self.bump();
                    value = self.expression_list_with_star();
                    if !self.at(TokenKind::Equal) {
                        break;
                    }
                    targets.push(value);
                }
                for target in &targets {
                    self.check_target(target, false);
                }
                StmtKind::Assign { targets, value }
            }
            TokenKind::Colon => {
                self.bump();
                self.check_target(&first, true);
                let annotation = self.annotation();
                let value = self.eat(TokenKind::Equal).then(|| self.expression_list());
                StmtKind::AnnAssign { target: first, annotation, value }
            }
            kind => match augmented_op(kind) {
                Some(op) => {
                    self.bump();
                    self.check_target(&first, true);
                    let value = self.expression_list();
                    StmtKind::AugAssign { target: first, op, value }
                }
                None => StmtKind::Expr(first),
            },
        }
    }
}

/// The operator of an augmented assignment token (`+=` … `>>=`).
fn augmented_op(kind: TokenKind) -> Option<BinaryOp> {
    Some(match kind {
        TokenKind::PlusEqual => BinaryOp::Add,
        TokenKind::MinusEqual => BinaryOp::Subtract,
        TokenKind::StarEqual => BinaryOp::Multiply,
        TokenKind::SlashEqual => BinaryOp::Divide,
        TokenKind::DoubleSlashEqual => BinaryOp::FloorDivide,
        TokenKind::PercentEqual => BinaryOp::Modulo,
        TokenKind::DoubleStarEqual => BinaryOp::Power,
        TokenKind::AtEqual => BinaryOp::MatMul,
        TokenKind::AmpersandEqual => BinaryOp::BitAnd,
        TokenKind::PipeEqual => BinaryOp::BitOr,
        TokenKind::CaretEqual => BinaryOp::BitXor,
        TokenKind::LeftShiftEqual => BinaryOp::LeftShift,
        TokenKind::RightShiftEqual => BinaryOp::RightShift,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::messages;
    use crate::lang::syntax::ast::{dump, StmtKind};
    use crate::lang::syntax::parse;

    #[test]
    fn loop_control_and_return_need_their_context() {
        assert_eq!(messages("break\ncontinue\n"), ["'break' outside a loop", "'continue' outside a loop"]);
        assert!(messages("for i in x:\n    if i: break\n    continue\n").is_empty());
        // A def inside a loop starts a new context: `break` in it is outside any loop.
        assert_eq!(messages("for i in x:\n    def f():\n        break\n"), ["'break' outside a loop"]);
        assert!(messages("def f():\n    return 1, 2\n").is_empty());
    }

    #[test]
    fn statements_outside_the_subset_name_an_alternative() {
        let output = parse("from pypto import *\nyield 1\n");
        assert_eq!(output.diagnostics.len(), 2);
        assert!(output.diagnostics.iter().all(|d| d.code == "syntax/unsupported" && d.help.is_some()));
        assert!(output.module.body.iter().all(|s| s.kind == StmtKind::Error));
    }

    #[test]
    fn global_and_nonlocal_declare_names() {
        let output = parse("global g\ndef f():\n    nonlocal a, b\n");
        assert!(output.diagnostics.is_empty());
        assert!(dump(&output.module).starts_with("global g\n"), "{}", dump(&output.module));
        assert!(dump(&output.module).contains("nonlocal a, b"), "{}", dump(&output.module));
        assert_eq!(messages("global 1\n").len(), 1);
    }

    #[test]
    fn semicolons_and_one_line_bodies() {
        let output = parse("a = 1; b = 2;\nif a: b = 3; c = 4\n");
        assert!(output.diagnostics.is_empty());
        assert_eq!(dump(&output.module), "assign a = 1\nassign b = 2\nif a\n  assign b = 3\n  assign c = 4\n");
        assert_eq!(messages("if a: for i in x: pass\n"), ["'for' must start on its own line"]);
    }

    #[test]
    fn trailing_tokens_are_reported_once_per_line() {
        assert_eq!(messages("x = a b c d\n").len(), 1);
        let output = parse("print 'hi'\n");
        assert_eq!(output.diagnostics[0].help.as_deref(), Some("print is a function: write print(...)"));
        let output = parse("match x:\n    case 1: pass\n");
        assert!(output.diagnostics[0].help.as_deref().is_some_and(|help| help.contains("`match`")));
    }

    #[test]
    fn augmented_and_annotated_assignments() {
        let output = parse("x += 1\nx @= w\ny: float\nx <<= 1\nx |= m\n");
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
        let expected = "augassign x += 1\naugassign x @= w\nannassign y: float\naugassign x <<= 1\naugassign x |= m\n";
        assert_eq!(dump(&output.module), expected);
    }

    #[test]
    fn a_stray_indented_group_is_reported_and_still_parsed() {
        let output = parse("a = 1\n    b = (\n");
        let codes: Vec<&str> = output.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["syntax/unexpected-indent", "syntax/unclosed-bracket"]);
        assert_eq!(output.module.body.len(), 2);
    }
}
