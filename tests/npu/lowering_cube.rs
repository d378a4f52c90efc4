#![cfg(not(target_arch = "wasm32"))]
//! Matmuls through the generic lowering: transposed operands (MTE1 transposing moves), and a
//! matmul feeding element-wise work — on the split 910B2 through a GM workspace ordered by
//! cross-core flags, on the coupled 910A straight from L0C into UB.

use super::lowering_support as npu_lowering_support;

use npu_lowering_support::*;
use tilelab::tensor::{BinaryOp, DType, UnaryOp};
use tilelab::tile::{CoreKind, CubeTiles, Pipe, TileOp, TileWork, WorkOperand, WorkStep};

/// Cube tiles with ragged pieces for M = 48, K = 80, N = 64 units: L0 16×32×32, L1 32×64×64.
const TILES: CubeTiles = CubeTiles { m: [16, 32], k: [32, 64], n: [32, 64] };

/// c = op(a)·op(b) with M = 48, K = 80, N = 64: `a` is stored [M, K] or, transposed, [K, M];
/// `b` [K, N] or [N, K]. Units are 32-row bands of c (the second has 16 rows).
fn matmul_work(a_transposed: bool, b_transposed: bool, dtype: DType) -> TileWork {
    let (m, k, n) = (48, 80, 64);
    let a_shape = if a_transposed { [k, m] } else { [m, k] };
    let b_shape = if b_transposed { [n, k] } else { [k, n] };
    let tensors = vec![tensor("a", &a_shape, dtype), tensor("b", &b_shape, dtype), tensor("c", &[m, n], DType::F32)];
    let mut units = Vec::new();
    for row in (0..m).step_by(32) {
        let rows = 32.min(m - row);
        let mut unit = UnitBuilder::default();
        let a = if a_transposed {
            unit.load(0, &[0, row], &[k, 32], &[k, rows], dtype)
        } else {
            unit.load(0, &[row, 0], &[32, k], &[rows, k], dtype)
        };
        let b = unit.load(1, &[0, 0], &b_shape, &b_shape, dtype);
        let c = unit.value(&[32, n], &[rows, n], DType::F32);
        unit.step(WorkStep::Matmul { a, b, a_transposed, b_transposed, output: c });
        unit.store(c, 2, &[row, 0], false);
        units.push(unit.unit);
    }
    TileWork { name: "matmul".into(), tensors, views: Vec::new(), units, settings: settings(2, Some(TILES)) }
}

/// Element (i, j) of op(t) given t's stored values (row-major, `columns` stored columns): the
/// transpose reads stored element (j, i).
fn element(values: &[f64], transposed: bool, columns: usize, i: usize, j: usize) -> f64 {
    if transposed {
        values[j * columns + i]
    } else {
        values[i * columns + j]
    }
}

#[test]
fn matmul_with_transposed_operands() {
    let (m, k, n) = (48, 80, 64);
    for preset in ["Ascend910A", "Ascend910B2"] {
        for (a_transposed, b_transposed) in [(false, false), (true, false), (false, true), (true, true)] {
            for dtype in [DType::Bf16, DType::F16] {
                let (plan, simulation, gm) =
                    lower_and_simulate(&matmul_work(a_transposed, b_transposed, dtype), preset);
                let transposing = simulation.trace.events.iter().filter(|event| event.op == "move_transposed").count();
                assert_eq!(
                    transposing > 0,
                    a_transposed || b_transposed,
                    "{preset}: transposed operands go through transposing moves"
                );
                let (a, b) = (fill(&gm, 0, 7), fill(&gm, 1, 8));
                run_values(&plan, &gm);
                let a_columns = if a_transposed { m } else { k };
                let b_columns = if b_transposed { k } else { n };
                let c = gm[2].to_f64_vec();
                for i in 0..m {
                    for j in 0..n {
                        // Products of 16-bit floats are exact in f32; 80 terms summed in f32
                        // (L0C) give |c − c64| ≤ 80·2⁻²⁴·Σ|a·b|.
                        let terms: Vec<f64> = (0..k)
                            .map(|p| {
                                element(&a, a_transposed, a_columns, i, p) * element(&b, b_transposed, b_columns, p, j)
                            })
                            .collect();
                        let expected: f64 = terms.iter().sum();
                        let bound = 80.0 * 2f64.powi(-24) * terms.iter().map(|term| term.abs()).sum::<f64>() + 1e-12;
                        assert!(
                            (c[i * n + j] - expected).abs() <= bound,
                            "{preset} a^T={a_transposed} b^T={b_transposed} {dtype:?} c[{i},{j}] = {} vs {expected}",
                            c[i * n + j]
                        );
                    }
                }
            }
        }
    }
}

