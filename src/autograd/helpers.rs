//! Small differentiable building blocks the gradient rules share: undoing broadcasting, expanding a
//! reduced gradient, and the exact difference the masks compare (`a − b` in f64).

use super::error::{AutogradError, Result};
use super::var::Var;
use crate::tensor::{DType, ReduceOp, Tensor};

/// Sums a broadcast gradient back to `shape`: over leading dims, and over dims where `shape` is 1.
pub(crate) fn sum_to_shape(gradient: &Var, shape: &[usize]) -> Result<Var> {
    if gradient.shape() == shape {
        return Ok(gradient.clone());
    }
    let rank = gradient.shape().len();
    let Some(lead) = rank.checked_sub(shape.len()) else {
        return Err(AutogradError::GradientShapeMismatch {
            op: "sum_to_shape".into(),
            expected: shape.to_vec(),
            got: gradient.shape().to_vec(),
        });
    };
    let axes: Vec<isize> = (0..rank)
        .filter(|&axis| axis < lead || (shape[axis - lead] == 1 && gradient.shape()[axis] != 1))
        .map(|axis| axis as isize)
        .collect();
    let summed = if axes.is_empty() { gradient.clone() } else { gradient.reduce(ReduceOp::Sum, Some(&axes), true)? };
    summed.reshape(shape)
}

/// Broadcasts `value` to `shape` (adding zeros, so the op is differentiable and second order works).
pub(crate) fn broadcast_to(value: &Var, shape: &[usize]) -> Result<Var> {
    if value.shape() == shape {
        return Ok(value.clone());
    }
    value.add(&Var::constant(Tensor::zeros(shape, value.dtype())?))
}

/// The input shape with the reduced axes kept as 1.
pub(crate) fn keepdim_shape(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    shape.iter().enumerate().map(|(axis, &dim)| if axes.contains(&axis) { 1 } else { dim }).collect()
}

/// The elementwise difference `a - b` broadcast, computed exactly in f64 (for tie and order masks).
pub(crate) fn exact_difference(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(a.cast(DType::F64)?.binary(crate::tensor::BinaryOp::Sub, &b.cast(DType::F64)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_to_shape_undoes_broadcasting() {
        // A [3,1] operand broadcast to [2,3,4]: its gradient of ones sums 2·4 = 8 per element.
        let gradient = Var::constant(Tensor::ones(&[2, 3, 4], DType::F64).unwrap());
        let reduced = sum_to_shape(&gradient, &[3, 1]).unwrap();
        assert_eq!(reduced.shape(), &[3, 1]);
        assert_eq!(reduced.tensor().to_f64_vec(), vec![8.0; 3]);
        let scalar = sum_to_shape(&gradient, &[]).unwrap();
        assert_eq!(scalar.tensor().to_f64_vec(), vec![24.0]);
    }
}
