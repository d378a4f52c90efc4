//! The generic lowering of a [`TileWork`] to per-core tile programs.
//!
//! Units are spread over cores in contiguous blocks. On a coupled chip each core runs whole units.
//! On a split chip units with a matmul go to cube cores and units with vector work to vector
//! cores (cube programs first); a matmul result that vector steps read goes through a GM
//! workspace, its hand-off ordered by a cross-core flag. Inside a program the flags follow from
//! data dependencies (see `emitter`), which is what lets the pipes overlap.

mod analysis;
mod cube;
mod emitter;
mod regions;
mod slots;
mod stage_flags;
mod state;
mod unit;

use std::rc::Rc;

use crate::tile::fast_hash::{FastMap, FastSet};

use super::builder::TileError;
use super::program::{grouped_bytes, Flag, GmRegion, GmTensor, KernelPlan, Memory, TensorId, TileProgram};
use super::schedule::{assign_laned, estimated_cycles};
use super::work::{LoweringTarget, TileWork, WorkStep};
use crate::tensor::DType;
use analysis::{analyse, operand_shape, UnitFacts};
pub(in crate::tile) use cube::default_tiles as default_cube_tiles;
use cube::extents_of;
use slots::Slot;
use state::{CoreState, Handoff, Side};

fn check_settings(work: &TileWork) -> Result<(), TileError> {
    let Some(tiles) = work.settings.cube_tiles else { return Ok(()) };
    for (name, [level0, level1]) in [("m", tiles.m), ("k", tiles.k), ("n", tiles.n)] {
        if level0 == 0 || level1 == 0 || level1 % level0 != 0 {
            let detail = crate::messages::LoweringReason::CubeTileMultiple { dim: name.into(), level1, level0 };
            return Err(TileError::InvalidOp {
                op: "set_cube_tile_shapes",
                detail,
                source_line: work.settings.cube_tile_line,
            });
        }
    }
    Ok(())
}

/// A key of a hand-off: (unit, value).
type HandoffKey = (usize, u32);

/// A hand-off and the valid shape of its tile.
type HandoffMember = (HandoffKey, Vec<usize>);

/// Hand-offs share a workspace tensor when their tiles have the same rows, columns and dtype.
type WorkspaceKey = (usize, usize, DType);

/// The workspaces: one GM tensor per (tile rows, columns, dtype), a row band per hand-off. Staged
/// matmul operands always go through GM; cube results read by vector steps only on a split chip.
/// Cross-core flags are used on a split chip only.
fn plan_handoffs(
    work: &TileWork,
    facts: &[Rc<UnitFacts>],
    split: bool,
    tensors: &mut Vec<GmTensor>,
) -> FastMap<HandoffKey, Handoff> {
    let mut groups: Vec<(WorkspaceKey, Vec<HandoffMember>)> = Vec::new();
    let mut add = |key: HandoffKey, group: WorkspaceKey, valid: Vec<usize>| match groups
        .iter_mut()
        .find(|(known, _)| *known == group)
    {
        Some((_, members)) => members.push((key, valid)),
        None => groups.push((group, vec![(key, valid)])),
    };
    for (index, (unit, facts)) in work.units.iter().zip(facts).enumerate() {
        let group = |value: u32| {
            let tile = &unit.values[value as usize];
            (tile.shape[0], tile.shape.get(1).copied().unwrap_or(1), tile.dtype)
        };
        for value in (0..unit.values.len() as u32).filter(|value| facts.staged[*value as usize]) {
            add((index, value), group(value), unit.values[value as usize].valid_shape.to_vec());
        }
        for located in &unit.steps {
            let WorkStep::Matmul { a, b, a_transposed, b_transposed, output } = &located.step else { continue };
            if split && facts.in_ub[output.0 as usize] {
                let [m, _, n] = extents_of(
                    &operand_shape(unit, facts, *a),
                    *a_transposed,
                    &operand_shape(unit, facts, *b),
                    *b_transposed,
                );
                add((index, output.0), group(output.0), vec![m, n]);
            }
        }
    }
    let mut handoffs = FastMap::default();
    let mut flags = 0u32;
    for ((rows, columns, dtype), members) in groups {
        let tensor = TensorId(tensors.len() as u32);
        tensors.push(GmTensor {
            name: format!("{}_workspace{}", work.name, tensor.0),
            shape: vec![members.len() * rows, columns],
            dtype,
        });
        for (band, (key, valid)) in members.into_iter().enumerate() {
            let flag = split.then(|| {
                flags += 1;
                Flag(flags - 1)
            });
            handoffs.insert(
                key,
                Handoff { region: GmRegion { tensor, offsets: [band * rows, 0].into(), shape: valid.into() }, flag },
            );
        }
    }
    handoffs
}

