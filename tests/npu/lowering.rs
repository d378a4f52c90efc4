#![cfg(not(target_arch = "wasm32"))]
//! The generic lowering (`tile::lower_work`) on hand-built `TileWork`: the values `npu::execute`
//! computes equal f64 references written here, and every simulation passes `check_simulation`
//! (events of one pipe never overlap, every event has a source line).

use super::lowering_support as npu_lowering_support;

use npu_lowering_support::*;
use tilelab::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};
use tilelab::tile::{TileWork, WorkOperand, WorkStep};

const DTYPES: [DType; 3] = [DType::F32, DType::F16, DType::Bf16];

/// y = 2 − exp(clip((x·0.5 + b)·s, −1, 1)) with x: [37, 100], b: [1, 100] (broadcast down the
/// rows), s: [37, 1] (broadcast along the columns), in 8×64 tiles (the last row and column tiles
/// are ragged; double-buffered 16×64 f32 tiles would not fit teaching's 16 KiB UB), all in `dtype`.
fn chain_work(dtype: DType) -> TileWork {
    let shape = [37, 100];
    let tensors = vec![
        tensor("x", &shape, dtype),
        tensor("b", &[1, 100], dtype),
        tensor("s", &[37, 1], dtype),
        tensor("y", &shape, dtype),
    ];
    let mut units = Vec::new();
    for ([row, column], [rows, columns]) in tiles_2d(shape, [8, 64]) {
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[row, column], &[8, 64], &[rows, columns], dtype);
        let b = unit.load(1, &[0, column], &[1, 64], &[1, columns], dtype);
        let s = unit.load(2, &[row, 0], &[8, 1], &[rows, 1], dtype);
        let half = unit.like(x, dtype);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Mul,
            lhs: WorkOperand::Tile(x),
            rhs: WorkOperand::Scalar(0.5),
            output: half,
        });
        let shifted = unit.like(x, dtype);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Add,
            lhs: WorkOperand::Tile(half),
            rhs: WorkOperand::Tile(b),
            output: shifted,
        });
        let scaled = unit.like(x, dtype);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Mul,
            lhs: WorkOperand::Tile(shifted),
            rhs: WorkOperand::Tile(s),
            output: scaled,
        });
        let clipped = unit.like(x, dtype);
        unit.step(WorkStep::Clip { input: scaled, low: Some(-1.0), high: Some(1.0), output: clipped });
        let exponential = unit.like(x, dtype);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: clipped, output: exponential });
        let y = unit.like(x, dtype);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Sub,
            lhs: WorkOperand::Scalar(2.0),
            rhs: WorkOperand::Tile(exponential),
            output: y,
        });
        unit.store(y, 3, &[row, column], false);
        units.push(unit.unit);
    }
    TileWork {
        name: "chain".into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units,
        settings: settings(2, None),
    }
}

#[test]
fn elementwise_chain_with_broadcasting_and_scalars() {
    for dtype in DTYPES {
        for preset in ["teaching", "Ascend910A", "Ascend910B2"] {
            let work = chain_work(dtype);
            let (plan, simulation, gm) = lower_and_simulate(&work, preset);
            // The chain stays in UB: GM sees x, b, s once per tile and y once, nothing in between.
            let written: u64 = 37 * 100 * dtype.size_in_bytes() as u64;
            assert_eq!(simulation.summary.gm_bytes_written, written, "{preset}: only y is written");
            let (x, b, s) = (fill(&gm, 0, 1), fill(&gm, 1, 2), fill(&gm, 2, 3));
            run_values(&plan, &gm);
            let expected: Vec<f64> = (0..3700)
                .map(|index| 2.0 - ((x[index] * 0.5 + b[index % 100]) * s[index / 100]).clamp(-1.0, 1.0).exp())
                .collect();
            // Six ops each round to the dtype (unit roundoff ε/2); values are O(3) and exp
            // amplifies an absolute error by at most e, so 8ε(1 + |y|) bounds the difference.
            let epsilon = dtype.epsilon();
            assert_close(&format!("{preset} {dtype:?} y"), &gm[3].to_f64_vec(), &expected, |_, want| {
                8.0 * epsilon * (1.0 + want.abs())
            });
        }
    }
}

