//! A matmul of operands with more than two dims (`[B, M, K] @ [B, K, N]`, attention's
//! `[batch, heads, seq, dim]`): one cube matmul per batch index. An operand loaded from GM (or a
//! transpose of its last two dims) has each batch's matrix loaded straight from GM, through a 2-D
//! view of its tensor, as pypto's compiler feeds the cube; a computed operand has its matrices
//! sliced out of its tile by the vector unit (they reach the cube through a GM workspace, as any
//! computed operand does). The per-batch results are joined along the rows and laid out in the
//! batched shape.

use super::work_ops::{UnitBuilder, Unsupported};
use crate::messages::CompilerReason;
use crate::tensor::DType;
use crate::tile::{GmRegion, TileValue, ValueId, VectorOp, WorkOperand, WorkStep};

/// Every index of the batch dims `dims`, in row-major order.
fn batch_indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new()];
    for &count in dims {
        all = all
            .into_iter()
            .flat_map(|prefix| (0..count).map(move |index| [prefix.clone(), vec![index]].concat()))
            .collect();
    }
    all
}

/// Where a batched operand's matrices come from.
#[derive(Clone, Debug)]
pub(crate) enum BatchedOperand {
    /// A tile of the unit: each matrix is sliced out of it.
    Tile(ValueId),
    /// A region of a GM tensor (its batch dims and matrix): each matrix is loaded on its own.
    /// `transposed` when the operand is the region with its last two dims swapped.
    Gm { region: GmRegion, dtype: DType, transposed: bool },
}

/// Loads one batch's matrix of a GM operand: `(builder, region of the matrix)` → its tile.
pub(crate) type MatrixLoader<'a> = dyn FnMut(&mut UnitBuilder, &GmRegion, DType) -> Result<ValueId, Unsupported> + 'a;

/// The batch dims and (shape, valid shape) of the matrix of an operand as the matmul sees it.
fn operand_form(builder: &UnitBuilder, operand: &BatchedOperand) -> (Vec<usize>, TileValue) {
    match operand {
        BatchedOperand::Tile(value) => {
            let tile = builder.tile(*value).clone();
            let rank = tile.shape.len();
            (tile.valid_shape[..rank - 2].to_vec(), tile)
        }
        BatchedOperand::Gm { region, dtype, .. } => {
            let rank = region.shape.len();
            let tile = TileValue { shape: region.shape.clone(), valid_shape: region.shape.clone(), dtype: *dtype };
            (region.shape[..rank - 2].to_vec(), tile)
        }
    }
}

