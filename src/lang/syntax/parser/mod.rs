//! The parser: tokens → [`Module`](super::ast::Module). It never stops at the first error: each
//! problem is reported with its span and the parser resynchronises (at the next `,` or closing
//! bracket inside brackets, at the end of the line otherwise), so one run reports every error of a
//! cell. Recursion is bounded by `ParseOptions::max_depth`; deeper input is a diagnostic.

mod atom;
mod class;
mod compound;
mod comprehension;
mod expression;
mod fstring;
mod import;
mod lambda;
mod simple;
mod statement;
mod string;
mod target;
#[cfg(test)]
mod test_support;
mod try_statement;

use super::ast::Module;
use super::diagnostic::{Diagnostic, SyntaxErrorKind};
use super::lexer;
use super::span::Span;
use super::token::{Token, TokenKind};
use super::ParseOptions;
use crate::messages::{GrammarMessage, UnsupportedMessage};

/// Parse a whole module; returns the tree and every diagnostic (lexical and syntactic), sorted by
/// position.
pub(super) fn parse_module(source: &str, options: ParseOptions) -> (Module, Vec<Diagnostic>) {
    let lexed = lexer::lex(source);
    let mut parser = Parser::new(source, lexed.tokens, options, 0);
    parser.lexer_errors = lexed.diagnostics.iter().map(|diagnostic| diagnostic.span.start).collect();
    parser.lexer_errors.sort_unstable();
    let body = parser.statements_until_end();
    let mut diagnostics = lexed.diagnostics;
    diagnostics.append(&mut parser.diagnostics);
    diagnostics.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    (Module { body, span: Span::new(0, source.len()) }, diagnostics)
}

pub(super) struct Parser<'a> {
    source: &'a str,
    tokens: Vec<Token>,
    position: usize,
    diagnostics: Vec<Diagnostic>,
    options: ParseOptions,
    depth: usize,
    loop_depth: usize,
    function_depth: usize,
    /// Inside a type annotation, where `int | None` is allowed (annotations are not evaluated).
    in_annotation: bool,
    /// Start offsets of the lexer's diagnostics: a parser error right after one is a consequence.
    lexer_errors: Vec<usize>,
    /// For each token index, whether it opens a bracket the lexer had to close (zero-width closer).
    unclosed_opens: Vec<bool>,
    /// While positive, diagnostics are dropped (inside an unclosed bracket everything is suspect).
    suppressed: usize,
    /// End of the last consumed token that is not NEWLINE/INDENT/DEDENT: where a statement ends.
    code_end: usize,
}

impl<'a> Parser<'a> {
    fn new(source: &'a str, tokens: Vec<Token>, options: ParseOptions, depth: usize) -> Self {
        let unclosed_opens = unclosed_opens(&tokens);
        Parser {
            source,
            tokens,
            position: 0,
            diagnostics: Vec::new(),
            options,
            depth,
            loop_depth: 0,
            function_depth: 0,
            in_annotation: false,
            lexer_errors: Vec::new(),
            unclosed_opens,
            suppressed: 0,
            code_end: 0,
        }
    }

    /// The current token (the lexer always ends the stream with `EndOfFile`).
    fn current(&self) -> Token {
        self.tokens[self.position.min(self.tokens.len() - 1)]
    }

    fn kind(&self) -> TokenKind {
        self.current().kind
    }

    fn nth_kind(&self, ahead: usize) -> TokenKind {
        self.tokens[(self.position + ahead).min(self.tokens.len() - 1)].kind
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.kind() == kind
    }

    /// The last consumed token (or an empty one at the start).
    fn previous(&self) -> Token {
        match self.position.checked_sub(1) {
            Some(index) => self.tokens[index],
            None => Token { kind: TokenKind::Newline, span: Span::empty(self.current().span.start) },
        }
    }

