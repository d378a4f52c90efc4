//! Statements real pypto code writes around its kernels: `del` (kernel bodies free their tiles)
//! and `raise` (argument checks), each with its located errors.

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

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

/// `try`/`except` as the host code of pypto's examples writes it: a failed conversion handled,
/// `else` and `finally`, the exception bound by `as`; limits of the session are not caught.
#[test]
fn try_except_handles_script_errors_but_not_limits() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
def device_id(text):
    try:
        value = int(text)
    except ValueError as error:
        print("not a number:", error)
        return None
    else:
        value = value + 1
    finally:
        print("checked", text)
    return value

def lookup(table, key):
    try:
        return table[key]
    except (KeyError, IndexError):
        return -1

def divide(a, b):
    try:
        raise RuntimeError("custom")
    except TypeError:
        return "wrong"
    except Exception as e:
        return str(e) + " " + repr(e)

print(device_id("3"), device_id("x"), lookup({"a": 1}, "b"), lookup([5], 0), divide(1, 0))
"#,
    );
    // int("3") + 1 = 4; int("x") fails with ValueError; the dict has no "b"; [5][0] = 5.
    assert_eq!(
        printed,
        "checked 3\nnot a number: invalid literal for int(): 'x'\nchecked x\n4 None -1 5 custom RuntimeError('custom')\n"
    );
    // A handler for another type lets the error through; the step budget is never caught.
    let result = run_err(&mut session, "try:\n    1 / 0\nexcept KeyError:\n    pass");
    assert_eq!(result.error().unwrap().code, "runtime/zero-division");
    let limited = tilelab::session::Limits { step_budget: 10_000, ..Default::default() };
    let mut session = Session::with_limits(limited);
    let result = run_err(&mut session, "try:\n    while True:\n        pass\nexcept Exception:\n    print('caught')");
    assert_eq!(result.error().unwrap().code, "runtime/step-budget");
    assert_eq!(result.stdout, "");
}

/// Comprehensions as pypto examples write them: shapes from a loop, a filtered list, nested
/// `for`, a generator expression summed; the loop names stay inside.
#[test]
fn comprehensions_build_lists() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import pypto
x = pypto.ones([4, 6])
dims = [x.shape[i] for i in range(2)]
even = [n * n for n in range(7) if n % 2 == 0]
pairs = [(a, b) for a in range(2) for b in "xy"]
total = sum(n for n in range(5))
tiles = tuple(d // 2 for d in dims)
print(dims, even, pairs, total, tiles, any(d > 5 for d in dims))
"#,
    );
    // 0² 2² 4² 6² = 0 4 16 36; 0+1+2+3+4 = 10; (4//2, 6//2) = (2, 3).
    assert_eq!(printed, "[4, 6] [0, 4, 16, 36] [(0, 'x'), (0, 'y'), (1, 'x'), (1, 'y')] 10 (2, 3) True\n");
    let result = run_err(&mut session, "print(n)");
    assert_eq!(result.error().unwrap().message, "name 'n' is not defined");
    let limited = tilelab::session::Limits { list_items: 100, ..Default::default() };
    let mut session = Session::with_limits(limited);
    let result = run_err(&mut session, "big = [i for i in range(50) for j in range(50)]");
    assert_eq!(result.error().unwrap().code, "runtime/size-limit");
}

/// `zip` of three iterables stops at the shortest, as pypto examples' golden loops use it.
#[test]
fn zip_of_three_iterables_stops_at_the_shortest() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "print(list(zip([1, 2, 3], 'ab', (7, 8, 9))))\nfor a, b, c in zip([1], [2], [3]):\n    print(a + b + c)\n",
    );
    assert_eq!(printed, "[(1, 'a', 7), (2, 'b', 8)]\n6\n");
}
