//! Functional execution of compiled kernels (whole-tensor ops tiled by the compiler) against f64
//! references computed here, element by element, from the (already rounded) input values. Ragged
//! last tiles are included in every case.
#![cfg(not(target_arch = "wasm32"))]

use super::lowering_support::{chain_work, compiled, tensor, Chain, UnitBuilder};
use tilelab::npu::{allocate_gm, check_plan, execute, NpuConfig};
use tilelab::tensor::{BinaryOp, DType, ReduceOp, Tensor, UnaryOp};
use tilelab::tile::{whole_matmul, CubeTiles, TileWork, WorkSettings, WorkStep};

fn fill(target: &Tensor, seed: u64) {
    let values = Tensor::randn(target.shape(), target.dtype(), Some(seed)).unwrap();
    let specs: Vec<_> = target.shape().iter().map(|&size| tilelab::tensor::SliceSpec::full(size)).collect();
    target.assign_slice(&specs, &values).unwrap();
}

#[test]
fn a_compiled_chain_in_bf16_matches_f64() {
    // y = exp(x) * w + x over 100×80 bf16 in 32×32 tiles (ragged: 100 = 3·32 + 4, 80 = 2·32 + 16).
    // Each op computes in f32 and rounds to bf16, so after 3 roundings |y − y64| ≤ ~3·2⁻⁸·(|exp(x)·w| + |x|)
    // plus the growth of exp: a relative bound of 2⁻⁶ of the magnitudes is comfortably above that.
    let (x, w) = (tensor("x", &[100, 80], DType::Bf16), tensor("w", &[100, 80], DType::Bf16));
    let steps = [Chain::Unary(UnaryOp::Exp), Chain::Binary(BinaryOp::Mul, 1), Chain::Binary(BinaryOp::Add, 0)];
    let config = NpuConfig::preset("teaching").unwrap();
    let plan = compiled(&chain_work(&[x, w], &steps, DType::Bf16, [32, 32], 2, None), &config);
    check_plan(&plan, &config).unwrap();
    let gm = allocate_gm(&plan).unwrap();
    fill(&gm[0], 1);
    fill(&gm[1], 2);
    execute(&plan, &gm).unwrap();
    let (xs, ws, ys) = (gm[0].to_f64_vec(), gm[1].to_f64_vec(), gm[2].to_f64_vec());
    for index in 0..xs.len() {
        let expected = xs[index].exp() * ws[index] + xs[index];
        let scale = (xs[index].exp() * ws[index]).abs() + xs[index].abs();
        assert!((ys[index] - expected).abs() <= scale / 64.0 + 1e-6, "element {index}: {} vs {expected}", ys[index]);
    }
}

#[test]
fn row_sum_over_column_tiles_matches_f64() {
    // out[r] = Σ_c x[r, c] over 50×200 f32, tiles 16×64 (4 column tiles, the last 8 wide, ragged rows).
    // f32 summation of 200 values of size ~1: error ≤ 200·2⁻²⁴·Σ|x| ≈ 1e-5·Σ|x|.
    // One unit over the whole tensor: the compiler expands it by the vec tile and accumulates the
    // partial sums of a row's column tiles.
    let mut unit = UnitBuilder::default();
    let x = unit.load(0, &[0, 0], &[50, 200], &[50, 200], DType::F32);
    let sums = unit.value(&[50, 1], &[50, 1], DType::F32);
    unit.step(WorkStep::Reduce { op: ReduceOp::Sum, input: x, dims: vec![1], output: sums });
    unit.store(sums, 1, &[0, 0], false);
    let work = TileWork {
        name: "row_sum".into(),
        tensors: vec![tensor("x", &[50, 200], DType::F32), tensor("sums", &[50, 1], DType::F32)],
        views: Vec::new(),
        ordered: Vec::new(),
        units: vec![unit.unit],
        settings: WorkSettings { vec_tile: Some(vec![16, 64]), ..WorkSettings::default() },
    };
    let config = NpuConfig::preset("teaching").unwrap();
    let plan = compiled(&work, &config);
    check_plan(&plan, &config).unwrap();
    let gm = allocate_gm(&plan).unwrap();
    fill(&gm[0], 3);
    execute(&plan, &gm).unwrap();
    let (xs, sums) = (gm[0].to_f64_vec(), gm[1].to_f64_vec());
    for row in 0..50 {
        let slice = &xs[row * 200..(row + 1) * 200];
        let expected: f64 = slice.iter().sum();
        let magnitude: f64 = slice.iter().map(|v| v.abs()).sum();
        assert!((sums[row] - expected).abs() <= 1e-5 * magnitude, "row {row}: {} vs {expected}", sums[row]);
    }
}

#[test]
fn a_compiled_matmul_in_bf16_accumulates_in_f32() {
    // c = a·b with a: 200×96, b: 96×136 bf16, f32 output; tiles [32,64],[32,64],[64,128] leave ragged
    // blocks in m (200 = 3·64 + 8) and n (136 = 128 + 8). Products of bf16 values are exact in f32 and
    // the cube accumulates in f32: |c − c64| ≤ 96·2⁻²⁴·Σ|a·b| per element.
    let (a, b) = (tensor("a", &[200, 96], DType::Bf16), tensor("b", &[96, 136], DType::Bf16));
    let tiles = CubeTiles { m: [32, 64], k: [32, 64], n: [64, 128] };
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    let plan = compiled(&whole_matmul(a, b, DType::F32, tiles, 2, None), &config);
    check_plan(&plan, &config).unwrap();
    let gm = allocate_gm(&plan).unwrap();
    fill(&gm[0], 4);
    fill(&gm[1], 5);
    execute(&plan, &gm).unwrap();
    let (av, bv, cv) = (gm[0].to_f64_vec(), gm[1].to_f64_vec(), gm[2].to_f64_vec());
    for row in 0..200 {
        for column in 0..136 {
            let terms: Vec<f64> = (0..96).map(|k| av[row * 96 + k] * bv[k * 136 + column]).collect();
            let expected: f64 = terms.iter().sum();
            let magnitude: f64 = terms.iter().map(|t| t.abs()).sum();
            let got = cv[row * 136 + column];
            assert!(
                (got - expected).abs() <= 96.0 * 2f64.powi(-24) * magnitude + 1e-30,
                "c[{row},{column}] = {got} vs {expected}"
            );
        }
    }
}
