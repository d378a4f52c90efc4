//! The Rust ↔ JavaScript result contract, described once: the TypeScript declarations of
//! [`CellResult`] and every type it contains, generated from the Rust types with `ts-rs` into
//! `www/engine/contract.d.ts`, which the front end's JSDoc types import and `tsc --checkJs` checks
//! (`make typecheck`). A unit test fails when the committed file is stale; `make contract` rewrites it.
//!
//! Two types of the result live in modules that do not derive `TS` (the simulator's `Summary`, the
//! sweep table of the `pypto` module); their shapes are declared here, and a test round-trips the
//! JSON of real ones through these declarations (unknown fields denied, the same JSON back), so the
//! two cannot drift.

use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
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

/// The JSON of `npu::Summary`: what a simulated kernel run shows (DESIGN §3).
#[derive(Debug, Deserialize, Serialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// The preset simulated.
    pub preset: String,
    /// Cycles from the first start to the last end.
    pub cycles: u64,
    /// `cycles` at the clock, in µs.
    pub time_us: f64,
    /// Busy fraction per pipe ("MTE2" → 0.95), averaged over the cores whose program uses the pipe.
    pub pipe_busy: BTreeMap<String, f64>,
    /// Bytes read from GM (L2 hits included).
    pub gm_bytes_read: u64,
    /// Bytes written to GM.
    pub gm_bytes_written: u64,
    /// Bytes read that L2 served without touching HBM.
    pub l2_hit_bytes: u64,
    /// Floating-point operations executed.
    pub flops: u64,
    /// `flops` per second of simulated time.
    pub achieved_flops_per_second: f64,
    /// The cube peak of the whole chip.
    pub peak_flops_per_second: f64,
    /// The busiest pipe ("MTE2", "CUBE", "VECTOR" …).
    pub bound: String,
    /// Why: plain sentences about the bound.
    pub notes: Vec<String>,
    /// Largest bytes in use per memory on any one core.
    pub peak_occupancy: BTreeMap<String, u64>,
    /// Capacity per memory of one core.
    pub capacities: BTreeMap<String, u64>,
    /// Cores that ran a program.
    pub cores_used: usize,
    /// Instructions simulated.
    pub instructions: u64,
}

/// The JSON of a `pypto.npu.sweep` display: one row per vec tile shape, in the order given.
#[derive(Debug, Deserialize, Serialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SweepTable {
    /// The kernel's name.
    pub kernel: String,
    /// The NPU preset it ran on.
    pub preset: String,
    /// One row per vec tile shape.
    pub rows: Vec<SweepRow>,
    /// Index of the row with the fewest cycles (`null` when every row failed).
    pub best: Option<usize>,
}

/// One tile shape of a sweep.
#[derive(Debug, Deserialize, Serialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SweepRow {
    /// The vec tile dims.
    pub vec_tile: Vec<usize>,
    /// Simulated cycles (`null` when the shape was refused).
    pub cycles: Option<u64>,
    /// Simulated time in µs.
    pub time_us: Option<f64>,
    /// The busiest resource (`MTE2`, `VECTOR` …).
    pub bound: Option<String>,
    /// Peak UB occupancy in bytes.
    pub peak_ub_bytes: Option<u64>,
    /// Why the shape was refused.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Display, Session};

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

    /// The JSON of a real schedule summary and a real sweep parses into the declared shapes with
    /// unknown fields denied and serialises back to the same JSON: a field added, renamed, removed
    /// or retyped on either side fails here.
    #[test]
    fn real_summaries_and_sweeps_have_the_declared_shape() {
        let mut session = Session::new();
        let kernel =
            "import pypto\n@pypto.kernel\ndef double(x):\n    pypto.set_vec_tile_shapes(8, 16)\n    return x + x\n\
                      x = pypto.ones([16, 32])";
        assert!(session.run_cell(kernel).is_ok());
        let schedule = session.run_cell("pypto.schedule(double, x)");
        let sweep = session.run_cell("pypto.npu.sweep(double, [x], vec_tiles=[[8, 16], [16, 32], [3, 5]])");
        let mut checked = 0;
        for display in schedule.displays.iter().chain(&sweep.displays) {
            let json = serde_json::to_value(display).unwrap();
            match display {
                Display::Schedule(_) => {
                    let summary = serde_json::from_value::<Summary>(json["summary"].clone()).unwrap();
                    assert_eq!(serde_json::to_value(summary).unwrap(), json["summary"]);
                }
                Display::Sweep(_) => {
                    let mut json = json.clone();
                    json.as_object_mut().unwrap().remove("kind");
                    let table = serde_json::from_value::<SweepTable>(json.clone()).unwrap();
                    assert_eq!(serde_json::to_value(&table).unwrap(), json);
                    assert!(table.rows.iter().any(|row| row.error.is_some()), "the [3, 5] row is refused");
                    assert!(table.rows.iter().any(|row| row.cycles.is_some()));
                }
                other => panic!("unexpected display {other:?}"),
            }
            checked += 1;
        }
        assert_eq!(checked, 2, "{schedule:?} {sweep:?}");
    }
}
