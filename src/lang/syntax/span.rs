//! Byte spans into the source text.

use serde::Serialize;

/// A half-open byte range `start..end` into the source; both ends lie on UTF-8 char boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, ts_rs::TS)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (the caller keeps `start <= end`).
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// An empty span at `offset`, used for "something is missing here".
    pub const fn empty(offset: usize) -> Self {
        Span { start: offset, end: offset }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn cover(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    /// The length in bytes.
    pub fn len(self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The source text the span covers (empty if the span does not fit the text).
    pub fn text(self, source: &str) -> &str {
        source.get(self.start..self.end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cover_takes_the_outer_bounds() {
        assert_eq!(Span::new(3, 5).cover(Span::new(1, 4)), Span::new(1, 5));
        assert_eq!(Span::new(3, 5).len(), 2);
        assert!(Span::empty(7).is_empty());
    }

    #[test]
    fn text_is_empty_when_out_of_range_or_off_boundary() {
        let source = "a张b";
        assert_eq!(Span::new(1, 4).text(source), "张");
        assert_eq!(Span::new(1, 2).text(source), "");
        assert_eq!(Span::new(9, 12).text(source), "");
    }
}
