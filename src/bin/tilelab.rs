//! The command line: `tilelab run FILE [--json] [--npu PRESET|FILE.json] [--trace-out DIR]
//! [--timeout SECONDS] [--steps N] [--memory GIB] [-- SCRIPT ARGUMENTS]`, `tilelab --version`.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tilelab::lang::interp::ModuleLoader;
use tilelab::session::{display_text, render_diagnostic, CellKind, CellOrigin, CellResult, Limits, Notebook, Session};

const HELP: &str = "Usage:
  tilelab run FILE [--json] [--npu PRESET] [--trace-out DIR] [--timeout SECONDS] [--steps N]
               [--memory GIB] [-- ARGS]
                                             run the code cells of a notebook (.py with # %% cells, or .ipynb)
  tilelab --version                          print the version
  tilelab --help                             print this help

Options of run:
  --json          print one JSON object per cell instead of text
  --npu PRESET    the NPU preset (Ascend910B2, Ascend910A, teaching), or FILE.json: a custom
                  preset with every field of pypto.npu.config()
  --trace-out DIR write the Chrome trace of every simulated kernel call (pypto.schedule, each
                  sweep row) to DIR/<cell>-<n>-<kernel>.json; opens in Perfetto
  --timeout SECS  stop with a located error after SECS seconds of running (default 60; 0: no limit)
  --steps N       the step budget of each cell (default: none, the timeout bounds a run; 0: none)
  --memory GIB    the session's memory budget (default 1); one tensor may take a quarter of it
  -- ARGS         the script's own command line: sys.argv is [FILE, ARGS...] (argparse reads it)";

fn main() -> ExitCode {
    tilelab::memory::keep_freed_memory();
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
            Ok(options) => run_with_watchdog(options),
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
/// How long past the timeout the watchdog waits for the interpreter's own located error (work
/// inside one operation, a big simulation say, cannot be interrupted) before it ends the process.
const WATCHDOG_GRACE: Duration = Duration::from_secs(5);

#[path = "tilelab/options.rs"]
mod options;
use options::RunOptions;

/// Runs the notebook on its own thread (deep script recursion needs native stack) and watches the
/// clock: the interpreter stops itself at the timeout with a located error; if one operation
/// keeps it busy past the grace period, the process ends naming the cell that was running.
fn run_with_watchdog(options: RunOptions) -> ExitCode {
    let running = Arc::new(AtomicUsize::new(0));
    let (done, finished) = std::sync::mpsc::channel();
    let timeout = options.timeout;
    let file = options.file.clone();
    let cell_line = running.clone();
    let spawned = std::thread::Builder::new().stack_size(RUN_STACK_BYTES).spawn(move || {
        let code = run(&options, &cell_line);
        let _ = done.send(());
        code
    });
    let handle = match spawned {
        Ok(handle) => handle,
        Err(error) => {
            eprintln!("tilelab: cannot start the interpreter thread: {error}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(timeout) = timeout {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(timeout + WATCHDOG_GRACE) {
            let line = running.load(Ordering::Relaxed);
            let _ = writeln!(
                std::io::stderr(),
                "{file}:{line}:1: error: timeout: the cell starting here was still running after {} s (one operation that cannot be interrupted)\n  = help: give more time with --timeout SECONDS (0: no limit)",
                timeout.as_secs_f64()
            );
            std::process::exit(1);
        }
    }
    handle.join().unwrap_or(ExitCode::FAILURE)
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

fn run(options: &RunOptions, running_line: &AtomicUsize) -> ExitCode {
    let bytes = match std::fs::read(&options.file) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("tilelab: cannot read {}: {error}", options.file);
            return ExitCode::from(2);
        }
    };
    let text = match source_text(bytes) {
        Ok(text) => text,
        Err(message) => {
            eprintln!("{}:{message}", options.file);
            return ExitCode::FAILURE;
        }
    };
    let notebook =
        if options.file.ends_with(".ipynb") { Notebook::from_ipynb(&text) } else { Notebook::from_py(&text) };
    let notebook = match notebook {
        Ok(notebook) => notebook,
        Err(error) => {
            let (line, column) = error.location();
            eprintln!("{}:{line}:{column}: error: {error}", options.file);
            return ExitCode::FAILURE;
        }
    };
    let mut session = Session::with_limits(Limits { stack_bytes: SCRIPT_STACK_BYTES, ..options.limits() });
    // The CLI's clock (wasm32 has none; `wasm-pack test` builds this binary too, never runs it).
    #[cfg(not(target_arch = "wasm32"))]
    session.set_time_limit(options.timeout);
    session.set_command_line(&options.file, &options.script_arguments);
    let (script, directories) = module_search_path(&options.file);
    session.set_module_loader(Box::new(FileModules), &directories, &script);
    let ipynb = options.file.ends_with(".ipynb");
    // In an .ipynb every cell's lines count from 1: the location names the cell.
    let labels: Vec<String> = (0..notebook.cells.len())
        .map(|index| if ipynb { format!("{}[cell {}]", options.file, index + 1) } else { options.file.clone() })
        .collect();
    if let Some(preset) = &options.npu {
        // A path ending in .json is a custom preset; anything else names a preset.
        let chosen = if preset.ends_with(".json") {
            std::fs::read_to_string(preset)
                .map_err(|error| format!("cannot read {preset}: {error}"))
                .and_then(|text| session.set_npu_config_json(&text).map_err(|message| format!("{preset}: {message}")))
        } else {
            session.set_npu_preset(preset)
        };
        if let Err(message) = chosen {
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
        running_line.store(cell.first_line, Ordering::Relaxed);
        // In a .py notebook the lines that messages name are file lines; an .ipynb cell's own.
        let mut result =
            if ipynb { session.run_cell(&cell.source) } else { session.run_cell_at(&cell.source, cell.first_line) };
        if let Some(directory) = &options.trace_out {
            if let Err(message) = write_traces(directory, index, session.take_traces()) {
                eprintln!("tilelab: {message}");
                return ExitCode::FAILURE;
            }
        }
        if options.json {
            // The JSON is read after the run: it carries the traces the page asks the session for.
            for entry in &mut result.kernel_schedules {
                if let Some(json) = entry.trace_key.as_deref().and_then(|key| session.kernel_trace(key)) {
                    entry.schedule.trace_json = json;
                }
            }
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
                if let Some(file) = session.module_file(execution) {
                    return Some(CellOrigin { file, first_line: 1 });
                }
                let index = *executed.get(execution.checked_sub(1)?)?;
                let cell = notebook.cells.get(index)?;
                Some(CellOrigin { file: labels.get(index)?, first_line: cell.first_line })
            };
            for diagnostic in &result.diagnostics {
                let (Some(origin), Some(source)) = (origin_of(diagnostic.cell), session.source_of(diagnostic.cell))
                else {
                    continue;
                };
                let _ = std::io::stdout().flush();
                let _ = write!(std::io::stderr(), "{}", render_diagnostic(diagnostic, source, origin, &origin_of));
                // The page's limits are the CLI's defaults; a native run can hold more.
                if ["runtime/size-limit", "runtime/memory-error"].contains(&diagnostic.code.as_str()) {
                    let _ = writeln!(std::io::stderr(), "  = help: `tilelab run --memory GIB` raises the session's memory budget (default 1 GiB) and the largest tensor with it");
                }
            }
        }
        if !result.is_ok() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// The text of a notebook file: UTF-8 (an invalid byte is an error at its line and column), a
/// leading byte-order mark dropped, and `\r\n` or bare `\r` line ends read as `\n` (as Python does).
fn source_text(bytes: Vec<u8>) -> Result<String, String> {
    let text = String::from_utf8(bytes).map_err(|error| {
        let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        // The valid prefix is UTF-8: count its lines and the characters of its last line.
        let prefix = std::str::from_utf8(valid).unwrap_or_default();
        let line = prefix.matches('\n').count() + 1;
        let column = prefix.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
        let byte = error.as_bytes()[valid.len()];
        format!("{line}:{column}: error: the file is not valid UTF-8: byte 0x{byte:02X} at offset {} does not start a character\n  = help: save the file as UTF-8", valid.len())
    })?;
    let text = text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text);
    Ok(if text.contains('\r') { text.replace("\r\n", "\n").replace('\r', "\n") } else { text })
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

/// Reads the user's modules from the file system.
struct FileModules;

impl ModuleLoader for FileModules {
    fn read_file(&self, path: &str) -> Option<String> {
        let bytes = std::fs::read(path).ok()?;
        source_text(bytes).ok()
    }

    fn is_directory(&self, path: &str) -> bool {
        std::path::Path::new(path).is_dir()
    }

    fn exists(&self, path: &str) -> bool {
        std::path::Path::new(path).exists()
    }

    fn current_directory(&self) -> Option<String> {
        std::env::current_dir().ok().map(|directory| directory.display().to_string())
    }

    fn list_directory(&self, path: &str) -> Option<Vec<String>> {
        let entries = std::fs::read_dir(path).ok()?;
        let mut names: Vec<String> =
            entries.filter_map(|entry| Some(entry.ok()?.file_name().to_string_lossy().into_owned())).collect();
        names.sort();
        Some(names)
    }

    fn modified_seconds(&self, path: &str) -> Option<f64> {
        let modified = std::fs::metadata(path).ok()?.modified().ok()?;
        Some(modified.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
    }

    fn write_file(&self, path: &str, text: &str) -> Result<(), String> {
        let path = std::path::Path::new(path);
        if let Some(folder) = path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|error| error.to_string())?;
        }
        std::fs::write(path, text).map_err(|error| error.to_string())
    }
}

/// The script's absolute path (`__file__`) and the initial `sys.path`: the script's directory,
/// then the directories of `PYTHONPATH`, as Python starts it.
fn module_search_path(file: &str) -> (String, Vec<String>) {
    let path = std::fs::canonicalize(file).unwrap_or_else(|_| std::path::PathBuf::from(file));
    let directory = path.parent().map_or_else(|| ".".to_string(), |parent| parent.display().to_string());
    let mut directories = vec![directory];
    if let Some(variable) = std::env::var_os("PYTHONPATH") {
        directories.extend(std::env::split_paths(&variable).map(|entry| entry.display().to_string()));
    }
    (path.display().to_string(), directories)
}

/// Writes to stdout; a closed pipe (`tilelab run … | head`) is not an error worth a panic.
fn emit(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}
