//! Dependencies through GM at region granularity: a copy-in waits only for earlier copy-outs whose
//! region overlaps its own (and a copy-out also for overlapping copy-ins), so an in-place kernel
//! that loads tile i+1 of a tensor while tile i is stored back keeps its double buffering.
//!
//! Each tensor remembers its last `TRACKED` reads and writes. An access pushed out of that window
//! still counts, conservatively, as overlapping everything: by then it finished long ago, so the
//! extra dependency costs nothing, and no dependency is ever lost.

use std::collections::VecDeque;

use crate::tile::fast_hash::FastMap;

use super::super::program::TensorId;

/// A part of a GM tensor: the tensor, offsets and shape (no offsets: all of it).
pub(super) type Region<'a> = (TensorId, &'a [usize], &'a [usize]);

/// Accesses remembered per tensor and kind.
const TRACKED: usize = 64;

#[derive(Default)]
struct GmAccess {
    index: usize,
    pipe: usize,
    offsets: Vec<usize>,
    shape: Vec<usize>,
}

#[derive(Default)]
struct TensorAccesses {
    writes: VecDeque<GmAccess>,
    reads: VecDeque<GmAccess>,
    forgotten_writes: [Option<usize>; 7],
    forgotten_reads: [Option<usize>; 7],
}

/// The GM accesses of one program so far.
#[derive(Default)]
pub(super) struct GmTracker {
    tensors: FastMap<u32, TensorAccesses>,
}

/// Whether two regions share an element; regions of different ranks (a whole-tensor access has
/// rank 0 here) are taken to overlap.
fn overlaps(offsets: &[usize], shape: &[usize], other_offsets: &[usize], other_shape: &[usize]) -> bool {
    if offsets.len() != other_offsets.len() || offsets.is_empty() {
        return true;
    }
    (0..offsets.len()).all(|dim| {
        offsets[dim] < other_offsets[dim] + other_shape[dim] && other_offsets[dim] < offsets[dim] + shape[dim]
    })
}

impl GmTracker {
    /// Calls `note` with every earlier instruction an access of `region` must follow: overlapping
    /// writes, and for a write also overlapping reads.
    pub(super) fn producers(&self, region: Region<'_>, write: bool, mut note: impl FnMut(usize)) {
        let (tensor, offsets, shape) = region;
        let Some(accesses) = self.tensors.get(&tensor.0) else { return };
        let mut scan = |list: &VecDeque<GmAccess>, forgotten: &[Option<usize>; 7]| {
            forgotten.iter().flatten().for_each(|index| note(*index));
            for access in list {
                if overlaps(offsets, shape, &access.offsets, &access.shape) {
                    note(access.index);
                }
            }
        };
        scan(&accesses.writes, &accesses.forgotten_writes);
        if write {
            scan(&accesses.reads, &accesses.forgotten_reads);
        }
    }

    /// Remembers that instruction `index` on `pipe` read or wrote `region`.
    pub(super) fn record(&mut self, region: Region<'_>, write: bool, index: usize, pipe: usize) {
        let (tensor, offsets, shape) = region;
        let accesses = self.tensors.entry(tensor.0).or_default();
        let (list, forgotten) = if write {
            (&mut accesses.writes, &mut accesses.forgotten_writes)
        } else {
            (&mut accesses.reads, &mut accesses.forgotten_reads)
        };
        // A full window forgets its oldest access, whose vectors then hold the new one.
        let mut access = match list.len() >= TRACKED {
            true => {
                let old = list.pop_front().expect("a full window");
                // The newest forgotten access per pipe is enough: on one pipe it implies the older ones.
                forgotten[old.pipe] = Some(forgotten[old.pipe].map_or(old.index, |known| known.max(old.index)));
                old
            }
            false => GmAccess::default(),
        };
        (access.index, access.pipe) = (index, pipe);
        access.offsets.clear();
        access.offsets.extend_from_slice(offsets);
        access.shape.clear();
        access.shape.extend_from_slice(shape);
        list.push_back(access);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::GmRegion;

    fn view(region: &GmRegion) -> Region<'_> {
        (region.tensor, &region.offsets, &region.shape)
    }

    fn region(row: usize) -> GmRegion {
        GmRegion { tensor: TensorId(0), offsets: [row, 0].into(), shape: [16, 64].into() }
    }

    fn producers(tracker: &GmTracker, region: &GmRegion, write: bool) -> Vec<usize> {
        let mut found = Vec::new();
        tracker.producers(view(region), write, |index| found.push(index));
        found.sort_unstable();
        found
    }

    #[test]
    fn only_overlapping_accesses_order_and_forgotten_ones_still_count() {
        let mut tracker = GmTracker::default();
        tracker.record(view(&region(0)), true, 0, 5);
        tracker.record(view(&region(16)), false, 1, 0);
        // Rows 8..24 overlap the write of rows 0..16 and the read of rows 16..32.
        let middle = GmRegion { tensor: TensorId(0), offsets: [8, 0].into(), shape: [16, 64].into() };
        assert_eq!(producers(&tracker, &middle, false), vec![0], "a read follows overlapping writes only");
        assert_eq!(producers(&tracker, &middle, true), vec![0, 1], "a write also follows overlapping reads");
        assert!(producers(&tracker, &region(32), true).is_empty());
        // Push the first write out of the window: it then counts as overlapping everything.
        for step in 0..TRACKED {
            tracker.record(view(&region(1000 + 16 * step)), true, 2 + step, 5);
        }
        assert!(producers(&tracker, &region(32), false).contains(&0));
    }
}
