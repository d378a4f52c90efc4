//! The totals of a run of the event loop: DMA overhead, GM and HBM traffic, and the figures the
//! summary reads (kept as instructions finish, so that the summary needs no pass over the trace).

/// What a run adds up beyond its trace: the summary's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineTotals {
    /// DMA overhead cycles per pipe (summed over cores), indexed by `Pipe::index`: issue, first-byte
    /// latency and the time short bursts take beyond the path rate.
    pub startup_cycles: [f64; 7],
    /// GM bytes read (L2 hits included).
    pub gm_bytes_read: u64,
    /// GM bytes written.
    pub gm_bytes_written: u64,
    /// GM bytes read that hit L2.
    pub l2_hit_bytes: u64,
    /// Bytes moved between L2 and HBM during the run: fetched lines and evicted dirty lines.
    pub hbm_bytes: u64,
    /// Dirty bytes left in L2 at the end: written to HBM after the kernel, not in its time.
    pub drain_bytes: u64,
    /// Instructions simulated.
    pub instructions: u64,
    /// When the last instruction ended (cycles).
    pub end_cycle: f64,
    /// Cycles each pipe was busy, indexed by `Pipe::index`, summed over cores in the order the
    /// instructions finished (the order of the trace's events).
    pub busy_cycles: [f64; 7],
    /// Floating-point operations of every instruction.
    pub flops: u64,
    /// Per pipe, the cores with an instruction on it.
    pub pipe_users: [u32; 7],
}
