//! Diagnostics as text for a terminal: `FILE:LINE:COL: error: message`, the source line, a caret
//! underline, help and the traceback. Lines are shifted so they are lines of the file the cell
//! came from.

use super::result::CellDiagnostic;
use crate::lang::syntax::line_index::display_width;
use crate::lang::syntax::LineIndex;

/// Where a cell's text sits in a file: its name and the file line of the cell's first line.
#[derive(Debug, Clone, Copy)]
pub struct CellOrigin<'a> {
    /// The file name shown before the position.
    pub file: &'a str,
    /// The 1-based file line of the cell's first line.
    pub first_line: usize,
}

/// Renders `diagnostic`, found in `source` (the text of the cell `origin` describes); `origin_of`
/// gives the source and origin of other cells (for traceback lines).
pub fn render_diagnostic<'a>(
    diagnostic: &CellDiagnostic,
    source: &str,
    origin: CellOrigin<'a>,
    origin_of: &dyn Fn(usize) -> Option<CellOrigin<'a>>,
) -> String {
    let line = origin.first_line + diagnostic.line - 1;
    let mut out = format!(
        "{}:{}:{}: {}: {}\n",
        origin.file,
        line,
        diagnostic.column,
        diagnostic.severity.as_str(),
        diagnostic.message
    );
    let index = LineIndex::new(source);
    let text = index.line_text(source, diagnostic.line);
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    let line_start = diagnostic.span.start
        - source[..diagnostic.span.start]
            .rfind('\n')
            .map_or(diagnostic.span.start, |newline| diagnostic.span.start - newline - 1);
    let before = source.get(line_start..diagnostic.span.start).unwrap_or("");
    let end = diagnostic.span.end.min(line_start + text.len()).max(diagnostic.span.start);
    let underlined = source.get(diagnostic.span.start..end).unwrap_or("");
    out.push_str(&format!("{gutter} | {}\n", text.replace('\t', "    ")));
    out.push_str(&format!(
        "{pad} | {}{}\n",
        " ".repeat(display_width(before)),
        "^".repeat(display_width(underlined).max(1))
    ));
    if let Some(note) = &diagnostic.note {
        out.push_str(&format!("{pad} = note: {}\n", note.replace('\n', &format!("\n{pad}         "))));
    }
    if let Some(help) = &diagnostic.help {
        out.push_str(&format!("{pad} = help: {help}\n"));
    }
    for frame in &diagnostic.traceback {
        let repeated = if frame.repeated > 1 { format!(" ({} times in a row)", frame.repeated) } else { String::new() };
        match origin_of(frame.cell) {
            Some(caller) => out.push_str(&format!(
                "{pad} = in {}(), called at {}:{}:{}{repeated}\n",
                frame.function,
                caller.file,
                caller.first_line + frame.line - 1,
                frame.column
            )),
            None => out.push_str(&format!(
                "{pad} = in {}(), called from cell {} line {}{repeated}\n",
                frame.function, frame.cell, frame.line
            )),
        }
    }
    out
}
