//! Statements real pypto code writes around its kernels: `del` (kernel bodies free their tiles)
//! and `raise` (argument checks), each with its located errors.

use tilelab::session::{CellResult, Session};

fn run_ok(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result.stdout
}

fn run_err(session: &mut Session, code: &str) -> CellResult {
    let result = session.run_cell(code);
    assert!(!result.is_ok(), "expected an error from:\n{code}\nprinted: {}", result.stdout);
    result
}

/// `del` as kernel bodies and host code use it: names, list items, dict keys, attributes.
#[test]
fn del_unbinds_names_items_and_attributes() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import pypto

@pypto.frontend.jit
def double(x, out):
    pypto.set_vec_tile_shapes(16, 16)
    for i in pypto.loop(2):
        tile = pypto.view(x, [16, 16], [i * 16, 0])
        twice = tile + tile
        pypto.assemble(twice, [i * 16, 0], out)
        del tile, twice

class Box:
    def __init__(self):
        self.a = 1
        self.b = 2

x = pypto.ones([32, 16])
out = pypto.zeros([32, 16])
double(x, out)
items = [10, 20, 30]
table = {"k": 1, "j": 2}
box = Box()
del items[1], table["k"], box.a
print(out.sum().item(), items, table, hasattr(box, "a"), box.b)
"#,
    );
    // 2 · 512 elements = 1024.
    assert_eq!(printed, "1024.0 [10, 30] {'j': 2} False 2\n");
    let code = "del items";
    run_ok(&mut session, code);
    let result = run_err(&mut session, "print(items)");
    assert_eq!(result.error().unwrap().message, "name 'items' is not defined");
    let result = run_err(&mut session, "del box.a");
    assert_eq!(result.error().unwrap().message, "no attribute 'a' to delete");
}

/// A config check that raises, as pypto's examples write them: the branch not taken costs
/// nothing; the one taken ends the run with `Name: message` at the `raise`, and the traceback
/// names the function.
#[test]
fn raise_stops_with_the_exceptions_message() {
    let mut session = Session::new();
    run_ok(
        &mut session,
        r#"
def check_batch(basic_batch, activation="gelu"):
    if basic_batch <= 0:
        raise ValueError("basic_batch must be greater than 0")
    if activation not in ("gelu", "relu"):
        raise NotImplementedError(f"Unsupported activation: {activation}")
    return basic_batch * 2
"#,
    );
    let code = "print(check_batch(16), repr(ValueError(\"x\")))\ncheck_batch(0)";
    let result = run_err(&mut session, code);
    assert_eq!(result.stdout, "32 ValueError('x')\n");
    let error = result.error().unwrap();
    assert_eq!(error.message, "ValueError: basic_batch must be greater than 0");
    assert_eq!(error.code, "runtime/value-error");
    let source = session.source_of(error.cell).unwrap();
    assert_eq!(&source[error.span.start..error.span.end], "raise ValueError(\"basic_batch must be greater than 0\")");
    assert_eq!(error.traceback.first().map(|frame| frame.function.as_str()), Some("check_batch"));
    let result = run_err(&mut session, "check_batch(4, activation=\"swish\")");
    assert_eq!(result.error().unwrap().message, "NotImplementedError: Unsupported activation: swish");
    assert_eq!(result.error().unwrap().code, "runtime/unsupported");
    let result = run_err(&mut session, "raise TypeError");
    assert_eq!(result.error().unwrap().message, "TypeError");
    let result = run_err(&mut session, "raise 3");
    assert_eq!(result.error().unwrap().message, "exceptions must be exception types, not 'int'");
    let result = run_err(&mut session, "raise");
    assert!(result.error().unwrap().message.contains("bare `raise`"), "{:?}", result.error());
}
