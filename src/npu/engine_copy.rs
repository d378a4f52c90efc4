//! Starting a GM copy: its start-up (the first-byte latency unless its queue streams on), its bytes
//! through L2 (hits, fetches, writes, the dirty lines it evicts), and then its place in the pool of
//! transfers that share L2 and HBM.

use super::super::engine_program::{GmCopy, Walk};
use super::super::engine_queue::EventKind;
use super::super::timing::Cost;
use super::{CoreState, Engine};

impl Engine<'_> {
    /// Starts `copy` on `pipe` of `core` now (its flags are taken and the pipe is busy).
    pub(super) fn start_copy(&mut self, state: &mut CoreState, core: usize, pipe: usize, copy: GmCopy) {
        let Cost::Gm { bytes, issue, startup, write, read_first, short_burst_cycles, .. } = copy.cost else {
            unreachable!("a GM copy has a GM cost")
        };
        // A copy on a drained queue waits the first byte; one that follows the previous copy without
        // a gap had its requests outstanding (burst.rs).
        let startup = if state.gm_end[pipe] == self.now { issue } else { issue + startup };
        self.totals.startup_cycles[pipe] += startup + short_burst_cycles;
        // A box of rows goes to L2 as a box (it knows boxes it has seen whole); a region of higher
        // rank as its ranges.
        let rows = match copy.walk {
            Walk::Rows(rows) => Some(rows),
            Walk::Region { .. } => {
                copy.region_ranges_into(self.plan, &self.plan.programs[core], &mut self.ranges);
                None
            }
        };
        // Hits move at the core's path rate; HBM moves the fetched lines and the written bytes.
        let mut local_bytes = 0;
        let mut hbm_bytes = 0;
        let mut written_back = 0;
        if !write || read_first {
            let traffic = match rows {
                Some(rows) => self.l2.read_box(copy.tensor, rows),
                None => self.l2.read(copy.tensor, &self.ranges),
            };
            self.totals.gm_bytes_read += bytes;
            self.totals.l2_hit_bytes += traffic.hit_bytes;
            local_bytes += traffic.hit_bytes;
            hbm_bytes += traffic.fetched_bytes;
            written_back += traffic.written_back_bytes;
        }
        if write {
            // Write-back: the bytes go into L2 at the path rate and stay there dirty; HBM moves only
            // the dirty lines the write evicts (l2_write_back.rs).
            self.totals.gm_bytes_written += bytes;
            let traffic = match rows {
                Some(rows) => self.l2.write_box(copy.tensor, rows),
                None => self.l2.write(copy.tensor, &self.ranges),
            };
            local_bytes += bytes;
            written_back += traffic.written_back_bytes;
        }
        self.totals.hbm_bytes += hbm_bytes + written_back;
        if written_back > 0 {
            // L2 writes the evicted dirty lines back on its own: they take a share of HBM from now
            // on, and no pipe waits for them.
            self.pool.advance(self.now);
            self.pool.join_background(core as u32, pipe as u8, written_back as f64);
            self.rates_stale = true;
        }
        // After the start-up the transfer joins the pool: its L2 part shares the aggregate L2
        // bandwidth, its HBM part HBM's (both at most the path rate).
        state.l2_bytes[pipe] = local_bytes;
        if hbm_bytes == 0 && local_bytes == 0 {
            self.schedule(self.now + startup, core, pipe, EventKind::Finish);
        } else {
            state.pooled[pipe] = hbm_bytes;
            self.schedule(self.now + startup, core, pipe, EventKind::JoinPool);
        }
    }
}
