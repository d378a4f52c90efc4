//! Classes as real pypto code writes them: a `@dataclass` tiling config passed into a
//! `@pypto.frontend.jit` kernel, a `NamedTuple` of shapes unpacked in the host code, `from pypto
//! import …`, plain classes with methods and single inheritance; and the mistakes, each a located
//! error that says what to write instead. Expected values are computed by hand in the comments.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// A tiling config as pypto-gym passes it: a dataclass built from keyword arguments and
/// defaults, read inside the kernel. ones([64, 64]) + 1 summed over 64·64 elements is 2·4096.
#[test]
fn a_dataclass_config_drives_a_jit_kernel() {
    let mut session = Session::new();
    let code = r#"
import pypto
from dataclasses import dataclass
from pypto import DT_FP32


@dataclass
class TileConfig:
    tile_m: int = 32
    tile_n: int = 64
    dtype: pypto.DType = DT_FP32


@pypto.frontend.jit
def add_one(x: pypto.Tensor([64, 64], DT_FP32), out: pypto.Tensor([64, 64], DT_FP32), cfg: TileConfig) -> None:
    pypto.set_vec_tile_shapes(cfg.tile_m, cfg.tile_n)
    for i in pypto.loop(x.shape[0] // cfg.tile_m):
        tile = pypto.view(x, [cfg.tile_m, cfg.tile_n], [i * cfg.tile_m, 0])
        pypto.assemble(tile + 1.0, [i * cfg.tile_m, 0], out)


x = pypto.ones([64, 64], dtype=DT_FP32)
out = pypto.zeros([64, 64])
cfg = TileConfig(tile_n=64)
add_one(x, out, cfg)
print(out.sum().item(), cfg)
"#;
    let printed = run_ok(&mut session, code);
    assert_eq!(printed, "8192.0 TileConfig(tile_m=32, tile_n=64, dtype=pypto.DT_FP32)\n");
}

/// Generated `__init__`: positional, keyword, defaults, `field(default_factory=…)` giving each
/// instance its own list, `==` field by field, `__post_init__`, inherited fields first.
#[test]
fn dataclass_fields_defaults_equality_and_inheritance() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
from dataclasses import dataclass, field, replace, asdict
from typing import List

@dataclass
class Base:
    m: int
    n: int = 8

@dataclass
class Config(Base):
    k: int = 16
    tags: List[str] = field(default_factory=list)
    blocks: int = field(default=0)

    def __post_init__(self):
        self.blocks = self.m // self.n

a = Config(64)
b = Config(64, 8, k=16)
a.tags.append("x")
print(a)
print(a == b, a.tags, b.tags, Config.n, a.blocks)
c = replace(b, n=4)
print(c.blocks, c.n, asdict(c)["k"], b.n)
"#,
    );
    // blocks = 64 // 8 = 8; the replaced copy reruns __post_init__: 64 // 4 = 16.
    assert_eq!(printed, "Config(m=64, n=8, k=16, tags=['x'], blocks=8)\nFalse ['x'] [] 8 8\n16 4 16 8\n");
    // a and b differ only in tags: after clearing them they are equal.
    assert_eq!(run_ok(&mut session, "a.tags.pop()\nprint(a == b, a != b)"), "True False\n");
}

#[test]
fn frozen_dataclasses_and_wrong_arguments_are_located_errors() {
    let mut session = Session::new();
    run_ok(
        &mut session,
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass Tiling:\n    rows: int\n    cols: int = 64\nt = Tiling(32)",
    );
    let code = "t.rows = 16";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert!(error.message.contains("cannot assign to field 'rows'"), "{}", error.message);
    assert!(error.help.as_deref().unwrap_or("").contains("replace"), "{:?}", error.help);
    assert_eq!(spanned(code, &result), "t.rows");

    let code = "Tiling(32, colz=8)";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert_eq!(error.message, "Tiling() got an unexpected keyword argument 'colz'");
    assert!(error.help.as_deref().unwrap_or("").starts_with("did you mean `cols`?"), "{:?}", error.help);
    assert_eq!(spanned(code, &result), "colz=8");

    let result = run_err(&mut session, "Tiling()");
    assert_eq!(result.error().unwrap().message, "Tiling() missing required argument 'rows'");
    let result = run_err(&mut session, "Tiling(1, 2, 3)");
    assert_eq!(result.error().unwrap().message, "Tiling() takes 2 positional arguments but 3 were given");
}

