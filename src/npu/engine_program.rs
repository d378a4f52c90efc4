//! A core's program as the event loop reads it: per instruction, one 64-byte record with what
//! starting and finishing it needs and what its trace event shows; each pipe's queue a chain through
//! them (`Step::next`). The records are prepared as the run reaches them, a few dozen instructions
//! at a time, in program order, and dropped once every queue head has passed them: the records
//! kept are a window that stays in the host's cache. (Prepared all before the run, the 4096³
//! GEMM's 7 MB of records had left the cache by the time its 168 queue heads, too many streams to
//! prefetch, reached them; prepared as the run went but kept whole, they still were fresh pages
//! written once and read back from memory.) The loop never reads an `Instruction` (its op, its heap
//! vectors) while it runs.

use std::ops::Range;

use crate::tile::{GmRegion, KernelPlan, TileOp, TileProgram};

use super::config::NpuConfig;
use super::l2::{region_ranges_into, RowBox};
use super::timing::{instruction_cost, Cost};
use super::trace::{tile_buffer, NO_TILE};

/// `Step::copy` of an instruction that is not a GM copy.
pub(super) const NOT_A_COPY: u32 = u32::MAX;

/// No step: the end of a queue, or a head not prepared yet.
pub(super) const END: u32 = u32::MAX;

/// Instructions prepared at a time.
const CHUNK: usize = 32;

/// How many instructions ahead of the one being prepared the next is fetched into the cache.
const AHEAD: usize = 8;

