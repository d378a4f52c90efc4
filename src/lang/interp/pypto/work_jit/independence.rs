//! Units run in any order on any core: the GM accesses of a jit kernel's units must not depend on
//! each other's order.

use super::JitRecorder;
use crate::lang::interp::pypto::work_ops::Unsupported;
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

impl JitRecorder<'_> {
    /// Units run in any order on any core: a unit may not read what another unit writes, nor read
    /// back what it wrote itself (the copy out and a later copy in are not ordered).
    pub(super) fn check_independent(&self) -> Result<(), Unsupported> {
        // The kernel's own workspaces are ordered: their tasks run on one core in program order.
        let accesses: Vec<&Access> =
            self.accesses.iter().filter(|access| !self.ordered.contains(&access.tensor)).collect();
        let written: std::collections::HashSet<TensorId> =
            accesses.iter().filter(|access| access.write).map(|access| access.tensor).collect();
        for (position, read) in
            accesses.iter().enumerate().filter(|(_, access)| !access.write && written.contains(&access.tensor))
        {
            let clash = accesses.iter().enumerate().find(|(other, write)| {
                write.write && overlaps(read, write) && (write.unit != read.unit || *other < position)
            });
            if let Some((_, write)) = clash {
                let name = &self.tensors[read.tensor.0 as usize].name;
                return Err(Unsupported::new(
                    format!("iteration {} reads a region of `{name}` that iteration {} writes", read.unit, write.unit),
                    None,
                ));
            }
        }
        // Two units writing the same elements race, unless both add into them.
        let writes: Vec<&&Access> = accesses.iter().filter(|access| access.write).collect();
        for (position, first) in writes.iter().enumerate() {
            if let Some(second) = writes[position + 1..].iter().find(|second| {
                second.unit != first.unit && overlaps(first, second) && !(first.accumulate && second.accumulate)
            }) {
                let name = &self.tensors[first.tensor.0 as usize].name;
                return Err(Unsupported::new(
                    format!("iterations {} and {} write the same region of `{name}`", first.unit, second.unit),
                    None,
                ));
            }
        }
        Ok(())
    }
}