#[test]
fn dataclass_definitions_that_python_refuses() {
    let mut session = Session::new();
    run_ok(&mut session, "from dataclasses import dataclass");
    let code = "@dataclass\nclass Bad:\n    a: int = 1\n    b: int\n";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert!(error.message.contains("field 'b' without a default follows field 'a'"), "{}", error.message);
    assert_eq!(spanned(code, &result), "dataclass");
    let result = run_err(&mut session, "@dataclass\nclass Shared:\n    items: list = []\n");
    let error = result.error().unwrap();
    assert!(error.message.starts_with("mutable default list for field 'items'"), "{}", error.message);
    assert!(error.help.as_deref().unwrap_or("").contains("field(default_factory=list)"));
}

/// A NamedTuple of shapes, as test code unpacks it: by position, name, index, unpacking,
/// `len`, `_replace`, and equal to the plain tuple of its fields.
#[test]
fn named_tuple_shapes() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
from typing import NamedTuple

class MatmulShape(NamedTuple):
    m: int
    k: int
    n: int = 64

    def flops(self) -> int:
        return 2 * self.m * self.k * self.n

shape = MatmulShape(128, k=32)
m, k, n = shape
print(shape, m, k, n, shape[2], shape[-3], len(shape), shape.flops())
print(shape == (128, 32, 64), shape._replace(n=16), list(shape), MatmulShape._fields)
"#,
    );
    // flops = 2·128·32·64 = 524288.
    assert_eq!(
        printed,
        "MatmulShape(m=128, k=32, n=64) 128 32 64 64 128 3 524288\nTrue MatmulShape(m=128, k=32, n=16) [128, 32, 64] ('m', 'k', 'n')\n"
    );
    let code = "shape.m = 1";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().help.as_deref().unwrap_or("").contains("._replace(m=…)"));
    assert_eq!(spanned(code, &result), "shape.m");
}

/// A plain class: class attributes shared and overridden, `__init__`, methods, `@staticmethod`,
/// `@classmethod` (constructing the subclass it is called on), `@property`, `isinstance`.
#[test]
fn plain_classes_methods_and_single_inheritance() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
class Scaler:
    factor = 2

    def __init__(self, bias):
        self.bias = bias

    def apply(self, x):
        return x * self.factor + self.bias

    @staticmethod
    def name():
        return "scaler"

    @classmethod
    def zero(cls):
        return cls(0)

    @property
    def offset(self):
        return self.bias + 100

class Tripler(Scaler):
    factor = 3

t = Tripler.zero()
s = Scaler(1)
s.factor = 10
print(t.apply(5), s.apply(5), Scaler.factor, t.offset, Tripler.name(), s.name())
print(isinstance(t, Scaler), isinstance(s, Tripler), isinstance(t, (int, Scaler)), isinstance(3, int))
print(getattr(t, "bias"), hasattr(t, "nope"), getattr(t, "nope", -1))
"#,
    );
    // 5·3 + 0 = 15; 5·10 + 1 = 51 (the instance attribute shadows the class's 2); offset 0 + 100.
    assert_eq!(printed, "15 51 2 100 scaler scaler\nTrue False True True\n0 False -1\n");
}

#[test]
fn class_errors_name_the_construct() {
    let mut session = Session::new();
    run_ok(&mut session, "class Point:\n    def __init__(self, x):\n        self.x = x\np = Point(1)");
    let code = "p.y";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "'Point' object has no attribute 'y'");
    assert_eq!(spanned(code, &result), "y");
    let result = run_err(&mut session, "class Empty:\n    pass\nEmpty(3)");
    assert_eq!(result.error().unwrap().message, "Empty() takes no arguments (1 given)");
    let code = "class Both(Point, Point):\n    pass";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("several bases"), "{:?}", result.error());
    let code = "class FromInt(3):\n    pass";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "a class cannot derive from a 'int'");
    assert_eq!(spanned(code, &result), "3");
}

/// A method that recurses forever is a located call-depth error, with the method in the trace.
#[test]
fn a_method_recursing_forever_is_a_located_error() {
    let mut session = Session::new();
    let code = "class Loop:\n    def again(self, n):\n        return self.again(n + 1)\nLoop().again(0)";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert_eq!(error.code, "runtime/call-depth", "{}", error.message);
    assert_eq!(error.traceback.first().map(|frame| frame.function.as_str()), Some("again"));
}

