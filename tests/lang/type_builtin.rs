//! `type(x)`, as pypto code uses it in its messages and to rebuild a value of the same type.

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

/// `type(x)`: an instance's class (callable, `is`/`==` to the class), builtin types as the
/// builtins that make them, an exception's type, torch's tensor type; `__name__` and Python's
/// `<class '…'>` text.
#[test]
fn type_of_values_is_their_class() {
    let mut session = Session::new();
    let code = r#"import torch
class A:
    def __init__(self, x=1):
        self.x = x
a = A(3)
print(type(a).__name__, type(a)(x=5).x, type(a) is A, type(a) == A)
print(int.__name__, type(3) is int, type(3.0) == float, type(3) == float, type("s"), type(None))
try:
    raise ValueError("v")
except Exception as e:
    print(type(e).__name__, type(e))
print(type(torch.ones(2)), type(torch.ones(2)).__name__, type([1, 2])(x for x in (3, 4)))"#;
    let printed = run_ok(&mut session, code);
    let expected = "A 5 True True\nint True True False <class 'str'> <class 'NoneType'>\n\
                    ValueError <class 'ValueError'>\n<class 'torch.Tensor'> Tensor [3, 4]\n";
    assert_eq!(printed, expected);
    let result = run_err(&mut session, "type()");
    assert_eq!(result.error().unwrap().code, "runtime/type-error");
}
