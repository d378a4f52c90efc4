//! The autograd feature tests, one binary (scripts/group-tests.sh writes this file).

mod broadcast_property;
mod checkpoint;
mod custom;
mod engine;
mod generated_backward;
mod generated_blocks;
mod generated_elementwise;
mod generated_jit;
mod generated_swiglu;
mod golden;
mod gradcheck_checker;
mod gradcheck_ops;
mod masks_and_indices;
mod mixed_precision;
mod support;
