//! Where a jit kernel's tensor comes from in a unit: a tile computed here already, a whole argument
//! loaded from GM, or a value computed before this unit (recomputed here); and the load step itself.

use super::independence::Access;
use super::JitRecorder;
use crate::lang::interp::pypto::capture::{identity, TensorRef};
use crate::lang::interp::pypto::work_ops::{UnitBuilder, Unsupported};
use crate::messages::CompilerReason;
use crate::tile::{GmRegion, TensorId, ValueId, VectorOp, WorkStep};

impl JitRecorder<'_> {
    pub(super) fn gm_of(&self, tensor: &TensorRef) -> Option<TensorId> {
        self.gm.get(&identity(tensor)).copied()
    }

    /// The tile holding `tensor` in this unit: computed here already, a whole argument (loaded),
    /// or computed before this unit (recomputed here).
    pub(super) fn resolve(
        &mut self,
        builder: &mut UnitBuilder,
        tensor: &TensorRef,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let key = identity(tensor);
        if let Some(&value) = self.memo.get(&key) {
            return Ok(value);
        }
        if let Some(&value) = self.constants.get(&key) {
            // A `full`/`zeros`/`ones` tensor used as a tile (written into a region, a matmul
            // operand): the vector unit fills a tile with its number.
            let shape = tensor.shape().to_vec();
            let mut padded = shape.clone();
            if let Some(last) = padded.last_mut().filter(|last| **last > 1) {
                *last = last.div_ceil(self.align) * self.align;
            }
            let output = builder.value(padded, shape, tensor.dtype());
            builder.push(WorkStep::Vector { op: VectorOp::Duplicate { value }, inputs: Vec::new(), output }, line);
            self.memo.insert(key, output);
            return Ok(output);
        }
        if let Some(id) = self.gm_of(tensor) {
            let shape = tensor.shape().to_vec();
            let value = self.load(builder, id, vec![0; shape.len()], shape.clone(), shape, tensor.dtype(), line)?;
            self.memo.insert(key, value);
            return Ok(value);
        }
        match self.definitions.get(&key).copied() {
            // An op whose operand is its own result (written in place under the same shape)
            // would resolve itself forever: the call runs on the CPU instead.
            Some(_) if !self.resolving.insert(key.clone()) => {
                Err(Unsupported::new(CompilerReason::DefinedByItself, line))
            }
            Some(index) => {
                let emitted = self.emit(builder, index);
                self.resolving.remove(&key);
                emitted
            }
            None => Err(Unsupported::new(CompilerReason::UnseenTensor, line)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn load(
        &mut self,
        builder: &mut UnitBuilder,
        tensor: TensorId,
        offsets: Vec<usize>,
        mut shape: Vec<usize>,
        valid: Vec<usize>,
        dtype: crate::tensor::DType,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        if let Some(last) = shape.last_mut().filter(|last| **last > 1) {
            *last = last.div_ceil(self.align) * self.align;
        }
        let output = builder.value(shape, valid.clone(), dtype);
        if self.ordered.contains(&tensor) {
            let version = self.versions.get(&tensor).copied().unwrap_or(0);
            if let Some(reading) = self.reading.last_mut() {
                reading.push((tensor, version));
            }
        }
        self.accesses.push(Access {
            tensor,
            offsets: offsets.clone(),
            shape: valid.clone(),
            unit: self.unit_index,
            write: false,
            accumulate: false,
        });
        builder.push(
            WorkStep::Load { region: GmRegion { tensor, offsets: offsets.into(), shape: valid.into() }, output },
            line,
        );
        Ok(output)
    }
}
