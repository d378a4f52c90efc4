//! The recorder's vocabulary: a recorded op parsed into what it means for tile work, and a unit
//! under construction whose steps compute tiles in "tile form" (reductions keep their dims, as on
//! the NPU). Both recorders (`work_jit`, `work_auto`) use these; they differ only in how a tensor
//! operand becomes a tile of the unit.

use std::fmt;

use super::lowering::{Operand, RecordedOp, UNIT_MARKER};
use super::work_shapes::{broadcast, broadcast_valid};
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
    View {
        source: Tensor,
        offsets: Vec<usize>,
    },
    /// `source[index]` (ints and step-1 slices).
    Index {
        source: Tensor,
        index: Value,
    },
    /// Element-wise ops: unary, binary, clip, cast (the dtype is the result's).
    Unary {
        op: UnaryOp,
        x: Tensor,
    },
    Binary {
        op: BinaryOp,
        lhs: Arg,
        rhs: Arg,
    },
    Clip {
        x: Tensor,
        low: Option<f64>,
        high: Option<f64>,
    },
    Cast {
        x: Tensor,
    },
    /// A reduction over `dims` (reference dims; `None` = all).
    Reduce {
        op: ReduceOp,
        x: Tensor,
        dims: Option<Vec<i64>>,
    },
    /// `matmul(a, b, out_dtype, a_trans, b_trans)`.
    Matmul {
        a: Tensor,
        b: Tensor,
        a_transposed: bool,
        b_transposed: bool,
    },
    /// `softmax` / `log_softmax` over `dim`, expanded into max, exp, sum, div.
    Softmax {
        x: Tensor,
        dim: i64,
        log: bool,
    },
    /// `pypto.assemble(tile, offsets, out)`.
    Assemble {
        tile: Tensor,
        offsets: Vec<usize>,
        out: Tensor,
    },
    /// `target[index] = value`.
    SetItem {
        target: Tensor,
        index: Value,
        value: Arg,
    },
    /// `target op= …`: the next op's result becomes `target`.
    InPlace {
        target: Tensor,
    },
    /// `reshape(x, shape)` (the shape is the result's).
    Reshape {
        x: Tensor,
    },
    /// `transpose(x, dim0, dim1)`: dim `i` of the result is dim `order[i]` of `x`.
    Transpose {
        x: Tensor,
        order: Vec<usize>,
    },
    /// `full`, `zeros`, `ones` (and their `_like` forms): every element is `value`.
    Fill {
        value: f64,
    },
    /// A selecting or structural vector op (see `work_vector`) over its operands.
    Vector {
        op: crate::tile::VectorOp,
        args: Vec<Arg>,
    },
    /// `clip(x, min, max)` with a tensor bound (either bound may be a number or absent).
    ClipBounds {
        x: Tensor,
        low: Option<Arg>,
        high: Option<Arg>,
    },
}

fn positional(op: &RecordedOp) -> Vec<&Operand> {
    op.operands.iter().filter(|(name, _)| name.is_none()).map(|(_, operand)| operand).collect()
}

/// The argument at `position` or passed as `name`.
fn argument<'a>(op: &'a RecordedOp, position: usize, name: &str) -> Option<&'a Operand> {
    op.operands
        .iter()
        .find(|(key, _)| key.as_deref() == Some(name))
        .map(|(_, operand)| operand)
        .or_else(|| positional(op).get(position).copied())
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
        Some(Operand::Other(value)) => number(value)
            .map(Arg::Number)
            .ok_or_else(|| Unsupported::new(format!("`{}` with a {} operand", op.name, value.type_name()), op.line)),
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
    other_at(op, position, name)
        .is_some_and(|value| matches!(value, Value::Bool(true)) || value.as_int().is_some_and(|number| number != 0))
}