/// Softmax of every row of x: [50, 64] in 8×64 tiles (whole rows; the last tile has 2 rows):
/// m = max_j x, e = exp(x − m), y = e / Σ_j e.
fn softmax_work(dtype: DType) -> TileWork {
    let tensors = vec![tensor("x", &[50, 64], dtype), tensor("y", &[50, 64], dtype)];
    let mut units = Vec::new();
    for ([row, _], [rows, _]) in tiles_2d([50, 64], [8, 64]) {
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[row, 0], &[8, 64], &[rows, 64], dtype);
        let maximum = unit.value(&[8, 1], &[rows, 1], dtype);
        unit.step(WorkStep::Reduce { op: ReduceOp::Amax, input: x, dims: vec![1], output: maximum });
        let shifted = unit.like(x, dtype);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Sub,
            lhs: WorkOperand::Tile(x),
            rhs: WorkOperand::Tile(maximum),
            output: shifted,
        });
        let exponential = unit.like(x, dtype);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: shifted, output: exponential });
        let total = unit.value(&[8, 1], &[rows, 1], dtype);
        unit.step(WorkStep::Reduce { op: ReduceOp::Sum, input: exponential, dims: vec![1], output: total });
        let y = unit.like(x, dtype);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Div,
            lhs: WorkOperand::Tile(exponential),
            rhs: WorkOperand::Tile(total),
            output: y,
        });
        unit.store(y, 1, &[row, 0], false);
        units.push(unit.unit);
    }
    TileWork {
        name: "softmax".into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units,
        settings: settings(2, None),
    }
}

#[test]
fn row_reduction_broadcast_back_is_a_softmax_per_tile() {
    for dtype in DTYPES {
        for preset in ["teaching", "Ascend910B2"] {
            let (plan, _, gm) = lower_and_simulate(&softmax_work(dtype), preset);
            let x = fill(&gm, 0, 4);
            run_values(&plan, &gm);
            let mut expected = Vec::new();
            for row in x.chunks(64) {
                let maximum = row.iter().copied().fold(f64::MIN, f64::max);
                let total: f64 = row.iter().map(|value| (value - maximum).exp()).sum();
                expected.extend(row.iter().map(|value| (value - maximum).exp() / total));
            }
            // y ∈ (0, 1]; exp(x − m) is rounded once, the 64-term sum is computed in f32 then
            // rounded, the quotient rounded: a few ε relative, below 4ε absolute for y ≤ 1.
            let epsilon = dtype.epsilon();
            assert_close(&format!("{preset} {dtype:?} softmax"), &gm[1].to_f64_vec(), &expected, |_, want| {
                4.0 * epsilon * want.max(0.05) + 1e-6
            });
        }
    }
}

#[test]
fn column_sums_accumulate_across_units_into_gm() {
    // out[0, j] = Σ_i x[i, j] over x: [100, 64] f32; each 16×64 unit (the last has 4 rows)
    // reduces over dim 0 to [1, 64] and adds it into GM (Ascend's atomic add), from several cores.
    let tensors = vec![tensor("x", &[100, 64], DType::F32), tensor("out", &[1, 64], DType::F32)];
    let mut units = Vec::new();
    for ([row, _], [rows, _]) in tiles_2d([100, 64], [16, 64]) {
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[row, 0], &[16, 64], &[rows, 64], DType::F32);
        let partial = unit.value(&[1, 64], &[1, 64], DType::F32);
        unit.step(WorkStep::Reduce { op: ReduceOp::Sum, input: x, dims: vec![0], output: partial });
        unit.store(partial, 1, &[0, 0], true);
        units.push(unit.unit);
    }
    let work = TileWork {
        name: "column_sum".into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units,
        settings: settings(2, None),
    };
    for preset in ["teaching", "Ascend910A", "Ascend910B2"] {
        let (plan, _, gm) = lower_and_simulate(&work, preset);
        assert!(plan.programs.len() > 1, "{preset}: the units are spread over cores");
        let x = fill(&gm, 0, 5);
        run_values(&plan, &gm);
        let expected: Vec<f64> = (0..64).map(|column| (0..100).map(|row| x[row * 64 + column]).sum()).collect();
        let magnitude: Vec<f64> = (0..64).map(|column| (0..100).map(|row| x[row * 64 + column].abs()).sum()).collect();
        // 100 f32 additions (16 per tile, 7 partials in GM): |error| ≤ 100·2⁻²⁴·Σ|x|.
        assert_close(&format!("{preset} column sums"), &gm[1].to_f64_vec(), &expected, |index, _| {
            100.0 * 2f64.powi(-24) * magnitude[index]
        });
    }
}

