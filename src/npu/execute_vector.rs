//! Values of a `TileOp::Vector`: each op through the tensor core on the valid parts of its UB
//! tiles, as the reference computes it (a comparison in the operands' dtype, a scalar in the dtype
//! of the tile it meets), stored in the output buffer's dtype.

use crate::error::TensorError;
use crate::tensor::{BinaryOp, SliceSpec, Tensor, UnaryOp};
use crate::tile::{VectorOp, VectorOperand};

fn origin(shape: &[usize]) -> Vec<SliceSpec> {
    shape.iter().map(|&count| SliceSpec::full(count)).collect()
}

/// Runs `op` on `inputs` (read from `buffers`) and writes the `valid_shape` part of `output`.
pub(super) fn run_vector(
    op: &VectorOp,
    inputs: &[VectorOperand],
    output: &Tensor,
    valid_shape: &[usize],
    buffers: &[Tensor],
) -> Result<(), TensorError> {
    let tiles: Vec<Option<Tensor>> = inputs
        .iter()
        .map(|input| match input {
            VectorOperand::Tile { buffer, shape } => buffers[buffer.0 as usize].slice(&origin(shape)).map(Some),
            VectorOperand::Scalar(_) => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    // A number takes the dtype of the first tile operand (of the other branch for `where`), else
    // the output's.
    let dtype_near = |position: usize| {
        let order: Vec<usize> = match op {
            // A branch takes the other branch's dtype; with numbers on both sides, the output's.
            VectorOp::Select => vec![3 - position],
            _ => (0..tiles.len()).collect(),
        };
        order
            .iter()
            .find_map(|&other| tiles.get(other).cloned().flatten().map(|tile| tile.dtype()))
            .unwrap_or(output.dtype())
    };
    let operand = |position: usize| -> Result<Tensor, TensorError> {
        match (&tiles[position], &inputs[position]) {
            (Some(tile), _) => Ok(tile.clone()),
            (None, VectorOperand::Scalar(value)) => Ok(Tensor::scalar(*value, dtype_near(position))),
            (None, VectorOperand::Tile { .. }) => unreachable!("tiles were sliced above"),
        }
    };
    let values = match op {
        VectorOp::Compare(compare) => operand(0)?.compare(*compare, &operand(1)?)?,
        VectorOp::Integer(integer) => {
            let second = if inputs.len() > 1 { Some(operand(1)?) } else { None };
            operand(0)?.integer_op(*integer, second.as_ref())?
        }
        VectorOp::Select => Tensor::select(&operand(0)?, &operand(1)?, &operand(2)?)?,
        VectorOp::Round { decimals } => round(&operand(0)?, *decimals)?,
        VectorOp::Expand => {
            let input = operand(0)?;
            input.binary(BinaryOp::Add, &Tensor::full(valid_shape, 0.0, input.dtype())?)?
        }
        VectorOp::CumSum { dim } => operand(0)?.cumsum(*dim as isize)?,
        VectorOp::Concat { dim } => {
            let parts = (0..inputs.len()).map(operand).collect::<Result<Vec<_>, _>>()?;
            Tensor::concat(&parts, *dim as isize)?
        }
        VectorOp::Transpose { dims } => operand(0)?.transpose(dims[0] as isize, dims[1] as isize)?,
        VectorOp::TopK { k, dim, largest } => operand(0)?.topk_indices(*k, *dim as isize, *largest)?,
        VectorOp::Slice { offsets } => {
            let tile = operand(0)?;
            let specs: Vec<SliceSpec> = offsets
                .iter()
                .map(|&start| SliceSpec { start, step: 1, count: 1 })
                .chain(tile.shape()[offsets.len()..].iter().map(|&count| SliceSpec::full(count)))
                .collect();
            tile.slice(&specs)?.reshape(valid_shape)?
        }
        VectorOp::Reshape => operand(0)?.reshape(valid_shape)?,
        VectorOp::FillPad { value } => {
            let input = operand(0)?;
            let padded = Tensor::full(valid_shape, *value, input.dtype())?;
            padded.assign_slice(&origin(input.shape()), &input)?;
            padded
        }
        VectorOp::Gather { dim } => operand(0)?.gather(*dim as isize, &operand(1)?)?,
        VectorOp::Duplicate { value } => Tensor::full(valid_shape, *value, output.dtype())?,
        VectorOp::Scatter { dim, mode } => operand(0)?.scatter(*dim as isize, &operand(1)?, &operand(2)?, *mode)?,
    };
    output.assign_slice(&origin(valid_shape), &values)
}

/// `round(x, decimals)` as the reference computes it: `round(x·10^d)/10^d` (or `round(x/10^-d)·10^-d`),
/// the scale in the tile's dtype; integers are unchanged for `decimals ≥ 0`.
fn round(tile: &Tensor, decimals: i64) -> Result<Tensor, TensorError> {
    if decimals == 0 || (!tile.dtype().is_float() && decimals > 0) {
        return tile.unary(UnaryOp::Round);
    }
    let scale = Tensor::scalar(10f64.powi(decimals.unsigned_abs().min(400) as i32), tile.dtype());
    if decimals > 0 {
        tile.binary(BinaryOp::Mul, &scale)?.unary(UnaryOp::Round)?.binary(BinaryOp::Div, &scale)
    } else {
        tile.binary(BinaryOp::Div, &scale)?.unary(UnaryOp::Round)?.binary(BinaryOp::Mul, &scale)
    }
}
