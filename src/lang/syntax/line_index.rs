//! Byte offset → line and column, and the `FILE:LINE:COL: error: message` rendering with the
//! source line and a caret underline.

use super::diagnostic::Diagnostic;

/// A 1-based line and a 1-based column counted in characters (Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineColumn {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters from the start of the line.
    pub column: usize,
}

/// The byte offsets where lines start, for mapping spans to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    length: usize,
}

impl LineIndex {
    /// Index the lines of `source` (lines end at `\n`; a `\r` before it belongs to the line end).
    pub fn new(source: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(source.match_indices('\n').map(|(offset, _)| offset + 1));
        LineIndex { line_starts, length: source.len() }
    }

    /// The number of lines (an empty source has one empty line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 0-based index of the line containing `offset` (offsets past the end map to the last line).
    fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.length);
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// The line and column of byte `offset` in `source` (the same text the index was built from);
    /// an offset inside a character is moved back to the character's start.
    pub fn line_column(&self, source: &str, offset: usize) -> LineColumn {
        let offset = floor_char_boundary(source, offset);
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let column = source.get(start..offset).map_or(0, |text| text.chars().count()) + 1;
        LineColumn { line: line + 1, column }
    }

    /// The column of byte `offset` counted in UTF-16 code units (0-based), as JavaScript editors
    /// count positions within a line.
    pub fn utf16_column(&self, source: &str, offset: usize) -> usize {
        let offset = floor_char_boundary(source, offset);
        let start = self.line_starts[self.line_of(offset)];
        source.get(start..offset).map_or(0, |text| text.encode_utf16().count())
    }

    /// The absolute offset of byte `offset` in UTF-16 code units (CodeMirror document positions).
    pub fn utf16_offset(&self, source: &str, offset: usize) -> usize {
        let offset = floor_char_boundary(source, offset);
        let line_start = self.line_starts[self.line_of(offset)];
        // Linear in `offset`: meant for the few positions of diagnostics, not for every token.
        let before: usize = source[..line_start].encode_utf16().count();
        before + self.utf16_column(source, offset)
    }

    /// The text of 1-based `line` without its line ending (empty for a line that does not exist).
    pub fn line_text<'a>(&self, source: &'a str, line: usize) -> &'a str {
        let Some(&start) = line.checked_sub(1).and_then(|index| self.line_starts.get(index)) else {
            return "";
        };
        let end = self.line_starts.get(line).map_or(source.len(), |&next| next - 1);
        let text = source.get(start..end.max(start)).unwrap_or("");
        text.strip_suffix('\r').unwrap_or(text)
    }

    /// Render `diagnostic` the way compilers do:
    /// `FILE:LINE:COL: error: message`, the source line, a caret underline, then note and help.
    pub fn render(&self, source: &str, file_name: &str, diagnostic: &Diagnostic) -> String {
        let start = self.line_column(source, diagnostic.span.start);
        let mut out = format!(
            "{file_name}:{}:{}: {}: {}\n",
            start.line,
            start.column,
            diagnostic.severity.as_str(),
            diagnostic.message
        );
        let line_text = self.line_text(source, start.line);
        let gutter = start.line.to_string();
        let pad = " ".repeat(gutter.len());
        let line_start = self.line_starts[start.line - 1];
        let before = source.get(line_start..floor_char_boundary(source, diagnostic.span.start)).unwrap_or("");
        let line_end = line_start + line_text.len();
        let underlined_end = floor_char_boundary(source, diagnostic.span.end.min(line_end).max(diagnostic.span.start));
        let underlined = source.get(floor_char_boundary(source, diagnostic.span.start)..underlined_end).unwrap_or("");
        let caret_count = display_width(underlined).max(1);
        out.push_str(&format!("{gutter} | {}\n", expand_tabs(line_text)));
        out.push_str(&format!("{pad} | {}{}\n", " ".repeat(display_width(before)), "^".repeat(caret_count)));
        if let Some(note) = &diagnostic.note {
            match note.span {
                Some(span) => {
                    let at = self.line_column(source, span.start);
                    out.push_str(&format!("{pad} = note: {} ({file_name}:{}:{})\n", note.message, at.line, at.column));
                }
                None => out.push_str(&format!("{pad} = note: {}\n", note.message)),
            }
        }
        if let Some(help) = &diagnostic.help {
            out.push_str(&format!("{pad} = help: {help}\n"));
        }
        out
    }
}

/// The largest char boundary of `source` at or before `offset`.
pub fn floor_char_boundary(source: &str, offset: usize) -> usize {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Tabs shown as four spaces so the caret line (which counts a tab as four) stays aligned.
fn expand_tabs(text: &str) -> String {
    text.replace('\t', "    ")
}

/// The number of terminal columns `text` takes: East Asian wide characters take two, combining
/// marks none, a tab four.
pub fn display_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

fn char_width(character: char) -> usize {
    let code = character as u32;
    match code {
        0x09 => 4,
        0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::syntax::span::Span;

    #[test]
    fn columns_count_characters_not_bytes() {
        // "张量 = 1": '张' and '量' are 3 bytes each, so '=' is at byte 7 but column 4.
        let source = "x = 1\n张量 = 1\n";
        let index = LineIndex::new(source);
        assert_eq!(index.line_column(source, 0), LineColumn { line: 1, column: 1 });
        assert_eq!(index.line_column(source, 13), LineColumn { line: 2, column: 4 });
        assert_eq!(index.utf16_column(source, 13), 3);
        // "x = 1\n" is 6 UTF-16 units, then '张量 ' is 3 more.
        assert_eq!(index.utf16_offset(source, 13), 9);
        // An offset inside '张' (bytes 6..9) is moved back to its start.
        assert_eq!(index.line_column(source, 7), LineColumn { line: 2, column: 1 });
        assert_eq!(index.line_text(source, 2), "张量 = 1");
        assert_eq!(index.line_text(source, 3), "");
        assert_eq!(index.line_text(source, 9), "");
    }

    #[test]
    fn past_the_end_maps_to_the_last_line() {
        let source = "a\nbc";
        let index = LineIndex::new(source);
        assert_eq!(index.line_column(source, 100), LineColumn { line: 2, column: 3 });
    }

    #[test]
    fn render_underlines_wide_characters_twice() {
        // '张量' is 4 terminal columns wide, so it gets four carets after "y = " (4 columns).
        let source = "y = 张量 +\n";
        let index = LineIndex::new(source);
        let diagnostic = Diagnostic::error("syntax/test", "bad name", Span::new(4, 10)).with_help("rename it");
        let rendered = index.render(source, "cell.py", &diagnostic);
        assert_eq!(rendered, "cell.py:1:5: error: bad name\n1 | y = 张量 +\n  |     ^^^^\n  = help: rename it\n");
    }

    #[test]
    fn empty_span_gets_one_caret_and_crlf_is_stripped() {
        let source = "for i in x\r\n";
        let index = LineIndex::new(source);
        let diagnostic = Diagnostic::error("syntax/test", "expected ':'", Span::empty(10))
            .with_note("header starts here", Some(Span::new(0, 3)));
        let rendered = index.render(source, "a.py", &diagnostic);
        assert_eq!(
            rendered,
            "a.py:1:11: error: expected ':'\n1 | for i in x\n  |           ^\n  = note: header starts here (a.py:1:1)\n"
        );
    }
}
