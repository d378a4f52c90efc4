//! A view of a value the kernel computed (pypto's attention computes `q = x @ w` for the whole
//! batch, reshapes and transposes it, then views one batch per loop iteration): as in pypto, where
//! every tensor lives in GM, the value is computed once by a unit of its own and stored into a GM
//! workspace; reshapes and transposes of it are GM views of that workspace, and the view loads its
//! region from there. The workspace is read and written in program order (the units touching it
//! run on one core), so every later unit reads what the first one stored.

use super::JitRecorder;
use crate::lang::interp::pypto::capture::{identity, CapturedOp, TensorRef};
use crate::lang::interp::pypto::work_ops::{UnitBuilder, Unsupported};
use crate::messages::CompilerReason;
use crate::tile::{GmTensor, TensorId};

impl JitRecorder<'_> {
    /// The GM tensor holding `tensor`: an argument, a view of one, or a workspace that a unit placed
    /// before the current one computes (made on first use).
    pub(super) fn materialize(&mut self, tensor: &TensorRef, line: Option<u32>) -> Result<TensorId, Unsupported> {
        if let Some(id) = self.gm_of(tensor) {
            return Ok(id);
        }
        if self.constants.contains_key(&identity(tensor)) {
            return Err(Unsupported::new(CompilerReason::ViewOfFilled, line));
        }
        let Some(index) = self.definitions.get(&identity(tensor)).copied() else {
            return Err(Unsupported::new(CompilerReason::ViewOfUnseen, line));
        };
        // A reshape or transpose of a computed value views the workspace of that value.
        let layout = match &self.ops[index].op {
            CapturedOp::Reshape { x } => Some((x.clone(), None)),
            CapturedOp::Transpose { x, order } => Some((x.clone(), Some(order.clone()))),
            _ => None,
        };
        if let Some((source, order)) = layout {
            let base = self.materialize(&source, line)?;
            let view = self.view_of(base, tensor.shape(), order);
            self.gm.insert(identity(tensor), view);
            return Ok(view);
        }
        let workspace = TensorId(self.tensors.len() as u32);
        self.tensors.push(GmTensor {
            name: format!("computed{}", workspace.0),
            shape: tensor.shape().to_vec(),
            dtype: tensor.dtype(),
        });
        // The computing unit goes before the current one: the current unit's accesses so far move
        // up one index, and the new unit is built with the recorder's per-unit state set aside.
        let current = self.unit_index;
        self.accesses.iter_mut().filter(|access| access.unit == current).for_each(|access| access.unit += 1);
        let memo = std::mem::take(&mut self.memo);
        let wrote_workspace = std::mem::replace(&mut self.wrote_workspace, false);
        let mut computing = UnitBuilder::default();
        let stored = self.resolve(&mut computing, tensor, line).and_then(|value| {
            self.gm.insert(identity(tensor), workspace);
            self.ordered.push(workspace);
            let shape = tensor.shape().to_vec();
            self.store(&mut computing, value, tensor, vec![0; shape.len()], shape, line)
        });
        self.memo = memo;
        self.wrote_workspace = wrote_workspace;
        stored?;
        let mut unit = computing.unit;
        unit.vec_tile = self.vec_tile.clone();
        super::drop_dead_steps(&mut unit);
        self.pending_units.push(unit);
        self.unit_index += 1;
        Ok(workspace)
    }

    /// Whether op `index` computes a value under a vec tile other than the one in force: an op
    /// before the current tile took effect, of a kernel that sets several tiles.
    pub(super) fn made_under_another_tile(&self, index: usize) -> bool {
        let computes = matches!(
            self.ops[index].op,
            CapturedOp::Unary { .. }
                | CapturedOp::Binary { .. }
                | CapturedOp::Clip { .. }
                | CapturedOp::ClipBounds { .. }
                | CapturedOp::Cast { .. }
                | CapturedOp::Reduce { .. }
                | CapturedOp::Matmul { .. }
                | CapturedOp::Softmax { .. }
                | CapturedOp::Vector { .. }
        );
        computes && index < self.segment_start && self.segment_of(index).1 != self.vec_tile
    }

    /// Computes `tensor` (made by op `index`) once, by a unit of its own under the vec tile it was
    /// made under, into a GM workspace: as in pypto, where an op is tiled by the tile in force when
    /// it is called and its output lives in GM, a value stored or read after a tile change is not
    /// computed again under the new tile (a `[8, 5120]` f32 row block made under `[1, 5120]` and
    /// assembled into an output after a `[4, 12, 128]` tile took effect stayed one whole UB tile).
    pub(super) fn materialize_under_its_tile(
        &mut self,
        tensor: &TensorRef,
        index: usize,
        line: Option<u32>,
    ) -> Result<(), Unsupported> {
        let (start, tile) = self.segment_of(index);
        let in_force = (std::mem::replace(&mut self.segment_start, start), std::mem::replace(&mut self.vec_tile, tile));
        let made = self.materialize(tensor, line);
        (self.segment_start, self.vec_tile) = in_force;
        made.map(|_| ())
    }

    /// The op index from which the vec tile in force at op `index` applies, and that tile (`None`
    /// before the kernel's first `set_vec_tile_shapes`).
    fn segment_of(&self, index: usize) -> (usize, Option<Vec<usize>>) {
        match self.tile_changes.iter().rev().find(|(from, _)| *from <= index) {
            Some((from, dims)) => (*from, Some(dims.clone())),
            None => (0, None),
        }
    }
}
