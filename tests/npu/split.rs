//! On a split chip (910B) a matmul feeding element-wise work goes cube core → GM → vector core, the
//! hand-off ordered by a cross-core flag; a single program using both units is rejected there and
//! accepted on the coupled 910A.
#![cfg(not(target_arch = "wasm32"))]

use tilelab::npu::{allocate_gm, execute, simulate, NpuConfig, NpuError};
use tilelab::tensor::{DType, SliceSpec, Tensor, UnaryOp};
use tilelab::tile::{GmRegion, GmTensor, KernelPlan, Memory, Pipe, ProgramBuilder, TensorId, TileOp, TileProgram};

fn region(tensor: u32, shape: [usize; 2]) -> GmRegion {
    GmRegion { tensor: TensorId(tensor), offsets: [0, 0].into(), shape: tilelab::tile::Dims::from(shape) }
}

/// Cube part: c = a·b (32×48 · 48×64, f16 in, f32 out), then sets cross-core flag 0.
fn cube_part(builder: &mut ProgramBuilder, handoff: Vec<tilelab::tile::Flag>) {
    let a_l1 = builder.buffer("a_l1", Memory::L1, &[32, 48], DType::F16);
    let b_l1 = builder.buffer("b_l1", Memory::L1, &[48, 64], DType::F16);
    let a_l0 = builder.buffer("a_l0", Memory::L0A, &[32, 48], DType::F16);
    let b_l0 = builder.buffer("b_l0", Memory::L0B, &[48, 64], DType::F16);
    let c_l0 = builder.buffer("c_l0", Memory::L0C, &[32, 64], DType::F32);
    let flags: Vec<_> = (0..5).map(|_| builder.flag()).collect();
    builder.push(TileOp::CopyIn { source: region(0, [32, 48]), destination: a_l1 }, vec![], vec![flags[0]]).unwrap();
    builder.push(TileOp::CopyIn { source: region(1, [48, 64]), destination: b_l1 }, vec![], vec![flags[1]]).unwrap();
    builder
        .push(
            TileOp::Move { source: a_l1, offsets: [0, 0].into(), shape: [32, 48].into(), destination: a_l0 },
            vec![flags[0]],
            vec![flags[2]],
        )
        .unwrap();
    builder
        .push(
            TileOp::Move { source: b_l1, offsets: [0, 0].into(), shape: [48, 64].into(), destination: b_l0 },
            vec![flags[1]],
            vec![flags[3]],
        )
        .unwrap();
    let mmad = TileOp::Mmad { a: a_l0, b: b_l0, c: c_l0, c_offsets: [0, 0], m: 32, k: 48, n: 64, accumulate: false };
    builder.push(mmad, vec![flags[2], flags[3]], vec![flags[4]]).unwrap();
    builder
        .push_cross(
            TileOp::CopyOut { source: c_l0, destination: region(2, [32, 64]) },
            vec![flags[4]],
            vec![],
            vec![],
            handoff,
        )
        .unwrap();
}

/// Vector part: d = relu(c), after cross-core flag 0.
fn vector_part(builder: &mut ProgramBuilder, handoff: Vec<tilelab::tile::Flag>) {
    let tile = builder.buffer("c_ub", Memory::Ub, &[32, 64], DType::F32);
    let (loaded, computed) = (builder.flag(), builder.flag());
    builder
        .push_cross(
            TileOp::CopyIn { source: region(2, [32, 64]), destination: tile },
            vec![],
            vec![loaded],
            handoff,
            vec![],
        )
        .unwrap();
    builder
        .push(
            TileOp::Unary { op: UnaryOp::Relu, input: tile, output: tile, valid_shape: [32, 64].into() },
            vec![loaded],
            vec![computed],
        )
        .unwrap();
    builder.push(TileOp::CopyOut { source: tile, destination: region(3, [32, 64]) }, vec![computed], vec![]).unwrap();
}

