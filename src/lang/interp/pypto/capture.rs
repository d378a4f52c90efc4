//! The typed capture of a kernel call: each tensor op the kernel executes is recorded at its op site as a
//! `CapturedOp` (the tensor core's op enums with every parameter, operands as tensor handles identified by buffer id
//! and shape), with its result and script line; the outermost `pypto.loop`'s iterations are marked. `work_jit` turns
//! the capture of either kernel style into `TileWork`; an op the NPU cannot run is captured as `Unsupported`.

pub(crate) use super::tensor_ref::{identity, Identity, TensorRef};
use crate::lang::interp::error::Result;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::messages::CompilerReason;
use crate::tensor::{BinaryOp, ReduceOp, SliceSpec, Tensor, UnaryOp};
use crate::tile::VectorOp;

/// An operand of an element-wise op: a tensor or a number.
#[derive(Clone)]
pub(crate) enum Arg {
    Tensor(TensorRef),
    Number(f64),
}

impl Arg {
    /// The operand of a tensor.
    pub(crate) fn var(var: &crate::autograd::Var) -> Arg {
        Arg::Tensor(Arg::var_ref(var))
    }

    /// The reference of a tensor.
    pub(crate) fn var_ref(var: &crate::autograd::Var) -> TensorRef {
        TensorRef::of(var.tensor())
    }

    /// The operand of a script value: a tensor, or a number (bools count as 0/1); other values
    /// have no NPU form.
    pub(crate) fn of(value: &Value) -> Option<Arg> {
        match value {
            Value::Tensor(object) => Some(Arg::Tensor(TensorRef::of(object.get().tensor()))),
            Value::Int(number) => Some(Arg::Number(*number as f64)),
            Value::Float(number) => Some(Arg::Number(*number)),
            Value::Bool(flag) => Some(Arg::Number(f64::from(u8::from(*flag)))),
            _ => None,
        }
    }
}

/// One tensor op of a kernel, typed.
#[derive(Clone)]
pub(crate) enum CapturedOp {
    /// Starts a unit (an outermost `pypto.loop` iteration).
    UnitStart,
    /// `pypto.view(source, shape, offsets, valid_shape)` (shape and valid shape are the result's).
    View {
        source: TensorRef,
        offsets: Vec<usize>,
    },
    /// `source[index]` with ints and step-1 slices: the region read (ints keep an extent of 1).
    Index {
        source: TensorRef,
        offsets: Vec<usize>,
        extents: Vec<usize>,
    },
    /// Element-wise ops: unary, binary, clip, cast (the dtype is the result's).
    Unary {
        op: UnaryOp,
        x: TensorRef,
    },
    Binary {
        op: BinaryOp,
        lhs: Arg,
        rhs: Arg,
    },
    Clip {
        x: TensorRef,
        low: Option<f64>,
        high: Option<f64>,
    },
    Cast {
        x: TensorRef,
    },
    /// A reduction over `dims` (reference dims; `None` = all).
    Reduce {
        op: ReduceOp,
        x: TensorRef,
        dims: Option<Vec<i64>>,
    },
    /// `matmul(a, b, out_dtype, a_trans, b_trans)`.
    Matmul {
        a: TensorRef,
        b: TensorRef,
        a_transposed: bool,
        b_transposed: bool,
    },
    /// `softmax` / `log_softmax` over `dim`, expanded into max, exp, sum, div.
    Softmax {
        x: TensorRef,
        dim: i64,
        log: bool,
    },
    /// `pypto.assemble(tile, offsets, out)`.
    Assemble {
        tile: TensorRef,
        offsets: Vec<usize>,
        out: TensorRef,
    },
    /// `target[index] = value`: the region written.
    SetItem {
        target: TensorRef,
        offsets: Vec<usize>,
        extents: Vec<usize>,
        value: Arg,
    },
    /// `target op= …`: the next op's result becomes `target`.
    InPlace {
        target: TensorRef,
    },
    /// `reshape(x, shape)` (the shape is the result's).
    Reshape {
        x: TensorRef,
    },
    /// `transpose(x, dim0, dim1)`: dim `i` of the result is dim `order[i]` of `x`.
    Transpose {
        x: TensorRef,
        order: Vec<usize>,
    },
    /// `full`, `zeros`, `ones`, `pypto.tensor` (and the `_like` forms): every element is `value`.
    Fill {
        value: f64,
    },
    /// A value that does not depend on the kernel's inputs (`arange`): its elements are the
    /// result's; the kernel reads it from a GM tensor of its own, as a kernel argument.
    Constant {
        op: &'static str,
    },
    /// A selecting or structural vector op (`work_vector`) over its operands, in the op's order.
    Vector {
        op: VectorOp,
        args: Vec<Arg>,
    },
    /// `clip(x, min, max)` with a tensor bound (either bound may be a number or absent).
    ClipBounds {
        x: TensorRef,
        low: Option<Arg>,
        high: Option<Arg>,
    },
    /// `pypto.experimental.gather_in_ub`/`gather_in_l1`: rows `rows` of the 2-D `source` (the
    /// result's valid rows, in order), as many columns of each as the result has. The rows are
    /// the addresses the scalar unit computes from the indices and the block table (their values
    /// are known here).
    GatherRows {
        source: TensorRef,
        rows: Vec<usize>,
    },
    /// An op with no NPU form yet: what it was (an op name and how it was used).
    Unsupported {
        what: CompilerReason,
    },
}

