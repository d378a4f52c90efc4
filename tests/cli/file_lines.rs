//! In a `.py` notebook every line the CLI prints is a line of the file, whichever cell it is in:
//! the location of errors and warnings, the lines named inside messages (a kernel's CPU fallback
//! names the op's line), and the traceback's call sites.

use std::process::Command;

fn run(text: &str) -> String {
    let directory = std::env::temp_dir().join(format!("tilelab-file-lines-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("temp dir");
    let path = directory.join("cells.py");
    std::fs::write(&path, text).expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab")).arg("run").arg(&path).output().expect("run");
    String::from_utf8_lossy(&output.stderr).replace(&path.to_string_lossy().into_owned(), "cells.py")
}

#[test]
fn messages_and_tracebacks_name_file_lines_in_every_cell() {
    // Line numbers of the file, counted by hand: the view is on line 10, the kernel call on 13,
    // the undefined name on 17, `helper` is called on 20 and `outer` on 22.
    let text = "\
# %%
import pypto
x = pypto.ones([32, 64])

# %%
# the second cell starts on line 5

@pypto.kernel
def k(a):
    b = a[0:16:2, :]
    return pypto.exp(b)

y = k(x)

# %%
def helper(v):
    return v + missing

def outer(v):
    return helper(v)

outer(1)
";
    let stderr = run(text);
    let warning =
        stderr.lines().find(|line| line.contains("warning: kernel 'k'")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(warning.starts_with("cells.py:13:5: warning:"), "{warning}");
    assert!(warning.ends_with("at line 10"), "the op's line must be the file's: {warning}");
    assert!(stderr.contains("cells.py:17:16: error: name 'missing' is not defined"), "{stderr}");
    assert!(stderr.contains("in helper(), called at cells.py:20:12"), "{stderr}");
    assert!(stderr.contains("in outer(), called at cells.py:22:1"), "{stderr}");
}
