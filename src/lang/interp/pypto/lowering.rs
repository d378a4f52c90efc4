//! What a kernel executed, recorded op by op (with the script line of each op) while it runs on
//! the CPU reference path; `work_jit` and `work_auto` turn the record into `TileWork`.

use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::tensor::Tensor;

/// One argument of a recorded op.
#[derive(Clone)]
pub(crate) enum Operand {
    /// A tensor (kept alive so its identity stays unique while the frame lives).
    Tensor(Tensor),
    /// Anything else: numbers, dims, flags, dtypes.
    Other(Value),
}

/// One tensor op executed inside a kernel.
#[derive(Clone)]
pub(crate) struct RecordedOp {
    /// The op's pypto name (`exp`, `add`, `matmul`, `setitem` …).
    pub name: String,
    /// Positional arguments, then keyword arguments with their names.
    pub operands: Vec<(Option<String>, Operand)>,
    /// The tensor it produced, if any.
    pub result: Option<Tensor>,
    /// The 1-based line of the script op (in its cell).
    pub line: Option<u32>,
}

/// The name of the marker op that starts a unit of work (an outermost `pypto.loop` iteration).
pub(crate) const UNIT_MARKER: &str = "@unit";

impl RecordedOp {
    /// The marker that starts a unit of work.
    pub(crate) fn unit_marker() -> RecordedOp {
        RecordedOp { name: UNIT_MARKER.to_string(), operands: Vec::new(), result: None, line: None }
    }
}

/// Identity of a tensor's data: the storage it owns and its shape (reshape aliases storage).
pub(crate) fn identity(tensor: &Tensor) -> (usize, Vec<usize>) {
    let storage = tensor.storage();
    (&*storage as *const _ as usize, tensor.shape().to_vec())
}

fn operand_of(value: &Value) -> Operand {
    match value {
        Value::Tensor(object) => Operand::Tensor(object.get().tensor().clone()),
        other => Operand::Other(other.clone()),
    }
}

impl Interpreter {
    /// Whether a kernel is running (ops are recorded only then).
    pub(crate) fn in_kernel(&self) -> bool {
        !self.npu.kernel_frames.borrow().is_empty()
    }

    /// The operands of a call, for `record_op`.
    pub(crate) fn operands_of(arguments: &Arguments) -> Vec<(Option<String>, Operand)> {
        let positional = arguments.positional.iter().map(|(value, _)| (None, operand_of(value)));
        positional
            .chain(arguments.keywords.iter().map(|(name, value, _)| (Some(name.clone()), operand_of(value))))
            .collect()
    }

    /// Records an op of the running kernel.
    pub(crate) fn record_op(&self, name: &str, operands: Vec<(Option<String>, Operand)>, result: Option<&Value>) {
        let result = match result {
            Some(Value::Tensor(object)) => Some(object.get().tensor().clone()),
            _ => None,
        };
        let statement = self.npu.kernel_frames.borrow().last().and_then(|frame| frame.statement);
        let line = statement.and_then(|span| self.line_of(span));
        if let Some(frame) = self.npu.kernel_frames.borrow_mut().last_mut() {
            frame.ops.push(RecordedOp { name: name.to_string(), operands, result, line });
        }
    }
}