    /// Consume the current token (never moves past `EndOfFile`).
    fn bump(&mut self) -> Token {
        let token = self.current();
        if token.kind != TokenKind::EndOfFile {
            self.position += 1;
        }
        if !matches!(token.kind, TokenKind::Newline | TokenKind::Indent | TokenKind::Dedent | TokenKind::EndOfFile) {
            self.code_end = token.span.end;
        }
        token
    }

    fn eat(&mut self, kind: TokenKind) -> bool {
        if self.at(kind) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn text(&self, span: Span) -> &'a str {
        span.text(self.source)
    }

    /// Where to point when something is missing: the current token, or just after the previous
    /// one when the current token is a line end or a zero-width token.
    fn missing_span(&self) -> Span {
        let current = self.current();
        let at_line_end =
            matches!(current.kind, TokenKind::Newline | TokenKind::EndOfFile | TokenKind::Indent | TokenKind::Dedent);
        if !(at_line_end || current.span.is_empty()) {
            current.span
        } else if self.position == 0 {
            Span::empty(current.span.start)
        } else {
            Span::empty(self.previous().span.end)
        }
    }

    /// The current token as a message word: `'y'`, `')'`, `the end of the line`.
    fn found_token(&self) -> crate::messages::Token {
        use crate::messages::Token;
        let current = self.current();
        match current.kind {
            TokenKind::Name | TokenKind::Int | TokenKind::Float => {
                Token::Quoted { text: self.text(current.span).into() }
            }
            TokenKind::String | TokenKind::UnterminatedString => {
                let text = self.text(current.span);
                let short: String = text.chars().take(24).collect();
                let ellipsis = if short.len() < text.len() { "…" } else { "" };
                Token::StringLiteral { text: format!("{short}{ellipsis}") }
            }
            kind if current.span.is_empty() && kind.is_close_bracket() => Token::EndOfLine,
            TokenKind::Newline => Token::EndOfLine,
            TokenKind::EndOfFile => Token::EndOfInput,
            TokenKind::Indent => Token::Indent,
            TokenKind::Dedent => Token::Dedent,
            kind => Token::Quoted { text: kind.spelling().trim_matches('\'').to_string() },
        }
    }

    fn report(&mut self, diagnostic: Diagnostic) {
        if self.suppressed > 0 {
            return;
        }
        let from = self.previous().span.start.min(diagnostic.span.start);
        let to = diagnostic.span.end.max(diagnostic.span.start);
        let first_at_or_after = self.lexer_errors.partition_point(|&offset| offset < from);
        if self.lexer_errors.get(first_at_or_after).is_some_and(|&offset| offset <= to) {
            return;
        }
        // One place gets one message: later ones at the same spot are consequences of the first.
        if self.diagnostics.last().is_some_and(|last| last.span.start == diagnostic.span.start) {
            return;
        }
        self.diagnostics.push(diagnostic);
    }

    /// Reports an error of `kind` whose message is a message code.
    fn coded(&mut self, kind: SyntaxErrorKind, message: impl Into<crate::messages::Message>, span: Span) {
        self.report(kind.coded(message, span));
    }

    /// Reports a construct outside the subset, with what to use instead.
    fn unsupported(&mut self, construct: crate::messages::Construct, span: Span, help: Option<UnsupportedMessage>) {
        let diagnostic = SyntaxErrorKind::Unsupported.coded(UnsupportedMessage::NotSupported { construct }, span);
        self.report(match help {
            Some(help) => diagnostic.with_help_message(help),
            None => diagnostic,
        });
    }

    /// The 1-based line of byte `offset`, for messages that mention another line.
    fn line_of(&self, offset: usize) -> usize {
        self.source.as_bytes()[..offset.min(self.source.len())].iter().filter(|&&byte| byte == b'\n').count() + 1
    }

