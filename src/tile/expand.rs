//! Tile expansion (DESIGN §3.1 step 2): a unit of work whose vector values are larger than the
//! kernel's vec tile becomes tasks over the vec-tile grid, as pypto's compiler tiles a kernel by
//! its tile shapes rather than by the user's loops.
//!
//! The grid covers the unit's iteration space (the largest shape of its values; every value
//! broadcasts to it). A cell of a value is its part of one grid cell: the tile shape there, and the
//! valid extent left of its valid shape (a ragged tile's empty cells do no work at all). Cells that
//! a reduction joins — cells along a reduced dim that the grid splits — form one task, walked in
//! order with the reduction accumulated in a small tile (sum, max and min combine partials; a mean
//! is a sum scaled once by the valid count). Every other cell is a task of its own, so the tasks of
//! one iteration spread over the cores.
//!
//! Inside a task the steps run cell by cell, so a cell's tiles die before the next cell's start and
//! an element-wise chain of any length stays in a few UB tiles. A step that reads a joined
//! reduction runs in a later phase, after the task's cells have all contributed; per-cell values it
//! also reads are recomputed from their loads in that phase rather than kept live (a softmax
//! re-reads its row), which is what bounds the task's UB need by one cell.

use crate::tile::fast_hash::FastMap;

use super::expand_task::TaskBuilder;

use crate::tensor::{BinaryOp, ReduceOp};

use super::builder::TileError;
use super::work::{TileValue, TileWork, ValueId, WorkStep, WorkUnit};

/// Expands every unit of `work` over the grid of its vec tile (`work.settings.vec_tile`); units
/// that fit one tile, units with matmuls and kernels without a vec tile are kept as they are.
pub fn expand_work(work: &TileWork) -> Result<TileWork, TileError> {
    let mut units = Vec::new();
    for unit in &work.units {
        units.extend(expand_unit_tasks(work, unit)?);
    }
    Ok(TileWork { units, ..work.clone() })
}

/// The tasks of one unit of `work` (the unit itself when it is not expanded).
pub(super) fn expand_unit_tasks(work: &TileWork, unit: &WorkUnit) -> Result<Vec<WorkUnit>, TileError> {
    expand_first_tasks(work, unit, usize::MAX)
}

/// The first `limit` tasks of [`expand_unit_tasks`] (the same tasks, in the same order), without
/// expanding the rest: memory planning sizes a unit by its first two tasks, and a large tensor has
/// thousands (seed 003's [2048, 3136] Swish backward: 1024, each planning trial expanded them all).
pub(super) fn expand_first_tasks(work: &TileWork, unit: &WorkUnit, limit: usize) -> Result<Vec<WorkUnit>, TileError> {
    if let Some(shape) = unit.steps.iter().find_map(|located| match &located.step {
        WorkStep::Matmul { a, b, output, a_transposed, .. } => {
            let (a, b, output) =
                (&unit.values[a.0 as usize], &unit.values[b.0 as usize], &unit.values[output.0 as usize].shape);
            let bytes = a.dtype.size_in_bytes().max(b.dtype.size_in_bytes());
            let k = if *a_transposed { a.shape[0] } else { a.shape[a.shape.len() - 1] };
            Some(([output[0], k, output[output.len() - 1]], bytes))
        }
        _ => None,
    }) {
        let (shape, bytes) = shape;
        let tiles = work.settings.cube_tiles.unwrap_or_else(|| super::lower::default_cube_tiles(shape, bytes));
        let mut tasks = super::expand_cube::expand_cube_unit(unit, tiles).unwrap_or_else(|| vec![unit.clone()]);
        tasks.truncate(limit);
        return Ok(tasks);
    }
    let tile = unit.vec_tile.as_deref().or(work.settings.vec_tile.as_deref());
    match tile.and_then(|tile| Grid::of(unit, tile, work.settings.ub_granule)) {
        Some(grid) => expand_unit(unit, &grid, limit),
        None => Ok(vec![unit.clone()]),
    }
}

/// An empty task of `unit`: it keeps the unit's vec tile, which the lowering groups UB by.
fn tile_of(unit: &WorkUnit) -> WorkUnit {
    WorkUnit { vec_tile: unit.vec_tile.clone(), ..WorkUnit::default() }
}

