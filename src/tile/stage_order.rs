//! The order in which the stage units of split units are issued (see `stages`): tasks run in
//! this order on every core, so it is where the software pipelining of flash attention comes from.

use std::collections::HashSet;

use super::program::TensorId;
use super::work::{WorkStep, WorkUnit};

/// The tensors a unit loads from and stores into.
fn touched(unit: &WorkUnit) -> (HashSet<TensorId>, HashSet<TensorId>) {
    let (mut loads, mut stores) = (HashSet::new(), HashSet::new());
    for located in &unit.steps {
        match &located.step {
            WorkStep::Load { region, .. } => loads.insert(region.tensor),
            WorkStep::Store { region, .. } => stores.insert(region.tensor),
            _ => false,
        };
    }
    (loads, stores)
}

/// Whether `unit` may run before `others`: it reads nothing they write and writes nothing they touch.
fn independent(unit: &WorkUnit, others: &[WorkUnit]) -> bool {
    let (loads, stores) = touched(unit);
    others.iter().all(|other| {
        let (other_loads, other_stores) = touched(other);
        loads.is_disjoint(&other_stores) && stores.is_disjoint(&other_stores) && stores.is_disjoint(&other_loads)
    })
}

/// The units in the order they are issued, from the parts of each original unit (its stages, or
/// itself). A split unit's first two stages (the next `q·k_jᵀ` on the cube and its softmax on the
/// vector cores) are issued before the previous split unit's later stages when they are
/// independent of them, so the cube computes the next scores and the vector cores the next
/// softmax while the previous block's `p·v` and output update finish — the software pipelining
/// of flash attention on 910B, one block in flight ahead.
pub(super) fn pipeline_order(per_unit: Vec<Vec<WorkUnit>>) -> Vec<WorkUnit> {
    let mut order = Vec::new();
    let mut tail: Vec<WorkUnit> = Vec::new();
    for mut parts in per_unit {
        let mut ahead = 0;
        while ahead < 2 && ahead + 1 < parts.len() && independent(&parts[ahead], &tail) {
            ahead += 1;
        }
        let rest = parts.split_off(ahead);
        order.extend(parts);
        order.append(&mut tail);
        if ahead == 0 {
            order.extend(rest);
        } else {
            tail = rest;
        }
    }
    order.append(&mut tail);
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DType;
    use crate::tile::{GmRegion, LocatedStep, TileValue, ValueId};

    fn region(tensor: u32) -> GmRegion {
        GmRegion { tensor: TensorId(tensor), offsets: [0, 0].into(), shape: [16, 16].into() }
    }

    /// A unit that loads `load` and stores `store` (tensor ids), named by `tag` in its vec tile.
    fn part(tag: usize, load: u32, store: u32) -> WorkUnit {
        WorkUnit {
            values: vec![TileValue { shape: [16, 16].into(), valid_shape: [16, 16].into(), dtype: DType::F16 }],
            steps: vec![
                LocatedStep { step: WorkStep::Load { region: region(load), output: ValueId(0) }, line: None },
                LocatedStep {
                    step: WorkStep::Store { input: ValueId(0), region: region(store), accumulate: false },
                    line: None,
                },
            ],
            vec_tile: Some(vec![tag]),
        }
    }

    #[test]
    fn the_next_units_first_two_stages_are_issued_before_the_last_units_tail() {
        // Units n = 0, 1 of four stages each: A_n reads input 0 and writes s_n, B_n reads s_n and
        // writes the running state 9 (read and written by B of every unit), C_n and D_n write their
        // own tensors. A_1 and B_1 are independent of C_0 and D_0, so the order is A0 B0 A1 B1 C0 D0
        // C1 D1. A third unit whose first stage reads D_1's output waits for the tail.
        let unit = |n: usize| {
            let base = 10 * (n as u32 + 1);
            vec![
                part(4 * n, 0, base),
                part(4 * n + 1, base, 9),
                part(4 * n + 2, base, base + 1),
                part(4 * n + 3, base + 1, base + 2),
            ]
        };
        let blocked = vec![part(8, 22, 30), part(9, 30, 31), part(10, 31, 32)];
        let order = pipeline_order(vec![unit(0), unit(1), blocked]);
        let tags: Vec<usize> = order.iter().map(|unit| unit.vec_tile.as_ref().unwrap()[0]).collect();
        assert_eq!(tags, [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 10]);
    }
}
