#![cfg(not(target_arch = "wasm32"))]
//! The kernel compiler (DESIGN §3.1) on the kernels that real pypto code writes: tile expansion by
//! the vec and cube tile shapes, tasks spread over every core of their kind, memory planning that
//! reuses UB in place and cuts a task through a GM workspace when its live set exceeds UB. Values
//! are checked against the same math outside any kernel (the CPU reference path), timings against
//! the measured PTO-ISA GEMM (1.504 ms for 6144³ fp16 on a 24-core 910B).

use super::lowering_support as npu_lowering_support;

use super::kernel_forms::run_on_npu;
use npu_lowering_support::{region, tensor, UnitBuilder};
use tilelab::npu::{simulate, NpuConfig};
use tilelab::session::Session;
use tilelab::tensor::DType;
use tilelab::tile::{lower_work, CubeTiles, TileWork, WorkSettings, WorkStep, WorkUnit};

const MEASURED_GEMM_US: f64 = 1504.0;

fn pto_tiles() -> CubeTiles {
    // The PTO-ISA sample's base tile M=128 K=64 N=256, four K blocks per L1 load.
    CubeTiles { m: [128, 128], k: [64, 256], n: [256, 256] }
}

/// One unit: `c[rows, columns] = a[rows, :] · b[:, columns]` (fp16 in, fp32 out).
fn gemm_unit(size: usize, rows: [usize; 2], columns: [usize; 2]) -> WorkUnit {
    let mut unit = UnitBuilder::default();
    let (m, n) = (rows[1], columns[1]);
    let a = unit.load(0, &[rows[0], 0], &[m, size], &[m, size], DType::F16);
    let b = unit.load(1, &[0, columns[0]], &[size, n], &[size, n], DType::F16);
    let c = unit.value(&[m, n], &[m, n], DType::F32);
    unit.step(WorkStep::Matmul { a, b, a_transposed: false, b_transposed: false, output: c });
    unit.step(WorkStep::Store { input: c, region: region(2, &[rows[0], columns[0]], &[m, n]), accumulate: false });
    unit.unit
}

fn gemm_work(size: usize, units: Vec<WorkUnit>) -> TileWork {
    TileWork {
        name: "gemm".into(),
        views: Vec::new(),
        ordered: Vec::new(),
        tensors: vec![
            tensor("a", &[size, size], DType::F16),
            tensor("b", &[size, size], DType::F16),
            tensor("c", &[size, size], DType::F32),
        ],
        units,
        settings: WorkSettings { cube_tiles: Some(pto_tiles()), cube_tile_line: Some(3), ..WorkSettings::default() },
    }
}

fn simulate_on_910b(work: &TileWork) -> tilelab::npu::Summary {
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    let target = npu_lowering_support::target(&config);
    let plan = lower_work(work, &target).unwrap();
    simulate(&plan, &config).unwrap().summary
}

fn busiest_two(summary: &tilelab::npu::Summary) -> Vec<String> {
    let mut pipes: Vec<(&String, &f64)> = summary.pipe_busy.iter().collect();
    pipes.sort_by(|left, right| right.1.total_cmp(left.1));
    pipes.iter().take(2).map(|(pipe, _)| (*pipe).clone()).collect()
}

#[test]
fn gemm_in_nested_block_loops_lands_near_the_measured_time() {
    // The PTO-ISA per-core blocking: 4 × 6 loop iterations of 1536 × 6144 × 1024, every
    // iteration of both loops is work. Measured: 1.504 ms, CUBE 86 %, MTE2 95 % busy.
    let size = 6144;
    let units = (0..4).flat_map(|i| (0..6).map(move |j| gemm_unit(size, [i * 1536, 1536], [j * 1024, 1024]))).collect();
    let summary = simulate_on_910b(&gemm_work(size, units));
    let error = summary.time_us / MEASURED_GEMM_US - 1.0;
    println!("nested-loop GEMM: {:.1} µs ({:+.1} %), busy {:?}", summary.time_us, error * 100.0, summary.pipe_busy);
    assert_eq!(summary.cores_used, 24, "every cube core works");
    assert!(error.abs() <= 0.15, "{:.1} µs is {:+.1} % off 1504 µs", summary.time_us, error * 100.0);
    let mut busiest = busiest_two(&summary);
    busiest.sort();
    assert_eq!(busiest, vec!["CUBE".to_string(), "MTE2".to_string()], "{:?}", summary.pipe_busy);
}

