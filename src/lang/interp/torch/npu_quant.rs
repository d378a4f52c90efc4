//! torch_npu's fused quantisation ops, as model tests compute their goldens with them (GLM-4.5's
//! shared expert: dynamic quant → quant matmul → SwiGLU → dynamic quant → quant matmul), with the
//! formulas torch_npu documents:
//! - `npu_dynamic_quant(x, *, smooth_scales=None, group_index=None, dst_type=None)`: per-token
//!   symmetric quantisation to int8. Each row (the last dim) is multiplied by `smooth_scales` (one
//!   vector, or with `group_index` one vector per group of rows), then `scale = max|row| / 127`
//!   (float32, x's shape without its last dim) and `y = round(row / scale)` (ties to even) in int8.
//!   A row of zeros has scale 0 and quantises to zeros.
//! - `npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None, bias=None,
//!   output_dtype=None)`: int8 × int8 accumulated exactly in int32, then dequantised in float32:
//!   `(acc + bias_int32) · scale · pertoken_scale + offset + bias_float`, in `output_dtype` (int8
//!   by default: rounded to nearest even and saturated).
//! - `npu_quantize(input, scales, zero_points, dtype, axis=1, div_mode=True)`: static
//!   quantisation, `input / scales + zero_points` (`input · scales + zero_points` when `div_mode`
//!   is False) in float32 with `scales` and `zero_points` along `axis`, rounded to nearest even and
//!   saturated into `dtype` (`torch.qint8`, which is int8 here; `torch.quint8`; `torch.int32`).
//! - `npu_swiglu(input, dim=-1)`: `silu(A) · B` of the two halves along `dim`, computed in float32
//!   and rounded once into the input's dtype.
//!
//! int4 (`torch.quint4x2`, int32-packed operands) and int64 scales from `npu_trans_quant_param`
//! are refused with an error that names what the op takes here.

use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryTorchMessage, RuntimeMessage};
use crate::tensor::{BinaryOp, DType, Tensor, UnaryOp};

/// The functions of this file.
pub(crate) const FUNCTIONS: [&str; 4] =
    ["torch_npu.npu_dynamic_quant", "torch_npu.npu_quant_matmul", "torch_npu.npu_swiglu", "torch_npu.npu_quantize"];

/// The largest int8 magnitude of a symmetric quantisation.
const INT8_MAX: f32 = 127.0;

/// Calls one of `FUNCTIONS`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match name {
        "torch_npu.npu_dynamic_quant" => dynamic_quant(interpreter, name, arguments, span),
        "torch_npu.npu_quant_matmul" => quant_matmul(interpreter, name, arguments, span),
        "torch_npu.npu_quantize" => quantize(interpreter, name, arguments, span),
        _ => swiglu(interpreter, name, arguments, span),
    }
}

/// The torch name of a dtype as torch prints it (`torch.int8`).
fn torch_dtype(dtype: DType) -> String {
    format!("torch.{}", dtype.torch_name())
}

/// `dtypes` as printed in a message (`torch.float16 | torch.bfloat16`).
fn listed(dtypes: &[DType]) -> String {
    dtypes.iter().map(|dtype| torch_dtype(*dtype)).collect::<Vec<_>>().join(" | ")
}

/// The error of a keyword-only parameter passed by position: torch_npu's schemas take only the
/// first `count` arguments positionally.
fn positional_limit(interpreter: &Interpreter, name: &str, arguments: &Arguments, count: usize) -> Result<()> {
    match arguments.positional.get(count) {
        Some((_, at)) => {
            let message = RuntimeMessage::AtMostPositional { function: name.to_string(), count };
            Err(interpreter.error(ErrorKind::Type, "", *at).with_message(message))
        }
        None => Ok(()),
    }
}

/// A dtype error at `at`.
fn wrong_dtype(
    interpreter: &Interpreter,
    name: &str,
    parameter: &str,
    got: DType,
    takes: &[DType],
    at: Span,
) -> Result<()> {
    if takes.contains(&got) {
        return Ok(());
    }
    let message = LibraryTorchMessage::NpuDtype {
        function: name.to_string(),
        parameter: parameter.to_string(),
        dtype: torch_dtype(got),
        expected: listed(takes),
    };
    Err(interpreter.error(ErrorKind::Type, "", at).with_message(message))
}

