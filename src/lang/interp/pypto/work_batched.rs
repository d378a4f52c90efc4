//! A matmul of operands with more than two dims (`[B, M, K] @ [B, K, N]`, attention's
//! `[batch, heads, seq, dim]`): one cube matmul per batch index. Each batch's operand matrices are
//! sliced out of the loaded tiles by the vector unit (and reach the cube through a GM workspace,
//! as any computed operand does); the per-batch results are joined along the rows and laid out in
//! the batched shape.

use super::work_ops::{UnitBuilder, Unsupported};
use crate::tensor::DType;
use crate::tile::{ValueId, VectorOp, WorkOperand, WorkStep};

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

/// `op(a) · op(b)` batch by batch; `left` and `right` are the operand tiles (same batch dims).
pub(crate) fn batched_matmul(
    builder: &mut UnitBuilder,
    (left, a_transposed): (ValueId, bool),
    (right, b_transposed): (ValueId, bool),
    dtype: DType,
    line: Option<u32>,
) -> Result<ValueId, Unsupported> {
    let (left_tile, right_tile) = (builder.tile(left).clone(), builder.tile(right).clone());
    let rank = left_tile.shape.len();
    // The batch dims broadcast as pypto's do: a dim of 1 on one side pairs with every index of
    // the other's (`[1, M, K] @ [B, K, N]`).
    let broadcast = (rank >= 3 && right_tile.shape.len() == rank)
        .then(|| {
            let pairs = left_tile.valid_shape[..rank - 2].iter().zip(&right_tile.valid_shape[..rank - 2]);
            pairs
                .map(|(&l, &r)| match (l, r) {
                    _ if l == r => Some(l),
                    (1, _) => Some(r),
                    (_, 1) => Some(l),
                    _ => None,
                })
                .collect::<Option<Vec<usize>>>()
        })
        .flatten();
    let Some(batch) = broadcast else {
        return Err(Unsupported::new(
            format!(
                "`matmul` of {:?} and {:?} (batch dims must be equal or 1)",
                left_tile.valid_shape, right_tile.valid_shape
            ),
            line,
        ));
    };
    let batch = &batch[..];
    // The index into an operand's batch dims: 0 where the operand has a dim of 1.
    let operand_index = |tile: &crate::tile::TileValue, index: &[usize]| -> Vec<usize> {
        index.iter().zip(&tile.valid_shape).map(|(&at, &size)| if size == 1 { 0 } else { at }).collect()
    };
    let matrix =
        |tile: &crate::tile::TileValue| (tile.shape[rank - 2..].to_vec(), tile.valid_shape[rank - 2..].to_vec());
    let slice = |builder: &mut UnitBuilder, source: ValueId, index: &[usize]| {
        let (shape, valid) = matrix(builder.tile(source));
        let dtype = builder.tile(source).dtype;
        let output = builder.value(shape, valid, dtype);
        let op = VectorOp::Slice { offsets: index.to_vec() };
        builder.push(WorkStep::Vector { op, inputs: vec![WorkOperand::Tile(source)], output }, line);
        output
    };
    // C[m, n] = op(A)[m, k] · op(B)[k, n]: rows come from A's outer dim, columns from B's.
    let pick = |(shape, valid): &(Vec<usize>, Vec<usize>), transposed: bool, outer: bool| {
        let dim = usize::from(outer == transposed);
        (shape[dim], valid[dim])
    };
    let (rows, valid_rows) = pick(&matrix(&left_tile), a_transposed, true);
    let (columns, valid_columns) = pick(&matrix(&right_tile), !b_transposed, true);
    if valid_rows != rows {
        return Err(Unsupported::new("a batched `matmul` with ragged rows", line));
    }
    let mut products = Vec::new();
    for index in batch_indices(batch) {
        let (left_index, right_index) = (operand_index(&left_tile, &index), operand_index(&right_tile, &index));
        let (a, b) = (slice(builder, left, &left_index), slice(builder, right, &right_index));
        let output = builder.value(vec![rows, columns], vec![valid_rows, valid_columns], dtype);
        builder.push(WorkStep::Matmul { a, b, a_transposed, b_transposed, output }, line);
        products.push(WorkOperand::Tile(output));
    }
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
