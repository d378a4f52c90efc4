//! Python sets as scripts write them (pypto code passes `unroll_list={1}`): displays,
//! comprehensions, `set()`, membership, the set algebra and its errors, located; and `dict(…)`.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

#[test]
fn displays_comprehensions_and_the_builtin_make_sets_of_unique_members() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "s = {3, 1, 3, 1.0}\nprint(s, len(s), 1 in s, 2 in s, 2 not in s)\n\
         print(set(), set([2, 2, 5]), {x % 3 for x in range(10)}, {(1, 2), (1, 2)}, bool(set()), bool(s))",
    );
    // 1 and 1.0 are equal, so the first (1) stays; insertion order is kept.
    assert_eq!(printed, "{3, 1} 2 True False True\nset() {2, 5} {0, 1, 2} {(1, 2)} False True\n");
}

#[test]
fn equality_ignores_order_and_the_algebra_follows_python() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "a = {1, 2, 3}\nb = {3, 4}\n\
         print(a == {3, 2, 1}, a != b, a - b, a.union(b), a.intersection([3, 9]), a.difference(b))\n\
         print(a.symmetric_difference(b), {1}.issubset(a), a.issuperset({1, 5}), a.isdisjoint({7}))\n\
         c = a.copy()\nc.add(9)\nc.add(1)\nc.discard(42)\nc.remove(2)\nc.update([7, 9])\n\
         print(a, c, sorted({5, -1, 3}), [m * 2 for m in b])\n\
         first = c.pop()\nc.clear()\nprint(first, c)",
    );
    assert_eq!(
        printed,
        "True True {1, 2} {1, 2, 3, 4} {3} {1, 2}\n\
         {1, 2, 4} True False True\n\
         {1, 2, 3} {1, 3, 9, 7} [-1, 3, 5] [6, 8]\n\
         1 set()\n"
    );
}

#[test]
fn unhashable_members_and_missing_members_are_located_errors() {
    let mut session = Session::new();
    let code = "s = {1, [2], 3}";
    let result = run_err(&mut session, code);
    assert_eq!(spanned(code, &result), "[2]");
    assert!(result.error().unwrap().message.contains("unhashable type: 'list'"), "{:?}", result.error());

    let code = "s = {1}\ns.remove(5)";
    let result = run_err(&mut session, code);
    assert_eq!(spanned(code, &result), "s.remove(5)");
    assert_eq!(result.error().unwrap().message, "5 is not in the set");
    // A missing member is a KeyError, as in Python.
    let printed = run_ok(&mut session, "try:\n    set().pop()\nexcept KeyError:\n    print('caught')");
    assert_eq!(printed, "caught\n");

    let code = "{1, 2} = x";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "cannot assign to a set display");
    let code = "s = {1, 2: 3}";
    assert!(!session.run_cell(code).is_ok());
}

/// `dict(…)` as Python builds it (results written out by hand): empty, a copy, from pairs, with
/// keywords replacing a key's value in place; `dict` is also an annotation and an isinstance type.
#[test]
fn dict_builds_dicts_as_python_does() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
def f(params: dict) -> dict:
    return dict(params, b=5, c=6)
a = {"a": 1, "b": 2}
c = dict(a)
c["a"] = 9
print(dict(), a, c, f(a), dict([("x", 1), ["y", 2]]), dict(zip("pq", (3, 4))), isinstance(a, dict), isinstance([], dict))
"#,
    );
    assert_eq!(
        printed,
        "{} {'a': 1, 'b': 2} {'a': 9, 'b': 2} {'a': 1, 'b': 5, 'c': 6} {'x': 1, 'y': 2} {'p': 3, 'q': 4} True False\n"
    );
    let result = run_err(&mut session, "dict([(1, 2, 3)])");
    assert_eq!(
        result.error().expect("an error").message,
        "dictionary update sequence element has length 3; 2 is required"
    );
}
