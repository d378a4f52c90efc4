//! The lexer: source text → tokens with byte spans, INDENT/DEDENT from indentation, NEWLINE at the
//! end of each logical line, comments skipped. It never fails: problems become diagnostics and the
//! token stream stays usable. Brackets always come out balanced — a missing closer is reported and
//! a zero-width closer inserted — so the parser can recover by skipping to the matching bracket.

mod indent;
mod scan;

use super::cursor::Cursor;
use super::diagnostic::{Diagnostic, SyntaxErrorKind};
use super::span::Span;
use super::token::{Token, TokenKind};
use crate::messages::{LiteralMessage, SyntaxMessage};
use indent::Indentation;

/// Tokens and lexical diagnostics of a piece of source.
#[derive(Debug, Clone)]
pub struct LexOutput {
    /// The tokens, ending with `EndOfFile`.
    pub tokens: Vec<Token>,
    /// Problems found while lexing.
    pub diagnostics: Vec<Diagnostic>,
}

/// Lex a whole module (a cell).
pub fn lex(source: &str) -> LexOutput {
    Lexer::new(source, 0, source.len(), false).run()
}

/// Lex `source[start..end]` as one expression (the inside of an f-string field): newlines are
/// ignored as inside brackets, and no INDENT/DEDENT/NEWLINE tokens are produced.
pub fn lex_expression(source: &str, start: usize, end: usize) -> LexOutput {
    Lexer::new(source, start, end, true).run()
}

/// Statement keywords that can never continue an expression: a line starting with one while a
/// bracket is open means the bracket was left unclosed.
const STATEMENT_ONLY_WORDS: [&str; 19] = [
    "def", "class", "return", "import", "from", "while", "with", "pass", "break", "continue", "assert", "elif", "try",
    "except", "finally", "raise", "global", "nonlocal", "del",
];

struct Lexer<'a> {
    cursor: Cursor<'a>,
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
    indents: Vec<Indentation>,
    brackets: Vec<Token>,
    at_line_start: bool,
    line_has_tokens: bool,
    expression_mode: bool,
}

impl<'a> Lexer<'a> {
    fn new(source: &'a str, start: usize, end: usize, expression_mode: bool) -> Self {
        Lexer {
            cursor: Cursor::new(source, start, end),
            tokens: Vec::new(),
            diagnostics: Vec::new(),
            indents: vec![Indentation::default()],
            brackets: Vec::new(),
            at_line_start: !expression_mode,
            line_has_tokens: false,
            expression_mode,
        }
    }

    fn run(mut self) -> LexOutput {
        loop {
            if self.at_line_start {
                self.at_line_start = false;
                self.handle_indentation();
            }
            self.cursor.eat_while(|c| matches!(c, ' ' | '\t' | '\x0c'));
            let start = self.cursor.position();
            let Some(character) = self.cursor.first() else { break };
            match character {
                '#' => self.cursor.eat_while(|c| c != '\n' && c != '\r'),
                '\n' | '\r' => {
                    self.cursor.eat('\r');
                    self.cursor.eat('\n');
                    self.end_physical_line(start);
                }
                '\\' => self.line_continuation(start),
                _ => self.token(character, start),
            }
        }
        self.finish();
        LexOutput { tokens: self.tokens, diagnostics: self.diagnostics }
    }

    fn push(&mut self, kind: TokenKind, span: Span) {
        self.line_has_tokens = true;
        self.tokens.push(Token { kind, span });
    }

    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// A newline ends the logical line unless a bracket is open; an open bracket followed by a
    /// line that starts a statement is taken as unclosed, so the next lines still parse.
    fn end_physical_line(&mut self, newline_start: usize) {
        if self.expression_mode {
            return;
        }
        if !self.brackets.is_empty() {
            if !self.next_line_starts_statement() {
                return;
            }
            self.close_all_brackets(newline_start);
        }
        if self.line_has_tokens {
            self.tokens
                .push(Token { kind: TokenKind::Newline, span: Span::new(newline_start, self.cursor.position()) });
            self.line_has_tokens = false;
        }
        self.at_line_start = true;
    }

