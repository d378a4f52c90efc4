//! The discrete-event loop: one in-order queue per pipe per core, counting set/wait flags between
//! pipes, and GM transfers whose L2 part (hits, writes into L2) shares the aggregate L2 bandwidth and
//! whose HBM part (fetched lines) shares HBM, max-min fairly while they are active; dirty lines an
//! access evicts are written back by L2 in the background, sharing HBM with no pipe waiting.

use crate::tile::{CoreKind, KernelPlan, Pipe};

use super::config::{Architecture, NpuConfig};
use super::engine_pool::{Active, Pool};
use super::engine_program::{headless, CoreProgram, END, NOT_A_COPY};
use super::engine_queue::{Event, EventKind, EventQueue};
use super::engine_totals::EngineTotals;
use super::error::{NpuError, Result};
use super::l2::L2Cache;
use super::timing::Cost;
use super::trace::{Trace, TraceEvent};

/// Every pipe's bit (`Pipe::index`).
const ALL_PIPES: u8 = 0x7f;

/// A core's program (prepared as the run reaches it) and what changes as it runs.
struct CoreState {
    program: CoreProgram,
    /// Per pipe, the instruction index of its head, `END` when none is prepared (or it is done).
    heads: [u32; 7],
    /// The pipes running an instruction (bit `Pipe::index` each).
    busy: u8,
    /// The idle pipes whose head is prepared: those `try_start` looks at, one bit each, instead
    /// of testing all seven pipes at every start. A pipe in neither mask has no head (`END`).
    ready: u8,
    started: [f64; 7],
    /// Bytes a pipe's GM transfer moves through HBM (set when it starts).
    pooled: [u64; 7],
    sets: Vec<u32>,
    waits: Vec<u32>,
    /// The L2 part (bytes) of the GM transfer each pipe is running.
    l2_bytes: [u64; 7],
    /// Per pipe: the flag its head was last found waiting for (it starts no sooner than that is set).
    blocked_on: [Blocked; 7],
    /// When each pipe's last GM transfer finished: a transfer starting at that moment streams on
    /// from it (its requests were outstanding) and waits no first-byte latency.
    gm_end: [f64; 7],
}

/// What a pipe's head was last found waiting for.
#[derive(Clone, Copy)]
enum Blocked {
    Not,
    /// A flag of its core.
    Flag(u32),
    /// A cross-core flag.
    CrossFlag(u32),
}

/// Runs the timing model of a checked plan from a cold L2: the trace of every instruction and the totals.
pub fn run(plan: &KernelPlan, config: &NpuConfig) -> Result<(Trace, EngineTotals)> {
    run_counted(plan, config, &pipe_counts(plan))
}

/// `run` with each program's instructions per pipe counted (`check::check_plan_counting`).
pub(crate) fn run_counted(plan: &KernelPlan, config: &NpuConfig, counts: &[[u32; 7]]) -> Result<(Trace, EngineTotals)> {
    run_from(plan, config, L2Cache::new(config.l2_bytes, config.l2_line_bytes), counts)
        .map(|(trace, totals, _)| (trace, totals))
}

/// Runs the plan twice and returns the second run: L2 holds what the first left in it, as when a
/// benchmark repeats a kernel (`pypto.schedule(…, warm_l2=True)`).
pub fn run_warm(plan: &KernelPlan, config: &NpuConfig) -> Result<(Trace, EngineTotals)> {
    run_warm_counted(plan, config, &pipe_counts(plan))
}

/// `run_warm` with each program's instructions per pipe counted.
pub(crate) fn run_warm_counted(
    plan: &KernelPlan,
    config: &NpuConfig,
    counts: &[[u32; 7]],
) -> Result<(Trace, EngineTotals)> {
    let (_, _, l2) = run_from(plan, config, L2Cache::new(config.l2_bytes, config.l2_line_bytes), counts)?;
    run_from(plan, config, l2, counts).map(|(trace, totals, _)| (trace, totals))
}

/// Each program's instructions per pipe (`Pipe::index`).
fn pipe_counts(plan: &KernelPlan) -> Vec<[u32; 7]> {
    let count = |program: &crate::tile::TileProgram| {
        let mut counts = [0u32; 7];
        for instruction in &program.instructions {
            counts[instruction.pipe.index()] += 1;
        }
        counts
    };
    plan.programs.iter().map(count).collect()
}

