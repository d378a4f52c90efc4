//! Messages of the host modules pypto scripts import around their kernels: `sys.exit`'s ending,
//! the names a notebook's `os`/`sys`/`time` hold, and `argparse`'s — a parser built wrong
//! (`add_argument`) and a command line it rejects, which argparse reports as
//! `{program}: error: …` and ends with status 2.

use serde::Serialize;

/// A host module's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryHostMessage {
    /// `sys.exit(status)` (Python's `SystemExit: 3`).
    #[serde(rename = "library.system_exit")]
    SystemExit {
        /// The status, or the text the script gave.
        status: String,
    },
    /// Help of [`LibraryHostMessage::SystemExit`] with a failure status.
    #[serde(rename = "library.help.exit_status")]
    ExitStatus,
    /// Help of a missing `os.*`/`sys.*`/`time.*` name: what the module holds here.
    #[serde(rename = "library.help.host_module_has")]
    HostModuleHas {
        /// The module.
        module: String,
        /// Its names, in backticks, comma-separated.
        names: String,
    },
    /// A `pathlib.Path` method that reads the file system, in the page (which has no files).
    #[serde(rename = "library.path_needs_files")]
    NeedsFiles {
        /// The method (`Path.exists`).
        function: String,
    },
    /// `Path.read_text` of a file that is not there (Python's `FileNotFoundError`).
    #[serde(rename = "library.path_no_such_file")]
    NoSuchFile {
        /// The path.
        path: String,
    },
    /// `Path(part)` or `path / part` with a part neither a string nor a path.
    #[serde(rename = "library.path_part")]
    PathPart {
        /// The part's type.
        type_name: String,
    },
    /// `parser.set_defaults` with a positional argument.
    #[serde(rename = "library.keywords_only")]
    KeywordsOnly {
        /// The method.
        function: String,
    },
    /// `add_argument()` without a name.
    #[serde(rename = "library.argparse_needs_name")]
    NeedsName,
    /// `add_argument('a', 'b')`.
    #[serde(rename = "library.argparse_positional_name")]
    PositionalName,
    /// An option string added twice.
    #[serde(rename = "library.argparse_conflicting_option")]
    ConflictingOption {
        /// The option string.
        option: String,
    },
    /// `action=` none of the modelled ones.
    #[serde(rename = "library.argparse_unknown_action")]
    UnknownAction {
        /// The action given.
        action: String,
    },
    /// Help of [`LibraryHostMessage::UnknownAction`].
    #[serde(rename = "library.help.argparse_actions")]
    Actions,
    /// `nargs=` neither a count nor `?`, `*`, `+`.
    #[serde(rename = "library.argparse_invalid_nargs")]
    InvalidNargs {
        /// The value, as written.
        value: String,
    },
    /// Help of [`LibraryHostMessage::InvalidNargs`].
    #[serde(rename = "library.help.argparse_nargs")]
    Nargs,
    /// A value outside the argument's `choices`.
    #[serde(rename = "library.argparse_invalid_choice")]
    InvalidChoice {
        /// The parser's program name.
        program: String,
        /// The argument (`--run_mode`).
        argument: String,
        /// The value, as written.
        value: String,
        /// The choices, as written, comma-separated.
        choices: String,
    },
    /// A token the argument's `type` rejects.
    #[serde(rename = "library.argparse_invalid_value")]
    InvalidValue {
        /// The parser's program name.
        program: String,
        /// The argument.
        argument: String,
        /// The type's name (`int`).
        type_name: String,
        /// The token.
        token: String,
    },
    /// Required arguments the command line left out.
    #[serde(rename = "library.argparse_required")]
    Required {
        /// The parser's program name.
        program: String,
        /// The arguments.
        arguments: String,
    },
    /// Tokens no argument took (`parse_args`).
    #[serde(rename = "library.argparse_unrecognized")]
    Unrecognized {
        /// The parser's program name.
        program: String,
        /// The tokens, space-separated.
        arguments: String,
    },
    /// `--flag=value` for a flag that takes no value.
    #[serde(rename = "library.argparse_ignored_explicit")]
    IgnoredExplicit {
        /// The parser's program name.
        program: String,
        /// The argument.
        argument: String,
        /// The value given.
        value: String,
    },
    /// An option without its value.
    #[serde(rename = "library.argparse_expected_one")]
    ExpectedOne {
        /// The parser's program name.
        program: String,
        /// The argument.
        argument: String,
    },
    /// `nargs='+'` without a value.
    #[serde(rename = "library.argparse_expected_at_least_one")]
    ExpectedAtLeastOne {
        /// The parser's program name.
        program: String,
        /// The argument.
        argument: String,
    },
    /// `nargs=N` with another number of values.
    #[serde(rename = "library.argparse_expected_count")]
    ExpectedCount {
        /// The parser's program name.
        program: String,
        /// The argument.
        argument: String,
        /// N.
        count: usize,
    },
    /// `parser.error(text)`: the script's own text.
    #[serde(rename = "library.argparse_error")]
    ParserError {
        /// The parser's program name.
        program: String,
        /// The script's text.
        text: String,
    },
    /// The usage line a rejected command line shows (argparse's `usage: …`).
    #[serde(rename = "library.argparse_usage")]
    Usage {
        /// The line after `usage: ` (`notebook [-h] [--run_mode {npu,sim}]`).
        line: String,
    },
    /// Help of a rejected command line: where it comes from.
    #[serde(rename = "library.help.argparse_command_line")]
    CommandLine,
    /// A `re` pattern that does not compile (Python's `re.error`).
    #[serde(rename = "library.regex_pattern")]
    RegexPattern {
        /// Why, in the words of Python's `re` (`nothing to repeat`).
        reason: String,
        /// The char position in the pattern.
        position: usize,
        /// The pattern.
        pattern: String,
    },
    /// `match.group(n)` of a group the pattern does not have.
    #[serde(rename = "library.regex_no_such_group")]
    NoSuchGroup {
        /// The group asked for.
        group: String,
    },
}

