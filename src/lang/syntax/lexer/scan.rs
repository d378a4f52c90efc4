//! Scanning one token: names and keywords, numbers, strings, operators, and the characters that
//! cannot start a token.

use super::Lexer;
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::literal::parse_number;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::SyntaxMessage;

/// Whether `character` can start a name (Python allows Unicode letters, e.g. Chinese).
pub(crate) fn is_name_start(character: char) -> bool {
    character == '_' || character.is_alphabetic()
}

/// Whether `character` can continue a name.
pub(crate) fn is_name_continue(character: char) -> bool {
    character == '_' || character.is_alphanumeric() || is_combining_mark(character)
}

fn is_combining_mark(character: char) -> bool {
    matches!(character as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// String prefixes Python accepts (case-insensitive); `b` is lexed so the parser can reject it.
fn is_string_prefix(word: &str) -> bool {
    matches!(word.to_ascii_lowercase().as_str(), "r" | "u" | "f" | "b" | "br" | "rb" | "fr" | "rf")
}

impl Lexer<'_> {
    pub(super) fn token(&mut self, character: char, start: usize) {
        if is_name_start(character) {
            self.cursor.eat_while(is_name_continue);
            let word = &self.cursor.source()[start..self.cursor.position()];
            if matches!(self.cursor.first(), Some('"' | '\'')) && is_string_prefix(word) {
                return self.string(start);
            }
            let kind = TokenKind::keyword(word).unwrap_or(TokenKind::Name);
            return self.push(kind, Span::new(start, self.cursor.position()));
        }
        if character.is_ascii_digit() || (character == '.' && self.cursor.second().is_some_and(|c| c.is_ascii_digit()))
        {
            return self.number(start);
        }
        if character == '"' || character == '\'' {
            return self.string(start);
        }
        if let Some((kind, length)) = operator(self.cursor.rest()) {
            self.cursor.skip_ascii(length);
            let span = Span::new(start, start + length);
            return if kind.is_open_bracket() {
                self.open_bracket(kind, span)
            } else if kind.is_close_bracket() {
                self.close_bracket(kind, span)
            } else {
                self.push(kind, span)
            };
        }
        self.cursor.bump();
        self.invalid_character(character, Span::new(start, self.cursor.position()));
    }

    fn number(&mut self, start: usize) {
        let radix =
            self.cursor.first() == Some('0') && matches!(self.cursor.second(), Some('x' | 'X' | 'o' | 'O' | 'b' | 'B'));
        if radix {
            self.cursor.skip_ascii(2);
            self.cursor.eat_while(|c| c.is_ascii_alphanumeric() || c == '_');
        } else {
            self.cursor.eat_while(|c| c.is_ascii_digit() || c == '_');
            if self.cursor.first() == Some('.') && self.cursor.second() != Some('.') {
                self.cursor.bump();
                self.cursor.eat_while(|c| c.is_ascii_digit() || c == '_');
            }
            if matches!(self.cursor.first(), Some('e' | 'E')) {
                let sign = matches!(self.cursor.second(), Some('+' | '-'));
                let digit_after = if sign { self.cursor.third() } else { self.cursor.second() };
                if digit_after.is_some_and(|c| c.is_ascii_digit()) {
                    self.cursor.skip_ascii(if sign { 2 } else { 1 });
                }
            }
            // Letters glued to a number make one bad literal, not a number and a name.
            self.cursor.eat_while(is_name_continue);
        }
        let span = Span::new(start, self.cursor.position());
        let text = span.text(self.cursor.source());
        let kind = match parse_number(text) {
            Ok(crate::lang::syntax::literal::NumberValue::Float(_)) => TokenKind::Float,
            Ok(_) => TokenKind::Int,
            Err(error) => {
                let (message, help) = *error;
                let mut diagnostic = SyntaxErrorKind::InvalidNumber.coded(message, span);
                if let Some(help) = help {
                    diagnostic = diagnostic.with_help_message(help);
                }
                self.report(diagnostic);
                if text.contains(['.', 'e', 'E']) && !radix {
                    TokenKind::Float
                } else {
                    TokenKind::Int
                }
            }
        };
        self.push(kind, span);
    }

    /// Scan a string literal from `start` (where its prefix, if any, begins); the cursor is at
    /// the opening quote.
    fn string(&mut self, start: usize) {
        let quote = self.cursor.bump().expect("the caller saw a quote");
        let triple = self.cursor.first() == Some(quote) && self.cursor.second() == Some(quote);
        if triple {
            self.cursor.skip_ascii(2);
        }
        while let Some(character) = self.cursor.first() {
            match character {
                '\\' => {
                    self.cursor.bump();
                    if self.cursor.bump() == Some('\r') {
                        self.cursor.eat('\n');
                    }
                }
                '\n' | '\r' if !triple => break,
                c if c == quote => {
                    if !triple {
                        self.cursor.bump();
                        return self.push(TokenKind::String, Span::new(start, self.cursor.position()));
                    }
                    if self.cursor.second() == Some(quote) && self.cursor.third() == Some(quote) {
                        self.cursor.skip_ascii(3);
                        return self.push(TokenKind::String, Span::new(start, self.cursor.position()));
                    }
                    self.cursor.bump();
                }
                _ => {
                    self.cursor.bump();
                }
            }
        }
        let span = Span::new(start, self.cursor.position());
        let quote = quote.to_string();
        let (message, help) = if triple {
            (SyntaxMessage::UnterminatedTripleString, SyntaxMessage::CloseTripleString { quote })
        } else {
            (SyntaxMessage::UnterminatedString, SyntaxMessage::CloseString { quote })
        };
        self.report(SyntaxErrorKind::UnterminatedString.coded(message, span).with_help_message(help));
        self.push(TokenKind::UnterminatedString, span);
    }

    fn invalid_character(&mut self, character: char, span: Span) {
        if let Some((ascii, kind)) = full_width(character) {
            self.report(
                SyntaxErrorKind::FullWidthPunctuation
                    .coded(
                        SyntaxMessage::FullWidth {
                            character: character.to_string(),
                            code_point: format!("{:04X}", character as u32),
                        },
                        span,
                    )
                    .with_help_message(SyntaxMessage::UseAscii { ascii: ascii.to_string() }),
            );
            return match kind {
                Some(kind) if kind.is_open_bracket() => self.open_bracket(kind, span),
                Some(kind) if kind.is_close_bracket() => self.close_bracket(kind, span),
                Some(kind) => self.push(kind, span),
                None => {}
            };
        }
        // A run of garbage (binary data, a pasted symbol string) is one diagnostic, not hundreds.
        if let Some(last) = self.diagnostics.last_mut() {
            if last.code == SyntaxErrorKind::InvalidCharacter.code() && last.span.end == span.start {
                last.span.end = span.end;
                return;
            }
        }
        let help = match character {
            '!' => Some(SyntaxMessage::UseNot),
            '?' => Some(SyntaxMessage::UseConditional),
            '$' | '`' => Some(SyntaxMessage::NameCharacters),
            _ => None,
        };
        let code_point = format!("{:04X}", character as u32);
        let message = if character.is_control() || character.is_whitespace() {
            SyntaxMessage::InvalidInvisibleCharacter { code_point }
        } else {
            SyntaxMessage::InvalidCharacter { character: character.to_string(), code_point }
        };
        let mut diagnostic = SyntaxErrorKind::InvalidCharacter.coded(message, span);
        if let Some(help) = help {
            diagnostic = diagnostic.with_help_message(help);
        }
        self.report(diagnostic);
    }
}

/// Full-width punctuation a Chinese input method produces, its ASCII twin and the token that twin
/// makes (`None` when the twin cannot be used alone, like a quote, or is only spacing).
fn full_width(character: char) -> Option<(char, Option<TokenKind>)> {
    use TokenKind::*;
    Some(match character {
        '（' => ('(', Some(LeftParen)),
        '）' => (')', Some(RightParen)),
        '［' | '【' => ('[', Some(LeftBracket)),
        '］' | '】' => (']', Some(RightBracket)),
        '｛' => ('{', Some(LeftBrace)),
        '｝' => ('}', Some(RightBrace)),
        '，' | '、' => (',', Some(Comma)),
        '：' => (':', Some(Colon)),
        '；' => (';', Some(Semicolon)),
        '＝' => ('=', Some(Equal)),
        '＋' => ('+', Some(Plus)),
        '－' => ('-', Some(Minus)),
        '＊' => ('*', Some(Star)),
        '／' => ('/', Some(Slash)),
        '．' | '。' => ('.', Some(Dot)),
        '＜' => ('<', Some(Less)),
        '＞' => ('>', Some(Greater)),
        '“' | '”' | '＂' => ('"', Option::None),
        '‘' | '’' | '＇' => ('\'', Option::None),
        '\u{3000}' => (' ', Option::None),
        _ => return Option::None,
    })
}

/// The operator or bracket at the start of `text` (longest match) and its length in bytes.
fn operator(text: &str) -> Option<(TokenKind, usize)> {
    use TokenKind::*;
    let bytes = text.as_bytes();
    let first = *bytes.first()?;
    let second = bytes.get(1).copied().unwrap_or(0);
    let third = bytes.get(2).copied().unwrap_or(0);
    Some(match (first, second, third) {
        (b'*', b'*', b'=') => (DoubleStarEqual, 3),
        (b'/', b'/', b'=') => (DoubleSlashEqual, 3),
        (b'>', b'>', b'=') => (RightShiftEqual, 3),
        (b'<', b'<', b'=') => (LeftShiftEqual, 3),
        (b'.', b'.', b'.') => (Ellipsis, 3),
        (b'*', b'*', _) => (DoubleStar, 2),
        (b'/', b'/', _) => (DoubleSlash, 2),
        (b'<', b'<', _) => (LeftShift, 2),
        (b'>', b'>', _) => (RightShift, 2),
        (b'-', b'>', _) => (Arrow, 2),
        (b':', b'=', _) => (ColonEqual, 2),
        (b'=', b'=', _) => (EqualEqual, 2),
        (b'!', b'=', _) => (NotEqual, 2),
        (b'<', b'=', _) => (LessEqual, 2),
        (b'>', b'=', _) => (GreaterEqual, 2),
        (b'+', b'=', _) => (PlusEqual, 2),
        (b'-', b'=', _) => (MinusEqual, 2),
        (b'*', b'=', _) => (StarEqual, 2),
        (b'/', b'=', _) => (SlashEqual, 2),
        (b'%', b'=', _) => (PercentEqual, 2),
        (b'@', b'=', _) => (AtEqual, 2),
        (b'&', b'=', _) => (AmpersandEqual, 2),
        (b'|', b'=', _) => (PipeEqual, 2),
        (b'^', b'=', _) => (CaretEqual, 2),
        (b'(', _, _) => (LeftParen, 1),
        (b')', _, _) => (RightParen, 1),
        (b'[', _, _) => (LeftBracket, 1),
        (b']', _, _) => (RightBracket, 1),
        (b'{', _, _) => (LeftBrace, 1),
        (b'}', _, _) => (RightBrace, 1),
        (b':', _, _) => (Colon, 1),
        (b',', _, _) => (Comma, 1),
        (b';', _, _) => (Semicolon, 1),
        (b'.', _, _) => (Dot, 1),
        (b'+', _, _) => (Plus, 1),
        (b'-', _, _) => (Minus, 1),
        (b'*', _, _) => (Star, 1),
        (b'/', _, _) => (Slash, 1),
        (b'%', _, _) => (Percent, 1),
        (b'@', _, _) => (At, 1),
        (b'=', _, _) => (Equal, 1),
        (b'<', _, _) => (Less, 1),
        (b'>', _, _) => (Greater, 1),
        (b'&', _, _) => (Ampersand, 1),
        (b'|', _, _) => (Pipe, 1),
        (b'^', _, _) => (Caret, 1),
        (b'~', _, _) => (Tilde, 1),
        _ => return Option::None,
    })
}

#[cfg(test)]
mod tests {
    use crate::lang::syntax::lexer::lex;
    use crate::lang::syntax::span::Span;
    use crate::lang::syntax::token::TokenKind::{self, *};

    fn kinds(source: &str) -> Vec<TokenKind> {
        let tokens = lex(source).tokens;
        tokens[..tokens.len() - 2].iter().map(|token| token.kind).collect()
    }

    #[test]
    fn numbers_names_and_keywords() {
        assert_eq!(
            kinds("1 1.5 .5 1e-5 0x_1f 1_000 张量 _x if None\n"),
            [Int, Float, Float, Float, Int, Int, Name, Name, If, None]
        );
        // `1.` followed by `.` is not a float.
        assert_eq!(kinds("x[1:]...\n"), [Name, LeftBracket, Int, Colon, RightBracket, Ellipsis]);
    }

    #[test]
    fn operators_take_the_longest_match() {
        assert_eq!(
            kinds("**= ** * //= // -> := != <<= @=\n"),
            [
                DoubleStarEqual,
                DoubleStar,
                Star,
                DoubleSlashEqual,
                DoubleSlash,
                Arrow,
                ColonEqual,
                NotEqual,
                LeftShiftEqual,
                AtEqual
            ]
        );
    }

    #[test]
    fn strings_with_prefixes_quotes_and_escapes() {
        let source = "r'\\d' f\"{x}\" b'' '''a\n'b''' \"q\\\"q\"\n";
        assert_eq!(kinds(source), [String, String, String, String, String]);
        assert!(lex(source).diagnostics.is_empty());
        // A prefix that is not a string prefix stays a name.
        assert_eq!(kinds("rx'a'\n"), [Name, String]);
    }

    #[test]
    fn unterminated_strings_stop_at_the_line_end_or_input_end() {
        let output = lex("s = 'abc\nt = '''x\n");
        let spans: Vec<Span> = output.diagnostics.iter().map(|d| d.span).collect();
        // The triple-quoted one runs to the end of the input (18 bytes), newline included.
        assert_eq!(spans, [Span::new(4, 8), Span::new(13, 18)]);
        assert!(output.diagnostics[1].message.contains("triple-quoted"));
    }

    #[test]
    fn full_width_punctuation_is_reported_and_read_as_ascii() {
        let output = lex("f（a，b）\n");
        assert_eq!(output.diagnostics.len(), 3);
        let kinds: Vec<TokenKind> = output.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [Name, LeftParen, Name, Comma, Name, RightParen, Newline, EndOfFile]);
        // '（' is three bytes long.
        assert_eq!(output.tokens[1].span, Span::new(1, 4));
    }

    #[test]
    fn a_run_of_invalid_characters_is_one_diagnostic() {
        let output = lex("x = \u{fffd}\u{fffd}$$ + 1\n");
        assert_eq!(output.diagnostics.len(), 1);
        assert_eq!(output.diagnostics[0].span, Span::new(4, 12));
    }

    #[test]
    fn invalid_characters_are_skipped_with_a_hint() {
        let output = lex("a ! b ?\n");
        assert_eq!(output.diagnostics.len(), 2);
        assert!(output.diagnostics[0].help.as_deref().is_some_and(|help| help.contains("not")));
        assert_eq!(kinds("a ! b ?\n"), [Name, Name]);
    }
}
