//! Notebook files: `.py` with `# %%` cell markers (the percent format) and Jupyter `.ipynb`
//! (nbformat 4), read into one `Notebook` and written back.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Largest notebook file accepted (text of any format).
pub const MAX_NOTEBOOK_BYTES: usize = 8 << 20;

/// What a cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellKind {
    /// A tile script.
    Code,
    /// Markdown prose.
    Markdown,
}

/// One cell: its kind, its text, and the 1-based line of the file where its text starts (for
/// diagnostics of `tilelab run`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotebookCell {
    /// Code or markdown.
    pub kind: CellKind,
    /// The cell's text (for markdown, without the `# ` comment prefixes of the `.py` form).
    pub source: String,
    /// The file line of the cell's first line of text.
    pub first_line: usize,
}

/// An ordered list of cells.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notebook {
    /// The cells in order.
    pub cells: Vec<NotebookCell>,
}

/// Why a notebook file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotebookError {
    /// The file is larger than `MAX_NOTEBOOK_BYTES`.
    TooLarge { bytes: usize },
    /// The `.ipynb` text is not JSON (at a 1-based line and column).
    InvalidJson { detail: String, line: usize, column: usize },
    /// The JSON is not a notebook of a supported version.
    NotANotebook { detail: String },
}

impl NotebookError {
    /// The 1-based line and column the error is at (the file's start when it is about the whole).
    pub fn location(&self) -> (usize, usize) {
        match self {
            NotebookError::InvalidJson { line, column, .. } => (*line, *column),
            _ => (1, 1),
        }
    }
}

impl std::fmt::Display for NotebookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotebookError::TooLarge { bytes } => {
                write!(f, "the notebook is {bytes} bytes; the limit is {MAX_NOTEBOOK_BYTES}")
            }
            NotebookError::InvalidJson { detail, .. } => write!(f, "the .ipynb file is not valid JSON: {detail}"),
            NotebookError::NotANotebook { detail } => write!(f, "the file is not a Jupyter notebook: {detail}"),
        }
    }
}

impl std::error::Error for NotebookError {}

/// True when `line` starts a cell in the percent format (`# %%`, optionally followed by a title or
/// `[markdown]`).
fn is_marker(line: &str) -> bool {
    let trimmed = line.trim_end();
    trimmed == "# %%" || trimmed.starts_with("# %% ") || trimmed.starts_with("#%%")
}

fn marker_kind(line: &str) -> CellKind {
    if line.contains("[markdown]") || line.contains("[md]") {
        CellKind::Markdown
    } else {
        CellKind::Code
    }
}

impl Notebook {
    /// Splits a `.py` notebook at `# %%` lines. Text before the first marker is a code cell when it
    /// is not blank; markdown cells drop their `# ` comment prefixes.
    pub fn from_py(text: &str) -> Result<Notebook, NotebookError> {
        if text.len() > MAX_NOTEBOOK_BYTES {
            return Err(NotebookError::TooLarge { bytes: text.len() });
        }
        let mut cells = Vec::new();
        let mut kind = CellKind::Code;
        let mut lines: Vec<&str> = Vec::new();
        let mut first_line = 1;
        let mut explicit = false;
        for (index, line) in text.lines().enumerate() {
            if is_marker(line) {
                push_cell(&mut cells, kind, &lines, first_line, explicit);
                kind = marker_kind(line);
                lines.clear();
                first_line = index + 2;
                explicit = true;
            } else {
                lines.push(line);
            }
        }
        push_cell(&mut cells, kind, &lines, first_line, explicit);
        Ok(Notebook { cells })
    }

    /// Writes the percent format: one `# %%` (or `# %% [markdown]`) line before each cell.
    pub fn to_py(&self) -> String {
        let mut out = String::new();
        for (index, cell) in self.cells.iter().enumerate() {
            if index > 0 {
                out.push('\n');
            }
            match cell.kind {
                CellKind::Code => {
                    out.push_str("# %%\n");
                    out.push_str(&cell.source);
                }
                CellKind::Markdown => {
                    out.push_str("# %% [markdown]\n");
                    let commented: Vec<String> = cell
                        .source
                        .lines()
                        .map(|l| if l.is_empty() { "#".to_string() } else { format!("# {l}") })
                        .collect();
                    out.push_str(&commented.join("\n"));
                }
            }
            out.push('\n');
        }
        out
    }

