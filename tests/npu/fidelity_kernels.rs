//! The kernels of the fidelity table (bench/fidelity/measured.csv) as the kernel compiler receives
//! them from a pypto script: `TileWork` with one unit per loop iteration, tiled as the measured
//! implementations tile them. Shapes only: the simulator never needs the values.
#![allow(dead_code)]

use super::lowering_support::{region, tensor, UnitBuilder};
use tilelab::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};
use tilelab::tile::{CubeTiles, TileWork, WorkOperand, WorkSettings, WorkStep};

fn work(name: &str, tensors: Vec<tilelab::tile::GmTensor>, units: Vec<tilelab::tile::WorkUnit>) -> TileWork {
    TileWork {
        name: name.into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units,
        settings: WorkSettings { vec_tile_line: Some(7), cube_tile_line: Some(8), ..WorkSettings::default() },
    }
}

/// The PTO-ISA GEMM sample: `c = a · b` (fp16 in, fp32 out) written as one flat loop of 24
/// iterations, each a per-core block of size/4 rows × size/6 columns over the whole K, with the
/// sample's base tile M=128 K=64 N=256 and four K blocks per L1 load.
pub fn gemm(size: usize) -> TileWork {
    let (rows, columns) = (size / 4, size / 6);
    let units = (0..24)
        .map(|block| {
            let (row, column) = ((block / 6) * rows, (block % 6) * columns);
            let mut unit = UnitBuilder::default();
            let a = unit.load(0, &[row, 0], &[rows, size], &[rows, size], DType::F16);
            let b = unit.load(1, &[0, column], &[size, columns], &[size, columns], DType::F16);
            let c = unit.value(&[rows, columns], &[rows, columns], DType::F32);
            unit.step(WorkStep::Matmul { a, b, a_transposed: false, b_transposed: false, output: c });
            unit.store(c, 2, &[row, column], false);
            unit.unit
        })
        .collect();
    let tensors = vec![
        tensor("a", &[size, size], DType::F16),
        tensor("b", &[size, size], DType::F16),
        tensor("c", &[size, size], DType::F32),
    ];
    let mut gemm = work("gemm", tensors, units);
    gemm.settings.cube_tiles = Some(CubeTiles { m: [128, 128], k: [64, 256], n: [256, 256] });
    gemm
}

/// Flash-attention forward, d = 128, fp16: one unit per 128-row query block over the whole key
/// length: s = q·kᵀ (f32), m = rowmax s, e = exp(s − m), l = rowsum e, p = fp16(e), o = p·v,
/// y = fp16(o / l). Vector work on [64, 512] tiles (the softmax row statistics join the column
/// tiles of a row band), cube tiles 128 × 128 × 128 at L0 with 256-deep L1 loads.
pub fn flash_attention(query_length: usize, key_length: usize) -> TileWork {
    let head = 128;
    let units = (0..query_length / 128)
        .map(|block| {
            let row = block * 128;
            let mut unit = UnitBuilder::default();
            let q = unit.load(0, &[row, 0], &[128, head], &[128, head], DType::F16);
            let k = unit.load(1, &[0, 0], &[key_length, head], &[key_length, head], DType::F16);
            let v = unit.load(2, &[0, 0], &[key_length, head], &[key_length, head], DType::F16);
            let s = unit.value(&[128, key_length], &[128, key_length], DType::F32);
            unit.step(WorkStep::Matmul { a: q, b: k, a_transposed: false, b_transposed: true, output: s });
            let m = unit.value(&[128, 1], &[128, 1], DType::F32);
            unit.step(WorkStep::Reduce { op: ReduceOp::Amax, input: s, dims: vec![1], output: m });
            let shifted = unit.like(s, DType::F32);
            let (lhs, rhs) = (WorkOperand::Tile(s), WorkOperand::Tile(m));
            unit.step(WorkStep::Binary { op: BinaryOp::Sub, lhs, rhs, output: shifted });
            let e = unit.like(s, DType::F32);
            unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: shifted, output: e });
            let l = unit.value(&[128, 1], &[128, 1], DType::F32);
            unit.step(WorkStep::Reduce { op: ReduceOp::Sum, input: e, dims: vec![1], output: l });
            let p = unit.like(s, DType::F16);
            unit.step(WorkStep::Cast { input: e, output: p });
            let o = unit.value(&[128, head], &[128, head], DType::F32);
            unit.step(WorkStep::Matmul { a: p, b: v, a_transposed: false, b_transposed: false, output: o });
            let normalised = unit.like(o, DType::F32);
            let (lhs, rhs) = (WorkOperand::Tile(o), WorkOperand::Tile(l));
            unit.step(WorkStep::Binary { op: BinaryOp::Div, lhs, rhs, output: normalised });
            let y = unit.like(o, DType::F16);
            unit.step(WorkStep::Cast { input: normalised, output: y });
            unit.store(y, 3, &[row, 0], false);
            unit.unit
        })
        .collect();
    let tensors = vec![
        tensor("q", &[query_length, head], DType::F16),
        tensor("k", &[key_length, head], DType::F16),
        tensor("v", &[key_length, head], DType::F16),
        tensor("y", &[query_length, head], DType::F16),
    ];
    let mut attention = work("flash_attention", tensors, units);
    attention.settings.vec_tile = Some(vec![64, 512]);
    attention.settings.cube_tiles = Some(CubeTiles { m: [128, 128], k: [128, 256], n: [128, 128] });
    attention
}

