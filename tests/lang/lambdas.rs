//! `lambda` and dict comprehensions as real pypto code uses them: a table of operations keyed by
//! an id with a lambda each (the golden side of a parametrised test), `key=` in `sorted`/`max`,
//! closures over the enclosing scope, default arguments bound when the lambda is written, and
//! `{name: shape for …}` tables of test cases. Expected values are computed by hand in the comments.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// A table of (id, golden lambda, name) drives a jit kernel per case; each case's output is
/// checked against its lambda applied to the same inputs. a = 3, b = 2 everywhere:
/// add 5, sub 1, mul 6; the sum over 16·16 elements is 256 times that.
#[test]
fn a_table_of_lambdas_gives_the_golden_of_each_case() {
    let mut session = Session::new();
    let code = r#"
import pypto

CASES = [
    (0, lambda a, b: a + b, "add"),
    (1, lambda a, b: a - b, "sub"),
    (2, lambda a, b: a * b, "mul"),
]


@pypto.frontend.jit
def binary_kernel(a: pypto.Tensor([16, 16], pypto.DT_FP32), b: pypto.Tensor([16, 16], pypto.DT_FP32),
                  out: pypto.Tensor([16, 16], pypto.DT_FP32), op: int):
    pypto.set_vec_tile_shapes(16, 16)
    if op == 0:
        out[:] = a + b
    elif op == 1:
        out[:] = a - b
    else:
        out[:] = a * b


a = pypto.full([16, 16], 3.0)
b = pypto.full([16, 16], 2.0)
for op, golden, name in CASES:
    out = pypto.zeros([16, 16])
    binary_kernel(a, b, out, op)
    pypto.assert_allclose(out, golden(a, b))
    print(name, out.sum().item())
"#;
    assert_eq!(run_ok(&mut session, code), "add 1280.0\nsub 256.0\nmul 1536.0\n");
}

/// `key=` takes a lambda in `sorted`, `min` and `max`; `reverse=True` keeps equal keys in their
/// order (stable), as Python does; `map`/`filter` give lists.
#[test]
fn sorting_and_selecting_by_a_key() {
    let mut session = Session::new();
    let code = r#"
shapes = [("q", [64, 128]), ("k", [32, 128]), ("v", [64, 64]), ("o", [32, 64])]
by_rows = sorted(shapes, key=lambda item: item[1][0])
print([name for name, _ in by_rows])
print([name for name, _ in sorted(shapes, key=lambda item: item[1][0], reverse=True)])
largest = max(shapes, key=lambda item: item[1][0] * item[1][1])
smallest = min(shapes, key=lambda item: item[1][0] * item[1][1])
print(largest[0], smallest[0], max([], default=-1), min(3, 1, 2), max("ab", "abc", key=len))
print(list(map(lambda s: s[1][0] // 32, shapes)), list(filter(lambda s: s[1][1] == 64, shapes)))
print(list(map(lambda x, y: x * y, [1, 2, 3], [4, 5])), list(filter(None, [0, 1, 2, 0])))
"#;
    // Stable by rows: q(64) k(32) v(64) o(32) -> k o q v; reversed stable: q v k o.
    // Areas: q 8192, k 4096, v 4096, o 2048: max q, min o. map: 64//32=2, 1, 2, 1.
    assert_eq!(
        run_ok(&mut session, code),
        "['k', 'o', 'q', 'v']\n['q', 'v', 'k', 'o']\nq o -1 1 abc\n[2, 1, 2, 1] [('v', [64, 64]), ('o', [32, 64])]\n[4, 10] [1, 2]\n"
    );
}

/// A lambda sees the enclosing scope when it runs (a later rebinding shows), a default is bound
/// when the lambda is written (the classic loop idiom), and a returned lambda keeps its scope.
#[test]
fn closures_and_default_arguments() {
    let mut session = Session::new();
    let code = r#"
scale = 2
double = lambda x: x * scale
scale = 3
late = [lambda: i for i in range(3)]
bound = [lambda i=i: i for i in range(3)]

def make_scaler(factor):
    offset = 1
    return lambda x, *rest, bias=0, **extra: x * factor + offset + bias + len(rest) + len(extra)

triple = make_scaler(3)
print(double(5), [f() for f in late], [f() for f in bound], triple(2), triple(2, 9, 9, bias=10, a=1))
print((lambda: "no parameters")(), (lambda x: lambda y: x - y)(10)(4))
"#;
    // double reads scale at call time: 5 * 3 = 15. `late` lambdas read i after the loop: 2.
    // triple(2) = 2*3 + 1 = 7; with 2 extra positionals, bias 10, one extra keyword: 7+10+2+1 = 20.
    assert_eq!(run_ok(&mut session, code), "15 [2, 2, 2] [0, 1, 2] 7 20\nno parameters 6\n");
}

/// Mistakes with lambdas are located runtime errors that name the lambda.
#[test]
fn lambda_mistakes_are_located() {
    let mut session = Session::new();
    let code = "f = lambda a, b: a + b\nf(1)";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("<lambda>() missing required argument 'b'"));
    assert_eq!(spanned(code, &result), "f(1)");
    let code = "key = lambda s: s.rows\nsorted([1, 2], key=key)";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("rows"), "{:?}", result.error());
    let code = "sorted([1, 'a'])";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("'<' is not supported between"), "{:?}", result.error());
}

/// Dict comprehensions: a table of test shapes keyed by name, nested `for` and `if` clauses as
/// list comprehensions have, a later equal key replacing the earlier value in place.
#[test]
fn dict_comprehensions_build_tables() {
    let mut session = Session::new();
    let code = r#"
import pypto
names = ["q", "k", "v"]
shapes = {name: [32 * (i + 1), 128] for i, name in enumerate(names)}
inputs = {name: pypto.ones(shape) for name, shape in shapes.items() if name != "k"}
grid = {(i, j): i * 10 + j for i in range(3) for j in range(3) if i != j if j > 0}
last = {x % 3: x for x in range(7)}
print(shapes, sorted(inputs.keys()), inputs["v"].shape)
print(grid)
print(last, {k: v for k, v in []})
"#;
    // q: 32, k: 64, v: 96 rows. grid keeps i != j and j > 0: (0,1) (0,2) (1,2) (2,1).
    // last: 0 -> 6 (0, 3, 6), 1 -> 4 (1, 4), 2 -> 5 (2, 5), in first-insertion order 0, 1, 2.
    assert_eq!(
        run_ok(&mut session, code),
        "{'q': [32, 128], 'k': [64, 128], 'v': [96, 128]} ['q', 'v'] [96, 128]\n\
         {(0, 1): 1, (0, 2): 2, (1, 2): 12, (2, 1): 21}\n{0: 6, 1: 4, 2: 5} {}\n"
    );
    let code = "d = {[i]: i for i in range(2)}";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("unhashable type: 'list'"));
    assert_eq!(spanned(code, &result), "[i]");
}
