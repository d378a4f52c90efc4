//! The order between the tasks of split stages (see `tile::stages`): a task that loads part of a
//! stage workspace waits for every earlier task that stored an overlapping part of it. Each such
//! pair is one cross-core flag, set by the producer's last workspace store and waited for by the
//! consumer's first load that overlaps it (a pipe's queue is in order, so its later loads follow).
//! The kernel's ordered workspaces (running statistics carried across loop iterations) are joined
//! the same way when a unit was split, since its stages may then run on the two vector cores that
//! one cube core feeds. Tasks run in program order on every core and every flag goes from a lower task index to a
//! higher one, so the waits cannot deadlock.

use std::collections::{HashMap, HashSet};

use super::super::program::{Flag, GmRegion, TensorId};
use super::super::work::{TileWork, WorkStep};

/// Flags per (task, step): set when the step completes, or waited for before it starts.
#[derive(Default, Debug)]
pub(in crate::tile) struct StageFlags {
    /// Flags a store sets.
    pub sets: HashMap<(usize, usize), Vec<Flag>>,
    /// Flags a load waits for.
    pub waits: HashMap<(usize, usize), Vec<Flag>>,
    /// How many flags there are.
    pub count: u32,
}

impl StageFlags {
    /// The flags a step sets (empty for most).
    pub(super) fn sets_of(&self, task: usize, step: usize) -> Vec<Flag> {
        self.sets.get(&(task, step)).cloned().unwrap_or_default()
    }

    /// The flags a step waits for (empty for most).
    pub(super) fn waits_of(&self, task: usize, step: usize) -> Vec<Flag> {
        self.waits.get(&(task, step)).cloned().unwrap_or_default()
    }
}

fn overlaps(left: &GmRegion, right: &GmRegion) -> bool {
    left.tensor == right.tensor
        && left.offsets.iter().zip(&left.shape).zip(right.offsets.iter().zip(&right.shape)).all(
            |((&left_start, &left_extent), (&right_start, &right_extent))| {
                left_start < right_start + right_extent && right_start < left_start + left_extent
            },
        )
}

fn contains(outer: &GmRegion, inner: &GmRegion) -> bool {
    outer.tensor == inner.tensor
        && outer.offsets.iter().zip(&outer.shape).zip(inner.offsets.iter().zip(&inner.shape)).all(
            |((&outer_start, &outer_extent), (&inner_start, &inner_extent))| {
                outer_start <= inner_start && inner_start + inner_extent <= outer_start + outer_extent
            },
        )
}

/// The flags of `work`'s tasks over the stage workspaces `stage_tensors`, numbered from `first`.
pub(super) fn stage_flags(work: &TileWork, stage_tensors: &[TensorId], first: u32) -> StageFlags {
    let mut flags = StageFlags::default();
    if stage_tensors.is_empty() {
        return flags;
    }
    // Stores into stage workspaces per tensor: (task, region); and each task's last such store.
    let mut stores: HashMap<TensorId, Vec<(usize, GmRegion)>> = HashMap::new();
    let mut last_store: HashMap<usize, usize> = HashMap::new();
    let mut edges: HashSet<(usize, usize)> = HashSet::new();
    let mut next = first;
    for (task, unit) in work.units.iter().enumerate() {
        for (position, located) in unit.steps.iter().enumerate() {
            match &located.step {
                WorkStep::Load { region, .. } if stage_tensors.contains(&region.tensor) => {
                    let mut producers: Vec<usize> = stores
                        .get(&region.tensor)
                        .into_iter()
                        .flatten()
                        .filter(|(_, stored)| overlaps(stored, region))
                        .map(|(producer, _)| *producer)
                        .filter(|&producer| producer != task)
                        .collect();
                    producers.sort_unstable();
                    producers.dedup();
                    for producer in producers {
                        if !edges.insert((producer, task)) {
                            continue;
                        }
                        let flag = Flag(next);
                        next += 1;
                        flags.waits.entry((task, position)).or_default().push(flag);
                        flags.sets.entry((producer, last_store[&producer])).or_default().push(flag);
                    }
                }
                WorkStep::Store { region, .. } if stage_tensors.contains(&region.tensor) => {
                    // A store that covers an earlier one supersedes it: later readers wait for the
                    // newest writer only (which itself read or followed the older one).
                    let known = stores.entry(region.tensor).or_default();
                    known.retain(|(_, stored)| !contains(region, stored));
                    known.push((task, region.clone()));
                    last_store.insert(task, position);
                }
                _ => {}
            }
        }
    }
    flags.count = next - first;
    flags
}
