//! The recorder for `@pypto.kernel` (functional) kernels: tiled automatically. The output is cut
//! into tiles of the kernel's vec tile shape; each tile is one unit that loads the regions of the
//! inputs it needs (a broadcast `[1, C]` operand loads its own `[1, c]` region), computes, and
//! stores its tile of every output. A dim that the kernel reduces over is whole in every tile.
//!
//! Regions are worked out backwards from the output tile through each op, in "tile form":
//! reductions keep their dims, so `x.sum(dim=-1)` is `[R, 1]` here (the same elements as `[R]`).

use std::collections::HashMap;

use super::capture::{identity, Arg, Captured, CapturedOp, Identity};
use super::work_compute::{compute, tensor_operands};
use super::work_ops::{UnitBuilder, Unsupported};
use super::work_shapes::{broadcast, tile_dims};
use crate::lang::interp::pypto::capture::TensorRef;
use crate::tile::{GmRegion, GmTensor, TensorId, TileWork, ValueId, WorkSettings, WorkStep, WorkUnit};

mod regions;

use regions::{operand_region, output_tile, tiles, Region};

/// What the recorder needs to know about a functional kernel call.
pub(crate) struct AutoCall<'a> {
    /// The kernel's name.
    pub name: &'a str,
    /// The ops it executed.
    pub ops: &'a [Captured],
    /// The tensor arguments (name, tensor).
    pub arguments: &'a [(String, TensorRef)],
    /// The tensors it returned.
    pub outputs: &'a [TensorRef],
    /// The vec tile to cut the outputs by (`None`: the default).
    pub vec_tile: Option<&'a [usize]>,
    /// The line of the `return` (where the stores come from).
    pub return_line: Option<u32>,
    /// The chip's UB granule in bytes (`NpuConfig::ub_alignment`): vector tiles' rows start on it.
    pub ub_alignment: u64,
}

struct AutoRecorder<'a> {
    ops: &'a [Captured],
    kinds: HashMap<usize, CapturedOp>,
    arguments: HashMap<Identity, TensorId>,
    definitions: HashMap<Identity, usize>,
    forms: HashMap<Identity, Vec<usize>>,
    memo: HashMap<(Identity, Region), ValueId>,
    /// Elements per 32 bytes of the narrowest dtype: vector tiles' last dims are padded to it.
    align: usize,
}

