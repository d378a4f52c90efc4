//! The discrete-event loop: one in-order queue per pipe per core, counting set/wait flags between
//! pipes, and GM transfers whose L2 part (hits, writes into L2) shares the aggregate L2 bandwidth and
//! whose HBM part (fetched lines) shares HBM, max-min fairly while they are active; dirty lines an
//! access evicts are written back by L2 in the background, sharing HBM with no pipe waiting.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use crate::tile::{CoreKind, KernelPlan, Pipe, TileOp};

use super::config::{Architecture, NpuConfig};
use super::error::{NpuError, Result};
use super::l2::region_ranges;
use super::l2::L2Cache;
use super::timing::{instruction_cost, Cost, InstructionCost};
use super::trace::{tile_buffer, Trace, TraceEvent};

/// Totals the summary needs beyond the trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineTotals {
    /// DMA start-up cycles per pipe (summed over cores), indexed by `Pipe::index`.
    pub startup_cycles: [f64; 7],
    /// GM bytes read (L2 hits included).
    pub gm_bytes_read: u64,
    /// GM bytes written.
    pub gm_bytes_written: u64,
    /// GM bytes read that hit L2.
    pub l2_hit_bytes: u64,
    /// Bytes moved between L2 and HBM during the run: fetched lines and evicted dirty lines.
    pub hbm_bytes: u64,
    /// Dirty bytes left in L2 at the end: written to HBM after the kernel, not in its time.
    pub drain_bytes: u64,
    /// Instructions simulated.
    pub instructions: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Finish,
    JoinPool,
}

/// A heap entry: time as ordered bits (times are non-negative), a sequence number for determinism.
type Event = Reverse<(u64, u64, u32, u8, EventKind)>;

struct Active {
    core: u32,
    pipe: u8,
    remaining: f64,
    cap: f64,
    rate: f64,
    /// Moving L2's part (hits, writes into L2), sharing `l2_bytes_per_cycle`; else HBM's part.
    in_l2: bool,
    /// Bytes that cross HBM once the L2 part is done (fetched lines).
    hbm_after: f64,
    /// A write-back of evicted dirty lines by L2 itself: it shares HBM but no pipe waits for it.
    background: bool,
}

struct CoreState {
    queues: [Vec<u32>; 7],
    heads: [usize; 7],
    busy: [bool; 7],
    started: [f64; 7],
    costs: [Option<InstructionCost>; 7],
    sets: Vec<u32>,
    waits: Vec<u32>,
    /// Each buffer's name, shared by the trace events that name it.
    labels: Vec<Rc<str>>,
    /// The L2 part (bytes) of the GM transfer each pipe is running.
    l2_bytes: [u64; 7],
}

/// Runs the timing model of a checked plan from a cold L2: the trace of every instruction and the totals.
pub fn run(plan: &KernelPlan, config: &NpuConfig) -> Result<(Trace, EngineTotals)> {
    run_from(plan, config, L2Cache::new(config.l2_bytes, config.l2_line_bytes))
        .map(|(trace, totals, _)| (trace, totals))
}

/// Runs the plan twice and returns the second run: L2 holds what the first left in it, as when a
/// benchmark repeats a kernel (`pypto.schedule(…, warm_l2=True)`).
pub fn run_warm(plan: &KernelPlan, config: &NpuConfig) -> Result<(Trace, EngineTotals)> {
    let (_, _, l2) = run_from(plan, config, L2Cache::new(config.l2_bytes, config.l2_line_bytes))?;
    run_from(plan, config, l2).map(|(trace, totals, _)| (trace, totals))
}

