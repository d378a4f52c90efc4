//! The recorder of kernel calls (`@pypto.frontend.jit` and `@pypto.kernel` alike): each outermost
//! `pypto.loop` iteration is a unit (a kernel without a loop is one unit, which the compiler
//! expands by the vec tile); `pypto.view` / `x[...]` of an argument loads a region,
//! `pypto.assemble` / `out[...] = v` stores one, a `@pypto.kernel`'s returned tensors are stored
//! whole into outputs of their own, and the ops in between are the unit's compute steps. A value a unit uses that an earlier
//! iteration (or the code before the loop) computed is recomputed inside the unit, so units stay
//! independent and can be spread over cores.

use std::collections::HashMap;

mod batched;
mod independence;
mod materialize;
mod resolution;
mod stores;
mod units;
mod views;

use independence::Access;
use units::drop_dead_steps;
pub(crate) use units::loop_body_starts;

use super::capture::{identity, Arg, Captured, CapturedOp, Identity};
use super::work_compute::compute;
use super::work_ops::{UnitBuilder, Unsupported};
use crate::lang::interp::pypto::capture::TensorRef;
use crate::messages::CompilerReason;
use crate::tile::{GmTensor, GmView, TensorId, TileWork, ValueId, WorkSettings, WorkUnit};

struct JitRecorder<'a> {
    ops: &'a [Captured],
    tensors: Vec<GmTensor>,
    gm: HashMap<Identity, TensorId>,
    definitions: HashMap<Identity, usize>,
    memo: HashMap<Identity, ValueId>,
    /// The tensors being resolved now (a definition that reaches itself is refused, not followed).
    resolving: std::collections::HashSet<Identity>,
    accesses: Vec<Access>,
    unit_index: usize,
    /// Elements per UB granule of the narrowest dtype: a loaded tile's last dim is padded to it (the
    /// padding lies outside the valid shape, so it is never stored).
    align: usize,
    /// The chip's UB granule in bytes (`NpuConfig::ub_alignment`).
    granule: usize,
    /// GM tensors that view another's memory (reshapes and transposes of tensors in GM).
    views: Vec<GmView>,
    /// Tensors made by `full`/`zeros`/`ones`: their value (they are folded into the ops using them).
    constants: HashMap<Identity, f64>,
    /// The vec tile in force (a kernel that sets several: each unit keeps the one it ran under).
    vec_tile: Option<Vec<usize>>,
    /// The kernel's own tensors that it writes (GM workspaces read and written in program order).
    ordered: Vec<TensorId>,
    /// How often each of those has been written so far: a value made from an older content must
    /// not be recomputed from the newer one.
    versions: HashMap<TensorId, u32>,
    /// The workspace contents each emitted op read (directly or through its operands).
    read_versions: HashMap<usize, Vec<(TensorId, u32)>>,
    /// What the ops being emitted read, innermost last.
    reading: Vec<Vec<(TensorId, u32)>>,
    /// Whether the unit being built wrote a workspace (it then keeps its steps together: a split
    /// would recompute values from contents it has overwritten).
    wrote_workspace: bool,
    /// Units that compute a viewed value into its workspace, to run before the unit being built.
    pending_units: Vec<WorkUnit>,
}

/// What a functional (`@pypto.kernel`) kernel returned: each tensor is stored whole into a GM
/// output of its own at the end of the last unit.
pub(crate) struct Returned<'a> {
    /// The returned tensors.
    pub tensors: &'a [TensorRef],
    /// The line of the `return`.
    pub line: Option<u32>,
}

