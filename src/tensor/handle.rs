//! `Tensor`: a cheap handle (shape, optional valid shape) onto shared storage (values in their dtype).

use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

use super::dtype::DType;
use super::shape::element_count;
use super::storage::{check_allocation, Storage};
use crate::error::{Result, TensorError};
use crate::messages::ArgumentDetail;

/// The buffer shared by every handle that aliases it. `version` counts in-place writes so that a
/// tensor saved for backward can be detected as modified.
#[derive(Debug)]
struct Buffer {
    storage: RefCell<Storage>,
    version: Cell<u64>,
    id: u64,
}

thread_local! {
    static NEXT_BUFFER_ID: Cell<u64> = const { Cell::new(1) };
}

/// An n-dimensional array. Cloning a `Tensor` clones the handle, not the values: in-place writes
/// (`assign`, `assemble`) are seen through every handle, as in Python.
#[derive(Clone, Debug)]
pub struct Tensor {
    buffer: Rc<Buffer>,
    shape: Rc<[usize]>,
    valid_shape: Option<Rc<[usize]>>,
}

impl Tensor {
    /// Wraps a storage buffer whose length must equal the element count of `shape`.
    pub fn from_storage(storage: Storage, shape: &[usize]) -> Result<Tensor> {
        let count = element_count("tensor", shape)?;
        if storage.len() != count {
            return Err(TensorError::BadArgument {
                op: "tensor",
                detail: ArgumentDetail::DataLength { values: storage.len(), shape: shape.to_vec(), count },
            });
        }
        let id = NEXT_BUFFER_ID.with(|next| {
            let id = next.get();
            next.set(id + 1);
            id
        });
        let buffer = Buffer { storage: RefCell::new(storage), version: Cell::new(0), id };
        Ok(Tensor { buffer: Rc::new(buffer), shape: shape.into(), valid_shape: None })
    }

    /// A tensor of `dtype` from f32 values (rounded to the dtype).
    pub fn from_f32(values: Vec<f32>, shape: &[usize], dtype: DType) -> Result<Tensor> {
        check_allocation("tensor", values.len(), dtype)?;
        Tensor::from_storage(Storage::from_f32(values, dtype), shape)
    }

    /// A tensor of `dtype` from f64 values (rounded to the dtype).
    pub fn from_f64(values: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
        check_allocation("tensor", values.len(), dtype)?;
        Tensor::from_storage(Storage::from_f64(values, dtype), shape)
    }

    /// A 0-d tensor holding `value`.
    pub fn scalar(value: f64, dtype: DType) -> Tensor {
        Tensor::from_storage(Storage::from_f64(vec![value], dtype), &[]).expect("one element fills a 0-d shape")
    }

    /// A tensor of `shape` filled with `value`.
    pub fn full(shape: &[usize], value: f64, dtype: DType) -> Result<Tensor> {
        let count = element_count("full", shape)?;
        check_allocation("full", count, dtype)?;
        Tensor::from_storage(super::strided::filled(count, value, dtype), shape)
    }

