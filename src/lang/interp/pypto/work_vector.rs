//! The recorder's selecting and structural ops: comparisons (`lt le gt ge eq ne` and the operators),
//! `where`, `round(x, decimals)`, `expand_clone`, `cumsum`, `concat`, `gather`, `transpose` of a
//! computed tile, and `clip` with tensor bounds, read from a recorded op and turned into the unit's
//! steps (`WorkStep::Vector`, or a maximum and a minimum for tensor bounds).

use super::lowering::{Operand, RecordedOp};
use super::work_compute::Resolver;
use super::work_ops::{Arg, OpKind, UnitBuilder, Unsupported};
use super::work_shapes::{broadcast, broadcast_valid, same_broadcast};
use crate::lang::interp::value::Value;
use crate::tensor::{BinaryOp, CompareOp, DType, Tensor};
use crate::tile::{ValueId, VectorOp, WorkOperand, WorkStep};

/// Bytes of the UB granule every preset has: a computed tile whose last dim is not taken from an
/// operand (a broadcast copy, a join, a transpose) is padded to whole granules, as loads are.
const UB_GRANULE: usize = 32;

fn operand<'a>(op: &'a RecordedOp, position: usize, name: &str) -> Option<&'a Operand> {
    op.operands
        .iter()
        .find(|(key, _)| key.as_deref() == Some(name))
        .or_else(|| op.operands.iter().filter(|(key, _)| key.is_none()).nth(position))
        .map(|(_, operand)| operand)
}

fn arg(op: &RecordedOp, position: usize, name: &str) -> Result<Option<Arg>, Unsupported> {
    match operand(op, position, name) {
        None | Some(Operand::Other(Value::None)) => Ok(None),
        Some(Operand::Tensor(tensor)) => Ok(Some(Arg::Tensor(tensor.clone()))),
        Some(Operand::Other(Value::Int(number))) => Ok(Some(Arg::Number(*number as f64))),
        Some(Operand::Other(Value::Float(number))) => Ok(Some(Arg::Number(*number))),
        Some(Operand::Other(Value::Bool(flag))) => Ok(Some(Arg::Number(f64::from(u8::from(*flag))))),
        Some(Operand::Other(other)) => {
            Err(Unsupported::new(format!("`{}` with a {} operand", op.name, other.type_name()), op.line))
        }
    }
}

fn required(op: &RecordedOp, position: usize, name: &str) -> Result<Arg, Unsupported> {
    arg(op, position, name)?.ok_or_else(|| Unsupported::new(format!("`{}` without `{name}`", op.name), op.line))
}

fn tensor(op: &RecordedOp, position: usize, name: &str) -> Result<Tensor, Unsupported> {
    match required(op, position, name)? {
        Arg::Tensor(tensor) => Ok(tensor),
        Arg::Number(_) => Err(Unsupported::new(format!("`{}` with a number as `{name}`", op.name), op.line)),
    }
}

fn int(op: &RecordedOp, position: usize, name: &str, default: Option<i64>) -> Result<i64, Unsupported> {
    match operand(op, position, name) {
        Some(Operand::Other(value)) => value.as_int(),
        None => default,
        Some(Operand::Tensor(_)) => None,
    }
    .ok_or_else(|| Unsupported::new(format!("`{}` with this `{name}`", op.name), op.line))
}

/// A dim of a tensor of `rank` dims (negative counts from the end).
fn axis(op: &RecordedOp, dim: i64, rank: usize) -> Result<usize, Unsupported> {
    let normalised = if dim < 0 { dim + rank as i64 } else { dim };
    usize::try_from(normalised)
        .ok()
        .filter(|&dim| dim < rank)
        .ok_or_else(|| Unsupported::new(format!("`{}` along dim {dim}", op.name), op.line))
}