#[test]
fn a_ragged_last_unit_moves_only_its_valid_part() {
    // exp over x: [20, 72] f32 in 16×64 tiles: the valid parts are 16×64, 16×8, 4×64, 4×8. The
    // copies move exactly the valid bytes (20·72·4 in, the same out), and y matches exp(x).
    let tensors = vec![tensor("x", &[20, 72], DType::F32), tensor("y", &[20, 72], DType::F32)];
    let mut units = Vec::new();
    for ([row, column], [rows, columns]) in tiles_2d([20, 72], [16, 64]) {
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[row, column], &[16, 64], &[rows, columns], DType::F32);
        let y = unit.like(x, DType::F32);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: x, output: y });
        unit.store(y, 1, &[row, column], false);
        units.push(unit.unit);
    }
    let work = TileWork {
        name: "ragged".into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units,
        settings: settings(1, None),
    };
    let (plan, simulation, gm) = lower_and_simulate(&work, "teaching");
    assert_eq!((simulation.summary.gm_bytes_read, simulation.summary.gm_bytes_written), (20 * 72 * 4, 20 * 72 * 4));
    let x = fill(&gm, 0, 6);
    run_values(&plan, &gm);
    let expected: Vec<f64> = x.iter().map(|value| value.exp()).collect();
    assert_close("exp", &gm[1].to_f64_vec(), &expected, |_, want| 2.0 * f32::EPSILON as f64 * want.abs());
}

/// y = exp(x) + x over x: [1024, 1024] f32 in 16×64 tiles with `buffers`-fold UB buffering;
/// written back into x itself when `in_place`.
fn exp_plus_x_work(buffers: usize, tile: [usize; 2], in_place: bool) -> TileWork {
    let shape = [1024, 1024];
    let tensors = vec![tensor("x", &shape, DType::F32), tensor("y", &shape, DType::F32)];
    let mut units = Vec::new();
    for ([row, column], [rows, columns]) in tiles_2d(shape, tile) {
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[row, column], &tile, &[rows, columns], DType::F32);
        let exponential = unit.like(x, DType::F32);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: x, output: exponential });
        let y = unit.like(x, DType::F32);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Add,
            lhs: WorkOperand::Tile(exponential),
            rhs: WorkOperand::Tile(x),
            output: y,
        });
        unit.store(y, if in_place { 0 } else { 1 }, &[row, column], false);
        units.push(unit.unit);
    }
    TileWork {
        name: "exp_plus_x".into(),
        tensors,
        views: Vec::new(),
        ordered: Vec::new(),
        units,
        settings: settings(buffers, None),
    }
}

