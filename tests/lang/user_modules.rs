//! Imports of the user's own modules, as `tilelab run FILE` resolves them: `.py` files and
//! packages next to the script, in directories the script adds to `sys.path`, and in
//! `PYTHONPATH`; each module runs once with its own `__name__` and `__file__`; a cycle gets the
//! partly run module; a missing module names the directories searched. The page (no loader) says
//! it has no files.

use std::path::{Path, PathBuf};
use std::process::Command;

use tilelab::lang::interp::ModuleLoader;
use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// Reads modules from the file system, as the CLI does.
struct Files;

impl ModuleLoader for Files {
    fn read_file(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }

    fn is_directory(&self, path: &str) -> bool {
        Path::new(path).is_dir()
    }
}

/// A fresh directory under the system's temporary directory holding `files` (path, text).
fn directory_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("tilelab-user-modules-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the directory");
        std::fs::write(path, text).expect("write the module");
    }
    root
}

/// A session that imports from `directory` as a script there would.
fn session_in(directory: &Path) -> Session {
    let mut session = Session::new();
    let script = directory.join("main.py").display().to_string();
    session.set_module_loader(Box::new(Files), &[directory.display().to_string()], &script);
    session
}

/// `import m`, `from m import f`, `import pkg.sub as s`, `from pkg.sub import …`, `from pkg
/// import sub`: each module runs once (its print appears once), sees its own `__name__` (so its
/// `if __name__ == "__main__":` block does not run) and `__file__`, and its functions read its
/// own globals.
#[test]
fn modules_and_packages_next_to_the_script_run_once() {
    let root = directory_with(
        "packages",
        &[
            ("helpers.py", "print('loading helpers', __name__)\nSCALE = 3\ndef scaled(x):\n    return x * SCALE\nif __name__ == '__main__':\n    print('helpers as a script')\n"),
            ("pkg/__init__.py", "VERSION = '1.0'\n"),
            ("pkg/sub.py", "from helpers import scaled\ndef twice_scaled(x):\n    return 2 * scaled(x)\nWHERE = __file__\n"),
        ],
    );
    let mut session = session_in(&root);
    let printed = run_ok(
        &mut session,
        r#"
import helpers
from helpers import scaled, SCALE as factor
import pkg.sub
import pkg.sub as s
from pkg.sub import twice_scaled
from pkg import sub, VERSION
print(helpers.scaled(2), scaled(5), factor, pkg.sub.twice_scaled(1), s.twice_scaled(2), twice_scaled(3))
print(sub is s, VERSION, pkg.VERSION, s.WHERE.endswith('pkg/sub.py'), __name__)
helpers.SCALE = 10
print(scaled(1))
if __name__ == "__main__":
    print("main runs")
"#,
    );
    assert_eq!(printed, "loading helpers helpers\n6 15 3 6 12 18\nTrue 1.0 1.0 True __main__\n10\nmain runs\n");
    // A later cell's import finds the module in the cache: nothing runs again.
    assert_eq!(run_ok(&mut session, "import helpers\nprint(helpers.SCALE)"), "10\n");
    let _ = std::fs::remove_dir_all(root);
}

/// pypto's tests add a helper directory with `sys.path.append` (or `insert`) before importing
/// from it; a module imports a sibling of its own directory only when it is on the path.
#[test]
fn directories_added_to_sys_path_are_searched() {
    let root = directory_with(
        "sys_path",
        &[("helper/tools/case_tools.py", "def dtype_name(x):\n    return 'DT_' + x.upper()\n")],
    );
    let mut session = session_in(&root);
    let helper = root.join("helper/tools").display().to_string();
    let printed = run_ok(
        &mut session,
        &format!(
            "import sys\nif {helper:?} not in sys.path:\n    sys.path.append({helper:?})\n\
             from case_tools import dtype_name  # noqa: E402\nprint(dtype_name('fp16'), len(sys.path))"
        ),
    );
    assert_eq!(printed, "DT_FP16 2\n");
    let _ = std::fs::remove_dir_all(root);
}

