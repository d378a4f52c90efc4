//! Compound statements: `if`/`elif`/`else`, `for`, `while`, `with`, `def` with decorators and
//! parameters.

use super::Parser;
use crate::lang::syntax::ast::{Expr, FunctionDef, Identifier, Parameter, Parameters, Stmt, StmtKind, WithItem};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{After, Construct, GrammarMessage, NameSlot, SyntaxMessage, Token, UnsupportedMessage};

impl Parser<'_> {
    pub(super) fn compound_statement(&mut self) -> Stmt {
        let start = self.current().span.start;
        let kind = match self.kind() {
            TokenKind::If => return self.if_statement(),
            TokenKind::For => self.for_statement(),
            TokenKind::While => self.while_statement(),
            TokenKind::With => self.with_statement(),
            TokenKind::Class => self.class_definition(Vec::new()),
            TokenKind::Try => self.try_statement(),
            _ => self.function_definition(),
        };
        Stmt { kind, span: Span::new(start, self.code_end.max(start)) }
    }

    /// Expect the ':' ending a header; on a miss, report `message`, skip to a ':' on the same
    /// line if there is one, and go on with the body either way.
    pub(super) fn header_colon(&mut self, keyword: &str) {
        if self.eat(TokenKind::Colon) {
            return;
        }
        let span = self.missing_span();
        let mut diagnostic =
            SyntaxErrorKind::ExpectedToken.coded(SyntaxMessage::ExpectedColon { keyword: keyword.into() }, span);
        if self.at(TokenKind::Equal) {
            diagnostic = diagnostic.with_help_message(SyntaxMessage::CompareWithEquals);
        }
        self.report(diagnostic);
        self.skip_until(|kind| kind == TokenKind::Colon);
        self.eat(TokenKind::Colon);
    }

    fn if_statement(&mut self) -> Stmt {
        let keyword = self.bump();
        let word = if keyword.kind == TokenKind::Elif { "elif" } else { "if" };
        let test = self.expression();
        self.header_colon(word);
        let body = self.block(word, keyword.span.start);
        let orelse = match self.kind() {
            // An `elif` is an `if` nested in `else`, one level deeper in the tree.
            TokenKind::Elif if self.enter() => {
                let nested = self.if_statement();
                self.leave();
                vec![nested]
            }
            TokenKind::Elif => {
                self.skip_line();
                if self.eat(TokenKind::Indent) {
                    self.skip_block();
                }
                Vec::new()
            }
            TokenKind::Else if self.nth_kind(1) == TokenKind::If => {
                // C-style `else if`: say so, then read it as the `elif` it means.
                let else_token = self.bump();
                let span = else_token.span.cover(self.current().span);
                self.report(
                    SyntaxErrorKind::UnexpectedToken
                        .coded(SyntaxMessage::ElseIf, span)
                        .with_help_message(SyntaxMessage::UseElif),
                );
                vec![self.if_statement()]
            }
            TokenKind::Else => {
                let else_token = self.bump();
                self.header_colon("else");
                self.block("else", else_token.span.start)
            }
            _ => Vec::new(),
        };
        Stmt {
            kind: StmtKind::If { test, body, orelse },
            span: Span::new(keyword.span.start, self.code_end.max(keyword.span.start)),
        }
    }

    /// A loop body, with `break`/`continue` allowed inside.
    fn loop_body(&mut self, header: &str, start: usize) -> Vec<Stmt> {
        self.loop_depth += 1;
        let body = self.block(header, start);
        self.loop_depth -= 1;
        if self.at(TokenKind::Else) {
            let else_token = self.bump();
            self.unsupported(Construct::LoopElse, else_token.span, Some(UnsupportedMessage::UseAFlag));
            self.header_colon("else");
            self.block("else", else_token.span.start);
        }
        body
    }

    fn for_statement(&mut self) -> StmtKind {
        let keyword = self.bump();
        let target = self.target_list();
        self.check_target(&target, false);
        let iter = if self.eat(TokenKind::In) {
            self.expression_list()
        } else {
            let span = self.missing_span();
            let message = GrammarMessage::ExpectedAfter {
                expected: Token::Quoted { text: "in".into() },
                after: After::ForTarget,
                found: None,
            };
            self.coded(SyntaxErrorKind::ExpectedToken, message, span);
            self.skip_until(|kind| kind == TokenKind::Colon);
            Expr::error(span)
        };
        self.header_colon("for");
        let body = self.loop_body("for", keyword.span.start);
        StmtKind::For { target, iter, body }
    }

    fn while_statement(&mut self) -> StmtKind {
        let keyword = self.bump();
        let test = self.expression();
        self.header_colon("while");
        let body = self.loop_body("while", keyword.span.start);
        StmtKind::While { test, body }
    }

    fn with_statement(&mut self) -> StmtKind {
        let keyword = self.bump();
        let mut items = Vec::new();
        loop {
            let context = self.expression();
            let target = self.eat(TokenKind::As).then(|| {
                let target = self.target_list_item();
                self.check_target(&target, false);
                target
            });
            items.push(WithItem { context, target });
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        self.header_colon("with");
        let body = self.block("with", keyword.span.start);
        StmtKind::With { items, body }
    }

    fn function_definition(&mut self) -> StmtKind {
        let mut decorators = Vec::new();
        while self.at(TokenKind::At) {
            self.bump();
            decorators.push(self.expression());
            if !self.eat(TokenKind::Newline) {
                let span = self.missing_span();
                let message =
                    GrammarMessage::ExpectedAfter { expected: Token::EndOfLine, after: After::Decorator, found: None };
                self.coded(SyntaxErrorKind::ExpectedToken, message, span);
                self.skip_line();
            }
        }
        if self.at(TokenKind::Class) {
            return self.class_definition(decorators);
        }
        if !self.at(TokenKind::Def) {
            let span = self.current().span;
            let mut diagnostic = SyntaxErrorKind::Unsupported.coded(GrammarMessage::DecoratorTarget, span);
            if self.at(TokenKind::Async) {
                diagnostic = diagnostic.with_help_message(UnsupportedMessage::Remove { text: "async".into() });
            }
            self.report(diagnostic);
            return StmtKind::Error;
        }
        let keyword = self.bump();
        let name = self.identifier(NameSlot::FunctionName);
        let parameters = if self.at(TokenKind::LeftParen) {
            self.parameters()
        } else {
            let span = self.missing_span();
            let message = GrammarMessage::ExpectedAfter {
                expected: Token::Quoted { text: "(".into() },
                after: After::FunctionName,
                found: None,
            };
            self.coded(SyntaxErrorKind::ExpectedToken, message, span);
            Parameters::default()
        };
        let returns = self.eat(TokenKind::Arrow).then(|| self.annotation());
        self.header_colon("def");
        let saved_loop_depth = std::mem::take(&mut self.loop_depth);
        self.function_depth += 1;
        let body = self.block("def", keyword.span.start);
        self.function_depth -= 1;
        self.loop_depth = saved_loop_depth;
        StmtKind::FunctionDef(Box::new(FunctionDef { decorators, name, parameters, returns, body }))
    }

    /// `(a, b: T = 1, *args, c, **kwargs)`; the current token is '('.
    pub(super) fn parameters(&mut self) -> Parameters {
        self.bump();
        let parameters = self.parameter_list(TokenKind::RightParen);
        self.bump();
        parameters
    }

    /// The parameters up to `closer` (')' of a `def`, ':' of a `lambda`, whose parameters take no
    /// annotations); the closer is left to the caller.
    pub(super) fn parameter_list(&mut self, closer: TokenKind) -> Parameters {
        let annotations = closer == TokenKind::RightParen;
        let mut parameters = Parameters::default();
        let mut seen: Vec<String> = Vec::new();
        let mut after_star = false;
        let mut saw_default = false;
        while !self.at(closer) && !self.at(TokenKind::EndOfFile) && !self.at(TokenKind::Newline) {
            let start = self.current().span.start;
            match self.kind() {
                TokenKind::Star => {
                    let star = self.bump();
                    if after_star {
                        self.coded(SyntaxErrorKind::InvalidParameters, GrammarMessage::OneStar, star.span);
                    }
                    after_star = true;
                    if self.at(TokenKind::Name) {
                        let parameter = self.parameter(start, false, annotations);
                        self.note_parameter_name(&parameter.name, &mut seen);
                        parameters.varargs = Some(parameter);
                    }
                }
                TokenKind::DoubleStar => {
                    self.bump();
                    let parameter = self.parameter(start, false, annotations);
                    self.note_parameter_name(&parameter.name, &mut seen);
                    parameters.kwargs = Some(parameter);
                }
                TokenKind::Slash => {
                    let slash = self.bump();
                    let help = UnsupportedMessage::Remove { text: "/".into() };
                    self.unsupported(Construct::PositionalOnly, slash.span, Some(help));
                }
                _ => {
                    let parameter = self.parameter(start, true, annotations);
                    self.note_parameter_name(&parameter.name, &mut seen);
                    if parameters.kwargs.is_some() {
                        self.coded(SyntaxErrorKind::InvalidParameters, GrammarMessage::AfterKwargs, parameter.span);
                    }
                    if after_star {
                        parameters.keyword_only.push(parameter);
                    } else {
                        if parameter.default.is_some() {
                            saw_default = true;
                        } else if saw_default && !parameter.name.name.is_empty() {
                            let message = GrammarMessage::DefaultOrder { name: parameter.name.name.clone() };
                            self.coded(SyntaxErrorKind::InvalidParameters, message, parameter.span);
                        }
                        parameters.positional.push(parameter);
                    }
                }
            }
            if self.eat(TokenKind::Comma) {
                continue;
            }
            // The end of the line is the caller's to report (a lambda without its ':').
            if !self.at(closer) && !self.at(TokenKind::Newline) && !self.at(TokenKind::EndOfFile) {
                let span = self.missing_span();
                let closing = closer.spelling().trim_matches('\'').to_string();
                let message =
                    GrammarMessage::ExpectedCommaOr { closing, after: After::Parameter, found: self.found_token() };
                self.coded(SyntaxErrorKind::ExpectedToken, message, span);
                self.skip_until(|kind| kind == TokenKind::Comma || kind == closer);
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        parameters
    }

    fn note_parameter_name(&mut self, name: &Identifier, seen: &mut Vec<String>) {
        if name.name.is_empty() {
            return;
        }
        if seen.contains(&name.name) {
            let message = GrammarMessage::DuplicateParameter { name: name.name.clone() };
            self.coded(SyntaxErrorKind::InvalidParameters, message, name.span);
        } else {
            seen.push(name.name.clone());
        }
    }

    fn parameter(&mut self, start: usize, allow_default: bool, annotations: bool) -> Parameter {
        let name = self.identifier(NameSlot::Parameter);
        let annotation = (annotations && self.eat(TokenKind::Colon)).then(|| self.annotation());
        let default = if allow_default && self.eat(TokenKind::Equal) { Some(self.expression()) } else { None };
        Parameter { name, annotation, default, span: Span::new(start, self.code_end.max(start)) }
    }

    /// A name, or an empty identifier and a diagnostic "expected {slot}".
    pub(super) fn identifier(&mut self, slot: NameSlot) -> Identifier {
        if self.at(TokenKind::Name) {
            let token = self.bump();
            return Identifier { name: self.text(token.span).to_string(), span: token.span };
        }
        let span = self.missing_span();
        let found = self.found_token();
        let mut diagnostic = SyntaxErrorKind::ExpectedToken.coded(GrammarMessage::ExpectedName { slot, found }, span);
        if self.kind().is_keyword() {
            let keyword = self.kind().spelling().trim_matches('\'').to_string();
            diagnostic = diagnostic.with_help_message(GrammarMessage::KeywordNotAName { keyword });
            self.bump();
        }
        self.report(diagnostic);
        Identifier { name: String::new(), span }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::messages;
    use crate::lang::syntax::ast::dump;
    use crate::lang::syntax::parse;

    #[test]
    fn headers_report_what_is_missing() {
        assert_eq!(messages("for i range(3):\n    pass\n"), ["expected 'in' after the for target"]);
        assert_eq!(messages("while x\n    pass\n"), ["expected ':' after the while condition"]);
        assert_eq!(messages("def f:\n    pass\n"), ["expected '(' after the function name"]);
        assert_eq!(messages("def (x):\n    pass\n"), ["expected a function name after 'def', found '('"]);
        assert_eq!(messages("if x:\n    pass\nelse\n    pass\n"), ["expected ':' after 'else'"]);
    }

    #[test]
    fn the_body_is_parsed_even_when_the_colon_is_missing() {
        let output = parse("for i in x\n    y = (\n");
        assert_eq!(output.diagnostics.len(), 2);
        assert!(dump(&output.module).starts_with("for i in x\n  assign y"));
    }

    #[test]
    fn parameter_rules() {
        assert_eq!(
            messages("def f(a=1, b, a):\n    pass\n"),
            ["parameter 'b' without a default follows a parameter with a default", "duplicate parameter 'a'"]
        );
        assert_eq!(messages("def f(**k, a):\n    pass\n"), ["no parameter may follow '**kwargs'"]);
        assert_eq!(messages("def f(a, /, b):\n    pass\n").len(), 1);
        assert_eq!(messages("def f(*a, *b):\n    pass\n"), ["only one '*' is allowed in a parameter list"]);
    }

    #[test]
    fn decorators_and_loop_else() {
        assert_eq!(
            messages("@d\nx = 1\n"),
            ["decorators can only be applied to `def` functions and classes in tile scripts"]
        );
        assert!(messages("@d\nclass C:\n    pass\n").is_empty());
        assert_eq!(
            messages("for i in x:\n    pass\nelse:\n    pass\n"),
            ["`else` after a loop is not supported in tile scripts"]
        );
    }

    #[test]
    fn elif_chains_nest_in_else() {
        let output = parse("if a:\n    x\nelif b:\n    y\nelse:\n    z\n");
        assert!(output.diagnostics.is_empty());
        assert_eq!(dump(&output.module), "if a\n  expr x\nelse\n  if b\n    expr y\n  else\n    expr z\n");
        let output = parse("if a:\n    x\nelse if b:\n    y\n");
        assert_eq!(output.diagnostics.len(), 1);
        assert_eq!(output.diagnostics[0].message, "`else if` is written `elif` in Python");
        assert_eq!(dump(&output.module), "if a\n  expr x\nelse\n  if b\n    expr y\n");
    }
}
