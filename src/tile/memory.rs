//! Memory planning (DESIGN §3.1 step 4) on a unit's steps before its tile expansion.
//!
//! - Loads move down to their first reader (with the casts that only convert them), so a tile is
//!   read from GM when it is needed rather than held in UB from the top of the iteration.
//! - A unit whose expanded tasks still need more UB than the chip has is cut: the values live
//!   across the cut are written to a GM workspace before it and read back after it (a value that
//!   was loaded is simply loaded again), as pypto's partitioner joins the tasks it cuts. The schedule
//!   then shows the extra traffic. A cut is chosen by trying every position and keeping the one whose
//!   planned UB need is smallest, again until the unit fits or no cut helps.
//!
//! The UB need of a unit is what the lowering declares for its first task on one core: the same
//! buffers the simulator's capacity check adds up, so the plan and the check cannot disagree.

use std::collections::{HashMap, HashSet};

use super::builder::TileError;
use super::program::{GmRegion, GmTensor, TensorId};
use super::work::{LocatedStep, LoweringTarget, StepReads, TileWork, ValueId, WorkSettings, WorkStep, WorkUnit};

/// Moves every load (and a cast that is its only reader) down to just before the first step that
/// reads it, never past a store into the tensor it reads.
pub fn sink_loads(unit: &WorkUnit) -> WorkUnit {
    let readers = |value: ValueId| unit.steps.iter().filter(|located| located.step.values().0.contains(&value)).count();
    let mut deferred: Vec<(StepReads, LocatedStep)> = Vec::new();
    let mut pending: HashSet<ValueId> = HashSet::new();
    let mut steps = Vec::with_capacity(unit.steps.len());
    fn flush(
        needed: &[ValueId],
        deferred: &mut Vec<(StepReads, LocatedStep)>,
        pending: &mut HashSet<ValueId>,
        steps: &mut Vec<LocatedStep>,
    ) {
        for value in needed {
            if !pending.remove(value) {
                continue;
            }
            if let Some(position) = deferred.iter().position(|(_, step)| step.step.output() == Some(*value)) {
                let (inputs, step) = deferred.remove(position);
                flush(&inputs, deferred, pending, steps);
                steps.push(step);
            }
        }
    }
    for located in &unit.steps {
        let (reads, written) = located.step.values();
        let movable = match &located.step {
            WorkStep::Load { .. } => true,
            WorkStep::Cast { input, .. } => pending.contains(input) && readers(*input) == 1,
            _ => false,
        };
        if let (true, Some(output)) = (movable, written) {
            pending.insert(output);
            deferred.push((reads, located.clone()));
            continue;
        }
        if let WorkStep::Store { region, .. } = &located.step {
            let same_tensor: Vec<ValueId> = deferred
                .iter()
                .filter_map(|(_, step)| match &step.step {
                    WorkStep::Load { region: loaded, output } if loaded.tensor == region.tensor => Some(*output),
                    _ => None,
                })
                .collect();
            flush(&same_tensor, &mut deferred, &mut pending, &mut steps);
        }
        flush(&reads, &mut deferred, &mut pending, &mut steps);
        steps.push(located.clone());
    }
    // Loads nothing reads stay (the lowering drops what nothing uses).
    steps.extend(deferred.into_iter().map(|(_, step)| step));
    WorkUnit { values: unit.values.clone(), steps, vec_tile: unit.vec_tile.clone() }
}

/// The UB bytes the lowering declares for `unit`'s largest task on one core (one buffer copy).
pub fn ub_need(work: &TileWork, unit: &WorkUnit, target: &LoweringTarget) -> Result<u64, TileError> {
    let tasks = super::expand::expand_first_tasks(work, unit, 2)?;
    let mut need = 0;
    for task in &tasks {
        let mut single = TileWork { units: vec![task.clone()], ..work.clone() };
        single.settings.vec_buffers = 1;
        need = need.max(super::lower::single_unit_ub_bytes(&single, target)?);
    }
    Ok(need)
}

