//! Indentation at the start of each logical line: INDENT/DEDENT tokens, the tabs-versus-spaces
//! check and the dedent-to-an-unknown-level check.

use super::Lexer;
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::{Token, TokenKind};
use crate::messages::SyntaxMessage;
use std::cmp::Ordering;

/// The width of a line's leading whitespace, measured with tabs to multiples of 8 and with tabs as
/// one column; indentation is ambiguous when the two measures order two lines differently.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Indentation {
    tab_eight: usize,
    tab_one: usize,
}

impl Indentation {
    fn add(&mut self, character: char) {
        match character {
            '\t' => {
                self.tab_eight = (self.tab_eight / 8 + 1) * 8;
                self.tab_one += 1;
            }
            // A form feed resets the column, as in Python.
            '\x0c' => *self = Indentation::default(),
            _ => {
                self.tab_eight += 1;
                self.tab_one += 1;
            }
        }
    }

    /// The ordering of `self` against `other`, or `None` when it depends on the tab size.
    fn compare(self, other: Indentation) -> Option<Ordering> {
        let by_eight = self.tab_eight.cmp(&other.tab_eight);
        (by_eight == self.tab_one.cmp(&other.tab_one)).then_some(by_eight)
    }
}

impl Lexer<'_> {
    /// Measure the leading whitespace of a line and emit INDENT/DEDENT; blank and comment-only
    /// lines do not count.
    pub(super) fn handle_indentation(&mut self) {
        let start = self.cursor.position();
        let mut indentation = Indentation::default();
        // Bytes, not chars: indentation is ASCII, and deep blocks make it long.
        let width = self.cursor.rest().bytes().take_while(|byte| matches!(byte, b' ' | b'\t' | b'\x0c')).count();
        let leading = &self.cursor.rest().as_bytes()[..width];
        if leading.iter().all(|&byte| byte == b' ') {
            indentation = Indentation { tab_eight: width, tab_one: width };
        } else {
            for &byte in leading {
                indentation.add(byte as char);
            }
        }
        self.cursor.skip_ascii(width);
        let end = self.cursor.position();
        if matches!(self.cursor.first(), None | Some('#' | '\n' | '\r')) {
            return;
        }
        let span = Span::new(start, end);
        let top = *self.indents.last().expect("the indentation stack keeps its base level");
        let ordering = match indentation.compare(top) {
            Some(ordering) => ordering,
            None => {
                self.report_mixed(span);
                indentation.tab_eight.cmp(&top.tab_eight)
            }
        };
        match ordering {
            Ordering::Equal => {}
            Ordering::Greater => {
                self.indents.push(indentation);
                self.tokens.push(Token { kind: TokenKind::Indent, span });
            }
            Ordering::Less => self.dedent(indentation, span),
        }
    }

    fn dedent(&mut self, indentation: Indentation, span: Span) {
        let mut mixed = false;
        while let Some(&top) = self.indents.last() {
            if self.indents.len() == 1 {
                break;
            }
            let ordering = indentation.compare(top).unwrap_or_else(|| {
                mixed = true;
                indentation.tab_eight.cmp(&top.tab_eight)
            });
            if ordering != Ordering::Less {
                break;
            }
            self.indents.pop();
            self.tokens.push(Token { kind: TokenKind::Dedent, span: Span::empty(span.end) });
        }
        if mixed {
            self.report_mixed(span);
        }
        let top = *self.indents.last().expect("the indentation stack keeps its base level");
        if top.tab_eight != indentation.tab_eight {
            self.report(
                SyntaxErrorKind::InconsistentDedent
                    .coded(SyntaxMessage::InconsistentDedent, span)
                    .with_help_message(SyntaxMessage::IndentLikeBlock),
            );
        }
    }

    fn report_mixed(&mut self, span: Span) {
        self.report(
            SyntaxErrorKind::MixedTabsAndSpaces
                .coded(SyntaxMessage::MixedTabsAndSpaces, span)
                .with_help_message(SyntaxMessage::IndentWithSpaces),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::syntax::lexer::lex;
    use crate::lang::syntax::token::TokenKind;

    fn codes(source: &str) -> Vec<&'static str> {
        lex(source).diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn tabs_alone_or_spaces_alone_are_consistent() {
        assert!(codes("if a:\n\tif b:\n\t\tc\n\td\n").is_empty());
        assert!(codes("if a:\n  if b:\n      c\n  d\n").is_empty());
    }

    #[test]
    fn a_tab_against_eight_spaces_is_ambiguous() {
        // Tab = 8 columns makes the lines equal; tab = 1 column makes the second shallower.
        assert_eq!(codes("if a:\n        b\n\tc\n"), ["syntax/mixed-tabs-and-spaces"]);
    }

    #[test]
    fn a_dedent_must_land_on_an_enclosing_level() {
        let output = lex("if a:\n    if b:\n        c\n  d\n");
        assert_eq!(output.diagnostics.len(), 1);
        assert_eq!(output.diagnostics[0].code, "syntax/inconsistent-dedent");
        let dedents = output.tokens.iter().filter(|t| t.kind == TokenKind::Dedent).count();
        let indents = output.tokens.iter().filter(|t| t.kind == TokenKind::Indent).count();
        assert_eq!(dedents, indents, "every INDENT is matched by a DEDENT");
    }

    #[test]
    fn a_form_feed_resets_the_column() {
        assert!(codes("if a:\n    b\n\x0cc\n").is_empty());
    }
}
