//! The recorder's selecting and structural ops: comparisons (`lt le gt ge eq ne` and the operators),
//! `where`, `round(x, decimals)`, `expand_clone`, `cumsum`, `concat`, `gather`, `transpose` of a
//! computed tile, and `clip` with tensor bounds, captured at their op sites and turned here into
//! the unit's steps (`WorkStep::Vector`, or a maximum and a minimum for tensor bounds).

use super::capture::{Arg, CapturedOp, TensorRef};
use super::work_compute::Resolver;
use super::work_ops::{UnitBuilder, Unsupported};
use super::work_shapes::{broadcast, broadcast_valid, same_broadcast};
use crate::messages::CompilerReason;
use crate::tensor::{leads_row_major, BinaryOp, DType};
use crate::tile::{ValueId, VectorOp, WorkOperand, WorkStep};

/// `reshape` or `transpose` of a computed tile as a vector step (of a tensor in GM they are views).
pub(crate) fn layout_kind(kind: &CapturedOp) -> Option<CapturedOp> {
    match kind {
        CapturedOp::Reshape { x } => {
            Some(CapturedOp::Vector { op: VectorOp::Reshape, args: vec![Arg::Tensor(x.clone())] })
        }
        CapturedOp::Transpose { x, order } => {
            let swapped: Vec<usize> = (0..order.len()).filter(|&dim| order[dim] != dim).collect();
            let dims = match swapped[..] {
                [first, second] => [first, second],
                _ => [0, 0],
            };
            Some(CapturedOp::Vector { op: VectorOp::Transpose { dims }, args: vec![Arg::Tensor(x.clone())] })
        }
        _ => None,
    }
}

/// The last dim padded to whole UB granules (`granule` bytes, the chip's) of `dtype`: a computed
/// tile whose last dim is not taken from an operand (a broadcast copy, a join, a transpose) is
/// padded as loads are.
fn padded(mut shape: Vec<usize>, dtype: DType, granule: usize) -> Vec<usize> {
    let per_granule = (granule / dtype.size_in_bytes()).max(1);
    if let Some(last) = shape.last_mut().filter(|last| **last > 1) {
        *last = last.div_ceil(per_granule) * per_granule;
    }
    shape
}

/// Tile `value` (of tile form `form`) laid out in `reference`, which is `form` without some of its
/// size-1 dims (a keepdim=False reduction read by a structural op): a vector copy; `None` when
/// `reference` is not `form` without size-1 dims.
fn without_unit_dims(
    builder: &mut UnitBuilder,
    value: ValueId,
    form: &[usize],
    reference: &[usize],
    (line, granule): (Option<u32>, usize),
) -> Option<ValueId> {
    let mut kept = Vec::with_capacity(reference.len());
    let mut wanted = reference.iter().peekable();
    for (dim, &extent) in form.iter().enumerate() {
        match wanted.peek() {
            Some(&&next) if next == extent => {
                kept.push(dim);
                wanted.next();
            }
            _ if extent == 1 => {}
            _ => return None,
        }
    }
    if wanted.next().is_some() {
        return None;
    }
    let tile = builder.tile(value).clone();
    let valid: Vec<usize> = kept.iter().map(|&dim| tile.valid_shape[dim]).collect();
    let shape = padded(kept.iter().map(|&dim| tile.shape[dim]).collect(), tile.dtype, granule);
    let output = builder.value(shape, valid, tile.dtype);
    builder.push(WorkStep::Vector { op: VectorOp::Reshape, inputs: vec![WorkOperand::Tile(value)], output }, line);
    Some(output)
}

