//! The adjoint of a `@pypto.frontend.jit` kernel: its outputs are arguments it writes region by
//! region (`pypto.assemble`, `out[...] = t`) from views of its inputs, one `pypto.loop` iteration
//! per unit of work. The backward has one unit per forward unit. In it, an assemble's adjoint is a
//! view of the written argument's gradient at the same region; the unit's ops are differentiated
//! (`derive`, the rule table shared with autograd) from those views back to the views the unit
//! read; and a view's adjoint writes its gradient into the viewed region of a zero-initialised
//! gradient — a plain store when no two views of that argument overlap, else an accumulating
//! store (the NPU's atomic add) in f32, so the units stay independent. Every forward value the
//! backward reads is recomputed inside its unit, from the same views.

use std::collections::{HashMap, HashSet};

use super::super::capture::{identity, Arg, Captured, CapturedOp, Identity, TensorRef};
use super::derive::{derive, Forward};
use super::NotDerivable;
use crate::messages::DerivationReason;
use crate::tensor::{BinaryOp, DType};

/// A region of an argument: where a view reads or a store writes.
#[derive(Clone, Debug, PartialEq)]
struct Region {
    argument: usize,
    offsets: Vec<usize>,
    extents: Vec<usize>,
}

impl Region {
    fn overlaps(&self, other: &Region) -> bool {
        self.argument == other.argument
            && self.offsets.iter().zip(&self.extents).zip(other.offsets.iter().zip(&other.extents)).all(
                |((&start, &extent), (&other_start, &other_extent))| {
                    start < other_start + other_extent && other_start < start + extent
                },
            )
    }
}

/// The backward capture of a jit kernel.
pub(crate) struct JitAdjoint {
    /// The backward's ops: per forward unit with a gradient, a unit start, the forward ops it
    /// recomputes, views of the outputs' gradients, the adjoint ops and the gradients' stores.
    pub ops: Vec<Captured>,
    /// Per written argument (its index): the reference of its incoming gradient (its shape).
    pub grad_outputs: Vec<(usize, TensorRef)>,
    /// Per argument: the zero-initialised tensor its gradient is stored into, or `None`.
    pub gradients: Vec<Option<TensorRef>>,
}

fn fail(what: DerivationReason, line: Option<u32>) -> NotDerivable {
    NotDerivable { what, line }
}

/// The arguments a jit kernel writes (by `assemble` or `out[...] = t`), in argument order.
pub(crate) fn written_arguments(ops: &[Captured], arguments: &[TensorRef]) -> Vec<usize> {
    let keys: HashSet<Identity> = ops
        .iter()
        .filter_map(|op| match &op.op {
            CapturedOp::Assemble { out, .. } => Some(identity(out)),
            CapturedOp::SetItem { target, .. } => Some(identity(target)),
            _ => None,
        })
        .collect();
    (0..arguments.len()).filter(|&index| keys.contains(&identity(&arguments[index]))).collect()
}

/// One write of a unit: the tile written (`None`: a number) and where.
struct Write {
    tile: Option<TensorRef>,
    region: Region,
    line: Option<u32>,
}

