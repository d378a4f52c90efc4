//! A kernel's work as the language recorded it, tile by tile: plain data that [`lower_work`] turns
//! into per-core tile programs. A unit is one independent piece of work (one `pypto.loop`
//! iteration of a `@pypto.frontend.jit` kernel, or one automatic tile of a `@pypto.kernel`); units
//! are spread over cores. Inside a unit, values are tiles; where each tile lives (UB, L1, L0A/L0B,
//! L0C) and which pipe moves it is the lowering's decision, not the recorder's.

use serde::Serialize;

use crate::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};

use super::builder::TileError;
use super::dims::Dims;
use super::program::{GmRegion, GmTensor, KernelPlan, TensorId};
pub use super::step_reads::StepReads;
use super::vector_ops::VectorOp;

/// An index into [`WorkUnit::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ValueId(pub u32);

/// A tile value computed inside a unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileValue {
    /// The full tile shape (what a buffer must hold).
    pub shape: Dims,
    /// The valid part (a ragged last tile); equal to `shape` for full tiles.
    pub valid_shape: Dims,
    /// The element dtype it is stored in.
    pub dtype: DType,
}

/// An operand of an element-wise binary step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum WorkOperand {
    /// A tile of the unit.
    Tile(ValueId),
    /// A number (`x * 0.5`), broadcast to the other operand's shape.
    Scalar(f64),
}

/// One step of a unit. Every step that produces a value names it in `output`; shapes and dtypes
/// of the outputs are in [`WorkUnit::values`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum WorkStep {
    /// Reads `region` of a GM tensor into a tile (elements outside the region's shape, i.e.
    /// outside the tile's valid shape, read as 0).
    Load { region: GmRegion, output: ValueId },
    /// `output = op(input)` element-wise.
    Unary { op: UnaryOp, input: ValueId, output: ValueId },
    /// `output = op(lhs, rhs)` element-wise with numpy broadcasting between tiles.
    Binary { op: BinaryOp, lhs: WorkOperand, rhs: WorkOperand, output: ValueId },
    /// `output = clip(input, low, high)`.
    Clip { input: ValueId, low: Option<f64>, high: Option<f64>, output: ValueId },
    /// Reduces `input` over `dims` (kept as size-1 dims in `output`).
    Reduce { op: ReduceOp, input: ValueId, dims: Vec<usize>, output: ValueId },
    /// Converts `input` to the dtype of `output`.
    Cast { input: ValueId, output: ValueId },
    /// `output = op(a) · op(b)` on the cube (op = optional transpose), accumulated in f32 and stored
    /// in `output`'s dtype; the lowering splits it by the kernel's cube tiles.
    Matmul { a: ValueId, b: ValueId, a_transposed: bool, b_transposed: bool, output: ValueId },
    /// Writes the valid region of `input` to `region` of a GM tensor; with `accumulate` the tile
    /// is added to what GM holds (Ascend's atomic add), as in bias/weight gradients accumulated
    /// across M tiles.
    Store { input: ValueId, region: GmRegion, accumulate: bool },
    /// A selecting or structural vector op (compare, where, round, expand, cumsum, concat,
    /// transpose, gather) over `inputs` in the order [`VectorOp`] documents.
    Vector { op: VectorOp, inputs: Vec<WorkOperand>, output: ValueId },
}

impl WorkStep {
    /// The values the step reads (scalars are not values) and the one it writes.
    pub fn values(&self) -> (StepReads, Option<ValueId>) {
        let tile = |operand: &WorkOperand| match operand {
            WorkOperand::Tile(value) => Some(*value),
            WorkOperand::Scalar(_) => None,
        };
        let reads = match self {
            WorkStep::Load { .. } => StepReads::new(),
            WorkStep::Unary { input, .. }
            | WorkStep::Clip { input, .. }
            | WorkStep::Reduce { input, .. }
            | WorkStep::Cast { input, .. }
            | WorkStep::Store { input, .. } => [*input].into_iter().collect(),
            WorkStep::Binary { lhs, rhs, .. } => [tile(lhs), tile(rhs)].into_iter().flatten().collect(),
            WorkStep::Matmul { a, b, .. } => [*a, *b].into_iter().collect(),
            WorkStep::Vector { inputs, .. } => inputs.iter().filter_map(tile).collect(),
        };
        (reads, self.output())
    }

    /// The value the step writes (a store writes GM, not a value).
    pub fn output(&self) -> Option<ValueId> {
        match self {
            WorkStep::Load { output, .. }
            | WorkStep::Unary { output, .. }
            | WorkStep::Clip { output, .. }
            | WorkStep::Reduce { output, .. }
            | WorkStep::Cast { output, .. }
            | WorkStep::Binary { output, .. }
            | WorkStep::Matmul { output, .. }
            | WorkStep::Vector { output, .. } => Some(*output),
            WorkStep::Store { .. } => None,
        }
    }

