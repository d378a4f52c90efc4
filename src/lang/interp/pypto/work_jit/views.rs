//! GM views in a jit kernel's work: `reshape`/`transpose` of a tensor in GM, a tile stored
//! through a reshape of its output (more tile dims than the output has), and `full`/`zeros`/`ones`
//! operands folded into the ops that use them.

use super::JitRecorder;
use crate::lang::interp::pypto::capture::identity;
use crate::lang::interp::pypto::capture::TensorRef;
use crate::lang::interp::pypto::capture::{Arg, CapturedOp};
use crate::lang::interp::pypto::work_ops::Unsupported;
use crate::messages::CompilerReason;
use crate::tile::{GmTensor, GmView, TensorId, VectorOp};

impl JitRecorder<'_> {
    /// The tensor, offsets and extents to store a tile of `valid` extents through: the target
    /// itself when the ranks agree, else a reshape view with a size-1 dim where the tile has a
    /// size-1 dim the target lacks (the rightmost such dims first).
    pub(super) fn fit_rank(
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
    pub(super) fn view_of(&mut self, base: TensorId, shape: &[usize], order: Option<Vec<usize>>) -> TensorId {
        // A reshape of a reshape is a reshape of the first base; a transpose of a reshape views
        // the reshape (its dims are the reshape's, not the base's).
        let (base, order) = match self.views.iter().find(|view| view.tensor == base) {
            Some(GmView { base: root, order: None, rows: None, .. }) if order.is_none() => (*root, order),
            _ => (base, order),
        };
        let known = self.views.iter().find(|view| {
            view.base == base
                && view.order == order
                && view.rows.is_none()
                && self.tensors[view.tensor.0 as usize].shape == shape
        });
        if let Some(view) = known {
            return view.tensor;
        }
        let source = &self.tensors[base.0 as usize];
        let suffix = if order.is_some() { "transposed" } else { "reshaped" };
        let tensor = GmTensor { name: format!("{}.{suffix}", source.name), shape: shape.to_vec(), dtype: source.dtype };
        self.tensors.push(tensor);
        let id = TensorId(self.tensors.len() as u32 - 1);
        self.views.push(GmView { tensor: id, base, order, rows: None });
        // A view of a workspace read and written in program order is one memory with it: its
        // accesses keep that order too.
        if self.ordered.contains(&base) {
            self.ordered.push(id);
        }
        id
    }

    /// The GM view of `shape` (`[height, columns]`) whose leading rows are rows `rows` of the 2-D
    /// `source` (a paged-cache gather): a `pypto.view` of a tensor in GM is followed to that
    /// tensor, its offsets added.
    pub(super) fn row_view(
        &mut self,
        source: &TensorRef,
        rows: &[usize],
        shape: &[usize],
        line: Option<u32>,
    ) -> Result<TensorId, Unsupported> {
        let (mut source, mut offsets) = (source.clone(), [0, 0]);
        while self.gm_of(&source).is_none() {
            let definition = self.definitions.get(&identity(&source)).map(|&index| &self.ops[index].op);
            let Some(CapturedOp::View { source: viewed, offsets: more }) = definition else { break };
            if more.len() != 2 {
                break;
            }
            offsets = [offsets[0] + more[0], offsets[1] + more[1]];
            source = viewed.clone();
        }
        let base = self.materialize(&source, line)?;
        let rows: Vec<usize> = rows.iter().map(|row| row + offsets[0]).collect();
        let gather = crate::tile::RowGather { rows, column: offsets[1] };
        let shape = shape.to_vec();
        if let Some(view) = self.views.iter().find(|view| {
            view.base == base
                && view.rows.as_ref() == Some(&gather)
                && self.tensors[view.tensor.0 as usize].shape == shape
        }) {
            return Ok(view.tensor);
        }
        let name = format!("{}.gathered", self.tensors[base.0 as usize].name);
        let dtype = self.tensors[base.0 as usize].dtype;
        self.tensors.push(GmTensor { name, shape, dtype });
        let id = TensorId(self.tensors.len() as u32 - 1);
        self.views.push(GmView { tensor: id, base, order: None, rows: Some(gather) });
        Ok(id)
    }

    /// The GM workspace of a tensor the kernel made (`pypto.tensor`, `zeros`) and now writes: a
    /// zero-initialised tensor of the plan that later reads load, in program order. A tensor made
    /// with another value cannot start as a zeroed workspace.
    pub(super) fn local_workspace(&mut self, target: &TensorRef, line: Option<u32>) -> Result<TensorId, Unsupported> {
        match self.constants.get(&identity(target)) {
            Some(&0.0) => {}
            Some(_) => return Err(Unsupported::new(CompilerReason::WriteIntoFilled, line)),
            None => return Err(Unsupported::new(CompilerReason::WriteNotArgument, line)),
        }
        self.constants.remove(&identity(target));
        let name = format!("local{}", self.ordered.len());
        self.tensors.push(GmTensor { name, shape: target.shape().to_vec(), dtype: target.dtype() });
        let id = TensorId(self.tensors.len() as u32 - 1);
        self.gm.insert(identity(target), id);
        self.ordered.push(id);
        Ok(id)
    }

    /// The value of a binary op whose operands are all numbers or `full`/`zeros`/`ones` tensors
    /// (computed in f32, as the vector unit would): its result is a constant too.
    pub(super) fn constant_result(&self, kind: &CapturedOp) -> Option<f64> {
        let CapturedOp::Binary { op, lhs, rhs } = kind else { return None };
        let number = |arg: &Arg| match arg {
            Arg::Number(number) => Some(*number),
            Arg::Tensor(tensor) => self.constants.get(&identity(tensor)).copied(),
        };
        Some(f64::from(op.apply(number(lhs)? as f32, number(rhs)? as f32)))
    }

    /// A binary op with a `full`/`zeros`/`ones` operand takes it as a number when the other
    /// operand has the result's shape (a uniform tensor broadcast against it is that number).
    pub(super) fn fold_constants(&self, kind: CapturedOp, result: &TensorRef) -> CapturedOp {
        let shaped = |arg: &Arg| matches!(arg, Arg::Tensor(tensor) if tensor.shape() == result.shape());
        if let CapturedOp::Vector { op: op @ (VectorOp::Compare(_) | VectorOp::Integer(_) | VectorOp::Select), args } =
            kind
        {
            // A comparison or a `where` with a filled operand: the number is an immediate, as in
            // an element-wise op, while a computed operand has the result's shape.
            let is_constant =
                |arg: &Arg| matches!(arg, Arg::Tensor(tensor) if self.constants.contains_key(&identity(tensor)));
            let anchored = args.iter().any(|arg| shaped(arg) && !is_constant(arg));
            let args = args
                .into_iter()
                .map(|arg| match &arg {
                    Arg::Tensor(tensor) if anchored => {
                        self.constants.get(&identity(tensor)).map_or(arg, |&value| Arg::Number(value))
                    }
                    _ => arg,
                })
                .collect();
            return CapturedOp::Vector { op, args };
        }
        let CapturedOp::Binary { op, lhs, rhs } = kind else { return kind };
        let fold = |arg: Arg, other_shaped: bool| match &arg {
            Arg::Tensor(tensor) if other_shaped => {
                self.constants.get(&identity(tensor)).map_or(arg, |&value| Arg::Number(value))
            }
            _ => arg,
        };
        let (lhs_shaped, rhs_shaped) = (shaped(&lhs), shaped(&rhs));
        CapturedOp::Binary { op, lhs: fold(lhs, rhs_shaped), rhs: fold(rhs, lhs_shaped) }
    }

    /// A view and its base are one memory: the accesses of units are checked per tensor, so a
    /// tensor written through one name may not be read or written through another, and a
    /// transposed view (a strided read) is never written.
    pub(super) fn check_views(&self) -> Result<(), Unsupported> {
        for view in &self.views {
            // A workspace the kernel orders (its own tensors, the batched matmuls' spills) keeps
            // program order across its views: the lowering tracks a view's accesses as its base's.
            if self.ordered.contains(&view.base) {
                continue;
            }
            let touched = |tensor: TensorId, write: bool| {
                self.accesses.iter().any(|access| access.tensor == tensor && (access.write || !write))
            };
            let name = &self.tensors[view.base.0 as usize].name;
            if view.order.is_some() && (touched(view.tensor, true) || touched(view.base, true)) {
                return Err(Unsupported::new(CompilerReason::WriteReadTransposed { name: name.clone() }, None));
            }
            let related = self.views.iter().filter(|other| other.base == view.base).map(|other| other.tensor);
            let names: Vec<TensorId> = std::iter::once(view.base).chain(related).collect();
            let writers = names.iter().filter(|&&tensor| touched(tensor, true)).count();
            let users = names.iter().filter(|&&tensor| touched(tensor, false)).count();
            if writers > 0 && users > 1 {
                return Err(Unsupported::new(CompilerReason::TwoShapes { name: name.clone() }, None));
            }
        }
        Ok(())
    }
}
