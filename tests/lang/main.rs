//! The lang feature tests, one binary (scripts/group-tests.sh writes this file).

mod cells;
mod checks_strict;
mod class_kernels;
mod classes;
mod closure_collection;
mod context_managers;
mod diagnostics;
mod dtypes;
mod imports;
mod kernel_npu;
mod kernels;
mod lambdas;
mod numpy_goldens;
mod pypto;
mod pypto_api;
mod pypto_corpus;
mod reliability_abort;
mod reliability_memory;
mod reliability_work;
mod robustness;
mod schedule;
mod semantics_table;
mod statements;
mod sweep;
mod torch_module;
mod torch_nn_module;
