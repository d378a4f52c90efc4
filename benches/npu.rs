//! Compiler and simulator speed on Ascend910B2: a 4096×4096×4096 bf16 matmul (good cube tiles, double
//! buffering) written as one `pypto.matmul` over the whole tensors (the compiler tiles it by the cube
//! tiles and spreads the 512 output blocks over the cube cores); and the SwiGLU backward b kernel
//! of examples/10 at M = 22000 (22 row tiles of 1024 × 1024, [128, 128] vec tiles: tile expansion,
//! memory planning with workspace cuts, scheduling). Reports the time to compile the tile programs,
//! to simulate them, and simulated events per second.
//! Run with `cargo bench --bench npu` (native only: it reads the process CPU clock).

#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::time::Instant;

use tilelab::npu::{lowering_target, simulate, simulate_warm, NpuConfig};
use tilelab::tensor::DType;
use tilelab::tile::{
    lower_work, whole_matmul, CubeTiles, GmRegion, GmTensor, KernelPlan, LocatedStep, TensorId, TileValue, TileWork,
    ValueId, WorkSettings, WorkStep, WorkUnit,
};

/// CPU seconds of this process: on a shared machine wall time includes other people's work.
fn cpu_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// The b kernel of examples/10 as the recorder records it: per 1024-row tile, loads of g, dh, fc
/// (BF16) cast to FP32, σ(g), silu(g), silu'(g), dfc = dh·silu, dg = dh·fc·silu', both stored as
/// BF16, and their column sums added into the bias outputs by accumulating stores.
fn swiglu_b_work(rows: usize) -> TileWork {
    use tilelab::tensor::{BinaryOp, ReduceOp, UnaryOp};
    use tilelab::tile::WorkOperand::{Scalar, Tile};
    let (tile_m, n) = (1024, 1024);
    let tensor =
        |name: &str, shape: &[usize]| GmTensor { name: name.into(), shape: shape.to_vec(), dtype: DType::Bf16 };
    let tensors = vec![
        tensor("dh", &[rows, n]),
        tensor("g", &[rows, n]),
        tensor("fc", &[rows, n]),
        tensor("dg", &[rows, n]),
        tensor("dfc", &[rows, n]),
        tensor("db_g", &[1, n]),
        tensor("db_fc", &[1, n]),
    ];
    let mut units = Vec::new();
    for start in (0..rows).step_by(tile_m) {
        let valid = tile_m.min(rows - start);
        let mut values = Vec::new();
        let mut steps = Vec::new();
        let mut value = |shape: [usize; 2], valid: [usize; 2], dtype| {
            values.push(TileValue { shape: shape.to_vec(), valid_shape: valid.to_vec(), dtype });
            ValueId(values.len() as u32 - 1)
        };
        let (full, valid_full, row) = ([tile_m, n], [valid, n], [1, n]);
        let region = |tensor: u32, offsets: [usize; 2], shape: [usize; 2]| GmRegion {
            tensor: TensorId(tensor),
            offsets: offsets.to_vec(),
            shape: shape.to_vec(),
        };
        let loaded = |tensor: u32,
                      steps: &mut Vec<WorkStep>,
                      value: &mut dyn FnMut([usize; 2], [usize; 2], DType) -> ValueId| {
            let narrow = value(full, valid_full, DType::Bf16);
            steps.push(WorkStep::Load { region: region(tensor, [start, 0], valid_full), output: narrow });
            let wide = value(full, valid_full, DType::F32);
            steps.push(WorkStep::Cast { input: narrow, output: wide });
            wide
        };
        let g = loaded(1, &mut steps, &mut value);
        let dh = loaded(0, &mut steps, &mut value);
        let fc = loaded(2, &mut steps, &mut value);
        let sig = value(full, valid_full, DType::F32);
        steps.push(WorkStep::Unary { op: UnaryOp::Sigmoid, input: g, output: sig });
        let mut binary = |op, lhs, rhs, steps: &mut Vec<WorkStep>| {
            let output = value(full, valid_full, DType::F32);
            steps.push(WorkStep::Binary { op, lhs, rhs, output });
            output
        };
        let silu = binary(BinaryOp::Mul, Tile(g), Tile(sig), &mut steps);
        let one_minus = binary(BinaryOp::Sub, Scalar(1.0), Tile(sig), &mut steps);
        let scaled = binary(BinaryOp::Mul, Tile(g), Tile(one_minus), &mut steps);
        let plus_one = binary(BinaryOp::Add, Scalar(1.0), Tile(scaled), &mut steps);
        let silu_grad = binary(BinaryOp::Mul, Tile(sig), Tile(plus_one), &mut steps);
        let dfc = binary(BinaryOp::Mul, Tile(dh), Tile(silu), &mut steps);
        let product = binary(BinaryOp::Mul, Tile(dh), Tile(fc), &mut steps);
        let dg = binary(BinaryOp::Mul, Tile(product), Tile(silu_grad), &mut steps);
        for (gradient, output, bias) in [(dfc, 4, 6), (dg, 3, 5)] {
            let narrow = value(full, valid_full, DType::Bf16);
            steps.push(WorkStep::Cast { input: gradient, output: narrow });
            steps.push(WorkStep::Store {
                input: narrow,
                region: region(output, [start, 0], valid_full),
                accumulate: false,
            });
            let sum = value(row, row, DType::F32);
            steps.push(WorkStep::Reduce { op: ReduceOp::Sum, input: gradient, dims: vec![0], output: sum });
            let partial = value(row, row, DType::Bf16);
            steps.push(WorkStep::Cast { input: sum, output: partial });
            steps.push(WorkStep::Store { input: partial, region: region(bias, [0, 0], row), accumulate: true });
        }
        units.push(WorkUnit {
            values,
            steps: steps.into_iter().map(|step| LocatedStep { step, line: Some(1) }).collect(),
            vec_tile: None,
        });
    }
    let settings = WorkSettings { vec_tile: Some(vec![128, 128]), vec_tile_line: Some(1), ..WorkSettings::default() };
    TileWork { name: "swiglu_backward_b".into(), tensors, views: Vec::new(), ordered: Vec::new(), units, settings }
}

