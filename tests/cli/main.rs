//! The cli feature tests, one binary (scripts/group-tests.sh writes this file).

mod run;
mod trace;