/// Derives the backward of a jit kernel whose ops are `ops` and tensor arguments `arguments`,
/// for the arguments in `needs`.
pub(crate) fn derive_jit(
    ops: &[Captured],
    arguments: &[TensorRef],
    needs: &[bool],
) -> Result<JitAdjoint, NotDerivable> {
    let mut argument_of: HashMap<Identity, usize> = HashMap::new();
    for (index, argument) in arguments.iter().enumerate() {
        if argument_of.insert(identity(argument), index).is_some() {
            return Err(fail(DerivationReason::SameTensor, None));
        }
    }
    let written = written_arguments(ops, arguments);
    if let Some(&index) = written.iter().find(|&&index| needs[index]) {
        return Err(fail(DerivationReason::WritesGradArgument { index }, None));
    }
    // Units: split at each loop iteration's start (the code before the first is a unit of its own).
    let mut unit_of = Vec::with_capacity(ops.len());
    let mut unit = 0;
    for op in ops {
        if matches!(op.op, CapturedOp::UnitStart) {
            unit += 1;
        }
        unit_of.push(unit);
    }
    let mut writes: Vec<Vec<Write>> = (0..=unit).map(|_| Vec::new()).collect();
    let mut definitions: HashMap<Identity, usize> = HashMap::new();
    for (index, op) in ops.iter().enumerate() {
        let line = op.line;
        let argument = |target: &TensorRef| {
            argument_of.get(&identity(target)).copied().ok_or_else(|| fail(DerivationReason::StoreIntoMade, line))
        };
        match &op.op {
            CapturedOp::Assemble { tile, offsets, out } => {
                let extents = tile.valid_shape().unwrap_or(tile.shape()).to_vec();
                let region = Region { argument: argument(out)?, offsets: offsets.clone(), extents };
                writes[unit_of[index]].push(Write { tile: Some(tile.clone()), region, line });
            }
            CapturedOp::SetItem { target, offsets, extents, value } => {
                let tile = match value {
                    Arg::Tensor(tile) if tile.shape().len() != extents.len() => {
                        return Err(fail(DerivationReason::RegionRank, line))
                    }
                    Arg::Tensor(tile) => Some(tile.clone()),
                    Arg::Number(_) => None,
                };
                let region = Region { argument: argument(target)?, offsets: offsets.clone(), extents: extents.clone() };
                writes[unit_of[index]].push(Write { tile, region, line });
            }
            CapturedOp::InPlace { .. } => return Err(fail(DerivationReason::InPlace, line)),
            CapturedOp::Index { source, extents, .. }
                if argument_of.contains_key(&identity(source))
                    && op.result.as_ref().is_some_and(|result| result.shape().len() != extents.len()) =>
            {
                return Err(fail(DerivationReason::IndexDropsDim, line));
            }
            _ => {}
        }
        for tensor in op.op.tensors() {
            let read = !matches!(op.op, CapturedOp::Assemble { .. } | CapturedOp::SetItem { .. });
            if let Some(&argument) = argument_of.get(&identity(tensor)).filter(|_| read) {
                if written.contains(&argument) {
                    return Err(fail(DerivationReason::ReadOfWritten, line));
                }
            }
        }
        if let Some(result) = &op.result {
            definitions.insert(identity(result), index);
        }
    }
    let all_writes: Vec<&Write> = writes.iter().flatten().collect();
    for (position, write) in all_writes.iter().enumerate() {
        if all_writes[position + 1..].iter().any(|other| other.region.overlaps(&write.region)) {
            return Err(fail(DerivationReason::OverlappingStores, write.line));
        }
    }
    // The values that depend on an argument that needs a gradient.
    let mut active: HashSet<Identity> =
        arguments.iter().zip(needs).filter(|(_, &need)| need).map(|(argument, _)| identity(argument)).collect();
    for op in ops {
        if let Some(result) = &op.result {
            if op.op.tensors().iter().any(|tensor| active.contains(&identity(*tensor))) {
                active.insert(identity(result));
            }
        }
    }
    // First pass: each unit's cone and the regions its leaves read (to choose plain or
    // accumulating stores per argument).
    let mut plans = Vec::new();
    for unit_writes in &writes {
        let tiles: Vec<&TensorRef> = unit_writes
            .iter()
            .filter_map(|write| write.tile.as_ref())
            .filter(|tile| active.contains(&identity(*tile)))
            .collect();
        if tiles.is_empty() {
            continue;
        }
        let plan = cone_of(ops, &tiles, &definitions, &argument_of, &active)?;
        plans.push((unit_writes, plan));
    }
    let leaf_regions: Vec<&Region> =
        plans.iter().flat_map(|(_, plan)| plan.leaves.iter().map(|leaf| &leaf.region)).collect();
    let accumulate: Vec<bool> = (0..arguments.len())
        .map(|argument| {
            let regions: Vec<&&Region> = leaf_regions.iter().filter(|region| region.argument == argument).collect();
            regions
                .iter()
                .enumerate()
                .any(|(position, region)| regions[position + 1..].iter().any(|other| other.overlaps(region)))
        })
        .collect();
    let grad_outputs: Vec<(usize, TensorRef)> = written
        .iter()
        .map(|&index| (index, TensorRef::fresh(arguments[index].shape(), None, arguments[index].dtype())))
        .collect();
    let gradients: Vec<Option<TensorRef>> = arguments
        .iter()
        .enumerate()
        .map(|(index, argument)| {
            let dtype = if accumulate[index] { DType::F32 } else { argument.dtype() };
            needs[index].then(|| TensorRef::fresh(argument.shape(), None, dtype))
        })
        .collect();
    let mut backward = Vec::new();
    for (unit_writes, plan) in plans {
        let line = unit_writes.first().and_then(|write| write.line);
        backward.push(Captured { op: CapturedOp::UnitStart, result: None, line });
        backward.extend(plan.ops.iter().map(|&index| ops[index].clone()));
        // An assemble's adjoint: the written region of the output's gradient.
        let (mut outputs, mut grads) = (Vec::new(), Vec::new());
        for write in unit_writes.iter() {
            let Some(tile) = write.tile.as_ref().filter(|tile| active.contains(&identity(*tile))) else { continue };
            let Some((_, source)) = grad_outputs.iter().find(|(index, _)| *index == write.region.argument) else {
                continue;
            };
            let valid = tile.valid_shape().map(<[usize]>::to_vec);
            let gradient = TensorRef::fresh(tile.shape(), valid, source.dtype());
            let view = CapturedOp::View { source: source.clone(), offsets: write.region.offsets.clone() };
            backward.push(Captured { op: view, result: Some(gradient.clone()), line: write.line });
            outputs.push(tile.clone());
            grads.push(gradient);
        }
        let inputs: Vec<TensorRef> = plan.leaves.iter().map(|leaf| leaf.value.clone()).collect();
        let leaf_needs: Vec<bool> = plan.leaves.iter().map(|leaf| needs[leaf.region.argument]).collect();
        let differentiated: Vec<Captured> = plan
            .ops
            .iter()
            .filter(|&&index| {
                !plan.leaves.iter().any(|leaf| Some(identity(&leaf.value)) == ops[index].result.as_ref().map(identity))
            })
            .map(|&index| ops[index].clone())
            .collect();
        let forward = Forward { ops: &differentiated, inputs: &inputs, outputs: &outputs };
        let adjoint = derive(&forward, &leaf_needs, &grads)?;
        backward.extend(adjoint.ops);
        // A view's adjoint: its gradient written into the viewed region.
        for (leaf, gradient) in plan.leaves.iter().zip(adjoint.gradients) {
            let (Some(Arg::Tensor(gradient)), Some(output)) = (gradient, gradients[leaf.region.argument].as_ref())
            else {
                continue;
            };
            backward.extend(store(&leaf.value, &leaf.region, gradient, output, accumulate[leaf.region.argument], line));
        }
    }
    Ok(JitAdjoint { ops: backward, grad_outputs, gradients })
}

