//! The recorder's vocabulary: a recorded op parsed into what it means for tile work, and a unit
//! under construction whose steps compute tiles in "tile form" (reductions keep their dims, as on
//! the NPU). Both recorders (`work_jit`, `work_auto`) use these; they differ only in how a tensor
//! operand becomes a tile of the unit.

use std::fmt;

use super::lowering::{Operand, RecordedOp, UNIT_MARKER};
use crate::lang::interp::value::Value;
use crate::tensor::{BinaryOp, DType, ReduceOp, Tensor, UnaryOp};
use crate::tile::{LocatedStep, TileValue, ValueId, WorkOperand, WorkStep, WorkUnit};

/// Why a kernel cannot be recorded as tile work: the op and its line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Unsupported {
    /// What cannot run (an op name and how it was used).
    pub what: String,
    /// The 1-based script line of the op.
    pub line: Option<u32>,
}

impl Unsupported {
    /// A reason at `line`.
    pub(crate) fn new(what: impl Into<String>, line: Option<u32>) -> Unsupported {
        Unsupported { what: what.into(), line }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot run on the NPU yet: {}", self.what)?;
        if let Some(line) = self.line {
            write!(f, " at line {line}")?;
        }
        Ok(())
    }
}

/// An operand of an element-wise op: a tensor or a number.
#[derive(Clone)]
pub(crate) enum Arg {
    Tensor(Tensor),
    Number(f64),
}

/// A recorded op, read for its meaning.
#[derive(Clone)]
pub(crate) enum OpKind {
    /// Starts a unit (an outermost `pypto.loop` iteration).
    Marker,
    /// `pypto.view(source, shape, offsets, valid_shape)`.
    View { source: Tensor, offsets: Vec<usize> },
    /// `source[index]` (ints and step-1 slices).
    Index { source: Tensor, index: Value },
    /// Element-wise ops: unary, binary, clip, cast (the dtype is the result's).
    Unary { op: UnaryOp, x: Tensor },
    Binary { op: BinaryOp, lhs: Arg, rhs: Arg },
    Clip { x: Tensor, low: Option<f64>, high: Option<f64> },
    Cast { x: Tensor },
    /// A reduction over `dims` (reference dims; `None` = all).
    Reduce { op: ReduceOp, x: Tensor, dims: Option<Vec<i64>> },
    /// `matmul(a, b, out_dtype, a_trans, b_trans)`.
    Matmul { a: Tensor, b: Tensor, a_transposed: bool, b_transposed: bool },
    /// `softmax` / `log_softmax` over `dim`, expanded into max, exp, sum, div.
    Softmax { x: Tensor, dim: i64, log: bool },
    /// `pypto.assemble(tile, offsets, out)`.
    Assemble { tile: Tensor, offsets: Vec<usize>, out: Tensor },
    /// `target[index] = value`.
    SetItem { target: Tensor, index: Value, value: Arg },
    /// `target op= …`: the next op's result becomes `target`.
    InPlace { target: Tensor },
}

fn positional(op: &RecordedOp) -> Vec<&Operand> {
    op.operands.iter().filter(|(name, _)| name.is_none()).map(|(_, operand)| operand).collect()
}

/// The argument at `position` or passed as `name`.
fn argument<'a>(op: &'a RecordedOp, position: usize, name: &str) -> Option<&'a Operand> {
    op.operands.iter().find(|(key, _)| key.as_deref() == Some(name)).map(|(_, operand)| operand).or_else(|| positional(op).get(position).copied())
}

fn tensor_at(op: &RecordedOp, position: usize, name: &str) -> Result<Tensor, Unsupported> {
    match argument(op, position, name) {
        Some(Operand::Tensor(tensor)) => Ok(tensor.clone()),
        _ => Err(Unsupported::new(format!("`{}` without a tensor as `{name}`", op.name), op.line)),
    }
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(number) => Some(*number as f64),
        Value::Float(number) => Some(*number),
        Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
        _ => None,
    }
}

