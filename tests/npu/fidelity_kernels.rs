//! The kernels of the fidelity table (bench/fidelity/measured.csv) as the kernel compiler receives
//! them from a pypto script: `TileWork` with one unit per loop iteration, tiled as the measured
//! implementations tile them. Shapes only: the simulator never needs the values.
#![allow(dead_code)]

use super::lowering_support::{region, tensor, UnitBuilder};
use tilelab::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};
use tilelab::tile::{CubeTiles, TensorId, TileWork, WorkOperand, WorkSettings, WorkStep};

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

/// Flash-attention forward, d = 128, fp16, as the PTO-ISA JIT kernel runs it: one 128-row query
/// block per core, its key length walked in blocks of `KEY_BLOCK` with the online softmax. Unit
/// (block, j): s = q·k_jᵀ (f32); m = max(m_old, rowmax s); e = exp(s − m); α = exp(m_old − m);
/// l = α·l_old + rowsum e; o = α·o_old + fp16(e)·v_j; the running m, l, o live in workspaces that
/// the block's units read and write in order (`ordered`, one set per block, so blocks stay apart);
/// the last unit stores y = fp16(o / l).
/// Vector work on [64, 128] tiles (each of the two vector cores of a cube core takes 64 rows),
/// cube tiles 128 × 128 × 128 at L0 with 256-deep L1 loads.
pub fn flash_attention(query_length: usize, key_length: usize) -> TileWork {
    const KEY_BLOCK: usize = 512;
    let head = 128;
    let blocks = key_length.div_ceil(KEY_BLOCK);
    let mut units = Vec::new();
    let mut tensors = vec![
        tensor("q", &[query_length, head], DType::F16),
        tensor("k", &[key_length, head], DType::F16),
        tensor("v", &[key_length, head], DType::F16),
        tensor("y", &[query_length, head], DType::F16),
    ];
    let mut ordered = Vec::new();
    for query_block in 0..query_length / 128 {
        let row = query_block * 128;
        let (max_tensor, sum_tensor, out_tensor) =
            (tensors.len() as u32, tensors.len() as u32 + 1, tensors.len() as u32 + 2);
        tensors.push(tensor(&format!("running_max{query_block}"), &[128, 1], DType::F32));
        tensors.push(tensor(&format!("running_sum{query_block}"), &[128, 1], DType::F32));
        tensors.push(tensor(&format!("running_out{query_block}"), &[128, head], DType::F32));
        ordered.extend([TensorId(max_tensor), TensorId(sum_tensor), TensorId(out_tensor)]);
        for key_block in 0..blocks {
            let (column, width) = (key_block * KEY_BLOCK, KEY_BLOCK.min(key_length - key_block * KEY_BLOCK));
            let mut unit = UnitBuilder::default();
            let q = unit.load(0, &[row, 0], &[128, head], &[128, head], DType::F16);
            let k = unit.load(1, &[column, 0], &[width, head], &[width, head], DType::F16);
            let s = unit.value(&[128, width], &[128, width], DType::F32);
            unit.step(WorkStep::Matmul { a: q, b: k, a_transposed: false, b_transposed: true, output: s });
            let block_max = unit.value(&[128, 1], &[128, 1], DType::F32);
            unit.step(WorkStep::Reduce { op: ReduceOp::Amax, input: s, dims: vec![1], output: block_max });
            let old = (key_block > 0).then(|| {
                let max = unit.load(max_tensor, &[0, 0], &[128, 1], &[128, 1], DType::F32);
                let sum = unit.load(sum_tensor, &[0, 0], &[128, 1], &[128, 1], DType::F32);
                (max, sum)
            });
            let max = match old {
                Some((old_max, _)) => {
                    let max = unit.like(block_max, DType::F32);
                    let (lhs, rhs) = (WorkOperand::Tile(old_max), WorkOperand::Tile(block_max));
                    unit.step(WorkStep::Binary { op: BinaryOp::Maximum, lhs, rhs, output: max });
                    max
                }
                None => block_max,
            };
            let shifted = unit.like(s, DType::F32);
            let (lhs, rhs) = (WorkOperand::Tile(s), WorkOperand::Tile(max));
            unit.step(WorkStep::Binary { op: BinaryOp::Sub, lhs, rhs, output: shifted });
            let e = unit.like(s, DType::F32);
            unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: shifted, output: e });
            let block_sum = unit.like(block_max, DType::F32);
            unit.step(WorkStep::Reduce { op: ReduceOp::Sum, input: e, dims: vec![1], output: block_sum });
            let p = unit.like(s, DType::F16);
            unit.step(WorkStep::Cast { input: e, output: p });
            // α = exp(m_old − m) rescales what the earlier key blocks summed.
            let (sum, alpha) = match old {
                Some((old_max, old_sum)) => {
                    let difference = unit.like(max, DType::F32);
                    let (lhs, rhs) = (WorkOperand::Tile(old_max), WorkOperand::Tile(max));
                    unit.step(WorkStep::Binary { op: BinaryOp::Sub, lhs, rhs, output: difference });
                    let alpha = unit.like(max, DType::F32);
                    unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: difference, output: alpha });
                    let scaled = unit.like(max, DType::F32);
                    let (lhs, rhs) = (WorkOperand::Tile(alpha), WorkOperand::Tile(old_sum));
                    unit.step(WorkStep::Binary { op: BinaryOp::Mul, lhs, rhs, output: scaled });
                    let sum = unit.like(max, DType::F32);
                    let (lhs, rhs) = (WorkOperand::Tile(scaled), WorkOperand::Tile(block_sum));
                    unit.step(WorkStep::Binary { op: BinaryOp::Add, lhs, rhs, output: sum });
                    (sum, Some(alpha))
                }
                None => (block_sum, None),
            };
            unit.store(max, max_tensor, &[0, 0], false);
            unit.store(sum, sum_tensor, &[0, 0], false);
            let v = unit.load(2, &[column, 0], &[width, head], &[width, head], DType::F16);
            let product = unit.value(&[128, head], &[128, head], DType::F32);
            unit.step(WorkStep::Matmul { a: p, b: v, a_transposed: false, b_transposed: false, output: product });
            let out = match alpha {
                Some(alpha) => {
                    let old_out = unit.load(out_tensor, &[0, 0], &[128, head], &[128, head], DType::F32);
                    let scaled = unit.like(product, DType::F32);
                    let (lhs, rhs) = (WorkOperand::Tile(old_out), WorkOperand::Tile(alpha));
                    unit.step(WorkStep::Binary { op: BinaryOp::Mul, lhs, rhs, output: scaled });
                    let out = unit.like(product, DType::F32);
                    let (lhs, rhs) = (WorkOperand::Tile(scaled), WorkOperand::Tile(product));
                    unit.step(WorkStep::Binary { op: BinaryOp::Add, lhs, rhs, output: out });
                    out
                }
                None => product,
            };
            if key_block + 1 < blocks {
                unit.store(out, out_tensor, &[0, 0], false);
            } else {
                let normalised = unit.like(out, DType::F32);
                let (lhs, rhs) = (WorkOperand::Tile(out), WorkOperand::Tile(sum));
                unit.step(WorkStep::Binary { op: BinaryOp::Div, lhs, rhs, output: normalised });
                let y = unit.like(out, DType::F16);
                unit.step(WorkStep::Cast { input: normalised, output: y });
                unit.store(y, 3, &[row, 0], false);
            }
            units.push(unit.unit);
        }
    }
    let mut attention = work("flash_attention", tensors, units);
    attention.ordered = ordered;
    attention.settings.vec_tile = Some(vec![64, 128]);
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
