//! The parts of Python's library pypto's tests and models import: `logging` (records at or above
//! the level become `logging` warnings), `copy`, `json`, `abc`, `collections.abc`, `pytest`
//! (marks and fixtures leave functions callable, `raises` checks its block), and pypto's
//! `SymInt` for annotations.

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

/// `copy.copy` shares the items, `copy.deepcopy` does not; a copied tensor has its own data; an
/// instance copies its attributes. `json` round-trips plain values with Python's spacing.
#[test]
fn copy_and_json_of_plain_values() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import copy, json
import torch
a = [[1, 2], {"k": [3]}]
shallow = copy.copy(a)
deep = copy.deepcopy(a)
a[0].append(9)
a[1]["k"].append(4)
print(shallow[0], shallow[1], deep[0], deep[1], shallow is a)
t = torch.ones(2)
u = copy.copy(t)
u[0] = 5.0
print(t.tolist(), u.tolist())
class Box:
    def __init__(self):
        self.items = [1]
box = Box()
twin = copy.deepcopy(box)
twin.items.append(2)
print(box.items, twin.items)
print(json.dumps({"x": [1, 2.5, None, True], "s": 'q"'}))
print(json.loads('{"a": [1, 2.0, null, false], "b": "text"}'))
"#,
    );
    assert_eq!(
        printed,
        "[1, 2, 9] {'k': [3, 4]} [1, 2] {'k': [3]} False\n[1.0, 1.0] [5.0, 1.0]\n[1] [1, 2]\n\
         {\"x\": [1, 2.5, null, true], \"s\": \"q\\\"\"}\n{'a': [1, 2.0, None, False], 'b': 'text'}\n"
    );
    let result = run_err(&mut session, "json.loads('{bad')");
    assert!(result.error().is_some_and(|error| error.message.starts_with("JSONDecodeError")));
}

/// Python's default level is WARNING: `info` says nothing, `warning` is a warning of the cell in
/// Python's default format (with `%s` arguments filled in); `basicConfig(level=…)` lowers it;
/// `getLogger(name)` logs the same way.
#[test]
fn logging_reports_records_at_or_above_the_level() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import logging\nlogging.info('hidden')\nlogging.warning('shown %s and %d', 'a', 5)\n\
         log = logging.getLogger(__name__)\nlogging.basicConfig(level=logging.DEBUG)\nlog.debug('now shown')\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    let messages: Vec<&str> = result.diagnostics.iter().map(|diagnostic| diagnostic.message.as_str()).collect();
    assert_eq!(messages, ["WARNING:root:shown a and 5", "DEBUG:root:now shown"]);
    assert!(result.diagnostics.iter().all(|diagnostic| diagnostic.code == "logging"));
}

/// pytest's decorators leave the test callable as written (the driver calls it); `raises`
/// swallows the expected error and fails when there is none or the message does not match.
#[test]
fn pytest_marks_fixtures_and_raises() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import pytest
import abc
from collections.abc import Iterable
from pypto import SymInt
from pypto.symbolic_scalar import SymInt as Symbolic
pytestmark = pytest.mark.soc("950")

@pytest.mark.soc("950")
@pytest.mark.skip(reason="only local test")
def test_x():
    return 7

@pytest.mark.parametrize("n", [1, 2])
def test_y(n):
    return n * 2

@pytest.fixture
def fixture_value():
    return 1

class Base(abc.ABC):
    @abc.abstractmethod
    def run(self) -> SymInt:
        pass

class Impl(Base):
    def run(self):
        return 4

with pytest.raises(ValueError, match="bad"):
    raise ValueError("a bad thing")
with pytest.raises((TypeError, KeyError)):
    {}["missing"]
for block in ["pass", "raise ValueError('other text')"]:
    try:
        if block == "pass":
            with pytest.raises(TypeError):
                pass
        else:
            with pytest.raises(ValueError, match="bad"):
                raise ValueError("other text")
    except AssertionError as error:
        print("failed:", str(error).split("\n")[0])
print(test_x(), test_y(3), fixture_value(), Impl().run(), isinstance(3, Symbolic), isinstance(Impl(), Base))
import inspect
def golden(params, a, *rest, out=None, **options):
    pass
print(list(inspect.signature(golden).parameters), len(inspect.signature(test_y).parameters))
"#,
    );
    assert_eq!(printed, "failed: DID NOT RAISE TypeError\nfailed: Regex pattern did not match.\n7 6 1 4 True True\n['params', 'a', 'rest', 'out', 'options'] 1\n");
    let result = run_err(&mut session, "with pytest.raises(KeyError):\n    raise ValueError('not this one')");
    assert_eq!(result.error().map(|error| error.message.as_str()), Some("ValueError: not this one"));
    let result = run_err(&mut session, "pytest.skip('later')");
    assert_eq!(result.error().map(|error| error.message.as_str()), Some("Skipped: later"));
}
