//! Spreading tasks over cores (DESIGN §3.1 step 3): a list scheduler that gives each task, in
//! program order, to the core of its kind with the least estimated work so far. Tasks of unequal
//! size (a ragged last tile, the cells a ragged tile skips) then balance instead of piling onto the
//! cores that a contiguous split would give them.

use super::program::GmRegion;
use super::work::{TileWork, WorkStep, WorkUnit};

/// Rough cycles of a unit, only to compare units with each other: bytes moved at 64 B/cycle, vector
/// elements at 64 per cycle (256 B of f32), cube work at 16·16·16 MACs per cycle, and a fixed cost
/// per step for issue and DMA start-up.
pub fn estimated_cycles(work: &TileWork, unit: &WorkUnit) -> u64 {
    let bytes = |region: &GmRegion| {
        let elements: usize = region.shape.iter().product();
        (elements * work.tensors[region.tensor.0 as usize].dtype.size_in_bytes()) as u64
    };
    let elements =
        |value: &crate::tile::ValueId| unit.values[value.0 as usize].valid_shape.iter().product::<usize>() as u64;
    let mut cycles = 0u64;
    for located in &unit.steps {
        cycles += 32;
        cycles += match &located.step {
            WorkStep::Load { region, .. } | WorkStep::Store { region, .. } => bytes(region) / 64,
            WorkStep::Unary { output, .. }
            | WorkStep::Binary { output, .. }
            | WorkStep::Clip { output, .. }
            | WorkStep::Cast { output, .. } => elements(output) / 64,
            WorkStep::Reduce { input, .. } => elements(input) / 64,
            WorkStep::Vector { op, output, .. } => elements(output) * op.passes() / 64,
            WorkStep::Matmul { a, output, a_transposed, .. } => {
                let a_shape = &unit.values[a.0 as usize].valid_shape;
                let k = if *a_transposed { a_shape[0] } else { a_shape.get(1).copied().unwrap_or(1) };
                elements(output) * k as u64 / 4096
            }
        };
    }
    cycles
}

/// Assigns `costs` (one per task, in program order) to at most `cores` cores: each task goes to
/// the core with the least work so far (the lowest index on a tie). Returns the task indices of
/// every core that got any, in program order.
pub fn assign(costs: &[u64], cores: usize) -> Vec<Vec<usize>> {
    assign_grouped(costs, &vec![None; costs.len()], cores)
}

/// Like [`assign`], but the tasks of one group (`groups[task]`, e.g. the tasks that read and write
/// one ordered workspace) all go to the core its first task got, so they run there in program order.
pub fn assign_grouped(costs: &[u64], groups: &[Option<usize>], cores: usize) -> Vec<Vec<usize>> {
    let laned: Vec<Option<(usize, usize)>> = groups.iter().map(|group| group.map(|group| (group, 1))).collect();
    assign_laned(costs, &laned, cores)
}

/// Like [`assign_grouped`], but a group `(group, lanes)` spreads over `lanes` cores: the least
/// loaded ones when its first task comes, which its tasks then take in turn (the two vector cores
/// that one cube core feeds on 910B, each taking every other row band).
pub fn assign_laned(costs: &[u64], groups: &[Option<(usize, usize)>], cores: usize) -> Vec<Vec<usize>> {
    let cores = cores.max(1).min(costs.len().max(1));
    let mut load = vec![0u64; cores];
    let mut tasks = vec![Vec::new(); cores];
    let mut group_cores: std::collections::HashMap<usize, (Vec<usize>, usize)> = std::collections::HashMap::new();
    for (task, &cost) in costs.iter().enumerate() {
        let mut by_load: Vec<usize> = (0..cores).collect();
        by_load.sort_by_key(|&core| (load[core], core));
        let core = match groups.get(task).copied().flatten() {
            Some((group, lanes)) => {
                let (lanes, turn) =
                    group_cores.entry(group).or_insert_with(|| (by_load[..lanes.clamp(1, cores)].to_vec(), 0));
                *turn += 1;
                lanes[(*turn - 1) % lanes.len()]
            }
            None => by_load[0],
        };
        load[core] += cost.max(1);
        tasks[core].push(task);
    }
    tasks.retain(|list| !list.is_empty());
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_stays_on_the_core_of_its_first_task() {
        let groups = [Some(7), None, Some(7), None, Some(7)];
        let assigned = assign_grouped(&[10; 5], &groups, 4);
        let core_of = |task: usize| assigned.iter().position(|list| list.contains(&task)).unwrap();
        assert_eq!(core_of(0), core_of(2));
        assert_eq!(core_of(0), core_of(4));
        assert_ne!(core_of(1), core_of(0), "ungrouped tasks still spread");
        assert!(assigned.iter().all(|list| list.windows(2).all(|pair| pair[0] < pair[1])), "program order");
    }

    #[test]
    fn a_laned_group_takes_its_two_cores_in_turn() {
        // Group 3 with two lanes starts on the two idle cores 0 and 1 and alternates between them;
        // the ungrouped task then goes to the least loaded core, 2.
        let groups = [Some((3, 2)), Some((3, 2)), Some((3, 2)), None];
        assert_eq!(assign_laned(&[10; 4], &groups, 3), vec![vec![0, 2], vec![1], vec![3]]);
    }

    #[test]
    fn equal_tasks_spread_one_per_core() {
        // Eight equal tasks on 48 cores: eight cores, one task each.
        let assigned = assign(&[10; 8], 48);
        assert_eq!(assigned.len(), 8);
        assert!(assigned.iter().all(|tasks| tasks.len() == 1));
    }

    #[test]
    fn small_tasks_fill_in_behind_large_ones() {
        // Costs 8, 8, 1, 1, 1, 1 on two cores: 8 → core 0, 8 → core 1, then the small ones
        // alternate (loads 9/9, 10/10), so both cores end with 10.
        let assigned = assign(&[8, 8, 1, 1, 1, 1], 2);
        assert_eq!(assigned, vec![vec![0, 2, 4], vec![1, 3, 5]]);
    }

    #[test]
    fn more_cores_than_tasks_uses_only_what_it_needs() {
        assert_eq!(assign(&[5, 5, 5], 24).len(), 3);
        assert_eq!(assign(&[], 4), Vec::<Vec<usize>>::new());
    }
}