fn run_from(
    plan: &KernelPlan,
    config: &NpuConfig,
    mut l2: L2Cache,
    counts: &[[u32; 7]],
) -> Result<(Trace, EngineTotals, L2Cache)> {
    for (index, tensor) in plan.tensors.iter().enumerate() {
        let bytes = tensor.shape.iter().product::<usize>() * tensor.dtype.size_in_bytes();
        l2.size_tensor(index as u32, bytes as u64);
    }
    let mut labels = Vec::new();
    let mut cores: Vec<CoreState> = plan
        .programs
        .iter()
        .zip(counts)
        .map(|(program, &counts)| CoreState {
            program: CoreProgram::new(program, counts, &mut labels),
            heads: [END; 7],
            busy: 0,
            ready: 0,
            started: [0.0; 7],
            pooled: [0; 7],
            sets: vec![0; program.flag_count as usize],
            waits: vec![0; program.flag_count as usize],
            l2_bytes: [0; 7],
            gm_end: [f64::NAN; 7],
            blocked_on: [Blocked::Not; 7],
        })
        .collect();
    let cross_flags = plan.cross_core_flags as usize;
    let instructions = plan.programs.iter().map(|program| program.instructions.len()).sum();
    let mut engine = Engine {
        plan,
        config,
        names: Vec::new(),
        cross_sets: vec![0; cross_flags],
        cross_waits: vec![0; cross_flags],
        cross_set_happened: false,
        rates_stale: false,
        queue: EventQueue::default(),
        pool: Pool::default(),
        // Every core starts once the kernel is launched and its first task dispatched.
        now: config.launch_cycles as f64,
        l2,
        totals: EngineTotals::default(),
        events: Vec::with_capacity(instructions),
        ranges: Vec::new(),
        finished: Vec::new(),
    };
    let mut dirty: Vec<usize> = (0..cores.len()).collect();
    loop {
        for &core in &dirty {
            engine.try_start(&mut cores[core], core);
        }
        dirty.clear();
        if engine.rates_stale {
            // Once for every write-back that joined at this moment: the rates and the earliest
            // finish are a function of the transfers and their bytes left, whatever the order they
            // joined in (`Pool::assign_rates`), so one call gives what one per join gave.
            engine.rates_stale = false;
            engine.pool.assign_rates(config.hbm_bytes_per_cycle, config.l2_bytes_per_cycle);
        }
        let heap_time = engine.queue.next_time();
        let (time, from_pool) = match (heap_time, engine.pool.next()) {
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
        // A comparison, not `f64::max` (a call in the wasm build; times are never NaN).
        if time > engine.now {
            engine.now = time;
        }
        let mut pool_changed = false;
        // The pool is brought up to date only when a transfer leaves it (or one joins, below):
        // between those moments every rate is constant.
        if from_pool.is_some() || engine.pool.due(time) {
            engine.pool.advance(time);
            let mut finished = std::mem::take(&mut engine.finished);
            engine.pool.take_finished(from_pool, &mut finished);
            for done in finished.drain(..) {
                // A write-back of evicted lines by L2 itself finishes no instruction.
                if done.background {
                    continue;
                }
                engine.finish(&mut cores[done.core as usize], done.core as usize, done.pipe as usize);
                dirty.push(done.core as usize);
            }
            engine.finished = finished;
            pool_changed = true;
        }
        while let Some(Event { core, pipe, kind, .. }) = engine.queue.pop_due(time) {
            let (core, pipe) = (core as usize, pipe as usize);
            match kind {
                EventKind::Finish => {
                    engine.finish(&mut cores[core], core, pipe);
                    dirty.push(core);
                }
                EventKind::JoinPool => {
                    let state = &cores[core];
                    let step = state.program.step(state.heads[pipe]);
                    let Some(copy) = state.program.copy(step) else { continue };
                    let Cost::Gm { path_bytes_per_cycle, .. } = copy.cost else { continue };
                    // The L2 part moves first, then what crosses HBM.
                    engine.pool.advance(time);
                    let state = &cores[core];
                    let (local, fetched) = (state.l2_bytes[pipe] as f64, state.pooled[pipe] as f64);
                    let core_hbm = config.hbm_core_bytes_per_cycle;
                    engine.pool.join(core as u32, pipe as u8, local, fetched, path_bytes_per_cycle, core_hbm);
                    pool_changed = true;
                }
            }
        }
        if pool_changed {
            engine.pool.assign_rates(config.hbm_bytes_per_cycle, config.l2_bytes_per_cycle);
        }
        if engine.cross_set_happened {
            // A cross-core flag may release a pipe on any core.
            engine.cross_set_happened = false;
            dirty.extend(0..cores.len());
        }
        dirty.sort_unstable();
        dirty.dedup();
    }
    for (core, state) in cores.iter_mut().enumerate() {
        let program = &plan.programs[core];
        state.program.prepare_heads(&mut state.heads, plan, program, config, &mut engine.names);
        for pipe in Pipe::ALL {
            let head = state.heads[pipe.index()];
            if head != END {
                let index = head as usize;
                let op = plan.programs[core].instructions[index].op.name();
                return Err(NpuError::Deadlock { core, pipe: pipe.name(), instruction: index, op });
            }
        }
    }
    let Engine { events, mut totals, l2, .. } = engine;
    totals.drain_bytes = l2.dirty_bytes();
    for state in &cores {
        for (pipe, users) in totals.pipe_users.iter_mut().enumerate() {
            *users += u32::from(state.program.uses(pipe));
        }
    }
    // On a coupled chip every core has both units, whatever one program happens to use.
    let core_kinds = cores
        .iter()
        .map(
            |state| {
                if config.architecture == Architecture::Coupled {
                    CoreKind::Mixed
                } else {
                    state.program.core_kind()
                }
            },
        )
        .collect();
    Ok((Trace { clock_mhz: config.clock_mhz, core_kinds, labels, events }, totals, l2))
}

struct Engine<'a> {
    plan: &'a KernelPlan,
    config: &'a NpuConfig,
    /// The op names of every core's program (`Shown::name` indexes them).
    names: Vec<&'static str>,
    queue: EventQueue,
    pool: Pool,
    now: f64,
    l2: L2Cache,
    totals: EngineTotals,
    events: Vec<TraceEvent>,
    /// The byte ranges of the GM copy being started (reused: no allocation per copy).
    ranges: Vec<(u64, u64)>,
    /// The transfers that left the pool at this event (reused).
    finished: Vec<Active>,
    cross_sets: Vec<u32>,
    cross_waits: Vec<u32>,
    cross_set_happened: bool,
    /// A write-back joined the pool since its rates were last assigned.
    rates_stale: bool,
}