/// The ops that store `gradient` (of the view `leaf`) into `region` of `output`: an assemble, or
/// `output[region] = output[region] + gradient` (an accumulating store) in the output's dtype.
fn store(
    leaf: &TensorRef,
    region: &Region,
    gradient: TensorRef,
    output: &TensorRef,
    accumulate: bool,
    line: Option<u32>,
) -> Vec<Captured> {
    let offsets = region.offsets.clone();
    let valid = leaf.valid_shape().map(<[usize]>::to_vec);
    let mut ops = Vec::new();
    let mut tile = gradient;
    if tile.dtype() != output.dtype() {
        let cast = TensorRef::fresh(tile.shape(), valid.clone(), output.dtype());
        ops.push(Captured { op: CapturedOp::Cast { x: tile }, result: Some(cast.clone()), line });
        tile = cast;
    }
    if accumulate {
        let read = TensorRef::fresh(leaf.shape(), valid.clone(), output.dtype());
        ops.push(Captured {
            op: CapturedOp::View { source: output.clone(), offsets: offsets.clone() },
            result: Some(read.clone()),
            line,
        });
        let sum = TensorRef::fresh(leaf.shape(), valid, output.dtype());
        let add = CapturedOp::Binary { op: BinaryOp::Add, lhs: Arg::Tensor(read), rhs: Arg::Tensor(tile) };
        ops.push(Captured { op: add, result: Some(sum.clone()), line });
        tile = sum;
    }
    ops.push(Captured { op: CapturedOp::Assemble { tile, offsets, out: output.clone() }, result: None, line });
    ops
}

/// A value a unit reads from an argument: a view of it, or the whole argument.
struct Leaf {
    value: TensorRef,
    region: Region,
}

/// The forward ops one unit's stores depend on (indices, in order) and the leaves they read.
struct Cone {
    ops: Vec<usize>,
    leaves: Vec<Leaf>,
}

fn cone_of(
    ops: &[Captured],
    tiles: &[&TensorRef],
    definitions: &HashMap<Identity, usize>,
    argument_of: &HashMap<Identity, usize>,
    active: &HashSet<Identity>,
) -> Result<Cone, NotDerivable> {
    let mut stack: Vec<TensorRef> = tiles.iter().map(|tile| (*tile).clone()).collect();
    let mut seen: HashSet<Identity> = HashSet::new();
    let mut indices = Vec::new();
    let mut leaves = Vec::new();
    while let Some(tensor) = stack.pop() {
        let key = identity(&tensor);
        if !seen.insert(key.clone()) {
            continue;
        }
        if let Some(&argument) = argument_of.get(&key) {
            // An argument used whole.
            if active.contains(&key) {
                let region =
                    Region { argument, offsets: vec![0; tensor.shape().len()], extents: tensor.shape().to_vec() };
                leaves.push(Leaf { value: tensor, region });
            }
            continue;
        }
        let Some(&index) = definitions.get(&key) else { continue };
        indices.push(index);
        let op = &ops[index];
        match &op.op {
            CapturedOp::View { source, offsets } | CapturedOp::Index { source, offsets, .. }
                if argument_of.contains_key(&identity(source)) =>
            {
                if active.contains(&key) {
                    let extents = tensor.valid_shape().unwrap_or(tensor.shape()).to_vec();
                    let region = Region { argument: argument_of[&identity(source)], offsets: offsets.clone(), extents };
                    leaves.push(Leaf { value: tensor.clone(), region });
                }
            }
            CapturedOp::View { .. } | CapturedOp::Index { .. } if active.contains(&key) => {
                return Err(fail(DerivationReason::ViewOfComputed, op.line));
            }
            other => stack.extend(other.tensors().into_iter().cloned()),
        }
    }
    indices.sort_unstable();
    Ok(Cone { ops: indices, leaves })
}
