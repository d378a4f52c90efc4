//! The independent parts of a unit: steps that share no value and no GM tensor that one of them
//! writes. A unit the vec tile cannot grid as a whole (values of different ranks or extents) and
//! that does not fit UB whole is planned part by part, each part gridded by the tile on its own: a
//! kernel that assembles a `[8, 5120]` row block into one output beside the `[8, 12, 128]` heads it
//! writes to another, under a 3-D tile, ran both in one UB tile (GLM-4.5's attention prologue), where
//! pypto tiles each op by itself.

use std::collections::HashMap;

use super::builder::TileError;
use super::program::TensorId;
use super::work::{GmView, LocatedStep, TileWork, ValueId, WorkStep, WorkUnit};
use super::LoweringTarget;

/// The parts of `unit` in the order of their first steps (each keeps its steps' order), or `None`
/// when it has one. `views` names the GM tensors that share another's memory (they count as it).
pub(super) fn independent_parts(unit: &WorkUnit, views: &[GmView]) -> Option<Vec<WorkUnit>> {
    let mut parts = Parts((0..unit.steps.len()).collect());
    let base = |tensor: TensorId| {
        let mut tensor = tensor;
        while let Some(view) = views.iter().find(|view| view.tensor == tensor && view.base != tensor) {
            tensor = view.base;
        }
        tensor
    };
    let mut maker: HashMap<ValueId, usize> = HashMap::new();
    // Per GM tensor: the first step touching it, and whether any step writes it.
    let mut touched: HashMap<TensorId, (usize, bool)> = HashMap::new();
    let mut touching: Vec<(TensorId, usize)> = Vec::new();
    for (index, located) in unit.steps.iter().enumerate() {
        let (reads, written) = located.step.values();
        for value in reads {
            if let Some(&made_by) = maker.get(&value) {
                parts.join(made_by, index);
            }
        }
        if let Some(value) = written {
            maker.insert(value, index);
        }
        let gm = match &located.step {
            WorkStep::Load { region, .. } => Some((base(region.tensor), false)),
            WorkStep::Store { region, .. } => Some((base(region.tensor), true)),
            _ => None,
        };
        if let Some((tensor, write)) = gm {
            let entry = touched.entry(tensor).or_insert((index, false));
            entry.1 |= write;
            touching.push((tensor, index));
        }
    }
    // Steps that touch a tensor some step writes stay together, in their order.
    for (tensor, index) in touching {
        if let Some(&(first, true)) = touched.get(&tensor) {
            parts.join(first, index);
        }
    }
    let roots: Vec<usize> = (0..unit.steps.len()).map(|index| parts.root(index)).collect();
    let mut order: Vec<usize> = Vec::new();
    for &root in &roots {
        if !order.contains(&root) {
            order.push(root);
        }
    }
    if order.len() < 2 {
        return None;
    }
    let split = order
        .iter()
        .map(|&part| {
            let steps = unit.steps.iter().zip(&roots).filter(|(_, &root)| root == part).map(|(located, _)| located);
            renumbered(unit, steps)
        })
        .collect();
    Some(split)
}

/// `units` with each that does not fit `budget` whole split into its independent parts
/// (`independent_parts`); `known` remembers by step signature which units needed it.
pub(super) fn split_where_needed(
    work: &TileWork,
    units: Vec<WorkUnit>,
    target: &LoweringTarget,
    budget: u64,
    known: &mut HashMap<Vec<String>, bool>,
) -> Result<Vec<WorkUnit>, TileError> {
    let mut split = Vec::with_capacity(units.len());
    for unit in units {
        let signature: Vec<String> = unit.steps.iter().map(|located| super::memory::step_kind(&located.step)).collect();
        let too_large = match known.get(&signature) {
            Some(&too_large) => too_large,
            None => {
                let too_large = super::memory::ub_need(work, &unit, target)? > budget;
                known.insert(signature, too_large);
                too_large
            }
        };
        match too_large.then(|| independent_parts(&unit, &work.views)).flatten() {
            Some(parts) => split.extend(parts.iter().map(super::memory::sink_loads)),
            None => split.push(unit),
        }
    }
    Ok(split)
}

/// A unit of `steps` of `unit` with only the values they use, numbered from 0 in order of use.
fn renumbered<'a>(unit: &WorkUnit, steps: impl Iterator<Item = &'a LocatedStep>) -> WorkUnit {
    let mut renamed: HashMap<ValueId, ValueId> = HashMap::new();
    let mut part = WorkUnit { vec_tile: unit.vec_tile.clone(), ..WorkUnit::default() };
    for located in steps {
        let (reads, written) = located.step.values();
        for value in reads.into_iter().chain(written) {
            renamed.entry(value).or_insert_with(|| {
                part.values.push(unit.values[value.0 as usize].clone());
                ValueId(part.values.len() as u32 - 1)
            });
        }
        let mut step = located.step.clone();
        super::memory::rename_reads(&mut step, &renamed);
        if let Some(output) = located.step.output() {
            super::stages::set_output(&mut step, renamed[&output]);
        }
        part.steps.push(LocatedStep { step, line: located.line });
    }
    part
}

/// Disjoint sets of step indices.
struct Parts(Vec<usize>);

impl Parts {
    fn root(&mut self, mut index: usize) -> usize {
        while self.0[index] != index {
            self.0[index] = self.0[self.0[index]];
            index = self.0[index];
        }
        index
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.0[a.max(b)] = a.min(b);
    }
}

#[cfg(test)]
#[path = "independent_parts_tests.rs"]
mod tests;
