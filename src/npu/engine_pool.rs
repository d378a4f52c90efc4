//! The GM transfers that share HBM: max-min fair rates, recomputed only when a transfer joins or
//! leaves. Between those moments every rate is constant, so the pool is brought up to date then
//! and its earliest finish is known without scanning the transfers at every event.

/// A transfer moving its bytes: first its L2 part (hits, writes into L2), sharing the aggregate
/// L2 bandwidth, then its HBM part (fetched lines), sharing HBM.
pub(super) struct Active {
    /// Its core.
    pub core: u32,
    /// Its pipe (`Pipe::index`).
    pub pipe: u8,
    /// Bytes left of the current part as of `Pool::updated`.
    remaining: f64,
    /// Its path's rate: it never moves faster.
    cap: f64,
    /// Its core's HBM rate: its HBM part never moves faster (nor faster than `cap`).
    hbm_cap: f64,
    rate: f64,
    /// Moving L2's part; else HBM's.
    in_l2: bool,
    /// Bytes that cross HBM once the L2 part is done.
    hbm_after: f64,
    /// A write-back of evicted dirty lines by L2 itself: it shares HBM, no pipe waits for it.
    pub background: bool,
}

/// The active transfers.
#[derive(Default)]
pub(super) struct Pool {
    active: Vec<Active>,
    /// The time at which every `remaining` holds.
    updated: f64,
    /// The earliest finish (time, index into `active`), set by `assign_rates`.
    next: Option<(f64, usize)>,
    /// The paths of the transfers moving HBM's part, then L2's (index `in_l2`).
    parts: [PartPaths; 2],
    scratch: Vec<bool>,
}

#[path = "engine_pool_paths.rs"]
mod paths;
use paths::PartPaths;

/// Bytes left below which a transfer counts as done (rounding of the rate arithmetic).
const DONE_BYTES: f64 = 1e-6;

impl Pool {
    /// The earliest finish: its time and the transfer's index.
    pub fn next(&self) -> Option<(f64, usize)> {
        self.next
    }

    /// Whether a transfer is done by `time` (the earliest one has at most `DONE_BYTES` left).
    pub fn due(&self, time: f64) -> bool {
        self.next.is_some_and(|(finish, index)| {
            let active = &self.active[index];
            finish <= time || active.remaining - active.rate * (time - self.updated) <= DONE_BYTES
        })
    }

    /// Moves every transfer on to `time` at its rate.
    pub fn advance(&mut self, time: f64) {
        let elapsed = time - self.updated;
        if elapsed > 0.0 {
            for active in &mut self.active {
                active.remaining -= active.rate * elapsed;
            }
        }
        if time > self.updated {
            self.updated = time;
        }
    }

    /// Adds a transfer of `l2_bytes` through L2 then `hbm_bytes` through HBM on a path of `cap`
    /// bytes per cycle, its HBM part at most `hbm_cap` (after `advance` to now).
    pub fn join(&mut self, core: u32, pipe: u8, l2_bytes: f64, hbm_bytes: f64, cap: f64, hbm_cap: f64) {
        let in_l2 = l2_bytes > 0.0;
        let (remaining, hbm_after) = if in_l2 { (l2_bytes, hbm_bytes) } else { (hbm_bytes, 0.0) };
        let hbm_cap = hbm_cap.min(cap);
        let cap = if in_l2 { cap } else { hbm_cap };
        let background = false;
        self.parts[usize::from(in_l2)].add(cap);
        self.active.push(Active { core, pipe, remaining, cap, hbm_cap, rate: 0.0, in_l2, hbm_after, background });
    }

    /// Adds L2's own write-back of `bytes` of evicted dirty lines: HBM only, no path limit.
    pub fn join_background(&mut self, core: u32, pipe: u8, bytes: f64) {
        let (cap, in_l2, hbm_after, background) = (f64::INFINITY, false, 0.0, true);
        let hbm_cap = cap;
        self.parts[0].add(cap);
        self.active.push(Active {
            core,
            pipe,
            remaining: bytes,
            cap,
            hbm_cap,
            rate: 0.0,
            in_l2,
            hbm_after,
            background,
        });
    }

    /// Moves the transfers that are done (after `advance`) into `done`; `reached`, the one whose
    /// finish time was reached, is done whatever rounding left of it.
    pub fn take_finished(&mut self, reached: Option<usize>, done: &mut Vec<Active>) {
        if let Some(index) = reached {
            self.active[index].remaining = 0.0;
        }
        let mut position = 0;
        while position < self.active.len() {
            let active = &mut self.active[position];
            if active.remaining <= DONE_BYTES && active.in_l2 && active.hbm_after > 0.0 {
                // L2's part is done: the transfer moves on to HBM, at most at its core's HBM rate.
                (active.remaining, active.hbm_after, active.in_l2) = (active.hbm_after, 0.0, false);
                self.parts[1].remove(active.cap);
                active.cap = active.hbm_cap;
                self.parts[0].add(active.cap);
                position += 1;
            } else if active.remaining <= DONE_BYTES {
                self.parts[usize::from(active.in_l2)].remove(active.cap);
                done.push(self.active.swap_remove(position));
            } else {
                position += 1;
            }
        }
    }

