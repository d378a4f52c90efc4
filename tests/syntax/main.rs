//! The syntax feature tests, one binary (scripts/group-tests.sh writes this file).

mod fixtures;
mod robustness;
mod roundtrip;