/// Instances that hold each other are released once nothing else holds them: a cell that
/// builds 200,000 two-node cycles stays far below a memory budget that the cycles would pass
/// if they leaked (each node holds a 1 KiB string: 400 MB if nothing were freed).
#[test]
fn reference_cycles_between_instances_are_collected() {
    let limits = tilelab::session::Limits { memory_bytes: 64 << 20, ..Default::default() };
    let mut session = Session::with_limits(limits);
    let code = r#"
class Node:
    def __init__(self, payload):
        self.payload = payload
        self.partner = None
        self.children = []

for i in range(200000):
    a = Node("x" * 1024)
    b = Node("y" * 1024)
    a.partner = b
    b.children.append(a)
    a.me = a
print("done")
"#;
    assert_eq!(run_ok(&mut session, code), "done\n");
    // A long chain of instances drops link by link (no stack overflow).
    let mut session = Session::new();
    let chain = "class Link:\n    def __init__(self, next):\n        self.next = next\nhead = None\nfor i in range(300000):\n    head = Link(head)\nhead = None\nprint('dropped')";
    assert_eq!(run_ok(&mut session, chain), "dropped\n");
}

/// Stacked decorators: `@dataclass` on a class; a pypto decorator on a class is refused.
#[test]
fn pypto_decorators_do_not_apply_to_classes() {
    let mut session = Session::new();
    let code = "import pypto\n@pypto.kernel\nclass K:\n    pass";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert!(error.message.contains("@pypto.kernel decorates a function defined with `def`"), "{}", error.message);
    assert_eq!(spanned(code, &result), "pypto.kernel");
}

/// `super()` reaches the class above the method's own (not the receiver's), including a base
/// dataclass's generated `__init__`; `__str__`/`__repr__` defined by the class are what print,
/// `str`, `repr` and f-strings show.
#[test]
fn super_and_user_defined_text() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
from dataclasses import dataclass

class Layer:
    def __init__(self, width):
        self.width = width

    def cost(self):
        return self.width * 2

    def __repr__(self):
        return f"Layer({self.width})"

class Gated(Layer):
    def __init__(self, width, gates):
        super().__init__(width)
        self.gates = gates

    def cost(self):
        return super().cost() + self.gates

class Deep(Gated):
    def __init__(self):
        super().__init__(8, 3)

    def __str__(self):
        return "deep"

@dataclass
class Shape:
    m: int
    n: int = 1

class Square(Shape):
    def __init__(self, side):
        super().__init__(side, n=side)

d = Deep()
print(d.cost(), Gated(4, 1).cost(), d, repr(d), f"{d}|{d!r}", str(Gated(5, 0)), Square(6))
"#,
    );
    // Deep: 8·2 + 3 = 19 (Gated.cost, then Layer.cost through super); Gated(4, 1): 4·2 + 1 = 9.
    assert_eq!(printed, "19 9 deep Layer(8) deep|Layer(8) Layer(5) Square(m=6, n=6)\n");
    let code = "super()";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "super() is only available inside a method of a class");
    let code = "class Bad:\n    def __repr__(self):\n        return 3\nrepr(Bad())";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "__repr__ returned a 'int', not a str");
}

/// `help` and `dir` on a dataclass and its instances list the fields and methods.
#[test]
fn help_and_dir_show_fields_and_methods() {
    let mut session = Session::new();
    run_ok(
        &mut session,
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass Tile:\n    rows: int\n    cols: int = 64\n    def area(self):\n        return self.rows * self.cols\nt = Tile(2)",
    );
    assert_eq!(
        run_ok(&mut session, "help(Tile)"),
        "class Tile (frozen dataclass)\n    rows\n    cols = 64\nmethods: area\n"
    );
    assert_eq!(run_ok(&mut session, "print(dir(t), t.area())"), "['area', 'cols', 'rows'] 128\n");
}

/// `super().__init__()` where no class above defines `__init__` (a root class, a base with none,
/// `abc.ABC`) is Python's `object.__init__`: it does nothing and takes no arguments.
#[test]
fn super_init_without_a_base_init_is_objects() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import abc

class Root:
    def __init__(self):
        super().__init__()
        self.ready = True

class Plain:
    pass

class Child(Plain):
    def __init__(self, n):
        super().__init__()
        self.n = n

class Builder(abc.ABC):
    def __init__(self, params):
        super().__init__()
        self.params = params

print(Root().ready, Child(3).n, Builder((1, 2)).params)
"#,
    );
    assert_eq!(printed, "True 3 (1, 2)\n");
    let code = "class Extra:\n    def __init__(self):\n        super().__init__(5)\nExtra()";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("object.__init__"), "{:?}", result.error());
}