#[test]
fn one_matmul_over_whole_tensors_spreads_over_every_cube_core() {
    // pypto tiles a single `matmul` by its cube tiles: 6144/128 × 6144/256 = 1152 output tiles,
    // 48 per core. Within 25 % of the hand-blocked kernel's measured time.
    let size = 6144;
    let summary = simulate_on_910b(&gemm_work(size, vec![gemm_unit(size, [0, size], [0, size])]));
    let error = summary.time_us / MEASURED_GEMM_US - 1.0;
    println!("single-matmul GEMM: {:.1} µs ({:+.1} %), busy {:?}", summary.time_us, error * 100.0, summary.pipe_busy);
    assert_eq!(summary.cores_used, 24);
    assert!(error.abs() <= 0.25, "{:.1} µs is {:+.1} % off 1504 µs", summary.time_us, error * 100.0);
}

fn printed_number(stdout: &str) -> f64 {
    stdout.trim().parse().unwrap_or_else(|_| panic!("not a number: {stdout}"))
}

#[test]
fn a_jit_kernel_without_a_loop_is_tiled_over_cores() {
    // `out[:] = x + y` on 512 × 512 fp16 with a 64 × 512 vec tile: 8 tiles, each its own task on
    // the default chip (Ascend910B2). Per task x and y (64 KiB each), the sum written over x.
    let mut session = Session::new();
    run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def add(x, y, out):\n    pt.set_vec_tile_shapes(64, 512)\n    out[:] = x + y\n\
         x = pt.cast(pt.randn([512, 512], seed=1), pt.DT_FP16)\ny = pt.cast(pt.randn([512, 512], seed=2), pt.DT_FP16)\n\
         out = pt.zeros([512, 512], dtype=pt.DT_FP16)\n\
         s = pt.schedule(add, x, y, out)\n",
    );
    let cores = printed_number(&run_on_npu(&mut session, "print(s.cores_used)"));
    assert!(cores >= 8.0, "8 tiles ran on {cores} cores");
    // The values are the CPU's x + y exactly (f32 add, rounded to fp16, on both sides).
    let error =
        printed_number(&run_on_npu(&mut session, "print(pt.amax(pt.abs(pt.cast(out - (x + y), pt.DT_FP32))).item())"));
    assert_eq!(error, 0.0);
}

#[test]
fn a_bf16_copy_fits_ub_double_buffered_by_working_in_place() {
    // `t * 1.0` may write over `t` (its last read): one 64 × 512 bf16 tile (64 KiB) per buffer
    // copy, 2 copies = 128 KiB ≤ 192 KiB. 8192 rows = 128 tiles on 48 cores: cores run 2-3 tiles,
    // so both copies are used.
    let mut session = Session::new();
    run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit(pass_options={'vec_nbuffer_setting': {-1: 2}})\n\
         def copy(x, out):\n    pt.set_vec_tile_shapes(64, 512)\n    for i in pt.loop(0, x.shape[0] // 64):\n\
         \x20       t = pt.view(x, [64, 512], [i * 64, 0])\n        pt.assemble(t * 1.0, [i * 64, 0], out)\n\
         x = pt.cast(pt.randn([8192, 512], seed=3), pt.DT_BF16)\nout = pt.zeros([8192, 512], dtype=pt.DT_BF16)\n\
         s = pt.schedule(copy, x, out)\n",
    );
    let ub = printed_number(&run_on_npu(&mut session, "print(s.peak_occupancy['UB'])"));
    assert_eq!(ub, 2.0 * 64.0 * 512.0 * 2.0, "two in-place copies of one bf16 tile");
    let error = printed_number(&run_on_npu(
        &mut session,
        "print(pt.amax(pt.abs(pt.cast(out, pt.DT_FP32) - pt.cast(x, pt.DT_FP32))).item())",
    ));
    assert_eq!(error, 0.0);
}

