//! The session feature tests, one binary (scripts/group-tests.sh writes this file).

mod cells;
mod progress;