/// The vec-tile grid of one unit.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Grid {
    /// The iteration space: the largest extent of any value per dim.
    space: Vec<usize>,
    /// The cell extent per dim (the vec tile, clipped to the space).
    cell: Vec<usize>,
    /// Cells per dim.
    counts: Vec<usize>,
    /// Dims that a reduction joins across cells (walked inside one task).
    joined: Vec<bool>,
    /// The UB granule in bytes: a cell's last dim is padded to fill whole granules.
    granule: usize,
}

impl Grid {
    /// The grid of `unit` for vec tile `tile`, or `None` when the unit stays whole: it fits one
    /// cell, has a matmul, or has a value that does not broadcast to the space. A value of lower
    /// rank than the unit's broadcasts as numpy's do, aligned to the trailing dims (a `[N]` bias
    /// added to `[M, N]` rows); such a unit is expanded when its steps are element-wise.
    fn of(unit: &WorkUnit, tile: &[usize], granule: usize) -> Option<Grid> {
        let rank = unit.values.iter().map(|value| value.shape.len()).max()?;
        if rank == 0 || tile.is_empty() || tile.contains(&0) {
            return None;
        }
        if unit.steps.iter().any(|step| matches!(step.step, WorkStep::Matmul { .. })) {
            return None;
        }
        if unit.values.iter().any(|value| value.shape.len() != rank) && !mixed_ranks_expand(unit, rank) {
            return None;
        }
        // A scan or a join along a dim keeps that dim whole in every cell (values may differ in
        // size there); a transpose or a gather moves elements between cells, so its unit stays whole.
        let mut whole = vec![false; rank];
        for located in &unit.steps {
            if let WorkStep::Vector { op, .. } = &located.step {
                if !op.is_elementwise() && op.whole_dims().is_empty() {
                    return None;
                }
                op.whole_dims().into_iter().filter(|&dim| dim < rank).for_each(|dim| whole[dim] = true);
            }
        }
        // A value's dim `dim - lead` lies along dim `dim` of the space (`lead`: the dims it lacks).
        let size_at = |value: &TileValue, dim: usize| {
            let lead = rank - value.shape.len();
            if dim < lead {
                1
            } else {
                value.shape[dim - lead]
            }
        };
        let space: Vec<usize> =
            (0..rank).map(|dim| unit.values.iter().map(|value| size_at(value, dim)).max().unwrap_or(1)).collect();
        if unit.values.iter().any(|value| {
            (0..rank).any(|dim| {
                let size = size_at(value, dim);
                !whole[dim] && size != 1 && size != space[dim]
            })
        }) {
            return None;
        }
        // The tile names the trailing dims; leading dims it does not name are cut one index apart.
        let cell: Vec<usize> = (0..rank)
            .map(|dim| {
                let from_end = rank - dim;
                let size = if from_end <= tile.len() { tile[tile.len() - from_end] } else { 1 };
                if whole[dim] {
                    space[dim]
                } else {
                    size.min(space[dim]).max(1)
                }
            })
            .collect();
        let counts: Vec<usize> = space.iter().zip(&cell).map(|(&size, &cell)| size.div_ceil(cell)).collect();
        if counts.iter().all(|&count| count == 1) {
            return None;
        }
        let mut joined = vec![false; rank];
        for located in &unit.steps {
            if let WorkStep::Reduce { input, dims, .. } = &located.step {
                for &dim in dims {
                    if counts[dim] > 1 && unit.values[input.0 as usize].shape[dim] == space[dim] {
                        joined[dim] = true;
                    }
                }
            }
        }
        Some(Grid { space, cell, counts, joined, granule })
    }

    /// The number of dims of the space.
    pub(super) fn rank(&self) -> usize {
        self.space.len()
    }

    /// The leading dims of the space that `value` lacks (it broadcasts along them).
    pub(super) fn lead(&self, value: &TileValue) -> usize {
        self.space.len().saturating_sub(value.shape.len())
    }

    /// Whether `value` spans the space in `dim` (and is cut there), rather than being broadcast.
    pub(super) fn cut(&self, value: &TileValue, dim: usize) -> bool {
        let lead = self.lead(value);
        dim >= lead && self.counts[dim] > 1 && value.shape[dim - lead] == self.space[dim]
    }