/// `unit` cut before step `cut`: values made before it and read after it go through a GM workspace
/// (new tensors appended to `tensors`), loaded ones are loaded again. Returns the cut unit and where
/// its second part starts (the first step after the workspace stores).
pub fn cut_unit(name: &str, unit: &WorkUnit, cut: usize, tensors: &mut Vec<GmTensor>) -> (WorkUnit, usize) {
    let mut producer: HashMap<ValueId, usize> = HashMap::new();
    for (index, located) in unit.steps.iter().enumerate() {
        if let Some(value) = located.step.output() {
            producer.insert(value, index);
        }
    }
    let mut crossing: Vec<ValueId> = Vec::new();
    for located in &unit.steps[cut..] {
        for value in located.step.values().0 {
            if producer.get(&value).is_some_and(|&index| index < cut) && !crossing.contains(&value) {
                crossing.push(value);
            }
        }
    }
    let mut values = unit.values.clone();
    let mut spills: HashMap<usize, Vec<LocatedStep>> = HashMap::new();
    let mut reloads: Vec<LocatedStep> = Vec::new();
    let mut renamed: HashMap<ValueId, ValueId> = HashMap::new();
    for value in crossing {
        let tile = unit.values[value.0 as usize].clone();
        let fresh = ValueId(values.len() as u32);
        values.push(tile.clone());
        renamed.insert(value, fresh);
        let made_by = &unit.steps[producer[&value]];
        let loaded_input = |input: &ValueId| match producer.get(input).map(|&index| &unit.steps[index]) {
            Some(LocatedStep { step: WorkStep::Load { region, .. }, line }) => Some((region.clone(), *line)),
            _ => None,
        };
        match &made_by.step {
            WorkStep::Load { region, .. } => {
                reloads.push(LocatedStep {
                    step: WorkStep::Load { region: region.clone(), output: fresh },
                    line: made_by.line,
                });
            }
            // A cast of a loaded tile is cheaper to redo (load the narrow tile again, convert) than
            // to write out and read back at its wider dtype.
            WorkStep::Cast { input, .. } if loaded_input(input).is_some() => {
                let (region, line) = loaded_input(input).expect("checked above");
                let narrow = ValueId(values.len() as u32);
                values.push(unit.values[input.0 as usize].clone());
                reloads.push(LocatedStep { step: WorkStep::Load { region, output: narrow }, line });
                reloads.push(LocatedStep { step: WorkStep::Cast { input: narrow, output: fresh }, line: made_by.line });
            }
            _ => {
                // Written out as soon as it is made, so its last read before the cut may overwrite it.
                let tensor = TensorId(tensors.len() as u32);
                tensors.push(GmTensor {
                    name: format!("{name}_spill{}", tensor.0),
                    shape: tile.shape.to_vec(),
                    dtype: tile.dtype,
                });
                let region = GmRegion {
                    tensor,
                    offsets: crate::tile::Dims::filled(0, tile.shape.len()),
                    shape: tile.valid_shape.clone(),
                };
                let store = WorkStep::Store { input: value, region: region.clone(), accumulate: false };
                spills.entry(producer[&value]).or_default().push(LocatedStep { step: store, line: made_by.line });
                reloads.push(LocatedStep { step: WorkStep::Load { region, output: fresh }, line: made_by.line });
            }
        }
    }
    let mut steps: Vec<LocatedStep> = Vec::new();
    for (index, located) in unit.steps[..cut].iter().enumerate() {
        steps.push(located.clone());
        steps.extend(spills.remove(&index).unwrap_or_default());
    }
    let boundary = steps.len();
    let mut rest = reloads;
    for located in &unit.steps[cut..] {
        let mut step = located.step.clone();
        rename_reads(&mut step, &renamed);
        rest.push(LocatedStep { step, line: located.line });
    }
    let rest = sink_loads(&WorkUnit { values: values.clone(), steps: rest, vec_tile: unit.vec_tile.clone() });
    steps.extend(rest.steps);
    (WorkUnit { values, steps, vec_tile: unit.vec_tile.clone() }, boundary)
}

pub(super) fn rename_reads(step: &mut WorkStep, renamed: &HashMap<ValueId, ValueId>) {
    let map = |value: &mut ValueId| {
        if let Some(fresh) = renamed.get(value) {
            *value = *fresh;
        }
    };
    let map_operand = |operand: &mut super::work::WorkOperand| {
        if let super::work::WorkOperand::Tile(value) = operand {
            if let Some(fresh) = renamed.get(value) {
                *value = *fresh;
            }
        }
    };
    match step {
        WorkStep::Load { .. } => {}
        WorkStep::Unary { input, .. }
        | WorkStep::Clip { input, .. }
        | WorkStep::Reduce { input, .. }
        | WorkStep::Cast { input, .. }
        | WorkStep::Store { input, .. } => map(input),
        WorkStep::Binary { lhs, rhs, .. } => {
            map_operand(lhs);
            map_operand(rhs);
        }
        WorkStep::Matmul { a, b, .. } => {
            map(a);
            map(b);
        }
        WorkStep::Vector { inputs, .. } => inputs.iter_mut().for_each(map_operand),
    }
}