mod chains {
    //! Random element-wise chains (with an optional row reduction broadcast back, as a softmax
    //! does) on random tensor and vec tile shapes: the compiled plan's values equal the same ops on
    //! whole tensors (the CPU reference path), and the planned UB need is the live bytes at the peak.
    use super::npu_lowering_support::{self as support, region, tensor, UnitBuilder};
    use proptest::prelude::*;
    use tilelab::npu::{allocate_gm, execute, NpuConfig};
    use tilelab::tensor::{BinaryOp, DType, ReduceOp, SliceSpec, Tensor, UnaryOp};
    use tilelab::tile::{
        lower_work, BufferId, Memory, TileOp, TileProgram, TileWork, WorkOperand, WorkSettings, WorkStep,
    };

    #[derive(Clone, Debug)]
    enum Op {
        Unary(UnaryOp),
        WithY(BinaryOp),
        WithScalar(BinaryOp, f64),
        MinusRowMax,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            prop::sample::select(vec![UnaryOp::Exp, UnaryOp::Sigmoid, UnaryOp::Tanh, UnaryOp::Abs, UnaryOp::Neg])
                .prop_map(Op::Unary),
            prop::sample::select(vec![BinaryOp::Add, BinaryOp::Mul, BinaryOp::Sub, BinaryOp::Maximum])
                .prop_map(Op::WithY),
            (prop::sample::select(vec![BinaryOp::Add, BinaryOp::Mul]), -2.0f64..2.0)
                .prop_map(|(op, scalar)| Op::WithScalar(op, scalar)),
            Just(Op::MinusRowMax),
        ]
    }

    /// The buffers an instruction reads and the one it writes (UB bookkeeping of the test).
    fn buffers(op: &TileOp) -> (Vec<BufferId>, Option<BufferId>) {
        match op {
            TileOp::CopyIn { destination, .. } => (vec![], Some(*destination)),
            TileOp::CopyOut { source, .. } | TileOp::CopyOutAccumulate { source, .. } => (vec![*source], None),
            TileOp::Unary { input, output, .. }
            | TileOp::Cast { input, output, .. }
            | TileOp::Clip { input, output, .. }
            | TileOp::ReduceDims { input, output, .. }
            | TileOp::Reduce { input, output, .. }
            | TileOp::ScalarBinary { input, output, .. } => (vec![*input], Some(*output)),
            TileOp::Binary { lhs, rhs, output, .. } | TileOp::BroadcastBinary { lhs, rhs, output, .. } => {
                (vec![*lhs, *rhs], Some(*output))
            }
            TileOp::Move { source, destination, .. } | TileOp::MoveTransposed { source, destination, .. } => {
                (vec![*source], Some(*destination))
            }
            TileOp::Mmad { a, b, c, .. } => (vec![*a, *b], Some(*c)),
            TileOp::Scalar { .. } => (vec![], None),
            TileOp::Vector { inputs, output, .. } => {
                let tiles = inputs.iter().filter_map(|input| match input {
                    tilelab::tile::VectorOperand::Tile { buffer, .. } => Some(*buffer),
                    tilelab::tile::VectorOperand::Scalar(_) => None,
                });
                (tiles.collect(), Some(*output))
            }
        }
    }

    /// The most UB bytes holding live values at once: a buffer holds a live value from the
    /// instruction that writes it to the last one that reads that value (an op that overwrites its
    /// own input holds the buffer once).
    fn live_peak(program: &TileProgram, alignment: u64) -> u64 {
        let count = program.instructions.len();
        let mut live = vec![0u64; count];
        for (id, buffer) in program.buffers.iter().enumerate().filter(|(_, buffer)| buffer.memory == Memory::Ub) {
            let id = BufferId(id as u32);
            let mut held = vec![false; count];
            let mut written: Option<usize> = None;
            for (index, instruction) in program.instructions.iter().enumerate() {
                let (reads, write) = buffers(&instruction.op);
                if let (true, Some(from)) = (reads.contains(&id), written) {
                    held[from..=index].iter_mut().for_each(|flag| *flag = true);
                }
                if write == Some(id) {
                    written = Some(index);
                    held[index] = true;
                }
            }
            for (slot, flag) in live.iter_mut().zip(held) {
                if flag {
                    *slot += buffer.bytes(alignment);
                }
            }
        }
        live.into_iter().max().unwrap_or(0)
    }

    fn whole(shape: &[usize]) -> Vec<SliceSpec> {
        shape.iter().map(|&size| SliceSpec::full(size)).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        #[test]
        fn compiled_chains_match_the_reference_and_plan_ub_tightly(
            rows in 1usize..70,
            columns in prop::sample::select(vec![8usize, 40, 64, 128]),
            tile_rows in prop::sample::select(vec![1usize, 4, 8, 16]),
            tile_columns in prop::sample::select(vec![8usize, 16, 32, 64]),
            ops in prop::collection::vec(op(), 1..7),
        ) {
            let shape = [rows, columns];
            let mut unit = UnitBuilder::default();
            let x = unit.load(0, &[0, 0], &shape, &shape, DType::F32);
            let y = unit.load(1, &[0, 0], &shape, &shape, DType::F32);
            let config = NpuConfig::preset("Ascend910B2").unwrap();
            let gm_inputs = [Tensor::randn(&shape, DType::F32, Some(11)).unwrap(), Tensor::randn(&shape, DType::F32, Some(12)).unwrap()];
            let mut reference = gm_inputs[0].clone();
            let mut current = x;
            let mut reduces = false;
            for op in &ops {
                let output = unit.like(current, DType::F32);
                match op {
                    Op::Unary(op) => {
                        unit.step(WorkStep::Unary { op: *op, input: current, output });
                        reference = reference.unary(*op).unwrap();
                    }
                    Op::WithY(op) => {
                        unit.step(WorkStep::Binary { op: *op, lhs: WorkOperand::Tile(current), rhs: WorkOperand::Tile(y), output });
                        reference = reference.binary(*op, &gm_inputs[1]).unwrap();
                    }
                    Op::WithScalar(op, scalar) => {
                        unit.step(WorkStep::Binary { op: *op, lhs: WorkOperand::Tile(current), rhs: WorkOperand::Scalar(*scalar), output });
                        reference = reference.binary(*op, &Tensor::scalar(*scalar, DType::F32)).unwrap();
                    }
                    Op::MinusRowMax => {
                        reduces = true;
                        let top = unit.value(&[rows, 1], &[rows, 1], DType::F32);
                        unit.step(WorkStep::Reduce { op: ReduceOp::Amax, input: current, dims: vec![1], output: top });
                        unit.step(WorkStep::Binary { op: BinaryOp::Sub, lhs: WorkOperand::Tile(current), rhs: WorkOperand::Tile(top), output });
                        let row_max = reference.reduce(ReduceOp::Amax, Some(&[1]), true).unwrap();
                        reference = reference.binary(BinaryOp::Sub, &row_max).unwrap();
                    }
                }
                current = output;
            }
            unit.step(WorkStep::Store { input: current, region: region(2, &[0, 0], &shape), accumulate: false });
            let work = TileWork {
                name: "chain".into(),
                views: Vec::new(),
            ordered: Vec::new(),
                tensors: vec![tensor("x", &shape, DType::F32), tensor("y", &shape, DType::F32), tensor("out", &shape, DType::F32)],
                units: vec![unit.unit],
                // One buffer copy: a core's tasks then run one after another in UB, so the buffers
                // live in program order are the buffers live in time.
                settings: WorkSettings { vec_buffers: 1, vec_tile: Some(vec![tile_rows, tile_columns]), vec_tile_line: Some(7), ..WorkSettings::default() },
            };
            let plan = lower_work(&work, &support::target(&config)).unwrap();
            let gm = allocate_gm(&plan).unwrap();
            for (slot, input) in gm.iter().zip(&gm_inputs) {
                slot.assign_slice(&whole(&shape), input).unwrap();
            }
            execute(&plan, &gm).unwrap();
            let (actual, expected) = (gm[2].to_f64_vec(), reference.to_f64_vec());
            for (index, (a, e)) in actual.iter().zip(&expected).enumerate() {
                // exp∘exp∘exp overflows to inf on both sides alike: equal infinities (or NaNs) agree.
                let same = a == e || (a.is_nan() && e.is_nan());
                prop_assert!(same || (a - e).abs() <= 1e-5 + 1e-5 * e.abs(), "[{}]: {} vs {} ({:?})", index, a, e, ops);
            }
            for program in &plan.programs {
                let declared: u64 = program.buffers.iter().filter(|buffer| buffer.memory == Memory::Ub).map(|buffer| buffer.bytes(config.ub_alignment)).sum();
                let peak = live_peak(program, config.ub_alignment);
                prop_assert!(declared >= peak);
                // One tile shape and dtype (no reduction column): every slot is live at the peak.
                if !reduces {
                    prop_assert_eq!(declared, peak, "{:?}", ops);
                }
            }
        }
    }
}

