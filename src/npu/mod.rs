//! The simulated NPU. Stages joined by plain data: `NpuConfig` (presets, custom JSON) → a checked
//! `KernelPlan` (capacity, alignment, bounds) → the event-driven timing model → `Trace` → `Summary`;
//! `execute` runs the same plan on values.
//! Never sees the language.

mod burst;
mod capacity;
mod check;
mod check_vector;
mod config;
mod custom_preset;
mod engine;
mod engine_pool;
mod engine_program;
mod engine_queue;
mod engine_totals;
mod error;
mod execute;
mod execute_vector;
mod l2;
mod summary;
mod timing;
mod trace;
mod trace_json;
mod vector_class;

pub use capacity::{buffer_bytes, occupancy};
pub use check::check_plan;
pub use config::{Architecture, NpuConfig, PRESET_NAMES};
pub use custom_preset::{custom_preset, custom_preset_from_json};
pub use engine::{run, run_warm};
pub use engine_totals::EngineTotals;
pub use error::{NpuError, Result};
pub use execute::{allocate_gm, allocate_gm_after, execute};
pub use summary::{summarize, Summary};
pub use timing::{instruction_cost, Cost, InstructionCost};
pub use trace::{core_name, tile_label, Trace, TraceEvent};

use crate::tile::{KernelPlan, LoweringTarget};

/// The result of simulating a kernel: every event and the summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Simulation {
    /// One event per instruction.
    pub trace: Trace,
    /// The figures of the run.
    pub summary: Summary,
}

/// Checks `plan` against `config`, runs the timing model from a cold L2 and summarises it.
pub fn simulate(plan: &KernelPlan, config: &NpuConfig) -> Result<Simulation> {
    let counts = check::check_plan_counting(plan, config)?;
    let (trace, totals) = engine::run_counted(plan, config, &counts)?;
    let summary = summarize(plan, config, &totals);
    Ok(Simulation { trace, summary })
}

/// As [`simulate`], for a kernel run again right after itself: L2 starts with what the first run
/// left in it (the warm-L2 figures benchmarks report when they repeat a kernel).
pub fn simulate_warm(plan: &KernelPlan, config: &NpuConfig) -> Result<Simulation> {
    let counts = check::check_plan_counting(plan, config)?;
    let (trace, totals) = engine::run_warm_counted(plan, config, &counts)?;
    let summary = summarize(plan, config, &totals);
    Ok(Simulation { trace, summary })
}

/// What the kernel compiler needs to know of a preset: the core kinds and counts and the UB
/// (the tile layer never sees `NpuConfig`).
pub fn lowering_target(config: &NpuConfig) -> LoweringTarget {
    LoweringTarget {
        split: config.architecture == Architecture::Split,
        cube_cores: config.cube_cores as usize,
        vector_cores: config.vector_cores as usize,
        ub_bytes: config.ub_bytes,
        ub_alignment: config.ub_alignment,
        l0_bytes: [config.l0a_bytes, config.l0b_bytes],
    }
}
