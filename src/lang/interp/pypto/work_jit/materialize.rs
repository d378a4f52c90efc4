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
            // Gathered rows are a view of the cache: read where they lie.
            CapturedOp::GatherRows { source, rows } => {
                let (source, rows) = (source.clone(), rows.clone());
                let view = self.row_view(&source, &rows, tensor.shape(), line)?;
                self.gm.insert(identity(tensor), view);
                return Ok(view);
            }
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
}