#[test]
fn double_buffering_moves_an_mte2_bound_chain_toward_its_bound() {
    // teaching: 2 cores sharing 64 B/cycle of HBM, 64-cycle DMA start-up, vector 8 + bytes/256,
    // L2 1 MiB with write-back. HBM moves the 4 MiB of x (cold) and the dirty lines of y evicted
    // by later traffic: all of y's 4 MiB but what is still in L2 at the end (the drain, under
    // 1 MiB), so 7–8 MiB; the exact bytes come from the run's totals. VECTOR per core: 512 tiles ×
    // 2 ops × (8 + 16·64·4/256) = 24 576 cycles. The bound is max(HBM, VECTOR). Stores go into L2
    // and no longer keep HBM busy while a load waits out its start-up: each core's 512 loads spend
    // 512 × 64 = 32 768 cycles in start-up, and when both cores wait at once only L2's write-backs
    // use HBM, so the run lands between the bound and the bound plus those 32 768 cycles. One buffer
    // also serialises each load after the previous tile's compute: never faster than two.
    let config = tilelab::npu::NpuConfig::preset("teaching").unwrap();
    let run = |buffers| {
        let (plan, simulation, _) = lower_and_simulate(&exp_plus_x_work(buffers, [16, 64], false), "teaching");
        let (_, totals) = tilelab::npu::run(&plan, &config).unwrap();
        (simulation.summary.cycles as f64, totals.hbm_bytes as f64)
    };
    let ((single, _), (double, hbm_bytes)) = (run(1), run(2));
    let mib = 1024.0 * 1024.0;
    assert!((7.0 * mib..=8.0 * mib).contains(&hbm_bytes), "HBM bytes {hbm_bytes}");
    let bound = f64::max(hbm_bytes / config.hbm_bytes_per_cycle, 24_576.0);
    println!("exp+x: 1 buffer {single}, 2 buffers {double}, HBM {hbm_bytes} B, bound {bound}");
    assert!(double < single, "two buffers ({double}) beat one ({single})");
    assert!(double >= bound, "nothing beats the HBM bound: {double} < {bound}");
    assert!(double <= bound + 32_768.0, "two buffers land within the start-ups of the bound {bound}: {double}");
}

#[test]
fn a_tile_overflowing_ub_names_the_memory_the_bytes_the_fitting_tile_and_the_line() {
    // exp(x) + x on 64×64 f32 tiles with two buffers asked for: x takes an input slot, exp(x) a
    // computed slot, and y overwrites exp(x) as the add reads it for the last time, i.e.
    // 2 slots × 2 copies × 16 KiB = 64 KiB against teaching's 16 KiB UB. One copy (32 KiB) does not
    // fit either, so the kernel is reported with one copy: 32 KiB, and the largest tile that fits
    // once: 2 × r × 64 × 4 B ≤ 16 384 → r = 32, the tile [32, 64].
    let config = tilelab::npu::NpuConfig::preset("teaching").unwrap();
    let plan = tilelab::tile::lower_work(&exp_plus_x_work(2, [64, 64], false), &target(&config)).unwrap();
    let error = tilelab::npu::simulate(&plan, &config).unwrap_err();
    match &error {
        tilelab::npu::NpuError::CapacityExceeded { memory, bytes, capacity, largest_tile, source_line, .. } => {
            assert_eq!((*memory, *bytes, *capacity), ("UB", 32_768, 16_384));
            assert_eq!(largest_tile.as_deref(), Some(&[32, 64][..]));
            assert_eq!(*source_line, Some(7), "points at the set_vec_tile_shapes line");
        }
        other => panic!("expected a UB capacity error, got {other}"),
    }
    let message = error.to_string();
    for part in ["UB", "32768", "[32, 64]", "line 7"] {
        assert!(message.contains(part), "'{message}' mentions {part}");
    }
}

#[test]
fn an_in_place_kernel_keeps_its_double_buffering() {
    // x = exp(x) + x written back tile by tile. GM dependencies are tracked per region: the load of
    // tile i+1 does not overlap the store of tile i, so it need not wait for it. With write-back
    // the two kernels differ only in L2 traffic (in place, the dirty lines are x's own: 4 MiB
    // touched instead of 8), within a few percent; a false wait of each load on the previous store
    // would cost what one buffer costs (over 15 % more, the test above). Values: exp(x) + x.
    let cycles = |in_place| {
        let (plan, simulation, gm) = lower_and_simulate(&exp_plus_x_work(2, [16, 64], in_place), "teaching");
        (plan, simulation.summary.cycles, gm)
    };
    let (_, out_of_place, _) = cycles(false);
    let (plan, in_place, gm) = cycles(true);
    assert!((in_place as f64) <= 1.05 * out_of_place as f64, "in place {in_place} vs {out_of_place}");
    let x = fill(&gm, 0, 15);
    run_values(&plan, &gm);
    let expected: Vec<f64> = x.iter().map(|value| value.exp() + value).collect();
    assert_close("in place", &gm[0].to_f64_vec(), &expected, |_, want| 4.0 * f32::EPSILON as f64 * (1.0 + want.abs()));
}
