//! A core's program as the event loop reads it, prepared once per run in one pass over the plan:
//! per pipe, its instructions' records in queue order (so each pipe's head walks its own array
//! forwards: no cache miss per instruction for the records of seven interleaved queues), their
//! trace fields in the same record, the GM copies' costs and tensor rows apart, every flag id in one array
//! per core. The loop never reads an `Instruction` (its op, its heap vectors) while it runs:
//! `cargo bench --bench npu` under perf showed the loads of those as the loop's largest cost.

use std::ops::Range;
use std::rc::Rc;

use crate::tile::{GmRegion, KernelPlan, TileOp, TileProgram};

use super::config::NpuConfig;
use super::l2::{region_ranges_into, RowBox};
use super::timing::{instruction_cost, Cost};
use super::trace::tile_buffer;

/// `Step::copy` of an instruction that is not a GM copy.
pub(super) const NOT_A_COPY: u32 = u32::MAX;

/// What the loop needs to start and finish one instruction, and what its trace event shows: one
/// 64-byte record (one cache line), so that the line `try_start` brings in serves `finish` too
/// (with the trace fields in an array beside the queue, `finish` missed the cache on them for most
/// instructions of the 4096³ GEMM: 168 queues are walked at once, too many streams to prefetch).
#[derive(Clone, Copy)]
#[repr(align(64))]
pub(super) struct Step {
    /// The cycles of a fixed-cost instruction.
    pub cycles: f64,
    /// Its index in its program.
    pub instruction: u32,
    /// The index of its record in `CoreProgram::copies`, `NOT_A_COPY` for a fixed cost.
    pub copy: u32,
    /// Where its flags start in `CoreProgram::flags`: waits, sets, cross-core waits, cross-core
    /// sets, `counts` of each, one span after the other.
    flags_start: u32,
    counts: [u16; 4],
    /// Its trace fields.
    pub shown: Shown,
}

impl Step {
    fn span(&self, which: usize) -> Range<usize> {
        let start = self.flags_start as usize + self.counts[..which].iter().map(|&count| count as usize).sum::<usize>();
        start..start + self.counts[which] as usize
    }
}

/// What an instruction's trace event shows beyond its times.
#[derive(Clone, Copy)]
pub(super) struct Shown {
    /// Bytes moved or processed.
    pub bytes: u64,
    /// Floating-point operations.
    pub flops: u64,
    /// The index of its tile's label in `CoreProgram::labels`, `u32::MAX` for none.
    pub tile: u32,
    /// The kernel source line.
    pub source_line: Option<u32>,
    /// The index of its op name in `CoreProgram::names`.
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

/// A core's prepared program.
pub(super) struct CoreProgram {
    /// Per pipe (indexed by `Pipe::index`), its instructions' records in program order.
    pub queues: [Vec<Step>; 7],
    /// The GM copies, in program order.
    pub copies: Vec<GmCopy>,
    /// Every instruction's flag ids, span after span.
    flags: Vec<u32>,
    /// Each buffer's name, shared by the trace events that name it.
    pub labels: Vec<Rc<str>>,
    /// The op names of the program (few: an index per instruction instead of a 16-byte `&str`).
    pub names: Vec<&'static str>,
}

impl CoreProgram {
    /// Prepares `program` (a program of `plan`, checked) for `config`.
    pub fn new(plan: &KernelPlan, program: &TileProgram, config: &NpuConfig) -> Self {
        // One pass over the instructions (a counting pass first cost as much again: each pass
        // misses the cache on every instruction); the arrays grow by doubling instead.
        let mut queues: [Vec<Step>; 7] = Default::default();
        let mut flags = Vec::with_capacity(program.instructions.len() * 2);
        let mut copies = Vec::new();
        let mut names: Vec<&'static str> = Vec::new();
        for (index, instruction) in program.instructions.iter().enumerate() {
            let flags_start = flags.len() as u32;
            let spans = [&instruction.wait, &instruction.set, &instruction.cross_wait, &instruction.cross_set];
            let counts = spans
                .map(|span| u16::try_from(span.len()).expect("an instruction with more than 65535 flags of one kind"));
            for span in spans {
                flags.extend(span.iter().map(|flag| flag.0));
            }
            let cost = instruction_cost(plan, program, index, config);
            let (cycles, copy) = match cost.cost {
                Cost::Fixed { cycles } => (cycles, NOT_A_COPY),
                Cost::Gm { .. } => {
                    let region = region_of(&instruction.op);
                    let tensor = &plan.tensors[region.tensor.0 as usize];
                    let element_bytes = tensor.dtype.size_in_bytes() as u64;
                    let walk = Walk::of(region, &tensor.shape, element_bytes, index as u32);
                    copies.push(GmCopy { cost: cost.cost, tensor: region.tensor.0, walk });
                    (f64::NAN, copies.len() as u32 - 1)
                }
            };
            let pipe = instruction.pipe.index();
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
                tile: tile_buffer(&instruction.op).map_or(u32::MAX, |id| id.0),
                source_line: instruction.source_line,
                name: u8::try_from(name).expect("fewer than 256 op names"),
            };
            queues[pipe].push(Step { cycles, instruction: index as u32, copy, flags_start, counts, shown });
        }
        let labels = program.buffers.iter().map(|buffer| Rc::from(buffer.name.as_str())).collect();
        CoreProgram { queues, copies, flags, labels, names }
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

