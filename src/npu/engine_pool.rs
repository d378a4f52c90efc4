//! The GM transfers that share HBM: max-min fair rates, recomputed only when a transfer joins or
//! leaves. Between those moments every rate is constant, so the pool is brought up to date then
//! and its earliest finish is known without scanning the transfers at every event.

/// A transfer moving its bytes through HBM.
pub(super) struct Active {
    /// Its core.
    pub core: u32,
    /// Its pipe (`Pipe::index`).
    pub pipe: u8,
    /// Bytes left as of `Pool::updated`.
    remaining: f64,
    /// Its path's rate: it never moves faster.
    cap: f64,
    rate: f64,
}

/// The active transfers.
#[derive(Default)]
pub(super) struct Pool {
    active: Vec<Active>,
    /// The time at which every `remaining` holds.
    updated: f64,
    /// The earliest finish (time, index into `active`), set by `assign_rates`.
    next: Option<(f64, usize)>,
    scratch: Vec<bool>,
}

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
        self.updated = self.updated.max(time);
    }

    /// Adds a transfer of `bytes` on a path of `cap` bytes per cycle (after `advance` to now).
    pub fn join(&mut self, core: u32, pipe: u8, bytes: f64, cap: f64) {
        self.active.push(Active { core, pipe, remaining: bytes, cap, rate: 0.0 });
    }

    /// Moves the transfers that are done (after `advance`) into `done`; `reached`, the one whose
    /// finish time was reached, is done whatever rounding left of it.
    pub fn take_finished(&mut self, reached: Option<usize>, done: &mut Vec<Active>) {
        if let Some(index) = reached {
            self.active[index].remaining = 0.0;
        }
        let mut position = 0;
        while position < self.active.len() {
            if self.active[position].remaining <= DONE_BYTES {
                done.push(self.active.swap_remove(position));
            } else {
                position += 1;
            }
        }
    }

    /// Max-min fair shares of HBM's `bytes_per_cycle`: transfers whose path is slower than the fair
    /// share keep their path rate, the rest split what is left. Then finds the earliest finish.
    pub fn assign_rates(&mut self, bytes_per_cycle: f64) {
        let mut left = bytes_per_cycle;
        let mut unassigned = self.active.len();
        self.scratch.clear();
        self.scratch.resize(self.active.len(), false);
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
        let updated = self.updated;
        self.next = self
            .active
            .iter()
            .enumerate()
            .map(|(index, active)| (updated + active.remaining / active.rate, index))
            .min_by(|left, right| left.0.total_cmp(&right.0));
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
        pool.join(0, 1, 1000.0, 80.0);
        pool.join(1, 1, 1000.0, 30.0);
        pool.assign_rates(100.0);
        let (first, index) = pool.next().expect("two transfers");
        assert_eq!(index, 0);
        assert!((first - 1000.0 / 70.0).abs() < 1e-9);
        assert!(!pool.due(14.0) && pool.due(first));
        pool.advance(first);
        let mut done = Vec::new();
        pool.take_finished(Some(index), &mut done);
        assert_eq!(done.iter().map(|active| active.core).collect::<Vec<_>>(), vec![0]);
        pool.assign_rates(100.0);
        let (second, index) = pool.next().expect("B is left");
        assert_eq!(pool.active[index].core, 1);
        assert!((second - 100.0 / 3.0).abs() < 1e-9, "{second}");
        assert!(!pool.due(33.0) && pool.due(33.34));
        pool.advance(second);
        pool.take_finished(Some(index), &mut done);
        pool.assign_rates(100.0);
        assert_eq!(pool.next(), None);
        assert_eq!(done.len(), 2);
    }
}
