//! The error of the tensor core: every failure of a tensor operation, with the op and shapes that caused it.

use std::fmt;

use crate::messages::{ArgumentDetail, AutogradMessage, BoundsDetail, Message, ShapeDetail, TensorMessage};

/// A failed tensor operation. Every variant names the op so a user can find the call that failed.
#[derive(Debug, Clone, PartialEq)]
pub enum TensorError {
    /// Two shapes cannot be combined (broadcasting, matmul inner dims, concat, assemble …).
    ShapeMismatch { op: &'static str, lhs: Vec<usize>, rhs: Vec<usize>, detail: ShapeDetail },
    /// A dimension index outside `-rank..rank`.
    BadDim { op: &'static str, dim: isize, rank: usize },
    /// Data of the wrong length for a shape, or another malformed argument.
    BadArgument { op: &'static str, detail: ArgumentDetail },
    /// The element count of a shape does not fit in `usize` (wasm32 has a 32-bit `usize`).
    ElementCountOverflow { op: &'static str, shape: Vec<usize> },
    /// An allocation larger than the configured cap (see `tensor::set_allocation_limit`).
    AllocationTooLarge { op: &'static str, bytes: u128, limit: usize },
    /// A view or a write that reaches past a tensor's edge.
    OutOfBounds { op: &'static str, detail: BoundsDetail },
}

/// The English is the message's, so the CLI and the page's code say the same.
impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message().english())
    }
}

impl std::error::Error for TensorError {}

impl TensorError {
    /// The error as a message code with its parameters.
    pub fn message(&self) -> Message {
        match self {
            TensorError::ShapeMismatch { op, lhs, rhs, detail } => {
                let (lhs, rhs) = (lhs.clone(), rhs.clone());
                match *detail {
                    ShapeDetail::Broadcast { dim, left, right } => {
                        Message::BroadcastMismatch { op: op.to_string(), lhs, rhs, dim, left, right }
                    }
                    ShapeDetail::InnerDims { left, right } if *op == "matmul" => {
                        AutogradMessage::MatmulInnerDims { lhs, rhs, left, right }.into()
                    }
                    _ => TensorMessage::ShapeMismatch { op: op.to_string(), lhs, rhs, detail: detail.clone() }.into(),
                }
            }
            TensorError::BadArgument { op, detail } => {
                TensorMessage::BadArgument { op: op.to_string(), detail: detail.clone() }.into()
            }
            TensorError::OutOfBounds { op, detail } => {
                TensorMessage::OutOfBounds { op: op.to_string(), detail: detail.clone() }.into()
            }
            TensorError::BadDim { op, dim, rank: 0 } => {
                AutogradMessage::DimOfScalar { op: op.to_string(), dim: *dim as i64 }.into()
            }
            TensorError::BadDim { op, dim, rank } => AutogradMessage::DimOutOfRange {
                op: op.to_string(),
                dim: *dim as i64,
                rank: *rank,
                low: -(*rank as i64),
                high: *rank as i64 - 1,
            }
            .into(),
            TensorError::ElementCountOverflow { op, shape } => {
                AutogradMessage::TooManyElements { op: op.to_string(), shape: shape.clone() }.into()
            }
            TensorError::AllocationTooLarge { op, bytes, limit } => AutogradMessage::AllocationTooLarge {
                op: op.to_string(),
                bytes: human_bytes(*bytes),
                limit: human_bytes(*limit as u128),
            }
            .into(),
        }
    }
}

/// Bytes as a short human string ("1.5 MiB").
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Result of a tensor operation.
pub type Result<T> = std::result::Result<T, TensorError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_op_and_shapes() {
        let error = TensorError::ShapeMismatch {
            op: "matmul",
            lhs: vec![4, 3],
            rhs: vec![4, 3],
            detail: ShapeDetail::InnerDims { left: 3, right: 4 },
        };
        assert_eq!(error.to_string(), "matmul: shapes [4, 3] and [4, 3] do not match: inner dims 3 ≠ 4");
        let dim = TensorError::BadDim { op: "sum", dim: 2, rank: 2 };
        assert_eq!(dim.to_string(), "sum: dim 2 is out of range for a 2-d tensor (expected -2..=1)");
    }

    /// The typed details print the English the free-text details printed.
    #[test]
    fn typed_details_keep_the_english() {
        let reshape = TensorError::ShapeMismatch {
            op: "reshape",
            lhs: vec![8, 64],
            rhs: vec![7, 64],
            detail: ShapeDetail::ElementCount { count: 512, target: 448 },
        };
        assert_eq!(
            reshape.to_string(),
            "reshape: shapes [8, 64] and [7, 64] do not match: 512 elements cannot be viewed as 448"
        );
        let view = TensorError::OutOfBounds {
            op: "view",
            detail: BoundsDetail::View { offset: 4, count: 8, dim: 0, size: 8, fits: 4 },
        };
        assert_eq!(
            view.to_string(),
            "view: the tile at offset 4 with 8 elements runs past the edge of dim 0 (size 8); pass valid_shape with 4 in dim 0 for a ragged last tile"
        );
        let subtract = TensorError::BadArgument { op: "sub", detail: ArgumentDetail::BoolSubtract };
        assert_eq!(
            subtract.to_string(),
            "sub: subtracting two DT_BOOL tensors is not supported; to invert a mask use pypto.logical_not"
        );
        assert_eq!(subtract.message().code(), "tensor.bad_argument");
        let broadcast = TensorError::ShapeMismatch {
            op: "add",
            lhs: vec![8, 64],
            rhs: vec![3, 64],
            detail: ShapeDetail::Broadcast { dim: 0, left: 8, right: 3 },
        };
        assert_eq!(broadcast.message().code(), "tensor.broadcast_mismatch");
        assert_eq!(
            broadcast.to_string(),
            "add: shapes [8, 64] and [3, 64] do not match: dim 0 of the broadcast has sizes 8 and 3; broadcasting needs equal sizes or a 1"
        );
    }

    #[test]
    fn human_bytes_uses_binary_units() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(256 << 20), "256.0 MiB");
    }
}
