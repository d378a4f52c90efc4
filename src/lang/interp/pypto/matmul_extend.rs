//! `pypto.matmul(…, extend_params={…})`: what the cube's output path adds to a product. pypto
//! documents `bias_tensor` (a `[1, N]` row added to every row, in the f32 accumulator), `scale` (a
//! per-tensor dequantisation factor), `scale_tensor`, `relu_type` and `trans_mode`. The first two are
//! modelled as the ops they amount to — the product accumulated in f32, then `+ bias`, `· scale`,
//! then the cast to `out_dtype` — each captured like any op, so a kernel runs them on the NPU.
//! The others (integer quantisation, TF32 rounding) are an error that says so.

use super::super::error::{ErrorKind, Result};
use super::super::eval::Arguments;
use super::super::format::to_str;
use super::super::interpreter::Interpreter;
use super::super::value::Value;
use crate::lang::syntax::Span;
use crate::tensor::DType;

/// The modelled entries of `extend_params`.
#[derive(Default)]
pub(crate) struct ExtendParams {
    bias: Option<(Value, Span)>,
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
                let message = format!("pypto.matmul: extend_params must be a dict, not {}", other.type_name());
                return Err(interpreter.error(ErrorKind::Type, message, span));
            }
        };
        for (key, value) in entries {
            match to_str(&key).as_str() {
                "bias_tensor" => params.bias = Some((value, span)),
                "scale" => params.scale = Some((value, span)),
                other => {
                    return Err(interpreter
                        .error(ErrorKind::Unsupported, format!("pypto.matmul: extend_params['{other}'] is not modelled"), span)
                        .with_help("the simulated cube adds `bias_tensor` and multiplies by `scale`; integer quantisation (`scale_tensor`), `relu_type` and TF32 rounding (`trans_mode`) are not available: apply pypto.relu to the result"))
                }
            }
        }
        Ok(params)
    }

    /// Whether the product needs anything after it.
    pub(crate) fn is_empty(&self) -> bool {
        self.bias.is_none() && self.scale.is_none()
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
                    let message = format!(
                        "pypto.matmul: bias_tensor has {} columns, the product {}",
                        columns.unwrap_or(0),
                        result_columns.unwrap_or(0)
                    );
                    return Err(interpreter
                        .error(ErrorKind::Value, message, *bias_span)
                        .with_help("bias_tensor is [1, N]: one value per column of the product"));
                }
            }
            result = op("pypto.add", vec![(result, span), (bias.clone(), *bias_span)])?;
        }
        if let Some((scale, scale_span)) = &self.scale {
            result = op("pypto.mul", vec![(result, span), (scale.clone(), *scale_span)])?;
        }
        match out_dtype {
            Some(dtype) if dtype != DType::F32 => op("pypto.cast", vec![(result, span), (Value::DType(dtype), span)]),
            _ => Ok(result),
        }
    }
}
