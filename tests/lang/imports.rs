//! Imports and annotations as real pypto files write them: `from pypto import …`, `from typing
//! import …`, `from dataclasses import …`, the modules a notebook cannot have (a located
//! diagnostic that says what to use instead), and annotations that are never evaluated.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// What real pypto files import: accepted names bind, the rest is a diagnostic at the module
/// that says what to use instead.
#[test]
fn imports_of_real_pypto_files() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
from __future__ import annotations
import torch_npu
from typing import List, Tuple, Optional, Any, Union, Dict, Callable
import typing
import dataclasses
from math import sqrt, pi
import pypto.frontend
from pypto.frontend import jit
from pypto import DT_FP16 as half, view

def f(shape: Tuple[int, int], scale: Optional[float] = None) -> List[int]:
    return [shape[0], shape[1]]

Shape = Tuple[int, int]
print(f((2, 3)), sqrt(16.0), half, jit is pypto.frontend.jit, view is pypto.view)
if __name__ == "__main__":
    print("main")
"#,
    );
    assert_eq!(printed, "[2, 3] 4.0 pypto.DT_FP16 True True\nmain\n");
    for (code, module, hint) in [
        // numpy's part for golden checks imports (tests/lang/numpy_goldens.rs); the rest says so.
        ("import numpy.linalg as la", "numpy.linalg", "torch module"),
        ("from numpy.fft import fft", "numpy.fft", "pypto.as_tensor"),
        ("import sqlite3", "sqlite3", "tile scripts can import pypto"),
        ("import subprocess", "subprocess", "tile scripts can import pypto"),
    ] {
        let result = run_err(&mut session, code);
        let error = result.error().unwrap();
        assert_eq!(error.message, format!("module '{module}' is not available in tile scripts"));
        assert!(error.help.as_deref().unwrap_or("").contains(hint), "{code}: {:?}", error.help);
        assert_eq!(spanned(code, &result), module);
    }
    let code = "from pypto import viwe";
    let result = run_err(&mut session, code);
    let error = result.error().unwrap();
    assert_eq!(error.message, "cannot import name 'viwe' from 'pypto'");
    assert_eq!(error.help.as_deref(), Some("did you mean `pypto.view`?"));
    assert_eq!(spanned(code, &result), "viwe");
}

/// Annotations are not evaluated: names that do not exist here (`pypto.DataType`, `Literal[…]`
/// without an import) may appear in them.
#[test]
fn annotations_are_accepted_and_ignored_everywhere() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import pypto
from dataclasses import dataclass

@dataclass
class FFNConfig:
    hidden: int
    activation: Literal["gelu", "relu"] = "gelu"
    dtype: pypto.DataType = pypto.DT_FP16

def g(x: pypto.Tensor[[16, 16], pypto.DT_FP16], *rest: Unknown, **kw: Whatever) -> Nope:
    y: int = 3
    z: NotDefined
    return y

count: int
cfg = FFNConfig(1024)
print(g(1), cfg.activation, cfg)
"#,
    );
    assert_eq!(printed, "3 gelu FFNConfig(hidden=1024, activation='gelu', dtype=pypto.DT_FP16)\n");
}

/// `float | None` is an annotation pypto-era code writes in NamedTuples and signatures.
#[test]
fn union_annotations_in_fields_and_signatures() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "from typing import NamedTuple\nclass Result(NamedTuple):\n    error: float | None\n    passed: bool = True\ndef check(r: Result | None = None) -> bool | None:\n    return r.passed\nprint(check(Result(None)), Result(0.5))",
    );
    assert_eq!(printed, "True Result(error=0.5, passed=True)\n");
}
