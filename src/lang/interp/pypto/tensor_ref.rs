//! How a kernel's capture names tensors: by buffer id and shape, with the shape, valid shape and
//! dtype it needs, never the values.

use crate::tensor::{DType, Tensor};

/// A tensor as the capture names it: its buffer, shape, valid shape and dtype, not its values (a
/// capture keeps no buffer alive: a kernel of 10⁶ iterations does not hold 10⁶ tiles).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TensorRef {
    buffer: u64,
    shape: Vec<usize>,
    valid_shape: Option<Vec<usize>>,
    dtype: DType,
}

impl TensorRef {
    /// The reference of `tensor`.
    pub(crate) fn of(tensor: &Tensor) -> TensorRef {
        TensorRef {
            buffer: tensor.buffer_id(),
            shape: tensor.shape().to_vec(),
            valid_shape: tensor.valid_shape().map(<[usize]>::to_vec),
            dtype: tensor.dtype(),
        }
    }

    /// A tensor no buffer holds yet (a value of a generated kernel), under a buffer id of its own.
    pub(crate) fn fresh(shape: &[usize], valid_shape: Option<Vec<usize>>, dtype: DType) -> TensorRef {
        // An empty tensor takes the next buffer id, so the id is never any real tensor's.
        let buffer = Tensor::zeros(&[0], dtype).map_or(0, |empty| empty.buffer_id());
        TensorRef { buffer, shape: shape.to_vec(), valid_shape, dtype }
    }

    /// The shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The valid shape, when it differs from the shape (a ragged tile).
    pub(crate) fn valid_shape(&self) -> Option<&[usize]> {
        self.valid_shape.as_deref()
    }

    /// The dtype.
    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }
}

/// Identity of a tensor's data: its buffer and shape (a reshape shares the buffer; buffer ids are
/// never reused, so a freed tile cannot be mistaken for a new one).
pub(crate) type Identity = (u64, Vec<usize>);

/// What has an identity: tensors and their references.
pub(crate) trait Identified {
    /// Its buffer and shape.
    fn identity(&self) -> Identity;
}

impl Identified for Tensor {
    fn identity(&self) -> Identity {
        (self.buffer_id(), self.shape().to_vec())
    }
}

impl Identified for TensorRef {
    fn identity(&self) -> Identity {
        (self.buffer, self.shape.clone())
    }
}

/// The identity of a tensor or a reference to one.
pub(crate) fn identity(tensor: &impl Identified) -> Identity {
    tensor.identity()
}
