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
        self.builder.at_line(line);
        self.builder.buffer(name, memory, shape, dtype)
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
                buffer => {
                    if let Some(access) = self.accesses.get(buffer) {
                        note(access.writer);
                        access.readers.iter().for_each(|reader| note(*reader));
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
}