    /// Whether `value` is one per task: size 1 in every joined dim.
    pub(super) fn per_task(&self, value: &TileValue) -> bool {
        (0..self.space.len()).all(|dim| !self.joined[dim] || !self.cut(value, dim))
    }

    /// The part of `value` in a cell along `dim`, the cell's `coordinate` there: (offset into the
    /// value, tile extent, valid extent). A cut last dim that does not fill whole UB granules in the
    /// value's dtype is padded to them (the padding lies outside the valid extent). A dim the value
    /// lacks is one element of it.
    pub(super) fn part(&self, value: &TileValue, dim: usize, coordinate: usize) -> (usize, usize, usize) {
        let lead = self.lead(value);
        if dim < lead {
            return (0, 1, 1);
        }
        if !self.cut(value, dim) {
            return (0, value.shape[dim - lead], value.valid_shape[dim - lead]);
        }
        let cell = self.cell[dim];
        let start = coordinate * cell;
        let padded = cell > 1 && dim == self.space.len() - 1;
        let align = (self.granule / value.dtype.size_in_bytes()).max(1);
        let extent = if padded { cell.div_ceil(align) * align } else { cell };
        (start, extent, value.valid_shape[dim - lead].saturating_sub(start).min(cell))
    }

    /// [`Grid::part`] along every dim of `value` in cell `coordinates`, one of its three numbers
    /// (`pick`).
    pub(super) fn parts(
        &self,
        value: &TileValue,
        coordinates: &[usize],
        pick: fn((usize, usize, usize)) -> usize,
    ) -> super::dims::Dims {
        let dims = coordinates.len().min(self.space.len());
        (self.lead(value).min(dims)..dims).map(|dim| pick(self.part(value, dim, coordinates[dim]))).collect()
    }

    /// The cell coordinates of every task: the free dims vary between tasks, the joined dims
    /// within one.
    fn tasks(&self) -> Vec<Vec<Vec<usize>>> {
        let all = every_index(&self.counts);
        // Tasks in the order their first cell comes; a task's cells in row-major order.
        let mut tasks: Vec<Vec<Vec<usize>>> = Vec::new();
        let mut task_of: FastMap<Vec<usize>, usize> = FastMap::default();
        for coordinates in all {
            let key: Vec<usize> =
                coordinates.iter().enumerate().map(|(dim, &index)| if self.joined[dim] { 0 } else { index }).collect();
            let next = tasks.len();
            let task = *task_of.entry(key).or_insert(next);
            if task == next {
                tasks.push(Vec::new());
            }
            tasks[task].push(coordinates);
        }
        tasks
    }
}

/// Whether a unit whose values differ in rank can be expanded: only element-wise steps and loads
/// and stores of whole values read the lower-rank ones (a reduction or a scan of one names its dims
/// in its own rank, and a region of another rank than its value has no cell to follow).
fn mixed_ranks_expand(unit: &WorkUnit, rank: usize) -> bool {
    let full = |value: &ValueId| unit.values[value.0 as usize].shape.len() == rank;
    unit.steps.iter().all(|located| match &located.step {
        WorkStep::Load { region, output } => region.shape.len() == unit.values[output.0 as usize].shape.len(),
        WorkStep::Store { input, region, .. } => region.shape.len() == unit.values[input.0 as usize].shape.len(),
        WorkStep::Unary { .. } | WorkStep::Binary { .. } | WorkStep::Clip { .. } | WorkStep::Cast { .. } => true,
        WorkStep::Reduce { input, output, .. } => full(input) && full(output),
        WorkStep::Vector { op, .. } => op.is_elementwise(),
        WorkStep::Matmul { .. } => false,
    })
}

/// Every index of a grid with `counts` cells per dim, in row-major order.
fn every_index(counts: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new()];
    for &count in counts {
        all = all
            .into_iter()
            .flat_map(|prefix| (0..count).map(move |index| [prefix.clone(), vec![index]].concat()))
            .collect();
    }
    all
}

/// How partial results of a joined reduction combine.
pub(super) fn combiner(op: ReduceOp) -> Option<BinaryOp> {
    match op {
        ReduceOp::Sum | ReduceOp::Mean => Some(BinaryOp::Add),
        ReduceOp::Amax => Some(BinaryOp::Maximum),
        ReduceOp::Amin => Some(BinaryOp::Minimum),
        ReduceOp::Var => None,
    }
}