fn plan(programs: Vec<TileProgram>) -> KernelPlan {
    let tensor = |name: &str, shape: [usize; 2], dtype| GmTensor { name: name.into(), shape: shape.to_vec(), dtype };
    let tensors = vec![
        tensor("a", [32, 48], DType::F16),
        tensor("b", [48, 64], DType::F16),
        tensor("c", [32, 64], DType::F32),
        tensor("d", [32, 64], DType::F32),
    ];
    KernelPlan { name: "matmul_relu".into(), tensors, programs, cross_core_flags: 1, single_buffered_from: None }
}

#[test]
fn cube_to_gm_to_vector_on_a_split_chip() {
    let handoff = tilelab::tile::Flag(0);
    let mut cube = ProgramBuilder::new();
    cube_part(&mut cube, vec![handoff]);
    let mut vector = ProgramBuilder::new();
    vector_part(&mut vector, vec![handoff]);
    let plan = plan(vec![cube.finish(), vector.finish()]);
    let simulation = simulate(&plan, &NpuConfig::preset("Ascend910B2").unwrap()).unwrap();
    let events = &simulation.trace.events;
    let fixpipe_end = events.iter().find(|event| event.pipe == Pipe::Fixpipe).unwrap().end;
    let vector_load = events.iter().find(|event| event.core == 1 && event.pipe == Pipe::Mte2).unwrap();
    assert!(vector_load.start >= fixpipe_end, "the vector core reads c only after the cube core wrote it");

    // d = relu(a·b): products of f16 values are exact in f32 and 48 terms accumulate in f32,
    // so |d − d64| ≤ 48·2⁻²⁴·Σ|a·b|.
    let gm = allocate_gm(&plan).unwrap();
    for (index, seed) in [(0, 11), (1, 12)] {
        let values = Tensor::randn(gm[index].shape(), DType::F16, Some(seed)).unwrap();
        let specs: Vec<_> = gm[index].shape().iter().map(|&size| SliceSpec::full(size)).collect();
        gm[index].assign_slice(&specs, &values).unwrap();
    }
    execute(&plan, &gm).unwrap();
    let (a, b, d) = (gm[0].to_f64_vec(), gm[1].to_f64_vec(), gm[3].to_f64_vec());
    for row in 0..32 {
        for column in 0..64 {
            let terms: Vec<f64> = (0..48).map(|k| a[row * 48 + k] * b[k * 64 + column]).collect();
            let expected = terms.iter().sum::<f64>().max(0.0);
            let bound = 48.0 * 2f64.powi(-24) * terms.iter().map(|t| t.abs()).sum::<f64>() + 1e-30;
            assert!((d[row * 64 + column] - expected).abs() <= bound, "d[{row},{column}]");
        }
    }
}

#[test]
fn one_program_with_both_units_needs_a_coupled_chip() {
    let mut both = ProgramBuilder::new();
    cube_part(&mut both, vec![]);
    vector_part(&mut both, vec![]);
    let program = both.finish();
    let split = simulate(&plan(vec![program.clone()]), &NpuConfig::preset("Ascend910B2").unwrap());
    assert!(matches!(split, Err(NpuError::InvalidProgram { .. })), "{split:?}");
    // On 910A it runs; without the cross-core flag nothing orders the vector copy-in after the
    // cube's write, which is the programmer's business (the timing model still completes).
    assert!(simulate(&plan(vec![program]), &NpuConfig::preset("Ascend910A").unwrap()).is_ok());
}

