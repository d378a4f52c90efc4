//! The trace: one event per executed instruction, and its export as Chrome Trace Event JSON
//! (pid = core, tid = pipe, `ts`/`dur` in µs) that Perfetto and chrome://tracing open.

use serde::Serialize;

use crate::tile::{BufferId, CoreKind, Pipe, TileOp, TileProgram};

/// One executed instruction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TraceEvent {
    /// The core (index of its program).
    pub core: u32,
    /// The pipe it ran on.
    pub pipe: Pipe,
    /// Start cycle (fractional when HBM sharing splits a cycle).
    pub start: f64,
    /// End cycle.
    pub end: f64,
    /// Op name ("copy_in", "mmad", "exp" …).
    pub op: &'static str,
    /// The tile written (or, for copies out, read): the index of its buffer's name in
    /// `Trace::labels`, `NO_TILE` for none (`Trace::tile` reads it). An index, not the text: the
    /// simulator writes an event per instruction, and a shared string's count touched per event
    /// (and again when the trace is dropped) cost more than the rest of the event.
    pub tile: u32,
    /// The instruction's index in its program.
    pub instruction: u32,
    /// Bytes moved or processed.
    pub bytes: u64,
    /// Floating-point operations.
    pub flops: u64,
    /// The kernel source line.
    pub source_line: Option<u32>,
}

/// Every event of a run, with what is needed to show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trace {
    /// Clock used to convert cycles to µs.
    pub clock_mhz: f64,
    /// The kind of each core (for process names).
    pub core_kinds: Vec<CoreKind>,
    /// The buffer names of every core, the events' `tile` indexes them.
    pub labels: Vec<String>,
    /// Events in completion order.
    pub events: Vec<TraceEvent>,
}

/// `TraceEvent::tile` of an event that writes no tile.
pub const NO_TILE: u32 = u32::MAX;

impl Trace {
    /// The name of the tile `event` writes (or, for copies out, reads); empty for none.
    pub fn tile(&self, event: &TraceEvent) -> &str {
        self.labels.get(event.tile as usize).map_or("", String::as_str)
    }
}

/// "name[shape]" of the buffer an op writes (copies out: the buffer read).
pub fn tile_label(op: &TileOp, program: &TileProgram) -> String {
    tile_buffer(op)
        .and_then(|id| program.buffers.get(id.0 as usize))
        .map(|buffer| buffer.name.clone())
        .unwrap_or_default()
}

/// The buffer an op writes (copies out: the buffer read); none for scalar ops.
pub(crate) fn tile_buffer(op: &TileOp) -> Option<BufferId> {
    Some(match op {
        TileOp::CopyIn { destination, .. }
        | TileOp::Move { destination, .. }
        | TileOp::MoveTransposed { destination, .. } => *destination,
        TileOp::CopyOut { source, .. } | TileOp::CopyOutAccumulate { source, .. } => *source,
        TileOp::Mmad { c, .. } => *c,
        TileOp::Unary { output, .. }
        | TileOp::Binary { output, .. }
        | TileOp::Reduce { output, .. }
        | TileOp::Cast { output, .. }
        | TileOp::BroadcastBinary { output, .. }
        | TileOp::ScalarBinary { output, .. }
        | TileOp::Clip { output, .. }
        | TileOp::ReduceDims { output, .. }
        | TileOp::Vector { output, .. } => *output,
        TileOp::Scalar { .. } => return None,
    })
}

/// A core's display name: "AIC 3" (cube), "AIV 5" (vector) or "AI core 2" (coupled use).
pub fn core_name(core: usize, kind: CoreKind) -> String {
    match kind {
        CoreKind::Cube => format!("AIC {core}"),
        CoreKind::Vector => format!("AIV {core}"),
        CoreKind::Mixed => format!("AI core {core}"),
    }
}
