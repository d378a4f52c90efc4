//! The Rust ↔ JavaScript result contract, described once: the TypeScript declarations of
//! [`CellResult`] and every type it contains, generated from the Rust types with `ts-rs` into
//! `www/engine/contract.d.ts`, which the front end's JSDoc types import and `tsc --checkJs` checks
//! (`make typecheck`). A unit test fails when the committed file is stale; `make contract` rewrites it.
//! The simulator's `Summary` and the sweep table derive `TS` where they are defined, so they are
//! declared from the very types that are serialised.

use std::any::TypeId;
use std::collections::HashSet;

use ts_rs::{Config, TypeVisitor, TS};

use super::CellResult;

/// Where the generated declarations are committed, relative to the crate root.
pub const CONTRACT_PATH: &str = "www/engine/contract.d.ts";

/// The TypeScript declarations of `CellResult` and everything it contains, sorted by name (the
/// derive visits dependencies in an order that changes between builds).
pub fn typescript_declarations() -> String {
    // JSON numbers are JavaScript numbers: ids and byte counts (u64) stay far below 2^53.
    let config = Config::new().with_large_int("number");
    let mut collector = Collector { config: &config, seen: HashSet::new(), declarations: Vec::new() };
    collector.visit::<CellResult>();
    let mut text = String::from(
        "// Generated from the Rust result types (src/session/contract.rs) by `make contract`; do not edit.\n\
         // What `Playground.runCell` returns and `tilelab run --json` prints, one object per cell.\n",
    );
    collector.declarations.sort();
    for (_, declaration) in collector.declarations {
        text.push('\n');
        text.push_str(&declaration);
        text.push('\n');
    }
    text
}

/// Collects the declaration of a type after those of its dependencies, each type once.
struct Collector<'a> {
    config: &'a Config,
    seen: HashSet<TypeId>,
    /// (type name, declaration).
    declarations: Vec<(String, String)>,
}

impl TypeVisitor for Collector<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Primitives and containers have no declaration of their own; their contents are visited.
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        T::visit_dependencies(self);
        let docs = T::docs().unwrap_or_default();
        let declaration = indent(&format!("{docs}export {}", T::decl(self.config)));
        self.declarations.push((T::ident(self.config), declaration));
    }
}

/// Lays out ts-rs's one-line-per-field output as a reader expects: the members of a multi-line
/// object indented by depth, and the brace that closes it on a line of its own.
fn indent(declaration: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for line in declaration.lines().map(str::trim) {
        let is_doc = line.starts_with("/**") || line.starts_with('*');
        let start_depth = depth;
        let mut lowest = depth;
        let mut text = String::new();
        for character in line.chars() {
            match character {
                '{' if !is_doc => depth += 1,
                '}' if !is_doc => {
                    depth = depth.saturating_sub(1);
                    if depth < lowest {
                        lowest = depth;
                        // This brace closes a block opened on an earlier line: it starts a new line.
                        push_line(&mut out, text.trim_end(), depth + 1);
                        text.clear();
                    }
                }
                _ => {}
            }
            text.push(character);
        }
        let line_depth = if text.starts_with('}') { depth } else { start_depth };
        push_line(&mut out, text.trim_end(), line_depth);
    }
    out.trim_end().to_string()
}

fn push_line(out: &mut String, text: &str, depth: usize) {
    if text.is_empty() {
        return;
    }
    let doc_continuation = if text.starts_with('*') { " " } else { "" };
    out.push_str(&"  ".repeat(depth));
    out.push_str(doc_continuation);
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed declarations are the generated ones. `TILELAB_WRITE_CONTRACT=1` (what
    /// `make contract` sets) rewrites the file instead of failing.
    #[test]
    fn the_committed_declarations_are_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CONTRACT_PATH);
        let generated = typescript_declarations();
        if std::env::var_os("TILELAB_WRITE_CONTRACT").is_some() {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == generated, "{CONTRACT_PATH} is stale: run `make contract` and commit it");
    }

    /// Every result type is declared, and the removed fields stay removed.
    #[test]
    fn the_declarations_cover_the_result() {
        let text = typescript_declarations();
        for name in ["CellResult", "CellDiagnostic", "Display", "TensorDisplay", "Summary", "SweepDisplay", "GraphData"]
        {
            assert!(text.contains(&format!("export type {name} = ")), "{name} is not declared");
        }
        assert!(!text.contains("kernel_runs"));
    }
}
