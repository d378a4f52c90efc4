//! A character cursor over the source with a byte position, the lexer's only view of the text.

/// Walks the characters of `source[start..end]`, keeping the absolute byte offset.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    source: &'a str,
    position: usize,
    end: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor over `source[start..end]`; both bounds must be char boundaries of `source`.
    pub fn new(source: &'a str, start: usize, end: usize) -> Self {
        Cursor { source, position: start, end }
    }

    /// The absolute byte offset of the next character.
    pub fn position(&self) -> usize {
        self.position
    }

    /// The whole source text (spans are absolute offsets into it).
    pub fn source(&self) -> &'a str {
        self.source
    }

    /// The absolute byte offset where the cursor stops.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The text not yet consumed.
    pub fn rest(&self) -> &'a str {
        &self.source[self.position..self.end]
    }

    /// Whether every character has been consumed.
    pub fn is_at_end(&self) -> bool {
        self.position >= self.end
    }

    /// The next character, if any, without consuming it.
    pub fn first(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The character after the next one, if any.
    pub fn second(&self) -> Option<char> {
        let mut characters = self.rest().chars();
        characters.next();
        characters.next()
    }

    /// The third character from here, if any.
    pub fn third(&self) -> Option<char> {
        self.rest().chars().nth(2)
    }

    /// Consume and return the next character.
    pub fn bump(&mut self) -> Option<char> {
        let character = self.first()?;
        self.position += character.len_utf8();
        Some(character)
    }

    /// Consume the next character if it equals `expected`.
    pub fn eat(&mut self, expected: char) -> bool {
        if self.first() == Some(expected) {
            self.position += expected.len_utf8();
            true
        } else {
            false
        }
    }

    /// Consume characters while `predicate` holds.
    pub fn eat_while(&mut self, mut predicate: impl FnMut(char) -> bool) {
        while let Some(character) = self.first() {
            if !predicate(character) {
                break;
            }
            self.position += character.len_utf8();
        }
    }

    /// Whether the unconsumed text starts with `prefix`.
    pub fn starts_with(&self, prefix: &str) -> bool {
        self.rest().starts_with(prefix)
    }

    /// Consume `count` bytes of ASCII (the caller has checked they are ASCII).
    pub fn skip_ascii(&mut self, count: usize) {
        self.position = (self.position + count).min(self.end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_unicode_with_byte_positions() {
        let mut cursor = Cursor::new("a张b", 0, 5);
        assert_eq!(cursor.bump(), Some('a'));
        assert_eq!(cursor.first(), Some('张'));
        assert_eq!(cursor.second(), Some('b'));
        cursor.bump();
        assert_eq!(cursor.position(), 4);
        assert!(cursor.eat('b'));
        assert!(cursor.is_at_end());
        assert_eq!(cursor.bump(), None);
    }

    #[test]
    fn respects_the_end_bound() {
        let mut cursor = Cursor::new("abcdef", 1, 3);
        cursor.eat_while(|_| true);
        assert_eq!(cursor.position(), 3);
        assert_eq!(cursor.rest(), "");
    }
}
