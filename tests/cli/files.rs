//! Reading the host's files under `tilelab run`: `open` for reading (its methods, lines, `with`,
//! `json.load`), a missing file as Python's `FileNotFoundError` (an `OSError`), and no writing.
//! Expected outputs are written out by hand from the file's text.

use std::process::Command;

/// Runs `script` with the CLI in a scratch folder holding `data.json` and `notes.txt`: (success,
/// stdout, stderr).
fn run(test: &str, script: &str) -> (bool, String, String) {
    let directory = std::env::temp_dir().join(format!("tilelab-files-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("temp dir");
    std::fs::write(directory.join("data.json"), r#"{"tile": [8, 64], "name": "swish"}"#).unwrap();
    std::fs::write(directory.join("notes.txt"), "first\nsecond\nthird").unwrap();
    std::fs::write(directory.join("script.py"), script).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab"))
        .args(["run", "script.py"])
        .current_dir(&directory)
        .output()
        .expect("the binary runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

#[test]
fn a_file_is_read_whole_by_line_and_as_json() {
    let script = "import json
with open('data.json', 'r', encoding='utf-8') as f:
    config = json.load(f)
print(config['tile'], config['name'], f.closed)
notes = open('notes.txt')
print(repr(notes.readline()), repr(notes.read(3)), notes.readlines())
notes.close()
print([line.strip() for line in open('notes.txt')], notes.name)
";
    let (success, stdout, stderr) = run("read", script);
    assert!(success, "{stderr}");
    assert_eq!(
        stdout,
        "[8, 64] swish True\n'first\\n' 'sec' ['ond\\n', 'third']\n['first', 'second', 'third'] notes.txt\n"
    );
}

#[test]
fn a_missing_file_is_a_file_not_found_error_that_except_catches() {
    let script = "for types in [FileNotFoundError, OSError, Exception]:
    try:
        open('missing.json')
    except types as error:
        print(type(error).__name__ if hasattr(type(error), '__name__') else 'caught', str(error))
open('missing.json')
";
    let (success, stdout, stderr) = run("missing", script);
    assert!(!success);
    assert_eq!(stdout.lines().count(), 3, "each handler catches it: {stdout}");
    assert!(
        stdout.lines().all(|line| line.ends_with("[Errno 2] No such file or directory: 'missing.json'")),
        "{stdout}"
    );
    assert!(
        stderr.contains("script.py:6:1: error: FileNotFoundError: [Errno 2] No such file or directory: 'missing.json'"),
        "{stderr}"
    );
}

#[test]
fn writing_and_reading_a_closed_file_are_errors() {
    let (success, _, stderr) = run("write", "f = open('out.txt', 'w')\n");
    assert!(!success);
    assert!(
        stderr.contains(r#"script.py:1:21: error: writing files (open(…, "w")) is not available here"#),
        "{stderr}"
    );
    let (success, _, stderr) = run("closed", "f = open('notes.txt')\nf.close()\nf.read()\n");
    assert!(!success);
    assert!(stderr.contains("script.py:3:1: error: I/O operation on closed file."), "{stderr}");
}