impl CapturedOp {
    /// `op(lhs, rhs)` of script values (a tensor and a tensor or number).
    pub(crate) fn binary(op: BinaryOp, lhs: &Value, rhs: &Value) -> CapturedOp {
        match (Arg::of(lhs), Arg::of(rhs)) {
            (Some(lhs), Some(rhs)) => CapturedOp::Binary { op, lhs, rhs },
            _ => {
                let other = if Arg::of(lhs).is_none() { lhs } else { rhs };
                CapturedOp::Unsupported {
                    what: CompilerReason::OperandType { op: op.name().into(), type_name: other.type_name().into() },
                }
            }
        }
    }

    /// `source[specs]`: the region read, or unsupported for a step other than 1.
    pub(crate) fn index(source: &Tensor, specs: &[SliceSpec]) -> CapturedOp {
        match region(specs) {
            Some((offsets, extents)) => CapturedOp::Index { source: TensorRef::of(source), offsets, extents },
            None => CapturedOp::Unsupported { what: CompilerReason::IndexStep },
        }
    }

    /// `target[specs] = value`: the region written, or unsupported (a step, a value that is not a
    /// tile).
    pub(crate) fn set_item(target: &Tensor, specs: &[SliceSpec], value: &Value) -> CapturedOp {
        match (region(specs), Arg::of(value)) {
            (Some((offsets, extents)), Some(value)) => {
                CapturedOp::SetItem { target: TensorRef::of(target), offsets, extents, value }
            }
            (None, _) => CapturedOp::Unsupported { what: CompilerReason::WriteStep },
            (_, None) => {
                CapturedOp::Unsupported { what: CompilerReason::WriteValue { type_name: value.type_name().into() } }
            }
        }
    }

    /// Vector op `op` over script values (tensors or numbers), or unsupported for another value.
    pub(crate) fn vector(op: VectorOp, values: &[&Value]) -> CapturedOp {
        match values.iter().map(|value| Arg::of(value)).collect::<Option<Vec<Arg>>>() {
            Some(args) => CapturedOp::Vector { op, args },
            None => CapturedOp::Unsupported { what: CompilerReason::OperandNotTensor { op: op.name().into() } },
        }
    }

    /// `op` over `dims` of `x` (`None`: every dim).
    pub(crate) fn reduce(op: ReduceOp, x: &Tensor, dims: Option<Vec<isize>>) -> CapturedOp {
        let dims = dims.map(|dims| dims.into_iter().map(|dim| dim as i64).collect());
        CapturedOp::Reduce { op, x: TensorRef::of(x), dims }
    }

