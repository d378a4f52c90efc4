//! The state of one core's program while units are lowered into it: the emitter, the UB buffers
//! (one per value slot and n-buffer copy) and the rotating cube buffers.

use crate::tile::fast_hash::FastMap;

use crate::tensor::DType;

use super::super::program::TensorId;
use super::super::program::{BufferId, Flag, GmRegion, Memory};
use super::super::work::{TileWork, WorkSettings, WorkStep};
use super::emitter::Emitter;
use super::stage_flags::StageFlags;

/// Which part of each unit a program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// Everything (a coupled core has both units).
    Coupled,
    /// Matmuls only (a cube core of a split chip).
    Cube,
    /// Everything but matmuls (a vector core of a split chip).
    Vector,
}

/// A tile passed between the cube and vector sides through GM: a cube result read by vector
/// steps on a split chip, or a UB tile read by a matmul (any chip). The writer sets the
/// cross-core flag (split chips only) when the region is complete; the reader's copy-in waits on it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Handoff {
    /// The workspace region.
    pub region: GmRegion,
    /// The cross-core flag (`None` when writer and reader share a core, where data dependencies suffice).
    pub flag: Option<Flag>,
}

/// A cube staging ring: its role, tile shape and dtype.
type RingKey = (&'static str, crate::tile::Dims, DType);

/// A UB buffer's dtype, value slot, whether a copy fills it, n-buffer copy and UB group (its shape
/// aside).
type UbSlotKey = (DType, usize, bool, usize, u32);

/// One core's program under construction.
pub(super) struct CoreState<'a> {
    /// The instructions and their flags.
    pub emitter: Emitter,
    /// The kernel's work.
    pub work: &'a TileWork,
    /// The part of each unit this core runs.
    pub side: Side,
    /// Units lowered so far on this core (picks the n-buffer copy).
    pub units_done: usize,
    /// The index of the unit being lowered (orders its accumulating stores).
    pub unit: usize,
    /// The cross-core flags that order the tasks of split stages.
    pub stage_flags: &'a StageFlags,
    /// L0A and L0B capacity in bytes.
    pub l0_bytes: [u64; 2],
    ub_buffers: FastMap<UbSlotKey, Vec<(crate::tile::Dims, BufferId)>>,
    /// The UB group of the unit being lowered (`Buffer::group`) and the line that set its tile.
    ub_group: u32,
    ub_line: Option<u32>,
    rings: FastMap<RingKey, (Vec<BufferId>, usize)>,
    /// The GM region each L1 slot last received from a tensor nothing in the kernel writes.
    l1_holds: FastMap<BufferId, GmRegion>,
    /// Whether a tensor is only read by the kernel (computed once per tensor).
    read_only: FastMap<TensorId, bool>,
}

impl<'a> CoreState<'a> {
    /// An empty program for `side`.
    pub(super) fn new(work: &'a TileWork, side: Side, stage_flags: &'a StageFlags, l0_bytes: [u64; 2]) -> Self {
        CoreState {
            stage_flags,
            l0_bytes,
            emitter: Emitter::with_views(&work.views),
            work,
            side,
            units_done: 0,
            unit: 0,
            ub_buffers: FastMap::default(),
            ub_group: 0,
            ub_line: work.settings.vec_tile_line,
            rings: FastMap::default(),
            l1_holds: FastMap::default(),
            read_only: FastMap::default(),
        }
    }

    /// The settings of the kernel.
    pub(super) fn settings(&self) -> &WorkSettings {
        &self.work.settings
    }