/// A list of non-negative ints (offsets).
pub(crate) fn usize_list(value: Option<&Value>) -> Option<Vec<usize>> {
    match value? {
        Value::List(items) => {
            items.borrow().iter().map(|item| item.as_int().and_then(|number| usize::try_from(number).ok())).collect()
        }
        Value::Tuple(items) => {
            items.iter().map(|item| item.as_int().and_then(|number| usize::try_from(number).ok())).collect()
        }
        _ => None,
    }
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
    if let Some(kind) = super::work_vector::parse_vector(op) {
        return kind;
    }
    if let Some(unary) = UnaryOp::from_name(name) {
        let tanh = matches!(other_at(op, 1, "approximate"), Some(Value::Str(mode)) if mode.as_ref() == "tanh");
        let op_kind = if unary == UnaryOp::GeluErf && tanh { UnaryOp::GeluTanh } else { unary };
        return Ok(OpKind::Unary { op: op_kind, x: tensor_at(op, 0, "x")? });
    }
    if let Some(binary) = BinaryOp::from_name(name) {
        let (first, second) = if name == "pow" { ("x", "exponent") } else { ("a", "b") };
        return Ok(OpKind::Binary { op: binary, lhs: arg_at(op, 0, first)?, rhs: arg_at(op, 1, second)? });
    }
    if let Some(reduce) = ReduceOp::from_name(name) {
        let dims = dims_of(other_at(op, 1, "dim"))
            .ok_or_else(|| Unsupported::new(format!("`{name}` with these dims"), op.line))?;
        return Ok(OpKind::Reduce { op: reduce, x: tensor_at(op, 0, "x")?, dims });
    }
    Ok(match name {
        "view" => {
            let offsets = usize_list(other_at(op, 2, "offsets"))
                .ok_or_else(|| Unsupported::new("`view` with these offsets", op.line))?;
            OpKind::View { source: tensor_at(op, 0, "x")?, offsets }
        }
        "x[...]" => OpKind::Index {
            source: tensor_at(op, 0, "x")?,
            index: other_at(op, 1, "index").cloned().unwrap_or(Value::None),
        },
        "clip" => {
            let bound = |position, key| other_at(op, position, key).and_then(number);
            OpKind::Clip { x: tensor_at(op, 0, "x")?, low: bound(1, "min"), high: bound(2, "max") }
        }
        "cast" => OpKind::Cast { x: tensor_at(op, 0, "x")? },
        "reshape" => OpKind::Reshape { x: tensor_at(op, 0, "x")? },
        "transpose" => {
            let x = tensor_at(op, 0, "x")?;
            let rank = x.shape().len() as i64;
            let dim = |position, key| {
                other_at(op, position, key)
                    .and_then(Value::as_int)
                    .map(|dim| if dim < 0 { dim + rank } else { dim })
                    .filter(|dim| (0..rank).contains(dim))
                    .map(|dim| dim as usize)
            };
            let (Some(first), Some(second)) = (dim(1, "dim0"), dim(2, "dim1")) else {
                return Err(Unsupported::new("`transpose` with these dims", op.line));
            };
            let mut order: Vec<usize> = (0..rank as usize).collect();
            order.swap(first, second);
            OpKind::Transpose { x, order }
        }
        // `pypto.tensor(shape, dtype)` allocates a zeroed tensor, as `zeros` does.
        "zeros" | "zeros_like" | "tensor" => OpKind::Fill { value: 0.0 },
        "ones" | "ones_like" => OpKind::Fill { value: 1.0 },
        "full" => {
            let value = other_at(op, 1, "value")
                .and_then(number)
                .ok_or_else(|| Unsupported::new("`full` with a value that is not a number", op.line))?;
            OpKind::Fill { value }
        }
        "matmul" => OpKind::Matmul {
            a: tensor_at(op, 0, "a")?,
            b: tensor_at(op, 1, "b")?,
            a_transposed: flag_at(op, 3, "a_trans"),
            b_transposed: flag_at(op, 4, "b_trans"),
        },
        "softmax" | "log_softmax" => {
            let dim = other_at(op, 1, "dim").and_then(Value::as_int).unwrap_or(-1);
            OpKind::Softmax { x: tensor_at(op, 0, "x")?, dim, log: name == "log_softmax" }
        }
        "assemble" => {
            let offsets = usize_list(other_at(op, 1, "offsets"))
                .ok_or_else(|| Unsupported::new("`assemble` with these offsets", op.line))?;
            OpKind::Assemble { tile: tensor_at(op, 0, "tile")?, offsets, out: tensor_at(op, 2, "out")? }
        }
        "x[...] =" => OpKind::SetItem {
            target: tensor_at(op, 0, "target")?,
            index: other_at(op, 1, "index").cloned().unwrap_or(Value::None),
            value: arg_at(op, 2, "value")?,
        },
        "+=" => OpKind::InPlace { target: tensor_at(op, 0, "target")? },
        other if other.ends_with('=') => OpKind::InPlace { target: tensor_at(op, 0, "target")? },
        other => return Err(Unsupported::new(format!("`{other}`"), op.line)),
    })
}

/// The tiles a step reads.
pub(crate) fn step_reads(step: &WorkStep) -> Vec<ValueId> {
    let tile = |operand: &WorkOperand| if let WorkOperand::Tile(id) = operand { Some(*id) } else { None };
    match step {
        WorkStep::Load { .. } => Vec::new(),
        WorkStep::Unary { input, .. }
        | WorkStep::Clip { input, .. }
        | WorkStep::Reduce { input, .. }
        | WorkStep::Cast { input, .. }
        | WorkStep::Store { input, .. } => vec![*input],
        WorkStep::Binary { lhs, rhs, .. } => tile(lhs).into_iter().chain(tile(rhs)).collect(),
        WorkStep::Matmul { a, b, .. } => vec![*a, *b],
        WorkStep::Vector { inputs, .. } => inputs.iter().filter_map(tile).collect(),
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
    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: WorkOperand,
        rhs: WorkOperand,
        dtype: DType,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let shapes = |operand: &WorkOperand| match operand {
            WorkOperand::Tile(id) => (self.tile(*id).shape.clone(), self.tile(*id).valid_shape.clone()),
            WorkOperand::Scalar(_) => (Vec::new(), Vec::new()),
        };
        let ((lhs_shape, lhs_valid), (rhs_shape, rhs_valid)) = (shapes(&lhs), shapes(&rhs));
        let shape = broadcast(&lhs_shape, &rhs_shape).ok_or_else(|| {
            Unsupported::new(format!("`{}` of tiles {lhs_shape:?} and {rhs_shape:?}", op.name()), line)
        })?;
        // A broadcast dim takes the valid extent of the operand that is not size 1 there.
        let valid = broadcast_valid(&shape, &lhs_shape, &lhs_valid, &rhs_shape, &rhs_valid);
        let output = self.value(shape, valid, dtype);
        self.push(WorkStep::Binary { op, lhs, rhs, output }, line);
        Ok(output)
    }

    /// `op` over tile dims `dims`, kept as size-1 dims.
    pub(crate) fn reduce(
        &mut self,
        op: ReduceOp,
        input: ValueId,
        dims: Vec<usize>,
        dtype: DType,
        line: Option<u32>,
    ) -> ValueId {
        let tile = self.tile(input).clone();
        let keep = |shape: &[usize]| {
            shape.iter().enumerate().map(|(dim, &size)| if dims.contains(&dim) { 1 } else { size }).collect::<Vec<_>>()
        };
        let output = self.value(keep(&tile.shape), keep(&tile.valid_shape), dtype);
        self.push(WorkStep::Reduce { op, input, dims, output }, line);
        output
    }
}