/// y = relu(0.5·(a·b) + bias) in bf16, a: [64, 96] bf16, b: [96, 128] bf16, bias: [1, 128] f32;
/// units are 32-row bands, the matmul result (f32) is read by vector steps.
fn matmul_then_vector_work() -> TileWork {
    let tensors = vec![
        tensor("a", &[64, 96], DType::Bf16),
        tensor("b", &[96, 128], DType::Bf16),
        tensor("bias", &[1, 128], DType::F32),
        tensor("y", &[64, 128], DType::Bf16),
    ];
    let tiles = CubeTiles { m: [32, 32], k: [32, 96], n: [64, 128] };
    let mut units = Vec::new();
    for row in [0, 32] {
        let mut unit = UnitBuilder::default();
        let a = unit.load(0, &[row, 0], &[32, 96], &[32, 96], DType::Bf16);
        let b = unit.load(1, &[0, 0], &[96, 128], &[96, 128], DType::Bf16);
        let bias = unit.load(2, &[0, 0], &[1, 128], &[1, 128], DType::F32);
        let c = unit.value(&[32, 128], &[32, 128], DType::F32);
        unit.step(WorkStep::Matmul { a, b, a_transposed: false, b_transposed: false, output: c });
        let half = unit.like(c, DType::F32);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Mul,
            lhs: WorkOperand::Tile(c),
            rhs: WorkOperand::Scalar(0.5),
            output: half,
        });
        let shifted = unit.like(c, DType::F32);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Add,
            lhs: WorkOperand::Tile(half),
            rhs: WorkOperand::Tile(bias),
            output: shifted,
        });
        let activated = unit.like(c, DType::F32);
        unit.step(WorkStep::Unary { op: UnaryOp::Relu, input: shifted, output: activated });
        let y = unit.like(c, DType::Bf16);
        unit.step(WorkStep::Cast { input: activated, output: y });
        unit.store(y, 3, &[row, 0], false);
        units.push(unit.unit);
    }
    TileWork { name: "matmul_relu".into(), tensors, views: Vec::new(), units, settings: settings(2, Some(tiles)) }
}

fn check_matmul_then_vector_values(preset: &str) -> (tilelab::tile::KernelPlan, tilelab::npu::Simulation) {
    let (plan, simulation, gm) = lower_and_simulate(&matmul_then_vector_work(), preset);
    let (a, b, bias) = (fill(&gm, 0, 9), fill(&gm, 1, 10), fill(&gm, 2, 11));
    run_values(&plan, &gm);
    let y = gm[3].to_f64_vec();
    for i in 0..64 {
        for j in 0..128 {
            let terms: Vec<f64> = (0..96).map(|p| a[i * 96 + p] * b[p * 128 + j]).collect();
            let expected = (0.5 * terms.iter().sum::<f64>() + bias[j]).max(0.0);
            // The f32 part is ≤ 96·2⁻²⁴·Σ|a·b| off; the final bf16 rounding adds ≤ 2⁻⁸|y|.
            let bound = 96.0 * 2f64.powi(-24) * terms.iter().map(|term| term.abs()).sum::<f64>()
                + 2f64.powi(-8) * expected.abs()
                + 1e-6;
            assert!(
                (y[i * 128 + j] - expected).abs() <= bound,
                "{preset} y[{i},{j}] = {} vs {expected}",
                y[i * 128 + j]
            );
        }
    }
    (plan, simulation)
}

#[test]
fn matmul_then_vector_on_a_split_chip_goes_through_gm() {
    let work = matmul_then_vector_work();
    let (plan, simulation) = check_matmul_then_vector_values("Ascend910B2");
    // Cube programs first, then vector programs; one workspace tensor, one hand-off per unit.
    let kinds: Vec<CoreKind> = plan.programs.iter().map(|program| program.core_kind()).collect();
    assert_eq!(kinds, vec![CoreKind::Cube, CoreKind::Cube, CoreKind::Vector, CoreKind::Vector]);
    assert_eq!(plan.tensors.len(), work.tensors.len() + 1);
    assert_eq!(plan.cross_core_flags, 2);
    let events = &simulation.trace.events;
    for flag in 0..2u32 {
        // The vector copy-in that waits on flag f starts after the cube copy-out that sets it ended.
        let (setter_core, setter) = plan
            .programs
            .iter()
            .enumerate()
            .find_map(|(core, program)| {
                program
                    .instructions
                    .iter()
                    .position(|instruction| instruction.cross_set.iter().any(|set| set.0 == flag))
                    .map(|index| (core, index))
            })
            .unwrap();
        let (waiter_core, waiter) = plan
            .programs
            .iter()
            .enumerate()
            .find_map(|(core, program)| {
                program
                    .instructions
                    .iter()
                    .position(|instruction| instruction.cross_wait.iter().any(|wait| wait.0 == flag))
                    .map(|index| (core, index))
            })
            .unwrap();
        let event = |core: usize, index: usize| {
            events.iter().find(|event| event.core == core as u32 && event.instruction == index as u32).unwrap()
        };
        assert_eq!(event(setter_core, setter).pipe, Pipe::Fixpipe);
        assert_eq!(event(waiter_core, waiter).pipe, Pipe::Mte2);
        assert!(event(waiter_core, waiter).start >= event(setter_core, setter).end);
    }
}

