//! `pathlib.Path` as pypto's test runners use it: naming paths (`/`, `parent`, `name`, `stem`,
//! `suffix`, `parts`, `resolve`) works in the page and the CLI alike, with pathlib's results
//! written out by hand here; reading the file system (`exists`, `is_dir`, `read_text`) goes
//! through the host's files, which the page does not have. Also `pkgutil.find_loader` and
//! `typing.NoReturn`, which pypto's helper scripts import next to it.

use std::path::{Path, PathBuf};

use tilelab::lang::interp::ModuleLoader;
use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// The host's files, with `directory` as the working directory.
struct Files {
    directory: String,
}

impl ModuleLoader for Files {
    fn read_file(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }

    fn is_directory(&self, path: &str) -> bool {
        Path::new(path).is_dir()
    }

    fn current_directory(&self) -> Option<String> {
        Some(self.directory.clone())
    }
}

/// A fresh directory holding `files` (path, text).
fn directory_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("tilelab-pathlib-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the directory");
        std::fs::write(path, text).expect("write the file");
    }
    root
}

/// What CPython's pathlib prints for each of these lines (checked by hand against its rules:
/// repeated slashes and `.` parts dropped, an absolute part starts over, the suffix of a
/// leading-dot name is empty).
#[test]
fn paths_are_named_as_pathlib_names_them() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
from pathlib import Path, PurePath
import pathlib
p = Path("a//b/./c.tar.gz")
print(p, repr(p), p.name, p.stem, p.suffix, p.suffixes, p.parts)
print(p.parent, p.parent.parent.parent, Path("/x").parent.parent, Path(".bashrc").suffix == "")
print(Path("a", "b") / "c" / Path("/d") / "e", "x" / Path("y"), PurePath("a").joinpath("b", "c"))
print(p.with_suffix(".txt"), p.with_name("z.py"), Path("/a/b").is_absolute(), Path("a").is_absolute())
print(Path("a/") == Path("a"), Path("a") == Path("b"), str(pathlib.PosixPath("q/r")), Path().as_posix())
print(Path("/a/b/../c/./d").resolve(), Path("../x").resolve(), Path("y").absolute())
"#,
    );
    assert_eq!(
        printed,
        "a/b/c.tar.gz PosixPath('a/b/c.tar.gz') c.tar.gz c.tar .gz ['.tar', '.gz'] ('a', 'b', 'c.tar.gz')\n\
         a/b . / True\n\
         /d/e x/y a/b/c\n\
         a/b/c.tar.txt a/b/z.py True False\n\
         True False q/r .\n\
         /a/c/d /x /notebook/y\n"
    );
}

/// pypto's op-test runners: `Path(Path(__file__).parent.parent, "dir").resolve()` put on
/// `sys.path` makes the helper modules there importable; the files are read through the host.
#[test]
fn a_resolved_path_on_sys_path_imports_helpers_and_reads_files() {
    let root = directory_with(
        "helpers",
        &[("tests/case/main.py", ""), ("framework/helper/tools.py", "VALUE = 7\n"), ("data/n.txt", "42\n")],
    );
    let mut session = Session::new();
    let script = root.join("tests/case/main.py").display().to_string();
    let directory = root.join("tests").display().to_string();
    session.set_module_loader(Box::new(Files { directory }), &[], &script);
    let printed = run_ok(
        &mut session,
        r#"
import sys
from pathlib import Path
helper = Path(Path(__file__).parent.parent.parent, "framework/helper").resolve()
if str(helper) not in sys.path:
    sys.path.append(str(helper))
import tools
data = Path(__file__).parent / ".." / ".." / "data"
print(tools.VALUE, helper.is_dir(), (helper / "tools.py").is_file(), (helper / "none.py").exists())
print(int((data / "n.txt").read_text()), Path("case").resolve() == Path(__file__).parent)
"#,
    );
    assert_eq!(printed, "7 True True False\n42 True\n");
    let code = "from pathlib import Path\nPath('/no/such/file').read_text()";
    let result = run_err(&mut session, code);
    let error = result.error().expect("an error");
    assert_eq!(error.message, "[Errno 2] No such file or directory: '/no/such/file'");
    assert_eq!(spanned(code, &result), "Path('/no/such/file').read_text()");
}

/// The page has no files: what reads them says so at the call; naming paths still works, and a
/// part that is neither a string nor a path is a TypeError as in Python.
#[test]
fn the_page_says_it_has_no_files() {
    let mut session = Session::new();
    let code = "from pathlib import Path\np = Path('x') / 'y'\np.exists()";
    let result = run_err(&mut session, code);
    let error = result.error().expect("an error");
    assert_eq!(error.code, "runtime/unsupported");
    assert!(error.message.starts_with("Path.exists reads the file system"), "{}", error.message);
    assert_eq!(spanned(code, &result), "p.exists()");
    let code = "from pathlib import Path\nPath('x') / 3";
    let result = run_err(&mut session, code);
    let error = result.error().expect("an error");
    assert_eq!(
        (error.code.as_str(), error.message.as_str()),
        ("runtime/type-error", "a path part is a str or a Path, not 'int'")
    );
}

/// `pkgutil.find_loader` finds the modules the language has (so `if find_loader("ml_dtypes")`
/// takes the branch without it); `typing.NoReturn` is an annotation.
#[test]
fn pkgutil_finds_the_languages_modules() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import pkgutil
from typing import NoReturn
def never() -> NoReturn:
    raise ValueError("no")
print(pkgutil.find_loader("ml_dtypes") is None, pkgutil.find_loader("math") is not None, bool(pkgutil.find_loader("torch")))
"#,
    );
    assert_eq!(printed, "True True True\n");
}
