//! Tile expansion of a unit with matmuls: its output is cut by the L1 cube tile (`mL1 × nL1` of
//! `set_cube_tile_shapes`), each cell a task that loads the operand strips it needs (rows of `a`,
//! columns of `b`, the whole K) and runs the element-wise steps on its cell of the result. So one
//! `pypto.matmul` over whole tensors spreads over every cube core, as pypto's compiler spreads it.
//!
//! A unit is expanded only when every matmul reads loaded operands, all matmuls share one output
//! extent, and every other value is a load or an element-wise result of that extent (bias adds,
//! casts, a sum of two products, an accumulating store): anything else stays one task.

use super::program::GmRegion;
use super::work::CubeTiles;
use super::work::{LocatedStep, TileValue, ValueId, WorkOperand, WorkStep, WorkUnit};

/// How a value's dims follow the output grid: which of its dims runs along the output's rows (M)
/// and which along its columns (N); `None` for a dim that is not cut (K, or a broadcast dim).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Roles {
    rows: Option<usize>,
    columns: Option<usize>,
}

/// The tasks of `unit`, cut by `tiles` (L1 level), or `None` when it stays whole.
pub(super) fn expand_cube_unit(unit: &WorkUnit, tiles: CubeTiles) -> Option<Vec<WorkUnit>> {
    let roles = roles_of(unit)?;
    let output = unit.steps.iter().find_map(|located| match &located.step {
        WorkStep::Matmul { output, .. } => Some(unit.values[output.0 as usize].clone()),
        _ => None,
    })?;
    let (rows, columns) = (output.valid_shape[0], output.valid_shape[1]);
    let (cell_rows, cell_columns) = (tiles.m[1].max(1), tiles.n[1].max(1));
    if rows <= cell_rows && columns <= cell_columns {
        return None;
    }
    let mut tasks = Vec::new();
    for row in (0..rows).step_by(cell_rows) {
        for column in (0..columns).step_by(cell_columns) {
            let cell = Cell { start: [row, column], extent: [cell_rows, cell_columns] };
            tasks.push(cell_task(unit, &roles, &cell));
        }
    }
    Some(tasks)
}

/// One cell of the output grid.
struct Cell {
    start: [usize; 2],
    extent: [usize; 2],
}

impl Cell {
    /// The part of a value with `roles` in this cell: offsets into it, tile shape, valid shape.
    fn part(&self, value: &TileValue, roles: Roles) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let mut offsets = vec![0; value.shape.len()];
        let mut shape = value.shape.clone();
        let mut valid = value.valid_shape.clone();
        for (axis, dim) in [roles.rows, roles.columns].into_iter().enumerate() {
            if let Some(dim) = dim {
                offsets[dim] = self.start[axis];
                shape[dim] = self.extent[axis].min(value.shape[dim]);
                valid[dim] = value.valid_shape[dim].saturating_sub(self.start[axis]).min(shape[dim]);
            }
        }
        (offsets, shape.to_vec(), valid.to_vec())
    }
}

/// The roles of every value, or `None` when the unit does not have the supported form.
fn roles_of(unit: &WorkUnit) -> Option<Vec<Roles>> {
    let mut roles: Vec<Option<Roles>> = vec![None; unit.values.len()];
    let mut loaded = vec![false; unit.values.len()];
    let mut output_shape: Option<Vec<usize>> = None;
    let full = Roles { rows: Some(0), columns: Some(1) };
    let assign = |roles: &mut Vec<Option<Roles>>, value: ValueId, wanted: Roles| -> Option<()> {
        match roles[value.0 as usize] {
            Some(known) if known != wanted => None,
            _ => {
                roles[value.0 as usize] = Some(wanted);
                Some(())
            }
        }
    };
    for located in &unit.steps {
        match &located.step {
            WorkStep::Load { output, .. } => loaded[output.0 as usize] = true,
            WorkStep::Matmul { a, b, a_transposed, b_transposed, output } => {
                if !loaded[a.0 as usize] || !loaded[b.0 as usize] || unit.values[output.0 as usize].shape.len() != 2 {
                    return None;
                }
                let shape = unit.values[output.0 as usize].valid_shape.clone();
                if output_shape.get_or_insert_with(|| shape.to_vec()) != &shape {
                    return None;
                }
                assign(&mut roles, *a, Roles { rows: Some(usize::from(*a_transposed)), columns: None })?;
                assign(&mut roles, *b, Roles { rows: None, columns: Some(usize::from(!*b_transposed)) })?;
                assign(&mut roles, *output, full)?;
            }
            WorkStep::Unary { input, output, .. }
            | WorkStep::Cast { input, output }
            | WorkStep::Clip { input, output, .. } => {
                assign(&mut roles, *input, full)?;
                assign(&mut roles, *output, full)?;
            }
            WorkStep::Binary { lhs, rhs, output, .. } => {
                for operand in [lhs, rhs] {
                    if let WorkOperand::Tile(value) = operand {
                        assign(&mut roles, *value, full)?;
                    }
                }
                assign(&mut roles, *output, full)?;
            }
            WorkStep::Vector { op, inputs, output } if op.is_elementwise() => {
                for value in inputs.iter().filter_map(|operand| match operand {
                    WorkOperand::Tile(value) => Some(value),
                    WorkOperand::Scalar(_) => None,
                }) {
                    assign(&mut roles, *value, full)?;
                }
                assign(&mut roles, *output, full)?;
            }
            WorkStep::Store { input, .. } => assign(&mut roles, *input, full)?,
            WorkStep::Reduce { .. } | WorkStep::Vector { .. } => return None,
        }
    }
    let output_shape = output_shape?;
    // Every value cut along both axes must have the output's extent, so cells line up.
    for (value, role) in unit.values.iter().zip(&roles) {
        if *role == Some(full) && value.valid_shape != output_shape {
            return None;
        }
    }
    Some(roles.into_iter().map(Option::unwrap_or_default).collect())
}

