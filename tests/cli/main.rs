//! The cli feature tests, one binary (scripts/group-tests.sh writes this file).

mod cost_model_output;
mod file_lines;
mod files;
mod hostile_corpus;
mod readme_commands;
mod reliability;
mod run;
mod trace;
