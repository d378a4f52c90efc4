//! Stores of a jit kernel's tiles into GM: into an argument, a view of one, or the kernel's own
//! workspace; `out[r] = out[r] + t` becomes an atomic add of `t` into `out[r]`.

use super::{Access, JitRecorder};
use crate::lang::interp::pypto::capture::identity;
use crate::lang::interp::pypto::capture::TensorRef;
use crate::lang::interp::pypto::work_ops::{UnitBuilder, Unsupported};
use crate::messages::CompilerReason;
use crate::tensor::BinaryOp;
use crate::tile::{GmRegion, ValueId, WorkOperand, WorkStep};

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
        let tensor = match self.gm_of(target) {
            Some(tensor) => tensor,
            None => self.local_workspace(target, line)?,
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
        let (tensor, offsets, shape) = match self.fit_rank(tensor, &tile.valid_shape, offsets, shape) {
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
        let whole = offsets.iter().all(|&offset| offset == 0) && shape == target.shape() && tile.valid_shape == shape;
        if whole && !accumulate && tile.dtype == target.dtype() && !self.ordered.contains(&tensor) {
            self.memo.insert(identity(target), input);
        }
        self.accesses.push(Access { tensor, offsets, shape, unit: self.unit_index, write: true, accumulate });
        builder.push(WorkStep::Store { input, region, accumulate }, line);
        Ok(())
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