fn run_from(plan: &KernelPlan, config: &NpuConfig, l2: L2Cache) -> Result<(Trace, EngineTotals, L2Cache)> {
    let mut cores: Vec<CoreState> = plan
        .programs
        .iter()
        .map(|program| {
            let mut queues: [Vec<u32>; 7] = Default::default();
            for (index, instruction) in program.instructions.iter().enumerate() {
                queues[instruction.pipe.index()].push(index as u32);
            }
            let flags = program.flag_count as usize;
            CoreState {
                queues,
                heads: [0; 7],
                busy: [false; 7],
                started: [0.0; 7],
                costs: [None; 7],
                sets: vec![0; flags],
                waits: vec![0; flags],
                labels: program.buffers.iter().map(|buffer| Rc::from(buffer.name.as_str())).collect(),
                l2_bytes: [0; 7],
            }
        })
        .collect();
    let cross_flags = plan.cross_core_flags as usize;
    let mut engine = Engine {
        plan,
        config,
        cross_sets: vec![0; cross_flags],
        cross_waits: vec![0; cross_flags],
        cross_set_happened: false,
        heap: BinaryHeap::new(),
        sequence: 0,
        pool: Vec::new(),
        // Every core starts once the kernel is launched and its first task dispatched.
        now: config.launch_cycles as f64,
        l2,
        totals: EngineTotals::default(),
        events: Vec::new(),
        scratch: Vec::new(),
        no_tile: Rc::from(""),
    };
    let mut dirty: Vec<usize> = (0..cores.len()).collect();
    loop {
        for &core in &dirty {
            engine.try_start(&mut cores[core], core);
        }
        dirty.clear();
        let heap_time = engine.heap.peek().map(|Reverse((bits, ..))| f64::from_bits(*bits));
        let pool_next = engine
            .pool
            .iter()
            .enumerate()
            .map(|(index, active)| (engine.now + active.remaining / active.rate, index))
            .min_by(|left, right| left.0.total_cmp(&right.0));
        let (time, from_pool) = match (heap_time, pool_next) {
            (None, None) => break,
            (Some(time), None) => (time, None),
            (None, Some((time, index))) => (time, Some(index)),
            (Some(heap), Some((pool, index))) => {
                if pool < heap {
                    (pool, Some(index))
                } else {
                    (heap, None)
                }
            }
        };
        engine.advance_pool(time);
        if let Some(index) = from_pool {
            engine.pool[index].remaining = 0.0;
        }
        let mut pool_changed = false;
        let mut position = 0;
        while position < engine.pool.len() {
            let active = &mut engine.pool[position];
            if active.remaining <= 1e-6 && active.in_l2 && active.hbm_after > 0.0 {
                // L2's part is done: the transfer moves on to HBM.
                (active.remaining, active.hbm_after, active.in_l2) = (active.hbm_after, 0.0, false);
                pool_changed = true;
                position += 1;
            } else if active.remaining <= 1e-6 {
                let done = engine.pool.swap_remove(position);
                if !done.background {
                    engine.finish(&mut cores[done.core as usize], done.core as usize, done.pipe as usize);
                    dirty.push(done.core as usize);
                }
                pool_changed = true;
            } else {
                position += 1;
            }
        }
        while let Some(Reverse((bits, _, core, pipe, kind))) = engine.heap.peek().copied() {
            if f64::from_bits(bits) > time {
                break;
            }
            engine.heap.pop();
            match kind {
                EventKind::Finish => {
                    engine.finish(&mut cores[core as usize], core as usize, pipe as usize);
                    dirty.push(core as usize);
                }
                EventKind::JoinPool => {
                    let Some(InstructionCost { cost: Cost::Gm { bytes, path_bytes_per_cycle, .. }, .. }) =
                        cores[core as usize].costs[pipe as usize]
                    else {
                        continue;
                    };
                    // The L2 part moves first, then what crosses HBM.
                    let local = cores[core as usize].l2_bytes[pipe as usize] as f64;
                    engine.pool.push(Active {
                        core,
                        pipe,
                        remaining: if local > 0.0 { local } else { bytes as f64 },
                        cap: path_bytes_per_cycle,
                        rate: 0.0,
                        in_l2: local > 0.0,
                        hbm_after: if local > 0.0 { bytes as f64 } else { 0.0 },
                        background: false,
                    });
                    pool_changed = true;
                }
            }
        }
        if pool_changed {
            engine.assign_rates();
        }
        if engine.cross_set_happened {
            // A cross-core flag may release a pipe on any core.
            engine.cross_set_happened = false;
            dirty.extend(0..cores.len());
        }
        dirty.sort_unstable();
        dirty.dedup();
    }
    for (core, state) in cores.iter().enumerate() {
        for pipe in Pipe::ALL {
            let head = state.heads[pipe.index()];
            if let Some(&index) = state.queues[pipe.index()].get(head) {
                let op = plan.programs[core].instructions[index as usize].op.name();
                return Err(NpuError::Deadlock { core, pipe: pipe.name(), instruction: index as usize, op });
            }
        }
    }
    let Engine { events, mut totals, l2, .. } = engine;
    totals.drain_bytes = l2.dirty_bytes();
    // On a coupled chip every core has both units, whatever one program happens to use.
    let core_kinds = plan
        .programs
        .iter()
        .map(|program| if config.architecture == Architecture::Coupled { CoreKind::Mixed } else { program.core_kind() })
        .collect();
    Ok((Trace { clock_mhz: config.clock_mhz, core_kinds, events }, totals, l2))
}

