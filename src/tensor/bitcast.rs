//! Reading a tensor's bytes as another dtype (torch's `Tensor.view(dtype)`): each element's
//! little-endian bytes, row-major, regrouped into elements of the new size.

use half::{bf16, f16};

use super::dtype::DType;
use super::handle::Tensor;
use super::storage::Storage;

impl Tensor {
    /// The values' bytes read as `dtype`. The last dim scales by the ratio of the element sizes
    /// (a `[2, 3]` bfloat16 tensor is a `[2, 6]` int8 one), as torch's `view(dtype)`; `None` when
    /// the last dim's bytes are not a whole number of new elements (or a 0-d tensor changes size).
    /// A bool reads a non-zero byte as true.
    pub fn bitcast(&self, dtype: DType) -> Option<Tensor> {
        let (from, to) = (self.dtype().size_in_bytes(), dtype.size_in_bytes());
        let mut shape = self.shape().to_vec();
        match shape.last_mut() {
            Some(last) if (*last * from) % to == 0 => *last = *last * from / to,
            None if from == to => {}
            _ => return None,
        }
        let bytes = bytes_of(&self.storage());
        Tensor::from_storage(from_bytes(&bytes, dtype), &shape).ok()
    }
}

fn bytes_of(storage: &Storage) -> Vec<u8> {
    fn flat<const N: usize, T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        values.iter().flat_map(|&value| bytes(value)).collect()
    }
    match storage {
        Storage::F32(values) => flat(values, f32::to_le_bytes),
        Storage::F16(values) => flat(values, f16::to_le_bytes),
        Storage::Bf16(values) => flat(values, bf16::to_le_bytes),
        Storage::F64(values) => flat(values, f64::to_le_bytes),
        Storage::I8(values) => flat(values, i8::to_le_bytes),
        Storage::I16(values) => flat(values, i16::to_le_bytes),
        Storage::I32(values) => flat(values, i32::to_le_bytes),
        Storage::I64(values) => flat(values, i64::to_le_bytes),
        Storage::U8(values) => values.clone(),
        Storage::Bool(values) => values.iter().map(|&value| u8::from(value)).collect(),
    }
}

fn from_bytes(bytes: &[u8], dtype: DType) -> Storage {
    fn read<const N: usize, T>(bytes: &[u8], value: impl Fn([u8; N]) -> T) -> Vec<T> {
        bytes.chunks_exact(N).map(|chunk| value(chunk.try_into().unwrap_or([0; N]))).collect()
    }
    match dtype {
        DType::F32 => Storage::F32(read(bytes, f32::from_le_bytes)),
        DType::F16 => Storage::F16(read(bytes, f16::from_le_bytes)),
        DType::Bf16 => Storage::Bf16(read(bytes, bf16::from_le_bytes)),
        DType::F64 => Storage::F64(read(bytes, f64::from_le_bytes)),
        DType::I8 => Storage::I8(read(bytes, i8::from_le_bytes)),
        DType::I16 => Storage::I16(read(bytes, i16::from_le_bytes)),
        DType::I32 => Storage::I32(read(bytes, i32::from_le_bytes)),
        DType::I64 => Storage::I64(read(bytes, i64::from_le_bytes)),
        DType::U8 => Storage::U8(bytes.to_vec()),
        DType::Bool => Storage::Bool(bytes.iter().map(|&byte| byte != 0).collect()),
    }
}
