//! Emits instructions and derives their flags from what they read and write (a scoreboard), so the
//! lowering never places a flag by hand.
//!
//! Every buffer remembers its last writer and, per pipe, its last reader (GM tensors remember
//! regions, see `regions`). An
//! instruction on pipe Q depends on the last writer of what it reads (read after write) and on the
//! last writer and readers of what it writes (write after write / after read). Dependencies on the
//! same pipe are free (the queue is in order); for another pipe P only the latest producer matters,
//! because P is in order too. One counting flag per ordered pipe pair (P → Q) carries them: the
//! producer gets a `set`, the consumer a `wait`, and since both pipes see these in program order the
//! k-th wait meets the k-th set. A producer already covered by an earlier wait on the pair needs no
//! new flag. Every dependency points backwards in program order, so the flags cannot deadlock.

use crate::tile::fast_hash::FastMap;

use crate::tensor::DType;

use super::super::builder::{ProgramBuilder, TileError};
use super::super::program::{BufferId, Flag, Memory, Pipe, TensorId, TileOp, TileProgram};
use super::regions::{GmTracker, Region};

/// Something an instruction reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Resource {
    /// An on-core buffer.
    Buffer(BufferId),
    /// A GM tensor, tracked by the region the op moves (see `regions`).
    Tensor(TensorId),
}

#[derive(Default)]
struct Access {
    writer: Option<usize>,
    readers: [Option<usize>; 7],
}

/// A program under construction whose flags follow from its data dependencies.
pub(super) struct Emitter {
    builder: ProgramBuilder,
    pipes: Vec<Pipe>,
    pair_flags: [[Option<Flag>; 7]; 7],
    synced: [[Option<usize>; 7]; 7],
    accesses: FastMap<Resource, Access>,
    gm: GmTracker,
    line: Option<u32>,
    /// The tensor whose memory each GM view shares (a view's accesses count as touching all of it).
    roots: FastMap<TensorId, TensorId>,
    /// The UB group whose buffers own the memory now (`Buffer::group`; 0 before any).
    group: u32,
    /// Per pipe, its last access of a buffer of another group before `group` took their memory: a
    /// write into a buffer of `group` waits for it.
    group_floor: [Option<usize>; 7],
}

/// The GM part an access of `tensor` by `op` touches: the op's region, or the whole tensor (a
/// view's accesses count on the tensor whose memory it views, as the whole of it).
fn gm_part<'a>(roots: &FastMap<TensorId, TensorId>, op: &'a TileOp, tensor: TensorId) -> Region<'a> {
    if let Some(root) = roots.get(&tensor) {
        return (*root, &[], &[]);
    }
    match op {
        TileOp::CopyIn { source: region, .. }
        | TileOp::CopyOut { destination: region, .. }
        | TileOp::CopyOutAccumulate { destination: region, .. }
            if region.tensor == tensor =>
        {
            (tensor, &region.offsets, &region.shape)
        }
        _ => (tensor, &[], &[]),
    }
}

impl Emitter {
    /// An empty program.
    pub(super) fn new() -> Self {
        Emitter {
            builder: ProgramBuilder::new(),
            pipes: Vec::new(),
            pair_flags: [[None; 7]; 7],
            synced: [[None; 7]; 7],
            accesses: FastMap::default(),
            gm: GmTracker::default(),
            line: None,
            roots: FastMap::default(),
            group: 0,
            group_floor: [None; 7],
        }
    }

    /// An empty program of a kernel with GM `views`: an access through a view is tracked as an
    /// access of the whole tensor it views, so a load through a reshape follows a store of its base.
    pub(super) fn with_views(views: &[super::super::work::GmView]) -> Self {
        let mut emitter = Emitter::new();
        for view in views {
            let mut root = view.base;
            while let Some(next) = views.iter().find(|other| other.tensor == root) {
                root = next.base;
            }
            emitter.roots.insert(view.tensor, root);
        }
        emitter
    }

    /// The source line of the instructions emitted from now on.
    pub(super) fn at_line(&mut self, line: Option<u32>) {
        self.line = line;
    }

    /// Declares a buffer whose diagnostics point at `line` (the tile-shape setting).
    pub(super) fn buffer(
        &mut self,
        name: &str,
        memory: Memory,
        shape: &[usize],
        dtype: DType,
        line: Option<u32>,
    ) -> BufferId {
        self.grouped_buffer(name, memory, shape, dtype, line, 0)
    }