    /// Whether `other` is this step with its GM region (if any) at other offsets: the same kind,
    /// values, numbers, tensor and region shape.
    pub fn same_form(&self, other: &WorkStep) -> bool {
        let moved = |a: &GmRegion, b: &GmRegion| {
            a.tensor == b.tensor && a.shape == b.shape && a.offsets.len() == b.offsets.len()
        };
        match (self, other) {
            (WorkStep::Load { region: a, output: x }, WorkStep::Load { region: b, output: y }) => x == y && moved(a, b),
            (
                WorkStep::Store { input: x, region: a, accumulate: p },
                WorkStep::Store { input: y, region: b, accumulate: q },
            ) => x == y && p == q && moved(a, b),
            _ => self == other,
        }
    }
}

/// A step and the kernel source line it comes from (shown in traces and diagnostics).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocatedStep {
    /// The step.
    pub step: WorkStep,
    /// The 1-based source line of the script op that produced it.
    pub line: Option<u32>,
}

/// One independent piece of work: its values and its steps in program order.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub struct WorkUnit {
    /// The tiles computed in this unit, indexed by [`ValueId`].
    pub values: Vec<TileValue>,
    /// The steps in the order the script executed them.
    pub steps: Vec<LocatedStep>,
    /// The vec tile this unit is expanded by when it is not the kernel's (a kernel that sets
    /// several tile shapes: each applies to the ops after it).
    pub vec_tile: Option<Vec<usize>>,
}

impl WorkUnit {
    /// Whether `other` is this unit with its GM regions moved (two cells of a tile expansion): the
    /// same values and steps, regions of the same tensors and shapes at other offsets. What the
    /// lowering decides about a unit before emitting it (where values live, their UB slots, its
    /// estimated cost) depends on its form only.
    pub fn same_form(&self, other: &WorkUnit) -> bool {
        self.values == other.values
            && self.vec_tile == other.vec_tile
            && self.steps.len() == other.steps.len()
            && self.steps.iter().zip(&other.steps).all(|(a, b)| a.line == b.line && a.step.same_form(&b.step))
    }
}

/// Cube tile shapes of a matmul, as pypto's `set_cube_tile_shapes([mL0, mL1], [kL0, kL1], [nL0, nL1])`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CubeTiles {
    /// `[mL0, mL1]`: rows per L0A tile, rows per L1 tile.
    pub m: [usize; 2],
    /// `[kL0, kL1]`: depth per L0 tile, depth per L1 load.
    pub k: [usize; 2],
    /// `[nL0, nL1]`: columns per L0B tile, columns per L1 tile.
    pub n: [usize; 2],
}

/// Tile settings that shape the programs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkSettings {
    /// UB buffering depth from `vec_nbuffer_setting` (1 = none, 2 = ping-pong …).
    pub vec_buffers: usize,
    /// L1 operand buffer copies of the cube from `cube_nbuffer_setting` (2 = double buffering).
    pub cube_buffers: usize,
    /// The vec tile from `set_vec_tile_shapes`: units larger than it are expanded over its grid.
    pub vec_tile: Option<Vec<usize>>,
    /// Cube tile shapes from `set_cube_tile_shapes`, if the kernel set them.
    pub cube_tiles: Option<CubeTiles>,
    /// The line that set the vec tile shape (capacity diagnostics point at it).
    pub vec_tile_line: Option<u32>,
    /// A kernel that sets several vec tiles: the line that first set each (the diagnostics of a
    /// unit's buffers point at its own tile's line).
    pub vec_tile_lines: Vec<(Vec<usize>, u32)>,
    /// The line that set the cube tile shapes.
    pub cube_tile_line: Option<u32>,
    /// The chip's UB granule in bytes: a vec-tile cell whose rows do not fill whole granules (a
    /// `[8, 8]` FP16 tile) is padded to them in UB, as pypto's compiler pads it.
    pub ub_granule: usize,
}

impl Default for WorkSettings {
    fn default() -> Self {
        WorkSettings {
            vec_buffers: 2,
            cube_buffers: 2,
            vec_tile: None,
            cube_tiles: None,
            vec_tile_line: None,
            vec_tile_lines: Vec::new(),
            cube_tile_line: None,
            ub_granule: 32,
        }
    }
}

/// How a GM tensor of the work is another tensor's memory seen with another layout: a kernel's
/// `reshape` or `transpose` of a tensor in GM is an address view (DMA reads it with strides), not
/// a copy through UB.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GmView {
    /// The tensor that is a view.
    pub tensor: TensorId,
    /// The tensor whose memory it views.
    pub base: TensorId,
    /// `None`: the same elements in row-major order (a reshape); `Some(order)`: dim `i` of the
    /// view is dim `order[i]` of the base (a transpose; read-only).
    pub order: Option<Vec<usize>>,
    /// `Some`: rows of a 2-D base gathered by address (pypto's paged-cache gathers; read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowGather>,
}