/// A shape error at `at` unless `shape` is one of `takes`.
fn wrong_shape(
    interpreter: &Interpreter,
    name: &str,
    parameter: &str,
    shape: &[usize],
    takes: &[Vec<usize>],
    at: Span,
) -> Result<()> {
    if takes.iter().any(|taken| taken.as_slice() == shape) {
        return Ok(());
    }
    let expected = takes.iter().map(|taken| format!("{taken:?}")).collect::<Vec<_>>().join(" | ");
    let message = LibraryTorchMessage::NpuShape {
        function: name.to_string(),
        parameter: parameter.to_string(),
        shape: shape.to_vec(),
        expected,
    };
    Err(interpreter.error(ErrorKind::Value, "", at).with_message(message))
}

/// A rank error at `at` unless `shape` has at least `least` dims.
fn too_few_dims(
    interpreter: &Interpreter,
    name: &str,
    parameter: &str,
    shape: &[usize],
    least: usize,
    at: Span,
) -> Result<()> {
    if shape.len() >= least {
        return Ok(());
    }
    let message = LibraryTorchMessage::NpuRank {
        function: name.to_string(),
        parameter: parameter.to_string(),
        shape: shape.to_vec(),
        least,
    };
    Err(interpreter.error(ErrorKind::Value, "", at).with_message(message))
}

/// `torch_npu.npu_dynamic_quant`: returns `(y, scale)`.
fn dynamic_quant(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    positional_limit(interpreter, name, &arguments, 1)?;
    let bound = interpreter.bind(name, &["x", "smooth_scales", "group_index", "dst_type"], arguments, false, span)?;
    let x = bound.tensor(0)?;
    let halves = [DType::F16, DType::Bf16];
    wrong_dtype(interpreter, name, "x", x.dtype(), &halves, bound.span_of(0))?;
    too_few_dims(interpreter, name, "x", x.shape(), 2, bound.span_of(0))?;
    let columns = *x.shape().last().unwrap_or(&1);
    let rows = x.shape().iter().rev().skip(1).product::<usize>();
    if let Some(Value::DType(dtype, _)) = bound.optional(3) {
        wrong_dtype(interpreter, name, "dst_type", *dtype, &[DType::I8], bound.span_of(3))?;
    } else if bound.optional(3).is_some() {
        bound.dtype(3, DType::I8)?;
    }
    // The smooth vector of each row: none, one for every row, or one per group of rows.
    let mut smooth_of_row: Vec<usize> = vec![0; rows];
    let smooth = match bound.optional(1) {
        None => None,
        Some(_) => {
            let smooth = bound.tensor(1)?;
            wrong_dtype(interpreter, name, "smooth_scales", smooth.dtype(), &[x.dtype()], bound.span_of(1))?;
            match bound.optional(2) {
                None => {
                    wrong_shape(interpreter, name, "smooth_scales", smooth.shape(), &[vec![columns]], bound.span_of(1))?
                }
                Some(_) => {
                    let group_index = bound.tensor(2)?;
                    wrong_dtype(
                        interpreter,
                        name,
                        "group_index",
                        group_index.dtype(),
                        &[DType::I32],
                        bound.span_of(2),
                    )?;
                    let groups = group_index.tensor().numel();
                    wrong_shape(
                        interpreter,
                        name,
                        "group_index",
                        group_index.shape(),
                        &[vec![groups]],
                        bound.span_of(2),
                    )?;
                    let takes = vec![groups, columns];
                    wrong_shape(interpreter, name, "smooth_scales", smooth.shape(), &[takes], bound.span_of(1))?;
                    let ends = group_index.tensor().storage().to_i64_vec();
                    let ordered = ends.windows(2).all(|pair| pair[0] <= pair[1]);
                    if !ordered || ends.first().is_some_and(|&end| end < 0) || ends.last() != Some(&(rows as i64)) {
                        let message =
                            LibraryTorchMessage::GroupIndex { function: name.to_string(), rows, values: ends };
                        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(2)).with_message(message));
                    }
                    let mut start = 0;
                    for (group, &end) in ends.iter().enumerate() {
                        smooth_of_row[start..end as usize].iter_mut().for_each(|row| *row = group);
                        start = end as usize;
                    }
                }
            }
            Some(smooth.tensor().to_f32_vec())
        }
    };
    let values = x.tensor().to_f32_vec();
    let mut quantized = Vec::with_capacity(values.len());
    let mut scales = Vec::with_capacity(rows);
    for (row, chunk) in values.chunks(columns.max(1)).enumerate().take(rows) {
        let smoothed: Vec<f32> = match &smooth {
            Some(vectors) => {
                let vector = &vectors[smooth_of_row[row] * columns..][..columns];
                chunk.iter().zip(vector).map(|(value, factor)| value * factor).collect()
            }
            None => chunk.to_vec(),
        };
        let largest = smoothed.iter().fold(0.0f32, |most, value| most.max(value.abs()));
        let scale = largest / INT8_MAX;
        scales.push(scale);
        quantized.extend(smoothed.iter().map(|value| {
            if scale == 0.0 {
                0
            } else {
                (value / scale).round_ties_even().clamp(-128.0, INT8_MAX) as i64
            }
        }));
    }
    let fail = |error| interpreter.tensor_error(error, span);
    let y = Tensor::from_storage(crate::tensor::Storage::from_i64(quantized, DType::I8), x.shape()).map_err(fail)?;
    let scale = Tensor::from_f32(scales, &x.shape()[..x.shape().len() - 1], DType::F32).map_err(fail)?;
    Ok(Value::tuple(vec![TensorObject::value(Var::constant(y)), TensorObject::value(Var::constant(scale))]))
}