/// Two modules that import each other: the second sees the first partly run (its names defined
/// before the import), as in Python, and nothing runs forever.
#[test]
fn an_import_cycle_gets_the_partly_run_module() {
    let root = directory_with(
        "cycle",
        &[
            ("first.py", "NAME = 'first'\nimport second\ndef both():\n    return NAME + '+' + second.NAME\n"),
            ("second.py", "import first\nNAME = 'second'\nSEEN = first.NAME\n"),
        ],
    );
    let mut session = session_in(&root);
    let printed = run_ok(&mut session, "import first\nprint(first.both(), first.second.SEEN)");
    assert_eq!(printed, "first+second first\n");
    let _ = std::fs::remove_dir_all(root);
}

/// A missing module is an ImportError at the module's name that names the directories searched
/// (`except ImportError` catches it); an error inside a module points into the module's file;
/// without a loader (the page) the error says there are no files.
#[test]
fn missing_and_failing_modules_are_located_errors() {
    let root =
        directory_with("errors", &[("broken.py", "x = 1\ny = undefined_name + 1\n"), ("bad_syntax.py", "def f(:\n")]);
    let mut session = session_in(&root);
    let code = "from not_here import thing";
    let result = run_err(&mut session, code);
    let error = result.error().expect("an error");
    assert_eq!((error.code.as_str(), error.message.as_str()), ("runtime/import-error", "no module named 'not_here'"));
    assert_eq!(spanned(code, &result), "not_here");
    assert!(error.note.as_deref().is_some_and(|note| note.contains(&root.display().to_string())), "{:?}", error.note);
    assert_eq!(
        run_ok(&mut session, "try:\n    import not_here\nexcept ImportError as e:\n    print('caught', e)"),
        "caught no module named 'not_here'\n"
    );
    let result = run_err(&mut session, "import broken");
    let error = result.error().expect("an error");
    assert_eq!(error.code, "runtime/name-error");
    assert_eq!(session.module_file(error.cell).map(|file| file.ends_with("broken.py")), Some(true));
    assert_eq!(
        &session.source_of(error.cell).expect("the module's source")[error.span.start..error.span.end],
        "undefined_name"
    );
    assert_eq!(error.traceback.last().map(|frame| frame.function.as_str()), Some("<module>"));
    let result = run_err(&mut session, "import bad_syntax");
    assert_eq!(result.error().map(|error| error.code.as_str()), Some("runtime/import-error"));
    let mut page = Session::new();
    let result = run_err(&mut page, "import helpers");
    let error = result.error().expect("an error");
    assert!(error.note.as_deref().is_some_and(|note| note.contains("no files")), "{:?}", error.note);
    let _ = std::fs::remove_dir_all(root);
}

/// The CLI: the script's directory, then `PYTHONPATH`; an error inside an imported module is
/// printed at the module's file and line, with the import in the traceback.
#[test]
fn the_cli_imports_from_the_script_directory_and_pythonpath() {
    let root = directory_with(
        "cli",
        &[
            ("scripts/main.py", "import near\nimport far\nprint(near.VALUE, far.VALUE)\nimport far_broken\n"),
            ("scripts/near.py", "VALUE = 'near'\n"),
            ("library/far.py", "VALUE = 'far'\n"),
            ("library/far_broken.py", "\nraise ValueError('broken on purpose')\n"),
        ],
    );
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab"))
        .arg("run")
        .arg(root.join("scripts/main.py"))
        .env("PYTHONPATH", root.join("library"))
        .output()
        .expect("run the CLI");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stdout, "near far\n");
    assert!(stderr.contains("far_broken.py:2:1: error: ValueError: broken on purpose"), "{stderr}");
    assert!(stderr.contains("in <module>(), called at") && stderr.contains("main.py:4:"), "{stderr}");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn dir_of_a_user_module_lists_its_globals() {
    // pypto's runners find a test module's `test*` functions with dir(module).
    let root = directory_with("dir", &[("helpers_for_dir.py", "SCALE = 2\ndef test_one():\n    pass\n")]);
    let mut session = session_in(&root);
    let code = "import helpers_for_dir as h\nprint([name for name in dir(h) if not name.startswith('_')])\n";
    assert_eq!(run_ok(&mut session, code), "['SCALE', 'test_one']\n");
}