/// Reads the ops of this file; `None` for an op that is not one of them.
pub(crate) fn parse_vector(op: &RecordedOp) -> Option<Result<OpKind, Unsupported>> {
    let name = op.name.as_str();
    let kind = || -> Result<OpKind, Unsupported> {
        if let Some(compare) = CompareOp::from_name(name) {
            let args = vec![required(op, 0, "input")?, required(op, 1, "other")?];
            return Ok(OpKind::Vector { op: VectorOp::Compare(compare), args });
        }
        Ok(match name {
            "where" => {
                let args = vec![required(op, 0, "condition")?, required(op, 1, "input")?, required(op, 2, "other")?];
                OpKind::Vector { op: VectorOp::Select, args }
            }
            "round" => {
                let x = tensor(op, 0, "input")?;
                OpKind::Vector {
                    op: VectorOp::Round { decimals: int(op, 1, "decimals", Some(0))? },
                    args: vec![Arg::Tensor(x)],
                }
            }
            "expand_clone" => {
                if operand(op, 2, "valid_shape").is_some() {
                    return Err(Unsupported::new("`expand_clone` with a valid_shape", op.line));
                }
                OpKind::Vector { op: VectorOp::Expand, args: vec![Arg::Tensor(tensor(op, 0, "input")?)] }
            }
            "cumsum" => {
                let x = tensor(op, 0, "input")?;
                let dim = axis(op, int(op, 1, "dim", None)?, x.shape().len())?;
                OpKind::Vector { op: VectorOp::CumSum { dim }, args: vec![Arg::Tensor(x)] }
            }
            "topk_indices" => {
                let x = tensor(op, 0, "input")?;
                let dim = axis(op, int(op, 2, "dim", Some(-1))?, x.shape().len())?;
                let k = usize::try_from(int(op, 1, "k", None)?)
                    .map_err(|_| Unsupported::new("`topk` with a negative k", op.line))?;
                let largest = !matches!(operand(op, 3, "largest"), Some(Operand::Other(Value::Bool(false))));
                OpKind::Vector { op: VectorOp::TopK { k, dim, largest }, args: vec![Arg::Tensor(x)] }
            }
            "gather" => {
                let x = tensor(op, 0, "input")?;
                let dim = axis(op, int(op, 1, "dim", None)?, x.shape().len())?;
                OpKind::Vector { op: VectorOp::Gather { dim }, args: vec![Arg::Tensor(x), required(op, 2, "index")?] }
            }
            "concat" | "cat" => {
                let items = match operand(op, 0, "tensors") {
                    Some(Operand::Other(Value::List(items))) => items.borrow().clone(),
                    Some(Operand::Other(Value::Tuple(items))) => items.as_ref().clone(),
                    _ => return Err(Unsupported::new("`concat` without a list of tensors", op.line)),
                };
                let args = items
                    .iter()
                    .map(|item| match item {
                        Value::Tensor(object) => Ok(Arg::Tensor(object.get().tensor().clone())),
                        other => Err(Unsupported::new(format!("`concat` of a {}", other.type_name()), op.line)),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let rank = match args.first() {
                    Some(Arg::Tensor(first)) => first.shape().len(),
                    _ => return Err(Unsupported::new("`concat` of no tensors", op.line)),
                };
                let dim = axis(op, int(op, 1, "dim", Some(0))?, rank)?;
                OpKind::Vector { op: VectorOp::Concat { dim }, args }
            }
            "clip" => OpKind::ClipBounds {
                x: tensor(op, 0, "input").or_else(|_| tensor(op, 0, "x"))?,
                low: arg(op, 1, "min")?,
                high: arg(op, 2, "max")?,
            },
            _ => unreachable!("only the names above reach here"),
        })
    };
    let known = CompareOp::from_name(name).is_some()
        || matches!(name, "where" | "round" | "expand_clone" | "cumsum" | "gather" | "concat" | "cat" | "topk_indices");
    // `clip` with number bounds stays the one-instruction `Clip` step.
    let tensor_bounds = name == "clip"
        && [(1, "min"), (2, "max")]
            .iter()
            .any(|(position, key)| matches!(operand(op, *position, key), Some(Operand::Tensor(_))));
    (known || tensor_bounds).then(kind)
}

/// The tensor operands of an op of this file, in resolver order.
pub(crate) fn vector_tensors(kind: &OpKind) -> Vec<Tensor> {
    let tensors = |args: &[&Arg]| {
        args.iter().filter_map(|arg| if let Arg::Tensor(tensor) = arg { Some(tensor.clone()) } else { None }).collect()
    };
    match kind {
        OpKind::Vector { args, .. } => tensors(&args.iter().collect::<Vec<_>>()),
        OpKind::ClipBounds { x, low, high } => {
            let x = Arg::Tensor(x.clone());
            tensors(&[Some(&x), low.as_ref(), high.as_ref()].into_iter().flatten().collect::<Vec<_>>())
        }
        _ => Vec::new(),
    }
}

/// `reshape` or `transpose` of a computed tile as a vector step (of a tensor in GM they are views).
pub(crate) fn layout_kind(kind: &OpKind) -> Option<OpKind> {
    match kind {
        OpKind::Reshape { x } => Some(OpKind::Vector { op: VectorOp::Reshape, args: vec![Arg::Tensor(x.clone())] }),
        OpKind::Transpose { x, order } => {
            let swapped: Vec<usize> = (0..order.len()).filter(|&dim| order[dim] != dim).collect();
            let dims = match swapped[..] {
                [first, second] => [first, second],
                _ => [0, 0],
            };
            Some(OpKind::Vector { op: VectorOp::Transpose { dims }, args: vec![Arg::Tensor(x.clone())] })
        }
        _ => None,
    }
}

/// The last dim padded to whole UB granules of `dtype`.
fn padded(mut shape: Vec<usize>, dtype: DType) -> Vec<usize> {
    let per_granule = (UB_GRANULE / dtype.size_in_bytes()).max(1);
    if let Some(last) = shape.last_mut().filter(|last| **last > 1) {
        *last = last.div_ceil(per_granule) * per_granule;
    }
    shape
}

/// Emits the steps of an op of this file whose reference result is `result`.
pub(crate) fn compute_vector(
    builder: &mut UnitBuilder,
    kind: &OpKind,
    result: &Tensor,
    line: Option<u32>,
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
                if !same_broadcast(&form, tensor.shape()) || form.len() != tensor.shape().len() {
                    return Err(Unsupported::new(
                        "an op of a reduction taken with keepdim=False (use keepdim=True)",
                        line,
                    ));
                }
                Ok(WorkOperand::Tile(value))
            }
        }
    };
    if let OpKind::ClipBounds { x, low, high } = kind {
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
    let OpKind::Vector { op, args } = kind else {
        return Err(Unsupported::new("this op inside a computation", line));
    };
    let inputs = args.iter().map(|arg| resolve_arg(builder, arg)).collect::<Result<Vec<_>, _>>()?;
    let tiles: Vec<crate::tile::TileValue> = inputs
        .iter()
        .filter_map(
            |input| if let WorkOperand::Tile(value) = input { Some(builder.tile(*value).clone()) } else { None },
        )
        .collect();
    let Some(first) = tiles.first().cloned() else {
        return Err(Unsupported::new(format!("`{}` of numbers only", op.name()), line));
    };
    let (shape, valid) = match op {
        VectorOp::Compare(_) | VectorOp::Select => {
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
                    Unsupported::new(format!("`{}` of tiles {shape:?} and {other:?}", op.name()), line)
                })?;
                valid = broadcast_valid(&joined, &shape, &valid, &other, &tile.valid_shape);
                shape = joined;
            }
            (padded(shape, dtype), valid)
        }
        VectorOp::Round { .. } | VectorOp::CumSum { .. } => (first.shape.clone(), first.valid_shape.clone()),
        VectorOp::TopK { k, dim, .. } => {
            let mut valid = first.valid_shape.clone();
            valid[*dim] = *k;
            (padded(valid.clone(), DType::I32), valid)
        }
        VectorOp::Expand => {
            let target = result.shape().to_vec();
            if target.len() != first.shape.len()
                || first.shape.iter().zip(&target).any(|(&tile, &to)| tile != 1 && tile < to)
            {
                return Err(Unsupported::new(
                    format!("`expand_clone` of a {:?} tile to {target:?}", first.shape),
                    line,
                ));
            }
            (padded(target.clone(), dtype), target)
        }
        VectorOp::Concat { dim } => {
            let mut valid = first.valid_shape.clone();
            valid[*dim] = tiles.iter().map(|tile| tile.valid_shape[*dim]).sum();
            let mut shape = valid.clone();
            let last = shape.len() - 1;
            if *dim != last {
                shape[last] = first.shape[last];
            }
            (padded(shape, dtype), valid)
        }
        VectorOp::Transpose { dims } => {
            let mut valid = first.valid_shape.clone();
            valid.swap(dims[0], dims[1]);
            (padded(valid.clone(), dtype), valid)
        }
        VectorOp::Slice { .. } => return Err(Unsupported::new("a batch slice outside a batched matmul", line)),
        VectorOp::Reshape => {
            let target = result.shape().to_vec();
            if first.valid_shape.iter().product::<usize>() != target.iter().product::<usize>() {
                return Err(Unsupported::new(
                    format!("`reshape` of a ragged {:?} tile to {target:?}", first.shape),
                    line,
                ));
            }
            (padded(target.clone(), dtype), target)
        }
        VectorOp::Gather { .. } => {
            let index = tiles.get(1).ok_or_else(|| Unsupported::new("`gather` with a number as index", line))?;
            (index.shape.clone(), index.valid_shape.clone())
        }
    };
    let output = builder.value(shape, valid, dtype);
    builder.push(WorkStep::Vector { op: op.clone(), inputs, output }, line);
    Ok(output)
}