fn arg_at(op: &RecordedOp, position: usize, name: &str) -> Result<Arg, Unsupported> {
    match argument(op, position, name) {
        Some(Operand::Tensor(tensor)) => Ok(Arg::Tensor(tensor.clone())),
        Some(Operand::Other(value)) => number(value).map(Arg::Number).ok_or_else(|| Unsupported::new(format!("`{}` with a {} operand", op.name, value.type_name()), op.line)),
        None => Err(Unsupported::new(format!("`{}` with a missing operand", op.name), op.line)),
    }
}

fn other_at<'a>(op: &'a RecordedOp, position: usize, name: &str) -> Option<&'a Value> {
    match argument(op, position, name) {
        Some(Operand::Other(value)) => Some(value),
        _ => None,
    }
}

fn flag_at(op: &RecordedOp, position: usize, name: &str) -> bool {
    other_at(op, position, name).is_some_and(|value| matches!(value, Value::Bool(true)) || value.as_int().is_some_and(|number| number != 0))
}

/// A list of non-negative ints (offsets).
pub(crate) fn usize_list(value: Option<&Value>) -> Option<Vec<usize>> {
    match value? {
        Value::List(items) => items.borrow().iter().map(|item| item.as_int().and_then(|number| usize::try_from(number).ok())).collect(),
        Value::Tuple(items) => items.iter().map(|item| item.as_int().and_then(|number| usize::try_from(number).ok())).collect(),
        _ => None,
    }
}

fn binary_op(name: &str) -> Option<BinaryOp> {
    Some(match name {
        "add" | "+=" => BinaryOp::Add,
        "sub" => BinaryOp::Sub,
        "mul" => BinaryOp::Mul,
        "div" => BinaryOp::Div,
        "pow" => BinaryOp::Pow,
        "maximum" => BinaryOp::Maximum,
        "minimum" => BinaryOp::Minimum,
        _ => return None,
    })
}

fn reduce_op(name: &str) -> Option<ReduceOp> {
    Some(match name {
        "sum" => ReduceOp::Sum,
        "mean" => ReduceOp::Mean,
        "amax" => ReduceOp::Amax,
        "amin" => ReduceOp::Amin,
        "var" => ReduceOp::Var,
        _ => return None,
    })
}

fn dims_of(value: Option<&Value>) -> Option<Option<Vec<i64>>> {
    match value {
        None | Some(Value::None) => Some(None),
        Some(Value::List(items)) => items.borrow().iter().map(Value::as_int).collect::<Option<Vec<_>>>().map(Some),
        Some(Value::Tuple(items)) => items.iter().map(Value::as_int).collect::<Option<Vec<_>>>().map(Some),
        Some(single) => single.as_int().map(|dim| Some(vec![dim])),
    }
}

