//! The tensor core: `Tensor` handles over dtype-typed storage, every forward op, numpy broadcasting,
//! the seeded generator, and the SIMD kernels. Knows nothing about autograd, tiles or the language.

mod bitcast;
mod cast;
mod dtype;
mod elementwise;
mod floor_division;
mod half_convert;
mod handle;
mod indexing;
mod integer;
mod integer_ops;
mod layout;
mod matmul;
mod random;
mod real;
mod reduce;
mod reuse;
mod select;
mod shape;
pub mod simd;
mod slice_spec;
mod storage;
mod strided;
mod unary;
mod valid_region;

pub use dtype::{DType, DTypeKind};
pub use elementwise::{sigmoid, BinaryOp, UnaryOp};
pub use handle::Tensor;
pub use indexing::ScatterMode;
pub use integer_ops::IntegerOp;
pub use layout::SliceSpec;
pub use random::{manual_seed, Rng};
pub use real::Real;
pub use reduce::{ReduceOp, SoftmaxOp};
pub use select::{CompareOp, LogicalOp};
pub use shape::{
    broadcast_conflict, broadcast_shapes, contiguous_strides, element_count, normalize_dim, normalize_dims,
    unravel_index,
};
pub use storage::{allocation_limit, check_allocation, set_allocation_limit, Storage, DEFAULT_ALLOCATION_LIMIT};
pub use valid_region::{leading_box, leads_row_major};