/// SwiGLU forward, fp16: `y = silu(x[:, :h]) · x[:, h:]` for x of `rows` × 2h, one unit per band
/// of `band` rows, vec tile [band, min(h, 1024)].
pub fn swiglu(rows: usize, width: usize, band: usize) -> TileWork {
    let half = width / 2;
    let units = (0..rows.div_ceil(band))
        .map(|index| {
            let (row, valid) = (index * band, band.min(rows - index * band));
            let mut unit = UnitBuilder::default();
            let gate = unit.load(0, &[row, 0], &[band, half], &[valid, half], DType::F16);
            let up = unit.load(0, &[row, half], &[band, half], &[valid, half], DType::F16);
            let activated = unit.like(gate, DType::F16);
            unit.step(WorkStep::Unary { op: UnaryOp::Silu, input: gate, output: activated });
            let y = unit.like(gate, DType::F16);
            let (lhs, rhs) = (WorkOperand::Tile(activated), WorkOperand::Tile(up));
            unit.step(WorkStep::Binary { op: BinaryOp::Mul, lhs, rhs, output: y });
            unit.store(y, 1, &[row, 0], false);
            unit.unit
        })
        .collect();
    let tensors = vec![tensor("x", &[rows, width], DType::F16), tensor("y", &[rows, half], DType::F16)];
    let mut swiglu = work("swiglu", tensors, units);
    swiglu.settings.vec_tile = Some(vec![band, half.min(1024)]);
    swiglu
}

/// RMSNorm, fp16 in and out, f32 inside: `y = fp16(x · rsqrt(mean(x²) + ε)) · w`, one unit per row.
pub fn rms_norm(rows: usize, width: usize) -> TileWork {
    let units = (0..rows)
        .map(|row| {
            let mut unit = UnitBuilder::default();
            let x = unit.load(0, &[row, 0], &[1, width], &[1, width], DType::F16);
            let weight = unit.load(1, &[0, 0], &[1, width], &[1, width], DType::F16);
            let wide = unit.like(x, DType::F32);
            unit.step(WorkStep::Cast { input: x, output: wide });
            let squared = unit.like(x, DType::F32);
            let (lhs, rhs) = (WorkOperand::Tile(wide), WorkOperand::Tile(wide));
            unit.step(WorkStep::Binary { op: BinaryOp::Mul, lhs, rhs, output: squared });
            let mean = unit.value(&[1, 1], &[1, 1], DType::F32);
            unit.step(WorkStep::Reduce { op: ReduceOp::Mean, input: squared, dims: vec![1], output: mean });
            let shifted = unit.like(mean, DType::F32);
            let (lhs, rhs) = (WorkOperand::Tile(mean), WorkOperand::Scalar(1e-6));
            unit.step(WorkStep::Binary { op: BinaryOp::Add, lhs, rhs, output: shifted });
            let scale = unit.like(mean, DType::F32);
            unit.step(WorkStep::Unary { op: UnaryOp::Rsqrt, input: shifted, output: scale });
            let normalised = unit.like(x, DType::F32);
            let (lhs, rhs) = (WorkOperand::Tile(wide), WorkOperand::Tile(scale));
            unit.step(WorkStep::Binary { op: BinaryOp::Mul, lhs, rhs, output: normalised });
            let narrow = unit.like(x, DType::F16);
            unit.step(WorkStep::Cast { input: normalised, output: narrow });
            let y = unit.like(x, DType::F16);
            let (lhs, rhs) = (WorkOperand::Tile(narrow), WorkOperand::Tile(weight));
            unit.step(WorkStep::Binary { op: BinaryOp::Mul, lhs, rhs, output: y });
            unit.step(WorkStep::Store { input: y, region: region(2, &[row, 0], &[1, width]), accumulate: false });
            unit.unit
        })
        .collect();
    let tensors = vec![
        tensor("x", &[rows, width], DType::F16),
        tensor("w", &[1, width], DType::F16),
        tensor("y", &[rows, width], DType::F16),
    ];
    work("rms_norm", tensors, units)
}