    /// Reads a Jupyter notebook (nbformat 4); raw cells are kept as markdown, outputs are dropped.
    pub fn from_ipynb(text: &str) -> Result<Notebook, NotebookError> {
        if text.len() > MAX_NOTEBOOK_BYTES {
            return Err(NotebookError::TooLarge { bytes: text.len() });
        }
        let root: Value = serde_json::from_str(text).map_err(|error| NotebookError::InvalidJson {
            detail: error.to_string(),
            line: error.line().max(1),
            column: error.column().max(1),
        })?;
        let major = root.get("nbformat").and_then(Value::as_u64);
        if major != Some(4) {
            return Err(NotebookError::NotANotebook {
                detail: format!("nbformat {major:?} is not supported (expected 4)"),
            });
        }
        let cells = root
            .get("cells")
            .and_then(Value::as_array)
            .ok_or_else(|| NotebookError::NotANotebook { detail: "there is no \"cells\" list".into() })?;
        let mut notebook = Notebook::default();
        for (index, cell) in cells.iter().enumerate() {
            let kind = match cell.get("cell_type").and_then(Value::as_str) {
                Some("code") => CellKind::Code,
                Some("markdown") | Some("raw") => CellKind::Markdown,
                other => {
                    return Err(NotebookError::NotANotebook {
                        detail: format!("cell {index} has cell_type {other:?}"),
                    });
                }
            };
            let source = match cell.get("source") {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Array(parts)) => parts.iter().map(|p| p.as_str().unwrap_or_default()).collect(),
                _ => return Err(NotebookError::NotANotebook { detail: format!("cell {index} has no source text") }),
            };
            notebook.cells.push(NotebookCell { kind, source, first_line: 1 });
        }
        Ok(notebook)
    }

    /// Writes nbformat 4.5 (cells with ids, no outputs), with a Python language tag.
    pub fn to_ipynb(&self) -> String {
        let cells: Vec<Value> = self
            .cells
            .iter()
            .enumerate()
            .map(|(index, cell)| {
                let lines = split_keep_newlines(&cell.source);
                match cell.kind {
                    CellKind::Code => json!({
                        "cell_type": "code", "id": format!("cell-{index}"), "metadata": {},
                        "execution_count": null, "outputs": [], "source": lines,
                    }),
                    CellKind::Markdown => json!({
                        "cell_type": "markdown", "id": format!("cell-{index}"), "metadata": {}, "source": lines,
                    }),
                }
            })
            .collect();
        let root = json!({
            "cells": cells,
            "metadata": {
                "kernelspec": {"display_name": "TileLab (pypto)", "language": "python", "name": "tilelab"},
                "language_info": {"name": "python"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        });
        serde_json::to_string_pretty(&root).expect("a JSON value always serialises")
    }
}

fn push_cell(cells: &mut Vec<NotebookCell>, kind: CellKind, lines: &[&str], first_line: usize, explicit: bool) {
    let mut body: Vec<&str> = lines.to_vec();
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    if body.is_empty() && !explicit {
        return;
    }
    let source = match kind {
        CellKind::Code => body.join("\n"),
        CellKind::Markdown => body
            .iter()
            .map(|l| l.strip_prefix("# ").or_else(|| l.strip_prefix('#')).unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    cells.push(NotebookCell { kind, source, first_line });
}

fn split_keep_newlines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = "import pypto\n\n# %% [markdown]\n# # Title\n#\n# Some *text*.\n\n# %%\nx = pypto.ones([2])\nx\n";

    #[test]
    fn percent_format_splits_cells_and_keeps_lines() {
        let notebook = Notebook::from_py(PY).unwrap();
        assert_eq!(notebook.cells.len(), 3);
        assert_eq!(
            notebook.cells[0],
            NotebookCell { kind: CellKind::Code, source: "import pypto".into(), first_line: 1 }
        );
        assert_eq!(notebook.cells[1].kind, CellKind::Markdown);
        assert_eq!(notebook.cells[1].source, "# Title\n\nSome *text*.");
        assert_eq!(notebook.cells[2].source, "x = pypto.ones([2])\nx");
        // "x = …" is line 9 of the file.
        assert_eq!(notebook.cells[2].first_line, 9);
    }

    #[test]
    fn py_round_trip_is_stable() {
        let once = Notebook::from_py(PY).unwrap();
        let twice = Notebook::from_py(&once.to_py()).unwrap();
        assert_eq!(
            once.cells.iter().map(|c| (&c.kind, &c.source)).collect::<Vec<_>>(),
            twice.cells.iter().map(|c| (&c.kind, &c.source)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn ipynb_round_trip() {
        let notebook = Notebook::from_py(PY).unwrap();
        let text = notebook.to_ipynb();
        let back = Notebook::from_ipynb(&text).unwrap();
        assert_eq!(back.cells.len(), 3);
        assert_eq!(back.cells[2].source, "x = pypto.ones([2])\nx");
        assert_eq!(back.cells[1].kind, CellKind::Markdown);
        let root: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(root["nbformat_minor"], 5);
    }

    #[test]
    fn malformed_ipynb_is_a_clear_error() {
        assert!(matches!(Notebook::from_ipynb("{not json"), Err(NotebookError::InvalidJson { .. })));
        assert!(matches!(
            Notebook::from_ipynb("{\"nbformat\": 3, \"cells\": []}"),
            Err(NotebookError::NotANotebook { .. })
        ));
        let bad_cell = "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"widget\", \"source\": \"\"}]}";
        assert!(Notebook::from_ipynb(bad_cell).unwrap_err().to_string().contains("cell 0"));
        assert!(matches!(Notebook::from_py(&"x".repeat(MAX_NOTEBOOK_BYTES + 1)), Err(NotebookError::TooLarge { .. })));
    }
}