    /// Max-min fair shares of HBM among the transfers crossing it and of the aggregate L2
    /// bandwidth among those moving L2's part. Then finds the earliest finish (of a part).
    pub fn assign_rates(&mut self, hbm_bytes_per_cycle: f64, l2_bytes_per_cycle: f64) {
        // A part that one step of max-min fairness settles (the usual case: `PartPaths` knows
        // from its paths) gets its rates in the pass that finds the earliest finish; any other is
        // shared out first (`water_fill`).
        let totals = [hbm_bytes_per_cycle, l2_bytes_per_cycle];
        let usual = [self.parts[0].usual_rate(totals[0]), self.parts[1].usual_rate(totals[1])];
        for in_l2 in [false, true] {
            if usual[usize::from(in_l2)].is_none() {
                self.water_fill(in_l2, self.parts[usize::from(in_l2)].count(), totals[usize::from(in_l2)]);
            }
        }
        let updated = self.updated;
        let mut earliest = (f64::INFINITY, usize::MAX);
        for (index, active) in self.active.iter_mut().enumerate() {
            if let Some(usual) = usual[usize::from(active.in_l2)] {
                active.rate = usual.rate(active.cap);
            }
            let finish = updated + active.remaining / active.rate;
            // The first of equal finishes (rates are positive: no finish is NaN).
            if index == 0 || finish < earliest.0 {
                earliest = (finish, index);
            }
        }
        self.next = (!self.active.is_empty()).then_some(earliest);
    }

    /// Max-min fair shares of `bytes_per_cycle` among the `count` transfers of one part: transfers
    /// whose path is slower than the fair share keep their path rate, the rest split what is left.
    fn water_fill(&mut self, in_l2: bool, count: usize, bytes_per_cycle: f64) {
        let (mut left, mut unassigned) = (bytes_per_cycle, count);
        self.scratch.clear();
        self.scratch.extend(self.active.iter().map(|active| active.in_l2 != in_l2));
        while unassigned > 0 {
            let share = left / unassigned as f64;
            let mut changed = false;
            for (active, fixed) in self.active.iter_mut().zip(self.scratch.iter_mut()) {
                if !*fixed && active.cap <= share {
                    active.rate = active.cap;
                    left -= active.cap;
                    unassigned -= 1;
                    *fixed = true;
                    changed = true;
                }
            }
            if !changed {
                for (active, fixed) in self.active.iter_mut().zip(&self.scratch) {
                    if !*fixed {
                        active.rate = share;
                    }
                }
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_max_min_fair_and_the_next_finish_follows_membership() {
        // HBM 100 B/cycle. A: 1000 B on an 80 B/cycle path, B: 1000 B on a 30 B/cycle path, both at
        // t = 0. Fair share 50: B's path is slower, so B keeps 30 and A gets the 70 left (below its
        // 80). A finishes first, at 1000/70 = 14.2857…; B then has 1000 − 30·1000/70 = 571.43 B
        // left, still at its path's 30 B/cycle: it finishes at 1000/70 + 571.43/30 = 100/3.
        let mut pool = Pool::default();
        pool.join(0, 1, 0.0, 1000.0, 80.0, f64::INFINITY);
        pool.join(1, 1, 0.0, 1000.0, 30.0, f64::INFINITY);
        pool.assign_rates(100.0, 1000.0);
        let (first, index) = pool.next().expect("two transfers");
        assert_eq!(index, 0);
        assert!((first - 1000.0 / 70.0).abs() < 1e-9);
        assert!(!pool.due(14.0) && pool.due(first));
        pool.advance(first);
        let mut done = Vec::new();
        pool.take_finished(Some(index), &mut done);
        assert_eq!(done.iter().map(|active| active.core).collect::<Vec<_>>(), vec![0]);
        pool.assign_rates(100.0, 1000.0);
        let (second, index) = pool.next().expect("B is left");
        assert_eq!(pool.active[index].core, 1);
        assert!((second - 100.0 / 3.0).abs() < 1e-9, "{second}");
        assert!(!pool.due(33.0) && pool.due(33.34));
        pool.advance(second);
        pool.take_finished(Some(index), &mut done);
        pool.assign_rates(100.0, 1000.0);
        assert_eq!(pool.next(), None);
        assert_eq!(done.len(), 2);
    }
}