mod stages {
    //! One test per compiler stage, on units built by hand.
    use super::npu_lowering_support::{region, tensor, UnitBuilder};
    use tilelab::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};
    use tilelab::tile::{
        cut_unit, expand_work, sink_loads, CubeTiles, TileWork, WorkOperand, WorkSettings, WorkStep, WorkUnit,
    };

    fn work(units: Vec<WorkUnit>, shape: &[usize], settings: WorkSettings) -> TileWork {
        TileWork {
            name: "k".into(),
            views: Vec::new(),
            ordered: Vec::new(),
            tensors: vec![tensor("x", shape, DType::F32), tensor("out", shape, DType::F32)],
            units,
            settings,
        }
    }

    fn vec_tile(tile: &[usize]) -> WorkSettings {
        WorkSettings { vec_tile: Some(tile.to_vec()), ..WorkSettings::default() }
    }

    fn loads(unit: &WorkUnit) -> Vec<(Vec<usize>, Vec<usize>)> {
        unit.steps
            .iter()
            .filter_map(|located| match &located.step {
                WorkStep::Load { region, .. } => Some((region.offsets.to_vec(), region.shape.to_vec())),
                _ => None,
            })
            .collect()
    }

    /// `out = exp(x)` on a `[rows, 256]` tile of which `valid_rows` are valid.
    fn exp_unit(valid_rows: usize) -> WorkUnit {
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[0, 0], &[256, 256], &[valid_rows, 256], DType::F32);
        let y = unit.like(x, DType::F32);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: x, output: y });
        unit.step(WorkStep::Store { input: y, region: region(1, &[0, 0], &[valid_rows, 256]), accumulate: false });
        unit.unit
    }

    #[test]
    fn expansion_cuts_a_unit_into_vec_tiles_and_skips_empty_ones() {
        // 256 × 256 by 128 × 128: four tasks, each loading and storing its own quarter.
        let expanded = expand_work(&work(vec![exp_unit(256)], &[256, 256], vec_tile(&[128, 128]))).unwrap();
        assert_eq!(expanded.units.len(), 4);
        let corners: Vec<_> = expanded.units.iter().map(|unit| loads(unit)[0].clone()).collect();
        assert_eq!(
            corners,
            vec![
                (vec![0, 0], vec![128, 128]),
                (vec![0, 128], vec![128, 128]),
                (vec![128, 0], vec![128, 128]),
                (vec![128, 128], vec![128, 128])
            ]
        );
        // 130 valid rows: the second row of tiles holds 2 valid rows; nothing else changes.
        let ragged = expand_work(&work(vec![exp_unit(130)], &[256, 256], vec_tile(&[64, 128]))).unwrap();
        assert_eq!(ragged.units.len(), 3 * 2, "rows 0-63, 64-127, 128-129 in two columns; rows 130-255 skipped");
        assert_eq!(loads(&ragged.units[4]), vec![(vec![128, 0], vec![2, 128])]);
        // A tile as large as the unit leaves it whole.
        let whole = expand_work(&work(vec![exp_unit(256)], &[256, 256], vec_tile(&[256, 256]))).unwrap();
        assert_eq!(whole.units.len(), 1);
    }

    #[test]
    fn a_reduction_across_tiles_joins_them_into_one_task_with_a_running_sum() {
        // out[1, 128] = Σ_rows x[256, 128] by 128 × 128 tiles: one task, two partial sums added.
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[0, 0], &[256, 128], &[256, 128], DType::F32);
        let sum = unit.value(&[1, 128], &[1, 128], DType::F32);
        unit.step(WorkStep::Reduce { op: ReduceOp::Sum, input: x, dims: vec![0], output: sum });
        unit.step(WorkStep::Store { input: sum, region: region(1, &[0, 0], &[1, 128]), accumulate: false });
        let expanded = expand_work(&work(vec![unit.unit], &[256, 128], vec_tile(&[128, 128]))).unwrap();
        assert_eq!(expanded.units.len(), 1);
        let task = &expanded.units[0];
        let reduces = task.steps.iter().filter(|located| matches!(located.step, WorkStep::Reduce { .. })).count();
        let adds = task
            .steps
            .iter()
            .filter(|located| matches!(located.step, WorkStep::Binary { op: BinaryOp::Add, .. }))
            .count();
        assert_eq!((reduces, adds), (2, 1));
        assert_eq!(loads(task), vec![(vec![0, 0], vec![128, 128]), (vec![128, 0], vec![128, 128])]);
    }

    #[test]
    fn a_matmul_is_cut_by_the_l1_cube_tile() {
        // [256, 64] · [64, 512] by mL1 = 128, nL1 = 256: four output tiles, each with its strips.
        let mut unit = UnitBuilder::default();
        let a = unit.load(0, &[0, 0], &[256, 64], &[256, 64], DType::F16);
        let b = unit.load(1, &[0, 0], &[64, 512], &[64, 512], DType::F16);
        let c = unit.value(&[256, 512], &[256, 512], DType::F32);
        unit.step(WorkStep::Matmul { a, b, a_transposed: false, b_transposed: false, output: c });
        unit.step(WorkStep::Store { input: c, region: region(2, &[0, 0], &[256, 512]), accumulate: false });
        let tiles = CubeTiles { m: [128, 128], k: [64, 64], n: [256, 256] };
        let settings = WorkSettings { cube_tiles: Some(tiles), ..WorkSettings::default() };
        let mut cube_work = work(vec![unit.unit], &[256, 512], settings);
        cube_work.tensors.push(tensor("c", &[256, 512], DType::F32));
        let expanded = expand_work(&cube_work).unwrap();
        assert_eq!(expanded.units.len(), 4);
        assert_eq!(loads(&expanded.units[3]), vec![(vec![128, 0], vec![128, 64]), (vec![0, 256], vec![64, 256])]);
    }

    #[test]
    fn loads_sink_to_their_first_reader_and_cuts_go_through_a_workspace() {
        // load x; load y; e = exp(x); s = e + y; store s. Sinking moves `load y` below `exp`.
        let mut unit = UnitBuilder::default();
        let x = unit.load(0, &[0, 0], &[8, 8], &[8, 8], DType::F32);
        let y = unit.load(0, &[8, 0], &[8, 8], &[8, 8], DType::F32);
        let e = unit.like(x, DType::F32);
        unit.step(WorkStep::Unary { op: UnaryOp::Exp, input: x, output: e });
        let s = unit.like(x, DType::F32);
        unit.step(WorkStep::Binary {
            op: BinaryOp::Add,
            lhs: WorkOperand::Tile(e),
            rhs: WorkOperand::Tile(y),
            output: s,
        });
        unit.step(WorkStep::Store { input: s, region: region(1, &[0, 0], &[8, 8]), accumulate: false });
        let sunk = sink_loads(&unit.unit);
        let kinds: Vec<&str> = sunk
            .steps
            .iter()
            .map(|located| match located.step {
                WorkStep::Load { .. } => "load",
                WorkStep::Unary { .. } => "exp",
                WorkStep::Binary { .. } => "add",
                _ => "store",
            })
            .collect();
        assert_eq!(kinds, vec!["load", "exp", "load", "add", "store"]);
        // Cut before `add`: e (computed) is written to a new workspace right after `exp` and read
        // back before `add`; y was loaded after the cut point already.
        let mut tensors = vec![tensor("x", &[16, 8], DType::F32), tensor("out", &[8, 8], DType::F32)];
        let (cut, boundary) = cut_unit("k", &sunk, 3, &mut tensors);
        assert_eq!(tensors.len(), 3, "one workspace");
        assert!(matches!(cut.steps[2].step, WorkStep::Store { region: ref r, .. } if r.tensor.0 == 2));
        assert!(cut.steps[boundary..]
            .iter()
            .any(|located| matches!(&located.step, WorkStep::Load { region, .. } if region.tensor.0 == 2)));
    }
}

