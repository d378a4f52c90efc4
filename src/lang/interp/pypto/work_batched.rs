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
    let batch = &left_tile.valid_shape[..rank.saturating_sub(2)];
    if rank < 3 || right_tile.shape.len() != rank || right_tile.valid_shape[..rank - 2] != *batch {
        return Err(Unsupported::new(
            format!(
                "`matmul` of {:?} and {:?} (batch dims must be equal)",
                left_tile.valid_shape, right_tile.valid_shape
            ),
            line,
        ));
    }
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
        let (a, b) = (slice(builder, left, &index), slice(builder, right, &index));
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
    if valid_columns != columns {
        return Err(Unsupported::new("a batched `matmul` with a ragged or padded last dim", line));
    }
    let output = builder.value(shape, valid, dtype);
    builder.push(WorkStep::Vector { op: VectorOp::Reshape, inputs: vec![WorkOperand::Tile(joined)], output }, line);
    Ok(output)
}