/// Records a kernel's ops as tile work. `arguments` are the tensor arguments (name, tensor) as the
/// kernel received them; `returned`, a functional kernel's results.
pub(crate) fn record_jit(
    name: &str,
    ops: &[Captured],
    arguments: &[(String, TensorRef)],
    settings: WorkSettings,
    ub_alignment: u64,
    tile_changes: &[(usize, Vec<usize>)],
    returned: &Returned<'_>,
) -> Result<TileWork, Unsupported> {
    let mut recorder = JitRecorder {
        ops,
        tensors: Vec::new(),
        gm: HashMap::new(),
        definitions: HashMap::new(),
        memo: HashMap::new(),
        resolving: std::collections::HashSet::new(),
        accesses: Vec::new(),
        unit_index: 0,
        align: 8,
        granule: ub_alignment as usize,
        views: Vec::new(),
        constants: HashMap::new(),
        vec_tile: None,
        ordered: Vec::new(),
        versions: HashMap::new(),
        read_versions: HashMap::new(),
        reading: Vec::new(),
        wrote_workspace: false,
        pending_units: Vec::new(),
    };
    let dtypes = arguments
        .iter()
        .map(|(_, tensor)| tensor.dtype())
        .chain(ops.iter().filter_map(|op| op.result.as_ref().map(TensorRef::dtype)));
    recorder.align = dtypes.map(|dtype| ub_alignment as usize / dtype.size_in_bytes()).max().unwrap_or(8).max(1);
    for (argument, tensor) in arguments {
        if !recorder.gm.contains_key(&identity(tensor)) {
            recorder.gm.insert(identity(tensor), TensorId(recorder.tensors.len() as u32));
            recorder.tensors.push(GmTensor {
                name: argument.clone(),
                shape: tensor.shape().to_vec(),
                dtype: tensor.dtype(),
            });
        }
    }
    let mut units = Vec::new();
    let mut builder = UnitBuilder::default();
    let mut in_place: Option<TensorRef> = None;
    // With several tile shapes, each starts a new unit: the ops after it are tiled by it (values
    // made before and used after are recomputed in the new unit, as across iterations).
    let several = tile_changes.len() > 1;
    for (index, op) in ops.iter().enumerate() {
        if let Some((_, dims)) = tile_changes.iter().rev().find(|(from, _)| *from == index).filter(|_| several) {
            if !recorder.wrote_workspace {
                recorder.finish(&mut builder, &mut units);
            }
            recorder.vec_tile = Some(dims.clone());
        }
        let kind = &op.op;
        match kind {
            CapturedOp::Unsupported { what } => return Err(Unsupported::new(what.clone(), op.line)),
            CapturedOp::UnitStart => {
                recorder.finish(&mut builder, &mut units);
                continue;
            }
            CapturedOp::InPlace { target } => {
                in_place = Some(target.clone());
                continue;
            }
            CapturedOp::Fill { value } => {
                if let Some(result) = &op.result {
                    recorder.constants.insert(identity(result), *value);
                }
                continue;
            }
            // Data the kernel makes from no input is placed in GM, as pypto places it, and loaded
            // like an argument.
            CapturedOp::Constant { op: made } => {
                if let Some(result) = &op.result {
                    recorder.gm.insert(identity(result), TensorId(recorder.tensors.len() as u32));
                    recorder.tensors.push(GmTensor {
                        name: format!("{made}{}", recorder.tensors.len()),
                        shape: result.shape().to_vec(),
                        dtype: result.dtype(),
                    });
                }
                continue;
            }
            CapturedOp::Binary { .. } if op.result.is_some() && recorder.constant_result(kind).is_some() => {
                if let (Some(result), Some(value)) = (&op.result, recorder.constant_result(kind)) {
                    recorder.constants.insert(identity(result), value);
                }
                continue;
            }
            // A reshaped filled tensor holds the same number everywhere: it is that number too.
            CapturedOp::Reshape { x } if recorder.constants.contains_key(&identity(x)) => {
                if let (Some(result), Some(&value)) = (&op.result, recorder.constants.get(&identity(x))) {
                    recorder.constants.insert(identity(result), value);
                }
                continue;
            }
            CapturedOp::Reshape { x } | CapturedOp::Transpose { x, .. }
                if recorder.place_in_gm(&mut builder, x, op.line).is_ok() && recorder.gm_of(x).is_some() =>
            {
                let (Some(result), Some(base)) = (&op.result, recorder.gm_of(x)) else { continue };
                let order = if let CapturedOp::Transpose { order, .. } = kind { Some(order.clone()) } else { None };
                let view = recorder.view_of(base, result.shape(), order);
                recorder.gm.insert(identity(result), view);
                continue;
            }
            CapturedOp::Assemble { tile, offsets, out } => {
                let input = recorder.resolve(&mut builder, tile, op.line)?;
                let valid = builder.tile(input).valid_shape.clone();
                recorder.store(&mut builder, input, out, offsets.clone(), valid.to_vec(), op.line)?;
            }
            CapturedOp::SetItem { target, offsets, extents, value } => {
                let Arg::Tensor(value) = value else {
                    return Err(Unsupported::new(CompilerReason::NumberIntoRegion, op.line));
                };
                let (offsets, extents) = (offsets.clone(), extents.clone());
                let input = recorder.resolve(&mut builder, value, op.line)?;
                let valid = builder.tile(input).valid_shape.clone();
                // As on the reference path, only the tile's valid part is written (a tile of more
                // dims than the region is fitted to it by the store).
                let extents = if valid.len() == extents.len() {
                    extents.iter().zip(&valid).map(|(&region, &valid)| region.min(valid)).collect()
                } else {
                    extents
                };
                recorder.store(&mut builder, input, target, offsets, extents, op.line)?;
            }
            // A value the kernel received in GM (a generated backward's saved forward value) is
            // read from there, not computed again.
            _ if in_place.is_none() && op.result.as_ref().is_some_and(|result| recorder.gm_of(result).is_some()) => {
                continue;
            }
            _ => {
                let value = recorder.emit(&mut builder, index)?;
                if let (Some(target), Some(result)) = (in_place.take(), &op.result) {
                    recorder.memo.insert(identity(result), value);
                    match recorder.gm.get(&identity(&target)).copied() {
                        // `out += t` on a whole output: the new value is stored back whole.
                        Some(_) => recorder.store(
                            &mut builder,
                            value,
                            &target,
                            vec![0; target.shape().len()],
                            target.shape().to_vec(),
                            op.line,
                        )?,
                        None => {
                            recorder.memo.insert(identity(&target), value);
                        }
                    }
                }
            }
        }
    }
    for (index, tensor) in returned.tensors.iter().enumerate() {
        let value = recorder.resolve(&mut builder, tensor, returned.line)?;
        let output = TensorId(recorder.tensors.len() as u32);
        recorder.tensors.push(GmTensor {
            name: format!("out{index}"),
            shape: tensor.shape().to_vec(),
            dtype: tensor.dtype(),
        });
        recorder.gm.insert(identity(tensor), output);
        let shape = tensor.shape().to_vec();
        recorder.store(&mut builder, value, tensor, vec![0; shape.len()], shape, returned.line)?;
    }
    recorder.finish(&mut builder, &mut units);
    let serialized = recorder.check_independent()?;
    recorder.check_views()?;
    let mut ordered = recorder.ordered;
    ordered.extend(serialized);
    Ok(TileWork { name: name.to_string(), tensors: recorder.tensors, views: recorder.views, ordered, units, settings })
}

