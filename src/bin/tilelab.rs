//! The `tilelab` command line: `tilelab run FILE [--json] [--npu PRESET] [--trace-out DIR]`,
//! `tilelab --version`.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use tilelab::session::{display_text, render_diagnostic, CellKind, CellOrigin, CellResult, Limits, Notebook, Session};

const HELP: &str = "Usage:
  tilelab run FILE [--json] [--npu PRESET] [--trace-out DIR]
                                             run the code cells of a notebook (.py with # %% cells, or .ipynb)
  tilelab --version                          print the version
  tilelab --help                             print this help

Options of run:
  --json          print one JSON object per cell instead of text
  --npu PRESET    the NPU preset (Ascend910B2, Ascend910A, teaching)
  --trace-out DIR write the Chrome trace of every simulated kernel call (pypto.schedule, each
                  sweep row) to DIR/<cell>-<n>-<kernel>.json; opens in Perfetto";

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match arguments.first().map(String::as_str) {
        Some("--version") | Some("-V") => {
            println!("tilelab {}", tilelab::VERSION);
            ExitCode::SUCCESS
        }
        Some("--help") | Some("-h") | None => {
            println!("tilelab {}\n\n{HELP}", tilelab::VERSION);
            ExitCode::SUCCESS
        }
        Some("run") => match RunOptions::parse(&arguments[1..]) {
            // Deep script recursion needs native stack: the session runs on a thread with plenty.
            Ok(options) => match std::thread::Builder::new().stack_size(RUN_STACK_BYTES).spawn(move || run(&options)) {
                Ok(handle) => handle.join().unwrap_or(ExitCode::FAILURE),
                Err(error) => {
                    eprintln!("tilelab: cannot start the interpreter thread: {error}");
                    ExitCode::FAILURE
                }
            },
            Err(message) => {
                eprintln!("tilelab: {message} (try --help)");
                ExitCode::from(2)
            }
        },
        Some(other) => {
            eprintln!("tilelab: unknown argument '{other}' (try --help)");
            ExitCode::from(2)
        }
    }
}

/// The stack of the thread that runs the notebook, and the part of it scripts may use.
const RUN_STACK_BYTES: usize = 256 << 20;
const SCRIPT_STACK_BYTES: usize = 128 << 20;

struct RunOptions {
    file: String,
    json: bool,
    npu: Option<String>,
    trace_out: Option<std::path::PathBuf>,
}

impl RunOptions {
    fn parse(arguments: &[String]) -> Result<RunOptions, String> {
        let mut file = None;
        let mut json = false;
        let mut npu = None;
        let mut trace_out = None;
        let mut rest = arguments.iter();
        while let Some(argument) = rest.next() {
            match argument.as_str() {
                "--json" => json = true,
                "--npu" => npu = Some(rest.next().ok_or("--npu needs a preset name")?.clone()),
                "--trace-out" => {
                    trace_out = Some(std::path::PathBuf::from(rest.next().ok_or("--trace-out needs a directory")?))
                }
                flag if flag.starts_with("--") => return Err(format!("unknown option '{flag}'")),
                path if file.is_none() => file = Some(path.to_string()),
                extra => return Err(format!("unexpected argument '{extra}'")),
            }
        }
        Ok(RunOptions { file: file.ok_or("run needs a FILE")?, json, npu, trace_out })
    }
}

/// One line of `--json` output.
#[derive(Serialize)]
struct JsonCell<'a> {
    /// Index of the cell in the notebook (markdown cells included).
    cell_index: usize,
    /// File line of the cell's first line.
    first_line: usize,
    #[serde(flatten)]
    result: &'a CellResult,
}

fn run(options: &RunOptions) -> ExitCode {
    let text = match std::fs::read_to_string(&options.file) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("tilelab: cannot read {}: {error}", options.file);
            return ExitCode::from(2);
        }
    };
    let notebook =
        if options.file.ends_with(".ipynb") { Notebook::from_ipynb(&text) } else { Notebook::from_py(&text) };
    let notebook = match notebook {
        Ok(notebook) => notebook,
        Err(error) => {
            eprintln!("{}: error: {error}", options.file);
            return ExitCode::FAILURE;
        }
    };
    let mut session = Session::with_limits(Limits { stack_bytes: SCRIPT_STACK_BYTES, ..Limits::default() });
    if let Some(preset) = &options.npu {
        if let Err(message) = session.set_npu_preset(preset) {
            eprintln!("tilelab: {message}");
            return ExitCode::from(2);
        }
    }
    if let Some(directory) = &options.trace_out {
        if let Err(error) = std::fs::create_dir_all(directory) {
            eprintln!("tilelab: cannot create {}: {error}", directory.display());
            return ExitCode::from(2);
        }
        session.collect_traces(true);
    }
    // Execution number n ran notebook cell `executed[n - 1]`.
    let mut executed: Vec<usize> = Vec::new();
    for (index, cell) in notebook.cells.iter().enumerate() {
        if cell.kind != CellKind::Code || cell.source.trim().is_empty() {
            continue;
        }
        executed.push(index);
        let result = session.run_cell(&cell.source);
        if let Some(directory) = &options.trace_out {
            if let Err(message) = write_traces(directory, index, session.take_traces()) {
                eprintln!("tilelab: {message}");
                return ExitCode::FAILURE;
            }
        }
        if options.json {
            let line = JsonCell { cell_index: index, first_line: cell.first_line, result: &result };
            match serde_json::to_string(&line) {
                Ok(json) => emit(&format!("{json}\n")),
                Err(error) => eprintln!("tilelab: cannot write JSON: {error}"),
            }
        } else {
            emit(&result.stdout);
            for display in &result.displays {
                emit(&format!("{}\n", display_text(display)));
            }
            let origin_of = |execution: usize| -> Option<CellOrigin<'_>> {
                let cell = executed.get(execution.checked_sub(1)?).and_then(|&index| notebook.cells.get(index))?;
                Some(CellOrigin { file: &options.file, first_line: cell.first_line })
            };
            for diagnostic in &result.diagnostics {
                let (Some(origin), Some(source)) = (origin_of(diagnostic.cell), session.source_of(diagnostic.cell))
                else {
                    continue;
                };
                let _ = std::io::stdout().flush();
                let _ = write!(std::io::stderr(), "{}", render_diagnostic(diagnostic, source, origin, &origin_of));
            }
        }
        if !result.is_ok() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Writes the traces a cell simulated as `DIR/<cell>-<n>-<kernel>.json` (n counts from 1 per cell).
fn write_traces(
    directory: &std::path::Path,
    cell: usize,
    traces: Vec<tilelab::session::KernelTrace>,
) -> Result<(), String> {
    for (number, trace) in traces.into_iter().enumerate() {
        // Kernel names are identifiers, but keep the file name portable whatever they hold.
        let label: String = trace
            .label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
            .collect();
        let path = directory.join(format!("{cell}-{}-{label}.json", number + 1));
        std::fs::write(&path, trace.chrome_json)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    }
    Ok(())
}

/// Writes to stdout; a closed pipe (`tilelab run … | head`) is not an error worth a panic.
fn emit(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}
