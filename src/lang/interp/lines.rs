//! Lines of cells: what turns a span into the line number a message names (a file line when the
//! cell came from a file, as in the CLI).

use std::rc::Rc;

use super::error::SourceSpan;
use super::interpreter::Interpreter;
use crate::lang::syntax::Span;

impl Interpreter {
    /// Remembers the text of cell `cell`, so kernel ops can name their source line.
    pub fn set_cell_source(&self, cell: usize, source: &str) {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(offset, _)| offset + 1));
        self.cell_lines.borrow_mut().insert(cell, Rc::new(starts));
    }

    /// Says that cell `cell` starts at line `first_line` of its file: the lines that messages
    /// name (a fallback's op, a tile shape's call) are then file lines.
    pub fn set_cell_first_line(&self, cell: usize, first_line: usize) {
        let first_line = u32::try_from(first_line.max(1)).unwrap_or(u32::MAX);
        self.cell_first_lines.borrow_mut().insert(cell, first_line);
    }

    /// The file line of the first line of cell `cell` (1 when the cell did not come from a file).
    pub(crate) fn first_line_of(&self, cell: usize) -> usize {
        self.cell_first_lines.borrow().get(&cell).map_or(1, |&line| line as usize)
    }

    /// The 1-based line of `span` in the running cell, when its text is known.
    pub(crate) fn line_of(&self, span: Span) -> Option<u32> {
        self.line_at(SourceSpan { cell: self.current_cell(), span })
    }

    /// The 1-based line of `location` in its cell's file (in the cell itself when the cell did not
    /// come from a file), when the cell's text is known.
    pub(crate) fn line_at(&self, location: SourceSpan) -> Option<u32> {
        let lines = self.cell_lines.borrow().get(&location.cell)?.clone();
        let line = lines.partition_point(|&start| start <= location.span.start) as u32;
        let first_line = self.cell_first_lines.borrow().get(&location.cell).copied().unwrap_or(1);
        Some(line.saturating_add(first_line - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::interp::Limits;

    /// A cell that starts on line 10 of its file: its third line is file line 12, and a file
    /// line turns back into the cell's line by the same first line.
    #[test]
    fn file_lines_go_both_ways() {
        let interpreter = Interpreter::new(Limits::default());
        interpreter.set_cell_source(1, "a = 1\nb = 2\nc = 3\n");
        interpreter.set_cell_source(2, "d = 4\n");
        interpreter.set_cell_first_line(1, 10);
        let third = SourceSpan { cell: 1, span: Span::new(12, 13) };
        assert_eq!(interpreter.line_at(third), Some(12));
        assert_eq!(12 - interpreter.first_line_of(1), 2, "index of the cell's third line");
        // A cell without a file counts from 1.
        assert_eq!(interpreter.line_at(SourceSpan { cell: 2, span: Span::new(0, 1) }), Some(1));
        assert_eq!(interpreter.first_line_of(2), 1);
    }
}