/// Plans every unit of `work` for `target`: loads sunk, and units cut until their tasks fit UB
/// (a unit no cut makes fit is left for the capacity check to report at its tile-shape line).
pub fn plan_memory(work: &TileWork, target: &LoweringTarget) -> Result<TileWork, TileError> {
    plan_memory_staged(work, target).map(|(planned, _)| planned)
}

/// [`plan_memory`], also returning the workspaces that join the stages of split units (see
/// `stages`): the lowering orders their loads after the stores they read.
pub(super) fn plan_memory_staged(
    work: &TileWork,
    target: &LoweringTarget,
) -> Result<(TileWork, Vec<TensorId>), TileError> {
    // A core that runs several tasks alternates `vec_buffers` copies of their buffers: each task
    // then has that share of UB. A kernel whose units fit no share (cut or not) but fit all of UB
    // runs one copy at a time (no overlap between a core's tasks, as when n-buffering is off)
    // rather than not at all: DESIGN §3.1 keeps a capacity error only for an op whose tile cannot
    // fit (pypto runs a `(2, 4, 8, 256)` FP32 add tile, 64 KiB per operand, on 910B's 192 KiB UB).
    let mut tasks = 0;
    for unit in &work.units {
        // Counted only as far as the comparison below needs.
        let wanted = (target.vector_cores + 1).saturating_sub(tasks);
        if wanted == 0 {
            break;
        }
        tasks += super::expand::expand_first_tasks(work, unit, wanted)?.len();
    }
    let copies = if tasks > target.vector_cores { work.settings.vec_buffers.max(1) as u64 } else { 1 };
    match plan_with_budget(work, target, target.ub_bytes / copies)? {
        Some(planned) => Ok(planned),
        None if copies > 1 => {
            let single =
                TileWork { settings: WorkSettings { vec_buffers: 1, ..work.settings.clone() }, ..work.clone() };
            // When nothing fits even one copy at a time, the capacity check reports the kernel with
            // one copy: its need, and the largest tile that fits, are those of the rule above.
            match plan_with_budget(&single, target, target.ub_bytes)? {
                Some(planned) => Ok(planned),
                None => Ok((unplanned(&single), Vec::new())),
            }
        }
        None => Ok((unplanned(work), Vec::new())),
    }
}

/// `work` with its loads sunk and no cuts (what the capacity check then reports).
fn unplanned(work: &TileWork) -> TileWork {
    TileWork { units: work.units.iter().map(sink_loads).collect(), ..work.clone() }
}

/// Whether `unit` mixes matmuls with vector work and does not fit `budget` whole: it is then split
/// into cube and vector stages (see `stages`) before any cut.
fn needs_stages(work: &TileWork, unit: &WorkUnit, target: &LoweringTarget, budget: u64) -> Result<bool, TileError> {
    let cube = unit.steps.iter().any(|located| matches!(located.step, WorkStep::Matmul { .. }));
    let vector = unit.steps.iter().any(|located| {
        !matches!(located.step, WorkStep::Matmul { .. } | WorkStep::Load { .. } | WorkStep::Store { .. })
    });
    Ok(cube && vector && ub_need(work, unit, target)? > budget)
}

/// The plan when every unit fits `budget` bytes of UB (split into stages and cut where needed)
/// with the stage workspaces, `None` when one does not.
fn plan_with_budget(
    work: &TileWork,
    target: &LoweringTarget,
    budget: u64,
) -> Result<Option<(TileWork, Vec<TensorId>)>, TileError> {
    let mut planned = TileWork { units: Vec::with_capacity(work.units.len()), ..work.clone() };
    let mut stage_tensors = Vec::new();
    // Iterations of one loop repeat the same steps: the cuts found for one serve the next.
    let mut known_cuts: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    let mut known_stages: HashMap<Vec<String>, bool> = HashMap::new();
    let mut known_splits: HashMap<Vec<String>, bool> = HashMap::new();
    let mut per_unit: Vec<Vec<WorkUnit>> = Vec::new();
    for unit in &work.units {
        let unit = sink_loads(unit);
        let signature: Vec<String> = unit.steps.iter().map(|located| step_kind(&located.step)).collect();
        let staged = match known_stages.get(&signature) {
            Some(&staged) => staged,
            None => {
                let staged = needs_stages(&planned, &unit, target, budget)?;
                known_stages.insert(signature, staged);
                staged
            }
        };
        let parts = match staged.then(|| super::stages::split_stages(&work.name, &unit, &mut planned.tensors)) {
            Some(Some((parts, created))) => {
                stage_tensors.extend(created);
                parts.iter().map(sink_loads).collect()
            }
            _ => vec![unit],
        };
        let mut cut_parts = Vec::new();
        for unit in super::independent_parts::split_where_needed(&planned, parts, target, budget, &mut known_splits)? {
            let signature: Vec<String> = unit.steps.iter().map(|located| step_kind(&located.step)).collect();
            let cuts = match known_cuts.get(&signature) {
                Some(cuts) => cuts.clone(),
                None => {
                    let Some(cuts) = find_cuts(&planned, &unit, target, budget)? else { return Ok(None) };
                    known_cuts.insert(signature, cuts.clone());
                    cuts
                }
            };
            cut_parts.push(apply_cuts(&work.name, unit, &cuts, &mut planned.tensors));
        }
        per_unit.push(cut_parts);
    }
    planned.units = super::stage_order::pipeline_order(per_unit);
    Ok(Some((planned, stage_tensors)))
}

