//! Batched matmuls in a recorded unit: an operand that is a GM load (or a transpose of one's last
//! two dims) is handed to the batched matmul as its GM region, so each batch's matrix is loaded
//! straight from GM through a 2-D view of the tensor instead of being sliced out of a UB tile. A
//! computed operand is stored into a GM workspace of its own first, and a result that vector ops
//! use is stored product by product into one and loaded back: as in pypto, where every tensor
//! lives in GM, the vector work around a batched matmul is then tiled by the vec tile like any
//! other (attention's scores are never one UB tile), and the workspaces order the two sides.

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
        let (left, right) = (self.in_gm(builder, left, line)?, self.in_gm(builder, right, line)?);
        let mut load =
            |builder: &mut UnitBuilder, region: &GmRegion, dtype: DType| self.load_matrix(builder, region, dtype, line);
        batched_matmul(builder, (left, a_transposed), (right, b_transposed), dtype, line, &mut load)
    }

    /// A computed operand stored whole into a GM workspace of its own (read back matrix by matrix).
    fn in_gm(
        &mut self,
        builder: &mut UnitBuilder,
        operand: BatchedOperand,
        line: Option<u32>,
    ) -> Result<BatchedOperand, Unsupported> {
        let BatchedOperand::Tile(value) = operand else { return Ok(operand) };
        let tile = builder.tile(value).clone();
        let (workspace, region) = self.spill(builder, value, line)?;
        Ok(BatchedOperand::Gm {
            region: GmRegion {
                tensor: workspace,
                offsets: crate::tile::Dims::filled(0, tile.shape.len()),
                shape: region.into(),
            },
            dtype: tile.dtype,
            transposed: false,
        })
    }

    /// `value` (a batched matmul's joined result) stored into a GM workspace and loaded back whole,
    /// for the ops that read it; any other value as it is.
    pub(super) fn through_gm(
        &mut self,
        builder: &mut UnitBuilder,
        value: ValueId,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        if batched_products(builder, value).is_none() {
            return Ok(value);
        }
        let dtype = builder.tile(value).dtype;
        let (workspace, valid) = self.spill(builder, value, line)?;
        self.load(builder, workspace, vec![0; valid.len()], valid.clone(), valid, dtype, line)
    }

    /// Makes `tensor`, when it is a batched matmul's result computed in this unit, a GM tensor: its
    /// products are stored into a workspace that then stands for it (a reshape or transpose of it
    /// is a GM view of the workspace, as of any tensor in GM).
    pub(super) fn place_in_gm(
        &mut self,
        builder: &mut UnitBuilder,
        tensor: &TensorRef,
        line: Option<u32>,
    ) -> Result<(), Unsupported> {
        let key = crate::lang::interp::pypto::capture::identity(tensor);
        let Some(&value) = self.memo.get(&key) else { return Ok(()) };
        if self.gm_of(tensor).is_some() || batched_products(builder, value).is_none() {
            return Ok(());
        }
        let (workspace, _) = self.spill(builder, value, line)?;
        self.memo.remove(&key);
        self.gm.insert(key, workspace);
        Ok(())
    }

    /// Stores `value`'s valid part into a new GM workspace (a batched result product by product);
    /// returns the workspace and the valid shape stored.
    fn spill(
        &mut self,
        builder: &mut UnitBuilder,
        value: ValueId,
        line: Option<u32>,
    ) -> Result<(crate::tile::TensorId, Vec<usize>), Unsupported> {
        let tile = builder.tile(value).clone();
        let workspace = crate::tile::TensorId(self.tensors.len() as u32);
        self.tensors.push(crate::tile::GmTensor {
            name: format!("batched{}", workspace.0),
            shape: tile.valid_shape.to_vec(),
            dtype: tile.dtype,
        });
        self.ordered.push(workspace);
        *self.versions.entry(workspace).or_insert(0) += 1;
        let origin = vec![0; tile.valid_shape.len()];
        if let Some(stored) = self.store_batched(builder, value, workspace, (&origin, &tile.valid_shape), line) {
            stored?;
        } else {
            let region = GmRegion {
                tensor: workspace,
                offsets: crate::tile::Dims::from(&*origin),
                shape: tile.valid_shape.clone(),
            };
            self.accesses.push(super::Access {
                tensor: workspace,
                offsets: origin,
                shape: tile.valid_shape.to_vec(),
                unit: self.unit_index,
                write: true,
                accumulate: false,
            });
            builder.push(WorkStep::Store { input: value, region, accumulate: false }, line);
        }
        Ok((workspace, tile.valid_shape.to_vec()))
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
    let producer = |value: ValueId| builder.unit.steps.iter().find(|located| located.step.output() == Some(value));
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
            let region = crate::tile::GmRegion {
                tensor: view,
                offsets: vec![row, offsets[rank - 1]].into(),
                shape: crate::tile::Dims::from(band),
            };
            self.accesses.push(super::Access {
                tensor: view,
                offsets: region.offsets.to_vec(),
                shape: region.shape.to_vec(),
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
        builder.unit.steps.iter().find(|located| located.step.output() == Some(value)).map(|located| &located.step)
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