/// Records a functional kernel's ops as tile work over its outputs' tiles.
pub(crate) fn record_auto(call: &AutoCall<'_>, settings: WorkSettings) -> Result<TileWork, Unsupported> {
    let mut recorder = AutoRecorder {
        ops: call.ops,
        kinds: HashMap::new(),
        arguments: HashMap::new(),
        definitions: HashMap::new(),
        forms: HashMap::new(),
        memo: HashMap::new(),
        align: 8,
    };
    let mut tensors = Vec::new();
    for (_, tensor) in call.arguments {
        recorder.align = recorder.align.max(call.ub_alignment as usize / tensor.dtype().size_in_bytes());
    }
    for (name, tensor) in call.arguments {
        recorder.arguments.entry(identity(tensor)).or_insert_with(|| {
            tensors.push(GmTensor { name: name.clone(), shape: tensor.shape().to_vec(), dtype: tensor.dtype() });
            TensorId(tensors.len() as u32 - 1)
        });
    }
    let mut reduced_dims = Vec::new();
    let mut has_matmul = false;
    for (index, op) in call.ops.iter().enumerate() {
        let kind = op.op.clone();
        match &kind {
            CapturedOp::Unsupported { what } => return Err(Unsupported::new(what.clone(), op.line)),
            CapturedOp::UnitStart
            | CapturedOp::View { .. }
            | CapturedOp::Index { .. }
            | CapturedOp::Assemble { .. }
            | CapturedOp::SetItem { .. }
            | CapturedOp::InPlace { .. } => {
                return Err(Unsupported::new(format!("`{}` in a @pypto.kernel (tiles are automatic here; views and in-place writes belong in @pypto.frontend.jit kernels)", op.op.name()), op.line));
            }
            CapturedOp::Matmul { .. } => has_matmul = true,
            CapturedOp::Reshape { .. }
            | CapturedOp::Transpose { .. }
            | CapturedOp::Fill { .. }
            | CapturedOp::Vector { .. }
            | CapturedOp::ClipBounds { .. } => {
                return Err(Unsupported::new(format!("`{}`", op.op.name()), op.line));
            }
            _ => {}
        }
        if let Some(result) = &op.result {
            recorder.definitions.insert(identity(result), index);
            recorder.align = recorder.align.max(call.ub_alignment as usize / result.dtype().size_in_bytes());
        }
        recorder.kinds.insert(index, kind);
    }
    let first_output = tensors.len();
    let mut output_forms = Vec::new();
    for output in call.outputs {
        let form = recorder.form(output, call.return_line)?;
        tensors.push(GmTensor {
            name: format!("out{}", output_forms.len()),
            shape: form.clone(),
            dtype: output.dtype(),
        });
        output_forms.push(form);
    }
    let kinds: Vec<(usize, CapturedOp)> = recorder.kinds.iter().map(|(index, kind)| (*index, kind.clone())).collect();
    for (index, kind) in &kinds {
        let (x, dims) = match kind {
            CapturedOp::Reduce { x, dims, .. } => (x, dims.clone()),
            CapturedOp::Softmax { x, dim, .. } => (x, Some(vec![*dim])),
            _ => continue,
        };
        let form = recorder.form(x, call.ops[*index].line)?;
        reduced_dims.push((form.len(), tile_dims(&dims, x.shape().len(), form.len())));
    }
    let mut units = Vec::new();
    let mut done = vec![false; call.outputs.len()];
    for start in 0..call.outputs.len() {
        if done[start] {
            continue;
        }
        // Outputs of the same shape share their units (and the work they have in common).
        let group: Vec<usize> = (start..call.outputs.len())
            .filter(|&other| !done[other] && output_forms[other] == output_forms[start])
            .collect();
        group.iter().for_each(|&member| done[member] = true);
        let shape = &output_forms[start];
        let tile = output_tile(shape, call.vec_tile, &settings, has_matmul, &reduced_dims);
        for region in tiles(shape, &tile) {
            let mut builder = UnitBuilder::default();
            recorder.memo.clear();
            for &member in &group {
                let input = recorder.materialize(&mut builder, &call.outputs[member], &region, call.return_line)?;
                let tensor = TensorId((first_output + member) as u32);
                builder.push(
                    WorkStep::Store {
                        input,
                        region: GmRegion { tensor, offsets: region.offsets.clone(), shape: region.valid.clone() },
                        accumulate: false,
                    },
                    call.return_line,
                );
            }
            units.push(std::mem::take(&mut builder).unit);
        }
    }
    let units: Vec<WorkUnit> = units;
    Ok(TileWork { name: call.name.to_string(), tensors, views: Vec::new(), ordered: Vec::new(), units, settings })
}

