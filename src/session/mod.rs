//! A notebook session: notebook files now; variables shared across cells and `run_cell` arrive with
//! the language.

mod notebook;

pub use notebook::{CellKind, Notebook, NotebookCell, NotebookError, MAX_NOTEBOOK_BYTES};