    /// A tensor of zeros.
    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::full(shape, 0.0, dtype)
    }

    /// A tensor of ones.
    pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::full(shape, 1.0, dtype)
    }

    /// `start, start + step, …` up to but excluding `stop`, like `numpy.arange`.
    pub fn arange(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Tensor> {
        if step == 0.0 || !step.is_finite() || !start.is_finite() || !stop.is_finite() {
            return Err(TensorError::BadArgument {
                op: "arange",
                detail: ArgumentDetail::Arange {
                    start: start.to_string(),
                    stop: stop.to_string(),
                    step: step.to_string(),
                },
            });
        }
        let count = ((stop - start) / step).ceil().max(0.0);
        if count > u32::MAX as f64 {
            return Err(TensorError::ElementCountOverflow { op: "arange", shape: vec![usize::MAX] });
        }
        let count = count as usize;
        check_allocation("arange", count, dtype)?;
        // Each value is computed in f64 and rounded once into the dtype (as `from_f64` would),
        // without an f64 buffer in between for the common dtypes.
        let value = |i: usize| start + i as f64 * step;
        // Whole start and step with every value an i32: the same values in integer arithmetic,
        // which vectorises (the f64 route converts one value at a time).
        let last = value(count.saturating_sub(1));
        let whole_i32 = |x: f64| x.fract() == 0.0 && x >= i32::MIN as f64 && x <= i32::MAX as f64;
        let integral = whole_i32(start) && whole_i32(step) && whole_i32(last) && count <= i32::MAX as usize;
        let storage = match dtype {
            DType::I32 | DType::I64 if integral => {
                let (start, step) = (start as i32, step as i32);
                // Wrapping: i·step may leave the i32 range where start + i·step does not.
                let values = (0..count as i32).map(|i| start.wrapping_add(i.wrapping_mul(step)));
                match dtype {
                    DType::I32 => Storage::I32(values.collect()),
                    _ => Storage::I64(values.map(i64::from).collect()),
                }
            }
            DType::F32 => Storage::F32((0..count).map(|i| value(i) as f32).collect()),
            DType::I64 => Storage::I64((0..count).map(|i| value(i) as i64).collect()),
            DType::I32 => Storage::I32((0..count).map(|i| value(i) as i32).collect()),
            _ => Storage::from_f64((0..count).map(value).collect(), dtype),
        };
        Tensor::from_storage(storage, &[count])
    }

    /// The dims.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dims.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.buffer.storage.borrow().dtype()
    }

    /// The region holding real data, when this tensor is a tile whose edge runs past its source
    /// (elements outside it are zero). `None` means the whole shape is valid.
    pub fn valid_shape(&self) -> Option<&[usize]> {
        self.valid_shape.as_deref()
    }

    /// The valid shape, or the whole shape when every element is valid.
    pub fn valid_or_full_shape(&self) -> Vec<usize> {
        self.valid_shape().unwrap_or(self.shape()).to_vec()
    }

    /// The same tensor marked with a valid region (clamped to the shape; `None` when it covers it).
    pub fn with_valid_shape(mut self, valid: Option<Vec<usize>>) -> Tensor {
        self.valid_shape = valid.and_then(|valid| {
            let clamped: Vec<usize> = valid.iter().zip(self.shape.iter()).map(|(&v, &d)| v.min(d)).collect();
            (valid.len() == self.shape.len() && clamped.as_slice() != &*self.shape).then(|| clamped.into())
        });
        self
    }

    /// Bytes held by the values.
    pub fn size_in_bytes(&self) -> usize {
        self.numel() * self.dtype().size_in_bytes()
    }

    /// Identity of the underlying buffer (equal for handles that alias).
    pub fn buffer_id(&self) -> u64 {
        self.buffer.id
    }

    /// How many in-place writes the buffer has seen.
    pub fn version(&self) -> u64 {
        self.buffer.version.get()
    }

    /// Borrows the storage.
    pub fn storage(&self) -> Ref<'_, Storage> {
        self.buffer.storage.borrow()
    }

    /// Runs `write` on the storage, counting an in-place write.
    pub(crate) fn write_storage<R>(&self, write: impl FnOnce(&mut Storage) -> R) -> R {
        self.buffer.version.set(self.buffer.version.get() + 1);
        write(&mut self.buffer.storage.borrow_mut())
    }

    /// The values widened to f32, row-major.
    pub fn to_f32_vec(&self) -> Vec<f32> {
        self.storage().to_f32_vec()
    }

    /// Runs `read` on the values as f64, row-major: an f64 buffer in place, others widened into
    /// a copy.
    pub fn read_f64<R>(&self, read: impl FnOnce(&[f64]) -> R) -> R {
        let storage = self.storage();
        match &*storage {
            Storage::F64(values) => read(values),
            other => read(&other.to_f64_vec()),
        }
    }

    /// The values widened to f64, row-major.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        self.storage().to_f64_vec()
    }

    /// The value of a one-element tensor.
    pub fn item(&self) -> Result<f64> {
        if self.numel() != 1 {
            return Err(TensorError::BadArgument {
                op: "item",
                detail: ArgumentDetail::Item { shape: self.shape().to_vec() },
            });
        }
        Ok(self.storage().get_f64(0))
    }

    /// Whether this is the only handle onto its buffer (a fresh result no one else can see).
    pub(crate) fn is_sole_handle(&self) -> bool {
        Rc::strong_count(&self.buffer) == 1
    }

    /// The address of f32 values (0 for other dtypes): tests check which buffer a result took.
    #[cfg(test)]
    pub(crate) fn f32_data_address(&self) -> usize {
        match &*self.storage() {
            Storage::F32(values) => values.as_ptr() as usize,
            _ => 0,
        }
    }

    /// The values, taken out of the buffer when this is its only handle (no view, saved copy or
    /// other value can see them any more); otherwise the handle back.
    pub(crate) fn into_sole_storage(self) -> std::result::Result<Storage, Tensor> {
        let Tensor { buffer, shape, valid_shape } = self;
        match Rc::try_unwrap(buffer) {
            Ok(buffer) => Ok(buffer.storage.into_inner()),
            Err(buffer) => Err(Tensor { buffer, shape, valid_shape }),
        }
    }

    /// A new tensor with the same shape and a copy of the values (no aliasing).
    pub fn deep_copy(&self) -> Tensor {
        let storage = self.storage().clone();
        Tensor::from_storage(storage, self.shape())
            .expect("copy has the same length")
            .with_valid_shape(self.valid_shape.as_ref().map(|v| v.to_vec()))
    }

    /// A handle with another shape over the same buffer (same element count, checked by the caller).
    pub(crate) fn reshaped_alias(&self, shape: &[usize]) -> Tensor {
        Tensor { buffer: self.buffer.clone(), shape: shape.into(), valid_shape: None }
    }

    /// The values as an `ndarray` array of f64, for references and tests.
    pub fn to_ndarray(&self) -> ndarray::ArrayD<f64> {
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), self.to_f64_vec()).expect("shape matches storage")
    }

    /// A tensor from an `ndarray` array of f64, rounded to `dtype`.
    pub fn from_ndarray(array: &ndarray::ArrayD<f64>, dtype: DType) -> Result<Tensor> {
        let values: Vec<f64> = array.iter().copied().collect();
        Tensor::from_f64(values, array.shape(), dtype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_alias_and_copies_do_not() {
        let tensor = Tensor::zeros(&[2, 2], DType::F32).unwrap();
        let alias = tensor.clone();
        let copy = tensor.deep_copy();
        tensor.write_storage(|storage| storage.set_f64(3, 7.0));
        assert_eq!(alias.to_f32_vec(), vec![0.0, 0.0, 0.0, 7.0]);
        assert_eq!(copy.to_f32_vec(), vec![0.0; 4]);
        assert_eq!(alias.version(), 1);
        assert_eq!(alias.buffer_id(), tensor.buffer_id());
        assert_ne!(copy.buffer_id(), tensor.buffer_id());
    }

    #[test]
    fn arange_matches_numpy() {
        // numpy.arange(0, 1, 0.25) = [0, .25, .5, .75]; arange(5, 0, -2) = [5, 3, 1].
        assert_eq!(Tensor::arange(0.0, 1.0, 0.25, DType::F32).unwrap().to_f32_vec(), vec![0.0, 0.25, 0.5, 0.75]);
        assert_eq!(Tensor::arange(5.0, 0.0, -2.0, DType::F32).unwrap().to_f32_vec(), vec![5.0, 3.0, 1.0]);
        assert!(Tensor::arange(0.0, 1.0, 0.0, DType::F32).is_err());
    }

    #[test]
    fn integer_arange_matches_numpy_at_the_edges_of_i32() {
        let values = |start: f64, stop: f64, step: f64, dtype| Tensor::arange(start, stop, step, dtype).unwrap();
        assert_eq!(values(-5.0, 7.0, 3.0, DType::I32).storage().to_i64_vec(), vec![-5, -2, 1, 4]);
        assert_eq!(values(7.0, -5.0, -4.0, DType::I64).storage().to_i64_vec(), vec![7, 3, -1]);
        let top = i32::MAX as i64;
        assert_eq!(
            values((top - 2) as f64, (top + 1) as f64, 1.0, DType::I32).storage().to_i64_vec(),
            vec![top - 2, top - 1, top]
        );
        // 3·10⁹ = i·step leaves i32 on the way; every value is an i32.
        let wide = values(-2e9, 2e9, 1e9, DType::I32).storage().to_i64_vec();
        assert_eq!(wide, vec![-2_000_000_000, -1_000_000_000, 0, 1_000_000_000]);
        // Beyond i32 (an i64 arange) and fractional steps take the f64 route.
        assert_eq!(
            values(3e9, 3e9 + 3.0, 1.0, DType::I64).storage().to_i64_vec(),
            vec![3_000_000_000, 3_000_000_001, 3_000_000_002]
        );
        assert_eq!(values(0.0, 2.0, 0.5, DType::I32).storage().to_i64_vec(), vec![0, 0, 1, 1]);
        assert!(values(4.0, 4.0, 1.0, DType::I32).storage().is_empty());
    }

    #[test]
    fn wrong_length_and_huge_shapes_are_errors() {
        assert!(Tensor::from_f32(vec![1.0; 5], &[2, 3], DType::F32).is_err());
        assert!(matches!(Tensor::zeros(&[1 << 20, 1 << 20], DType::F32), Err(TensorError::AllocationTooLarge { .. })));
        assert!(matches!(Tensor::zeros(&[usize::MAX, 3], DType::F32), Err(TensorError::ElementCountOverflow { .. })));
    }

    #[test]
    fn valid_shape_is_clamped_and_dropped_when_full() {
        let tile = Tensor::zeros(&[4, 8], DType::F16).unwrap();
        assert_eq!(tile.clone().with_valid_shape(Some(vec![4, 8])).valid_shape(), None);
        assert_eq!(tile.with_valid_shape(Some(vec![2, 9])).valid_shape(), Some(&[2, 8][..]));
    }
}