struct Engine<'a> {
    plan: &'a KernelPlan,
    config: &'a NpuConfig,
    heap: BinaryHeap<Event>,
    sequence: u64,
    pool: Vec<Active>,
    now: f64,
    l2: L2Cache,
    totals: EngineTotals,
    events: Vec<TraceEvent>,
    scratch: Vec<bool>,
    /// The label of events that write no tile.
    no_tile: Rc<str>,
    cross_sets: Vec<u32>,
    cross_waits: Vec<u32>,
    cross_set_happened: bool,
}

impl Engine<'_> {
    fn schedule(&mut self, time: f64, core: usize, pipe: usize, kind: EventKind) {
        self.sequence += 1;
        self.heap.push(Reverse((time.to_bits(), self.sequence, core as u32, pipe as u8, kind)));
    }

    /// Starts the head instruction of every idle pipe whose flags are all set.
    fn try_start(&mut self, state: &mut CoreState, core: usize) {
        let program = &self.plan.programs[core];
        for pipe in 0..7 {
            if state.busy[pipe] {
                continue;
            }
            let Some(&index) = state.queues[pipe].get(state.heads[pipe]) else { continue };
            let instruction = &program.instructions[index as usize];
            if !instruction.wait.iter().all(|flag| state.sets[flag.0 as usize] > state.waits[flag.0 as usize]) {
                continue;
            }
            if !instruction
                .cross_wait
                .iter()
                .all(|flag| self.cross_sets[flag.0 as usize] > self.cross_waits[flag.0 as usize])
            {
                continue;
            }
            for flag in &instruction.wait {
                state.waits[flag.0 as usize] += 1;
            }
            for flag in &instruction.cross_wait {
                self.cross_waits[flag.0 as usize] += 1;
            }
            let cost = instruction_cost(self.plan, program, index as usize, self.config);
            state.busy[pipe] = true;
            state.started[pipe] = self.now;
            state.costs[pipe] = Some(cost);
            self.totals.instructions += 1;
            match cost.cost {
                Cost::Fixed { cycles } => self.schedule(self.now + cycles, core, pipe, EventKind::Finish),
                Cost::Gm { bytes, startup, write, read_first, .. } => {
                    self.totals.startup_cycles[pipe] += startup;
                    let region = match &instruction.op {
                        TileOp::CopyIn { source, .. } => source,
                        TileOp::CopyOut { destination, .. } | TileOp::CopyOutAccumulate { destination, .. } => {
                            destination
                        }
                        _ => unreachable!("only GM copies have a GM cost"),
                    };
                    let tensor = &self.plan.tensors[region.tensor.0 as usize];
                    let ranges = region_ranges(
                        &tensor.shape,
                        tensor.dtype.size_in_bytes() as u64,
                        &region.offsets,
                        &region.shape,
                    );
                    // Hits move at the core's path rate; HBM moves the fetched lines and the
                    // written bytes.
                    let mut local_bytes = 0;
                    let mut hbm_bytes = 0;
                    let mut written_back = 0;
                    if !write || read_first {
                        let traffic = self.l2.read(region.tensor.0, &ranges);
                        self.totals.gm_bytes_read += bytes;
                        self.totals.l2_hit_bytes += traffic.hit_bytes;
                        local_bytes += traffic.hit_bytes;
                        hbm_bytes += traffic.fetched_bytes;
                        written_back += traffic.written_back_bytes;
                    }
                    if write {
                        // Write-back: the bytes go into L2 at the path rate and stay there dirty;
                        // HBM moves only the dirty lines the write evicts (l2_write_back.rs).
                        self.totals.gm_bytes_written += bytes;
                        let traffic = self.l2.write(region.tensor.0, &ranges);
                        local_bytes += bytes;
                        written_back += traffic.written_back_bytes;
                    }
                    self.totals.hbm_bytes += hbm_bytes + written_back;
                    if written_back > 0 {
                        // L2 writes the evicted dirty lines back on its own: they take a share of
                        // HBM from now on, and no pipe waits for them.
                        self.pool.push(Active {
                            core: core as u32,
                            pipe: pipe as u8,
                            remaining: written_back as f64,
                            cap: f64::INFINITY,
                            rate: 0.0,
                            in_l2: false,
                            hbm_after: 0.0,
                            background: true,
                        });
                        self.assign_rates();
                    }
                    // After the start-up the transfer joins the pool: its L2 part shares the
                    // aggregate L2 bandwidth, its HBM part HBM's (both at most the path rate).
                    state.l2_bytes[pipe] = local_bytes;
                    if hbm_bytes == 0 && local_bytes == 0 {
                        self.schedule(self.now + startup, core, pipe, EventKind::Finish);
                    } else {
                        if let Some(InstructionCost { cost: Cost::Gm { bytes: pooled, .. }, .. }) =
                            state.costs[pipe].as_mut()
                        {
                            *pooled = hbm_bytes;
                        }
                        self.schedule(self.now + startup, core, pipe, EventKind::JoinPool);
                    }
                }
            }
        }
    }

    fn finish(&mut self, state: &mut CoreState, core: usize, pipe: usize) {
        let program = &self.plan.programs[core];
        let index = state.queues[pipe][state.heads[pipe]] as usize;
        let instruction = &program.instructions[index];
        for flag in &instruction.set {
            state.sets[flag.0 as usize] += 1;
        }
        for flag in &instruction.cross_set {
            self.cross_sets[flag.0 as usize] += 1;
            self.cross_set_happened = true;
        }
        let cost = state.costs[pipe].take().expect("a finishing pipe has a cost");
        state.busy[pipe] = false;
        state.heads[pipe] += 1;
        self.events.push(TraceEvent {
            core: core as u32,
            pipe: Pipe::ALL[pipe],
            start: state.started[pipe],
            end: self.now,
            op: instruction.op.name(),
            tile: tile_buffer(&instruction.op)
                .and_then(|id| state.labels.get(id.0 as usize))
                .map_or_else(|| self.no_tile.clone(), Rc::clone),
            instruction: index as u32,
            bytes: cost.bytes,
            flops: cost.flops,
            source_line: instruction.source_line,
        });
    }

    fn advance_pool(&mut self, time: f64) {
        let elapsed = time - self.now;
        if elapsed > 0.0 {
            for active in &mut self.pool {
                active.remaining -= active.rate * elapsed;
            }
        }
        self.now = self.now.max(time);
    }

    /// Max-min fair shares of HBM among the transfers crossing it and of the aggregate L2
    /// bandwidth among those moving L2's part.
    fn assign_rates(&mut self) {
        self.share_rates(false, self.config.hbm_bytes_per_cycle);
        self.share_rates(true, self.config.l2_bytes_per_cycle);
    }

    /// Max-min fair shares of `total` among the transfers of one stage: transfers whose path is
    /// slower than the fair share keep their path rate, the rest split what is left.
    fn share_rates(&mut self, in_l2: bool, total: f64) {
        let mut left = total;
        let mut unassigned = self.pool.iter().filter(|active| active.in_l2 == in_l2).count();
        self.scratch.clear();
        self.scratch.extend(self.pool.iter().map(|active| active.in_l2 != in_l2));
        while unassigned > 0 {
            let share = left / unassigned as f64;
            let mut changed = false;
            for (active, fixed) in self.pool.iter_mut().zip(self.scratch.iter_mut()) {
                if !*fixed && active.cap <= share {
                    active.rate = active.cap;
                    left -= active.cap;
                    unassigned -= 1;
                    *fixed = true;
                    changed = true;
                }
            }
            if !changed {
                for (active, fixed) in self.pool.iter_mut().zip(&self.scratch) {
                    if !*fixed {
                        active.rate = share;
                    }
                }
                break;
            }
        }
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