/// `torch_npu.npu_quant_matmul`.
fn quant_matmul(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    positional_limit(interpreter, name, &arguments, 3)?;
    let names = ["x1", "x2", "scale", "offset", "pertoken_scale", "bias", "output_dtype"];
    let bound = interpreter.bind(name, &names, arguments, false, span)?;
    let (x1, x2, scale) = (bound.tensor(0)?, bound.tensor(1)?, bound.tensor(2)?);
    for (index, operand) in [(0, &x1), (1, &x2)] {
        wrong_dtype(interpreter, name, names[index], operand.dtype(), &[DType::I8], bound.span_of(index))?;
        too_few_dims(interpreter, name, names[index], operand.shape(), 2, bound.span_of(index))?;
    }
    let output = bound.dtype(6, DType::I8)?;
    wrong_dtype(interpreter, name, "output_dtype", output, &[DType::I8, DType::F16, DType::Bf16], bound.span_of(6))?;
    let m = x1.shape()[x1.shape().len() - 2];
    let n = x2.shape()[x2.shape().len() - 1];
    wrong_dtype(interpreter, name, "scale", scale.dtype(), &[DType::F32, DType::Bf16], bound.span_of(2))?;
    wrong_shape(interpreter, name, "scale", scale.shape(), &[vec![n], vec![1]], bound.span_of(2))?;
    let fail = |error| interpreter.tensor_error(error, span);
    // int8 × int8 summed exactly in int32, as the cube accumulates.
    let mut accumulated = x1.tensor().matmul(x2.tensor(), false, false, Some(DType::I32)).map_err(fail)?;
    let bias = match bound.optional(5) {
        Some(_) => Some(bound.tensor(5)?),
        None => None,
    };
    if let Some(bias) = &bias {
        wrong_dtype(
            interpreter,
            name,
            "bias",
            bias.dtype(),
            &[DType::I32, DType::Bf16, DType::F16, DType::F32],
            bound.span_of(5),
        )?;
        let batch = accumulated.shape().iter().rev().skip(2).product::<usize>();
        wrong_shape(interpreter, name, "bias", bias.shape(), &[vec![n], vec![batch, 1, n]], bound.span_of(5))?;
        if bias.dtype() == DType::I32 {
            accumulated = accumulated.binary(BinaryOp::Add, bias.tensor()).map_err(fail)?;
        }
    }
    // Dequantised in float32: the scale per column, the per-token scale per row.
    let mut out = accumulated.cast(DType::F32).map_err(fail)?;
    out = out.binary(BinaryOp::Mul, &scale.tensor().cast(DType::F32).map_err(fail)?).map_err(fail)?;
    if bound.optional(4).is_some() {
        let pertoken = bound.tensor(4)?;
        wrong_dtype(interpreter, name, "pertoken_scale", pertoken.dtype(), &[DType::F32], bound.span_of(4))?;
        wrong_shape(interpreter, name, "pertoken_scale", pertoken.shape(), &[vec![m]], bound.span_of(4))?;
        let column = pertoken.tensor().reshape(&[m, 1]).map_err(fail)?;
        out = out.binary(BinaryOp::Mul, &column).map_err(fail)?;
    }
    if bound.optional(3).is_some() {
        let offset = bound.tensor(3)?;
        wrong_dtype(interpreter, name, "offset", offset.dtype(), &[DType::F32], bound.span_of(3))?;
        wrong_shape(interpreter, name, "offset", offset.shape(), &[vec![n], vec![1]], bound.span_of(3))?;
        out = out.binary(BinaryOp::Add, offset.tensor()).map_err(fail)?;
    }
    if let Some(bias) = bias.filter(|bias| bias.dtype() != DType::I32) {
        out = out.binary(BinaryOp::Add, &bias.tensor().cast(DType::F32).map_err(fail)?).map_err(fail)?;
    }
    if output == DType::I8 {
        // An int8 result rounds to nearest even and saturates (a cast alone would truncate).
        out = out.unary(UnaryOp::Round).and_then(|rounded| rounded.clip(Some(-128.0), Some(127.0))).map_err(fail)?;
    }
    let result = out.cast(output).map_err(fail)?;
    Ok(TensorObject::value(Var::constant(result)))
}