#[test]
fn every_iteration_of_nested_pypto_loops_is_work_spread_over_the_cube_cores() {
    // The PTO-ISA per-core blocking at a small size: 4 × 6 nested loop iterations, each a 64 × 64
    // block of c = a · b (K = 64, fp16 in, fp32 out): 24 tasks on the 24 cube cores of the
    // default Ascend910B2 (only the outer loop's 4 iterations were units before).
    let mut session = Session::new();
    run_on_npu(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def gemm(a, b, c):\n    pt.set_cube_tile_shapes([64, 64], [64, 64], [64, 64])\n\
         \x20   for i in pt.loop(0, 4):\n        for j in pt.loop(0, 6):\n\
         \x20           a_t = pt.view(a, [64, 64], [i * 64, 0])\n            b_t = pt.view(b, [64, 64], [0, j * 64])\n\
         \x20           pt.assemble(pt.matmul(a_t, b_t, out_dtype=pt.DT_FP32), [i * 64, j * 64], c)\n\
         a = pt.cast(pt.randn([256, 64], seed=1), pt.DT_FP16)\nb = pt.cast(pt.randn([64, 384], seed=2), pt.DT_FP16)\n\
         c = pt.zeros([256, 384])\ns = pt.schedule(gemm, a, b, c)\n",
    );
    assert_eq!(printed_number(&run_on_npu(&mut session, "print(s.cores_used)")), 24.0);
    // The same product outside any kernel (CPU reference): f32 sums of 64 fp16 products may add in
    // another order, so |Δ| ≤ 1e-4 · Σ|a·b| ≤ 1e-4 · 64 · max|a|·max|b| is far above the rounding.
    let error = printed_number(&run_on_npu(
        &mut session,
        "print(pt.amax(pt.abs(c - pt.matmul(a, b, out_dtype=pt.DT_FP32))).item() / (64 * pt.amax(pt.abs(pt.cast(a, pt.DT_FP32))).item() * pt.amax(pt.abs(pt.cast(b, pt.DT_FP32))).item()))",
    ));
    assert!(error <= 1e-4, "relative error {error}");
}

