//! Work for a kernel written as one op over whole tensors, as a script that calls
//! `pypto.matmul(a, b)` in a kernel without loops is captured: the compiler tiles it by the cube
//! tile shapes and spreads the tiles over the cores. Benchmarks and the page's simulator figure
//! build their kernels with it, through the same compiler as every script.

use crate::tensor::DType;

use super::program::{GmRegion, GmTensor, TensorId};
use super::work::{CubeTiles, LocatedStep, TileValue, TileWork, ValueId, WorkSettings, WorkStep, WorkUnit};

/// `c = a · b` over whole `a: [M, K]` and `b: [K, N]` GM tensors, `c` in `output`, tiled by
/// `tiles` with `cube_buffers` L1 operand copies; every step carries `line`.
pub fn whole_matmul(
    a: GmTensor,
    b: GmTensor,
    output: DType,
    tiles: CubeTiles,
    cube_buffers: usize,
    line: Option<u32>,
) -> TileWork {
    let (rows, columns) = (a.shape.first().copied().unwrap_or(0), b.shape.get(1).copied().unwrap_or(0));
    let whole = |tensor: u32, shape: &[usize]| GmRegion {
        tensor: TensorId(tensor),
        offsets: crate::tile::Dims::filled(0, 2),
        shape: crate::tile::Dims::from(shape),
    };
    let value = |shape: &[usize], dtype| TileValue {
        shape: crate::tile::Dims::from(shape),
        valid_shape: crate::tile::Dims::from(shape),
        dtype,
    };
    let steps = vec![
        WorkStep::Load { region: whole(0, &a.shape), output: ValueId(0) },
        WorkStep::Load { region: whole(1, &b.shape), output: ValueId(1) },
        WorkStep::Matmul { a: ValueId(0), b: ValueId(1), a_transposed: false, b_transposed: false, output: ValueId(2) },
        WorkStep::Store { input: ValueId(2), region: whole(2, &[rows, columns]), accumulate: false },
    ];
    let unit = WorkUnit {
        values: vec![value(&a.shape, a.dtype), value(&b.shape, b.dtype), value(&[rows, columns], output)],
        steps: steps.into_iter().map(|step| LocatedStep { step, line }).collect(),
        vec_tile: None,
    };
    let c = GmTensor { name: "c".into(), shape: vec![rows, columns], dtype: output };
    TileWork {
        name: "matmul".into(),
        tensors: vec![a, b, c],
        views: Vec::new(),
        ordered: Vec::new(),
        units: vec![unit],
        settings: WorkSettings {
            cube_buffers,
            cube_tiles: Some(tiles),
            cube_tile_line: line,
            ..WorkSettings::default()
        },
    }
}
