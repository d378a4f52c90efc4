//! The path rates of the transfers moving one part of their bytes (L2's or HBM's), kept as they
//! join and leave: a handful of distinct rates (one per kind of copy and burst shape), each with
//! how many transfers move at it. The pool then knows without a pass over the transfers whether
//! one step of max-min fairness settles the part.

/// The distinct path rates of one part's transfers and how many move at each.
#[derive(Default)]
pub(super) struct PartPaths {
    paths: Vec<(f64, usize)>,
    count: usize,
}

/// The rate of every transfer of a part in the usual cases.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum UsualRate {
    /// No path slower than the fair share: each moves at the share.
    Share(f64),
    /// Every path at most the fair share: each moves at its path's rate.
    Path,
}

impl UsualRate {
    /// The rate of a transfer on a path of `cap` bytes per cycle.
    pub fn rate(self, cap: f64) -> f64 {
        match self {
            UsualRate::Share(share) => share,
            UsualRate::Path => cap,
        }
    }
}

impl PartPaths {
    /// The transfers of the part.
    pub fn count(&self) -> usize {
        self.count
    }

    /// A transfer on a path of `cap` bytes per cycle (never NaN) joins the part.
    pub fn add(&mut self, cap: f64) {
        self.count += 1;
        match self.paths.iter_mut().find(|(rate, _)| *rate == cap) {
            Some((_, transfers)) => *transfers += 1,
            None => self.paths.push((cap, 1)),
        }
    }

    /// A transfer on a path of `cap` leaves the part.
    pub fn remove(&mut self, cap: f64) {
        self.count -= 1;
        let position = self.paths.iter().position(|(rate, _)| *rate == cap).expect("a path of the part");
        self.paths[position].1 -= 1;
        if self.paths[position].1 == 0 {
            self.paths.swap_remove(position);
        }
    }

    /// The rate of the part's transfers when one step of max-min fairness settles them out of
    /// `bytes_per_cycle` (none: some paths are slower than the fair share, others faster). A part
    /// with no transfer settles at any rate.
    pub fn usual_rate(&self, bytes_per_cycle: f64) -> Option<UsualRate> {
        if self.count == 0 {
            return Some(UsualRate::Path);
        }
        let share = bytes_per_cycle / self.count as f64;
        // Comparisons, not `f64::min`/`max` (calls in the wasm build; rates are never NaN).
        let (mut slowest, mut fastest) = (f64::INFINITY, 0.0);
        for &(rate, _) in &self.paths {
            if rate < slowest {
                slowest = rate;
            }
            if rate > fastest {
                fastest = rate;
            }
        }
        if fastest <= share {
            Some(UsualRate::Path)
        } else if slowest > share {
            Some(UsualRate::Share(share))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usual_rate_follows_the_paths_as_transfers_join_and_leave() {
        // 100 B/cycle shared. Two transfers on 80 B/cycle paths: the share (50) is below both
        // paths, so each moves at 50. A third on a 10 B/cycle path: the share (33.3) lies between
        // the paths, which one step does not settle. When the 80s leave, the 10 keeps its path.
        let mut part = PartPaths::default();
        assert_eq!(part.usual_rate(100.0), Some(UsualRate::Path));
        part.add(80.0);
        part.add(80.0);
        assert_eq!(part.usual_rate(100.0), Some(UsualRate::Share(50.0)));
        part.add(10.0);
        assert_eq!((part.count(), part.usual_rate(100.0)), (3, None));
        part.remove(80.0);
        part.remove(80.0);
        assert_eq!(part.usual_rate(100.0), Some(UsualRate::Path));
        assert_eq!(part.paths, vec![(10.0, 1)]);
        part.remove(10.0);
        assert_eq!((part.count(), part.paths.len()), (0, 0));
    }
}