/// `op(a) · op(b)` batch by batch; the batch dims of `left` and `right` broadcast as numpy's
/// (equal or 1, the fewer padded with leading 1s: `[M, K] @ [1, 1, K, N]`).
pub(crate) fn batched_matmul(
    builder: &mut UnitBuilder,
    (left, a_transposed): (BatchedOperand, bool),
    (right, b_transposed): (BatchedOperand, bool),
    dtype: DType,
    line: Option<u32>,
    load_matrix: &mut MatrixLoader<'_>,
) -> Result<ValueId, Unsupported> {
    let ((left_batch, left_tile), (right_batch, right_tile)) =
        (operand_form(builder, &left), operand_form(builder, &right));
    // The batch dims broadcast as pypto's do: a dim of 1 on one side pairs with every index of
    // the other's (`[1, M, K] @ [B, K, N]`), and a side with fewer batch dims has leading 1s.
    let rank = left_batch.len().max(right_batch.len());
    let padded = |dims: &[usize]| [vec![1; rank - dims.len()], dims.to_vec()].concat();
    let broadcast = padded(&left_batch)
        .iter()
        .zip(&padded(&right_batch))
        .map(|(&l, &r)| match (l, r) {
            _ if l == r => Some(l),
            (1, _) => Some(r),
            (_, 1) => Some(l),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>();
    let Some(batch) = broadcast else {
        return Err(Unsupported::new(
            CompilerReason::BatchDims { left: left_tile.valid_shape.to_vec(), right: right_tile.valid_shape.to_vec() },
            line,
        ));
    };
    // A GM operand read transposed is the region itself with the other transpose flag.
    let flag = |operand: &BatchedOperand, transposed: bool| match operand {
        BatchedOperand::Gm { transposed: swapped, .. } => transposed != *swapped,
        BatchedOperand::Tile(_) => transposed,
    };
    let (a_transposed, b_transposed) = (flag(&left, a_transposed), flag(&right, b_transposed));
    // An operand's own batch dims are the last ones of the broadcast batch index.
    let (left_dims, right_dims) = (left_batch.len(), right_batch.len());
    let mut matrix = |builder: &mut UnitBuilder, operand: &BatchedOperand, index: &[usize]| match operand {
        // A matrix (no batch dims) is the same operand for every batch index.
        BatchedOperand::Tile(source) if index.is_empty() => Ok(*source),
        BatchedOperand::Tile(source) => {
            let tile = builder.tile(*source).clone();
            let rank = tile.shape.len();
            let at: Vec<usize> =
                index.iter().zip(&tile.valid_shape).map(|(&at, &size)| if size == 1 { 0 } else { at }).collect();
            let output =
                builder.value(tile.shape[rank - 2..].to_vec(), tile.valid_shape[rank - 2..].to_vec(), tile.dtype);
            let op = VectorOp::Slice { offsets: at };
            builder.push(WorkStep::Vector { op, inputs: vec![WorkOperand::Tile(*source)], output }, line);
            Ok(output)
        }
        BatchedOperand::Gm { region, dtype, .. } => {
            let rank = region.shape.len();
            let mut offsets = region.offsets.clone();
            let mut shape = region.shape.clone();
            for (dim, &at) in index.iter().enumerate() {
                offsets[dim] += if region.shape[dim] == 1 { 0 } else { at };
                shape[dim] = 1;
            }
            debug_assert_eq!(shape.len(), rank);
            load_matrix(builder, &GmRegion { tensor: region.tensor, offsets, shape }, *dtype)
        }
    };
    let mut products = Vec::new();
    let mut extents = None;
    for index in batch_indices(&batch) {
        let (left_index, right_index) = (&index[index.len() - left_dims..], &index[index.len() - right_dims..]);
        let (a, b) = (matrix(builder, &left, left_index)?, matrix(builder, &right, right_index)?);
        // C[m, n] = op(A)[m, k] · op(B)[k, n]: rows come from A's outer dim, columns from B's.
        let pick = |tile: &TileValue, transposed: bool, outer: bool| {
            let dim = usize::from(outer == transposed);
            (tile.shape[dim], tile.valid_shape[dim])
        };
        let (rows, valid_rows) = pick(builder.tile(a), a_transposed, true);
        let (columns, valid_columns) = pick(builder.tile(b), !b_transposed, true);
        if valid_rows != rows {
            return Err(Unsupported::new(CompilerReason::BatchRagged, line));
        }
        extents = Some((rows, columns, valid_columns));
        let output = builder.value(vec![rows, columns], vec![valid_rows, valid_columns], dtype);
        builder.push(WorkStep::Matmul { a, b, a_transposed, b_transposed, output }, line);
        products.push(WorkOperand::Tile(output));
    }
    let Some((rows, columns, valid_columns)) = extents else {
        return Err(Unsupported::new(CompilerReason::BatchEmpty, line));
    };
    let count = products.len();
    let joined = builder.value(vec![rows * count, columns], vec![rows * count, valid_columns], dtype);
    builder.push(WorkStep::Vector { op: VectorOp::Concat { dim: 0 }, inputs: products, output: joined }, line);
    let mut shape: Vec<usize> = batch.to_vec();
    shape.extend([rows, columns]);
    let mut valid: Vec<usize> = batch.to_vec();
    valid.extend([rows, valid_columns]);
    // The reshape only splits the joined rows into the batch dims: the last dim, padding and all,
    // is kept, so a padded or ragged last dim reshapes as it is.
    let output = builder.value(shape, valid, dtype);
    builder.push(WorkStep::Vector { op: VectorOp::Reshape, inputs: vec![WorkOperand::Tile(joined)], output }, line);
    Ok(output)
}
