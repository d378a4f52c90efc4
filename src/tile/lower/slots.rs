//! UB slots of a unit's values, decided before anything is emitted. A value takes a free slot of
//! its shape and dtype when it is produced and gives it back after its last read (see `unit`). The
//! slots depend on the unit alone, so the UB a core needs follows from its units without lowering
//! them: [`core_ub_bytes`] tells whether separate copy and compute slots fit before the lowering
//! chooses between them.

use std::collections::BTreeSet;

use crate::tile::fast_hash::{FastMap, FastSet};

use crate::tensor::DType;

use super::super::program::{grouped_bytes, Buffer, Memory};
use super::super::work::{ValueId, WorkStep, WorkUnit};
use super::analysis::UnitFacts;

/// Shape, dtype, and whether the tile is filled by a copy (loads, cube results) while the lowering
/// keeps those apart from computed tiles (not `in_place`).
pub(super) type SlotKey = (crate::tile::Dims, DType, bool);

/// A value's slot: its key and its index among the slots of that key.
pub(super) type Slot = (SlotKey, usize);

/// Free slots per [`SlotKey`] for one unit.
#[derive(Default)]
struct SlotAllocator {
    free: FastMap<SlotKey, BTreeSet<usize>>,
    next: FastMap<SlotKey, usize>,
}

impl SlotAllocator {
    fn take(&mut self, key: &SlotKey) -> usize {
        if let Some(slot) = self.free.get_mut(key).and_then(|free| free.pop_first()) {
            return slot;
        }
        let next = self.next.entry(key.clone()).or_insert(0);
        *next += 1;
        *next - 1
    }

    fn give_back(&mut self, key: SlotKey, slot: usize) {
        self.free.entry(key).or_default().insert(slot);
    }
}

/// The UB slot of each value of `unit` (`None` for a value without a UB tile), as the vector side
/// of a core places them: inputs read for the last time give their slot back before the step's
/// output takes one (so the output may reuse it), and an output nobody reads gives it back at once.
pub(super) fn assign_slots(unit: &WorkUnit, facts: &UnitFacts, in_place: bool) -> Vec<Option<Slot>> {
    let key = |value: ValueId| -> SlotKey {
        let tile = &unit.values[value.0 as usize];
        let filled_by_copy = matches!(
            unit.steps[facts.producer[value.0 as usize]].step,
            WorkStep::Load { .. } | WorkStep::Matmul { .. }
        );
        (tile.shape.clone(), tile.dtype, filled_by_copy && !in_place)
    };
    let mut allocator = SlotAllocator::default();
    let mut slots: Vec<Option<Slot>> = vec![None; unit.values.len()];
    for (position, located) in unit.steps.iter().enumerate() {
        let (reads, written) = located.step.values();
        for value in &reads {
            if facts.last_ub_use[value.0 as usize] == Some(position) {
                if let Some((slot_key, slot)) = &slots[value.0 as usize] {
                    allocator.give_back(slot_key.clone(), *slot);
                }
            }
        }
        let Some(value) = written.filter(|value| facts.in_ub[value.0 as usize]) else { continue };
        let slot_key = key(value);
        let slot = allocator.take(&slot_key);
        if facts.last_ub_use[value.0 as usize].is_none() {
            allocator.give_back(slot_key.clone(), slot);
        }
        slots[value.0 as usize] = Some((slot_key, slot));
    }
    slots
}

/// The UB bytes of a vector-side core running units with `unit_slots`, each in its n-buffer copy
/// (unit i of a core is in copy `i % vec_buffers`) and UB group (`Buffer::group`): one buffer per
/// distinct (slot, copy, group), each at its allocation size, the groups sharing their memory.
pub(super) fn core_ub_bytes<'a>(
    unit_slots: impl Iterator<Item = (&'a [Option<Slot>], usize, u32)>,
    alignment: u64,
) -> u64 {
    let mut distinct: FastSet<(&'a Slot, usize, u32)> = FastSet::default();
    for (slots, copy, group) in unit_slots {
        distinct.extend(slots.iter().flatten().map(|slot| (slot, copy, group)));
    }
    let buffers: Vec<Buffer> = distinct
        .into_iter()
        .map(|(((shape, dtype, _), _), _, group)| Buffer {
            name: String::new(),
            memory: Memory::Ub,
            shape: shape.clone(),
            dtype: *dtype,
            source_line: None,
            group,
        })
        .collect();
    grouped_bytes(buffers.iter(), alignment)
}