/// The ordered workspaces each task touches, joined into groups: workspaces one task touches
/// together are one group (flash attention's running max, sum and output), and every task of a
/// group runs on one core, in program order. `None` for a task that touches none. The stage
/// workspaces of a split unit count as ordered: its stages run as one cube core feeding a vector
/// core through them, the way flash attention runs one query block per core on 910B.
/// Returns each task's group and whether the group holds a stage workspace.
fn ordered_groups(work: &TileWork, stage_tensors: &[TensorId]) -> Vec<Option<(usize, bool)>> {
    let ordered: Vec<TensorId> = work.ordered.iter().chain(stage_tensors).copied().collect();
    let touched = |index: usize| -> Vec<usize> {
        let mut found: Vec<usize> = work.units[index]
            .steps
            .iter()
            .filter_map(|located| match &located.step {
                WorkStep::Load { region, .. } | WorkStep::Store { region, .. } => {
                    ordered.iter().position(|tensor| *tensor == region.tensor)
                }
                _ => None,
            })
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    };
    let mut parent: Vec<usize> = (0..ordered.len()).collect();
    fn root(parent: &mut [usize], mut node: usize) -> usize {
        while parent[node] != node {
            parent[node] = parent[parent[node]];
            node = parent[node];
        }
        node
    }
    let per_task: Vec<Vec<usize>> = (0..work.units.len()).map(touched).collect();
    for workspaces in &per_task {
        for pair in workspaces.windows(2) {
            let (first, second) = (root(&mut parent, pair[0]), root(&mut parent, pair[1]));
            parent[second] = first;
        }
    }
    let mut staged = vec![false; ordered.len()];
    for workspaces in &per_task {
        if let Some(&first) = workspaces.iter().find(|&&workspace| workspace >= work.ordered.len()) {
            let group = root(&mut parent, first);
            staged[group] = true;
        }
    }
    per_task
        .iter()
        .map(|workspaces| {
            workspaces.first().map(|&first| {
                let group = root(&mut parent, first);
                (group, staged[group])
            })
        })
        .collect()
}

/// Per unit, the first of the run of consecutive units of its form it belongs to (the tasks of an
/// expanded unit are one form but at the ragged edges): they share what is decided per form.
fn forms(work: &TileWork) -> Vec<usize> {
    let mut form: Vec<usize> = Vec::with_capacity(work.units.len());
    for (index, unit) in work.units.iter().enumerate() {
        let previous = index.checked_sub(1).map(|previous| form[previous]);
        form.push(match previous {
            Some(first) if unit.same_form(&work.units[first]) => first,
            _ => index,
        });
    }
    form
}

