//! Round trips: realistic tile scripts that use every construct of the subset parse with no
//! diagnostics, and the tree has the expected shape (checked against a hand-written dump and by
//! matching on nodes directly).
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use tilelab::lang::syntax::ast::{self, ArgumentKind, ExprKind, StmtKind};
use tilelab::lang::syntax::{parse, LineIndex};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syntax/roundtrip").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path:?}: {error}"))
}

fn parse_clean(source: &str) -> ast::Module {
    let output = parse(source);
    let index = LineIndex::new(source);
    let rendered: String = output.diagnostics.iter().map(|d| index.render(source, "cell.py", d)).collect();
    assert!(output.diagnostics.is_empty(), "unexpected diagnostics:\n{rendered}");
    output.module
}

#[test]
fn softmax_and_swish_kernels_match_the_hand_written_tree() {
    let source = fixture("softmax_swish.py");
    let module = parse_clean(&source);
    let expected = fixture("softmax_swish.ast");
    let actual = ast::dump(&module);
    if actual != expected {
        for (number, (want, got)) in expected.lines().zip(actual.lines()).enumerate() {
            assert_eq!(want, got, "first difference at dump line {}", number + 1);
        }
        assert_eq!(expected.lines().count(), actual.lines().count(), "dump lengths differ");
    }
}

#[test]
fn jit_kernel_shape_is_what_the_interpreter_needs() {
    let source = fixture("softmax_swish.py");
    let module = parse_clean(&source);
    let StmtKind::FunctionDef(kernel) = &module.body[5].kind else { panic!("statement 6 is the jit kernel") };
    assert_eq!(kernel.name.name, "softmax_kernel");
    assert_eq!(kernel.name.span.text(&source), "softmax_kernel");
    // The decorator is a call of `pypto.frontend.jit` with two keyword arguments.
    let ExprKind::Call { function, arguments } = &kernel.decorators[0].kind else { panic!("decorator call") };
    assert_eq!(ast::dump_expression(function), "(. (. pypto frontend) jit)");
    let names: Vec<&str> = arguments
        .iter()
        .map(|argument| match &argument.kind {
            ArgumentKind::Keyword { name, .. } => name.name.as_str(),
            _ => "?",
        })
        .collect();
    assert_eq!(names, ["pass_options", "runtime_options"]);
    // Parameters: two annotated tensors and a defaulted int.
    let parameters = &kernel.parameters;
    assert_eq!(parameters.positional.len(), 3);
    assert!(parameters.positional[0].annotation.is_some());
    assert_eq!(parameters.positional[2].default.as_ref().map(|d| &d.kind), Some(&ExprKind::Int(1024)));
    // The loop is a `for` over `pypto.loop(...)` whose body ends with an assemble call.
    let StmtKind::For { target, iter, body } = &kernel.body[4].kind else { panic!("the loop") };
    assert_eq!(target.kind, ExprKind::Name("i".into()));
    assert!(iter.span.text(&source).starts_with("pypto.loop(0, n_tiles"));
    let StmtKind::Expr(last) = &body.last().expect("loop body").kind else { panic!("assemble call") };
    assert!(last.span.text(&source).starts_with("pypto.assemble("));
    // The statement span of the kernel runs from its first decorator to the end of its body.
    let kernel_text = module.body[5].span.text(&source);
    assert!(kernel_text.starts_with("@pypto.frontend.jit("));
    assert!(kernel_text.ends_with("out[:, 0:1] * 1.0"));
}

#[test]
fn register_gradient_decorator_keeps_the_kernel_name() {
    let source = fixture("softmax_swish.py");
    let module = parse_clean(&source);
    let StmtKind::FunctionDef(backward) = &module.body[7].kind else { panic!("the backward") };
    let ExprKind::Call { arguments, .. } = &backward.decorators[0].kind else { panic!("decorator call") };
    let ArgumentKind::Positional(name) = &arguments[0].kind else { panic!("positional name") };
    assert_eq!(name.kind, ExprKind::Str("swish".into()));
    let parameter_names: Vec<&str> = backward.parameters.positional.iter().map(|p| p.name.name.as_str()).collect();
    assert_eq!(parameter_names, ["grad_output", "saved", "ctx"]);
}

