//! A notebook session: notebook files (`.py` with `# %%` cells, `.ipynb`), and `Session` — cells
//! sharing globals, `run_cell(code) -> CellResult` (stdout, rich displays, diagnostics with spans,
//! duration), all serialisable for the front end and the CLI.

pub mod bench;
pub mod bench_kernels;
pub mod contract;
mod display;
mod inspect;
mod kept_traces;
mod notebook;
mod render;
mod result;
mod run;
mod warm_up;

pub use crate::lang::interp::progress::{set_progress_reporter, ProgressReporter};
pub use crate::lang::interp::pypto::sweep::{SweepRow, SweepTable};
pub use crate::lang::interp::pypto::traces::KernelTrace;
pub use crate::lang::interp::Limits;
pub use display::{display_text, display_value};
pub use inspect::{check_syntax, VariableSummary};
pub use notebook::{CellKind, Notebook, NotebookCell, NotebookError, MAX_NOTEBOOK_BYTES};
pub use render::{render_diagnostic, CellOrigin};
pub use result::{
    CellDiagnostic, CellResult, CellStatus, Display, FullLimits, GradCheckDisplay, GraphDisplay, KernelSchedule,
    ScheduleDisplay, SweepDisplay, TensorDisplay, TraceLine,
};
pub use run::Session;
pub use warm_up::warm_up;
