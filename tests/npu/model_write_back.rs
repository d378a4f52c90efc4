//! The write-back L2 in the event loop: a written region read back hits, a write costs the path rate
//! (not HBM) until its dirty lines are evicted, an eviction moves them over HBM, and the lines
//! still dirty at the end are the drain, reported but not in the kernel's time.

use tilelab::npu::{run, EngineTotals, NpuConfig};
use tilelab::tensor::DType;
use tilelab::tile::{GmRegion, GmTensor, KernelPlan, Memory, ProgramBuilder, TensorId, TileOp};

/// Region `[16, 64]` f32 (4096 B = eight 512 B lines) at row `row` of tensor `tensor`.
fn region(tensor: u32, row: usize) -> GmRegion {
    GmRegion { tensor: TensorId(tensor), offsets: [row, 0].into(), shape: [16, 64].into() }
}

/// One core: a copy out to `y` (MTE3), then — after it, through a flag — a copy in of `read`.
fn write_then_read(read: GmRegion, config: &NpuConfig) -> (Vec<f64>, EngineTotals) {
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("t", Memory::Ub, &[16, 64], DType::F32);
    let written = builder.flag();
    builder.push(TileOp::CopyOut { source: tile, destination: region(1, 0) }, vec![], vec![written]).unwrap();
    builder.push(TileOp::CopyIn { source: read, destination: tile }, vec![written], vec![]).unwrap();
    let tensor = |name: &str| GmTensor { name: name.into(), shape: vec![64, 64], dtype: DType::F32 };
    let plan = KernelPlan {
        name: "write_back".into(),
        tensors: vec![tensor("x"), tensor("y")],
        programs: vec![builder.finish()],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    let (trace, totals) = run(&plan, config).unwrap();
    (trace.events.iter().map(|event| event.end).collect(), totals)
}

/// teaching (64 start-up cycles, 64 B/cycle paths, no launch floor, 512 B lines) with HBM slowed
/// to 32 B/cycle, so a transfer that crosses HBM is visibly slower than one served by L2.
fn slow_hbm() -> NpuConfig {
    let mut config = NpuConfig::preset("teaching").unwrap();
    config.hbm_bytes_per_cycle = 32.0;
    config
}

#[test]
fn a_written_region_read_back_hits_and_its_lines_drain_after_the_kernel() {
    // The write of 4096 B goes into L2 at the path rate: 64 + 4096 / 64 = 128 cycles (write-through
    // would have taken 64 + 4096 / 32 = 192). Reading the same region back hits all eight lines:
    // 64 + 4096 / 64 = 128 more → 256. Nothing crossed HBM; the eight dirty lines (4096 B) are the
    // drain, which the kernel's time does not include.
    let (ends, totals) = write_then_read(region(1, 0), &slow_hbm());
    assert_eq!(ends, vec![128.0, 256.0]);
    assert_eq!((totals.l2_hit_bytes, totals.hbm_bytes, totals.drain_bytes), (4096, 0, 4096));
}

#[test]
fn an_eviction_writes_the_dirty_lines_back_over_hbm() {
    // L2 of 4096 B = eight lines. The write fills them dirty (128 cycles, as above). The read of
    // x's 4096 B misses: eight lines to fetch, and the eight dirty lines of y it evicts when it is
    // issued (cycle 128) are written back by L2 on its own. During the read's 64-cycle start-up
    // the write-back has HBM alone (32 B/cycle: 2048 B); then the two share it, 16 B/cycle each,
    // for 128 cycles (the write-back's other 2048 B, the fetch's first 2048 B); the fetch moves
    // its last 2048 B alone at 32 B/cycle in 64 cycles: 128 + 64 + 128 + 64 = 384. HBM moved
    // 8192 B; nothing is left dirty: the drain is empty.
    let mut config = slow_hbm();
    config.l2_bytes = 4096;
    let (ends, totals) = write_then_read(region(0, 0), &config);
    assert_eq!(ends, vec![128.0, 384.0]);
    assert_eq!((totals.l2_hit_bytes, totals.hbm_bytes, totals.drain_bytes), (0, 8192, 0));
}