    /// `transpose(x, first, second)` (negative dims count from the end).
    pub(crate) fn transpose(x: &Tensor, first: i64, second: i64) -> CapturedOp {
        let rank = x.shape().len() as i64;
        let dim = |dim: i64| Some(if dim < 0 { dim + rank } else { dim }).filter(|dim| (0..rank).contains(dim));
        let (Some(first), Some(second)) = (dim(first), dim(second)) else {
            return CapturedOp::Unsupported { what: CompilerReason::TransposeDims };
        };
        let mut order: Vec<usize> = (0..rank as usize).collect();
        order.swap(first as usize, second as usize);
        CapturedOp::Transpose { x: TensorRef::of(x), order }
    }

    /// The op's name in messages.
    pub(crate) fn name(&self) -> String {
        match self {
            CapturedOp::UnitStart => "a loop iteration".into(),
            CapturedOp::View { .. } => "view".into(),
            CapturedOp::Index { .. } => "x[...]".into(),
            CapturedOp::Unary { op, .. } => op.name().into(),
            CapturedOp::Binary { op, .. } => op.name().into(),
            CapturedOp::Clip { .. } => "clip".into(),
            CapturedOp::Cast { .. } => "cast".into(),
            CapturedOp::Reduce { op, .. } => op.name().into(),
            CapturedOp::Matmul { .. } => "matmul".into(),
            CapturedOp::Softmax { log, .. } => if *log { "log_softmax" } else { "softmax" }.into(),
            CapturedOp::Assemble { .. } => "assemble".into(),
            CapturedOp::SetItem { .. } => "x[...] =".into(),
            CapturedOp::InPlace { .. } => "an in-place update".into(),
            CapturedOp::Reshape { .. } => "reshape".into(),
            CapturedOp::Transpose { .. } => "transpose".into(),
            CapturedOp::Fill { .. } => "full".into(),
            CapturedOp::Constant { op } => (*op).into(),
            CapturedOp::Vector { op, .. } => op.name().into(),
            CapturedOp::ClipBounds { .. } => "clip".into(),
            CapturedOp::GatherRows { .. } => "gather_in_ub".into(),
            CapturedOp::Unsupported { what } => what.english(),
        }
    }

    /// The tensors the op reads or writes (not its result).
    pub(crate) fn tensors(&self) -> Vec<&TensorRef> {
        fn arg(arg: &Arg) -> Option<&TensorRef> {
            match arg {
                Arg::Tensor(tensor) => Some(tensor),
                Arg::Number(_) => None,
            }
        }
        match self {
            CapturedOp::UnitStart
            | CapturedOp::Fill { .. }
            | CapturedOp::Constant { .. }
            | CapturedOp::Unsupported { .. } => Vec::new(),
            CapturedOp::View { source: x, .. }
            | CapturedOp::Index { source: x, .. }
            | CapturedOp::Unary { x, .. }
            | CapturedOp::Clip { x, .. }
            | CapturedOp::Cast { x }
            | CapturedOp::Reduce { x, .. }
            | CapturedOp::Softmax { x, .. }
            | CapturedOp::InPlace { target: x }
            | CapturedOp::Reshape { x }
            | CapturedOp::Transpose { x, .. }
            | CapturedOp::GatherRows { source: x, .. } => vec![x],
            CapturedOp::Binary { lhs, rhs, .. } => arg(lhs).into_iter().chain(arg(rhs)).collect(),
            CapturedOp::Matmul { a, b, .. } => vec![a, b],
            CapturedOp::Assemble { tile, out, .. } => vec![tile, out],
            CapturedOp::SetItem { target, value, .. } => std::iter::once(target).chain(arg(value)).collect(),
            CapturedOp::Vector { args, .. } => args.iter().filter_map(arg).collect(),
            CapturedOp::ClipBounds { x, low, high } => {
                std::iter::once(x).chain(low.iter().chain(high).filter_map(arg)).collect()
            }
        }
    }