#[test]
fn matmul_then_vector_on_a_coupled_chip_moves_l0c_to_ub() {
    let work = matmul_then_vector_work();
    let (plan, simulation) = check_matmul_then_vector_values("Ascend910A");
    // No workspace and no cross-core flags: FIXPIPE moves the f32 result from L0C into UB.
    assert_eq!(plan.tensors.len(), work.tensors.len());
    assert_eq!(plan.cross_core_flags, 0);
    assert!(plan.programs.iter().all(|program| program.core_kind() == CoreKind::Mixed));
    let moves = plan
        .programs
        .iter()
        .flat_map(|program| &program.instructions)
        .filter(|instruction| instruction.pipe == Pipe::Fixpipe && matches!(instruction.op, TileOp::Move { .. }))
        .count();
    assert_eq!(moves, 2, "one L0C → UB move per unit");
    // Only y goes back to GM: 64·128 bf16.
    assert_eq!(simulation.summary.gm_bytes_written, 64 * 128 * 2);
}

/// Attention for 32 query rows per unit, the probabilities fed back into the cube:
/// s = q·kᵀ (f32), m = max_j s, e = exp(s − m), l = Σ_j e, p = bf16(e), o = p·v, y = o / l, with
/// q, k, v: [64, 64] bf16. p is computed in UB and read by a matmul, so it goes UB → GM workspace →
/// L1; on a split chip that is a vector → cube hand-off between two cube → vector ones.
fn attention_work() -> TileWork {
    let tensors = vec![
        tensor("q", &[64, 64], DType::Bf16),
        tensor("k", &[64, 64], DType::Bf16),
        tensor("v", &[64, 64], DType::Bf16),
        tensor("y", &[64, 64], DType::F32),
    ];
    let tiles = CubeTiles { m: [32, 32], k: [32, 64], n: [64, 64] };
    let mut units = Vec::new();
    for row in [0, 32] {
        let mut unit = UnitBuilder::default();
        let q = unit.load(0, &[row, 0], &[32, 64], &[32, 64], DType::Bf16);
        let k = unit.load(1, &[0, 0], &[64, 64], &[64, 64], DType::Bf16);
        let v = unit.load(2, &[0, 0], &[64, 64], &[64, 64], DType::Bf16);
        let s = unit.value(&[32, 64], &[32, 64], DType::F32);
        unit.step(WorkStep::Matmul { a: q, b: k, a_transposed: false, b_transposed: true, output: s });
        let m = unit.value(&[32, 1], &[32, 1], DType::F32);
        unit.step(WorkStep::Reduce { op: tilelab::tensor::ReduceOp::Amax, input: s, dims: vec![1], output: m });
        let shifted = unit.like(s, DType::F32);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Sub,
            lhs: WorkOperand::Tile(s),
            rhs: WorkOperand::Tile(m),
            output: shifted,
        });
        let e = unit.like(s, DType::F32);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: shifted, output: e });
        let l = unit.value(&[32, 1], &[32, 1], DType::F32);
        unit.step(WorkStep::Reduce { op: tilelab::tensor::ReduceOp::Sum, input: e, dims: vec![1], output: l });
        let p = unit.like(s, DType::Bf16);
        unit.step(WorkStep::Cast { input: e, output: p });
        let o = unit.like(s, DType::F32);
        unit.step(WorkStep::Matmul { a: p, b: v, a_transposed: false, b_transposed: false, output: o });
        let y = unit.like(s, DType::F32);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Div,
            lhs: WorkOperand::Tile(o),
            rhs: WorkOperand::Tile(l),
            output: y,
        });
        unit.store(y, 3, &[row, 0], false);
        units.push(unit.unit);
    }
    TileWork { name: "attention".into(), tensors, views: Vec::new(), units, settings: settings(2, Some(tiles)) }
}

