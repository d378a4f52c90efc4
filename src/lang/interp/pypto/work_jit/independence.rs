//! Units run in any order on any core: the GM accesses of a jit kernel's units must not depend on
//! each other's order.

use super::JitRecorder;
use crate::lang::interp::pypto::work_ops::Unsupported;
use crate::messages::CompilerReason;
use crate::tile::TensorId;

/// One GM access of a unit, for the independence check.
pub(super) struct Access {
    pub tensor: TensorId,
    pub offsets: Vec<usize>,
    pub shape: Vec<usize>,
    pub unit: usize,
    pub write: bool,
    pub accumulate: bool,
}

fn overlaps(a: &Access, b: &Access) -> bool {
    a.tensor == b.tensor
        && a.offsets
            .iter()
            .zip(&a.shape)
            .zip(b.offsets.iter().zip(&b.shape))
            .all(|((&a0, &an), (&b0, &bn))| a0 < b0 + bn && b0 < a0 + an)
}

/// The writes of one tensor sorted by their start on dim 0, for overlap queries that look only
/// at writes whose dim-0 extent can reach the queried one (a kernel with 10⁵ iterations has 10⁵
/// writes; comparing every pair would be quadratic).
struct WriteIndex<'a> {
    writes: Vec<(usize, &'a Access)>,
    longest: usize,
}

impl<'a> WriteIndex<'a> {
    fn new(writes: impl Iterator<Item = (usize, &'a Access)>) -> WriteIndex<'a> {
        let mut writes: Vec<(usize, &Access)> = writes.collect();
        writes.sort_by_key(|(position, access)| (start(access), *position));
        let longest = writes.iter().map(|(_, access)| extent(access)).max().unwrap_or(0);
        WriteIndex { writes, longest }
    }

    /// The writes (with their program positions) that overlap `access`.
    fn overlapping<'b>(&'b self, access: &'b Access) -> impl Iterator<Item = (usize, &'a Access)> + 'b {
        let from = start(access).saturating_sub(self.longest);
        let until = start(access) + extent(access);
        let first = self.writes.partition_point(|(_, write)| start(write) < from);
        self.writes[first..]
            .iter()
            .take_while(move |(_, write)| start(write) < until.max(start(access) + 1))
            .filter(move |(_, write)| overlaps(access, write))
            .copied()
    }
}

fn start(access: &Access) -> usize {
    access.offsets.first().copied().unwrap_or(0)
}

fn extent(access: &Access) -> usize {
    access.shape.first().copied().unwrap_or(1)
}

impl JitRecorder<'_> {
    /// Units run in any order on any core: a unit may not read what another unit writes, nor read
    /// back what it wrote itself (the copy out and a later copy in are not ordered). Units that
    /// write the same elements of a tensor with plain stores (each iteration overwriting the whole
    /// output, as pypto's loop examples do) keep their program order instead: the tensors returned
    /// are ordered like the kernel's own workspaces — every task touching one runs on one core, in
    /// program order, so its stores leave the last iteration's values, as the loop does.
    pub(super) fn check_independent(&self) -> Result<Vec<TensorId>, Unsupported> {
        use std::collections::HashMap;
        // The kernel's own workspaces are ordered: their tasks run on one core in program order.
        let accesses: Vec<&Access> =
            self.accesses.iter().filter(|access| !self.ordered.contains(&access.tensor)).collect();
        // Per tensor, in the order tensors are first accessed (so the error named is the same on
        // every run).
        let mut order: Vec<TensorId> = Vec::new();
        let mut by_tensor: HashMap<TensorId, Vec<(usize, &Access)>> = HashMap::new();
        for (position, access) in accesses.iter().enumerate() {
            let entry = by_tensor.entry(access.tensor).or_default();
            if entry.is_empty() {
                order.push(access.tensor);
            }
            entry.push((position, access));
        }
        let mut serialized = Vec::new();
        for tensor in &order {
            let tensor_accesses = &by_tensor[tensor];
            let name = &self.tensors[tensor.0 as usize].name;
            let writes = WriteIndex::new(tensor_accesses.iter().copied().filter(|(_, access)| access.write));
            for &(position, read) in tensor_accesses.iter().filter(|(_, access)| !access.write) {
                let clash = writes
                    .overlapping(read)
                    .filter(|(other, write)| write.unit != read.unit || *other < position)
                    .min_by_key(|(other, _)| *other);
                if let Some((_, write)) = clash {
                    return Err(Unsupported::new(
                        CompilerReason::IterationsOverlap { name: name.clone(), reader: read.unit, writer: write.unit },
                        None,
                    ));
                }
            }
            // Two units writing the same elements race, unless both add into them: every race
            // involves a plain (not accumulating) write; racing units are put in program order.
            let plain = WriteIndex::new(
                tensor_accesses.iter().copied().filter(|(_, access)| access.write && !access.accumulate),
            );
            let racing = tensor_accesses
                .iter()
                .filter(|(_, access)| access.write)
                .any(|&(_, first)| plain.overlapping(first).any(|(_, second)| second.unit != first.unit));
            if racing {
                serialized.push(*tensor);
            }
        }
        Ok(serialized)
    }
}
