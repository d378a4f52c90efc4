#![cfg(not(target_arch = "wasm32"))]
//! The kernel compiler (DESIGN §3.1) on the kernels that real pypto code writes: tile expansion by
//! the vec and cube tile shapes, tasks spread over every core of their kind, memory planning that
//! reuses UB in place and cuts a task through a GM workspace when its live set exceeds UB. Values
//! are checked against the same math outside any kernel (the CPU reference path), timings against
//! the measured PTO-ISA GEMM (1.504 ms for 6144³ fp16 on a 24-core 910B).

mod npu_lowering_support;

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

fn run(session: &mut Session, code: &str) -> tilelab::session::CellResult {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    let fallbacks: Vec<&String> = result
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.code == "npu/cpu-fallback")
        .map(|diagnostic| &diagnostic.message)
        .collect();
    assert!(fallbacks.is_empty(), "fell back to the CPU: {fallbacks:?}");
    result
}

fn printed_number(result: &tilelab::session::CellResult) -> f64 {
    result.stdout.trim().parse().unwrap_or_else(|_| panic!("not a number: {}", result.stdout))
}

#[test]
fn a_jit_kernel_without_a_loop_is_tiled_over_cores() {
    // `out[:] = x + y` on 512 × 512 with a 64 × 512 vec tile: 8 tiles, each its own task.
    let mut session = Session::new();
    run(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit\n\
         def add(x, y, out):\n    pt.set_vec_tile_shapes(64, 512)\n    out[:] = x + y\n\
         x = pt.randn([512, 512], seed=1)\ny = pt.randn([512, 512], seed=2)\nout = pt.zeros([512, 512])\n\
         s = pt.schedule(add, x, y, out)\n",
    );
    let cores = printed_number(&run(&mut session, "print(s.cores_used)"));
    assert!(cores >= 8.0, "8 tiles ran on {cores} cores");
    // The values are the CPU's x + y exactly (one f32 add per element on both sides).
    let error = printed_number(&run(&mut session, "print(pt.amax(pt.abs(out - (x + y))).item())"));
    assert_eq!(error, 0.0);
}

#[test]
fn a_bf16_copy_fits_ub_double_buffered_by_working_in_place() {
    // `t * 1.0` may write over `t` (its last read): one 64 × 512 bf16 tile (64 KiB) per buffer
    // copy, 2 copies = 128 KiB ≤ 192 KiB. 8192 rows = 128 tiles on 48 cores: cores run 2-3 tiles,
    // so both copies are used.
    let mut session = Session::new();
    run(
        &mut session,
        "import pypto as pt\n\
         @pt.frontend.jit(pass_options={'vec_nbuffer_setting': {-1: 2}})\n\
         def copy(x, out):\n    pt.set_vec_tile_shapes(64, 512)\n    for i in pt.loop(0, x.shape[0] // 64):\n\
         \x20       t = pt.view(x, [64, 512], [i * 64, 0])\n        pt.assemble(t * 1.0, [i * 64, 0], out)\n\
         x = pt.cast(pt.randn([8192, 512], seed=3), pt.DT_BF16)\nout = pt.zeros([8192, 512], dtype=pt.DT_BF16)\n\
         s = pt.schedule(copy, x, out)\n",
    );
    let ub = printed_number(&run(&mut session, "print(s.peak_occupancy['UB'])"));
    assert_eq!(ub, 2.0 * 64.0 * 512.0 * 2.0, "two in-place copies of one bf16 tile");
    let error = printed_number(&run(
        &mut session,
        "print(pt.amax(pt.abs(pt.cast(out, pt.DT_FP32) - pt.cast(x, pt.DT_FP32))).item())",
    ));
    assert_eq!(error, 0.0);
}