/// `torch_npu.npu_quantize`.
fn quantize(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let names = ["input", "scales", "zero_points", "dtype", "axis", "div_mode"];
    let bound = interpreter.bind(name, &names, arguments, false, span)?;
    let (input, scales) = (bound.tensor(0)?, bound.tensor(1)?);
    let floats = [DType::F32, DType::F16, DType::Bf16];
    wrong_dtype(interpreter, name, "input", input.dtype(), &floats, bound.span_of(0))?;
    wrong_dtype(interpreter, name, "scales", scales.dtype(), &floats, bound.span_of(1))?;
    let dtype = bound.dtype(3, DType::I8)?;
    bound.required(3)?;
    let divide = bound.flag(5, true)?;
    let takes: &[DType] = if divide { &[DType::I8, DType::U8, DType::I32] } else { &[DType::I8] };
    wrong_dtype(interpreter, name, "dtype", dtype, takes, bound.span_of(3))?;
    let rank = input.shape().len();
    let axis = bound.int(4, Some(1))?;
    let axis = if axis < 0 { axis + rank as i64 } else { axis };
    if !(0..rank as i64).contains(&axis) {
        too_few_dims(interpreter, name, "input", input.shape(), axis.unsigned_abs() as usize + 1, bound.span_of(0))?;
    }
    let fail = |error| interpreter.tensor_error(error, span);
    // A vector of factors lies along `axis`; factors of the input's rank broadcast as they are.
    let along_axis = |factors: &Var| -> Result<Tensor> {
        let wide = factors.tensor().cast(DType::F32).map_err(fail)?;
        if factors.shape().len() != 1 || rank == 0 {
            return Ok(wide);
        }
        let mut shape = vec![1; rank];
        shape[axis as usize] = factors.shape()[0];
        wide.reshape(&shape).map_err(fail)
    };
    let wide = input.tensor().cast(DType::F32).map_err(fail)?;
    let op = if divide { BinaryOp::Div } else { BinaryOp::Mul };
    let mut out = wide.binary(op, &along_axis(&scales)?).map_err(fail)?;
    if bound.optional(2).is_some() {
        out = out.binary(BinaryOp::Add, &along_axis(&bound.tensor(2)?)?).map_err(fail)?;
    }
    let (low, high) = dtype.integer_range().unwrap_or((-128, 127));
    let result = out
        .unary(UnaryOp::Round)
        .and_then(|rounded| rounded.clip(Some(low as f64), Some(high as f64)))
        .and_then(|saturated| saturated.cast(dtype))
        .map_err(fail)?;
    Ok(TensorObject::value(Var::constant(result)))
}

/// `torch_npu.npu_swiglu`.
fn swiglu(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(name, &["input", "dim"], arguments, false, span)?;
    let input = bound.tensor(0)?;
    wrong_dtype(interpreter, name, "input", input.dtype(), &[DType::F32, DType::F16, DType::Bf16], bound.span_of(0))?;
    let rank = input.shape().len();
    let dim = bound.int(1, Some(-1))?;
    let axis = super::golden_functions::axis(interpreter, name, dim, rank, bound.span_of(1))?;
    let size = input.shape()[axis];
    if size % 2 != 0 {
        let message = LibraryTorchMessage::SwigluOdd { function: name.to_string(), dim, size };
        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(0)).with_message(message));
    }
    let fail = |error| interpreter.tensor_error(error, span);
    let wide = input.tensor().cast(DType::F32).map_err(fail)?;
    let half = |start: usize| {
        let mut specs: Vec<crate::tensor::SliceSpec> =
            input.shape().iter().map(|&extent| crate::tensor::SliceSpec::full(extent)).collect();
        specs[axis] = crate::tensor::SliceSpec { start, step: 1, count: size / 2 };
        wide.slice(&specs)
    };
    let (gate, up) = (half(0).map_err(fail)?, half(size / 2).map_err(fail)?);
    let result = gate
        .unary(UnaryOp::Silu)
        .and_then(|activated| activated.binary(BinaryOp::Mul, &up))
        .and_then(|product| product.cast(input.dtype()))
        .map_err(fail)?;
    Ok(TensorObject::value(Var::constant(result)))
}