impl JitRecorder<'_> {
    /// Closes the unit being built (empty ones are dropped) and starts the next.
    fn finish(&mut self, builder: &mut UnitBuilder, units: &mut Vec<WorkUnit>) {
        units.append(&mut self.pending_units);
        let mut unit = std::mem::take(builder).unit;
        unit.vec_tile = self.vec_tile.clone();
        self.wrote_workspace = false;
        drop_dead_steps(&mut unit);
        self.memo.clear();
        if !unit.steps.is_empty() {
            units.push(unit);
            self.unit_index += 1;
        }
    }

    /// Emits op `index` (a load or a compute op) into the unit; returns its tile.
    fn emit(&mut self, builder: &mut UnitBuilder, index: usize) -> Result<ValueId, Unsupported> {
        if let Some(read) = self.read_versions.get(&index) {
            if let Some((tensor, _)) =
                read.iter().find(|(tensor, version)| self.versions.get(tensor).copied().unwrap_or(0) != *version)
            {
                let name = &self.tensors[tensor.0 as usize].name;
                return Err(Unsupported::new(CompilerReason::StaleValue { name: name.clone() }, self.ops[index].line));
            }
        }
        self.reading.push(Vec::new());
        let value = self.emit_op(builder, index);
        let read = self.reading.pop().unwrap_or_default();
        if let Some(outer) = self.reading.last_mut() {
            outer.extend(read.iter().copied());
        }
        self.read_versions.entry(index).or_insert(read);
        value
    }

    fn emit_op(&mut self, builder: &mut UnitBuilder, index: usize) -> Result<ValueId, Unsupported> {
        let op = &self.ops[index];
        let Some(result) = op.result.clone() else {
            return Err(Unsupported::new(CompilerReason::NoResult { op: op.op.name() }, op.line));
        };
        let kind = op.op.clone();
        let value = match &kind {
            CapturedOp::Unsupported { what } => return Err(Unsupported::new(what.clone(), op.line)),
            CapturedOp::View { source, offsets } => {
                let tensor = self.materialize(source, op.line)?;
                let shape = result.shape().to_vec();
                let valid = result.valid_shape().map_or_else(|| shape.clone(), <[usize]>::to_vec);
                self.load(builder, tensor, offsets.clone(), shape, valid, result.dtype(), op.line)?
            }
            CapturedOp::GatherRows { source, rows } => {
                let shape = result.shape().to_vec();
                let tensor = self.row_view(source, rows, &shape, op.line)?;
                let valid = result.valid_shape().map_or_else(|| shape.clone(), <[usize]>::to_vec);
                self.load(builder, tensor, vec![0; shape.len()], shape, valid, result.dtype(), op.line)?
            }
            CapturedOp::Index { source, offsets, extents } => {
                let tensor = self.materialize(source, op.line)?;
                self.load(builder, tensor, offsets.clone(), extents.clone(), extents.clone(), result.dtype(), op.line)?
            }
            CapturedOp::UnitStart
            | CapturedOp::Assemble { .. }
            | CapturedOp::SetItem { .. }
            | CapturedOp::InPlace { .. } => {
                return Err(Unsupported::new(CompilerReason::UsedAsValue { op: op.op.name() }, op.line));
            }
            CapturedOp::Fill { .. } => {
                return Err(Unsupported::new(CompilerReason::FillOfComputed { op: op.op.name() }, op.line));
            }
            CapturedOp::Matmul { a, b, a_transposed, b_transposed } if a.shape().len() > 2 || b.shape().len() > 2 => {
                let (a, b) = ((a, *a_transposed), (b, *b_transposed));
                self.batched(builder, a, b, result.dtype(), op.line)?
            }
            _ => {
                let line = op.line;
                let align = self.align;
                let kind = self.fold_constants(kind, &result);
                compute(builder, &kind, &result, (line, self.granule), &mut |builder, _, tensor| {
                    let value = self.resolve(builder, tensor, line)?;
                    let value = self.through_gm(builder, value, line)?;
                    self.memo.insert(identity(tensor), value);
                    // The tile's shape without the UB padding of its last dim, for the checks
                    // that compare it with the reference shape.
                    let mut form = builder.tile(value).shape.clone();
                    if let (Some(last), Some(&reference)) = (form.last_mut(), tensor.shape().last()) {
                        if reference < *last && reference.div_ceil(align) * align == *last {
                            *last = reference;
                        }
                    }
                    Ok((value, form.to_vec()))
                })?
            }
        };
        self.memo.insert(identity(&result), value);
        self.definitions.insert(identity(&result), index);
        Ok(value)
    }
}
