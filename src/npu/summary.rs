//! The summary of a run: time, busy fraction per pipe, GM traffic, FLOP/s, the bound and why, and
//! peak occupancy per memory against its capacity.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::messages::Message;
use crate::tile::{KernelPlan, Memory, Pipe};

use super::capacity::occupancy;
use super::config::NpuConfig;
use super::engine_totals::EngineTotals;

/// What a schedule object shows (DESIGN §2): the figures of one simulated kernel run.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
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
    /// Why: notes about the bound (start-up latency share, idle pipes …) as messages.
    pub notes: Vec<Message>,
    /// Largest bytes in use per memory on any one core.
    pub peak_occupancy: BTreeMap<String, u64>,
    /// Capacity per memory of one core.
    pub capacities: BTreeMap<String, u64>,
    /// Cores that ran a program.
    pub cores_used: usize,
    /// Instructions simulated.
    pub instructions: u64,
}

/// Folds the totals of a run into its summary.
pub fn summarize(plan: &KernelPlan, config: &NpuConfig, totals: &EngineTotals) -> Summary {
    // The engine kept the figures as the instructions finished (no pass over the events here).
    let (end, busy, flops, users) = (totals.end_cycle, totals.busy_cycles, totals.flops, totals.pipe_users);
    let cycles = end.ceil() as u64;
    let time_us = end / config.clock_mhz;
    let mut pipe_busy = BTreeMap::new();
    let mut bound = (Pipe::Scalar, -1.0);
    for pipe in Pipe::ALL {
        if users[pipe.index()] == 0 {
            continue;
        }
        let fraction = if end > 0.0 { busy[pipe.index()] / (end * users[pipe.index()] as f64) } else { 0.0 };
        pipe_busy.insert(pipe.name().to_string(), fraction);
        if fraction > bound.1 {
            bound = (pipe, fraction);
        }
    }
    let seconds = time_us * 1e-6;
    let achieved = if seconds > 0.0 { flops as f64 / seconds } else { 0.0 };
    let peak = config.cube_peak_flops();
    let mut notes = Vec::new();
    let (bound_pipe, bound_fraction) = bound;
    if bound_fraction >= 0.0 {
        let pipe = bound_pipe.name().to_string();
        notes.push(Message::BusiestPipe { pipe: pipe.clone(), percent: (bound_fraction * 100.0).round() as u32 });
        let startup = totals.startup_cycles[bound_pipe.index()];
        if busy[bound_pipe.index()] > 0.0 && startup > 0.0 {
            let share = startup / busy[bound_pipe.index()];
            if share >= 0.2 {
                notes.push(Message::StartupShare { pipe, percent: (share * 100.0).round() as u32 });
            }
        }
        if bound_fraction < 0.6 {
            notes.push(Message::PipesWait);
        }
    }
    if let Some(requested) = plan.single_buffered_from {
        notes.push(Message::SingleBuffered { requested });
    }
    if flops > 0 && pipe_busy.contains_key("CUBE") {
        notes.push(Message::CubePeak { percent: (100.0 * achieved / peak).round() as u32 });
    }
    let mut peak_occupancy = BTreeMap::new();
    for program in &plan.programs {
        for (memory, bytes) in occupancy(program, config) {
            let entry = peak_occupancy.entry(memory.name().to_string()).or_insert(0);
            *entry = (*entry).max(bytes);
        }
    }
    let capacities =
        Memory::ON_CORE.iter().map(|memory| (memory.name().to_string(), config.capacity(*memory))).collect();
    Summary {
        preset: config.name.clone(),
        cycles,
        time_us,
        pipe_busy,
        gm_bytes_read: totals.gm_bytes_read,
        gm_bytes_written: totals.gm_bytes_written,
        l2_hit_bytes: totals.l2_hit_bytes,
        flops,
        achieved_flops_per_second: achieved,
        peak_flops_per_second: peak,
        bound: bound_pipe.name().to_string(),
        notes,
        peak_occupancy,
        capacities,
        cores_used: plan.programs.len(),
        instructions: totals.instructions,
    }
}