impl AutoRecorder<'_> {
    /// The shape of `tensor` in tile form (reductions keep their dims).
    fn form(&mut self, tensor: &TensorRef, line: Option<u32>) -> Result<Vec<usize>, Unsupported> {
        let key = identity(tensor);
        if let Some(form) = self.forms.get(&key) {
            return Ok(form.clone());
        }
        let form = if self.arguments.contains_key(&key) {
            tensor.shape().to_vec()
        } else {
            let index = *self.definitions.get(&key).ok_or_else(|| unknown_tensor(line))?;
            let kind = self.kinds[&index].clone();
            let line = self.ops[index].line;
            match &kind {
                CapturedOp::Unary { x, .. }
                | CapturedOp::Cast { x }
                | CapturedOp::Clip { x, .. }
                | CapturedOp::Softmax { x, .. } => self.form(x, line)?,
                CapturedOp::Binary { lhs, rhs, op } => {
                    let mut side = |arg: &Arg| match arg {
                        Arg::Tensor(tensor) => self.form(tensor, line),
                        Arg::Number(_) => Ok(Vec::new()),
                    };
                    let (left, right) = (side(lhs)?, side(rhs)?);
                    broadcast(&left, &right).ok_or_else(|| {
                        Unsupported::new(format!("`{}` of tiles {left:?} and {right:?}", op.name()), line)
                    })?
                }
                CapturedOp::Reduce { x, dims, .. } => {
                    let mut form = self.form(x, line)?;
                    for dim in tile_dims(dims, x.shape().len(), form.len()) {
                        form[dim] = 1;
                    }
                    form
                }
                CapturedOp::Matmul { a, b, a_transposed, b_transposed } => {
                    let (left, right) = (self.form(a, line)?, self.form(b, line)?);
                    if left.len() != 2 || right.len() != 2 {
                        return Err(Unsupported::new("`matmul` of tensors that are not 2-D", line));
                    }
                    vec![left[usize::from(*a_transposed)], right[usize::from(!*b_transposed)]]
                }
                _ => return Err(unknown_tensor(line)),
            }
        };
        self.forms.insert(key, form.clone());
        Ok(form)
    }

    /// The tile of `tensor` over `region` (in its tile form), loading or computing it in the unit.
    fn materialize(
        &mut self,
        builder: &mut UnitBuilder,
        tensor: &TensorRef,
        region: &Region,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let key = (identity(tensor), region.clone());
        if let Some(&value) = self.memo.get(&key) {
            return Ok(value);
        }
        let value = if let Some(&id) = self.arguments.get(&key.0) {
            let mut nominal = region.nominal.clone();
            // A vector tile's rows start on the UB granule: pad the last dim (the padding is
            // outside the valid shape, so it is never stored).
            if let Some(last) = nominal.last_mut().filter(|last| !region.cube && **last > 1) {
                *last = last.div_ceil(self.align) * self.align;
            }
            let output = builder.value(nominal, region.valid.clone(), tensor.dtype());
            builder.push(
                WorkStep::Load {
                    region: GmRegion { tensor: id, offsets: region.offsets.clone(), shape: region.valid.clone() },
                    output,
                },
                line,
            );
            output
        } else {
            let index = *self.definitions.get(&key.0).ok_or_else(|| unknown_tensor(line))?;
            let kind = self.kinds[&index].clone();
            let line = self.ops[index].line;
            let result_form = self.form(tensor, line)?;
            let mut operand_regions = Vec::new();
            for (position, operand) in tensor_operands(&kind).iter().enumerate() {
                let form = self.form(operand, line)?;
                operand_regions.push((operand_region(&kind, position, region, &form, &result_form, operand), form));
            }
            compute(builder, &kind, tensor, line, &mut |builder, position, operand| {
                let (region, form) = &operand_regions[position];
                Ok((self.materialize(builder, operand, region, line)?, form.clone()))
            })?
        };
        self.memo.insert(key, value);
        Ok(value)
    }
}

fn unknown_tensor(line: Option<u32>) -> Unsupported {
    Unsupported::new(
        "a tensor the recorder did not see being made (indexing, `.T`, a reshape, or a tensor from outside the kernel)",
        line,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragged_tiles_cover_the_shape_once() {
        // 10 rows in tiles of 4: offsets 0, 4, 8 with 4, 4, 2 valid rows.
        let regions = tiles(&[10, 16], &[4, 16]);
        let rows: Vec<(usize, usize)> = regions.iter().map(|region| (region.offsets[0], region.valid[0])).collect();
        assert_eq!(rows, vec![(0, 4), (4, 4), (8, 2)]);
        assert!(regions.iter().all(|region| region.nominal == vec![4, 16]));
    }

    #[test]
    fn reduced_dims_are_whole_in_each_tile() {
        let settings = WorkSettings::default();
        // A row reduction of a [64, 256] value with an [8, 64] vec tile: tiles of 8 whole rows.
        assert_eq!(output_tile(&[64, 256], Some(&[8, 64]), &settings, false, &[(2, vec![1])]), vec![8, 256]);
        // Without reductions the tile is the vec tile, clipped to the output.
        assert_eq!(output_tile(&[4, 32], Some(&[8, 64]), &settings, false, &[]), vec![4, 32]);
    }

    #[test]
    fn broadcast_operands_read_their_own_region() {
        let region = Region { offsets: vec![8, 64], valid: vec![8, 64], nominal: vec![8, 64], cube: false };
        let bias = TensorRef::of(&crate::tensor::Tensor::zeros(&[1, 256], crate::tensor::DType::F32).unwrap());
        let kind = CapturedOp::Binary {
            op: crate::tensor::BinaryOp::Add,
            lhs: Arg::Tensor(bias.clone()),
            rhs: Arg::Tensor(bias.clone()),
        };
        let needed = operand_region(&kind, 0, &region, &[1, 256], &[64, 256], &bias);
        assert_eq!((needed.offsets, needed.valid), (vec![0, 64], vec![1, 64]));
    }
}