    /// Whether the op computes (allocations, reshapes and marks do not).
    pub(crate) fn computes(&self) -> bool {
        !matches!(self, CapturedOp::UnitStart | CapturedOp::Fill { .. } | CapturedOp::Reshape { .. })
    }
}

/// The offsets and extents of step-1 slice specs.
fn region(specs: &[SliceSpec]) -> Option<(Vec<usize>, Vec<usize>)> {
    if specs.iter().any(|spec| spec.step != 1 && spec.count > 1) {
        return None;
    }
    Some((specs.iter().map(|spec| spec.start).collect(), specs.iter().map(|spec| spec.count).collect()))
}

/// One captured op with its result and the 1-based script line of its statement (in its cell).
#[derive(Clone)]
pub(crate) struct Captured {
    pub op: CapturedOp,
    /// The tensor it produced, if any.
    pub result: Option<TensorRef>,
    pub line: Option<u32>,
}

impl Captured {
    /// The mark that starts a unit of work.
    pub(crate) fn unit_start() -> Captured {
        Captured { op: CapturedOp::UnitStart, result: None, line: None }
    }
}

impl Interpreter {
    /// Whether a kernel is running (ops are captured only then).
    pub(crate) fn in_kernel(&self) -> bool {
        !self.npu.kernel_frames.borrow().is_empty()
    }

    /// Whether the running kernel made `tensor` as a view of another (`pypto.view`, `x[…]`).
    pub(crate) fn made_by_view(&self, tensor: &Tensor) -> bool {
        let key = identity(tensor);
        self.npu.kernel_frames.borrow().last().is_some_and(|frame| {
            frame.ops.iter().any(|captured| {
                matches!(captured.op, CapturedOp::View { .. } | CapturedOp::Index { .. })
                    && captured.result.as_ref().map(identity) == Some(key.clone())
            })
        })
    }

    /// How many ops the running kernel has captured (to see whether an op site captured one).
    pub(crate) fn captured_count(&self) -> usize {
        self.npu.kernel_frames.borrow().last().map_or(0, |frame| frame.ops.len())
    }

    /// Captures an op of the running kernel; `make` runs only inside a kernel.
    pub(crate) fn capture(&self, result: Option<&Value>, make: impl FnOnce() -> CapturedOp) {
        if !self.in_kernel() {
            return;
        }
        let result_value = result;
        let result = match result {
            Some(Value::Tensor(object)) => Some(TensorRef::of(object.get().tensor())),
            _ => None,
        };
        let statement = self.npu.kernel_frames.borrow().last().and_then(|frame| frame.statement);
        let line = statement.and_then(|span| self.line_of(span));
        let op = make();
        if let Some(frame) = self.npu.kernel_frames.borrow_mut().last_mut() {
            frame.ops.push(Captured { op, result, line });
            if let (Some(kept), Some(value @ Value::Tensor(_))) = (frame.kept_values.as_mut(), result_value) {
                kept.push(value.clone());
            }
        }
    }

    /// Runs `run` (an op called by `name`); inside a kernel, a tensor result that no op site
    /// captured is captured as `Unsupported`, so the NPU never runs a kernel with a missing op.
    pub(crate) fn captured_call(&self, name: &str, run: impl FnOnce() -> Result<Value>) -> Result<Value> {
        if !self.in_kernel() {
            return run();
        }
        let before = self.captured_count();
        let result = run()?;
        if let Value::Tensor(object) = &result {
            let key = identity(object.get().tensor());
            let frames = self.npu.kernel_frames.borrow();
            let made = frames.last().is_some_and(|frame| {
                frame
                    .ops
                    .get(before..)
                    .unwrap_or_default()
                    .iter()
                    .any(|op| op.result.as_ref().map(identity) == Some(key.clone()))
            });
            drop(frames);
            if !made {
                self.capture(Some(&result), || CapturedOp::Unsupported {
                    what: CompilerReason::Op { op: name.to_string() },
                });
            }
        }
        Ok(result)
    }
}