    fn next_line_starts_statement(&self) -> bool {
        let rest = self.cursor.rest();
        let mut lines = rest.split('\n').map(|line| line.trim_start_matches([' ', '\t', '\x0c', '\r']));
        let Some(line) = lines.find(|line| !line.is_empty() && !line.starts_with('#')) else { return false };
        let word: &str = line.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
        STATEMENT_ONLY_WORDS.contains(&word)
    }

    /// Report every open bracket as unclosed and insert zero-width closers, innermost first.
    fn close_all_brackets(&mut self, at: usize) {
        for open in self.brackets.iter().rev() {
            self.diagnostics.push(unclosed(open, self.cursor.source()));
        }
        while let Some(open) = self.brackets.pop() {
            self.tokens.push(Token { kind: closer_of(open.kind), span: Span::empty(at) });
        }
    }

    fn line_continuation(&mut self, start: usize) {
        self.cursor.bump();
        // Non-short-circuit `|`: eat a `\r\n` pair as one line end.
        if self.cursor.eat('\r') | self.cursor.eat('\n') {
            if self.cursor.is_at_end() {
                self.report(
                    SyntaxErrorKind::InvalidLineContinuation
                        .coded(LiteralMessage::ContinuationAtEnd, Span::new(start, start + 1)),
                );
            }
            return;
        }
        let diagnostic = if self.cursor.is_at_end() {
            SyntaxErrorKind::InvalidLineContinuation
                .coded(LiteralMessage::ContinuationAtEnd, Span::new(start, start + 1))
        } else {
            SyntaxErrorKind::InvalidLineContinuation
                .coded(LiteralMessage::CharacterAfterContinuation, Span::new(start, start + 1))
                .with_help_message(LiteralMessage::ContinuationLast)
        };
        self.report(diagnostic);
    }

    fn open_bracket(&mut self, kind: TokenKind, span: Span) {
        self.push(kind, span);
        self.brackets.push(Token { kind, span });
    }

    fn close_bracket(&mut self, kind: TokenKind, span: Span) {
        let source = self.cursor.source();
        let Some(top) = self.brackets.last().copied() else {
            let bracket = span.text(source).to_string();
            self.report(
                SyntaxErrorKind::UnmatchedClosingBracket
                    .coded(SyntaxMessage::UnmatchedClosingBracket { bracket }, span)
                    .with_help_message(SyntaxMessage::RemoveOrOpen),
            );
            return;
        };
        if closer_of(top.kind) == kind {
            self.brackets.pop();
            self.push(kind, span);
            return;
        }
        let (closing, opening) = (span.text(source).to_string(), top.span.text(source).to_string());
        let diagnostic = SyntaxErrorKind::MismatchedBracket
            .coded(SyntaxMessage::MismatchedBracket { closing, opening: opening.clone() }, span)
            .with_note_message(SyntaxMessage::OpenedHere { bracket: opening }, Some(top.span));
        self.report(diagnostic);
        // A deeper bracket of the right type: the ones above it were left unclosed.
        if let Some(depth) = self.brackets.iter().rposition(|open| closer_of(open.kind) == kind) {
            while self.brackets.len() > depth + 1 {
                let open = self.brackets.pop().expect("checked length");
                self.tokens.push(Token { kind: closer_of(open.kind), span: Span::empty(span.start) });
            }
            self.brackets.pop();
            self.push(kind, span);
        } else {
            // Most likely a typo for the expected closer: read it as that one.
            self.brackets.pop();
            self.push(closer_of(top.kind), span);
        }
    }

    fn finish(&mut self) {
        let end = self.cursor.end();
        let unclosed: Vec<Diagnostic> =
            self.brackets.iter().rev().map(|open| unclosed(open, self.cursor.source())).collect();
        self.diagnostics.extend(unclosed);
        while let Some(open) = self.brackets.pop() {
            self.tokens.push(Token { kind: closer_of(open.kind), span: Span::empty(end) });
        }
        if !self.expression_mode {
            if self.line_has_tokens {
                self.tokens.push(Token { kind: TokenKind::Newline, span: Span::empty(end) });
            }
            for _ in 1..self.indents.len() {
                self.tokens.push(Token { kind: TokenKind::Dedent, span: Span::empty(end) });
            }
        }
        self.tokens.push(Token { kind: TokenKind::EndOfFile, span: Span::empty(end) });
    }
}

