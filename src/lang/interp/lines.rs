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
