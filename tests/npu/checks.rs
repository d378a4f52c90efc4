//! Configuration presets and the static checks: alignment, views out of bounds, core counts,
//! split-architecture rules, deadlocks.
#![cfg(not(target_arch = "wasm32"))]

use tilelab::messages::AlignmentDetail;
use tilelab::npu::{simulate, NpuConfig, NpuError};
use tilelab::tensor::{DType, UnaryOp};
use tilelab::tile::{GmRegion, GmTensor, KernelPlan, Memory, ProgramBuilder, TensorId, TileOp, TileProgram};

fn tensor(name: &str, shape: &[usize], dtype: DType) -> GmTensor {
    GmTensor { name: name.into(), shape: shape.to_vec(), dtype }
}

#[test]
fn preset_table_matches_design() {
    // DESIGN §3: 910B2 = 24 cube + 48 vector cores at 1.8 GHz, UB 192 KiB, L1 512 KiB, L0A/B 64 KiB, L0C 128 KiB.
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    assert_eq!((config.cube_cores, config.vector_cores, config.clock_mhz), (24, 48, 1800.0));
    assert_eq!(
        (config.ub_bytes, config.l1_bytes, config.l0a_bytes, config.l0c_bytes),
        (192 << 10, 512 << 10, 64 << 10, 128 << 10)
    );
    let teaching = NpuConfig::preset("teaching").unwrap();
    assert_eq!((teaching.cube_cores, teaching.ub_bytes, teaching.l0a_bytes), (2, 16 << 10, 8 << 10));
    // HBM from CANN's platform config: ddr_rate 32 B/cycle per AI core × 24 = 768 B/cycle (1.38 TB/s
    // at 1.8 GHz, below the 1.6 TB/s nominal; docs/npu-model.md cites it).
    assert_eq!(config.hbm_bytes_per_cycle, 32.0 * 24.0);
}

#[test]
fn custom_json_with_a_missing_field_is_rejected_by_name() {
    let mut value = serde_json::to_value(NpuConfig::preset("teaching").unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("l1_bytes");
    match NpuConfig::from_json(&value.to_string()) {
        Err(NpuError::BadConfig { field, .. }) => assert_eq!(field, "l1_bytes"),
        other => panic!("{other:?}"),
    }
}

/// A program computing `y = exp(x)` on rows `row..row + 8`, columns `0..columns` of `x` through
/// one UB tile of `[8, columns]` f32 declared at `line`.
fn exp_program(row: usize, columns: usize, line: Option<u32>) -> TileProgram {
    let mut builder = ProgramBuilder::new();
    builder.at_line(line);
    let tile = builder.buffer("x", Memory::Ub, &[8, columns], DType::F32);
    let (loaded, computed) = (builder.flag(), builder.flag());
    let region =
        |tensor: u32| GmRegion { tensor: TensorId(tensor), offsets: [row, 0].into(), shape: [8, columns].into() };
    builder.push(TileOp::CopyIn { source: region(0), destination: tile }, vec![], vec![loaded]).unwrap();
    let exp = TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [8, columns].into() };
    builder.push(exp, vec![loaded], vec![computed]).unwrap();
    builder.push(TileOp::CopyOut { source: tile, destination: region(1) }, vec![computed], vec![]).unwrap();
    builder.finish()
}

/// `exp` over `x: [rows, columns]` f32 by `programs`.
fn exp_plan(rows: usize, columns: usize, programs: Vec<TileProgram>) -> KernelPlan {
    let tensors = vec![tensor("x", &[rows, columns], DType::F32), tensor("y", &[rows, columns], DType::F32)];
    KernelPlan { name: "exp".into(), tensors, programs, cross_core_flags: 0, single_buffered_from: None }
}

#[test]
fn misaligned_ub_tile_is_an_error_at_its_line() {
    // 24 f32 columns = 96 B is a multiple of 32 B, 20 columns = 80 B is not.
    let config = NpuConfig::preset("teaching").unwrap();
    let ok = exp_plan(40, 24, vec![exp_program(0, 24, Some(2))]);
    assert!(simulate(&ok, &config).is_ok());
    let bad = exp_plan(40, 20, vec![exp_program(0, 20, Some(4))]);
    match simulate(&bad, &config) {
        Err(NpuError::Misaligned { memory, source_line, detail, .. }) => {
            assert_eq!((memory, source_line), ("UB", Some(4)));
            assert!(matches!(detail, AlignmentDetail::LastDim { last: 20, bytes: 80, .. }), "{detail:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn view_out_of_bounds_and_deadlock_are_reported() {
    let config = NpuConfig::preset("teaching").unwrap();
    let mut builder = ProgramBuilder::new();
    builder.at_line(Some(9));
    let tile = builder.buffer("x", Memory::Ub, &[8, 16], DType::F32);
    // Rows 60..68 of a 64-row tensor.
    builder
        .push(
            TileOp::CopyIn {
                source: GmRegion { tensor: TensorId(0), offsets: [60, 0].into(), shape: [8, 16].into() },
                destination: tile,
            },
            vec![],
            vec![],
        )
        .unwrap();
    let plan = KernelPlan {
        name: "k".into(),
        tensors: vec![tensor("x", &[64, 16], DType::F32)],
        programs: vec![builder.finish()],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    assert!(matches!(simulate(&plan, &config), Err(NpuError::ViewOutOfBounds { source_line: Some(9), .. })));

    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("x", Memory::Ub, &[8, 16], DType::F32);
    let never = builder.flag();
    builder
        .push(
            TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [8, 16].into() },
            vec![never],
            vec![],
        )
        .unwrap();
    let plan = KernelPlan {
        name: "k".into(),
        tensors: vec![],
        programs: vec![builder.finish()],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    assert!(matches!(simulate(&plan, &config), Err(NpuError::Deadlock { pipe: "VECTOR", .. })));
}

#[test]
fn too_many_programs_for_the_cores() {
    // teaching has 2 cores; three programs cannot run at once.
    let config = NpuConfig::preset("teaching").unwrap();
    let plan = exp_plan(24, 64, (0..3).map(|part| exp_program(8 * part, 64, None)).collect());
    assert!(matches!(simulate(&plan, &config), Err(NpuError::TooManyCores { programs: 3, available: 2, .. })));
}
