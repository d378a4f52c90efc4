//! The gallery feature tests, one binary (scripts/group-tests.sh writes this file).

mod examples_a;
mod examples_b;
mod flash_attention;
mod generated_backward;
mod swiglu_full;
