//! The generic lowering of a [`TileWork`] to per-core tile programs.
//!
//! Units are spread over cores in contiguous blocks. On a coupled chip each core runs whole units.
//! On a split chip units with a matmul go to cube cores and units with vector work to vector
//! cores (cube programs first); a matmul result that vector steps read goes through a GM
//! workspace, its hand-off ordered by a cross-core flag. Inside a program the flags follow from
//! data dependencies (see `emitter`), which is what lets the pipes overlap.

mod analysis;
mod state;
mod cube;
mod emitter;
mod unit;

use std::collections::HashMap;

use super::builder::TileError;
use super::patterns::split_range;
use super::program::{Flag, GmRegion, GmTensor, KernelPlan, TensorId};
use super::work::{LoweringTarget, TileWork, WorkStep};
use analysis::{analyse, load_region, UnitFacts};
use state::{CoreState, Handoff, Side};
use cube::extents;

fn check_settings(work: &TileWork) -> Result<(), TileError> {
    let Some(tiles) = work.settings.cube_tiles else { return Ok(()) };
    for (name, [level0, level1]) in [("m", tiles.m), ("k", tiles.k), ("n", tiles.n)] {
        if level0 == 0 || level1 == 0 || level1 % level0 != 0 {
            let detail = format!("{name}L1 = {level1} must be a positive multiple of {name}L0 = {level0}");
            return Err(TileError::InvalidOp { op: "set_cube_tile_shapes", detail, source_line: work.settings.cube_tile_line });
        }
    }
    Ok(())
}

/// The split chip's workspaces: one GM tensor per (result shape, dtype), a row band per hand-off.
fn plan_handoffs(work: &TileWork, facts: &[UnitFacts], tensors: &mut Vec<GmTensor>) -> HashMap<(usize, usize), Handoff> {
    let mut groups: Vec<((usize, usize, crate::tensor::DType), Vec<(usize, usize, [usize; 2])>)> = Vec::new();
    for (index, (unit, facts)) in work.units.iter().zip(facts).enumerate() {
        for (position, located) in unit.steps.iter().enumerate() {
            let WorkStep::Matmul { a, b, a_transposed, b_transposed, output } = &located.step else { continue };
            if !facts.in_ub[output.0 as usize] {
                continue;
            }
            let (a_region, b_region) = (load_region(unit, facts, *a), load_region(unit, facts, *b));
            let (Some(a_region), Some(b_region)) = (a_region, b_region) else { continue };
            let [m, _, n] = extents(a_region, *a_transposed, b_region, *b_transposed);
            let tile = &unit.values[output.0 as usize];
            let key = (tile.shape[0], tile.shape.get(1).copied().unwrap_or(1), tile.dtype);
            match groups.iter_mut().find(|(known, _)| *known == key) {
                Some((_, members)) => members.push((index, position, [m, n])),
                None => groups.push((key, vec![(index, position, [m, n])])),
            }
        }
    }
    let mut handoffs = HashMap::new();
    for ((rows, columns, dtype), members) in groups {
        let tensor = TensorId(tensors.len() as u32);
        tensors.push(GmTensor { name: format!("{}_workspace{}", work.name, tensor.0), shape: vec![members.len() * rows, columns], dtype });
        for (band, (index, position, [m, n])) in members.into_iter().enumerate() {
            let flag = Flag(handoffs.len() as u32);
            handoffs.insert((index, position), Handoff { region: GmRegion { tensor, offsets: vec![band * rows, 0], shape: vec![m, n] }, flag });
        }
    }
    handoffs
}

/// Lowers `work` to one tile program per core used on `target`.
pub(super) fn lower_work(work: &TileWork, target: &LoweringTarget) -> Result<KernelPlan, TileError> {
    check_settings(work)?;
    let facts = (0..work.units.len()).map(|index| analyse(work, index)).collect::<Result<Vec<_>, _>>()?;
    let mut tensors = work.tensors.clone();
    let handoffs = if target.split { plan_handoffs(work, &facts, &mut tensors) } else { HashMap::new() };
    let sides: Vec<(Side, usize, Vec<usize>)> = if target.split {
        let cube_units = (0..work.units.len()).filter(|index| facts[*index].has_matmul).collect();
        let vector_units = (0..work.units.len()).filter(|index| facts[*index].has_vector_work).collect();
        vec![(Side::Cube, target.cube_cores, cube_units), (Side::Vector, target.vector_cores, vector_units)]
    } else {
        vec![(Side::Coupled, target.vector_cores.min(target.cube_cores), (0..work.units.len()).collect())]
    };
    let mut programs = Vec::new();
    for (side, cores, units) in sides {
        let cores = cores.max(1).min(units.len().max(1));
        for core in 0..cores {
            let mut state = CoreState::new(work, side);
            for &index in &units[split_range(units.len(), cores, core)] {
                unit::lower_unit(&mut state, index, &facts[index], &handoffs)?;
            }
            if !state.emitter.is_empty() {
                programs.push(state.emitter.finish());
            }
        }
    }
    Ok(KernelPlan { name: work.name.clone(), tensors, programs, cross_core_flags: handoffs.len() as u32 })
}
