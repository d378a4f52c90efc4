//! The recorder for `@pypto.frontend.jit` kernels: each outermost `pypto.loop` iteration is a unit;
//! `pypto.view` / `x[...]` of an argument loads a region, `pypto.assemble` / `out[...] = v` stores
//! one, and the ops in between are the unit's compute steps. A value a unit uses that an earlier
//! iteration (or the code before the loop) computed is recomputed inside the unit, so units stay
//! independent and can be spread over cores.

use std::collections::HashMap;

use super::lowering::{identity, RecordedOp};
use super::work_compute::compute;
use super::work_ops::{parse, step_reads, Arg, OpKind, UnitBuilder, Unsupported};
use super::work_shapes::index_region;
use crate::lang::syntax::ast::{ExprKind, Stmt, StmtKind};
use crate::lang::syntax::Span;
use crate::tensor::{BinaryOp, Tensor};
use crate::tile::{
    GmRegion, GmTensor, GmView, TensorId, TileWork, ValueId, WorkOperand, WorkSettings, WorkStep, WorkUnit,
};

type Identity = (usize, Vec<usize>);

/// Where units of work start in `body`: the first statement of every `pypto.loop` body, nested or
/// not (every iteration of every loop is work, as in pypto), and the statement after a nested
/// loop (what an outer iteration does after its inner loop is not the inner loop's last iteration).
pub(crate) fn loop_body_starts(body: &[Stmt]) -> Vec<Span> {
    let mut starts = Vec::new();
    for statement in body {
        match &statement.kind {
            StmtKind::For { iter, body, .. } if is_pypto_loop(iter) => {
                starts.extend(body.first().map(|first| first.span));
                starts.extend(loop_body_starts(body));
                let mut statements = body.iter().peekable();
                while let Some(inner) = statements.next() {
                    let nested = matches!(&inner.kind, StmtKind::For { iter, .. } if is_pypto_loop(iter));
                    if let (true, Some(next)) = (nested, statements.peek()) {
                        starts.push(next.span);
                    }
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => {
                starts.extend(loop_body_starts(body))
            }
            StmtKind::If { body, orelse, .. } => {
                starts.extend(loop_body_starts(body));
                starts.extend(loop_body_starts(orelse));
            }
            _ => {}
        }
    }
    starts
}

fn is_pypto_loop(iter: &crate::lang::syntax::ast::Expr) -> bool {
    matches!(&iter.kind, ExprKind::Call { function, .. } if matches!(&function.kind, ExprKind::Attribute { attribute, .. } if attribute.name == "loop"))
}

/// One GM access of a unit, for the independence check.
struct Access {
    tensor: TensorId,
    offsets: Vec<usize>,
    shape: Vec<usize>,
    unit: usize,
    write: bool,
    accumulate: bool,
}

fn overlaps(a: &Access, b: &Access) -> bool {
    a.tensor == b.tensor
        && a.offsets
            .iter()
            .zip(&a.shape)
            .zip(b.offsets.iter().zip(&b.shape))
            .all(|((&a0, &an), (&b0, &bn))| a0 < b0 + bn && b0 < a0 + an)
}

struct JitRecorder<'a> {
    ops: &'a [RecordedOp],
    tensors: Vec<GmTensor>,
    gm: HashMap<Identity, TensorId>,
    definitions: HashMap<Identity, usize>,
    memo: HashMap<Identity, ValueId>,
    accesses: Vec<Access>,
    unit_index: usize,
    /// Elements per 32 bytes of the narrowest dtype: a loaded tile's last dim is padded to it (the
    /// padding lies outside the valid shape, so it is never stored).
    align: usize,
    /// GM tensors that view another's memory (reshapes and transposes of tensors in GM).
    views: Vec<GmView>,
    /// Tensors made by `full`/`zeros`/`ones`: their value (they are folded into the ops using them).
    constants: HashMap<Identity, f64>,
    /// The vec tile in force (a kernel that sets several: each unit keeps the one it ran under).
    vec_tile: Option<Vec<usize>>,
}

/// Records a jit kernel's ops as tile work. `arguments` are the tensor arguments (name, tensor)
/// as the kernel received them.
pub(crate) fn record_jit(
    name: &str,
    ops: &[RecordedOp],
    arguments: &[(String, Tensor)],
    settings: WorkSettings,
    ub_alignment: u64,
    tile_changes: &[(usize, Vec<usize>)],
) -> Result<TileWork, Unsupported> {
    let mut recorder = JitRecorder {
        ops,
        tensors: Vec::new(),
        gm: HashMap::new(),
        definitions: HashMap::new(),
        memo: HashMap::new(),
        accesses: Vec::new(),
        unit_index: 0,
        align: 8,
        views: Vec::new(),
        constants: HashMap::new(),
        vec_tile: None,
    };
    let dtypes = arguments
        .iter()
        .map(|(_, tensor)| tensor.dtype())
        .chain(ops.iter().filter_map(|op| op.result.as_ref().map(Tensor::dtype)));
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
    let mut in_place: Option<Tensor> = None;
    // With several tile shapes, each starts a new unit: the ops after it are tiled by it (values
    // made before and used after are recomputed in the new unit, as across iterations).
    let several = tile_changes.len() > 1;
    for (index, op) in ops.iter().enumerate() {
        if let Some((_, dims)) = tile_changes.iter().rev().find(|(from, _)| *from == index).filter(|_| several) {
            recorder.finish(&mut builder, &mut units);
            recorder.vec_tile = Some(dims.clone());
        }
        let kind = parse(op)?;
        match &kind {
            OpKind::Marker => {
                recorder.finish(&mut builder, &mut units);
                continue;
            }
            OpKind::InPlace { target } => {
                in_place = Some(target.clone());
                continue;
            }
            OpKind::Fill { value } => {
                if let Some(result) = &op.result {
                    recorder.constants.insert(identity(result), *value);
                }
                continue;
            }
            OpKind::Reshape { x } | OpKind::Transpose { x, .. } if recorder.gm_of(x).is_some() => {
                let (Some(result), Some(base)) = (&op.result, recorder.gm_of(x)) else { continue };
                let order = if let OpKind::Transpose { order, .. } = &kind { Some(order.clone()) } else { None };
                let view = recorder.view_of(base, result.shape(), order);
                recorder.gm.insert(identity(result), view);
                continue;
            }
            OpKind::Assemble { tile, offsets, out } => {
                let input = recorder.resolve(&mut builder, tile, op.line)?;
                let valid = builder.tile(input).valid_shape.clone();
                recorder.store(&mut builder, input, out, offsets.clone(), valid, op.line)?;
            }
            OpKind::SetItem { target, index, value } => {
                let Arg::Tensor(value) = value else {
                    return Err(Unsupported::new(
                        "assigning a number to a region of an output (write a tile)",
                        op.line,
                    ));
                };
                let (offsets, extents) = index_region(target.shape(), index, op.line)?;
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
    recorder.finish(&mut builder, &mut units);
    recorder.check_independent()?;
    recorder.check_views()?;
    Ok(TileWork { name: name.to_string(), tensors: recorder.tensors, views: recorder.views, units, settings })
}

/// Removes the steps whose results nothing stores (a view or a value the script computed and
/// never wrote), as the pypto compiler does: they would only cost copies and vector time.
fn drop_dead_steps(unit: &mut WorkUnit) {
    let mut live = std::collections::HashSet::new();
    let mut keep = vec![false; unit.steps.len()];
    for (index, located) in unit.steps.iter().enumerate().rev() {
        let output = match &located.step {
            WorkStep::Store { .. } => None,
            WorkStep::Load { output, .. }
            | WorkStep::Unary { output, .. }
            | WorkStep::Binary { output, .. }
            | WorkStep::Clip { output, .. }
            | WorkStep::Reduce { output, .. }
            | WorkStep::Cast { output, .. }
            | WorkStep::Matmul { output, .. } => Some(*output),
        };
        if output.is_none_or(|output| live.contains(&output)) {
            keep[index] = true;
            live.extend(step_reads(&located.step));
        }
    }
    let mut flags = keep.into_iter();
    unit.steps.retain(|_| flags.next().unwrap_or(true));
}

impl JitRecorder<'_> {
    /// Closes the unit being built (empty ones are dropped) and starts the next.
    fn finish(&mut self, builder: &mut UnitBuilder, units: &mut Vec<WorkUnit>) {
        let mut unit = std::mem::take(builder).unit;
        unit.vec_tile = self.vec_tile.clone();
        drop_dead_steps(&mut unit);
        self.memo.clear();
        if !unit.steps.is_empty() {
            units.push(unit);
            self.unit_index += 1;
        }
    }

    /// Emits op `index` (a load or a compute op) into the unit; returns its tile.
    fn emit(&mut self, builder: &mut UnitBuilder, index: usize) -> Result<ValueId, Unsupported> {
        let op = &self.ops[index];
        let Some(result) = op.result.clone() else {
            return Err(Unsupported::new(format!("`{}` without a result", op.name), op.line));
        };
        let kind = parse(op)?;
        let value = match &kind {
            OpKind::View { source, offsets } => {
                let tensor = self.gm_of(source).ok_or_else(|| {
                    Unsupported::new("`view` of a tile (view the kernel's argument instead)", op.line)
                })?;
                let shape = result.shape().to_vec();
                let valid = result.valid_shape().map_or_else(|| shape.clone(), <[usize]>::to_vec);
                self.load(builder, tensor, offsets.clone(), shape, valid, result.dtype(), op.line)?
            }
            OpKind::Index { source, index } => {
                let tensor = self.gm_of(source).ok_or_else(|| Unsupported::new("indexing a tile", op.line))?;
                let (offsets, extents) = index_region(source.shape(), index, op.line)?;
                self.load(builder, tensor, offsets, extents.clone(), extents, result.dtype(), op.line)?
            }
            OpKind::Marker | OpKind::Assemble { .. } | OpKind::SetItem { .. } | OpKind::InPlace { .. } => {
                return Err(Unsupported::new(format!("`{}` used as a value", op.name), op.line));
            }
            OpKind::Reshape { .. } | OpKind::Transpose { .. } | OpKind::Fill { .. } => {
                return Err(Unsupported::new(
                    format!(
                        "`{}` of a computed tile (apply it to a kernel argument, which the DMA reads as a view)",
                        op.name
                    ),
                    op.line,
                ));
            }
            _ => {
                let line = op.line;
                let align = self.align;
                let kind = self.fold_constants(kind, &result);
                compute(builder, &kind, &result, line, &mut |builder, _, tensor| {
                    let value = self.resolve(builder, tensor, line)?;
                    // The tile's shape without the UB padding of its last dim, for the checks
                    // that compare it with the reference shape.
                    let mut form = builder.tile(value).shape.clone();
                    if let (Some(last), Some(&reference)) = (form.last_mut(), tensor.shape().last()) {
                        if reference < *last && reference.div_ceil(align) * align == *last {
                            *last = reference;
                        }
                    }
                    Ok((value, form))
                })?
            }
        };
        self.memo.insert(identity(&result), value);
        self.definitions.insert(identity(&result), index);
        Ok(value)
    }

    fn gm_of(&self, tensor: &Tensor) -> Option<TensorId> {
        self.gm.get(&identity(tensor)).copied()
    }

    /// The tile holding `tensor` in this unit: computed here already, a whole argument (loaded),
    /// or computed before this unit (recomputed here).
    fn resolve(
        &mut self,
        builder: &mut UnitBuilder,
        tensor: &Tensor,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let key = identity(tensor);
        if let Some(&value) = self.memo.get(&key) {
            return Ok(value);
        }
        if self.constants.contains_key(&key) {
            return Err(Unsupported::new(
                "a `full`/`zeros`/`ones` tensor used other than as an operand of an element-wise op of its shape",
                line,
            ));
        }
        if let Some(id) = self.gm_of(tensor) {
            let shape = tensor.shape().to_vec();
            let value = self.load(builder, id, vec![0; shape.len()], shape.clone(), shape, tensor.dtype(), line)?;
            self.memo.insert(key, value);
            return Ok(value);
        }
        match self.definitions.get(&key).copied() {
            Some(index) => self.emit(builder, index),
            None => Err(Unsupported::new(
                "a tensor the recorder did not see being made (`.T`, a reshape, or a tensor from outside the kernel)",
                line,
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
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
        self.accesses.push(Access {
            tensor,
            offsets: offsets.clone(),
            shape: valid.clone(),
            unit: self.unit_index,
            write: false,
            accumulate: false,
        });
        builder.push(WorkStep::Load { region: GmRegion { tensor, offsets, shape: valid }, output }, line);
        Ok(output)
    }

    /// Stores the valid `shape` of tile `input` at `offsets` of `target`. A tile with more dims than
    /// the target (a reduction with keepdim=False written into a 1-D output keeps its reduced dim
    /// in tile form) is stored through a reshape view of the target with those size-1 dims.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        builder: &mut UnitBuilder,
        input: ValueId,
        target: &Tensor,
        offsets: Vec<usize>,
        shape: Vec<usize>,
        line: Option<u32>,
    ) -> Result<(), Unsupported> {
        let tensor = self
            .gm_of(target)
            .ok_or_else(|| Unsupported::new("writing into a tensor that is not a kernel argument", line))?;
        let tile = builder.tile(input).clone();
        let (tensor, offsets, shape) = match self.fit_rank(tensor, &tile.valid_shape, offsets, shape) {
            Some(fitted) => fitted,
            None => {
                return Err(Unsupported::new(
                    format!("writing a {}-D tile into a {}-D output", tile.shape.len(), target.shape().len()),
                    line,
                ))
            }
        };
        let region = GmRegion { tensor, offsets: offsets.clone(), shape: shape.clone() };
        let (input, accumulate) = match self.read_modify_write(builder, input, &region) {
            Some(addend) => (addend, true),
            None => (input, false),
        };
        self.accesses.push(Access { tensor, offsets, shape, unit: self.unit_index, write: true, accumulate });
        builder.push(WorkStep::Store { input, region, accumulate }, line);
        Ok(())
    }

    /// The tensor, offsets and extents to store a tile of `valid` extents through: the target
    /// itself when the ranks agree, else a reshape view with a size-1 dim where the tile has a
    /// size-1 dim the target lacks (the rightmost such dims first).
    fn fit_rank(
        &mut self,
        tensor: TensorId,
        valid: &[usize],
        offsets: Vec<usize>,
        extents: Vec<usize>,
    ) -> Option<(TensorId, Vec<usize>, Vec<usize>)> {
        if valid.len() == extents.len() {
            return Some((tensor, offsets, extents));
        }
        if valid.len() < extents.len() {
            return None;
        }
        let extra = valid.len() - extents.len();
        let candidates: Vec<usize> = (0..valid.len()).rev().filter(|&dim| valid[dim] == 1).collect();
        if candidates.len() < extra {
            return None;
        }
        let mut inserted: Vec<usize> = candidates[..extra].to_vec();
        inserted.sort_unstable();
        let base_shape = self.tensors[tensor.0 as usize].shape.clone();
        let (mut shape, mut view_offsets, mut view_extents) = (Vec::new(), Vec::new(), Vec::new());
        let mut source = 0;
        for dim in 0..valid.len() {
            if inserted.contains(&dim) {
                shape.push(1);
                view_offsets.push(0);
                view_extents.push(1);
            } else {
                shape.push(base_shape[source]);
                view_offsets.push(offsets[source]);
                view_extents.push(extents[source]);
                source += 1;
            }
        }
        let view_extents = view_extents.iter().zip(valid).map(|(&extent, &tile)| extent.min(tile)).collect();
        Some((self.view_of(tensor, &shape, None), view_offsets, view_extents))
    }

    /// The GM tensor viewing `base` with `shape` (and `order`, for a transpose); one per layout.
    fn view_of(&mut self, base: TensorId, shape: &[usize], order: Option<Vec<usize>>) -> TensorId {
        // A view of a view is a view of the first base (a reshape of a reshape, or one transpose).
        let (base, order) = match self.views.iter().find(|view| view.tensor == base) {
            Some(GmView { base: root, order: None, .. }) => (*root, order),
            _ => (base, order),
        };
        let known = self.views.iter().find(|view| {
            view.base == base && view.order == order && self.tensors[view.tensor.0 as usize].shape == shape
        });
        if let Some(view) = known {
            return view.tensor;
        }
        let source = &self.tensors[base.0 as usize];
        let suffix = if order.is_some() { "transposed" } else { "reshaped" };
        let tensor = GmTensor { name: format!("{}.{suffix}", source.name), shape: shape.to_vec(), dtype: source.dtype };
        self.tensors.push(tensor);
        let id = TensorId(self.tensors.len() as u32 - 1);
        self.views.push(GmView { tensor: id, base, order });
        id
    }

    /// A binary op with a `full`/`zeros`/`ones` operand of the result's shape takes it as a number.
    fn fold_constants(&self, kind: OpKind, result: &Tensor) -> OpKind {
        let fold = |arg: Arg| match &arg {
            Arg::Tensor(tensor) if tensor.shape() == result.shape() => {
                self.constants.get(&identity(tensor)).map_or(arg, |&value| Arg::Number(value))
            }
            _ => arg,
        };
        match kind {
            OpKind::Binary { op, lhs, rhs } => OpKind::Binary { op, lhs: fold(lhs), rhs: fold(rhs) },
            other => other,
        }
    }

    /// A view and its base are one memory: the accesses of units are checked per tensor, so a
    /// tensor written through one name may not be read or written through another, and a
    /// transposed view (a strided read) is never written.
    fn check_views(&self) -> Result<(), Unsupported> {
        for view in &self.views {
            let touched = |tensor: TensorId, write: bool| {
                self.accesses.iter().any(|access| access.tensor == tensor && (access.write || !write))
            };
            let name = &self.tensors[view.base.0 as usize].name;
            if view.order.is_some() && (touched(view.tensor, true) || touched(view.base, true)) {
                return Err(Unsupported::new(
                    format!("writing `{name}`, which the kernel also reads transposed"),
                    None,
                ));
            }
            let related = self.views.iter().filter(|other| other.base == view.base).map(|other| other.tensor);
            let names: Vec<TensorId> = std::iter::once(view.base).chain(related).collect();
            let writers = names.iter().filter(|&&tensor| touched(tensor, true)).count();
            let users = names.iter().filter(|&&tensor| touched(tensor, false)).count();
            if writers > 0 && users > 1 {
                return Err(Unsupported::new(
                    format!("`{name}` written through one shape and used through another (write one shape)"),
                    None,
                ));
            }
        }
        Ok(())
    }

    /// `out[r] = out[r] + t` (or `t + out[r]`), where `out[r]` was loaded in this unit for this
    /// add only: the load and the add are dropped and `t` is stored with `accumulate` (the NPU's
    /// atomic add), so units that add into the same region stay independent.
    fn read_modify_write(&mut self, builder: &mut UnitBuilder, input: ValueId, region: &GmRegion) -> Option<ValueId> {
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
        let uses = |value: ValueId| steps.iter().filter(|step| step_reads(&step.step).contains(&value)).count();
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

    /// Units run in any order on any core: a unit may not read what another unit writes, nor read
    /// back what it wrote itself (the copy out and a later copy in are not ordered).
    fn check_independent(&self) -> Result<(), Unsupported> {
        let written: std::collections::HashSet<TensorId> =
            self.accesses.iter().filter(|access| access.write).map(|access| access.tensor).collect();
        for (position, read) in
            self.accesses.iter().enumerate().filter(|(_, access)| !access.write && written.contains(&access.tensor))
        {
            let clash = self.accesses.iter().enumerate().find(|(other, write)| {
                write.write && overlaps(read, write) && (write.unit != read.unit || *other < position)
            });
            if let Some((_, write)) = clash {
                let name = &self.tensors[read.tensor.0 as usize].name;
                return Err(Unsupported::new(
                    format!("iteration {} reads a region of `{name}` that iteration {} writes", read.unit, write.unit),
                    None,
                ));
            }
        }
        // Two units writing the same elements race, unless both add into them.
        let writes: Vec<&Access> = self.accesses.iter().filter(|access| access.write).collect();
        for (position, first) in writes.iter().enumerate() {
            if let Some(second) = writes[position + 1..].iter().find(|second| {
                second.unit != first.unit && overlaps(first, second) && !(first.accumulate && second.accumulate)
            }) {
                let name = &self.tensors[first.tensor.0 as usize].name;
                return Err(Unsupported::new(
                    format!("iterations {} and {} write the same region of `{name}`", first.unit, second.unit),
                    None,
                ));
            }
        }
        Ok(())
    }
}
