//! The flash-attention kernel of the fidelity table computes attention: its units are split into
//! cube and vector stages joined through GM workspaces (each stage tiled by its own tile shape),
//! and the cross-core flags between the stages order them so that the values come out right.

use super::fidelity_kernels::flash_attention;
use super::lowering_support::{fill, lower_and_simulate, run_values};

/// softmax(q·kᵀ)·v in f64 from the fp16 inputs, row by row.
fn attention_reference(q: &[f64], k: &[f64], v: &[f64], queries: usize, keys: usize, head: usize) -> Vec<f64> {
    let mut out = vec![0.0; queries * head];
    for row in 0..queries {
        let scores: Vec<f64> =
            (0..keys).map(|key| (0..head).map(|dim| q[row * head + dim] * k[key * head + dim]).sum()).collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|score| (score - max).exp()).collect();
        let total: f64 = weights.iter().sum();
        for dim in 0..head {
            let weighted: f64 = (0..keys).map(|key| weights[key] * v[key * head + dim]).sum();
            out[row * head + dim] = weighted / total;
        }
    }
    out
}

fn check_attention(preset: &str, queries: usize, keys: usize) {
    let work = flash_attention(queries, keys);
    let (plan, _, gm) = lower_and_simulate(&work, preset);
    assert!(
        plan.tensors.iter().any(|tensor| tensor.name.contains("_stage")),
        "{preset}: the units were split into stages joined through workspaces"
    );
    let (q, k, v) = (fill(&gm, 0, 1), fill(&gm, 1, 2), fill(&gm, 2, 3));
    // Scale q so the scores spread over a few units (softmax neither flat nor one-hot).
    let q: Vec<f64> = q.iter().map(|value| value * 0.125).collect();
    let scaled = tilelab::tensor::Tensor::from_f64(q, &[queries, 128], tilelab::tensor::DType::F16).unwrap();
    let specs: Vec<_> = [queries, 128].iter().map(|&size| tilelab::tensor::SliceSpec::full(size)).collect();
    gm[0].assign_slice(&specs, &scaled).unwrap();
    let q = gm[0].to_f64_vec();
    run_values(&plan, &gm);
    let expected = attention_reference(&q, &k, &v, queries, keys, 128);
    let actual = gm[3].to_f64_vec();
    // fp16 p and y: a few fp16 ulps of values below 4.
    let worst = actual.iter().zip(&expected).map(|(got, want)| (got - want).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-2, "{preset} {queries}x{keys}: worst error {worst}");
}

#[test]
fn split_flash_attention_matches_an_f64_reference_on_the_split_chip() {
    // Two query blocks, three key blocks of 512 (the last ragged): every stage hand-off is exercised.
    check_attention("Ascend910B2", 256, 1280);
}

#[test]
fn split_flash_attention_matches_an_f64_reference_on_a_coupled_chip() {
    check_attention("Ascend910A", 128, 1024);
}