#[test]
fn a_staged_tile_read_by_two_matmuls_waits_for_its_producers_once() {
    // A backward-shaped kernel too large for UB as one unit, so the compiler splits it into cube
    // and vector stages joined through GM workspaces: du and dh are computed on the vector cores
    // and each is read by two matmuls on the cube core (du·W_fcᵀ and xᵀ·du). Cross-core flags
    // count: the cube core waits for du's producers once, at its first copy of du; waiting again
    // at the second matmul's copy waited for flags nobody sets a second time (a deadlock).
    let mut session = Session::new();
    let stdout = run_on_npu(
        &mut session,
        "import pypto as pt\n\
         M, K, N = 64, 64, 128\n\
         x = pt.randn([M, K], seed=1)\nw_g = pt.randn([K, N], seed=2)\nw_fc = pt.randn([K, N], seed=3)\n\
         b_g = pt.randn([1, N], seed=5)\nb_fc = pt.randn([1, N], seed=6)\ng = pt.randn([M, N], seed=4)\n\
         @pt.kernel\n\
         def back(x, w_g, b_g, w_fc, b_fc, g):\n    pt.set_vec_tile_shapes(16, 128)\n\
         \x20   h = pt.matmul(x, w_g) + b_g\n    u = pt.matmul(x, w_fc) + b_fc\n    s = pt.sigmoid(h)\n\
         \x20   du = g * (h * s)\n    a = g * u\n    dh = a * s + (a * h) * (s * (1.0 - s))\n\
         \x20   dx = pt.matmul(du, w_fc, b_trans=True) + pt.matmul(dh, w_g, b_trans=True)\n\
         \x20   return dx, pt.matmul(x, dh, a_trans=True), pt.matmul(x, du, a_trans=True)\n\
         s = pt.schedule(back, x, w_g, b_g, w_fc, b_fc, g)\nprint(s.cycles)\n",
    );
    assert!(printed_number(&stdout) > 0.0, "{stdout}");
}
