//! Conversion between dtypes: floats round once to nearest even, floats into integers truncate
//! toward zero and saturate (pypto's default `CAST_TRUNC`), integers into narrower integers wrap,
//! anything into bool is `x != 0`.

use super::dtype::DType;
use super::handle::Tensor;
use super::storage::{check_allocation, Storage};
use crate::error::Result;

impl Tensor {
    /// The values converted to `dtype` (rounded once); keeps the valid shape.
    pub fn cast(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.deep_copy());
        }
        check_allocation("cast", self.numel(), dtype)?;
        // From f64, round straight to the target: going through f32 first would round twice.
        // Integers and bools convert from their exact i64 values (narrower integers wrap); floats
        // into integers truncate toward zero and saturate (pypto's default CAST_TRUNC).
        let source = self.dtype();
        let storage = if !source.is_float() {
            Storage::from_i64(self.storage().to_i64_vec(), dtype)
        } else if dtype == DType::F64 || source == DType::F64 || !dtype.is_float() {
            Storage::from_f64(self.to_f64_vec(), dtype)
        } else {
            match &*self.storage() {
                Storage::F32(values) => Storage::from_f32_slice(values, dtype),
                other => Storage::from_f32(other.to_f32_vec(), dtype),
            }
        };
        Ok(Tensor::from_storage(storage, self.shape())?.with_valid_shape(self.valid_shape().map(<[usize]>::to_vec)))
    }

    /// This tensor in `dtype`: itself (a cheap handle) when it already is, else a cast copy.
    pub(crate) fn cast_if_needed(&self, dtype: DType) -> Result<Tensor> {
        if self.dtype() == dtype {
            Ok(self.clone())
        } else {
            self.cast(dtype)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_rounds_once() {
        let x = Tensor::from_f32(vec![1.0 + 2f32.powi(-10)], &[1], DType::F32).unwrap();
        assert_eq!(x.cast(DType::Bf16).unwrap().to_f32_vec(), vec![1.0]);
        assert_eq!(x.cast(DType::F16).unwrap().to_f32_vec(), vec![1.0 + 2f32.powi(-10)]);
    }

    #[test]
    fn cast_from_f64_rounds_once() {
        // 1 + 2^-11 + 2^-40 lies just above the f16 tie between 1 and 1 + 2^-10, so it rounds up;
        // through f32 it would first become the tie 1 + 2^-11 and then round to even, 1.
        let x = Tensor::from_f64(vec![1.0 + 2f64.powi(-11) + 2f64.powi(-40)], &[1], DType::F64).unwrap();
        assert_eq!(x.cast(DType::F16).unwrap().to_f64_vec(), vec![1.0 + 2f64.powi(-10)]);
    }
}