/// Per step: the phase it runs in (a joined reduction's result is ready one phase after its input).
fn phases(unit: &WorkUnit, grid: &Grid) -> Vec<usize> {
    let mut value_phase = vec![0usize; unit.values.len()];
    let mut step_phase = Vec::with_capacity(unit.steps.len());
    for located in &unit.steps {
        let (reads, written) = located.step.values();
        let phase = reads.iter().map(|value| value_phase[value.0 as usize]).max().unwrap_or(0);
        step_phase.push(phase);
        if let Some(output) = written {
            let joins = matches!(&located.step, WorkStep::Reduce { input, .. }
                if !grid.per_task(&unit.values[input.0 as usize]) && grid.per_task(&unit.values[output.0 as usize]));
            value_phase[output.0 as usize] = phase + usize::from(joins);
        }
    }
    step_phase
}

pub(super) fn expand_error(line: Option<u32>, detail: crate::messages::LoweringReason) -> TileError {
    TileError::InvalidOp { op: "expand_work", detail, source_line: line }
}

/// The tasks of one unit.
fn expand_unit(unit: &WorkUnit, grid: &Grid, limit: usize) -> Result<Vec<WorkUnit>, TileError> {
    let producer: FastMap<u32, usize> = unit
        .steps
        .iter()
        .enumerate()
        .filter_map(|(index, located)| located.step.output().map(|value| (value.0, index)))
        .collect();
    let phase = phases(unit, grid);
    let last_phase = phase.iter().copied().max().unwrap_or(0);
    let per_task: Vec<bool> = unit.values.iter().map(|value| grid.per_task(value)).collect();
    let step_per_task: Vec<bool> =
        unit.steps.iter().map(|located| step_is_per_task(unit, grid, &located.step)).collect();
    let mut tasks = Vec::new();
    for cells in grid.tasks() {
        if tasks.len() >= limit {
            break;
        }
        let cells: Vec<Vec<usize>> = cells.into_iter().filter(|cell| !empty_cell(unit, grid, cell)).collect();
        if cells.is_empty() {
            continue;
        }
        let known = vec![None; unit.values.len()];
        let mut task = TaskBuilder { unit, grid, producer: &producer, per_task: &per_task, out: tile_of(unit), known };
        for current in 0..=last_phase {
            // Per-task steps of this phase first: they read only per-task values.
            for index in 0..unit.steps.len() {
                if phase[index] == current && step_per_task[index] {
                    task.emit(index, &cells[0], None)?;
                }
            }
            for (position, cell) in cells.iter().enumerate() {
                for index in 0..unit.steps.len() {
                    if phase[index] == current && !step_per_task[index] {
                        task.emit(index, cell, Some(position))?;
                    }
                }
                // Per-cell values die with their cell; later phases recompute what they read.
                task.forget_cell();
            }
            task.finish_reductions(&phase, current)?;
        }
        tasks.push(task.out);
    }
    Ok(tasks)
}

/// A cell whose every cut load has nothing valid in it does no work (a ragged tile's padding).
fn empty_cell(unit: &WorkUnit, grid: &Grid, cell: &[usize]) -> bool {
    let mut loads = unit.steps.iter().filter_map(|located| match &located.step {
        WorkStep::Load { output, .. }
            if (0..grid.space.len()).any(|dim| grid.cut(&unit.values[output.0 as usize], dim)) =>
        {
            Some(*output)
        }
        _ => None,
    });
    let mut any = false;
    let all_empty = loads.all(|value| {
        any = true;
        let value = &unit.values[value.0 as usize];
        (0..cell.len().min(grid.space.len())).any(|dim| grid.part(value, dim, cell[dim]).2 == 0)
    });
    any && all_empty
}

/// Whether a step runs once per task (its output, or a store's input, is per task); a joined
/// reduction runs per cell (each cell adds its partial).
fn step_is_per_task(unit: &WorkUnit, grid: &Grid, step: &WorkStep) -> bool {
    let (reads, written) = step.values();
    match written {
        Some(output) => reads.iter().chain([&output]).all(|value| grid.per_task(&unit.values[value.0 as usize])),
        None => reads.iter().all(|value| grid.per_task(&unit.values[value.0 as usize])),
    }
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
