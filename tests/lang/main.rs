//! The lang feature tests, one binary (scripts/group-tests.sh writes this file).

mod diagnostics;
mod kernel_npu;
mod kernels;
mod pypto;
mod robustness;
mod schedule;
mod semantics_table;
mod sweep;