/// Cuts `unit` at `cuts` (each a step index into the part that is left after the cut before it).
fn apply_cuts(name: &str, unit: WorkUnit, cuts: &[usize], tensors: &mut Vec<GmTensor>) -> WorkUnit {
    let mut done: Vec<LocatedStep> = Vec::new();
    let mut rest = unit;
    for &cut in cuts {
        let (cut_unit_, boundary) = cut_unit(name, &rest, cut, tensors);
        done.extend(cut_unit_.steps[..boundary].iter().cloned());
        rest = WorkUnit {
            values: cut_unit_.values,
            steps: cut_unit_.steps[boundary..].to_vec(),
            vec_tile: cut_unit_.vec_tile,
        };
    }
    done.extend(rest.steps);
    WorkUnit { values: rest.values, steps: done, vec_tile: rest.vec_tile }
}

/// Where to cut `unit` so that every part fits UB: each part is the longest run of steps that
/// still fits once its live values are written out. Empty when the unit fits whole, or when even
/// one step does not fit (the capacity check then reports it).
fn find_cuts(
    work: &TileWork,
    unit: &WorkUnit,
    target: &LoweringTarget,
    budget: u64,
) -> Result<Option<Vec<usize>>, TileError> {
    /// More cuts than this and the unit is better reported than split into slivers.
    const MOST_CUTS: usize = 16;
    if ub_need(work, unit, target)? <= budget {
        return Ok(Some(Vec::new()));
    }
    let mut cuts = Vec::new();
    let mut tensors = work.tensors.clone();
    let mut rest = unit.clone();
    while cuts.len() < MOST_CUTS {
        let trial = TileWork { tensors: tensors.clone(), ..work.clone() };
        if ub_need(&trial, &rest, target)? <= budget {
            return Ok(Some(cuts));
        }
        let mut best = None;
        // A part must compute something (a part of loads only would make no progress).
        let first_compute = rest.steps.iter().position(|located| !matches!(located.step, WorkStep::Load { .. }));
        for cut in first_compute.map_or(usize::MAX, |index| index + 1)..rest.steps.len() {
            let mut scratch = tensors.clone();
            let (candidate, boundary) = cut_unit(&work.name, &rest, cut, &mut scratch);
            let prefix = WorkUnit {
                values: candidate.values.clone(),
                steps: candidate.steps[..boundary].to_vec(),
                vec_tile: candidate.vec_tile.clone(),
            };
            let fits = ub_need(&TileWork { tensors: scratch.clone(), ..work.clone() }, &prefix, target)
                .is_ok_and(|bytes| bytes <= budget);
            if fits {
                best = Some((cut, candidate, boundary, scratch));
            } else if best.is_some() {
                break;
            }
        }
        let Some((cut, candidate, boundary, scratch)) = best else { return Ok(None) };
        cuts.push(cut);
        tensors = scratch;
        rest = WorkUnit {
            values: candidate.values,
            steps: candidate.steps[boundary..].to_vec(),
            vec_tile: candidate.vec_tile,
        };
    }
    // No partition fits: the caller leaves the unit whole, and the capacity check reports it.
    Ok(None)
}

/// A step's kind without its regions (iterations differ only in where they read and write).
pub(super) fn step_kind(step: &WorkStep) -> String {
    match step {
        WorkStep::Load { output, .. } => format!("load {}", output.0),
        WorkStep::Store { input, accumulate, .. } => format!("store {} {accumulate}", input.0),
        other => format!("{other:?}"),
    }
}