/// The rows a gathering view reads: row `r` of the view is row `rows[r]` of its base from column
/// `column` on (rows past the list read as 0): the addresses the scalar unit computes from the
/// index and block-table values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowGather {
    /// The base's row of each view row.
    pub rows: Vec<usize>,
    /// The base's column of the view's first.
    pub column: usize,
}

/// A whole kernel's work.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileWork {
    /// The kernel name.
    pub name: String,
    /// The GM tensors the regions refer to (inputs, outputs, workspaces), indexed by `TensorId`.
    pub tensors: Vec<GmTensor>,
    /// The tensors that view another's memory (no view: every tensor has its own).
    pub views: Vec<GmView>,
    /// Workspaces that units read and write in program order (a kernel's own tensors carried
    /// across loop iterations): the tasks touching one run on one core, in program order.
    pub ordered: Vec<TensorId>,
    /// The units, in loop order.
    pub units: Vec<WorkUnit>,
    /// Tile settings.
    pub settings: WorkSettings,
}

/// The chip the programs are for, as plain numbers (the tile layer never sees `NpuConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LoweringTarget {
    /// Split cube and vector cores (910B): cube results reach vector work through GM.
    pub split: bool,
    /// Cores with a cube unit (all cores when coupled).
    pub cube_cores: usize,
    /// Cores with a vector unit (all cores when coupled).
    pub vector_cores: usize,
    /// UB capacity per core in bytes (memory planning cuts tasks that would not fit).
    pub ub_bytes: u64,
    /// UB allocation granule in bytes (every UB buffer is a multiple of it).
    pub ub_alignment: u64,
    /// L0A and L0B capacity per core in bytes (their operand tiles are double-buffered when two fit).
    pub l0_bytes: [u64; 2],
}

/// Lowers `work` to one tile program per core used on `target`.
pub fn lower_work(work: &TileWork, target: &LoweringTarget) -> Result<KernelPlan, TileError> {
    let (planned, stage_tensors) = super::memory::plan_memory_staged(work, target)?;
    let single_buffered_from =
        (planned.settings.vec_buffers < work.settings.vec_buffers.max(1)).then_some(work.settings.vec_buffers);
    let expanded = super::expand::expand_work(&planned)?;
    // Separate slots for loaded and computed tiles overlap better; in place when that does not fit.
    let plan = super::lower::lower_work(&expanded, target, &stage_tensors)?;
    Ok(KernelPlan { single_buffered_from, ..plan })
}

/// A unit for tests: loads the region at `offsets` of `shape` of tensor 0 as `value`, takes its
/// exp and stores it to the same region of tensor 1 (every step from source line `line`).
#[cfg(test)]
pub(crate) fn exp_unit(offsets: &[usize], shape: &[usize], value: TileValue, line: Option<u32>) -> WorkUnit {
    let region = |tensor: u32| GmRegion {
        tensor: TensorId(tensor),
        offsets: crate::tile::Dims::from(&*offsets),
        shape: crate::tile::Dims::from(&*shape),
    };
    let step = |step: WorkStep| LocatedStep { step, line };
    WorkUnit {
        values: vec![value.clone(), value],
        steps: vec![
            step(WorkStep::Load { region: region(0), output: ValueId(0) }),
            step(WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(0), output: ValueId(1) }),
            step(WorkStep::Store { input: ValueId(1), region: region(1), accumulate: false }),
        ],
        vec_tile: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(row: usize, rows: usize) -> WorkUnit {
        let value = TileValue { shape: [8, 64].into(), valid_shape: [rows, 64].into(), dtype: DType::F32 };
        exp_unit(&[row, 0], &[rows, 64], value, Some(3))
    }

    /// Two tiles of one expansion are one form wherever they sit; a ragged tile is another.
    #[test]
    fn units_moved_in_gm_are_one_form_and_other_shapes_are_not() {
        assert!(unit(0, 8).same_form(&unit(8, 8)));
        assert!(!unit(0, 8).same_form(&unit(8, 5)), "another region and valid shape");
        let mut other_op = unit(8, 8);
        other_op.steps[1].step = WorkStep::Unary { op: UnaryOp::Sin, input: ValueId(0), output: ValueId(1) };
        assert!(!unit(0, 8).same_form(&other_op));
        let mut other_tensor = unit(8, 8);
        if let WorkStep::Store { region, .. } = &mut other_tensor.steps[2].step {
            region.tensor = TensorId(2);
        }
        assert!(!unit(0, 8).same_form(&other_tensor));
    }
}
