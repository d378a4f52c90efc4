//! What a kernel executed, recorded op by op, and its lowering to a simulator `KernelPlan`: an
//! element-wise chain, a row reduction or a 2-D matmul. Anything else is refused by name, so a
//! schedule is never built from a kernel it does not describe.

use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::npu::NpuConfig;
use crate::tensor::{BinaryOp, DType, ReduceOp, Tensor, UnaryOp};
use crate::tile::{elementwise_chain, row_reduction, tiled_matmul, ChainStep, CubeTiles, GmTensor, KernelPlan, MatmulBuffers, TileError};

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
}

/// Identity of a tensor's data: the storage it owns and its shape (reshape aliases storage).
fn identity(tensor: &Tensor) -> (usize, Vec<usize>) {
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
        !self.kernel_frames.borrow().is_empty()
    }

    /// The operands of a call, for `record_op`.
    pub(crate) fn operands_of(arguments: &Arguments) -> Vec<(Option<String>, Operand)> {
        let positional = arguments.positional.iter().map(|(value, _)| (None, operand_of(value)));
        positional.chain(arguments.keywords.iter().map(|(name, value, _)| (Some(name.clone()), operand_of(value)))).collect()
    }

    /// Records an op of the running kernel.
    pub(crate) fn record_op(&self, name: &str, operands: Vec<(Option<String>, Operand)>, result: Option<&Value>) {
        let result = match result {
            Some(Value::Tensor(object)) => Some(object.get().tensor().clone()),
            _ => None,
        };
        if let Some(frame) = self.kernel_frames.borrow_mut().last_mut() {
            frame.ops.push(RecordedOp { name: name.to_string(), operands, result });
        }
    }
}

/// Why a kernel cannot be lowered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LoweringError {
    /// An op (or a use of it) the lowering does not know yet.
    Unsupported(String),
    /// The tile program builder refused the plan.
    Tile(TileError),
}

/// The tile settings of a kernel run.
pub(crate) struct TileSettings {
    /// `set_vec_tile_shapes` dims, if set.
    pub vec: Option<Vec<usize>>,
    /// `set_cube_tile_shapes`, if set.
    pub cube: Option<[[usize; 2]; 3]>,
}

fn unsupported(message: String) -> LoweringError {
    LoweringError::Unsupported(message)
}


fn binary(name: &str) -> Option<(BinaryOp, bool)> {
    Some(match name {
        "add" => (BinaryOp::Add, true),
        "sub" => (BinaryOp::Sub, false),
        "mul" => (BinaryOp::Mul, true),
        "div" => (BinaryOp::Div, false),
        "pow" => (BinaryOp::Pow, false),
        "maximum" => (BinaryOp::Maximum, true),
        "minimum" => (BinaryOp::Minimum, true),
        _ => return None,
    })
}

fn reduction(name: &str) -> Option<ReduceOp> {
    Some(match name {
        "sum" => ReduceOp::Sum,
        "mean" => ReduceOp::Mean,
        "amax" => ReduceOp::Amax,
        "amin" => ReduceOp::Amin,
        "var" => ReduceOp::Var,
        _ => return None,
    })
}

/// A tensor's 2-D view for the tile patterns: 1-D `[n]` is one row `[1, n]`.
fn as_2d(shape: &[usize]) -> Option<[usize; 2]> {
    match shape {
        [columns] => Some([1, *columns]),
        [rows, columns] => Some([*rows, *columns]),
        _ => None,
    }
}

/// The vec tile for a 2-D tensor: the kernel's `set_vec_tile_shapes`, or 8 rows × 64 columns.
fn vec_tile(settings: &TileSettings, shape: [usize; 2], rank: usize) -> Result<[usize; 2], LoweringError> {
    match settings.vec.as_deref() {
        None => Ok([shape[0].min(8), 64]),
        Some([columns]) if rank == 1 => Ok([1, *columns]),
        Some([rows, columns]) => Ok([*rows, *columns]),
        Some(dims) => Err(unsupported(format!("pypto.schedule cannot lower a {}-D vec tile {dims:?} over a {rank}-D tensor yet", dims.len()))),
    }
}