/// The closing bracket kind matching an opening one.
fn closer_of(open: TokenKind) -> TokenKind {
    match open {
        TokenKind::LeftParen => TokenKind::RightParen,
        TokenKind::LeftBracket => TokenKind::RightBracket,
        _ => TokenKind::RightBrace,
    }
}

fn unclosed(open: &Token, source: &str) -> Diagnostic {
    let bracket = open.span.text(source).to_string();
    let closing = closer_of(open.kind).spelling().trim_matches('\'').to_string();
    SyntaxErrorKind::UnclosedBracket
        .coded(SyntaxMessage::UnclosedBracket { bracket }, open.span)
        .with_help_message(SyntaxMessage::AddClosingBracket { closing })
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        lex(source).tokens.iter().map(|token| token.kind).collect()
    }

    #[test]
    fn blocks_become_indent_and_dedent() {
        let source = "if x:\n    y = 1  # comment\n\n    # only a comment\nz\n";
        assert_eq!(
            kinds(source),
            [If, Name, Colon, Newline, Indent, Name, Equal, Int, Newline, Dedent, Name, Newline, EndOfFile]
        );
        assert!(lex(source).diagnostics.is_empty());
    }

    #[test]
    fn newlines_inside_brackets_and_after_backslash_join_lines() {
        assert_eq!(kinds("f(1,\n  2)\n"), [Name, LeftParen, Int, Comma, Int, RightParen, Newline, EndOfFile]);
        assert_eq!(kinds("x = 1 + \\\n  2\r\n"), [Name, Equal, Int, Plus, Int, Newline, EndOfFile]);
    }

    #[test]
    fn an_unclosed_bracket_before_a_statement_line_is_closed_there() {
        // The '(' is reported once and a zero-width ')' is inserted before the NEWLINE, so the
        // `def` line starts a fresh statement.
        let output = lex("x = f(1\ndef g():\n    pass\n");
        assert_eq!(output.diagnostics.len(), 1);
        assert_eq!(output.diagnostics[0].span, Span::new(5, 6));
        let closer = output.tokens[5];
        assert_eq!((closer.kind, closer.span), (RightParen, Span::empty(7)));
        assert_eq!(output.tokens[6].kind, Newline);
        assert_eq!(output.tokens[7].kind, Def);
    }

    #[test]
    fn mismatched_and_stray_closers_are_repaired() {
        // `(1]` reads the ']' as the ')' it should be; a stray ')' is dropped.
        let output = lex("(1]\n)\n");
        assert_eq!(kinds("(1]\n)\n"), [LeftParen, Int, RightParen, Newline, EndOfFile]);
        let codes: Vec<&str> = output.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["syntax/mismatched-bracket", "syntax/unmatched-closing-bracket"]);
        // `[(1]` closes the '(' with a zero-width ')' and then the '[' with the real ']'.
        let output = lex("[(1]");
        let closers: Vec<(TokenKind, Span)> = output.tokens[3..5].iter().map(|t| (t.kind, t.span)).collect();
        assert_eq!(closers, [(RightParen, Span::empty(3)), (RightBracket, Span::new(3, 4))]);
    }

    #[test]
    fn the_end_of_input_closes_everything() {
        let output = lex("if x:\n    y = [1,\n");
        assert_eq!(output.diagnostics.len(), 1);
        let tail: Vec<TokenKind> = output.tokens.iter().rev().take(4).map(|t| t.kind).collect();
        assert_eq!(tail, [EndOfFile, Dedent, Newline, RightBracket]);
    }

    #[test]
    fn expression_mode_lexes_a_range_without_layout_tokens() {
        let source = "f\"{a +\n b}\"";
        let output = lex_expression(source, 3, 9);
        assert_eq!(output.tokens.iter().map(|t| t.kind).collect::<Vec<_>>(), [Name, Plus, Name, EndOfFile]);
        assert_eq!(output.tokens[2].span, Span::new(8, 9));
    }
}