/// A hint that `instructions[index]` is read soon: the host lines at every 64 bytes from its start,
/// four for a 248-byte instruction (hinting a fifth where it straddles one made the 4096³ GEMM
/// slower). Non-temporal: the preparation reads an instruction once, so its lines are kept out of
/// the outer caches, where the steps, flags and L2 tables the loop reads again live (4096³ GEMM
/// 1–3 % faster than with `_MM_HINT_T0` in eight alternations; SwiGLU b unchanged). x86-64 only;
/// elsewhere, and past the end, nothing.
#[inline]
fn prefetch_instruction(instructions: &[crate::tile::Instruction], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(instruction) = instructions.get(index) {
        let start = (instruction as *const crate::tile::Instruction).cast::<i8>();
        for offset in (0..std::mem::size_of::<crate::tile::Instruction>()).step_by(64) {
            // SAFETY: a prefetch only hints the cache; the address lies within the instruction.
            unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_NTA }>(start.add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (instructions, index);
}

/// The pipes whose head is `END` in `heads` (bit `Pipe::index` each).
pub(super) fn headless(heads: &[u32; 7]) -> u8 {
    (0..7).filter(|&pipe| heads[pipe] == END).fold(0u8, |pipes, pipe| pipes | 1 << pipe)
}

/// What the loop needs to start and finish one instruction, and what its trace event shows: one
/// 64-byte record (one cache line), so that the line `try_start` brings in serves `finish` too.
#[derive(Clone, Copy)]
#[repr(align(64))]
pub(super) struct Step {
    /// The cycles of a fixed-cost instruction.
    pub cycles: f64,
    /// Its index in its program.
    pub instruction: u32,
    /// The index of its record in `CoreProgram::copies`, `NOT_A_COPY` for a fixed cost.
    pub copy: u32,
    /// The next step of its queue, `END` until it is prepared (or for the last).
    pub next: u32,
    /// Where its flags start in `CoreProgram::flags`: waits, sets, cross-core waits, cross-core
    /// sets, one span after the other, each ending `ends` flags from the start (running totals:
    /// a span is two loads, not a sum of the counts before it).
    flags_start: u32,
    ends: [u16; 4],
    /// Its trace fields.
    pub shown: Shown,
}

const _: () = assert!(std::mem::size_of::<Step>() == 64);

impl Step {
    /// Span `which` of its flags in a list of flags that starts at flag index `first_flag`.
    #[inline]
    fn span(&self, which: usize, first_flag: u32) -> Range<usize> {
        let start = (self.flags_start - first_flag) as usize;
        let skipped = if which == 0 { 0 } else { self.ends[which - 1] as usize };
        start + skipped..start + self.ends[which] as usize
    }
}

/// What an instruction's trace event shows beyond its times.
#[derive(Clone, Copy)]
pub(super) struct Shown {
    /// Bytes moved or processed.
    pub bytes: u64,
    /// Floating-point operations.
    pub flops: u64,
    /// The index of its tile's label in `Trace::labels`, `NO_TILE` for none.
    pub tile: u32,
    /// The kernel source line.
    pub source_line: Option<u32>,
    /// The index of its op name in the run's names (`Engine::names`).
    pub name: u8,
}

/// A GM copy: its cost and the tensor bytes it moves.
#[derive(Clone, Copy)]
pub(super) struct GmCopy {
    /// Its cost (always `Cost::Gm`).
    pub cost: Cost,
    /// The tensor.
    pub tensor: u32,
    /// Its bytes as rows, or the instruction whose region to walk (regions of rank above 2).
    pub walk: Walk,
}

/// The bytes of a copy: a box of rows (rank 2 or less), or the instruction whose region to walk.
#[derive(Clone, Copy)]
pub(super) enum Walk {
    Rows(RowBox),
    Region { instruction: u32 },
}

impl Walk {
    fn of(region: &GmRegion, tensor_shape: &[usize], element_bytes: u64, instruction: u32) -> Walk {
        let (offsets, shape) = (&region.offsets, &region.shape);
        match (tensor_shape.len(), shape.contains(&0)) {
            (_, true) | (0, _) => Walk::Rows(RowBox::default()),
            (1, false) => {
                let row = shape[0] as u64 * element_bytes;
                Walk::Rows(RowBox { start: offsets[0] as u64 * element_bytes, row, stride: row, rows: 1 })
            }
            (2, false) => {
                let width = tensor_shape[1] as u64;
                let start = (offsets[0] as u64 * width + offsets[1] as u64) * element_bytes;
                let (row, stride) = (shape[1] as u64 * element_bytes, width * element_bytes);
                Walk::Rows(RowBox { start, row, stride, rows: shape[0] as u64 })
            }
            _ => Walk::Region { instruction },
        }
    }

    /// The ranges of a walk by rows into `ranges` (cleared first); false for a region walk.
    #[cfg(test)]
    fn rows_into(&self, ranges: &mut Vec<(u64, u64)>) -> bool {
        match self {
            Walk::Rows(rows) => rows.ranges_into(ranges),
            Walk::Region { .. } => return false,
        }
        true
    }
}

impl GmCopy {
    /// The byte ranges of a region walk, into `ranges` (cleared first); a box of rows is left to
    /// the L2 (`L2Cache::read_box`), which knows boxes it has seen whole.
    pub fn region_ranges_into(&self, plan: &KernelPlan, program: &TileProgram, ranges: &mut Vec<(u64, u64)>) {
        match self.walk {
            Walk::Region { instruction } => {
                let region = region_of(&program.instructions[instruction as usize].op);
                let tensor = &plan.tensors[region.tensor.0 as usize];
                let element_bytes = tensor.dtype.size_in_bytes() as u64;
                region_ranges_into(&tensor.shape, element_bytes, &region.offsets, &region.shape, ranges);
            }
            Walk::Rows(rows) => rows.ranges_into(ranges),
        }
    }
}

/// The GM region a copy moves.
fn region_of(op: &TileOp) -> &GmRegion {
    match op {
        TileOp::CopyIn { source, .. } => source,
        TileOp::CopyOut { destination, .. } | TileOp::CopyOutAccumulate { destination, .. } => destination,
        _ => unreachable!("only GM copies have a GM cost"),
    }
}

/// A core's program, prepared as far as the run has reached. Only a window of it is kept: the
/// steps from the earliest queue head on (those before it have finished; `drop_finished`), with
/// their flags and copies. Indices stay those of the whole program (`Step::copy`,
/// `Step::flags_start`, the heads): each list knows the index of its first entry. (Kept whole, the
/// 4096³ GEMM's 7 MB of steps were written once and read back from memory; the window stays in
/// the host's cache and the run touches no fresh page for it.)
pub(super) struct CoreProgram {
    /// The prepared steps from `first_step` on, in program order.
    steps: Vec<Step>,
    first_step: u32,
    /// Their flag ids, span after span, from flag index `first_flag` on.
    flags: Vec<u32>,
    first_flag: u32,
    /// Their GM copies, in program order, from copy index `first_copy` on.
    copies: Vec<GmCopy>,
    first_copy: u32,
    /// Where the names of its buffers start in `Trace::labels`.
    label_base: u32,
    /// Per pipe: its instructions not prepared yet.
    unprepared: [u32; 7],
    /// The pipes with instructions not prepared yet (bit `Pipe::index` each): what
    /// `needs_preparing` tests with one mask.
    unprepared_pipes: u8,
    /// Per pipe: its last prepared step, `END` before the first.
    last: [u32; 7],
    /// The pipes with any instruction (bit `Pipe::index` each).
    used: u8,
}

impl CoreProgram {
    /// A core's program (of `plan`, checked), nothing prepared yet, with its instructions per
    /// pipe (`counts`: so a pipe whose queue is done is told from one whose next instruction is not
    /// prepared yet). Its buffers' names join `labels` (the trace's).
    pub fn new(program: &TileProgram, counts: [u32; 7], labels: &mut Vec<String>) -> Self {
        let unprepared = counts;
        let used = (0..7).filter(|&pipe| unprepared[pipe] > 0).fold(0u8, |used, pipe| used | 1 << pipe);
        let label_base = u32::try_from(labels.len()).expect("fewer than 2^32 buffers");
        labels.extend(program.buffers.iter().map(|buffer| buffer.name.clone()));
        CoreProgram {
            steps: Vec::new(),
            first_step: 0,
            flags: Vec::new(),
            first_flag: 0,
            copies: Vec::new(),
            first_copy: 0,
            label_base,
            unprepared,
            unprepared_pipes: used,
            last: [END; 7],
            used,
        }
    }

    /// Whether a pipe that has instructions left lacks its head (`headless`: the pipes whose head
    /// is `END`, bit `Pipe::index` each): `prepare_heads` has work to do. (Most starts find every
    /// head prepared: the check is inlined, the preparation a call.)
    #[inline]
    pub fn needs_preparing(&self, headless: u8) -> bool {
        headless & self.unprepared_pipes != 0
    }

    /// Prepares instructions until every pipe that has one left has its head (`heads`, `END` where
    /// none is prepared) prepared. `names` holds the op names of every core.
    #[inline(never)]
    pub fn prepare_heads(
        &mut self,
        heads: &mut [u32; 7],
        plan: &KernelPlan,
        program: &TileProgram,
        config: &NpuConfig,
        names: &mut Vec<&'static str>,
    ) {
        self.drop_finished(heads);
        while self.needs_preparing(headless(heads)) {
            let start = self.first_step as usize + self.steps.len();
            for index in start..(start + CHUNK).min(program.instructions.len()) {
                prefetch_instruction(&program.instructions, index + AHEAD);
                self.prepare(heads, plan, program, index, config, names);
            }
        }
    }

    /// Drops the steps before the earliest head (`heads`, `END` for none), with their flags and
    /// copies: they have finished. Only once they are as many as those kept, so that each step is
    /// moved at most once on average.
    fn drop_finished(&mut self, heads: &[u32; 7]) {
        let next = self.first_step + self.steps.len() as u32;
        let earliest = heads.iter().copied().filter(|&head| head != END).min().unwrap_or(next);
        let finished = (earliest - self.first_step) as usize;
        if finished < CHUNK || finished < self.steps.len() - finished {
            return;
        }
        self.steps.drain(..finished);
        self.first_step = earliest;
        let flag_end = self.first_flag + self.flags.len() as u32;
        let first_flag = self.steps.first().map_or(flag_end, |step| step.flags_start);
        self.flags.drain(..(first_flag - self.first_flag) as usize);
        self.first_flag = first_flag;
        let copy_end = self.first_copy + self.copies.len() as u32;
        let kept_copy = self.steps.iter().find(|step| step.copy != NOT_A_COPY);
        let first_copy = kept_copy.map_or(copy_end, |step| step.copy);
        self.copies.drain(..(first_copy - self.first_copy) as usize);
        self.first_copy = first_copy;
    }

    /// Prepares instruction `index` (the next in program order) and links it into its queue.
    fn prepare(
        &mut self,
        heads: &mut [u32; 7],
        plan: &KernelPlan,
        program: &TileProgram,
        index: usize,
        config: &NpuConfig,
        names: &mut Vec<&'static str>,
    ) {
        let instruction = &program.instructions[index];
        let flags_start = self.first_flag + self.flags.len() as u32;
        let (mut ends, mut total) = ([0u16; 4], 0);
        for (end, span) in ends.iter_mut().zip([
            &*instruction.wait,
            &*instruction.set,
            &*instruction.cross_wait,
            &*instruction.cross_set,
        ]) {
            for flag in span {
                self.flags.push(flag.0);
            }
            total += span.len();
            *end = u16::try_from(total).expect("an instruction with more than 65535 flags");
        }
        let cost = instruction_cost(plan, program, index, config);
        let (cycles, copy) = match cost.cost {
            Cost::Fixed { cycles } => (cycles, NOT_A_COPY),
            Cost::Gm { .. } => {
                let region = region_of(&instruction.op);
                let tensor = &plan.tensors[region.tensor.0 as usize];
                let element_bytes = tensor.dtype.size_in_bytes() as u64;
                let walk = Walk::of(region, &tensor.shape, element_bytes, index as u32);
                self.copies.push(GmCopy { cost: cost.cost, tensor: region.tensor.0, walk });
                (f64::NAN, self.first_copy + self.copies.len() as u32 - 1)
            }
        };
        let op = instruction.op.name();
        // Names are static strings: the same name is the same pointer (or at worst a duplicate entry).
        let name = match names.iter().position(|known| std::ptr::eq(*known, op)) {
            Some(position) => position,
            None => {
                names.push(op);
                names.len() - 1
            }
        };
        let shown = Shown {
            bytes: cost.bytes,
            flops: cost.flops,
            tile: tile_buffer(&instruction.op).map_or(NO_TILE, |id| self.label_base + id.0),
            source_line: instruction.source_line,
            name: u8::try_from(name).expect("fewer than 256 op names"),
        };
        let position = index as u32;
        let pipe = instruction.pipe.index();
        // (A last step already dropped has finished: its queue's head is END, set below.)
        if self.last[pipe] != END && self.last[pipe] >= self.first_step {
            self.steps[(self.last[pipe] - self.first_step) as usize].next = position;
        }
        // The queue's earlier steps may all have finished: this one is then its head.
        if heads[pipe] == END {
            heads[pipe] = position;
        }
        self.last[pipe] = position;
        self.unprepared[pipe] -= 1;
        if self.unprepared[pipe] == 0 {
            self.unprepared_pipes &= !(1 << pipe);
        }
        self.steps.push(Step { cycles, instruction: position, copy, next: END, flags_start, ends, shown });
    }

    /// The prepared step `index` (an instruction index, not before the earliest head).
    pub fn step(&self, index: u32) -> &Step {
        &self.steps[(index - self.first_step) as usize]
    }

    /// The GM copy of `step` (a prepared step, not before the earliest head), `None` for a
    /// fixed-cost instruction.
    pub fn copy(&self, step: &Step) -> Option<&GmCopy> {
        (step.copy != NOT_A_COPY).then(|| &self.copies[(step.copy - self.first_copy) as usize])
    }

    /// The flags `step` waits for on its core.
    pub fn waits(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(0, self.first_flag)]
    }

    /// The flags `step` sets on its core.
    pub fn sets(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(1, self.first_flag)]
    }

    /// The cross-core flags `step` waits for.
    pub fn cross_waits(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(2, self.first_flag)]
    }

    /// The cross-core flags `step` sets.
    pub fn cross_sets(&self, step: &Step) -> &[u32] {
        &self.flags[step.span(3, self.first_flag)]
    }

    /// Whether the program has an instruction on `pipe` (`Pipe::index`).
    pub fn uses(&self, pipe: usize) -> bool {
        self.used >> pipe & 1 == 1
    }

    /// The kind of core the program needs (`TileProgram::core_kind`).
    pub fn core_kind(&self) -> crate::tile::CoreKind {
        crate::tile::CoreKind::of_pipes(self.used)
    }
}

#[cfg(test)]
#[path = "engine_program_tests.rs"]
mod tests;
