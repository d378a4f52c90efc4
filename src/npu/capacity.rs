//! The capacity side of a plan's checks: the bytes a buffer occupies, each memory's occupancy, the
//! capacity check (with the largest tile that would fit) and the alignment of buffers and views.

use std::collections::BTreeMap;

use crate::tile::{grouped_bytes, Buffer, Memory, TileProgram};

use super::config::NpuConfig;
use super::error::{NpuError, Result};
use crate::messages::AlignmentDetail;

/// Bytes a buffer occupies: its last dim padded to the memory's alignment per row (a last dim of 1,
/// one value per row, takes one aligned block per row), the total rounded up to the alignment.
pub fn buffer_bytes(buffer: &Buffer, config: &NpuConfig) -> u64 {
    buffer.bytes(config.alignment(buffer.memory))
}

/// Bytes per on-core memory for one program: its buffers of group 0 are live for the whole
/// program, and the other groups take turns in the same memory (`Buffer::group`).
pub fn occupancy(program: &TileProgram, config: &NpuConfig) -> BTreeMap<Memory, u64> {
    let mut memories: Vec<Memory> = program.buffers.iter().map(|buffer| buffer.memory).collect();
    memories.sort_unstable();
    memories.dedup();
    let in_memory = |memory: Memory| program.buffers.iter().filter(move |buffer| buffer.memory == memory);
    memories.into_iter().map(|memory| (memory, grouped_bytes(in_memory(memory), config.alignment(memory)))).collect()
}

/// The buffers of `memory` live at its peak: those of group 0 and of its largest other group.
fn peak_buffers<'a>(program: &'a TileProgram, memory: Memory, config: &NpuConfig) -> Vec<&'a Buffer> {
    let in_memory: Vec<&Buffer> = program.buffers.iter().filter(|buffer| buffer.memory == memory).collect();
    let mut groups: Vec<u32> = in_memory.iter().map(|buffer| buffer.group).filter(|&group| group != 0).collect();
    groups.sort_unstable();
    groups.dedup();
    let group_bytes = |group: u32| -> u64 {
        in_memory.iter().filter(|buffer| buffer.group == group).map(|buffer| buffer_bytes(buffer, config)).sum()
    };
    // The first of the largest groups (a stable choice when two are as large).
    let peak = groups.into_iter().rev().max_by_key(|&group| group_bytes(group)).unwrap_or(0);
    in_memory.into_iter().filter(|buffer| buffer.group == 0 || buffer.group == peak).collect()
}

pub(super) fn check_capacity(program: &TileProgram, config: &NpuConfig) -> Result<()> {
    for (memory, bytes) in occupancy(program, config) {
        let capacity = config.capacity(memory);
        if bytes <= capacity {
            continue;
        }
        // The biggest tile shape in this memory is the one to shrink; its copies (n-buffer slots,
        // several inputs) shrink together because one source line set them all.
        let in_memory = peak_buffers(program, memory, config);
        let culprit = in_memory
            .iter()
            .max_by_key(|buffer| buffer_bytes(buffer, config))
            .copied()
            .expect("a memory with bytes has a buffer");
        let same: Vec<&Buffer> = in_memory.iter().filter(|buffer| buffer.shape == culprit.shape).copied().collect();
        let others: u64 = in_memory
            .iter()
            .filter(|buffer| buffer.shape != culprit.shape)
            .map(|buffer| buffer_bytes(buffer, config))
            .sum();
        let largest_tile = largest_fitting(&same, capacity.saturating_sub(others), config);
        return Err(NpuError::CapacityExceeded {
            memory: memory.name(),
            bytes,
            capacity,
            buffer: culprit.name.clone(),
            tile: culprit.shape.to_vec(),
            largest_tile,
            source_line: culprit.source_line,
        });
    }
    Ok(())
}

/// The largest shape (fewest rows removed, then aligned columns removed) whose copies fit `room`.
fn largest_fitting(same: &[&Buffer], room: u64, config: &NpuConfig) -> Option<Vec<usize>> {
    let template = same[0];
    let fits = |shape: &[usize]| {
        let total: u64 = same
            .iter()
            .map(|buffer| {
                buffer_bytes(&Buffer { shape: crate::tile::Dims::from(&*shape), ..(*buffer).clone() }, config)
            })
            .sum();
        total <= room
    };
    let mut shape = template.shape.clone();
    if shape.is_empty() {
        return None;
    }
    if shape.len() >= 2 {
        // Binary search the leading dim.
        let (mut low, mut high) = (0usize, shape[0]);
        while low < high {
            let middle = (low + high).div_ceil(2);
            shape[0] = middle;
            if fits(&shape) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        if low > 0 {
            shape[0] = low;
            return Some(shape.to_vec());
        }
        shape[0] = 1;
    }
    let last = shape.len() - 1;
    let step = (config.alignment(template.memory) as usize / template.dtype.size_in_bytes()).max(1);
    let mut columns = shape[last] / step * step;
    while columns >= step {
        shape[last] = columns;
        if fits(&shape) {
            return Some(shape.to_vec());
        }
        columns -= step;
    }
    None
}

pub(super) fn check_alignment(program: &TileProgram, config: &NpuConfig) -> Result<()> {
    for buffer in &program.buffers {
        let misaligned = |detail: AlignmentDetail| {
            Err(NpuError::Misaligned {
                memory: buffer.memory.name(),
                buffer: buffer.name.clone(),
                detail,
                source_line: buffer.source_line,
            })
        };
        let size = buffer.dtype.size_in_bytes();
        match buffer.memory {
            Memory::Ub | Memory::L1 => {
                if buffer.shape.len() > 4 {
                    return misaligned(AlignmentDetail::TooManyDims { dims: buffer.shape.len() });
                }
                let last = buffer.shape.last().copied().unwrap_or(1);
                let alignment = config.alignment(buffer.memory) as usize;
                if last != 1 && (last * size) % alignment != 0 {
                    let step = alignment / size.min(alignment);
                    return misaligned(AlignmentDetail::LastDim { last, bytes: last * size, alignment, step });
                }
            }
            Memory::L0A | Memory::L0B | Memory::L0C => {
                // Cube operands are stored as 16×16 fractals.
                if buffer.shape.len() != 2 || buffer.shape.iter().any(|dim| dim % 16 != 0) {
                    return misaligned(AlignmentDetail::CubeFractal { shape: buffer.shape.to_vec() });
                }
            }
            Memory::Gm => return misaligned(AlignmentDetail::InGm),
        }
    }
    Ok(())
}