/// Lowers the ops a kernel executed on `inputs` (its tensor arguments, in order), which returned
/// `output`, to a plan for `config`.
pub(crate) fn lower(ops: &[RecordedOp], inputs: &[Tensor], output: &Tensor, settings: &TileSettings, config: &NpuConfig, line: Option<u32>) -> Result<KernelPlan, LoweringError> {
    let Some(last) = ops.last() else {
        return Err(unsupported("pypto.schedule: the kernel executed no tensor op it can lower (indexing and `.T` cannot be lowered yet)".into()));
    };
    if let Some(op) = ops.iter().find(|op| UnaryOp::from_name(&op.name).is_none() && binary(&op.name).is_none() && reduction(&op.name).is_none() && op.name != "matmul") {
        return Err(unsupported(format!("pypto.schedule cannot lower `{}` yet", op.name)));
    }
    if last.result.as_ref().map(identity) != Some(identity(output)) {
        return Err(unsupported("pypto.schedule lowers kernels that return the result of their last op".into()));
    }
    let input_index = |tensor: &Tensor| inputs.iter().position(|input| identity(input) == identity(tensor));
    let gm = |tensor: &Tensor, name: String| GmTensor { name, shape: as_2d(tensor.shape()).map_or_else(|| tensor.shape().to_vec(), |shape| shape.to_vec()), dtype: tensor.dtype() };
    let tensors = |op: &RecordedOp| -> Vec<Tensor> { op.operands.iter().filter_map(|(_, operand)| if let Operand::Tensor(tensor) = operand { Some(tensor.clone()) } else { None }).collect() };
    if ops.len() == 1 && (op_is(last, "matmul") || reduction(&last.name).is_some()) {
        let operands = tensors(last);
        if let Some(position) = operands.iter().position(|tensor| input_index(tensor).is_none()) {
            return Err(unsupported(format!("pypto.schedule cannot lower `{}` of a tensor the kernel made itself (operand {position}) yet", last.name)));
        }
        if last.name == "matmul" {
            return lower_matmul(last, &operands, output, settings, config, line);
        }
        return lower_reduction(last, &operands, output, settings, config, line);
    }
    if let Some(op) = ops.iter().find(|op| op.name == "matmul" || reduction(&op.name).is_some()) {
        return Err(unsupported(format!("pypto.schedule cannot lower `{}` combined with other ops yet", op.name)));
    }
    lower_chain(ops, inputs, output, settings, config, line, &gm)
}

fn op_is(op: &RecordedOp, name: &str) -> bool {
    op.name == name
}

/// Every non-tensor argument is absent, `None` or `False` (no transposes, default options).
fn plain_extras(op: &RecordedOp, allowed: &[&str]) -> bool {
    op.operands.iter().all(|(name, operand)| match operand {
        Operand::Tensor(_) => true,
        Operand::Other(value) => matches!(value, Value::None | Value::Bool(false)) || name.as_deref().is_some_and(|name| allowed.contains(&name)),
    })
}

fn lower_matmul(op: &RecordedOp, operands: &[Tensor], output: &Tensor, settings: &TileSettings, config: &NpuConfig, line: Option<u32>) -> Result<KernelPlan, LoweringError> {
    let two_d = operands.len() == 2 && operands.iter().all(|tensor| tensor.shape().len() == 2);
    if !two_d || !plain_extras(op, &["out_dtype"]) || op.operands.iter().any(|(name, operand)| name.is_none() && matches!(operand, Operand::Other(Value::DType(_)))) {
        return Err(unsupported("pypto.schedule lowers `matmul` of two 2-D tensors without transposes for now".into()));
    }
    let [m, k, n] = settings.cube.unwrap_or([[32, 64], [32, 64], [32, 64]]);
    let a = GmTensor { name: "a".into(), shape: operands[0].shape().to_vec(), dtype: operands[0].dtype() };
    let b = GmTensor { name: "b".into(), shape: operands[1].shape().to_vec(), dtype: operands[1].dtype() };
    let buffers = MatmulBuffers { l1: 2, l0: 2, l0c: 1 };
    tiled_matmul(&a, &b, output.dtype(), CubeTiles { m, k, n }, buffers, config.cube_cores as usize, line).map_err(LoweringError::Tile)
}

fn lower_reduction(op: &RecordedOp, operands: &[Tensor], output: &Tensor, settings: &TileSettings, config: &NpuConfig, line: Option<u32>) -> Result<KernelPlan, LoweringError> {
    let (Some(reduce), [input]) = (reduction(&op.name), operands) else {
        return Err(unsupported(format!("pypto.schedule lowers `{}` of one tensor for now", op.name)));
    };
    let Some(shape) = as_2d(input.shape()) else {
        return Err(unsupported(format!("pypto.schedule lowers `{}` over 1-D and 2-D tensors for now", op.name)));
    };
    // A row reduction leaves one value per row: [R] or [R, 1] from [R, C] (a scalar from a 1-D input).
    let rows = output.shape().iter().product::<usize>();
    let per_row = rows == shape[0] && output.shape().len() <= input.shape().len() && input.shape().len() == 2 || input.shape().len() == 1 && rows == 1;
    if !per_row || !plain_extras(op, &["dim", "keepdim"]) {
        return Err(unsupported(format!("pypto.schedule lowers `{}` over the last dim only for now", op.name)));
    }
    let tile = vec_tile(settings, shape, input.shape().len())?;
    let source = GmTensor { name: "x".into(), shape: shape.to_vec(), dtype: input.dtype() };
    row_reduction(&source, reduce, tile, config.vector_cores as usize, 2, line).map_err(LoweringError::Tile)
}