#[test]
fn every_span_of_the_tree_is_inside_the_source_on_char_boundaries() {
    let source = fixture("softmax_swish.py");
    let module = parse_clean(&source);
    let mut count = 0;
    ast::for_each_span(&module, &mut |span| {
        count += 1;
        assert!(span.start <= span.end && span.end <= source.len());
        assert!(source.is_char_boundary(span.start) && source.is_char_boundary(span.end));
    });
    assert!(count > 500, "only {count} spans visited");
}

#[test]
fn small_constructs_parse_to_the_expected_shape() {
    // Each line: source, expected dump. The expected forms follow Python's grammar: `**` binds
    // tighter than unary minus on its left and is right-associative; comparisons chain.
    let cases = [
        ("-x ** 2\n", "expr (neg (** x 2))\n"),
        ("2 ** 3 ** 2\n", "expr (** 2 (** 3 2))\n"),
        ("a < b < c\n", "expr (compare a < b < c)\n"),
        ("a if b else c if d else e\n", "expr (ifelse b a (ifelse d c e))\n"),
        ("not a and b or c\n", "expr (or (and (not a) b) c)\n"),
        ("a - b - c\n", "expr (- (- a b) c)\n"),
        ("a + b * c @ d\n", "expr (+ a (@ (* b c) d))\n"),
        ("x[::2]\n", "expr (sub x (slice _ _ 2))\n"),
        ("x[...] = v\n", "assign (sub x ...) = v\n"),
        ("a = b = 0\n", "assign a = b = 0\n"),
        ("a, b = b, a\n", "assign (tuple a b) = (tuple b a)\n"),
        ("x: int = 1\n", "annassign x: int = 1\n"),
        ("()\n", "expr (tuple)\n"),
        ("(1,)\n", "expr (tuple 1)\n"),
        ("[1, 2,]\n", "expr (list 1 2)\n"),
        ("f(*a, **k, key=1)\n", "expr (call f (* a) (** k) (kw key 1))\n"),
        ("x = (1 +\n     2)\n", "assign x = (+ 1 2)\n"),
        ("x = 1 + \\\n    2\n", "assign x = (+ 1 2)\n"),
        ("张量 = \"张量\"  # 注释\n", "assign 张量 = \"张量\"\n"),
        ("s = r'\\d' + 'a' \"b\"\n", "assign s = (+ \"\\\\d\" \"ab\")\n"),
        ("n = 0b1_0 + 0o7 + 1_000 + .5 + 1.\n", "assign n = (+ (+ (+ (+ 2 7) 1000) 0.5) 1.0)\n"),
        ("def f(a, *args, b=2, **kw) -> int:\n    return\n", "def f(a, *args, b=2, **kw) -> int\n  return\n"),
        ("def f(*, key):\n    pass\n", "def f(*, key)\n  pass\n"),
        ("if a: pass\nelif b: pass\n", "if a\n  pass\nelse\n  if b\n    pass\n"),
        ("with a as b, c:\n    pass\n", "with a as b, c\n  pass\n"),
        ("import pypto.nn as nn, math\n", "import pypto.nn as nn, math\n"),
        ("f\"{x}\"\n", "expr (f {x})\n"),
        ("f'{a[\"k\"]!s:>{w}}'\n", ""),
        ("assert x\n", "assert x\n"),
        ("while x:\n    continue\n", "while x\n  continue\n"),
        ("x is not None\n", "expr (compare x is not None)\n"),
        ("\n\n  # only a comment\n\n", ""),
        ("", ""),
    ];
    for (source, expected) in cases {
        let output = parse(source);
        if source.contains("{w}") {
            // A nested field in a format spec is outside the subset: one clear diagnostic.
            assert_eq!(output.diagnostics.len(), 1, "{source:?}: {:#?}", output.diagnostics);
            assert!(output.diagnostics[0].message.contains("nested fields"));
            continue;
        }
        assert!(output.diagnostics.is_empty(), "{source:?}: {:#?}", output.diagnostics);
        assert_eq!(ast::dump(&output.module), expected, "{source:?}");
    }
}