    /// Enter one nesting level; false (and a diagnostic) when the limit is reached.
    fn enter(&mut self) -> bool {
        if self.depth >= self.options.max_depth {
            let span = self.current().span;
            let limit = self.options.max_depth;
            self.coded(SyntaxErrorKind::NestingTooDeep, GrammarMessage::NestedTooDeeply { limit }, span);
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skip tokens up to (not including) a token for which `stop` holds at bracket depth 0, a
    /// closing bracket of an enclosing pair, or the end of the line. Brackets are balanced (the
    /// lexer guarantees it), so this always stops inside the current pair.
    fn skip_until(&mut self, stop: impl Fn(TokenKind) -> bool) {
        let mut depth = 0usize;
        loop {
            let kind = self.kind();
            if matches!(kind, TokenKind::EndOfFile) || (depth == 0 && matches!(kind, TokenKind::Newline)) {
                return;
            }
            if depth == 0 && (stop(kind) || kind.is_close_bracket()) {
                return;
            }
            if kind.is_open_bracket() {
                depth += 1;
            } else if kind.is_close_bracket() {
                depth -= 1;
            }
            self.bump();
        }
    }

    /// Skip the rest of the logical line, including its NEWLINE.
    fn skip_line(&mut self) {
        loop {
            match self.kind() {
                TokenKind::EndOfFile => return,
                TokenKind::Newline => {
                    self.bump();
                    return;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }
}

/// Mark the opening brackets whose closer the lexer inserted (a zero-width closing token).
fn unclosed_opens(tokens: &[Token]) -> Vec<bool> {
    let mut marks = vec![false; tokens.len()];
    let mut open = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        if token.kind.is_open_bracket() {
            open.push(index);
        } else if token.kind.is_close_bracket() {
            if let Some(start) = open.pop() {
                marks[start] = token.span.is_empty();
            }
        }
    }
    marks
}

#[cfg(test)]
mod tests {
    use crate::lang::syntax::{parse, parse_with_options, ParseOptions};

    #[test]
    fn every_broken_statement_of_a_cell_is_reported() {
        // Three independent errors on three lines; the good line between them still parses.
        let output = parse("x = \ny = 1 )\nok = 2\nz = 1 +\n");
        let lines: Vec<usize> = output.diagnostics.iter().map(|d| 1 + output_line(&output, d.span.start)).collect();
        assert_eq!(lines, [1, 2, 4]);
        assert_eq!(output.module.body.len(), 4);
        fn output_line(_: &crate::lang::syntax::ParseOutput, offset: usize) -> usize {
            "x = \ny = 1 )\nok = 2\nz = 1 +\n"[..offset].matches('\n').count()
        }
    }

    #[test]
    fn errors_inside_an_unclosed_bracket_are_not_piled_on() {
        let output = parse("y = f(a b c\n");
        assert_eq!(output.diagnostics.len(), 1);
        assert_eq!(output.diagnostics[0].code, "syntax/unclosed-bracket");
    }

    #[test]
    fn a_lexer_error_is_not_followed_by_a_parser_error_at_the_same_place() {
        let output = parse("total = price $ 2\n");
        assert_eq!(output.diagnostics.len(), 1);
        assert_eq!(output.diagnostics[0].code, "syntax/invalid-character");
    }

    #[test]
    fn diagnostics_come_out_in_source_order() {
        let output = parse("a = (\nb = 1 +\nclass C: pass\n");
        let starts: Vec<usize> = output.diagnostics.iter().map(|d| d.span.start).collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted);
    }

    #[test]
    fn the_depth_limit_is_shared_by_blocks_and_expressions() {
        // Two blocks and two parentheses fit in 4 levels (the `if` test is one level itself).
        let options = ParseOptions { max_depth: 4 };
        let output = parse_with_options("if a:\n    if b:\n        x = ((1))\n", options);
        assert_eq!(output.diagnostics.len(), 1, "{:?}", output.diagnostics);
        let output = parse_with_options("if a:\n    x = (1)\n", options);
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
    }
}
