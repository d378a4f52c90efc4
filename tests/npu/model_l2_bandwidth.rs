//! The aggregate L2 bandwidth: transfers served by L2 (hits, writes into L2) share
//! `l2_bytes_per_cycle` max-min fairly, each at most at its path rate.

use tilelab::npu::{run, NpuConfig};
use tilelab::tensor::DType;
use tilelab::tile::{GmRegion, GmTensor, KernelPlan, Memory, ProgramBuilder, TensorId, TileOp};

/// Two cores, each writing its own [16, 64] f32 block (4096 B, eight lines) of `y`: the end cycles.
fn two_writers(config: &NpuConfig) -> Vec<f64> {
    let program = |row: usize| {
        let mut builder = ProgramBuilder::new();
        let tile = builder.buffer("t", Memory::Ub, &[16, 64], DType::F32);
        let region = GmRegion { tensor: TensorId(0), offsets: [row, 0].into(), shape: [16, 64].into() };
        builder.push(TileOp::CopyOut { source: tile, destination: region }, vec![], vec![]).unwrap();
        builder.finish()
    };
    let tensor = GmTensor { name: "y".into(), shape: vec![64, 64], dtype: DType::F32 };
    let plan = KernelPlan {
        name: "writers".into(),
        tensors: vec![tensor],
        programs: vec![program(0), program(16)],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    let (trace, _) = run(&plan, config).unwrap();
    trace.events.iter().map(|event| event.end).collect()
}

#[test]
fn cores_writing_into_l2_share_its_aggregate_bandwidth() {
    // teaching: 64 start-up cycles, 64 B/cycle UB → GM path. Its L2 (1024 B/cycle) does not bind:
    // each write of 4096 B stays in L2 (write-back) at its path rate, 64 + 4096 / 64 = 128 cycles.
    let mut config = NpuConfig::preset("teaching").unwrap();
    assert_eq!(two_writers(&config), vec![128.0, 128.0]);
    // With L2 at 64 B/cycle the two writes share it, 32 B/cycle each: 64 + 4096 / 32 = 192.
    config.l2_bytes_per_cycle = 64.0;
    assert_eq!(two_writers(&config), vec![192.0, 192.0]);
    // At 96 B/cycle the fair share (48) is still below the path: 64 + 4096 / 48 = 149.33….
    config.l2_bytes_per_cycle = 96.0;
    let ends = two_writers(&config);
    assert!(ends.iter().all(|end| (end - (64.0 + 4096.0 / 48.0)).abs() < 1e-6), "{ends:?}");
}