#[test]
fn a_compiled_matmul_then_unary_hands_blocks_to_vector_cores() {
    use super::lowering_support::{compiled, tensor, UnitBuilder};
    use tilelab::tile::{CubeTiles, TileWork, WorkSettings, WorkStep};
    // d = sigmoid(a·b), a: 300×256, b: 256×200 bf16, written as whole-tensor ops: the compiler cuts
    // c into 64×128 cube blocks (ragged: 300 = 4·64 + 44, 200 = 128 + 72) for the cube cores and
    // hands them through a GM workspace (f32) to vector cores in 16×128 vec tiles.
    let mut unit = UnitBuilder::default();
    let a = unit.load(0, &[0, 0], &[300, 256], &[300, 256], DType::Bf16);
    let b = unit.load(1, &[0, 0], &[256, 200], &[256, 200], DType::Bf16);
    let c = unit.value(&[300, 200], &[300, 200], DType::F32);
    unit.step(WorkStep::Matmul { a, b, a_transposed: false, b_transposed: false, output: c });
    let d = unit.like(c, DType::F32);
    unit.step(WorkStep::Unary { op: UnaryOp::Sigmoid, input: c, output: d });
    unit.store(d, 2, &[0, 0], false);
    let settings = WorkSettings {
        vec_tile: Some(vec![16, 128]),
        cube_tiles: Some(CubeTiles { m: [64, 64], k: [64, 128], n: [128, 128] }),
        ..WorkSettings::default()
    };
    let tensors = vec![
        tensor("a", &[300, 256], DType::Bf16),
        tensor("b", &[256, 200], DType::Bf16),
        tensor("d", &[300, 200], DType::F32),
    ];
    let work = TileWork {
        name: "matmul_sigmoid".into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units: vec![unit.unit],
        settings,
    };
    let plan = compiled(&work, &NpuConfig::preset("Ascend910B2").unwrap());
    let simulation = simulate(&plan, &NpuConfig::preset("Ascend910B2").unwrap()).unwrap();
    // Each block's first vector copy-in starts no earlier than the end of the FIXPIPE copy-out that
    // wrote the block (matched through the cross-core flag of the two instructions).
    let instruction =
        |event: &tilelab::npu::TraceEvent| &plan.programs[event.core as usize].instructions[event.instruction as usize];
    let mut written = std::collections::HashMap::new();
    for event in &simulation.trace.events {
        for flag in &instruction(event).cross_set {
            written.insert(flag.0, event.end);
        }
    }
    assert_eq!(written.len() as u32, plan.cross_core_flags);
    // Every block handed off is read by the vector tiles that cover it, each after it was written.
    let mut read = std::collections::HashSet::new();
    for event in &simulation.trace.events {
        for flag in &instruction(event).cross_wait {
            assert!(
                event.start >= written[&flag.0],
                "block {} read at {} before written at {}",
                flag.0,
                event.start,
                written[&flag.0]
            );
            read.insert(flag.0);
        }
    }
    assert!(plan.cross_core_flags > 0);
    assert_eq!(read.len() as u32, plan.cross_core_flags);
    assert!(simulation.summary.pipe_busy.contains_key("VECTOR") && simulation.summary.pipe_busy.contains_key("CUBE"));

    // Values: c accumulates bf16 products exactly in f32 (256 terms), sigmoid is 1-Lipschitz/4, and
    // computed in f32: |d − d64| ≤ 256·2⁻²⁴·Σ|a·b|/4 + 2⁻²³.
    let gm = allocate_gm(&plan).unwrap();
    for (index, seed) in [(0, 21), (1, 22)] {
        let values = Tensor::randn(gm[index].shape(), DType::Bf16, Some(seed)).unwrap();
        let specs: Vec<_> = gm[index].shape().iter().map(|&size| SliceSpec::full(size)).collect();
        gm[index].assign_slice(&specs, &values).unwrap();
    }
    execute(&plan, &gm).unwrap();
    let (a, b, d) = (gm[0].to_f64_vec(), gm[1].to_f64_vec(), gm[2].to_f64_vec());
    for row in (0..300).step_by(7) {
        for column in 0..200 {
            let terms: Vec<f64> = (0..256).map(|k| a[row * 256 + k] * b[k * 200 + column]).collect();
            let expected = 1.0 / (1.0 + (-terms.iter().sum::<f64>()).exp());
            let bound = 256.0 * 2f64.powi(-24) * terms.iter().map(|t| t.abs()).sum::<f64>() / 4.0 + 2f64.powi(-23);
            assert!(
                (d[row * 200 + column] - expected).abs() <= bound,
                "d[{row},{column}] = {} vs {expected}",
                d[row * 200 + column]
            );
        }
    }
}
