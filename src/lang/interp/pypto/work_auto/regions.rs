//! The regions of a functional kernel's work: the tile each unit computes of an output, the
//! tiles of a shape, and the region of an operand that a region of a result needs.

use super::super::capture::{CapturedOp, TensorRef};
use super::super::work_shapes::tile_dims;
use crate::tile::WorkSettings;

/// A box of a value in tile form: where it starts, how much is real, how big the tile is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Region {
    pub offsets: Vec<usize>,
    pub valid: Vec<usize>,
    pub nominal: Vec<usize>,
    /// A cube operand: its buffers follow the cube's fractal rules, not the vector's alignment.
    pub cube: bool,
}

/// The tile each unit computes of an output of tile form `shape`: the vec tile (right-aligned,
/// clipped to the output), whole along reduced dims; for a matmul kernel without a vec tile, the
/// cube's L1 tile `[mL1, nL1]`.
pub(super) fn output_tile(
    shape: &[usize],
    vec_tile: Option<&[usize]>,
    settings: &WorkSettings,
    has_matmul: bool,
    reduced: &[(usize, Vec<usize>)],
) -> Vec<usize> {
    let rank = shape.len();
    let requested: Vec<usize> = match (vec_tile, &settings.cube_tiles) {
        (Some(tile), _) => tile.to_vec(),
        (None, Some(cube)) if has_matmul => vec![cube.m[1], cube.n[1]],
        (None, None) if has_matmul => vec![64, 64],
        (None, _) => vec![8, 64],
    };
    let mut tile: Vec<usize> = (0..rank)
        .map(|dim| {
            let from_right = rank - dim;
            if from_right <= requested.len() {
                requested[requested.len() - from_right].max(1)
            } else {
                1
            }
        })
        .collect();
    for (form_rank, dims) in reduced {
        for &dim in dims {
            // Right-align the reduced value's dims with the output's.
            if let Some(output_dim) = (dim + rank).checked_sub(*form_rank).filter(|&output_dim| output_dim < rank) {
                tile[output_dim] = shape[output_dim];
            }
        }
    }
    tile.iter().zip(shape).map(|(&tile, &size)| tile.min(size).max(1)).collect()
}

/// The tiles of `shape` by `tile`, row-major; ragged last tiles keep the nominal size.
pub(super) fn tiles(shape: &[usize], tile: &[usize]) -> Vec<Region> {
    let counts: Vec<usize> = shape.iter().zip(tile).map(|(&size, &step)| size.div_ceil(step).max(1)).collect();
    let total: usize = counts.iter().product();
    (0..total)
        .map(|mut flat| {
            let mut offsets = vec![0; shape.len()];
            for dim in (0..shape.len()).rev() {
                offsets[dim] = (flat % counts[dim]) * tile[dim];
                flat /= counts[dim];
            }
            let valid =
                offsets.iter().zip(shape).zip(tile).map(|((&offset, &size), &step)| step.min(size - offset)).collect();
            Region { offsets, valid, nominal: tile.to_vec(), cube: false }
        })
        .collect()
}

pub(super) fn whole(region: &Region, dim: usize, size: usize) -> Region {
    let mut widened = region.clone();
    widened.offsets[dim] = 0;
    widened.valid[dim] = size;
    widened.nominal[dim] = size;
    widened
}

/// The region of operand `position` (of tile form `form`) that `region` of the result needs.
pub(super) fn operand_region(
    kind: &CapturedOp,
    position: usize,
    region: &Region,
    form: &[usize],
    result_form: &[usize],
    operand: &TensorRef,
) -> Region {
    match kind {
        CapturedOp::Reduce { dims, .. } => tile_dims(dims, operand.shape().len(), form.len())
            .into_iter()
            .fold(region.clone(), |region, dim| whole(&region, dim, form[dim])),
        CapturedOp::Softmax { dim, .. } => tile_dims(&Some(vec![*dim]), operand.shape().len(), form.len())
            .into_iter()
            .fold(region.clone(), |region, dim| whole(&region, dim, form[dim])),
        CapturedOp::Matmul { a_transposed, b_transposed, .. } => {
            // C[m, n] needs A's rows m (all of K) and B's columns n (all of K).
            let (transposed, outer) = if position == 0 { (*a_transposed, 0) } else { (*b_transposed, 1) };
            let inner_dim = if position == 0 { usize::from(!transposed) } else { usize::from(transposed) };
            let outer_dim = 1 - inner_dim;
            let mut needed = Region { offsets: vec![0, 0], valid: form.to_vec(), nominal: form.to_vec(), cube: true };
            needed.offsets[outer_dim] = region.offsets[outer];
            needed.valid[outer_dim] = region.valid[outer];
            needed.nominal[outer_dim] = region.nominal[outer];
            needed
        }
        _ => {
            // Element-wise with numpy broadcasting: a size-1 dim of the operand reads its one row.
            let rank = result_form.len();
            let mut needed = Region { offsets: Vec::new(), valid: Vec::new(), nominal: Vec::new(), cube: region.cube };
            for (dim, &size) in form.iter().enumerate() {
                let result_dim = dim + rank - form.len();
                if size == 1 && result_form[result_dim] != 1 {
                    needed.offsets.push(0);
                    needed.valid.push(1);
                    needed.nominal.push(1);
                } else {
                    needed.offsets.push(region.offsets[result_dim]);
                    needed.valid.push(region.valid[result_dim]);
                    needed.nominal.push(region.nominal[result_dim]);
                }
            }
            needed
        }
    }
}
