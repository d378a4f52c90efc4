//! GM transfers by burst: a region of short rows moves below the path rate (each burst holds the
//! DMA for `gm_to_ub_burst_cycles` on a vector core), and copies that follow each other on a queue keep their requests
//! outstanding, so only a copy on a drained queue waits the first-byte latency.

use tilelab::npu::{run, run_warm, NpuConfig};
use tilelab::tensor::{BinaryOp, DType};
use tilelab::tile::{GmRegion, GmTensor, KernelPlan, Memory, ProgramBuilder, TensorId, TileOp};

/// teaching (64 start-up cycles, 64 B/cycle paths and HBM, no launch floor) with an 8-cycle burst
/// floor and a 4-cycle issue per copy.
fn bursty() -> NpuConfig {
    let mut config = NpuConfig::preset("teaching").unwrap();
    config.gm_to_ub_burst_cycles = 8.0;
    config.gm_issue_cycles = 4;
    config
}

/// One core's plan over an f32 tensor `x` of [64, 64] (256 B rows).
fn plan_of(builder: ProgramBuilder) -> KernelPlan {
    KernelPlan {
        name: "bursts".into(),
        tensors: vec![GmTensor { name: "x".into(), shape: vec![64, 64], dtype: DType::F32 }],
        programs: vec![builder.finish()],
        cross_core_flags: 0,
        single_buffered_from: None,
    }
}

fn region(row: usize, shape: [usize; 2]) -> GmRegion {
    GmRegion { tensor: TensorId(0), offsets: [row, 0].into(), shape: tilelab::tile::Dims::from(shape) }
}

fn copy_end(shape: [usize; 2], config: &NpuConfig) -> f64 {
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("t", Memory::Ub, &shape, DType::F32);
    builder.push(TileOp::CopyIn { source: region(0, shape), destination: tile }, vec![], vec![]).unwrap();
    // The second of two runs: the region is resident, so HBM (and its whole-line fetches) plays no
    // part and the copy moves at the rate its bursts allow.
    let (trace, _) = run_warm(&plan_of(builder), config).unwrap();
    trace.events[0].end
}

#[test]
fn short_rows_move_at_the_burst_rate() {
    // Warm L2 (L2's 1024 B/cycle never binds). [16, 32] f32 of a 64-wide tensor: 16 bursts of 128 B. At 64 B/cycle a burst would take 2
    // cycles; the floor holds it 8, so the copy moves 128 / 8 = 16 B/cycle: 4 + 64 + 2048 / 16 = 196.
    // [8, 64] is the same 2048 B as whole rows: one 2048-B burst at the path rate, 4 + 64 + 32 = 100.
    assert_eq!(copy_end([16, 32], &bursty()), 196.0);
    assert_eq!(copy_end([8, 64], &bursty()), 100.0);
    // What the short bursts cost beyond the path rate (128 − 32 = 96 cycles) counts as DMA
    // overhead with the issue and the latency: 4 + 64 + 96 = 164.
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("t", Memory::Ub, &[16, 32], DType::F32);
    builder.push(TileOp::CopyIn { source: region(0, [16, 32]), destination: tile }, vec![], vec![]).unwrap();
    let (_, totals) = run(&plan_of(builder), &bursty()).unwrap();
    assert_eq!(totals.startup_cycles.iter().sum::<f64>(), 164.0);
    // Without a floor the short rows move at the path rate too (teaching: 64 + 2048 / 64 = 96).
    assert_eq!(copy_end([16, 32], &NpuConfig::preset("teaching").unwrap()), 96.0);
}

#[test]
fn a_copy_that_follows_another_waits_no_first_byte_latency() {
    // Three 2048-B copies of whole rows ([8, 64] f32). The first starts on an empty queue: 4 issue
    // + 64 latency + 2048 / 64 = 100. The second follows it at once with its requests outstanding:
    // 100 + 4 + 32 = 136. A vector add on the second tile waits for it (8 issue + 2048 / 256 = 16:
    // 152); the third copy waits for the add, so the queue drained: 152 + 4 + 64 + 32 = 252.
    let mut builder = ProgramBuilder::new();
    let tiles: Vec<_> =
        (0..3).map(|index| builder.buffer(&format!("t{index}"), Memory::Ub, &[8, 64], DType::F32)).collect();
    let (loaded, added) = (builder.flag(), builder.flag());
    builder.push(TileOp::CopyIn { source: region(0, [8, 64]), destination: tiles[0] }, vec![], vec![]).unwrap();
    builder.push(TileOp::CopyIn { source: region(8, [8, 64]), destination: tiles[1] }, vec![], vec![loaded]).unwrap();
    let add = TileOp::Binary {
        op: BinaryOp::Add,
        lhs: tiles[1],
        rhs: tiles[1],
        output: tiles[1],
        valid_shape: [8, 64].into(),
    };
    builder.push(add, vec![loaded], vec![added]).unwrap();
    builder.push(TileOp::CopyIn { source: region(16, [8, 64]), destination: tiles[2] }, vec![added], vec![]).unwrap();
    let (trace, totals) = run(&plan_of(builder), &bursty()).unwrap();
    let mut ends: Vec<f64> = trace.events.iter().map(|event| event.end).collect();
    ends.sort_by(f64::total_cmp);
    assert_eq!(ends, vec![100.0, 136.0, 152.0, 252.0]);
    // The start-up the summary reports: 68 + 4 + 68 cycles on MTE2.
    assert_eq!(totals.startup_cycles.iter().sum::<f64>(), 140.0);
}