/// Reads a recorded op; ops the recorder does not know are a typed reason.
pub(crate) fn parse(op: &RecordedOp) -> Result<OpKind, Unsupported> {
    let name = op.name.as_str();
    if name == UNIT_MARKER {
        return Ok(OpKind::Marker);
    }
    if let Some(unary) = UnaryOp::from_name(name) {
        let tanh = matches!(other_at(op, 1, "approximate"), Some(Value::Str(mode)) if mode.as_ref() == "tanh");
        let op_kind = if unary == UnaryOp::GeluErf && tanh { UnaryOp::GeluTanh } else { unary };
        return Ok(OpKind::Unary { op: op_kind, x: tensor_at(op, 0, "x")? });
    }
    if let Some(binary) = binary_op(name).filter(|_| name != "+=") {
        let (first, second) = if name == "pow" { ("x", "exponent") } else { ("a", "b") };
        return Ok(OpKind::Binary { op: binary, lhs: arg_at(op, 0, first)?, rhs: arg_at(op, 1, second)? });
    }
    if let Some(reduce) = reduce_op(name) {
        let dims = dims_of(other_at(op, 1, "dim")).ok_or_else(|| Unsupported::new(format!("`{name}` with these dims"), op.line))?;
        return Ok(OpKind::Reduce { op: reduce, x: tensor_at(op, 0, "x")?, dims });
    }
    Ok(match name {
        "view" => {
            let offsets = usize_list(other_at(op, 2, "offsets")).ok_or_else(|| Unsupported::new("`view` with these offsets", op.line))?;
            OpKind::View { source: tensor_at(op, 0, "x")?, offsets }
        }
        "x[...]" => OpKind::Index { source: tensor_at(op, 0, "x")?, index: other_at(op, 1, "index").cloned().unwrap_or(Value::None) },
        "clip" => {
            let bound = |position, key| other_at(op, position, key).and_then(number);
            OpKind::Clip { x: tensor_at(op, 0, "x")?, low: bound(1, "min"), high: bound(2, "max") }
        }
        "cast" => OpKind::Cast { x: tensor_at(op, 0, "x")? },
        "matmul" => OpKind::Matmul { a: tensor_at(op, 0, "a")?, b: tensor_at(op, 1, "b")?, a_transposed: flag_at(op, 3, "a_trans"), b_transposed: flag_at(op, 4, "b_trans") },
        "softmax" | "log_softmax" => {
            let dim = other_at(op, 1, "dim").and_then(Value::as_int).unwrap_or(-1);
            OpKind::Softmax { x: tensor_at(op, 0, "x")?, dim, log: name == "log_softmax" }
        }
        "assemble" => {
            let offsets = usize_list(other_at(op, 1, "offsets")).ok_or_else(|| Unsupported::new("`assemble` with these offsets", op.line))?;
            OpKind::Assemble { tile: tensor_at(op, 0, "tile")?, offsets, out: tensor_at(op, 2, "out")? }
        }
        "x[...] =" => OpKind::SetItem { target: tensor_at(op, 0, "target")?, index: other_at(op, 1, "index").cloned().unwrap_or(Value::None), value: arg_at(op, 2, "value")? },
        "+=" => OpKind::InPlace { target: tensor_at(op, 0, "target")? },
        other if other.ends_with('=') => OpKind::InPlace { target: tensor_at(op, 0, "target")? },
        other => return Err(Unsupported::new(format!("`{other}`"), op.line)),
    })
}

/// The region `source[index]` reads: offsets and extents per dim (ints keep a size-1 dim).
pub(crate) fn index_region(shape: &[usize], index: &Value, line: Option<u32>) -> Result<(Vec<usize>, Vec<usize>), Unsupported> {
    let parts: Vec<Value> = match index {
        Value::Tuple(parts) => parts.as_ref().clone(),
        other => vec![other.clone()],
    };
    let explicit = parts.iter().filter(|part| !matches!(part, Value::Ellipsis)).count();
    let (mut offsets, mut extents) = (Vec::new(), Vec::new());
    for part in &parts {
        let axis = offsets.len();
        match part {
            Value::Ellipsis => {
                for skipped in 0..shape.len().saturating_sub(explicit) {
                    offsets.push(0);
                    extents.push(shape[axis + skipped]);
                }
            }
            Value::Slice(bounds) => {
                let [start, stop, step] = **bounds;
                if step.is_some_and(|step| step != 1) {
                    return Err(Unsupported::new("indexing with a step", line));
                }
                let size = *shape.get(axis).ok_or_else(|| Unsupported::new("this index", line))? as i64;
                let clamp = |bound: Option<i64>, default: i64| bound.map_or(default, |value| if value < 0 { (value + size).max(0) } else { value.min(size) });
                let (from, to) = (clamp(start, 0), clamp(stop, size));
                offsets.push(from as usize);
                extents.push((to - from).max(0) as usize);
            }
            other => {
                let raw = other.as_int().ok_or_else(|| Unsupported::new(format!("indexing with a {}", other.type_name()), line))?;
                let size = *shape.get(axis).ok_or_else(|| Unsupported::new("this index", line))? as i64;
                offsets.push((if raw < 0 { raw + size } else { raw }) as usize);
                extents.push(1);
            }
        }
    }
    while offsets.len() < shape.len() {
        extents.push(shape[offsets.len()]);
        offsets.push(0);
    }
    Ok((offsets, extents))
}

