//! Python's bitwise operators `& | ^ << >> ~` and their augmented forms: ints and bools with
//! Python's results and precedence (worked by hand), sets, tensors through pypto's bitwise
//! functions (masks combine logically), and the errors Python gives.

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

fn printed(code: &str) -> Vec<String> {
    run_ok(&mut Session::new(), code).lines().map(str::to_string).collect()
}

#[test]
fn ints_and_bools_follow_python() {
    let lines = printed(
        "print(6 & 3, 6 | 3, 6 ^ 3, 1 << 10, -17 >> 2, ~5, ~True, True & False, True | 1, 5 >> 80, -5 >> 80)\n\
         print(1 | 2 == 2, 2 + 1 << 2, 1 & 3 ^ 2 | 8, -2 ** 2 & 7)\n\
         x = 5\nx &= 3\nx |= 8\nx ^= 1\nx <<= 2\nx >>= 3\nprint(x)\n",
    );
    // 1 | 2 == 2 is (1 | 2) == 2; 2 + 1 << 2 is 3 << 2; ((1 & 3) ^ 2) | 8 = 11; -(2 ** 2) & 7 = -4 & 7 = 4.
    assert_eq!(lines, ["2 7 5 1024 -5 -6 -2 False 1 0 -1", "False 12 11 4", "4"]);
}

#[test]
fn sets_combine_and_tensors_call_the_bitwise_functions() {
    let lines = printed(
        "import torch\n\
         print({1, 2, 3} & {2, 3, 4}, {1, 2} | {2, 5}, {1, 2, 3} ^ {2, 3, 4})\n\
         a = torch.tensor([1, 2, 3, 4])\n\
         print((a & 3).tolist(), (a | 8).tolist(), (a ^ 1).tolist(), (a << 2).tolist(), (16 >> a).tolist(), (~a).tolist())\n\
         m = a > 1\nn = a < 4\n\
         print((m & n).tolist(), (m | n).tolist(), (m ^ n).tolist(), (~m).tolist())\n\
         a |= 16\nprint(a.tolist())\n",
    );
    assert_eq!(
        lines,
        [
            "{2, 3} {1, 2, 5} {1, 4}",
            "[1, 2, 3, 0] [9, 10, 11, 12] [0, 3, 2, 5] [4, 8, 12, 16] [8, 4, 2, 1] [-2, -3, -4, -5]",
            "[False, True, True, False] [True, True, True, True] [True, False, False, True] [True, False, False, False]",
            "[17, 18, 19, 20]",
        ]
    );
}

#[test]
fn python_errors_name_the_cause() {
    for (code, kind) in [("1 << -1", "ValueError"), ("1 << 64", "OverflowError"), ("1.0 & 1", "TypeError")] {
        let wrapped = format!("try:\n    {code}\nexcept {kind}:\n    print('caught')\n");
        assert_eq!(printed(&wrapped), ["caught"], "{code}");
    }
    let result = run_err(&mut Session::new(), "x = ~'a'");
    assert!(result.error().unwrap().message.contains("unary ~"), "{:?}", result.error());
}

/// An annotation's `int | None` stays the alternatives, not an `|` of classes.
#[test]
fn a_union_annotation_is_not_an_operation() {
    assert_eq!(printed("def f(t: int | None = None):\n    return t\nprint(f(3))\n"), ["3"]);
}