    /// Queue `pipe`'s head instruction after `done` of them finished, if any is left.
    pub fn head(&self, pipe: usize, done: usize) -> Option<&Step> {
        self.queues[pipe].get(done)
    }

    /// The kind of core the program needs (`TileProgram::core_kind`, from the queues).
    pub fn core_kind(&self) -> crate::tile::CoreKind {
        let used = (0..7).filter(|&pipe| !self.queues[pipe].is_empty()).fold(0u8, |used, pipe| used | 1 << pipe);
        crate::tile::CoreKind::of_pipes(used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::TensorId;

    #[test]
    fn rows_walk_the_same_ranges_as_the_region_walk() {
        // Every region of rank 1 and 2 (offsets and shapes on a small grid, empty ones included)
        // of f16 and f32 tensors: its rows give exactly `region_ranges_into`'s ranges; rank 3 is
        // left to the region walk.
        let (mut expected, mut walked) = (Vec::new(), Vec::new());
        for element_bytes in [2u64, 4] {
            for tensor_shape in [vec![12usize], vec![5, 12], vec![7, 1]] {
                let rank = tensor_shape.len();
                let extents = |dim: usize| 0..=tensor_shape[dim];
                let mut regions: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
                if rank == 1 {
                    for offset in extents(0) {
                        regions.extend((0..=tensor_shape[0] - offset).map(|size| (vec![offset], vec![size])));
                    }
                } else {
                    for (row, column) in extents(0).flat_map(|row| extents(1).map(move |column| (row, column))) {
                        for rows in 0..=tensor_shape[0] - row {
                            for columns in 0..=tensor_shape[1] - column {
                                regions.push((vec![row, column], vec![rows, columns]));
                            }
                        }
                    }
                }
                for (offsets, shape) in regions {
                    region_ranges_into(&tensor_shape, element_bytes, &offsets, &shape, &mut expected);
                    let region = GmRegion { tensor: TensorId(0), offsets: offsets.clone(), shape: shape.clone() };
                    assert!(Walk::of(&region, &tensor_shape, element_bytes, 0).rows_into(&mut walked));
                    assert_eq!(walked, expected, "{shape:?} at {offsets:?} of {tensor_shape:?}");
                }
            }
        }
        let region = GmRegion { tensor: TensorId(0), offsets: vec![0, 0, 0], shape: vec![1, 2, 3] };
        assert!(!Walk::of(&region, &[2, 2, 3], 4, 0).rows_into(&mut walked));
    }
}
