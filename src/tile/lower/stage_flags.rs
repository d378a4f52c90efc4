//! The order between the tasks of split stages (see `tile::stages`): a task that loads part of a
//! stage workspace waits for every earlier task that stored an overlapping part of it. Each such
//! pair is one cross-core flag, set by the producer's last workspace store and waited for by the
//! consumer's first load that overlaps it (a pipe's queue is in order, so its later loads follow).
//! The kernel's ordered workspaces (running statistics carried across loop iterations) are joined
//! the same way when a unit was split, since its stages may then run on the two vector cores that
//! one cube core feeds. Tasks run in program order on every core and every flag goes from a lower task index to a
//! higher one, so the waits cannot deadlock.

use crate::tile::fast_hash::{FastMap, FastSet};

use super::super::program::{Flag, GmRegion, TensorId};
use super::super::work::{TileWork, WorkStep};

/// Flags per (task, step): set when the step completes, or waited for before it starts.
#[derive(Default, Debug)]
pub(in crate::tile) struct StageFlags {
    /// Flags a store sets.
    pub sets: FastMap<(usize, usize), Vec<Flag>>,
    /// Flags a load waits for.
    pub waits: FastMap<(usize, usize), Vec<Flag>>,
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

/// The tensor whose memory each GM view of `work` shares (through views of views).
fn view_roots(work: &TileWork) -> FastMap<TensorId, TensorId> {
    work.views
        .iter()
        .map(|view| {
            let mut root = view.base;
            while let Some(next) = work.views.iter().find(|other| other.tensor == root) {
                root = next.base;
            }
            (view.tensor, root)
        })
        .collect()
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
    // A region through a view (no offsets: the whole base, see `through_views`) covers nothing surely.
    outer.tensor == inner.tensor
        && !outer.offsets.is_empty()
        && outer.offsets.len() == inner.offsets.len()
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
    let mut stores: FastMap<TensorId, Vec<(usize, GmRegion)>> = FastMap::default();
    let mut last_store: FastMap<usize, usize> = FastMap::default();
    let mut edges: FastSet<(usize, usize)> = FastSet::default();
    let mut next = first;
    let roots = view_roots(work);
    // An access through a view of a flagged tensor counts as an access of the whole tensor it views.
    let through_views = |region: &GmRegion| match roots.get(&region.tensor) {
        Some(&root) => GmRegion { tensor: root, offsets: Vec::new().into(), shape: Vec::new().into() },
        None => region.clone(),
    };
    let flagged = |region: &GmRegion| {
        stage_tensors.contains(&region.tensor) || stage_tensors.contains(&through_views(region).tensor)
    };
    for (task, unit) in work.units.iter().enumerate() {
        for (position, located) in unit.steps.iter().enumerate() {
            match &located.step {
                WorkStep::Load { region, .. } if flagged(region) => {
                    let region = &through_views(region);
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
                WorkStep::Store { region, .. } if flagged(region) => {
                    let region = &through_views(region);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DType;
    use crate::tile::{GmTensor, LocatedStep, TileValue, ValueId, WorkSettings, WorkUnit};

    fn region(row: usize, rows: usize) -> GmRegion {
        GmRegion { tensor: TensorId(0), offsets: [row, 0].into(), shape: [rows, 16].into() }
    }

    /// A task that loads `loads` and stores `stores` (row bands of the workspace).
    fn task(loads: &[(usize, usize)], stores: &[(usize, usize)]) -> WorkUnit {
        let value = TileValue { shape: [64, 16].into(), valid_shape: [64, 16].into(), dtype: DType::F32 };
        let mut steps = Vec::new();
        for (index, &(row, rows)) in loads.iter().enumerate() {
            steps.push(WorkStep::Load { region: region(row, rows), output: ValueId(index as u32) });
        }
        for &(row, rows) in stores {
            steps.push(WorkStep::Store { input: ValueId(0), region: region(row, rows), accumulate: false });
        }
        WorkUnit {
            values: vec![value; loads.len().max(1)],
            steps: steps.into_iter().map(|step| LocatedStep { step, line: None }).collect(),
            vec_tile: None,
        }
    }

    #[test]
    fn a_load_waits_once_for_each_earlier_task_that_stored_an_overlapping_part() {
        // Task 0 stores rows 0..64, task 1 rows 64..128; task 2 loads rows 32..96 twice and then
        // rows 0..16: it overlaps both producers, so two flags (numbered from 5), both waited at its
        // first load; its later loads of the same parts wait for nothing more (the pipe is in order).
        // Task 3 stores rows 0..64 again (superseding task 0), so task 4's load of rows 0..8 waits
        // for task 3 only.
        let units = vec![
            task(&[], &[(0, 64)]),
            task(&[], &[(64, 64)]),
            task(&[(32, 64), (32, 64), (0, 16)], &[]),
            task(&[], &[(0, 64)]),
            task(&[(0, 8)], &[]),
        ];
        let work = TileWork {
            name: "k".into(),
            tensors: vec![GmTensor { name: "ws".into(), shape: vec![128, 16], dtype: DType::F32 }],
            views: Vec::new(),
            ordered: Vec::new(),
            units,
            settings: WorkSettings::default(),
        };
        let flags = stage_flags(&work, &[TensorId(0)], 5);
        assert_eq!(flags.count, 3);
        assert_eq!(flags.waits_of(2, 0), vec![Flag(5), Flag(6)]);
        assert!(flags.waits_of(2, 1).is_empty() && flags.waits_of(2, 2).is_empty());
        assert_eq!(flags.sets_of(0, 0), vec![Flag(5)]);
        assert_eq!(flags.sets_of(1, 0), vec![Flag(6)]);
        assert_eq!(flags.waits_of(4, 0), vec![Flag(7)]);
        assert_eq!(flags.sets_of(3, 0), vec![Flag(7)]);
        // A tensor that is not a stage workspace gets no flags.
        assert_eq!(stage_flags(&work, &[], 0).count, 0);
    }
}