fn measure(label: &str, config: &NpuConfig, build: &dyn Fn() -> KernelPlan) {
    let mut build_times = Vec::new();
    let mut simulate_times = Vec::new();
    let mut simulate_cpu_times = Vec::new();
    let mut events = 0;
    let mut summary = None;
    let mut last_plan = None;
    for _ in 0..5 {
        let start = Instant::now();
        let plan = build();
        build_times.push(start.elapsed().as_secs_f64());
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        let simulation = simulate(&plan, config).expect("simulate");
        simulate_times.push(start.elapsed().as_secs_f64());
        simulate_cpu_times.push(cpu_seconds() - cpu_start);
        events = simulation.trace.events.len();
        summary = Some(simulation.summary);
        last_plan = Some(plan);
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (build, run, run_cpu) =
        (median(&mut build_times), median(&mut simulate_times), median(&mut simulate_cpu_times));
    let summary = summary.expect("ran");
    println!("npu bench: {label} on Ascend910B2 ({} cores)", summary.cores_used);
    println!("  compile (programs)  : {:8.1} ms", build * 1e3);
    println!("  simulate (wall)     : {:8.1} ms  (target < 200 ms)", run * 1e3);
    println!("  simulate (CPU time) : {:8.1} ms", run_cpu * 1e3);
    println!("  compile + simulate  : {:8.1} ms", (build + run) * 1e3);
    println!("  events              : {events}  ({:.2} M events per CPU second)", events as f64 / run_cpu / 1e6);
    // Sorted by `median` above: the fastest and slowest of the five runs.
    let rate = |seconds: f64| events as f64 / seconds / 1e6;
    println!(
        "  events per CPU second: min {:.2} M, median {:.2} M, max {:.2} M",
        rate(simulate_cpu_times[simulate_cpu_times.len() - 1]),
        rate(run_cpu),
        rate(simulate_cpu_times[0])
    );
    println!(
        "  simulated time      : {:.1} µs, bound {}, cube at {:.0}% of peak",
        summary.time_us,
        summary.bound,
        100.0 * summary.achieved_flops_per_second / summary.peak_flops_per_second
    );
    // The simulated figures a speed change must keep exactly (cold L2, then warm).
    let warm = simulate_warm(&last_plan.expect("ran"), config).expect("simulate warm").summary;
    for (name, figures) in [("cold", &summary), ("warm", &warm)] {
        println!(
            "  {name} L2             : {} cycles, {} B hit of {} B read, {} B written",
            figures.cycles, figures.l2_hit_bytes, figures.gm_bytes_read, figures.gm_bytes_written
        );
    }
}

fn main() {
    // `cargo bench --bench npu -- swiglu` runs only the kernels whose label holds "swiglu" (to profile one).
    let filter = std::env::args().skip(1).find(|argument| !argument.starts_with('-')).unwrap_or_default();
    let chosen = |label: &str| label.to_lowercase().contains(&filter.to_lowercase());
    let config = NpuConfig::preset("Ascend910B2").expect("preset");
    let a = GmTensor { name: "a".into(), shape: vec![4096, 4096], dtype: DType::Bf16 };
    let b = GmTensor { name: "b".into(), shape: vec![4096, 4096], dtype: DType::Bf16 };
    let tiles = CubeTiles { m: [128, 128], k: [64, 256], n: [256, 256] };
    let work = whole_matmul(a, b, DType::F32, tiles, 2, Some(1));
    let target = lowering_target(&config);
    let matmul_label = "4096³ bf16 matmul, compiled";
    if chosen(matmul_label) {
        measure(matmul_label, &config, &|| lower_work(&work, &target).expect("plan"));
    }
    let swiglu = swiglu_b_work(22000);
    let swiglu_label = "SwiGLU backward b kernel, M = 22000, compiled";
    if chosen(swiglu_label) {
        measure(swiglu_label, &config, &|| lower_work(&swiglu, &target).expect("plan"));
    }
}