/// Whether a tile of shape `tile` broadcasts like a tensor of shape `reference` (equal once leading
/// size-1 dims are dropped), so numpy rules give the same values on both.
pub(crate) fn same_broadcast(tile: &[usize], reference: &[usize]) -> bool {
    let strip = |shape: &[usize]| shape.iter().skip_while(|&&dim| dim == 1).copied().collect::<Vec<_>>();
    strip(tile) == strip(reference)
}

/// Numpy broadcasting of two shapes (None when they do not broadcast).
pub(crate) fn broadcast(lhs: &[usize], rhs: &[usize]) -> Option<Vec<usize>> {
    let rank = lhs.len().max(rhs.len());
    let at = |shape: &[usize], index: usize| if index + shape.len() >= rank { shape[index + shape.len() - rank] } else { 1 };
    (0..rank)
        .map(|index| match (at(lhs, index), at(rhs, index)) {
            (a, b) if a == b => Some(a),
            (1, b) => Some(b),
            (a, 1) => Some(a),
            _ => None,
        })
        .collect()
}

/// Reference dims of a reduction over a tensor of rank `reference_rank`, mapped to a tile of rank
/// `tile_rank` (right-aligned; dims that fall off the left are size 1 and need no reduction).
pub(crate) fn tile_dims(dims: &Option<Vec<i64>>, reference_rank: usize, tile_rank: usize) -> Vec<usize> {
    let all: Vec<i64> = (0..reference_rank as i64).collect();
    let mut mapped: Vec<usize> = dims
        .as_ref()
        .unwrap_or(&all)
        .iter()
        .filter_map(|&dim| {
            let dim = if dim < 0 { dim + reference_rank as i64 } else { dim };
            let mapped = dim + tile_rank as i64 - reference_rank as i64;
            (0..tile_rank as i64).contains(&mapped).then_some(mapped as usize)
        })
        .collect();
    mapped.sort_unstable();
    mapped.dedup();
    mapped
}

/// The tiles a step reads.
pub(crate) fn step_reads(step: &WorkStep) -> Vec<ValueId> {
    let tile = |operand: &WorkOperand| if let WorkOperand::Tile(id) = operand { Some(*id) } else { None };
    match step {
        WorkStep::Load { .. } => Vec::new(),
        WorkStep::Unary { input, .. } | WorkStep::Clip { input, .. } | WorkStep::Reduce { input, .. } | WorkStep::Cast { input, .. } | WorkStep::Store { input, .. } => vec![*input],
        WorkStep::Binary { lhs, rhs, .. } => tile(lhs).into_iter().chain(tile(rhs)).collect(),
        WorkStep::Matmul { a, b, .. } => vec![*a, *b],
    }
}

/// A unit under construction.
#[derive(Default)]
pub(crate) struct UnitBuilder {
    pub unit: WorkUnit,
}

impl UnitBuilder {
    /// A new tile value.
    pub(crate) fn value(&mut self, shape: Vec<usize>, valid_shape: Vec<usize>, dtype: DType) -> ValueId {
        self.unit.values.push(TileValue { shape, valid_shape, dtype });
        ValueId(self.unit.values.len() as u32 - 1)
    }

    /// The value `id`.
    pub(crate) fn tile(&self, id: ValueId) -> &TileValue {
        &self.unit.values[id.0 as usize]
    }

    /// Appends a step.
    pub(crate) fn push(&mut self, step: WorkStep, line: Option<u32>) {
        self.unit.steps.push(LocatedStep { step, line });
    }

    /// `op(input)` with the output in `dtype`.
    pub(crate) fn unary(&mut self, op: UnaryOp, input: ValueId, dtype: DType, line: Option<u32>) -> ValueId {
        let tile = self.tile(input).clone();
        let output = self.value(tile.shape, tile.valid_shape, dtype);
        self.push(WorkStep::Unary { op, input, output }, line);
        output
    }