impl LibraryHostMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryHostMessage::*;
        match self {
            SystemExit { status } => format!("SystemExit: {status}"),
            ExitStatus => {
                "the script called sys.exit with a failure status; the cells before it keep their results".into()
            }
            HostModuleHas { module, names } => {
                format!("a notebook's `{module}` has what pypto scripts use around their kernels: {names}")
            }
            NeedsFiles { function } => format!(
                "{function} reads the file system, which a notebook page does not have (`tilelab run FILE` gives a script its files)"
            ),
            NoSuchFile { path } => format!("[Errno 2] No such file or directory: '{path}'"),
            PathPart { type_name } => {
                format!("a path part is a str or a Path, not '{type_name}'")
            }
            KeywordsOnly { function } => format!("{function} takes keyword arguments only"),
            NeedsName => "add_argument needs a name or option strings".into(),
            PositionalName => "a positional argument has one name".into(),
            ConflictingOption { option } => format!("conflicting option string: {option}"),
            UnknownAction { action } => format!("unknown action '{action}'"),
            Actions => "the actions here: store, store_const, store_true, store_false, append, count".into(),
            InvalidNargs { value } => format!("invalid nargs value {value}"),
            Nargs => "nargs is '?', '*', '+' or a count".into(),
            InvalidChoice { program, argument, value, choices } => {
                format!("{program}: error: argument {argument}: invalid choice: {value} (choose from {choices})")
            }
            InvalidValue { program, argument, type_name, token } => {
                format!("{program}: error: argument {argument}: invalid {type_name} value: '{token}'")
            }
            Required { program, arguments } => {
                format!("{program}: error: the following arguments are required: {arguments}")
            }
            Unrecognized { program, arguments } => format!("{program}: error: unrecognized arguments: {arguments}"),
            IgnoredExplicit { program, argument, value } => {
                format!("{program}: error: argument {argument}: ignored explicit argument '{value}'")
            }
            ExpectedOne { program, argument } => format!("{program}: error: argument {argument}: expected one argument"),
            ExpectedAtLeastOne { program, argument } => {
                format!("{program}: error: argument {argument}: expected at least one argument")
            }
            ExpectedCount { program, argument, count } => {
                format!("{program}: error: argument {argument}: expected {count} arguments")
            }
            ParserError { program, text } => format!("{program}: error: {text}"),
            Usage { line } => format!("usage: {line}"),
            CommandLine => "the command line is sys.argv[1:] (the notebook's is empty: every default); pass a list to parse_args([...]) to try one".into(),
            RegexPattern { reason, position, pattern } => {
                format!("re.error: {reason} at position {position} of the pattern '{pattern}'")
            }
            NoSuchGroup { group } => format!("no such group: {group}"),
        }
    }
}
