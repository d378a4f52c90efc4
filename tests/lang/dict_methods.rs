//! The dict methods (and `list.sort`) model tests build their case parameters with (`params.update({...})`), and the
//! others that change a dict: `pop`, `setdefault`, `clear`. Expected values follow Python's
//! documented behaviour: an updated key keeps its place, a new one goes last (and `print` formats
//! its arguments once it has them all, so the dict printed beside `update(z=0)` has `z`).

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

#[test]
fn update_replaces_in_place_and_appends_new_keys() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "params_base = {'b': 1, 's': 2, 'n': 3}\nparams = params_base\n\
         params_base.update({'b': 4, 'd': 5})\nprint(params)\n\
         params.update([('n', 6), ('e', 7)], s=8)\nprint(params_base, params.update(z=0))\nprint(list(params))",
    );
    assert_eq!(
        printed,
        "{'b': 4, 's': 2, 'n': 3, 'd': 5}\n{'b': 4, 's': 8, 'n': 6, 'd': 5, 'e': 7, 'z': 0} None\n\
         ['b', 's', 'n', 'd', 'e', 'z']\n"
    );
}

#[test]
fn pop_setdefault_and_clear() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "d = {'a': 1, 'b': 2}\nprint(d.pop('a'), d.pop('x', 9), d)\n\
         print(d.setdefault('b', 5), d.setdefault('c', 3), d.setdefault('e'), d)\nd.clear()\nprint(d, d.get('b', 0))",
    );
    assert_eq!(printed, "1 9 {'b': 2}\n2 3 None {'b': 2, 'c': 3, 'e': None}\n{} 0\n");
}

#[test]
fn a_missing_key_and_a_bad_pair_are_located_errors() {
    let mut session = Session::new();
    run_ok(&mut session, "d = {'a': 1}");
    let code = "d.pop('zz')";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "key 'zz' is not in the dict");
    assert_eq!(spanned(code, &result), "'zz'");
    let code = "d.update([('k', 1, 2)])";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "dictionary update sequence element has length 3; 2 is required");
    assert_eq!(spanned(code, &result), "[('k', 1, 2)]");
    let result = run_err(&mut session, "d.update({}, {})");
    assert!(result.error().unwrap().message.contains("update"), "{}", result.error().unwrap().message);
}

/// `list.sort(key=None, reverse=False)` sorts in place, stably, and returns None (the models sort
/// their top-k index lists before comparing them).
#[test]
fn list_sort_is_in_place_and_stable() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "a = [3, 1, 2]\nb = a\nprint(a.sort(), b)\nwords = ['bb', 'a', 'cc', 'd']\nwords.sort(key=len, reverse=True)\nprint(words)",
    );
    assert_eq!(printed, "None [1, 2, 3]\n['bb', 'cc', 'a', 'd']\n");
    let result = run_err(&mut session, "a.sort(len)");
    assert!(result.error().unwrap().message.contains("sort"), "{}", result.error().unwrap().message);
}