impl Engine<'_> {
    fn schedule(&mut self, time: f64, core: usize, pipe: usize, kind: EventKind) {
        self.queue.schedule(time, core, pipe, kind);
    }

    /// Starts the head instruction of every idle pipe whose flags are all set.
    fn try_start(&mut self, state: &mut CoreState, core: usize) {
        if state.program.needs_preparing(ALL_PIPES & !(state.busy | state.ready)) {
            let program = &self.plan.programs[core];
            state.program.prepare_heads(&mut state.heads, self.plan, program, self.config, &mut self.names);
            state.ready = ALL_PIPES & !headless(&state.heads) & !state.busy;
        }
        // In pipe order, as a pass over all seven pipes would take them.
        let mut candidates = state.ready;
        while candidates != 0 {
            let pipe = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            // A pipe found waiting is looked at again only once the flag it waited for is set:
            // its step, the step's flags and their counters are not read again until then.
            match state.blocked_on[pipe] {
                Blocked::Not => {}
                Blocked::Flag(flag) if state.sets[flag as usize] <= state.waits[flag as usize] => continue,
                Blocked::CrossFlag(flag) if self.cross_sets[flag as usize] <= self.cross_waits[flag as usize] => {
                    continue
                }
                Blocked::Flag(_) | Blocked::CrossFlag(_) => state.blocked_on[pipe] = Blocked::Not,
            }
            let program = &state.program;
            let step = program.step(state.heads[pipe]);
            let unset =
                program.waits(step).iter().find(|&&flag| state.sets[flag as usize] <= state.waits[flag as usize]);
            if let Some(&flag) = unset {
                state.blocked_on[pipe] = Blocked::Flag(flag);
                continue;
            }
            let cross_waits = program.cross_waits(step);
            let unset =
                cross_waits.iter().find(|&&flag| self.cross_sets[flag as usize] <= self.cross_waits[flag as usize]);
            if let Some(&flag) = unset {
                state.blocked_on[pipe] = Blocked::CrossFlag(flag);
                continue;
            }
            for &flag in program.waits(step) {
                state.waits[flag as usize] += 1;
            }
            for &flag in cross_waits {
                self.cross_waits[flag as usize] += 1;
            }
            state.busy |= 1 << pipe;
            state.ready &= !(1 << pipe);
            state.started[pipe] = self.now;
            self.totals.instructions += 1;
            match program.copy(step) {
                None => self.schedule(self.now + step.cycles, core, pipe, EventKind::Finish),
                Some(&copy) => self.start_copy(state, core, pipe, copy),
            }
        }
    }

    fn finish(&mut self, state: &mut CoreState, core: usize, pipe: usize) {
        let program = &state.program;
        let step = program.step(state.heads[pipe]);
        let shown = &step.shown;
        for &flag in program.sets(step) {
            state.sets[flag as usize] += 1;
        }
        for &flag in program.cross_sets(step) {
            self.cross_sets[flag as usize] += 1;
            self.cross_set_happened = true;
        }
        state.busy &= !(1 << pipe);
        state.heads[pipe] = step.next;
        if step.next != END {
            state.ready |= 1 << pipe;
        }
        if step.copy != NOT_A_COPY {
            state.gm_end[pipe] = self.now;
        }
        // The summary's figures, in the order of the events (`summarize` reads them here).
        if self.now > self.totals.end_cycle {
            self.totals.end_cycle = self.now;
        }
        self.totals.busy_cycles[pipe] += self.now - state.started[pipe];
        self.totals.flops += shown.flops;
        self.events.push(TraceEvent {
            core: core as u32,
            pipe: Pipe::ALL[pipe],
            start: state.started[pipe],
            end: self.now,
            op: self.names[shown.name as usize],
            tile: shown.tile,
            instruction: step.instruction,
            bytes: shown.bytes,
            flops: shown.flops,
            source_line: shown.source_line,
        });
    }
}

#[path = "engine_copy.rs"]
mod copy;

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