/// Lowers `work` to one tile program per core used on `target`: with separate UB slots for copied
/// and computed tiles when every core's UB holds them, else with shared ones (in place, see `unit`).
pub(super) fn lower_work(
    work: &TileWork,
    target: &LoweringTarget,
    stage_tensors: &[TensorId],
) -> Result<KernelPlan, TileError> {
    check_settings(work)?;
    let form = forms(work);
    let mut facts: Vec<Rc<UnitFacts>> = Vec::with_capacity(work.units.len());
    for (index, &first) in form.iter().enumerate() {
        let known = if first == index { Rc::new(analyse(work, index)?) } else { facts[first].clone() };
        facts.push(known);
    }
    let mut tensors = work.tensors.clone();
    let handoffs = plan_handoffs(work, &facts, target.split, &mut tensors);
    let handoff_flags = handoffs.values().filter(|handoff| handoff.flag.is_some()).count() as u32;
    // Once units are split, their ordered workspaces may be shared by the lanes of a group.
    let flagged: Vec<TensorId> = match stage_tensors.is_empty() {
        true => Vec::new(),
        false => stage_tensors.iter().chain(&work.ordered).copied().collect(),
    };
    let stage_flags = stage_flags::stage_flags(work, &flagged, handoff_flags);
    let sides: Vec<(Side, usize, Vec<usize>)> = if target.split {
        let cube_units = (0..work.units.len()).filter(|index| facts[*index].has_matmul).collect();
        let vector_units = (0..work.units.len()).filter(|index| facts[*index].has_vector_work).collect();
        vec![(Side::Cube, target.cube_cores, cube_units), (Side::Vector, target.vector_cores, vector_units)]
    } else {
        vec![(Side::Coupled, target.vector_cores.min(target.cube_cores), (0..work.units.len()).collect())]
    };
    let task_groups = ordered_groups(work, stage_tensors);
    // The units of each core, in program order.
    let mut cores_of_sides: Vec<(Side, Vec<Vec<usize>>)> = Vec::new();
    let mut form_costs: Vec<u64> = Vec::with_capacity(work.units.len());
    for (index, &first) in form.iter().enumerate() {
        let cost = if first == index { estimated_cycles(work, &work.units[index]) } else { form_costs[first] };
        form_costs.push(cost);
    }
    for (side, cores, units) in sides {
        let costs: Vec<u64> = units.iter().map(|&index| form_costs[index]).collect();
        // A split unit's vector stages spread over the vector cores its cube core feeds (two on 910B).
        let lanes = if side == Side::Vector { (target.vector_cores / target.cube_cores.max(1)).max(1) } else { 1 };
        let groups: Vec<Option<(usize, usize)>> = units
            .iter()
            .map(|&index| task_groups[index].map(|(group, staged)| (group, if staged { lanes } else { 1 })))
            .collect();
        let assigned = assign_laned(&costs, &groups, cores);
        let assigned = assigned.into_iter().map(|positions| positions.into_iter().map(|at| units[at]).collect());
        cores_of_sides.push((side, assigned.collect()));
    }
    let slots_of = |in_place: bool| -> Vec<Rc<Vec<Option<Slot>>>> {
        let mut slots: Vec<Rc<Vec<Option<Slot>>>> = Vec::with_capacity(work.units.len());
        for (index, &first) in form.iter().enumerate() {
            let known = match first == index {
                true => Rc::new(slots::assign_slots(&work.units[index], &facts[index], in_place)),
                false => slots[first].clone(),
            };
            slots.push(known);
        }
        slots
    };
    let separate = slots_of(false);
    let vec_buffers = work.settings.vec_buffers.max(1);
    // A core's UB holds one buffer per slot and n-buffer copy: units of one form in one copy add none.
    let ub_groups = ub_groups(work);
    let core_ub = |units: &[usize], slots: &[Rc<Vec<Option<Slot>>>]| {
        let mut seen: FastSet<(usize, usize)> = FastSet::default();
        let distinct = units
            .iter()
            .enumerate()
            .filter(|&(position, &index)| seen.insert((form[index], position % vec_buffers)))
            .map(|(position, &index)| (slots[index].as_slice(), position % vec_buffers, ub_groups[index]));
        slots::core_ub_bytes(distinct, target.ub_alignment)
    };
    let fits = cores_of_sides
        .iter()
        .filter(|(side, _)| *side != Side::Cube)
        .flat_map(|(_, cores)| cores)
        .all(|units| core_ub(units, &separate) <= target.ub_bytes);
    let slots = if fits { separate } else { slots_of(true) };
    let predicted_ub = |units: &[usize]| core_ub(units, &slots);
    let largest_predicted_ub = cores_of_sides
        .iter()
        .filter(|(side, _)| *side != Side::Cube)
        .flat_map(|(_, cores)| cores.iter().map(|units| predicted_ub(units)))
        .max()
        .unwrap_or(0);
    let mut programs = Vec::new();
    for (side, cores) in cores_of_sides {
        for units in cores {
            let mut state = CoreState::new(work, side, &stage_flags, target.l0_bytes);
            for index in units {
                state.enter_ub_group(ub_groups[index], tile_line(work, index));
                unit::lower_unit(&mut state, index, &facts[index], &slots[index], &handoffs)?;
            }
            if !state.emitter.is_empty() {
                programs.push(state.emitter.finish());
            }
        }
    }
    let ub_bytes = |program: &TileProgram| {
        let ub = program.buffers.iter().filter(|buffer| buffer.memory == Memory::Ub);
        grouped_bytes(ub, target.ub_alignment)
    };
    debug_assert_eq!(programs.iter().map(ub_bytes).max().unwrap_or(0), largest_predicted_ub, "UB of the slots");
    let cross_core_flags = handoff_flags + stage_flags.count;
    Ok(KernelPlan { name: work.name.clone(), tensors, programs, cross_core_flags, single_buffered_from: None })
}

/// The UB bytes one core declares for the single unit of `work` with shared slots (in place), the
/// lowering's figure without emitting anything.
pub(super) fn single_unit_ub_bytes(work: &TileWork, target: &LoweringTarget) -> Result<u64, TileError> {
    check_settings(work)?;
    let facts = analyse(work, 0)?;
    let slots = slots::assign_slots(&work.units[0], &facts, true);
    Ok(slots::core_ub_bytes(std::iter::once((slots.as_slice(), 0, 1)), target.ub_alignment))
}

/// The line that set the vec tile of unit `index` (the kernel's tile line when it has one tile).
fn tile_line(work: &TileWork, index: usize) -> Option<u32> {
    let settings = &work.settings;
    let tile = work.units[index].vec_tile.as_ref().or(settings.vec_tile.as_ref());
    let own = settings.vec_tile_lines.iter().find(|(dims, _)| Some(dims) == tile).map(|&(_, line)| line);
    own.or(settings.vec_tile_line)
}

/// Each unit's UB group (`Buffer::group`): one per vec tile the kernel's units run under, as a
/// core runs the tasks of one tile shape at a time and pypto sizes UB per task. A kernel of one
/// vec tile has one group: its buffers are the program's (group 0).
fn ub_groups(work: &TileWork) -> Vec<u32> {
    let mut tiles: Vec<Option<&Vec<usize>>> = Vec::new();
    let mut groups = Vec::with_capacity(work.units.len());
    for unit in &work.units {
        // A unit without a tile of its own runs under the kernel's.
        let tile = unit.vec_tile.as_ref().or(work.settings.vec_tile.as_ref());
        let position = tiles.iter().position(|known| *known == tile).unwrap_or_else(|| {
            tiles.push(tile);
            tiles.len() - 1
        });
        groups.push(position as u32 + 1);
    }
    if tiles.len() == 1 {
        groups.fill(0);
    }
    groups
}
