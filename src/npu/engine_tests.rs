//! Model tests of the event loop: flags, overlap, HBM sharing, launch floor, cold and warm L2.

use super::*;
use crate::tensor::{DType, UnaryOp};
use crate::tile::{GmRegion, GmTensor, Memory, ProgramBuilder, TensorId, TileOp, TileProgram};

fn plan(programs: Vec<TileProgram>) -> KernelPlan {
    let tensor = |name: &str| GmTensor { name: name.into(), shape: vec![64, 64], dtype: DType::F32 };
    KernelPlan {
        name: "test".into(),
        tensors: vec![tensor("x"), tensor("y")],
        programs,
        cross_core_flags: 0,
        single_buffered_from: None,
    }
}

fn region(tensor: u32, row: usize) -> GmRegion {
    GmRegion { tensor: TensorId(tensor), offsets: [row, 0].into(), shape: [16, 64].into() }
}

fn end_cycle(plan: &KernelPlan) -> f64 {
    let config = NpuConfig::preset("teaching").unwrap();
    let (trace, _) = run(plan, &config).unwrap();
    trace.events.iter().map(|event| event.end).fold(0.0, f64::max)
}

#[test]
fn flags_serialise_copy_compute_copy() {
    // teaching: 64 start-up cycles, 64 B/cycle paths and HBM, vector 8 + bytes/256.
    // 16×64 f32 = 4096 B: copy in 64 + 64 = 128, exp 8 + 16 = 24, copy out 64 + 64 = 128 → 280.
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
    let (loaded, computed) = (builder.flag(), builder.flag());
    builder.push(TileOp::CopyIn { source: region(0, 0), destination: tile }, vec![], vec![loaded]).unwrap();
    builder
        .push(
            TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [16, 64].into() },
            vec![loaded],
            vec![computed],
        )
        .unwrap();
    builder.push(TileOp::CopyOut { source: tile, destination: region(1, 0) }, vec![computed], vec![]).unwrap();
    assert_eq!(end_cycle(&plan(vec![builder.finish()])), 280.0);
}

#[test]
fn every_core_starts_after_the_launch_floor() {
    // The copy-compute-copy program of `flags_serialise_copy_compute_copy` takes 280 cycles from
    // its first instruction; with a 1000-cycle launch every event shifts by 1000 → ends at 1280,
    // and a second core running the same program concurrently starts no earlier than 1000.
    let mut config = NpuConfig::preset("teaching").unwrap();
    config.launch_cycles = 1000;
    let program = |row| {
        let mut builder = ProgramBuilder::new();
        let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
        let (loaded, computed) = (builder.flag(), builder.flag());
        builder.push(TileOp::CopyIn { source: region(0, row), destination: tile }, vec![], vec![loaded]).unwrap();
        let exp = TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [16, 64].into() };
        builder.push(exp, vec![loaded], vec![computed]).unwrap();
        builder.push(TileOp::CopyOut { source: tile, destination: region(1, row) }, vec![computed], vec![]).unwrap();
        builder.finish()
    };
    let (trace, _) = run(&plan(vec![program(0)]), &config).unwrap();
    assert_eq!(trace.events.iter().map(|event| event.end).fold(0.0, f64::max), 1280.0);
    let (trace, _) = run(&plan(vec![program(0), program(16)]), &config).unwrap();
    assert!(trace.events.iter().all(|event| event.start >= 1000.0));
}

#[test]
fn a_warm_l2_read_runs_at_the_path_rate_and_a_cold_one_at_hbm() {
    // teaching with HBM slowed to 32 B/cycle: reading one 16×64 f32 region (4096 B) twice on one
    // core. Cold: 64 start-up + 4096 / min(path 64, HBM 32) = 192 cycles; warm (its eight 512 B
    // lines are resident), following the first with no gap so no first-byte latency (burst.rs):
    // 4096 / 64 = 64 cycles → the second read ends at 256.
    let mut config = NpuConfig::preset("teaching").unwrap();
    config.hbm_bytes_per_cycle = 32.0;
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
    for _ in 0..2 {
        builder.push(TileOp::CopyIn { source: region(0, 0), destination: tile }, vec![], vec![]).unwrap();
    }
    let (trace, totals) = run(&plan(vec![builder.finish()]), &config).unwrap();
    let ends: Vec<f64> = trace.events.iter().map(|event| event.end).collect();
    assert_eq!(ends, vec![192.0, 256.0]);
    assert_eq!((totals.l2_hit_bytes, totals.hbm_bytes), (4096, 4096));
}

#[test]
fn pipes_without_flags_overlap() {
    // The 128-cycle copy and the 24-cycle exp run at the same time: the run lasts 128 cycles.
    let mut builder = ProgramBuilder::new();
    let (first, second) = (
        builder.buffer("a", Memory::Ub, &[16, 64], DType::F32),
        builder.buffer("b", Memory::Ub, &[16, 64], DType::F32),
    );
    builder.push(TileOp::CopyIn { source: region(0, 0), destination: first }, vec![], vec![]).unwrap();
    builder
        .push(
            TileOp::Unary { op: UnaryOp::Exp, input: second, output: second, valid_shape: [16, 64].into() },
            vec![],
            vec![],
        )
        .unwrap();
    assert_eq!(end_cycle(&plan(vec![builder.finish()])), 128.0);
}

#[test]
fn cores_share_hbm_bandwidth() {
    // Two cores read 4096 B each at once: after the 64-cycle start-up they split 64 B/cycle of
    // HBM, 32 each, so the data takes 128 cycles instead of 64 → 192.
    let program = |row| {
        let mut builder = ProgramBuilder::new();
        let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
        builder.push(TileOp::CopyIn { source: region(0, row), destination: tile }, vec![], vec![]).unwrap();
        builder.finish()
    };
    assert_eq!(end_cycle(&plan(vec![program(0)])), 128.0);
    assert_eq!(end_cycle(&plan(vec![program(0), program(16)])), 192.0);
}

#[test]
fn a_warm_run_starts_with_the_lines_the_first_run_left_in_l2() {
    // teaching with HBM at 32 B/cycle, one read of a 16×64 f32 region (4096 B). Cold: 64 start-up +
    // 4096 / 32 = 192 cycles. Warm (run again after itself, the eight lines resident): 64 + 4096 /
    // 64 (path) = 128 cycles, all 4096 bytes L2 hits and none from HBM.
    let mut config = NpuConfig::preset("teaching").unwrap();
    config.hbm_bytes_per_cycle = 32.0;
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
    builder.push(TileOp::CopyIn { source: region(0, 0), destination: tile }, vec![], vec![]).unwrap();
    let plan = plan(vec![builder.finish()]);
    let (cold, _) = run(&plan, &config).unwrap();
    let (warm, totals) = run_warm(&plan, &config).unwrap();
    assert_eq!((cold.events[0].end, warm.events[0].end), (192.0, 128.0));
    assert_eq!((totals.l2_hit_bytes, totals.hbm_bytes), (4096, 0));
}
