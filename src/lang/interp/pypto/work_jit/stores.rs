//! Stores of a jit kernel's tiles into GM: into an argument, a view of one, or the kernel's own
//! workspace; `out[r] = out[r] + t` becomes an atomic add of `t` into `out[r]`.

use super::{Access, JitRecorder};
use crate::lang::interp::pypto::capture::{identity, CapturedOp, TensorRef};
use crate::lang::interp::pypto::work_ops::{UnitBuilder, Unsupported};
use crate::messages::CompilerReason;
use crate::tensor::BinaryOp;
use crate::tile::{GmRegion, TensorId, ValueId, WorkOperand, WorkStep};

impl JitRecorder<'_> {
    /// Stores the valid `shape` of tile `input` at `offsets` of `target`. A tile with more dims than
    /// the target (a reduction with keepdim=False written into a 1-D output keeps its reduced dim
    /// in tile form) is stored through a reshape view of the target with those size-1 dims.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        builder: &mut UnitBuilder,
        input: ValueId,
        target: &TensorRef,
        offsets: Vec<usize>,
        shape: Vec<usize>,
        line: Option<u32>,
    ) -> Result<(), Unsupported> {
        // Whether the store covers the whole target (read again, it is the stored tile; below).
        let whole_target = offsets.iter().all(|&offset| offset == 0) && shape == target.shape();
        let (tensor, offsets, shape) = match (self.gm_of(target), self.viewed_region(target)) {
            (Some(tensor), _) => (tensor, offsets, shape),
            // A write through a view (`state = states[b, n]` … `state[:] = t`) lands in its base:
            // the region in the base's dims (a dim an int index dropped has extent 1).
            (None, Some((base, origin, kept))) => {
                let tensor = self.materialize(&base, line)?;
                let (mut own_offsets, mut own_shape) = (offsets.iter(), shape.iter());
                let (mut base_offsets, mut base_shape) = (Vec::new(), Vec::new());
                for (start, kept) in origin.iter().zip(kept) {
                    let (offset, extent) = match kept {
                        true => (*own_offsets.next().unwrap_or(&0), *own_shape.next().unwrap_or(&1)),
                        false => (0, 1),
                    };
                    base_offsets.push(start + offset);
                    base_shape.push(extent);
                }
                (tensor, base_offsets, base_shape)
            }
            (None, None) => (self.local_workspace(target, line)?, offsets, shape),
        };
        // A later read of the target in this unit sees what is stored now, not an earlier load.
        self.memo.remove(&identity(target));
        if self.ordered.contains(&tensor) {
            *self.versions.entry(tensor).or_insert(0) += 1;
            self.wrote_workspace = true;
        }
        if let Some(stored) = self.store_batched(builder, input, tensor, (&offsets, &shape), line) {
            return stored;
        }
        let tile = builder.tile(input).clone();
        let fitted = self
            .fit_rank(tensor, &tile.valid_shape, offsets.clone(), shape.clone())
            .or_else(|| self.collapse_leading(tensor, tile.valid_shape.len(), &offsets, &shape));
        let (tensor, offsets, shape) = match fitted {
            Some(fitted) => fitted,
            None => {
                return Err(Unsupported::new(
                    CompilerReason::StoreRank { tile: tile.shape.len(), output: target.shape().len() },
                    line,
                ))
            }
        };
        let region =
            GmRegion { tensor, offsets: crate::tile::Dims::from(&*offsets), shape: crate::tile::Dims::from(&*shape) };
        let (input, accumulate) = match self.read_modify_write(builder, input, &region) {
            Some(addend) => (addend, true),
            None => (input, false),
        };
        // A later read of a whole target this unit stored whole, in its own dtype, is the stored tile
        // (the copy out and a copy back in would not be ordered; the tile is still in UB).
        let whole = whole_target && tile.valid_shape == shape;
        if whole && !accumulate && tile.dtype == target.dtype() && !self.ordered.contains(&tensor) {
            self.memo.insert(identity(target), input);
        }
        self.accesses.push(Access { tensor, offsets, shape, unit: self.unit_index, write: true, accumulate });
        builder.push(WorkStep::Store { input, region, accumulate }, line);
        Ok(())
    }

    /// The tensor a view or an index reads (`pypto.view(x, shape, offsets)`, `x[i, j]`), the
    /// origin of its region and which of the source's dims the target keeps (an int index drops
    /// a dim of extent 1: the first such dims are taken as the dropped ones, which is the same
    /// region whichever they are); `None` for any other tensor.
    fn viewed_region(&self, target: &TensorRef) -> Option<(TensorRef, Vec<usize>, Vec<bool>)> {
        let index = self.definitions.get(&identity(target)).copied()?;
        let (source, offsets, extents) = match &self.ops[index].op {
            CapturedOp::View { source, offsets } => (source, offsets, target.shape().to_vec()),
            CapturedOp::Index { source, offsets, extents } => (source, offsets, extents.clone()),
            _ => return None,
        };
        let rank = source.shape().len();
        let dropped = rank.checked_sub(target.shape().len())?;
        if offsets.len() != rank || extents.len() != rank {
            return None;
        }
        let mut to_drop = dropped;
        let kept: Vec<bool> = extents
            .iter()
            .map(|&extent| {
                let drop = extent == 1 && to_drop > 0;
                to_drop -= usize::from(drop);
                !drop
            })
            .collect();
        (to_drop == 0).then(|| (source.clone(), offsets.clone(), kept))
    }

    /// A region of `tensor` whose leading dims beyond a tile of `rank` dims have extent 1, as a
    /// region of the same rank as the tile: the leading dims and the first of the tile's fold
    /// into one through a reshape view (their rows are contiguous).
    fn collapse_leading(
        &mut self,
        tensor: TensorId,
        rank: usize,
        offsets: &[usize],
        extents: &[usize],
    ) -> Option<(TensorId, Vec<usize>, Vec<usize>)> {
        let base = self.tensors[tensor.0 as usize].shape.clone();
        if rank == 0 || extents.len() <= rank || base.len() != extents.len() {
            return None;
        }
        let folded = extents.len() - rank;
        if extents[..folded].iter().any(|&extent| extent != 1) {
            return None;
        }
        let row = offsets[..=folded].iter().zip(&base[..=folded]).fold(0, |row, (&offset, &size)| row * size + offset);
        let mut shape = vec![base[..=folded].iter().product()];
        shape.extend_from_slice(&base[folded + 1..]);
        let view = self.view_of(tensor, &shape, None);
        let mut view_offsets = vec![row];
        view_offsets.extend_from_slice(&offsets[folded + 1..]);
        Some((view, view_offsets, extents[folded..].to_vec()))
    }

    /// `out[r] = out[r] + t` (or `t + out[r]`), where `out[r]` was loaded in this unit for this
    /// add only: the load and the add are dropped and `t` is stored with `accumulate` (the NPU's
    /// atomic add), so units that add into the same region stay independent.
    pub(super) fn read_modify_write(
        &mut self,
        builder: &mut UnitBuilder,
        input: ValueId,
        region: &GmRegion,
    ) -> Option<ValueId> {
        // A kernel's own tensor is read back in later iterations: its adds stay ordered, not atomic.
        if self.ordered.contains(&region.tensor) {
            return None;
        }
        let steps = &builder.unit.steps;
        let add = steps.iter().position(
            |step| matches!(step.step, WorkStep::Binary { op: BinaryOp::Add, output, .. } if output == input),
        )?;
        let WorkStep::Binary { lhs: WorkOperand::Tile(lhs), rhs: WorkOperand::Tile(rhs), .. } = steps[add].step else {
            return None;
        };
        let loaded_here = |value: ValueId| {
            steps.iter().position(|step| matches!(&step.step, WorkStep::Load { region: loaded, output } if *output == value && loaded == region))
        };
        let (load, addend) = match (loaded_here(lhs), loaded_here(rhs)) {
            (Some(load), _) if lhs != rhs => (load, rhs),
            (_, Some(load)) if lhs != rhs => (load, lhs),
            _ => return None,
        };
        let loaded = if addend == rhs { lhs } else { rhs };
        // The tile read and the sum must feed nothing else.
        let uses = |value: ValueId| steps.iter().filter(|step| step.step.values().0.contains(&value)).count();
        if uses(loaded) != 1 || uses(input) != 0 {
            return None;
        }
        let (first, second) = (load.min(add), load.max(add));
        builder.unit.steps.remove(second);
        builder.unit.steps.remove(first);
        let unit = self.unit_index;
        if let Some(position) = self.accesses.iter().rposition(|access| {
            !access.write
                && access.unit == unit
                && access.tensor == region.tensor
                && access.offsets == region.offsets
                && access.shape == region.shape
        }) {
            self.accesses.remove(position);
        }
        self.memo.retain(|_, value| *value != loaded && *value != input);
        Some(addend)
    }
}