    /// The UB buffer of value slot `slot` of `shape`/`dtype` in n-buffer copy `copy`, among the
    /// copy-filled tiles (`filled_by_copy`) or the others. Units use copy `unit % vec_buffers`, so
    /// with two copies unit i+1 loads into the copy unit i does not use.
    pub(super) fn ub_buffer(
        &mut self,
        shape: &[usize],
        dtype: DType,
        slot: usize,
        filled_by_copy: bool,
        copy: usize,
    ) -> BufferId {
        // Found by dtype, slot, role and copy, then by shape (a handful): no key to allocate.
        let key = (dtype, slot, filled_by_copy, copy, self.ub_group);
        let known = self.ub_buffers.get(&key).into_iter().flatten();
        if let Some((_, buffer)) = known.into_iter().find(|(known_shape, _)| known_shape == shape) {
            return *buffer;
        }
        let role = if filled_by_copy { "in" } else { "ub" };
        let name = format!(
            "{role}{slot}_{}_{}_{copy}",
            dtype.short_name(),
            shape.iter().map(usize::to_string).collect::<Vec<_>>().join("x")
        );
        // The first group's buffers keep their plain names; the others are told apart.
        let name = if self.ub_group > 1 { format!("{name}_g{}", self.ub_group) } else { name };
        let buffer = self.emitter.grouped_buffer(&name, Memory::Ub, shape, dtype, self.ub_line, self.ub_group);
        self.ub_buffers.entry(key).or_default().push((crate::tile::Dims::from(shape), buffer));
        buffer
    }

    /// Lowers the next units in UB group `group`, whose tile `line` set: when it differs from the
    /// last unit's, its buffers take the memory of the other groups' (the emitter orders their
    /// accesses).
    pub(super) fn enter_ub_group(&mut self, group: u32, line: Option<u32>) {
        self.ub_line = line;
        if group != self.ub_group {
            self.ub_group = group;
            self.emitter.enter_group(group);
        }
    }

    /// The next buffer of the `count`-slot ring `role` (cube staging: L1, L0A, L0B, L0C).
    pub(super) fn ring_buffer(
        &mut self,
        role: &'static str,
        memory: Memory,
        shape: &[usize],
        dtype: DType,
        count: usize,
        line: Option<u32>,
    ) -> BufferId {
        let key = (role, crate::tile::Dims::from(shape), dtype);
        if !self.rings.contains_key(&key) {
            let slots = (0..count.max(1))
                .map(|slot| self.emitter.buffer(&format!("{role}_{slot}"), memory, shape, dtype, line))
                .collect();
            self.rings.insert(key.clone(), (slots, 0));
        }
        let (slots, turn) = self.rings.get_mut(&key).expect("inserted above");
        let buffer = slots[*turn % slots.len()];
        *turn += 1;
        buffer
    }

    /// The L1 slot that already holds `region` (an operand kept resident across matmuls, as FA
    /// keeps its q tile across the key blocks): the slot `role`'s ring handed out last, when its
    /// last copy brought exactly this region of a tensor the kernel never writes. No copy is
    /// needed then, and the ring does not turn.
    pub(super) fn resident_l1(
        &self,
        role: &'static str,
        shape: &[usize],
        dtype: DType,
        region: &GmRegion,
    ) -> Option<BufferId> {
        let (slots, turn) = self.rings.get(&(role, crate::tile::Dims::from(shape), dtype))?;
        let last = slots[(turn + slots.len() - 1) % slots.len()];
        (*turn > 0 && self.l1_holds.get(&last) == Some(region)).then_some(last)
    }

    /// Records what a copy into the L1 slot `buffer` brought: kept only for read-only tensors.
    pub(super) fn loaded_l1(&mut self, buffer: BufferId, region: &GmRegion) {
        let tensor = region.tensor;
        let work = self.work;
        let read_only = *self.read_only.entry(tensor).or_insert_with(|| {
            let original = (tensor.0 as usize) < work.tensors.len();
            let viewed = work.views.iter().any(|view| view.tensor == tensor || view.base == tensor);
            let stored = work
                .units
                .iter()
                .flat_map(|unit| &unit.steps)
                .any(|located| matches!(&located.step, WorkStep::Store { region, .. } if region.tensor == tensor));
            original && !viewed && !stored && !work.ordered.contains(&tensor)
        });
        if read_only {
            self.l1_holds.insert(buffer, region.clone());
        } else {
            self.l1_holds.remove(&buffer);
        }
    }
}
