//! The syntax tree: statements and expressions, each with the byte span it came from. The parser
//! always produces a tree; where the source was wrong it holds `Error` nodes (and a diagnostic
//! says why), so later stages can still look at the rest.

mod dump;
mod operators;
mod spans;

pub use dump::{dump, expression as dump_expression};
pub use operators::{BinaryOp, CompareOp, LogicalOp, UnaryOp};
pub use spans::for_each_span;

use super::span::Span;

/// A parsed cell or file.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// The top-level statements.
    pub body: Vec<Stmt>,
    /// The whole source.
    pub span: Span,
}

/// A name as written, with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identifier {
    /// The name (Unicode allowed).
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A statement and its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// From its first token to its last (a compound statement includes its body).
    pub span: Span,
}

/// The statements of the subset.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// An expression on its own line (a cell's last one is displayed).
    Expr(Expr),
    /// `a = b = value`: one or more targets (names, attributes, subscripts, tuples/lists of them).
    Assign { targets: Vec<Expr>, value: Expr },
    /// `target op= value` (`+= -= *= /= //= %= **= @=`).
    AugAssign { target: Expr, op: BinaryOp, value: Expr },
    /// `target: annotation = value` (the value is optional).
    AnnAssign { target: Expr, annotation: Expr, value: Option<Expr> },
    /// `import a.b as c, d`.
    Import { names: Vec<ImportAlias> },
    /// `from a.b import c as d, e`: `names` holds one `ImportAlias` per imported name (a one-part
    /// path each).
    ImportFrom { module: Vec<Identifier>, names: Vec<ImportAlias> },
    /// `def` with its decorators.
    FunctionDef(Box<FunctionDef>),
    /// `class` with its decorators.
    ClassDef(Box<ClassDef>),
    /// `return` with an optional value (`return a, b` returns a tuple).
    Return(Option<Expr>),
    /// `if`/`elif`/`else`: an `elif` is an `If` alone in `orelse`.
    If { test: Expr, body: Vec<Stmt>, orelse: Vec<Stmt> },
    /// `for target in iter:`.
    For { target: Expr, iter: Expr, body: Vec<Stmt> },
    /// `while test:`.
    While { test: Expr, body: Vec<Stmt> },
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `pass`.
    Pass,
    /// `try:` with its `except` handlers, `else:` and `finally:` blocks.
    Try(Box<TryStatement>),
    /// `raise exception [from cause]` (a bare `raise` has neither).
    Raise { exception: Option<Expr>, cause: Option<Expr> },
    /// `del a, b[0], c.d`.
    Delete { targets: Vec<Expr> },
    /// `global a, b` (`nonlocal` when `nonlocal`): the names bind in the module's (the enclosing
    /// function's) scope from here on.
    Declare { names: Vec<Identifier>, nonlocal: bool },
    /// `assert test, message`.
    Assert { test: Expr, message: Option<Expr> },
    /// `with a as b, c:`.
    With { items: Vec<WithItem>, body: Vec<Stmt> },
    /// A statement that could not be parsed or is outside the subset (a diagnostic says which).
    Error,
}

/// One `name [as alias]` of an `import`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportAlias {
    /// The dotted module path (`pypto`, `pypto.nn`).
    pub path: Vec<Identifier>,
    /// The `as` name, if any.
    pub alias: Option<Identifier>,
    /// From the path to the alias.
    pub span: Span,
}

/// A `def`.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// The decorator expressions, top to bottom (`pypto.frontend.jit(pass_options={…})`).
    pub decorators: Vec<Expr>,
    /// The function's name.
    pub name: Identifier,
    /// Its parameters.
    pub parameters: Parameters,
    /// The `-> annotation`, if any.
    pub returns: Option<Expr>,
    /// The body.
    pub body: Vec<Stmt>,
}

/// A `class`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDef {
    /// The decorator expressions, top to bottom (`dataclass(frozen=True)`).
    pub decorators: Vec<Expr>,
    /// The class's name.
    pub name: Identifier,
    /// The base classes in the parentheses (`NamedTuple`, a user class).
    pub bases: Vec<Expr>,
    /// The body: attributes, annotated fields and methods.
    pub body: Vec<Stmt>,
}

/// A `try` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct TryStatement {
    /// The guarded block.
    pub body: Vec<Stmt>,
    /// The `except` clauses, in order.
    pub handlers: Vec<ExceptHandler>,
    /// The `else:` block (runs when the body raised nothing).
    pub orelse: Vec<Stmt>,
    /// The `finally:` block (runs in every case).
    pub finalbody: Vec<Stmt>,
}

/// One `except [types [as name]]:` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct ExceptHandler {
    /// The exception type or tuple of types (none: every exception).
    pub types: Option<Expr>,
    /// The `as` name.
    pub name: Option<Identifier>,
    /// The handler's block.
    pub body: Vec<Stmt>,
    /// The `except …:` header.
    pub span: Span,
}

