//! The per-core HBM rate: the lines a core's copy fetches from HBM (its L2 misses) move at most at
//! `hbm_core_bytes_per_cycle` (the platform ini's per-AI-core `ddr_rate`), however much of the
//! shared `hbm_bytes_per_cycle` is free; hits still move at the path rate.

use tilelab::npu::{run, run_warm, NpuConfig};
use tilelab::tensor::DType;
use tilelab::tile::{GmRegion, GmTensor, KernelPlan, Memory, ProgramBuilder, TensorId, TileOp};

/// Cores each reading the [8, 128] f32 block (4096 B, whole rows: eight 512 B lines) of `x` that
/// starts at its row; `run_warm` reports a second run over the L2 the first left.
fn readers(rows: &[usize], config: &NpuConfig, warm: bool) -> Vec<f64> {
    let program = |row: usize| {
        let mut builder = ProgramBuilder::new();
        let tile = builder.buffer("t", Memory::Ub, &[8, 128], DType::F32);
        let region = GmRegion { tensor: TensorId(0), offsets: [row, 0].into(), shape: [8, 128].into() };
        builder.push(TileOp::CopyIn { source: region, destination: tile }, vec![], vec![]).unwrap();
        builder.finish()
    };
    let tensor = GmTensor { name: "x".into(), shape: vec![64, 128], dtype: DType::F32 };
    let plan = KernelPlan {
        name: "readers".into(),
        tensors: vec![tensor],
        programs: rows.iter().map(|&row| program(row)).collect(),
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    let (trace, _) = if warm { run_warm(&plan, config) } else { run(&plan, config) }.unwrap();
    let mut ends: Vec<f64> = trace.events.iter().map(|event| event.end).collect();
    ends.sort_by(f64::total_cmp);
    ends
}

/// teaching (64 start-up cycles, 64 B/cycle paths and HBM, no burst floor, no issue cost, L2 at
/// 1024 B/cycle so it never binds) with HBM at 128 B/cycle and a core's share of it at most 16.
fn slow_core_hbm() -> NpuConfig {
    let mut config = NpuConfig::preset("teaching").unwrap();
    config.hbm_bytes_per_cycle = 128.0;
    config.hbm_core_bytes_per_cycle = 16.0;
    config
}

#[test]
fn a_cold_read_moves_at_the_core_hbm_rate_and_a_warm_one_at_the_path_rate() {
    // Cold: all eight lines are fetched, 4096 B at min(path 64, core 16, HBM 128) = 16 B/cycle:
    // 64 + 4096 / 16 = 320. Warm: every line hits, 64 + 4096 / 64 = 128.
    assert_eq!(readers(&[0], &slow_core_hbm(), false), vec![320.0]);
    assert_eq!(readers(&[0], &slow_core_hbm(), true), vec![128.0]);
    // Without the per-core limit (64 = the path) the cold read moves at the path rate too.
    let mut unlimited = slow_core_hbm();
    unlimited.hbm_core_bytes_per_cycle = 64.0;
    assert_eq!(readers(&[0], &unlimited, false), vec![128.0]);
}

#[test]
fn cores_missing_together_are_held_by_their_own_rate_before_the_shared_hbm() {
    // Four cores read four different blocks cold. The fair share of HBM is 128 / 4 = 32 B/cycle,
    // but each core's misses move at most 16: 64 + 4096 / 16 = 320 each (HBM carries 64 of 128).
    assert_eq!(readers(&[0, 8, 16, 24], &slow_core_hbm(), false), vec![320.0; 4]);
    // Eight cores at 16 B/cycle would take 128 B/cycle, all of HBM: still 320 each.
    assert_eq!(readers(&[0, 8, 16, 24, 32, 40, 48, 56], &slow_core_hbm(), false), vec![320.0; 8]);
    // With a per-core rate above the fair share (64 = the path), the shared HBM binds instead: the
    // four cores get 128 / 4 = 32 B/cycle each, 64 + 4096 / 32 = 192.
    let mut wide = slow_core_hbm();
    wide.hbm_core_bytes_per_cycle = 64.0;
    assert_eq!(readers(&[0, 8, 16, 24], &wide, false), vec![192.0; 4]);
}

#[test]
fn the_first_core_to_read_a_line_fetches_it_and_the_others_hit() {
    // Two cores read the same block at the same time. Core 0 issues first and fetches the eight
    // lines at its 16 B/cycle (320); core 1 finds them resident and moves them at its path rate,
    // 64 + 4096 / 64 = 128 (in-flight lines count as hits at once: docs/npu-model.md).
    assert_eq!(readers(&[0, 0], &slow_core_hbm(), false), vec![128.0, 320.0]);
}
