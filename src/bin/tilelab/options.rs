//! The options of `tilelab run` and the session limits they give.

use std::time::Duration;

use tilelab::session::Limits;

/// `--timeout` when none is given.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest `--memory`.
const MAX_MEMORY_GIB: f64 = 1024.0;

pub(crate) struct RunOptions {
    pub(crate) file: String,
    pub(crate) json: bool,
    pub(crate) npu: Option<String>,
    pub(crate) trace_out: Option<std::path::PathBuf>,
    pub(crate) timeout: Option<Duration>,
    /// `--steps`: each cell's step budget (`None`: none; the timeout bounds the run).
    pub(crate) steps: Option<u64>,
    /// `--memory`: the session's memory budget in bytes (`None`: the default).
    pub(crate) memory_bytes: Option<usize>,
    /// What follows `--`: the script's own command line (`sys.argv[1:]`).
    pub(crate) script_arguments: Vec<String>,
}

impl RunOptions {
    pub(crate) fn parse(arguments: &[String]) -> Result<RunOptions, String> {
        let mut file = None;
        let mut json = false;
        let mut npu = None;
        let mut trace_out = None;
        let mut timeout = Some(DEFAULT_TIMEOUT);
        let mut steps = None;
        let mut memory_bytes = None;
        let mut script_arguments = Vec::new();
        let mut rest = arguments.iter();
        while let Some(argument) = rest.next() {
            match argument.as_str() {
                "--" => {
                    script_arguments = rest.by_ref().cloned().collect();
                    break;
                }
                "--json" => json = true,
                "--npu" => npu = Some(rest.next().ok_or("--npu needs a preset name")?.clone()),
                "--trace-out" => {
                    trace_out = Some(std::path::PathBuf::from(rest.next().ok_or("--trace-out needs a directory")?))
                }
                "--timeout" => {
                    let text = rest.next().ok_or("--timeout needs a number of seconds")?;
                    let seconds: f64 = text
                        .parse()
                        .ok()
                        .filter(|seconds: &f64| seconds.is_finite() && *seconds >= 0.0 && *seconds < 1e9)
                        .ok_or_else(|| format!("--timeout takes seconds (0: no limit), not '{text}'"))?;
                    timeout = (seconds > 0.0).then(|| Duration::from_secs_f64(seconds));
                }
                "--steps" => {
                    let text = rest.next().ok_or("--steps needs a number of steps")?;
                    let count: u64 = text
                        .parse()
                        .map_err(|_| format!("--steps takes a whole number (0: no limit), not '{text}'"))?;
                    steps = Some(if count == 0 { u64::MAX } else { count });
                }
                "--memory" => {
                    let text = rest.next().ok_or("--memory needs a number of GiB")?;
                    let gib: f64 = text
                        .parse()
                        .ok()
                        .filter(|gib: &f64| gib.is_finite() && *gib >= 0.25 && *gib <= MAX_MEMORY_GIB)
                        .ok_or_else(|| format!("--memory takes GiB from 0.25 to {MAX_MEMORY_GIB}, not '{text}'"))?;
                    memory_bytes = Some((gib * (1u64 << 30) as f64) as usize);
                }
                flag if flag.starts_with("--") => return Err(format!("unknown option '{flag}'")),
                path if file.is_none() => file = Some(path.to_string()),
                extra => return Err(format!("unexpected argument '{extra}'")),
            }
        }
        let file = file.ok_or("run needs a FILE")?;
        Ok(RunOptions { file, json, npu, trace_out, timeout, steps, memory_bytes, script_arguments })
    }

    /// The session's limits (the stack aside): the page's, but no step budget unless `--steps`
    /// sets one (the page bounds a cell by steps; the CLI by its timeout, and real pypto goldens
    /// run hundreds of millions of small ops), and `--memory`'s budget with the tensor limits in
    /// proportion.
    pub(crate) fn limits(&self) -> Limits {
        let defaults = match self.memory_bytes {
            Some(memory_bytes) => Limits::default().with_memory(memory_bytes),
            None => Limits::default(),
        };
        Limits { step_budget: self.steps.unwrap_or(u64::MAX), ..defaults }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(arguments: &[&str]) -> Result<RunOptions, String> {
        RunOptions::parse(&arguments.iter().map(|argument| argument.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_command_line_has_no_step_budget_unless_asked_and_scales_tensors_with_memory() {
        let page = Limits::default();
        let plain = parsed(&["notebook.py"]).expect("parsed").limits();
        assert_eq!(plain.step_budget, u64::MAX);
        assert_eq!((plain.memory_bytes, plain.tensor_bytes, plain.tensor_elements), (1 << 30, 256 << 20, 1 << 26));
        assert_eq!(plain.tensor_elements, page.tensor_elements);
        assert_eq!(parsed(&["notebook.py", "--steps", "100"]).expect("parsed").limits().step_budget, 100);
        assert_eq!(parsed(&["notebook.py", "--steps", "0"]).expect("parsed").limits().step_budget, u64::MAX);
        let large = parsed(&["notebook.py", "--memory", "8"]).expect("parsed").limits();
        assert_eq!((large.memory_bytes, large.tensor_bytes, large.tensor_elements), (8 << 30, 2 << 30, 1 << 29));
        assert_eq!(large.list_items, page.list_items);
        for bad in ["0", "0.1", "-1", "lots", "2000"] {
            let error = parsed(&["notebook.py", "--memory", bad]).err().expect("refused");
            assert!(error.contains("--memory takes GiB"), "{error}");
        }
    }
}
