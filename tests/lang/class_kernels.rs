//! Classes around kernels: a jit kernel as a static method taking a NamedTuple of tile sizes,
//! and callable instances as golden functions.

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

/// A kernel grouped in a class as a static method, taking a NamedTuple of tile sizes; an
/// instance with `__call__` used as the golden function. ones([64, 32]) · 3 summed: 3·2048.
#[test]
fn kernels_as_static_methods_and_callable_instances() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import pypto
from typing import NamedTuple

class Tiles(NamedTuple):
    rows: int
    cols: int

class Ops:
    @staticmethod
    @pypto.frontend.jit
    def triple(x, out, tiles):
        rows, cols = tiles
        pypto.set_vec_tile_shapes(rows, cols)
        for i in pypto.loop(x.shape[0] // rows):
            tile = pypto.view(x, [rows, cols], [i * rows, 0])
            pypto.assemble(tile * 3.0, [i * rows, 0], out)

class Golden:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, x):
        return x * self.factor

x = pypto.ones([64, 32])
out = pypto.zeros([64, 32])
Ops.triple(x, out, Tiles(16, 32))
print(out.sum().item(), Golden(3.0)(x).sum().item())
"#,
    );
    assert_eq!(printed, "6144.0 6144.0\n");
    let result = run_err(&mut session, "Tiles(1, 2)(3)");
    assert_eq!(result.error().unwrap().message, "'Tiles' object is not callable");
}
