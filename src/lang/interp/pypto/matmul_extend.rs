//! `pypto.matmul(…, extend_params={…})`: what the cube's output path adds to a product. pypto
//! documents `bias_tensor` (a `[1, N]` row added to every row, in the f32 accumulator), `scale` (a
//! per-tensor dequantisation factor), `scale_tensor`, `relu_type` and `trans_mode`. `bias_tensor`,
//! `relu_type` and `scale` are modelled as the ops they amount to — the product accumulated in f32,
//! then `+ bias`, ReLU, `· scale` (pypto's `DEQF16(ReLU(A @ B)) * scale`), then the cast to
//! `out_dtype` — each captured like any op, so a kernel runs them on the NPU. The others (integer
//! quantisation with a packed `scale_tensor`, TF32 rounding) are an error that says so.

use super::super::error::{ErrorKind, Result};
use super::super::eval::Arguments;
use super::super::format::to_str;
use super::super::interpreter::Interpreter;
use super::super::value::{DTypeFamily, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTensorMessage};
use crate::tensor::DType;

/// The function whose options these are, as messages name it.
const FUNCTION: &str = "pypto.matmul";

/// The modelled entries of `extend_params`.
#[derive(Default)]
pub(crate) struct ExtendParams {
    bias: Option<(Value, Span)>,
    relu: bool,
    scale: Option<(Value, Span)>,
}

impl ExtendParams {
    /// Reads the dict (`None`: nothing to add).
    pub(crate) fn read(interpreter: &Interpreter, given: Option<&Value>, span: Span) -> Result<ExtendParams> {
        let mut params = ExtendParams::default();
        let entries = match given {
            None | Some(Value::None) => return Ok(params),
            Some(Value::Dict(entries)) => entries.borrow().clone(),
            Some(other) => {
                let message = LibraryMessage::ArgumentType {
                    function: FUNCTION.to_string(),
                    parameter: "extend_params".to_string(),
                    expected: Kind::Dict,
                    got: other.type_name().to_string(),
                };
                return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
            }
        };
        for (key, value) in entries {
            match to_str(&key).as_str() {
                "bias_tensor" => params.bias = Some((value, span)),
                "scale" => params.scale = Some((value, span)),
                "relu_type" => params.relu = relu_type(interpreter, &value, span)?,
                other => {
                    let message = LibraryTensorMessage::ExtendParamNotModelled {
                        function: FUNCTION.to_string(),
                        key: other.to_string(),
                    };
                    return Err(interpreter
                        .error(ErrorKind::Unsupported, "", span)
                        .with_message(message)
                        .with_help_message(LibraryTensorMessage::ExtendParams));
                }
            }
        }
        Ok(params)
    }

    /// Whether the product needs anything after it.
    pub(crate) fn is_empty(&self) -> bool {
        self.bias.is_none() && !self.relu && self.scale.is_none()
    }

    /// The f32 product with the bias added and the scale applied, cast to `out_dtype`.
    pub(crate) fn apply(
        &self,
        interpreter: &Interpreter,
        product: Value,
        out_dtype: Option<DType>,
        span: Span,
    ) -> Result<Value> {
        let op = |name: &str, positional: Vec<(Value, Span)>| {
            super::call(interpreter, name, Arguments { positional, keywords: Vec::new() }, span)
        };
        let mut result = product;
        if let Some((bias, bias_span)) = &self.bias {
            if let Value::Tensor(tensor) = bias {
                let columns = tensor.get().shape().last().copied();
                let result_columns = match &result {
                    Value::Tensor(product) => product.get().shape().last().copied(),
                    _ => None,
                };
                if columns != result_columns {
                    let message = LibraryTensorMessage::BiasColumns {
                        function: FUNCTION.to_string(),
                        columns: columns.unwrap_or(0),
                        product: result_columns.unwrap_or(0),
                    };
                    return Err(interpreter
                        .error(ErrorKind::Value, "", *bias_span)
                        .with_message(message)
                        .with_help_message(LibraryTensorMessage::BiasRow));
                }
            }
            result = op("pypto.add", vec![(result, span), (bias.clone(), *bias_span)])?;
        }
        if self.relu {
            result = op("pypto.relu", vec![(result, span)])?;
        }
        if let Some((scale, scale_span)) = &self.scale {
            result = op("pypto.mul", vec![(result, span), (scale.clone(), *scale_span)])?;
        }
        match out_dtype {
            Some(dtype) if dtype != DType::F32 => {
                op("pypto.cast", vec![(result, span), (Value::DType(dtype, DTypeFamily::Pypto), span)])
            }
            _ => Ok(result),
        }
    }
}

/// `relu_type`: whether it is `pypto.ReLuType.RELU` (`NO_RELU` or `None`: no ReLU).
fn relu_type(interpreter: &Interpreter, value: &Value, span: Span) -> Result<bool> {
    if matches!(value, Value::None) {
        return Ok(false);
    }
    match super::copies::enum_member_name(value, "ReLuType") {
        Some(member) => Ok(member == "RELU"),
        None => Err(interpreter.error(ErrorKind::Type, "", span).with_message(LibraryMessage::ArgumentType {
            function: FUNCTION.to_string(),
            parameter: "extend_params['relu_type']".to_string(),
            expected: Kind::Enumeration { name: "ReLuType".to_string() },
            got: value.type_name().to_string(),
        })),
    }
}
