//! Batched matmuls in a recorded unit: an operand that is a GM load (or a transpose of one's last
//! two dims) is handed to the batched matmul as its GM region, so each batch's matrix is loaded
//! straight from GM through a 2-D view of the tensor instead of being sliced out of a UB tile.

use super::JitRecorder;
use crate::lang::interp::pypto::capture::TensorRef;
use crate::lang::interp::pypto::work_batched::{batched_matmul, BatchedOperand};
use crate::lang::interp::pypto::work_ops::{UnitBuilder, Unsupported};
use crate::tensor::DType;
use crate::tile::{GmRegion, ValueId, VectorOp, WorkOperand, WorkStep};

impl JitRecorder<'_> {
    /// `op(a) · op(b)` of operands of more than two dims.
    pub(super) fn batched(
        &mut self,
        builder: &mut UnitBuilder,
        (a, a_transposed): (&TensorRef, bool),
        (b, b_transposed): (&TensorRef, bool),
        dtype: DType,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let left = self.resolve(builder, a, line)?;
        let right = self.resolve(builder, b, line)?;
        let (left, right) = (operand_of(builder, left), operand_of(builder, right));
        let mut load =
            |builder: &mut UnitBuilder, region: &GmRegion, dtype: DType| self.load_matrix(builder, region, dtype, line);
        batched_matmul(builder, (left, a_transposed), (right, b_transposed), dtype, line, &mut load)
    }

    /// Loads one matrix (`region`: size 1 in every batch dim) through the 2-D view of its tensor
    /// whose rows are the tensor's leading dims flattened: the matrix is a band of rows there.
    fn load_matrix(
        &mut self,
        builder: &mut UnitBuilder,
        region: &GmRegion,
        dtype: DType,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let shape = self.tensors[region.tensor.0 as usize].shape.clone();
        let rank = shape.len();
        let rows: usize = shape[..rank - 1].iter().product();
        let view = self.view_of(region.tensor, &[rows, shape[rank - 1]], None);
        let row = (0..rank - 1).fold(0, |row, dim| row * shape[dim] + region.offsets[dim]);
        let matrix = vec![region.shape[rank - 2], region.shape[rank - 1]];
        self.load(builder, view, vec![row, region.offsets[rank - 1]], matrix.clone(), matrix, dtype, line)
    }
}

/// Where the matrices of `value` come from: its GM region when a load made it (directly, or
/// through a transpose of its last two dims), else the tile itself.
fn operand_of(builder: &UnitBuilder, value: ValueId) -> BatchedOperand {
    let producer = |value: ValueId| builder.unit.steps.iter().find(|located| located.step.values().1 == Some(value));
    let loaded = |value: ValueId| match producer(value).map(|located| &located.step) {
        Some(WorkStep::Load { region, .. }) => Some(region.clone()),
        _ => None,
    };
    let dtype = builder.tile(value).dtype;
    if let Some(region) = loaded(value) {
        return BatchedOperand::Gm { region, dtype, transposed: false };
    }
    if let Some(WorkStep::Vector { op: VectorOp::Transpose { dims }, inputs, .. }) =
        producer(value).map(|located| &located.step)
    {
        let rank = builder.tile(value).shape.len();
        let last_two = {
            let mut sorted = *dims;
            sorted.sort_unstable();
            sorted == [rank - 2, rank - 1]
        };
        if let ([WorkOperand::Tile(source)], true) = (inputs.as_slice(), last_two) {
            if let Some(region) = loaded(*source) {
                return BatchedOperand::Gm { region, dtype, transposed: true };
            }
        }
    }
    BatchedOperand::Tile(value)
}

impl JitRecorder<'_> {
    /// Stores a batched matmul's result (`input`, made by joining its per-batch products) into
    /// `extents` at `offsets` of `tensor` by storing each product straight from the cube into its
    /// band of rows of the tensor's 2-D view: the joined tile is then never built in UB. `None`
    /// when `input` is not such a result or the ranks differ.
    pub(super) fn store_batched(
        &mut self,
        builder: &mut UnitBuilder,
        input: ValueId,
        tensor: crate::tile::TensorId,
        (offsets, extents): (&[usize], &[usize]),
        line: Option<u32>,
    ) -> Option<Result<(), Unsupported>> {
        let products = batched_products(builder, input)?;
        let tile = builder.tile(input).clone();
        let shape = self.tensors[tensor.0 as usize].shape.clone();
        let rank = shape.len();
        if tile.shape.len() != rank || offsets.len() != rank || extents.len() != rank {
            return None;
        }
        let rows: usize = shape[..rank - 1].iter().product();
        let view = self.view_of(tensor, &[rows, shape[rank - 1]], None);
        let batch = &tile.valid_shape[..rank - 2];
        for (position, product) in products.into_iter().enumerate() {
            // The batch index of product `position` (row-major over the batch dims).
            let mut index = vec![0; batch.len()];
            let mut rest = position;
            for dim in (0..batch.len()).rev() {
                index[dim] = rest % batch[dim];
                rest /= batch[dim];
            }
            if index.iter().zip(extents).any(|(&at, &extent)| at >= extent) {
                continue;
            }
            let valid = builder.tile(product).valid_shape.clone();
            let band = [valid[0].min(extents[rank - 2]), valid[1].min(extents[rank - 1])];
            let position_of = |dim: usize| offsets[dim] + index.get(dim).copied().unwrap_or(0);
            let row = (0..rank - 1).fold(0, |row, dim| row * shape[dim] + position_of(dim));
            let region =
                crate::tile::GmRegion { tensor: view, offsets: vec![row, offsets[rank - 1]], shape: band.to_vec() };
            self.accesses.push(super::Access {
                tensor: view,
                offsets: region.offsets.clone(),
                shape: region.shape.clone(),
                unit: self.unit_index,
                write: true,
                accumulate: false,
            });
            builder.push(WorkStep::Store { input: product, region, accumulate: false }, line);
        }
        Some(Ok(()))
    }
}

/// The per-batch products a batched matmul joined into `value` (its reshape of their row concat).
fn batched_products(builder: &UnitBuilder, value: ValueId) -> Option<Vec<ValueId>> {
    let producer = |value: ValueId| {
        builder.unit.steps.iter().find(|located| located.step.values().1 == Some(value)).map(|located| &located.step)
    };
    let Some(WorkStep::Vector { op: VectorOp::Reshape, inputs, .. }) = producer(value) else { return None };
    let [WorkOperand::Tile(joined)] = inputs.as_slice() else { return None };
    let Some(WorkStep::Vector { op: VectorOp::Concat { dim: 0 }, inputs, .. }) = producer(*joined) else { return None };
    inputs
        .iter()
        .map(|operand| match operand {
            WorkOperand::Tile(product) if matches!(producer(*product), Some(WorkStep::Matmul { .. })) => Some(*product),
            _ => None,
        })
        .collect()
}
