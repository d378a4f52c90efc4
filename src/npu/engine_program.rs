//! A core's program as the event loop reads it, prepared once per run: each instruction's cost, its
//! flags in one array per core and what its trace event names, in program order. The loop then
//! reads one compact record per event instead of chasing an `Instruction`'s heap vectors (the
//! profile of `cargo bench --bench npu` showed most of `finish` and `try_start` waiting on those).

use std::ops::Range;
use std::rc::Rc;

use crate::tile::{KernelPlan, TileProgram};

use super::config::NpuConfig;
use super::timing::{instruction_cost, InstructionCost};
use super::trace::tile_buffer;

/// One instruction's record.
#[derive(Clone, Copy)]
pub(super) struct Step {
    /// Its cost, computed once.
    pub cost: InstructionCost,
    /// The op name its trace event shows.
    pub op: &'static str,
    /// The index of its tile's label in `CoreProgram::labels`, `u32::MAX` for none.
    pub tile: u32,
    /// The kernel source line.
    pub source_line: Option<u32>,
    /// Ends of its flag spans in `CoreProgram::flags`, from `flags_start`: waits, sets, cross-core
    /// waits, cross-core sets (each span starts where the previous one ends).
    flags_start: u32,
    flag_ends: [u32; 4],
}

impl Step {
    fn span(&self, which: usize) -> Range<usize> {
        let start = if which == 0 { self.flags_start } else { self.flag_ends[which - 1] };
        start as usize..self.flag_ends[which] as usize
    }
}

/// A core's prepared program.
pub(super) struct CoreProgram {
    /// One record per instruction, in program order.
    pub steps: Vec<Step>,
    /// Instruction indices per pipe (indexed by `Pipe::index`), in program order.
    pub queues: [Vec<u32>; 7],
    /// Every instruction's flag ids, span after span.
    flags: Vec<u32>,
    /// Each buffer's name, shared by the trace events that name it.
    pub labels: Vec<Rc<str>>,
}

impl CoreProgram {
    /// Prepares `program` (a program of `plan`, checked) for `config`.
    pub fn new(plan: &KernelPlan, program: &TileProgram, config: &NpuConfig) -> Self {
        let mut queues: [Vec<u32>; 7] = Default::default();
        let mut flags = Vec::new();
        let mut steps = Vec::with_capacity(program.instructions.len());
        for (index, instruction) in program.instructions.iter().enumerate() {
            queues[instruction.pipe.index()].push(index as u32);
            let flags_start = flags.len() as u32;
            let mut flag_ends = [0; 4];
            for (end, span) in flag_ends.iter_mut().zip([
                &instruction.wait,
                &instruction.set,
                &instruction.cross_wait,
                &instruction.cross_set,
            ]) {
                flags.extend(span.iter().map(|flag| flag.0));
                *end = flags.len() as u32;
            }
            steps.push(Step {
                cost: instruction_cost(plan, program, index, config),
                op: instruction.op.name(),
                tile: tile_buffer(&instruction.op).map_or(u32::MAX, |id| id.0),
                source_line: instruction.source_line,
                flags_start,
                flag_ends,
            });
        }
        let labels = program.buffers.iter().map(|buffer| Rc::from(buffer.name.as_str())).collect();
        CoreProgram { steps, queues, flags, labels }
    }

    /// The flags `step` waits for on its core.
    pub fn waits(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(0)]
    }

    /// The flags `step` sets on its core.
    pub fn sets(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(1)]
    }

    /// The cross-core flags `step` waits for.
    pub fn cross_waits(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(2)]
    }

    /// The cross-core flags `step` sets.
    pub fn cross_sets(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(3)]
    }

    /// The pipe of queue `pipe`'s head instruction after `done` of them finished, if any is left.
    pub fn head(&self, pipe: usize, done: usize) -> Option<u32> {
        self.queues[pipe].get(done).copied()
    }
}
