//! The error of the autograd layer: every failure of recording, backward, custom ops and checks.

use std::fmt;

use crate::error::TensorError;
use crate::messages::AutogradDetail;

/// A failed autograd operation. Variants carry the op, shapes or names needed to find the cause.
#[derive(Debug, Clone, PartialEq)]
pub enum AutogradError {
    /// A tensor operation failed (forward, or inside a gradient rule).
    Tensor(TensorError),
    /// `backward` or `grad` on a value that has no graph (no input of it required grad).
    DoesNotRequireGrad { what: String },
    /// `backward()` without a gradient on an output that is not a scalar.
    NonScalarOutput { shape: Vec<usize> },
    /// A supplied or computed gradient does not have the shape of the value it belongs to.
    GradientShapeMismatch { op: String, expected: Vec<usize>, got: Vec<usize> },
    /// The saved tensors of a node were freed by an earlier backward.
    SavedTensorsFreed { op: String },
    /// A tensor saved for backward was modified in place after it was saved.
    SavedTensorModified { op: String },
    /// A custom op registered without a backward was differentiated.
    GradientNotImplemented { name: String },
    /// No custom op of that name is registered.
    UnknownCustomOp { name: String },
    /// A custom op's forward or backward broke its contract (wrong number of outputs or gradients …).
    CustomOp { name: String, detail: AutogradDetail },
    /// A malformed argument to an autograd function.
    BadArgument { op: String, detail: AutogradDetail },
}

impl fmt::Display for AutogradError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutogradError::Tensor(error) => write!(f, "{error}"),
            AutogradError::DoesNotRequireGrad { what } => write!(
                f,
                "backward: {what} does not require grad (no input of the computation was created with requires_grad=True)"
            ),
            AutogradError::NonScalarOutput { shape } => write!(
                f,
                "backward: the output has shape {shape:?}; backward() without a gradient needs a scalar (pass a gradient of the output's shape)"
            ),
            AutogradError::GradientShapeMismatch { op, expected, got } => {
                write!(f, "{op}: gradient of shape {got:?} for a value of shape {expected:?}")
            }
            AutogradError::SavedTensorsFreed { op } => write!(
                f,
                "backward through {op}: its saved tensors were freed by an earlier backward; pass retain_graph=True to the first backward to call it twice"
            ),
            AutogradError::SavedTensorModified { op } => {
                write!(f, "backward through {op}: a tensor it saved was modified in place after the forward")
            }
            AutogradError::GradientNotImplemented { name } => write!(f, "gradient not implemented for {name}"),
            AutogradError::UnknownCustomOp { name } => write!(f, "no custom op named {name} is registered"),
            AutogradError::CustomOp { name, detail } => write!(f, "custom op {name}: {}", detail.english()),
            AutogradError::BadArgument { op, detail } => write!(f, "{op}: {}", detail.english()),
        }
    }
}

impl std::error::Error for AutogradError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AutogradError::Tensor(error) => Some(error),
            _ => None,
        }
    }
}

impl AutogradError {
    /// The error as a message code, when it has one (`backward` without a graph is worded by the
    /// interpreter, which knows the tensor's name).
    pub fn message(&self) -> Option<crate::messages::Message> {
        use crate::messages::{AutogradCallMessage, AutogradMessage};
        let message = match self {
            AutogradError::Tensor(error) => return Some(error.message()),
            AutogradError::DoesNotRequireGrad { .. } => return None,
            AutogradError::CustomOp { name, detail } => {
                return Some(AutogradCallMessage::CustomOp { name: name.clone(), detail: detail.clone() }.into())
            }
            AutogradError::BadArgument { op, detail } => {
                return Some(AutogradCallMessage::BadArgument { op: op.clone(), detail: detail.clone() }.into())
            }
            AutogradError::NonScalarOutput { shape } => AutogradMessage::NonScalarOutput { shape: shape.clone() },
            AutogradError::GradientShapeMismatch { op, expected, got } => {
                AutogradMessage::GradientShape { op: op.clone(), expected: expected.clone(), got: got.clone() }
            }
            AutogradError::SavedTensorsFreed { op } => AutogradMessage::SavedTensorsFreed { op: op.clone() },
            AutogradError::SavedTensorModified { op } => AutogradMessage::SavedTensorModified { op: op.clone() },
            AutogradError::GradientNotImplemented { name } => {
                AutogradMessage::GradientNotImplemented { name: name.clone() }
            }
            AutogradError::UnknownCustomOp { name } => AutogradMessage::UnknownCustomOp { name: name.clone() },
        };
        Some(message.into())
    }
}

impl From<TensorError> for AutogradError {
    fn from(error: TensorError) -> Self {
        AutogradError::Tensor(error)
    }
}

/// Result of an autograd operation.
pub type Result<T> = std::result::Result<T, AutogradError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_to_do() {
        let freed = AutogradError::SavedTensorsFreed { op: "mul".into() }.to_string();
        assert!(freed.contains("retain_graph"), "{freed}");
        let missing = AutogradError::GradientNotImplemented { name: "my_swish".into() };
        assert_eq!(missing.to_string(), "gradient not implemented for my_swish");
    }
}
