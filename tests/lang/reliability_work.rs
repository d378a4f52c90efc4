//! Work is bounded by the step budget, not only statements: ops are charged by their size, so a
//! short loop of huge ops ends with a located step-budget error; indexing a long string or a huge
//! range is O(1); a cell reports at most 100 syntax errors. Python semantics at the edges: ranges
//! over the whole i64 line, and `math.floor`/`ceil`/`int`/`round` of infinities and NaN raise.
//! (No timing assertions: each case either stops with the budget error or finishes.)

use tilelab::session::{Limits, Session};

/// The first error of a one-cell run: (code, line), or ("ok", 0).
fn first_error(session: &mut Session, code: &str) -> (String, usize) {
    let result = session.run_cell(code);
    result.error().map_or(("ok".to_string(), 0), |error| (error.code.clone(), error.line))
}

#[test]
fn a_loop_of_large_matmuls_exhausts_the_budget_at_the_matmul() {
    // 1024³ multiply-adds = 2**30: 1 Mi steps each at 1024 per step; 500 000 steps allow none.
    let mut session = Session::with_limits(Limits { step_budget: 500_000, ..Limits::default() });
    session.run_cell("import pypto as pt\na = pt.ones([1024, 1024])");
    let code = "for i in range(1000):\n    b = a @ a";
    assert_eq!(first_error(&mut session, code), ("runtime/step-budget".to_string(), 2));
    let code = "b = pt.matmul(a, a)";
    assert_eq!(first_error(&mut session, code).0, "runtime/step-budget");
    // Transposed operands cost the same m·k·n: [64, 1024] @ [1024, 64] is 2**22 multiply-adds.
    let code = "c = pt.ones([64, 1024])\nd = pt.matmul(c, c, b_trans=True)\ne = pt.matmul(c, c, a_trans=True)\nprint(d.shape, e.shape)";
    assert_eq!(session.run_cell(code).stdout, "[64, 64] [1024, 1024]\n");
}

#[test]
fn element_wise_ops_on_large_tensors_are_charged_by_elements() {
    // 2**22 elements cost 2**17 steps per add: 20 adds need 2.6 M steps, more than 1 M.
    let mut session = Session::with_limits(Limits { step_budget: 1_000_000, ..Limits::default() });
    session.run_cell("import pypto as pt");
    let code = "a = pt.ones([4194304])\nfor i in range(20):\n    a = a + 1.0";
    assert_eq!(first_error(&mut session, code), ("runtime/step-budget".to_string(), 3));
    // Small tensors in the same loop are cheap: 20 iterations are a few hundred steps.
    let code = "b = pt.ones([64])\nfor i in range(20):\n    b = b + 1.0\nprint(b.tolist()[0])";
    assert_eq!(session.run_cell(code).stdout, "21.0\n");
}

#[test]
fn growing_a_string_in_a_loop_is_charged_by_bytes() {
    // Each `s + 'a'` copies s: the loop is quadratic, 10**7 iterations would copy ~5·10**13 bytes.
    let mut session = Session::with_limits(Limits { step_budget: 5_000_000, ..Limits::default() });
    let code = "s = ''\nfor i in range(10000000):\n    s = s + 'a'";
    assert_eq!(first_error(&mut session, code), ("runtime/step-budget".to_string(), 3));
}

#[test]
fn indexing_a_long_string_and_a_huge_range_is_constant_time() {
    // With O(n) indexing each s[i] would charge (or scan) 16 MB: 10 000 indexes are 1.6·10**11
    // bytes, far past this budget. O(1) indexing fits easily.
    let mut session = Session::with_limits(Limits { step_budget: 2_000_000, ..Limits::default() });
    let code = "s = 'ab' * 8000000\nn = 0\nfor i in range(10000):\n    if s[len(s) - 1 - i] == 'b':\n        n = n + 1\nprint(n)";
    let result = session.run_cell(code);
    assert_eq!(result.stdout, "5000\n", "{:?}", result.error());
    let code = "r = range(3, 300000003, 3)\nt = 0\nfor i in range(10000):\n    t = t + r[-1 - i] - r[i]\nprint(t, r[5:8], r[::-1][0], len(r))";
    let result = session.run_cell(code);
    // r[-1-i] - r[i] = (300000000 - 3i) - (3 + 3i); summed over i < 10 000.
    let expected: i64 = (0..10_000i64).map(|i| (300_000_000 - 3 * i) - (3 + 3 * i)).sum();
    assert_eq!(result.stdout, format!("{expected} range(18, 27, 3) 300000000 100000000\n"), "{:?}", result.error());
    // Non-ASCII text indexes by characters, as in Python.
    assert_eq!(session.run_cell("u = 'aé' * 3000\nprint(u[1], u[-2], len(u))").stdout, "é a 6000\n");
}

#[test]
fn at_most_one_hundred_syntax_errors_per_cell() {
    let mut session = Session::new();
    let code: String = (0..5000).map(|index| format!("x = = {index}\n")).collect();
    let result = session.run_cell(&code);
    assert_eq!(result.diagnostics.len(), 101);
    let last = result.diagnostics.last().expect("the summary");
    assert_eq!((last.code.as_str(), last.line), ("syntax/too-many-errors", 101));
    assert!(last.message.starts_with("4900 more syntax errors"), "{}", last.message);
}

#[test]
fn a_range_over_the_whole_i64_line_behaves_like_python() {
    let mut session = Session::new();
    session.run_cell("r = range(-9223372036854775807 - 1, 9223372036854775807)");
    let result = session.run_cell(
        "print(bool(r), r[0], r[-1], 5 in r, 9223372036854775807 in r)\nfor i in r:\n    print(i)\n    break",
    );
    assert_eq!(result.stdout, "True -9223372036854775808 9223372036854775806 True False\n-9223372036854775808\n");
    // 2**64 - 1 items: len raises OverflowError, as in Python.
    assert_eq!(first_error(&mut session, "n = len(r)"), ("runtime/overflow".to_string(), 1));
    assert_eq!(first_error(&mut session, "items = list(r)").0, "runtime/size-limit");
    // 2**63 items do not fit either; one fewer does (Python's limits are the same).
    assert_eq!(first_error(&mut session, "n = len(range(-9223372036854775807 - 1, 0))").0, "runtime/overflow");
    let result = session.run_cell("print(len(range(-9223372036854775807, 0)), len(range(0, 10, -1)))");
    assert_eq!(result.stdout, "9223372036854775807 0\n");
}

#[test]
fn float_to_int_conversions_of_infinities_and_nan_raise() {
    let mut session = Session::new();
    session.run_cell("import math");
    for (expression, code) in [
        ("math.floor(math.inf)", "runtime/overflow"),
        ("math.ceil(-math.inf)", "runtime/overflow"),
        ("math.floor(math.nan)", "runtime/value-error"),
        ("math.ceil(math.nan)", "runtime/value-error"),
        ("math.floor(1e300)", "runtime/overflow"),
        ("int(-math.inf)", "runtime/overflow"),
        ("int(math.nan)", "runtime/value-error"),
        ("round(math.inf)", "runtime/overflow"),
    ] {
        assert_eq!(first_error(&mut session, &format!("x = {expression}")), (code.to_string(), 1), "{expression}");
    }
    let result =
        session.run_cell("print(math.floor(-2.5), math.ceil(2.5), math.floor(-9223372036854775808.0), int(-3.9))");
    assert_eq!(result.stdout, "-3 3 -9223372036854775808 -3\n");
}
