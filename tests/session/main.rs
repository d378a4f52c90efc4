//! The session feature tests, one binary (scripts/group-tests.sh writes this file).

mod api_table;
mod cells;
mod messages;
mod messages_classes;
mod messages_compiler;
mod messages_library;
mod messages_lowering;
mod messages_tensor;
mod progress;