    /// Declares a buffer of UB group `group` (`Buffer::group`).
    pub(super) fn grouped_buffer(
        &mut self,
        name: &str,
        memory: Memory,
        shape: &[usize],
        dtype: DType,
        line: Option<u32>,
        group: u32,
    ) -> BufferId {
        self.builder.at_line(line);
        self.builder.grouped_buffer(name, memory, shape, dtype, group)
    }

    /// The buffers of UB group `group` take the memory of every other group's from now on: their
    /// writes wait for each pipe's last access of the others (added to the floor of what came
    /// before, which the others' accesses are all later than or part of).
    pub(super) fn enter_group(&mut self, group: u32) {
        if group == self.group {
            return;
        }
        self.group = group;
        let builder = &self.builder;
        let in_other_group = |buffer: &BufferId| ![0, group].contains(&builder.buffer_group(*buffer));
        let others = self.accesses.iter().filter_map(|(resource, access)| match resource {
            Resource::Buffer(buffer) if in_other_group(buffer) => Some(access),
            _ => None,
        });
        for access in others {
            for index in access.readers.iter().chain([&access.writer]).flatten() {
                let floor = &mut self.group_floor[self.pipes[*index].index()];
                *floor = Some(floor.map_or(*index, |known| known.max(*index)));
            }
        }
    }

    /// Whether nothing was emitted.
    pub(super) fn is_empty(&self) -> bool {
        self.pipes.is_empty()
    }

    /// Appends `op` reading `reads` and writing `writes`, with the flags its dependencies need.
    pub(super) fn emit(
        &mut self,
        op: TileOp,
        reads: &[Resource],
        writes: &[Resource],
        cross_wait: Vec<Flag>,
        cross_set: Vec<Flag>,
    ) -> Result<usize, TileError> {
        let mut needed: [Option<usize>; 7] = [None; 7];
        let pipes = &self.pipes;
        let mut note = |producer: Option<usize>| {
            if let Some(index) = producer {
                let slot = &mut needed[pipes[index].index()];
                *slot = Some(slot.map_or(index, |known| known.max(index)));
            }
        };
        // A GM tensor is tracked by the region this op moves (the whole tensor if it moves none, or
        // the whole base tensor for a view).
        let roots = &self.roots;
        for resource in reads {
            match resource {
                Resource::Tensor(tensor) => {
                    self.gm.producers(gm_part(roots, &op, *tensor), false, |index| note(Some(index)))
                }
                buffer => note(self.accesses.get(buffer).and_then(|access| access.writer)),
            }
        }
        for resource in writes {
            match resource {
                Resource::Tensor(tensor) => {
                    self.gm.producers(gm_part(roots, &op, *tensor), true, |index| note(Some(index)))
                }
                Resource::Buffer(buffer) => {
                    if let Some(access) = self.accesses.get(resource) {
                        note(access.writer);
                        access.readers.iter().for_each(|reader| note(*reader));
                    }
                    let group = self.builder.buffer_group(*buffer);
                    if group != 0 && group == self.group {
                        self.group_floor.iter().for_each(|access| note(*access));
                    }
                }
            }
        }
        self.builder.at_line(self.line);
        let pipe = self.builder.push_cross(op, Vec::new(), Vec::new(), cross_wait, cross_set)?;
        let index = self.builder.len() - 1;
        let consumer = pipe.index();
        let op = &self.builder.instruction_mut(index).expect("just emitted").op;
        for (resources, write) in [(reads, false), (writes, true)] {
            for resource in resources {
                if let Resource::Tensor(tensor) = resource {
                    self.gm.record(gm_part(&self.roots, op, *tensor), write, index, consumer);
                }
            }
        }
        for (producer_pipe, producer) in needed.iter().enumerate() {
            let Some(producer) = *producer else { continue };
            if producer_pipe == consumer
                || self.synced[producer_pipe][consumer].is_some_and(|synced| synced >= producer)
            {
                continue;
            }
            let flag = match self.pair_flags[producer_pipe][consumer] {
                Some(flag) => flag,
                None => {
                    let flag = self.builder.flag();
                    self.pair_flags[producer_pipe][consumer] = Some(flag);
                    flag
                }
            };
            self.builder.instruction_mut(producer).expect("producers were emitted").set.push(flag);
            self.builder.instruction_mut(index).expect("just emitted").wait.push(flag);
            self.synced[producer_pipe][consumer] = Some(producer);
        }
        for resource in reads.iter().filter(|resource| matches!(resource, Resource::Buffer(_))) {
            self.accesses.entry(*resource).or_default().readers[consumer] = Some(index);
        }
        for resource in writes.iter().filter(|resource| matches!(resource, Resource::Buffer(_))) {
            let access = self.accesses.entry(*resource).or_default();
            access.writer = Some(index);
            access.readers = [None; 7];
        }
        self.pipes.push(pipe);
        Ok(index)
    }

