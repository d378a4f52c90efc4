//! Python's `enum` as model code uses it (`class TileOpFormat(enum.Enum): ND = "ND"` in
//! hicann/pypto's GLM files): members by attribute, value and name, iteration, aliases, `auto()`,
//! `IntEnum`'s int equality, `@unique`, and the errors Python gives. The expected lines are
//! CPython 3.11's output of the same script.

use tilelab::session::Session;

fn run(code: &str) -> (Vec<String>, Option<String>) {
    let mut session = Session::new();
    let result = session.run_cell(code);
    let lines = result.stdout.lines().map(str::to_string).collect();
    (lines, result.error().map(|error| error.message.clone()))
}

fn printed(code: &str) -> Vec<String> {
    let (lines, error) = run(code);
    assert!(error.is_none(), "{code}\n{error:?}");
    lines
}

#[test]
fn members_have_names_values_and_python_reprs() {
    let lines = printed(
        "import enum\n\
         class TileOpFormat(enum.Enum):\n    ND = \"ND\"\n    NZ = \"NZ\"\n\
         print(TileOpFormat.ND.value, TileOpFormat.NZ.name, TileOpFormat.ND)\n\
         print(repr(TileOpFormat.NZ), list(TileOpFormat), len(TileOpFormat))\n\
         print(TileOpFormat(\"NZ\") is TileOpFormat.NZ, TileOpFormat[\"ND\"], TileOpFormat.ND == \"ND\")\n",
    );
    assert_eq!(
        lines,
        [
            "ND NZ TileOpFormat.ND",
            "<TileOpFormat.NZ: 'NZ'> [<TileOpFormat.ND: 'ND'>, <TileOpFormat.NZ: 'NZ'>] 2",
            "True TileOpFormat.ND False",
        ]
    );
}

#[test]
fn aliases_methods_iteration_and_isinstance() {
    let lines = printed(
        "from enum import Enum\nimport enum\n\
         class Color(Enum):\n    RED = 1\n    GREEN = 2\n    CRIMSON = 1\n\
         \x20   def describe(self):\n        return f\"{self.name}={self.value}\"\n\
         \x20   @classmethod\n    def default(cls):\n        return cls.GREEN\n\
         print(Color(1) is Color.RED, Color.CRIMSON is Color.RED, Color[\"GREEN\"], Color.RED.describe(), Color.default())\n\
         print(isinstance(Color.RED, Color), isinstance(Color.RED, enum.Enum), isinstance(1, Enum), Color.RED in Color, Color.RED == Color.GREEN)\n\
         print(list(Color.__members__), {Color.RED: \"r\"}[Color.RED], type(Color.RED).__name__, Color.RED != Color.GREEN)\n\
         print(\" \".join(c.name for c in Color))\n",
    );
    assert_eq!(
        lines,
        [
            "True True Color.GREEN RED=1 Color.GREEN",
            "True True False True False",
            "['RED', 'GREEN', 'CRIMSON'] r Color True",
            "RED GREEN",
        ]
    );
}

#[test]
fn int_enum_and_auto_number_after_the_last_int() {
    let lines = printed(
        "from enum import IntEnum, StrEnum, auto\n\
         class Level(IntEnum):\n    LOW = auto()\n    MID = auto()\n    HIGH = 10\n    TOP = auto()\n\
         class Mode(StrEnum):\n    FAST = auto()\n\
         print(Level.LOW.value, Level.MID.value, Level.TOP.value, Level.MID == 2, Level(10), str(Level.HIGH), f\"{Level.TOP}\")\n\
         print(Mode.FAST.value, Mode.FAST == \"fast\", repr(Mode.FAST))\n",
    );
    assert_eq!(lines, ["1 2 11 True 10 10 11", "fast True <Mode.FAST: 'fast'>"]);
}

#[test]
fn the_errors_are_pythons() {
    let header = "from enum import Enum, IntEnum, unique\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n";
    let (_, error) = run(&format!("{header}Color(5)\n"));
    assert_eq!(error.as_deref(), Some("5 is not a valid Color"));
    let (_, error) = run(&format!("{header}Color[\"BLUE\"]\n"));
    assert!(error.as_deref().is_some_and(|message| message.contains("'BLUE'")), "{error:?}");
    let (_, error) = run(&format!("{header}@unique\nclass Dup(Enum):\n    A = 1\n    B = 1\n"));
    assert_eq!(error.as_deref(), Some("duplicate values found in <enum 'Dup'>: B -> A"));
    let (_, error) = run(&format!("{header}class More(Color):\n    BLUE = 3\n"));
    assert_eq!(error.as_deref(), Some("<enum 'More'> cannot extend <enum 'Color'>"));
    let (_, error) = run("from enum import IntEnum\nclass Size(IntEnum):\n    BIG = \"big\"\n");
    assert_eq!(error.as_deref(), Some("Size.BIG: the members of this enumeration are int values, got str"));
    // A base enumeration without members can be extended, and its methods are inherited.
    let lines = printed(
        "from enum import Enum\nclass Base(Enum):\n    def hello(self):\n        return \"hi \" + self.name\n\
         class Child(Base):\n    X = 1\nprint(Child.X.hello())\n",
    );
    assert_eq!(lines, ["hi X"]);
}
