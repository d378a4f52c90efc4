//! Token kinds and tokens (a kind plus a byte span); literal values are decoded by the parser.

use super::span::Span;

/// What a token is. Literal contents stay in the source and are read through the span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TokenKind {
    Name,
    Int,
    Float,
    /// A complete string literal, prefix and quotes included (`f"…"`, `r'…'`, `"""…"""`).
    String,
    /// A string literal whose closing quote is missing (already reported by the lexer).
    UnterminatedString,
    Newline,
    Indent,
    Dedent,
    EndOfFile,
    // Keywords.
    False,
    None,
    True,
    And,
    As,
    Assert,
    Async,
    Await,
    Break,
    Class,
    Continue,
    Def,
    Del,
    Elif,
    Else,
    Except,
    Finally,
    For,
    From,
    Global,
    If,
    Import,
    In,
    Is,
    Lambda,
    Nonlocal,
    Not,
    Or,
    Pass,
    Raise,
    Return,
    Try,
    While,
    With,
    Yield,
    // Brackets and punctuation.
    LeftParen,
    RightParen,
    LeftBracket,
    RightBracket,
    LeftBrace,
    RightBrace,
    Colon,
    Comma,
    Semicolon,
    Dot,
    Ellipsis,
    Arrow,
    ColonEqual,
    // Operators of the subset.
    Plus,
    Minus,
    Star,
    DoubleStar,
    Slash,
    DoubleSlash,
    Percent,
    At,
    Equal,
    EqualEqual,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    PlusEqual,
    MinusEqual,
    StarEqual,
    SlashEqual,
    DoubleSlashEqual,
    PercentEqual,
    DoubleStarEqual,
    AtEqual,
    // Python operators outside the subset (lexed so the parser can name them).
    Ampersand,
    Pipe,
    Caret,
    Tilde,
    LeftShift,
    RightShift,
    AmpersandEqual,
    PipeEqual,
    CaretEqual,
    LeftShiftEqual,
    RightShiftEqual,
}

impl TokenKind {
    /// The keyword spelled `word`, if it is one.
    pub fn keyword(word: &str) -> Option<TokenKind> {
        use TokenKind::*;
        Some(match word {
            "False" => False,
            "None" => None,
            "True" => True,
            "and" => And,
            "as" => As,
            "assert" => Assert,
            "async" => Async,
            "await" => Await,
            "break" => Break,
            "class" => Class,
            "continue" => Continue,
            "def" => Def,
            "del" => Del,
            "elif" => Elif,
            "else" => Else,
            "except" => Except,
            "finally" => Finally,
            "for" => For,
            "from" => From,
            "global" => Global,
            "if" => If,
            "import" => Import,
            "in" => In,
            "is" => Is,
            "lambda" => Lambda,
            "nonlocal" => Nonlocal,
            "not" => Not,
            "or" => Or,
            "pass" => Pass,
            "raise" => Raise,
            "return" => Return,
            "try" => Try,
            "while" => While,
            "with" => With,
            "yield" => Yield,
            _ => return Option::None,
        })
    }

