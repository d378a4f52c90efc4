//! The npu feature tests, one binary (scripts/group-tests.sh writes this file).

mod checks;
mod compiler;
mod engine_identity;
mod fidelity;
mod fidelity_kernels;
mod fidelity_script;
mod fidelity_values;
mod fidelity_warm;
mod kernel_forms;
mod kernel_forms_partial;
mod kernel_forms_unrolled;
mod lowering;
mod lowering_cube;
mod lowering_support;
mod model;
mod model_burst;
mod model_hbm_core;
mod model_l1_resident;
mod model_l2_bandwidth;
mod model_write_back;
mod operations_gym;
mod operations_kernels;
mod split;
mod trace;
mod values;
mod vector_ops;
