//! The tensor feature tests, one binary (scripts/group-tests.sh writes this file).

#[path = "../common/mod.rs"]
mod common;
mod dtypes;
mod integer_ops;
mod properties;
mod reference;
mod rng_stream;