#[test]
fn a_tile_computed_in_ub_feeds_a_matmul_through_gm() {
    for (preset, flags) in [("Ascend910A", 0), ("Ascend910B2", 6)] {
        let work = attention_work();
        let (plan, _, gm) = lower_and_simulate(&work, preset);
        // Coupled: one workspace (p); split: s, p and o each have one (same shape, different
        // dtypes: s and o share the f32 one) and every hand-off has a cross-core flag.
        assert_eq!(plan.cross_core_flags, flags, "{preset}");
        assert!(plan.tensors.len() > work.tensors.len(), "{preset}: p goes through a workspace");
        let (q, k, v) = (fill(&gm, 0, 12), fill(&gm, 1, 13), fill(&gm, 2, 14));
        run_values(&plan, &gm);
        let y = gm[3].to_f64_vec();
        for i in 0..64 {
            let scores: Vec<f64> = (0..64).map(|j| (0..64).map(|d| q[i * 64 + d] * k[j * 64 + d]).sum()).collect();
            let maximum = scores.iter().copied().fold(f64::MIN, f64::max);
            let weights: Vec<f64> = scores.iter().map(|score| (score - maximum).exp()).collect();
            let total: f64 = weights.iter().sum();
            for c in 0..64 {
                let expected: f64 = (0..64).map(|j| weights[j] * v[j * 64 + c]).sum::<f64>() / total;
                // p is rounded to bf16 (relative 2⁻⁸ per weight) before p·v; s, e and l carry
                // f32 rounding (≤ 1e-4 relative here), so |y − y64| ≤ (2⁻⁸ + 1e-4)·Σ_j (e_j / l)|v_jc|.
                let magnitude: f64 = (0..64).map(|j| weights[j] * v[j * 64 + c].abs()).sum::<f64>() / total;
                let bound = (2f64.powi(-8) + 1e-4) * magnitude + 1e-6;
                assert!(
                    (y[i * 64 + c] - expected).abs() <= bound,
                    "{preset} y[{i},{c}] = {} vs {expected}",
                    y[i * 64 + c]
                );
            }
        }
    }
}

/// dw = Σ_u bf16(x_uᵀ·g_u) accumulated into a zero bf16 GM tensor, one unit per M band (as weight
/// gradients across M tiles): the matmul's result is rounded to its bf16 output before the atomic
/// add, so dw = bf16(bf16(p₀) + bf16(p₁)) exactly, where p_u is the f32 product of unit u.
#[test]
fn matmul_results_added_into_gm_are_rounded_to_their_dtype_first() {
    let (m, k, n) = (64, 32, 32);
    for preset in ["Ascend910A", "Ascend910B2"] {
        let tensors = vec![
            tensor("x", &[m, k], DType::Bf16),
            tensor("g", &[m, n], DType::Bf16),
            tensor("dw", &[k, n], DType::Bf16),
        ];
        let mut units = Vec::new();
        for row in (0..m).step_by(32) {
            let mut unit = UnitBuilder::default();
            let x = unit.load(0, &[row, 0], &[32, k], &[32, k], DType::Bf16);
            let g = unit.load(1, &[row, 0], &[32, n], &[32, n], DType::Bf16);
            let product = unit.value(&[k, n], &[k, n], DType::Bf16);
            unit.step(WorkStep::Matmul { a: x, b: g, a_transposed: true, b_transposed: false, output: product });
            unit.store(product, 2, &[0, 0], true);
            units.push(unit.unit);
        }
        let work = TileWork {
            name: "dw".into(),
            views: Vec::new(),
            tensors,
            units,
            settings: settings(2, Some(CubeTiles { m: [16, 32], k: [32, 32], n: [32, 32] })),
        };
        let (plan, _, gm) = lower_and_simulate(&work, preset);
        let (x, g) = (fill(&gm, 0, 11), fill(&gm, 1, 12));
        run_values(&plan, &gm);
        let dw = gm[2].to_f64_vec();
        let bf16 = |value: f64| half::bf16::from_f32(value as f32).to_f64();
        let mut exact = 0;
        for i in 0..k {
            for j in 0..n {
                // Each 32-term partial of bf16 products is exact in f64 and within 32·2⁻²⁴ relative in f32;
                // rounding it to bf16 (2⁻⁸) swamps that, so the f32 sum rounds like the f64 one except
                // on a rounding boundary: at most one bf16 step apart, and equal almost everywhere.
                let partial =
                    |band: usize| bf16((band * 32..band * 32 + 32).map(|r| x[r * k + i] * g[r * n + j]).sum());
                let expected = bf16(partial(0) + partial(1));
                let step = expected.abs().max(1e-30) * 2f64.powi(-8);
                assert!(
                    (dw[i * n + j] - expected).abs() <= step,
                    "{preset}: dw[{i},{j}] = {} vs {expected}",
                    dw[i * n + j]
                );
                exact += usize::from(dw[i * n + j] == expected);
            }
        }
        // Adding the unrounded f32 partials instead would differ in about one element in ten.
        assert!(
            exact * 100 >= k * n * 99,
            "{preset}: only {exact} of {} elements equal bf16(bf16(p₀) + bf16(p₁))",
            k * n
        );
    }
}
