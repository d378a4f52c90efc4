//! An operand kept resident in L1 across matmuls: when a cube core's next L1 copy would bring the
//! very region its ring slot still holds, of a tensor the kernel never writes, the copy is left
//! out (FA keeps its q tile while it walks the key blocks). A region of a written tensor is
//! always copied again.

use super::lowering_support::{target, tensor, UnitBuilder};
use tilelab::npu::{simulate, NpuConfig};
use tilelab::tensor::DType;
use tilelab::tile::{lower_work, CubeTiles, Memory, TensorId, TileOp, TileWork, WorkSettings, WorkStep};

/// s = q · kᵀ for q [128, 128] and k [512, 128] (f16), s [128, 512] f32 an ordered workspace, so
/// the four 128-column output tiles run in order on one cube core. `q_written`: a unit before it
/// stores q back into itself, so q is no longer read-only.
fn scores(q_written: bool) -> TileWork {
    let mut units = Vec::new();
    if q_written {
        let mut unit = UnitBuilder::default();
        let q = unit.load(0, &[0, 0], &[128, 128], &[128, 128], DType::F16);
        unit.store(q, 0, &[0, 0], false);
        units.push(unit.unit);
    }
    let mut unit = UnitBuilder::default();
    let q = unit.load(0, &[0, 0], &[128, 128], &[128, 128], DType::F16);
    let k = unit.load(1, &[0, 0], &[512, 128], &[512, 128], DType::F16);
    let s = unit.value(&[128, 512], &[128, 512], DType::F32);
    unit.step(WorkStep::Matmul { a: q, b: k, a_transposed: false, b_transposed: true, output: s });
    unit.store(s, 2, &[0, 0], false);
    units.push(unit.unit);
    TileWork {
        name: "scores".into(),
        tensors: vec![
            tensor("q", &[128, 128], DType::F16),
            tensor("k", &[512, 128], DType::F16),
            tensor("s", &[128, 512], DType::F32),
        ],
        views: Vec::new(),
        ordered: vec![TensorId(2)],
        units,
        settings: WorkSettings {
            cube_tiles: Some(CubeTiles { m: [128, 128], k: [128, 128], n: [128, 128] }),
            vec_tile_line: Some(7),
            cube_tile_line: Some(8),
            ..WorkSettings::default()
        },
    }
}

/// The L1 copies of each input tensor over all programs, and the simulated GM bytes read.
fn l1_copies(work: &TileWork) -> ([usize; 2], u64) {
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    let plan = lower_work(work, &target(&config)).unwrap();
    let mut copies = [0; 2];
    for program in &plan.programs {
        for instruction in &program.instructions {
            if let TileOp::CopyIn { source, destination } = &instruction.op {
                let into_l1 = program.buffers[destination.0 as usize].memory == Memory::L1;
                if into_l1 && source.tensor.0 < 2 {
                    copies[source.tensor.0 as usize] += 1;
                }
            }
        }
    }
    (copies, simulate(&plan, &config).unwrap().summary.gm_bytes_read)
}

#[test]
fn a_read_only_operand_stays_in_l1_across_the_output_tiles() {
    // Four output tiles of 128 columns, each with K = 128 in one L1 tile. k is a new [128, 128]
    // block (32 KiB) for each; q is the same [128, 128] region (32 KiB) each time: copied once,
    // then resident. GM bytes read: q 32 KiB + k 4 × 32 KiB = 160 KiB (163 840 B) where copying q
    // each time read 256 KiB; at 910B2's 110 B/cycle the three copies left out are
    // 3 × 32 768 / 110 ≈ 894 cycles of MTE2 (plus 3 × 12 issue cycles).
    assert_eq!(l1_copies(&scores(false)), ([1, 4], 163_840));
}

#[test]
fn an_operand_the_kernel_writes_is_copied_again() {
    // q is stored by the first unit, so a resident copy could be stale: the matmul copies it for
    // each of its four output tiles. GM bytes read: the first unit's q load into UB (32 KiB) +
    // 4 × 32 KiB of q + 4 × 32 KiB of k = 288 KiB (294 912 B).
    assert_eq!(l1_copies(&scores(true)), ([4, 4], 294_912));
}