    /// Whether this kind is a keyword.
    pub fn is_keyword(self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            False
                | None
                | True
                | And
                | As
                | Assert
                | Async
                | Await
                | Break
                | Class
                | Continue
                | Def
                | Del
                | Elif
                | Else
                | Except
                | Finally
                | For
                | From
                | Global
                | If
                | Import
                | In
                | Is
                | Lambda
                | Nonlocal
                | Not
                | Or
                | Pass
                | Raise
                | Return
                | Try
                | While
                | With
                | Yield
        )
    }

    /// Whether this kind opens a bracket.
    pub fn is_open_bracket(self) -> bool {
        matches!(self, TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace)
    }

    /// Whether this kind closes a bracket.
    pub fn is_close_bracket(self) -> bool {
        matches!(self, TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace)
    }

    /// A short description for messages: `':'`, `a name`, `the end of the line`.
    pub fn describe(self) -> &'static str {
        use TokenKind::*;
        match self {
            Name => "a name",
            Int | Float => "a number",
            String | UnterminatedString => "a string",
            Newline => "the end of the line",
            Indent => "an indent",
            Dedent => "a dedent",
            EndOfFile => "the end of the input",
            other => other.spelling(),
        }
    }

    /// The fixed spelling of a keyword or operator, quoted (`'for'`, `'+='`); `''` for the rest.
    pub fn spelling(self) -> &'static str {
        use TokenKind::*;
        match self {
            False => "'False'",
            None => "'None'",
            True => "'True'",
            And => "'and'",
            As => "'as'",
            Assert => "'assert'",
            Async => "'async'",
            Await => "'await'",
            Break => "'break'",
            Class => "'class'",
            Continue => "'continue'",
            Def => "'def'",
            Del => "'del'",
            Elif => "'elif'",
            Else => "'else'",
            Except => "'except'",
            Finally => "'finally'",
            For => "'for'",
            From => "'from'",
            Global => "'global'",
            If => "'if'",
            Import => "'import'",
            In => "'in'",
            Is => "'is'",
            Lambda => "'lambda'",
            Nonlocal => "'nonlocal'",
            Not => "'not'",
            Or => "'or'",
            Pass => "'pass'",
            Raise => "'raise'",
            Return => "'return'",
            Try => "'try'",
            While => "'while'",
            With => "'with'",
            Yield => "'yield'",
            LeftParen => "'('",
            RightParen => "')'",
            LeftBracket => "'['",
            RightBracket => "']'",
            LeftBrace => "'{'",
            RightBrace => "'}'",
            Colon => "':'",
            Comma => "','",
            Semicolon => "';'",
            Dot => "'.'",
            Ellipsis => "'...'",
            Arrow => "'->'",
            ColonEqual => "':='",
            Plus => "'+'",
            Minus => "'-'",
            Star => "'*'",
            DoubleStar => "'**'",
            Slash => "'/'",
            DoubleSlash => "'//'",
            Percent => "'%'",
            At => "'@'",
            Equal => "'='",
            EqualEqual => "'=='",
            NotEqual => "'!='",
            Less => "'<'",
            LessEqual => "'<='",
            Greater => "'>'",
            GreaterEqual => "'>='",
            PlusEqual => "'+='",
            MinusEqual => "'-='",
            StarEqual => "'*='",
            SlashEqual => "'/='",
            DoubleSlashEqual => "'//='",
            PercentEqual => "'%='",
            DoubleStarEqual => "'**='",
            AtEqual => "'@='",
            Ampersand => "'&'",
            Pipe => "'|'",
            Caret => "'^'",
            Tilde => "'~'",
            LeftShift => "'<<'",
            RightShift => "'>>'",
            AmpersandEqual => "'&='",
            PipeEqual => "'|='",
            CaretEqual => "'^='",
            LeftShiftEqual => "'<<='",
            RightShiftEqual => "'>>='",
            Name | Int | Float | String | UnterminatedString | Newline | Indent | Dedent | EndOfFile => "''",
        }
    }
}

/// One token: its kind and the bytes it covers (zero-width for INDENT/DEDENT, the end of input,
/// and closing brackets the lexer inserted to balance an unclosed one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// The bytes of the token.
    pub span: Span,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_round_trip_through_their_spelling() {
        for word in ["for", "def", "None", "lambda", "yield", "nonlocal"] {
            let kind = TokenKind::keyword(word).expect("a keyword");
            assert!(kind.is_keyword());
            assert_eq!(kind.spelling(), format!("'{word}'"));
        }
        assert_eq!(TokenKind::keyword("pypto"), None);
        assert!(!TokenKind::Name.is_keyword());
    }

    #[test]
    fn descriptions_read_as_english() {
        assert_eq!(TokenKind::Newline.describe(), "the end of the line");
        assert_eq!(TokenKind::Colon.describe(), "':'");
        assert!(TokenKind::LeftBrace.is_open_bracket() && TokenKind::RightBrace.is_close_bracket());
    }
}