/// Emits the steps of an op of this file whose reference result is `result`.
pub(crate) fn compute_vector(
    builder: &mut UnitBuilder,
    kind: &CapturedOp,
    result: &TensorRef,
    (line, granule): (Option<u32>, usize),
    resolve: &mut Resolver<'_>,
) -> Result<ValueId, Unsupported> {
    let dtype = result.dtype();
    let mut index = 0;
    let mut resolve_arg = |builder: &mut UnitBuilder, arg: &Arg| -> Result<WorkOperand, Unsupported> {
        match arg {
            Arg::Number(number) => Ok(WorkOperand::Scalar(*number)),
            Arg::Tensor(tensor) => {
                let (value, form) = resolve(builder, index, tensor)?;
                index += 1;
                if same_broadcast(&form, tensor.shape()) && form.len() == tensor.shape().len() {
                    return Ok(WorkOperand::Tile(value));
                }
                // A reduction taken with keepdim=False keeps its reduced dims in tile form: the
                // op reads it in the reference's shape, the size-1 dims dropped by a vector copy.
                without_unit_dims(builder, value, &form, tensor.shape(), (line, granule))
                    .map(WorkOperand::Tile)
                    .ok_or_else(|| Unsupported::new(CompilerReason::KeepdimOperand, line))
            }
        }
    };
    if let CapturedOp::ClipBounds { x, low, high } = kind {
        // clip(x, low, high) = minimum(maximum(x, low), high): a NaN bound propagates and low > high
        // gives high, as the reference documents.
        let mut value = resolve_arg(builder, &Arg::Tensor(x.clone()))?;
        for (bound, op) in [(low, BinaryOp::Maximum), (high, BinaryOp::Minimum)] {
            if let Some(bound) = bound {
                let bound = resolve_arg(builder, bound)?;
                value = WorkOperand::Tile(builder.binary(op, value, bound, dtype, line)?);
            }
        }
        return match value {
            WorkOperand::Tile(value) => Ok(value),
            WorkOperand::Scalar(_) => unreachable!("x is a tensor"),
        };
    }
    let CapturedOp::Vector { op, args } = kind else {
        return Err(Unsupported::new(CompilerReason::InsideComputation, line));
    };
    let inputs = args.iter().map(|arg| resolve_arg(builder, arg)).collect::<Result<Vec<_>, _>>()?;
    let tiles: Vec<crate::tile::TileValue> = inputs
        .iter()
        .filter_map(
            |input| if let WorkOperand::Tile(value) = input { Some(builder.tile(*value).clone()) } else { None },
        )
        .collect();
    let Some(first) = tiles.first().cloned() else {
        return Err(Unsupported::new(CompilerReason::NumbersOnly { op: op.name().into() }, line));
    };
    let (shape, valid) = match op {
        VectorOp::Compare(_) | VectorOp::Integer(_) | VectorOp::Select => {
            // Operands broadcast by their valid last dims (a mask's last dim is padded to whole
            // granules of DT_BOOL, its operands' to granules of theirs); the result is padded in its dtype.
            let unpadded = |tile: &crate::tile::TileValue| {
                let mut shape = tile.shape.clone();
                if let (Some(last), Some(valid)) = (shape.last_mut(), tile.valid_shape.last()) {
                    *last = *valid;
                }
                shape
            };
            let (mut shape, mut valid) = (unpadded(&first), first.valid_shape.clone());
            for tile in &tiles[1..] {
                let other = unpadded(tile);
                let joined = broadcast(&shape, &other).ok_or_else(|| {
                    Unsupported::new(
                        CompilerReason::TilesBroadcast {
                            op: op.name().into(),
                            lhs: shape.to_vec(),
                            rhs: other.to_vec(),
                        },
                        line,
                    )
                })?;
                valid = broadcast_valid(&joined, &shape, &valid, &other, &tile.valid_shape).into();
                shape = joined.into();
            }
            // A select's result is as wide as its widest operand of the same valid width (a mask
            // padded to DT_BOOL granules), so it meets the kernel's loads, padded to those, in
            // element-wise ops.
            let mut shape = padded(shape.to_vec(), dtype, granule);
            let widest = tiles
                .iter()
                .filter(|tile| tile.valid_shape.last() == valid.last() && tile.shape.len() == shape.len())
                .filter_map(|tile| tile.shape.last().copied())
                .max();
            if let (Some(last), Some(widest)) = (shape.last_mut(), widest) {
                *last = (*last).max(widest);
            }
            (shape.into(), valid)
        }
        VectorOp::Round { .. } | VectorOp::CumSum { .. } => (first.shape.clone(), first.valid_shape.clone()),
        VectorOp::TopK { k, dim, .. } => {
            let mut valid = first.valid_shape.clone();
            valid[*dim] = *k;
            (padded(valid.to_vec(), DType::I32, granule).into(), valid)
        }
        VectorOp::Expand => {
            let target = result.shape().to_vec();
            if target.len() != first.shape.len()
                || first.shape.iter().zip(&target).any(|(&tile, &to)| tile != 1 && tile < to)
            {
                return Err(Unsupported::new(
                    CompilerReason::ExpandShape { from: first.shape.to_vec(), to: target.clone() },
                    line,
                ));
            }
            (padded(target.clone(), dtype, granule).into(), target.into())
        }
        VectorOp::Concat { dim } => {
            let mut valid = first.valid_shape.clone();
            valid[*dim] = tiles.iter().map(|tile| tile.valid_shape[*dim]).sum();
            let mut shape = valid.clone();
            let last = shape.len() - 1;
            if *dim != last {
                shape[last] = first.shape[last];
            }
            (padded(shape.to_vec(), dtype, granule).into(), valid)
        }
        VectorOp::Transpose { dims } => {
            let mut valid = first.valid_shape.clone();
            valid.swap(dims[0], dims[1]);
            (padded(valid.to_vec(), dtype, granule).into(), valid)
        }
        VectorOp::Slice { .. } => return Err(Unsupported::new(CompilerReason::BatchSlice, line)),
        // (A tile of one number has no tile operand: it is made by the recorder, never captured.)
        VectorOp::FillPad { .. } | VectorOp::Duplicate { .. } => {
            let target = result.shape().to_vec();
            (padded(target.clone(), dtype, granule).into(), target.into())
        }
        VectorOp::Reshape => {
            // The tile's valid elements laid out in the result's valid shape: the reference's
            // reshape of the whole tensor agrees when both valid regions lead in row-major order.
            let target = result.shape().to_vec();
            let target_valid = result.valid_shape().map_or_else(|| target.clone(), <[usize]>::to_vec);
            let source_shape = match args.first() {
                Some(Arg::Tensor(tensor)) => Some(tensor.shape().to_vec()),
                _ => None,
            };
            let agrees = source_shape.is_some_and(|source| leads_row_major(&first.valid_shape, &source))
                && leads_row_major(&target_valid, &target)
                && first.valid_shape.iter().product::<usize>() == target_valid.iter().product::<usize>();
            if !agrees {
                return Err(Unsupported::new(
                    CompilerReason::RaggedReshape { from: first.shape.to_vec(), to: target.clone() },
                    line,
                ));
            }
            (padded(target, dtype, granule).into(), target_valid.into())
        }
        VectorOp::Scatter { .. } => {
            if tiles.get(1).is_none() {
                return Err(Unsupported::new(CompilerReason::NumberIndex { op: "scatter".into() }, line));
            }
            (first.shape.clone(), first.valid_shape.clone())
        }
        VectorOp::Gather { .. } => {
            let index = tiles
                .get(1)
                .ok_or_else(|| Unsupported::new(CompilerReason::NumberIndex { op: "gather".into() }, line))?;
            (index.shape.clone(), index.valid_shape.clone())
        }
    };
    let output = builder.value(shape, valid, dtype);
    builder.push(WorkStep::Vector { op: op.clone(), inputs, output }, line);
    Ok(output)
}
