//! The kernels compiled and simulated last. Lowering a tile work and simulating its plan are pure
//! functions of the work and the chip, so a call that captures the same work for the same chip as
//! a recent one — a cell run again, `pypto.schedule(k, x)` then `k(x)`, one forward under two
//! autodiff policies — takes that plan and schedule instead of compiling and simulating again.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::npu::{NpuConfig, Simulation};
use crate::tile::{KernelPlan, TileWork};

/// How many compiled kernels are kept (the plans are the memory they cost: the schedules are
/// shared with the cells that show them).
const KEPT: usize = 4;

struct Entry {
    work: TileWork,
    config: NpuConfig,
    plan: Rc<KernelPlan>,
    simulation: Rc<Simulation>,
}

thread_local! {
    static RECENT: RefCell<VecDeque<Entry>> = const { RefCell::new(VecDeque::new()) };
}

/// The plan and schedule of `work` on `config` if it was compiled recently (it becomes the most
/// recent).
pub(crate) fn find(work: &TileWork, config: &NpuConfig) -> Option<(Rc<KernelPlan>, Rc<Simulation>)> {
    RECENT.with_borrow_mut(|recent| {
        let index = recent.iter().position(|entry| entry.config == *config && entry.work == *work)?;
        let entry = recent.remove(index)?;
        let found = (entry.plan.clone(), entry.simulation.clone());
        recent.push_front(entry);
        Some(found)
    })
}

/// Keeps a compiled kernel, forgetting the least recent one past [`KEPT`].
pub(crate) fn remember(work: &TileWork, config: &NpuConfig, plan: &Rc<KernelPlan>, simulation: &Rc<Simulation>) {
    RECENT.with_borrow_mut(|recent| {
        recent.push_front(Entry {
            work: work.clone(),
            config: config.clone(),
            plan: plan.clone(),
            simulation: simulation.clone(),
        });
        recent.truncate(KEPT);
    });
}

#[cfg(test)]
#[path = "recent_plans_tests.rs"]
mod tests;