fn lower_chain(ops: &[RecordedOp], inputs: &[Tensor], output: &Tensor, settings: &TileSettings, config: &NpuConfig, line: Option<u32>, gm: &dyn Fn(&Tensor, String) -> GmTensor) -> Result<KernelPlan, LoweringError> {
    let shape = output.shape().to_vec();
    let Some(shape_2d) = as_2d(&shape) else {
        return Err(unsupported(format!("pypto.schedule lowers element-wise kernels over 1-D and 2-D tensors for now, not {}-D", shape.len())));
    };
    let input_index = |tensor: &Tensor| inputs.iter().position(|input| identity(input) == identity(tensor));
    // GM inputs in the order the chain first reads them; the running value starts as gm[0].
    let mut gm_inputs: Vec<usize> = Vec::new();
    let slot = |argument: usize, gm_inputs: &mut Vec<usize>| match gm_inputs.iter().position(|known| *known == argument) {
        Some(index) => index,
        None => {
            gm_inputs.push(argument);
            gm_inputs.len() - 1
        }
    };
    let mut steps = Vec::new();
    let mut running: Option<(usize, Vec<usize>)> = None;
    for op in ops {
        let mut tensors = Vec::new();
        for (_, operand) in &op.operands {
            match operand {
                Operand::Tensor(tensor) => tensors.push(tensor.clone()),
                Operand::Other(Value::None) | Operand::Other(Value::Str(_)) => {}
                Operand::Other(_) => return Err(unsupported(format!("pypto.schedule cannot lower `{}` with a number operand yet", op.name))),
            }
        }
        if let Some(tensor) = tensors.iter().find(|tensor| tensor.shape() != shape.as_slice()) {
            return Err(unsupported(format!("pypto.schedule cannot lower `{}` with broadcasting ({:?} against {:?}) yet", op.name, tensor.shape(), shape)));
        }
        let is_running = |tensor: &Tensor| running.as_ref() == Some(&identity(tensor));
        let argument = |tensor: &Tensor, gm_inputs: &mut Vec<usize>| match input_index(tensor) {
            Some(index) => Ok(slot(index, gm_inputs)),
            None => Err(unsupported(format!("pypto.schedule lowers straight element-wise chains for now: `{}` reads a tensor that is neither a kernel input nor the previous op's result (indexing, `.T` and reused intermediates cannot be lowered yet)", op.name))),
        };
        let step = match (UnaryOp::from_name(&op.name), binary(&op.name), tensors.as_slice()) {
            (Some(unary), _, [x]) => {
                // `gelu(x, approximate="tanh")` is the tanh form, as in the reference path.
                let tanh_form = op.operands.iter().any(|(_, operand)| matches!(operand, Operand::Other(Value::Str(mode)) if mode.as_ref() == "tanh"));
                let unary = if unary == UnaryOp::GeluErf && tanh_form { UnaryOp::GeluTanh } else { unary };
                if running.is_none() {
                    argument(x, &mut gm_inputs)?;
                } else if !is_running(x) {
                    return Err(unsupported(format!("pypto.schedule lowers straight element-wise chains for now: `{}` does not read the previous op's result", op.name)));
                }
                ChainStep::Unary(unary)
            }
            (_, Some((binary, commutative)), [lhs, rhs]) => {
                if running.is_none() {
                    argument(lhs, &mut gm_inputs)?;
                    ChainStep::Binary(binary, argument(rhs, &mut gm_inputs)?)
                } else if is_running(lhs) {
                    ChainStep::Binary(binary, argument(rhs, &mut gm_inputs)?)
                } else if is_running(rhs) && commutative {
                    ChainStep::Binary(binary, argument(lhs, &mut gm_inputs)?)
                } else {
                    return Err(unsupported(format!("pypto.schedule lowers straight element-wise chains for now: `{}` must take the previous op's result as its first operand", op.name)));
                }
            }
            _ => return Err(unsupported(format!("pypto.schedule cannot lower `{}` with {} tensor operands yet", op.name, tensors.len()))),
        };
        steps.push(step);
        running = op.result.as_ref().map(identity);
    }
    let gm_tensors: Vec<GmTensor> = gm_inputs.iter().map(|&index| gm(&inputs[index], format!("in{index}"))).collect();
    let tile = vec_tile(settings, shape_2d, shape.len())?;
    let output_dtype: DType = output.dtype();
    elementwise_chain(&gm_tensors, &steps, output_dtype, tile, config.vector_cores as usize, 2, line).map_err(LoweringError::Tile)
}