    /// `op(lhs, rhs)` with numpy broadcasting between tiles.
    pub(crate) fn binary(&mut self, op: BinaryOp, lhs: WorkOperand, rhs: WorkOperand, dtype: DType, line: Option<u32>) -> Result<ValueId, Unsupported> {
        let shapes = |operand: &WorkOperand| match operand {
            WorkOperand::Tile(id) => (self.tile(*id).shape.clone(), self.tile(*id).valid_shape.clone()),
            WorkOperand::Scalar(_) => (Vec::new(), Vec::new()),
        };
        let ((lhs_shape, lhs_valid), (rhs_shape, rhs_valid)) = (shapes(&lhs), shapes(&rhs));
        let shape = broadcast(&lhs_shape, &rhs_shape).ok_or_else(|| Unsupported::new(format!("`{}` of tiles {lhs_shape:?} and {rhs_shape:?}", op.name()), line))?;
        // A broadcast dim takes the valid extent of the operand that is not size 1 there.
        let valid = broadcast_valid(&shape, &lhs_shape, &lhs_valid, &rhs_shape, &rhs_valid);
        let output = self.value(shape, valid, dtype);
        self.push(WorkStep::Binary { op, lhs, rhs, output }, line);
        Ok(output)
    }

    /// `op` over tile dims `dims`, kept as size-1 dims.
    pub(crate) fn reduce(&mut self, op: ReduceOp, input: ValueId, dims: Vec<usize>, dtype: DType, line: Option<u32>) -> ValueId {
        let tile = self.tile(input).clone();
        let keep = |shape: &[usize]| shape.iter().enumerate().map(|(dim, &size)| if dims.contains(&dim) { 1 } else { size }).collect::<Vec<_>>();
        let output = self.value(keep(&tile.shape), keep(&tile.valid_shape), dtype);
        self.push(WorkStep::Reduce { op, input, dims, output }, line);
        output
    }
}

fn broadcast_valid(shape: &[usize], lhs: &[usize], lhs_valid: &[usize], rhs: &[usize], rhs_valid: &[usize]) -> Vec<usize> {
    let rank = shape.len();
    let at = |dims: &[usize], index: usize| if index + dims.len() >= rank { Some(dims[index + dims.len() - rank]) } else { None };
    (0..rank)
        .map(|index| {
            let pick = |full: &[usize], valid: &[usize]| match at(full, index) {
                Some(size) if size == shape[index] => at(valid, index),
                _ => None,
            };
            pick(lhs, lhs_valid).into_iter().chain(pick(rhs, rhs_valid)).min().unwrap_or(shape[index])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        // [4, 1] against [3] → [4, 3]; [2, 3] against [4] does not broadcast.
        assert_eq!(broadcast(&[4, 1], &[3]), Some(vec![4, 3]));
        assert_eq!(broadcast(&[2, 3], &[4]), None);
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
    }

    #[test]
    fn keepdim_forms_broadcast_alike_only_over_leading_dims() {
        // sum over dim 0 of [R, C] is [C] (reference) and [1, C] (tile): same broadcasting.
        assert!(same_broadcast(&[1, 8], &[8]));
        // sum over dim 1 is [R] against the tile [R, 1]: numpy would align R with the columns.
        assert!(!same_broadcast(&[8, 1], &[8]));
    }

    #[test]
    fn reduction_dims_map_right_aligned() {
        assert_eq!(tile_dims(&Some(vec![-1]), 2, 2), vec![1]);
        assert_eq!(tile_dims(&None, 1, 2), vec![1]);
        assert_eq!(tile_dims(&Some(vec![0]), 1, 2), vec![1]);
    }

    #[test]
    fn index_regions_keep_dims_and_refuse_steps() {
        let slice = |start, stop| Value::Slice(std::rc::Rc::new([start, stop, None]));
        let index = Value::tuple(vec![Value::Int(2), slice(Some(1), None)]);
        assert_eq!(index_region(&[4, 6], &index, None), Ok((vec![2, 1], vec![1, 5])));
        let stepped = Value::Slice(std::rc::Rc::new([None, None, Some(2)]));
        assert!(index_region(&[4], &stepped, Some(3)).is_err());
    }

    #[test]
    fn ragged_valid_extents_survive_broadcasting() {
        // A ragged [4, 16] tile valid [2, 16] plus a [1, 16] row: valid [2, 16].
        assert_eq!(broadcast_valid(&[4, 16], &[4, 16], &[2, 16], &[1, 16], &[1, 16]), vec![2, 16]);
    }
}