/// The steps of `unit` restricted to `cell`.
fn cell_task(unit: &WorkUnit, roles: &[Roles], cell: &Cell) -> WorkUnit {
    let mut task = WorkUnit { vec_tile: unit.vec_tile.clone(), ..WorkUnit::default() };
    let mut renamed: Vec<Option<ValueId>> = vec![None; unit.values.len()];
    let value = |task: &mut WorkUnit, renamed: &mut Vec<Option<ValueId>>, original: ValueId| -> ValueId {
        let tile = &unit.values[original.0 as usize];
        let (_, shape, valid_shape) = cell.part(tile, roles[original.0 as usize]);
        task.values.push(TileValue { shape: shape.into(), valid_shape: valid_shape.into(), dtype: tile.dtype });
        let id = ValueId(task.values.len() as u32 - 1);
        renamed[original.0 as usize] = Some(id);
        id
    };
    let shift = |region: &GmRegion, original: ValueId| {
        let (offsets, _, valid) = cell.part(&unit.values[original.0 as usize], roles[original.0 as usize]);
        let offsets = region.offsets.iter().zip(&offsets).map(|(base, offset)| base + offset).collect();
        let shape = region
            .shape
            .iter()
            .zip(&valid)
            .zip(region.shape.iter().zip(&unit.values[original.0 as usize].valid_shape))
            .map(
                |((&extent, &cell_valid), (_, &whole))| {
                    if cell_valid == whole {
                        extent
                    } else {
                        cell_valid.min(extent)
                    }
                },
            )
            .collect();
        GmRegion { tensor: region.tensor, offsets, shape }
    };
    for located in &unit.steps {
        let map =
            |renamed: &Vec<Option<ValueId>>, original: &ValueId| renamed[original.0 as usize].expect("produced before");
        let step = match &located.step {
            WorkStep::Load { region, output } => {
                let region = shift(region, *output);
                WorkStep::Load { region, output: value(&mut task, &mut renamed, *output) }
            }
            WorkStep::Store { input, region, accumulate } => {
                let region = shift(region, *input);
                if region.shape.contains(&0) {
                    continue;
                }
                WorkStep::Store { input: map(&renamed, input), region, accumulate: *accumulate }
            }
            WorkStep::Matmul { a, b, a_transposed, b_transposed, output } => {
                let (a, b) = (map(&renamed, a), map(&renamed, b));
                let output = value(&mut task, &mut renamed, *output);
                WorkStep::Matmul { a, b, a_transposed: *a_transposed, b_transposed: *b_transposed, output }
            }
            WorkStep::Unary { op, input, output } => {
                let input = map(&renamed, input);
                WorkStep::Unary { op: *op, input, output: value(&mut task, &mut renamed, *output) }
            }
            WorkStep::Cast { input, output } => {
                let input = map(&renamed, input);
                WorkStep::Cast { input, output: value(&mut task, &mut renamed, *output) }
            }
            WorkStep::Clip { input, low, high, output } => {
                let input = map(&renamed, input);
                WorkStep::Clip { input, low: *low, high: *high, output: value(&mut task, &mut renamed, *output) }
            }
            WorkStep::Binary { op, lhs, rhs, output } => {
                let operand = |operand: &WorkOperand| match operand {
                    WorkOperand::Tile(original) => WorkOperand::Tile(map(&renamed, original)),
                    scalar => *scalar,
                };
                let (lhs, rhs) = (operand(lhs), operand(rhs));
                WorkStep::Binary { op: *op, lhs, rhs, output: value(&mut task, &mut renamed, *output) }
            }
            WorkStep::Vector { op, inputs, output } => {
                let inputs = inputs
                    .iter()
                    .map(|operand| match operand {
                        WorkOperand::Tile(original) => WorkOperand::Tile(map(&renamed, original)),
                        scalar => *scalar,
                    })
                    .collect();
                WorkStep::Vector { op: op.clone(), inputs, output: value(&mut task, &mut renamed, *output) }
            }
            WorkStep::Reduce { .. } => unreachable!("units with reductions are not cut by the cube grid"),
        };
        task.steps.push(LocatedStep { step, line: located.line });
    }
    task
}