/// The parameter list of a `def`: `(a, b=1, *args, c, d=2, **kwargs)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parameters {
    /// Parameters before `*`: positional or keyword.
    pub positional: Vec<Parameter>,
    /// `*args`, if present.
    pub varargs: Option<Parameter>,
    /// Parameters after `*` or `*args`: keyword only.
    pub keyword_only: Vec<Parameter>,
    /// `**kwargs`, if present.
    pub kwargs: Option<Parameter>,
}

/// One parameter: `name: annotation = default`.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The parameter's name.
    pub name: Identifier,
    /// Its annotation (`x: pypto.Tensor`), if any.
    pub annotation: Option<Expr>,
    /// Its default value, if any.
    pub default: Option<Expr>,
    /// The whole parameter.
    pub span: Span,
}

/// One `context [as target]` of a `with`.
#[derive(Debug, Clone, PartialEq)]
pub struct WithItem {
    /// The context manager expression (`pypto.no_grad()`).
    pub context: Expr,
    /// The `as` target, if any.
    pub target: Option<Expr>,
}

/// An expression and its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// The bytes it covers (a parenthesised expression's span includes the parentheses).
    pub span: Span,
}

/// The expressions of the subset.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A variable name.
    Name(String),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal (adjacent literals already joined, escapes decoded).
    Str(String),
    /// An f-string: literal text and `{expression!conversion:spec}` fields.
    FString(Vec<FStringPart>),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `...` (as in `x[...]`).
    Ellipsis,
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `(a, b)`, `a, b`, `()`; in an annotation also `a | b` (annotations are not evaluated).
    Tuple(Vec<Expr>),
    /// `{key: value, …}`.
    Dict(Vec<(Expr, Expr)>),
    /// `{a, b}` (a set display; `{}` is an empty dict, as in Python).
    Set(Vec<Expr>),
    /// `value.attribute`.
    Attribute { value: Box<Expr>, attribute: Identifier },
    /// `value[index]`; several indices make a `Tuple` index, as in Python.
    Subscript { value: Box<Expr>, index: Box<Expr> },
    /// `lower:upper:step` inside a subscript.
    Slice { lower: Option<Box<Expr>>, upper: Option<Box<Expr>>, step: Option<Box<Expr>> },
    /// `function(arguments)`.
    Call { function: Box<Expr>, arguments: Vec<Argument> },
    /// `-x`, `+x`, `not x`.
    Unary { op: UnaryOp, operand: Box<Expr> },
    /// `left op right` for arithmetic and `@`.
    Binary { op: BinaryOp, left: Box<Expr>, right: Box<Expr> },
    /// `left and right`, `left or right` (short-circuit).
    Logical { op: LogicalOp, left: Box<Expr>, right: Box<Expr> },
    /// `a < b <= c`: a chain, each comparison against the previous operand.
    Compare { left: Box<Expr>, comparisons: Vec<(CompareOp, Expr)> },
    /// `[element for target in iterable if condition …]` (also a generator expression, which tile
    /// scripts evaluate to a list).
    ListComp { element: Box<Expr>, generators: Vec<Comprehension> },
    /// `{element for target in iterable if condition …}`.
    SetComp { element: Box<Expr>, generators: Vec<Comprehension> },
    /// `{key: value for target in iterable if condition …}`.
    DictComp { key: Box<Expr>, value: Box<Expr>, generators: Vec<Comprehension> },
    /// `lambda parameters: body`: a `FunctionDef` named `<lambda>` whose body returns `body`.
    Lambda(std::sync::Arc<FunctionDef>),
    /// `body if test else orelse`.
    IfElse { test: Box<Expr>, body: Box<Expr>, orelse: Box<Expr> },
    /// An expression that could not be parsed or is outside the subset.
    Error,
}

/// One `for target in iterable if condition …` of a comprehension.
#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    /// The loop target.
    pub target: Expr,
    /// What it loops over.
    pub iterable: Expr,
    /// The `if` filters.
    pub conditions: Vec<Expr>,
}

/// A piece of an f-string.
#[derive(Debug, Clone, PartialEq)]
pub enum FStringPart {
    /// Literal text (escapes and `{{`/`}}` decoded).
    Literal(String),
    /// A replacement field `{expression!conversion:format_spec}`.
    Field { expression: Box<Expr>, conversion: Option<char>, format_spec: Option<String> },
}

/// One argument of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// What kind of argument.
    pub kind: ArgumentKind,
    /// The whole argument (`name=value` included).
    pub span: Span,
}

/// The kinds of call arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentKind {
    /// `value`.
    Positional(Expr),
    /// `name=value`.
    Keyword { name: Identifier, value: Expr },
    /// `*sequence`, unpacked into positional arguments.
    Unpack(Expr),
    /// `**mapping`, unpacked into keyword arguments.
    UnpackKeywords(Expr),
}
