//! The session's memory budget: every live allocation made while a session runs counts against one
//! budget (`Limits::memory_bytes`), and growing past it is a located `MemoryError`. Freeing memory
//! is always allowed, so the session recovers. Budgets here are small so the tests stay light.

use tilelab::session::{Limits, Session};

fn session_with_budget(megabytes: usize) -> Session {
    Session::with_limits(Limits { memory_bytes: megabytes << 20, ..Limits::default() })
}

#[test]
fn appending_tensors_to_a_list_stops_at_the_budget_with_a_located_error() {
    let mut session = session_with_budget(64);
    session.run_cell("import pypto as pt\nkeep = []");
    // Each tensor is 4194304 f32 = 16 MiB: the fifth crosses 64 MiB.
    let result = session.run_cell("for i in range(100):\n    keep.append(pt.zeros([4194304]))");
    let error = result.error().expect("a MemoryError");
    assert_eq!(error.code, "runtime/memory-error");
    assert!(error.message.contains("MemoryError") && error.message.contains("64.0 MiB"), "{}", error.message);
    assert_eq!(error.line, 2, "at the statement that grew past the budget");
    let held = session.run_cell("print(len(keep))");
    let count: usize = held.stdout.trim().parse().expect("a count");
    assert!((3..=5).contains(&count), "stopped near the budget, not at the end of the loop: {count}");
    // Above the budget, a cell that frees memory runs, and afterwards the session works again.
    assert!(session.run_cell("keep = None").is_ok());
    assert!(session.run_cell("x = pt.zeros([4194304])\nprint(x.shape)").is_ok());
}

#[test]
fn many_large_strings_stop_at_the_budget() {
    let mut session = session_with_budget(48);
    let result = session.run_cell("parts = []\nfor i in range(1000):\n    parts.append('ab' * 2097152 + str(i))");
    assert_eq!(result.error().map(|error| error.code.as_str()), Some("runtime/memory-error"));
}

#[test]
fn a_long_autograd_chain_stops_at_the_budget() {
    let mut session = session_with_budget(32);
    let code = "import pypto as pt\nx = pt.ones([65536], requires_grad=True)\ny = x\nfor i in range(100000):\n    y = y * 1.0001";
    let result = session.run_cell(code);
    let error = result.error().expect("a MemoryError");
    assert_eq!((error.code.as_str(), error.line), ("runtime/memory-error", 5));
}

#[test]
fn tolist_of_a_huge_tensor_is_a_size_error_not_gigabytes_of_values() {
    let mut session = Session::new();
    let result = session.run_cell("import pypto as pt\nrows = pt.zeros([4096, 4096]).tolist()");
    let error = result.error().expect("an error");
    assert_eq!((error.code.as_str(), error.line), ("runtime/size-limit", 2));
}

#[test]
fn the_default_budget_allows_ordinary_work() {
    // 8 tensors of 16 MiB: well inside the default budget of 1 GiB.
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto as pt\nkeep = []\nfor i in range(8):\n    keep.append(pt.zeros([4194304]))\nprint(len(keep))",
    );
    assert_eq!(result.stdout, "8\n", "{:?}", result.error());
}

#[test]
fn a_helper_defined_inside_a_function_is_freed_with_its_call() {
    // Each call defines `helper`, whose closure is the call's scope that holds it: a cycle. With
    // the cycle left alone, 100 000 calls keep ~100 MB alive and cross this 16 MiB budget.
    let mut session = session_with_budget(16);
    let code = "def outer(x):\n    def helper(y):\n        return y + x\n    return helper(1)\nt = 0\nfor i in range(100000):\n    t = t + outer(i)\nprint(t)";
    let result = session.run_cell(code);
    assert_eq!(result.stdout, format!("{}\n", (0..100_000i64).map(|i| i + 1).sum::<i64>()), "{:?}", result.error());
    // A returned closure keeps its scope (and works).
    let code = "def make(n):\n    def add(y):\n        return y + n\n    return add\nadd3 = make(3)\nprint(add3(4))";
    assert_eq!(session.run_cell(code).stdout, "7\n");
}