    /// The finished program.
    pub(super) fn finish(self) -> TileProgram {
        self.builder.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::UnaryOp;
    use crate::tile::GmRegion;

    #[test]
    fn one_flag_per_pipe_pair_and_only_when_needed() {
        // copy_in x → exp → copy_out: MTE2 → VECTOR → MTE3 needs two flags; a second exp on the
        // same tile (VECTOR after VECTOR) needs none.
        let mut emitter = Emitter::new();
        let tile = emitter.buffer("x", Memory::Ub, &[16, 64], DType::F32, None);
        let region = GmRegion { tensor: TensorId(0), offsets: [0, 0].into(), shape: [16, 64].into() };
        let exp = || TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [16, 64].into() };
        let buffer = Resource::Buffer(tile);
        emitter
            .emit(
                TileOp::CopyIn { source: region.clone(), destination: tile },
                &[Resource::Tensor(TensorId(0))],
                &[buffer],
                vec![],
                vec![],
            )
            .unwrap();
        emitter.emit(exp(), &[buffer], &[buffer], vec![], vec![]).unwrap();
        emitter.emit(exp(), &[buffer], &[buffer], vec![], vec![]).unwrap();
        let out = GmRegion { tensor: TensorId(1), ..region };
        emitter
            .emit(
                TileOp::CopyOut { source: tile, destination: out },
                &[buffer],
                &[Resource::Tensor(TensorId(1))],
                vec![],
                vec![],
            )
            .unwrap();
        let program = emitter.finish();
        assert_eq!(program.flag_count, 2);
        let waits: Vec<usize> = program.instructions.iter().map(|instruction| instruction.wait.len()).collect();
        let sets: Vec<usize> = program.instructions.iter().map(|instruction| instruction.set.len()).collect();
        assert_eq!(waits, vec![0, 1, 0, 1]);
        assert_eq!(sets, vec![1, 0, 1, 0]);
    }

    #[test]
    fn a_group_writes_its_buffers_only_after_the_other_groups_are_done_with_theirs() {
        // Group 1 loads a tile (MTE2) and the vector unit reads it; group 2's buffer takes the same
        // memory, so its load must wait for that vector read (a VECTOR → MTE2 flag). Within one
        // group, a load into a buffer of its own waits for nothing.
        let copy_in = |emitter: &mut Emitter, tile| {
            let region = GmRegion { tensor: TensorId(0), offsets: [0, 0].into(), shape: [16, 64].into() };
            let op = TileOp::CopyIn { source: region, destination: tile };
            emitter.emit(op, &[Resource::Tensor(TensorId(0))], &[Resource::Buffer(tile)], vec![], vec![]).unwrap()
        };
        let exp = |tile| TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [16, 64].into() };
        let mut emitter = Emitter::new();
        emitter.enter_group(1);
        let first = emitter.grouped_buffer("first", Memory::Ub, &[16, 64], DType::F32, None, 1);
        let spare = emitter.grouped_buffer("spare", Memory::Ub, &[16, 64], DType::F32, None, 1);
        copy_in(&mut emitter, first);
        emitter.emit(exp(first), &[Resource::Buffer(first)], &[Resource::Buffer(first)], vec![], vec![]).unwrap();
        let same_group = copy_in(&mut emitter, spare);
        emitter.enter_group(2);
        let second = emitter.grouped_buffer("second", Memory::Ub, &[16, 64], DType::F32, None, 2);
        let other_group = copy_in(&mut emitter, second);
        let program = emitter.finish();
        assert!(program.instructions[same_group].wait.is_empty());
        assert_eq!(program.instructions[other_group].wait.len(), 1);
        let flag = program.instructions[other_group].wait[0];
        assert!(program.instructions[1].set.contains(&flag), "the vector read of group 1 sets it");
    }
}
