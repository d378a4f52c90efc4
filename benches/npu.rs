//! Simulator speed: a 4096×4096×4096 bf16 matmul on Ascend910B2 (good cube tiles, double buffering).
//! Reports the time to build the tile programs, to simulate them, and simulated events per second.
//! Run with `cargo bench --bench npu` (native only: it reads the process CPU clock).

#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::time::Instant;

use tilelab::npu::{simulate, NpuConfig};
use tilelab::tensor::DType;
use tilelab::tile::{tiled_matmul, CubeTiles, GmTensor, MatmulBuffers};

/// CPU seconds of this process: on a shared machine wall time includes other people's work.
fn cpu_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

fn main() {
    let config = NpuConfig::preset("Ascend910B2").expect("preset");
    let a = GmTensor { name: "a".into(), shape: vec![4096, 4096], dtype: DType::Bf16 };
    let b = GmTensor { name: "b".into(), shape: vec![4096, 4096], dtype: DType::Bf16 };
    let tiles = CubeTiles { m: [128, 128], k: [64, 256], n: [256, 256] };
    let buffers = MatmulBuffers { l1: 2, l0: 2, l0c: 1 };
    let mut build_times = Vec::new();
    let mut simulate_times = Vec::new();
    let mut simulate_cpu_times = Vec::new();
    let mut events = 0;
    let mut summary = None;
    for _ in 0..5 {
        let start = Instant::now();
        let plan = tiled_matmul(&a, &b, DType::F32, tiles, buffers, config.cube_cores as usize, None).expect("plan");
        build_times.push(start.elapsed().as_secs_f64());
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        let simulation = simulate(&plan, &config).expect("simulate");
        simulate_times.push(start.elapsed().as_secs_f64());
        simulate_cpu_times.push(cpu_seconds() - cpu_start);
        events = simulation.trace.events.len();
        summary = Some(simulation.summary);
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (build, run, run_cpu) = (median(&mut build_times), median(&mut simulate_times), median(&mut simulate_cpu_times));
    let summary = summary.expect("ran");
    println!("npu bench: 4096³ bf16 matmul on Ascend910B2 ({} cores)", summary.cores_used);
    println!("  build tile programs : {:8.1} ms", build * 1e3);
    println!("  simulate (wall)     : {:8.1} ms  (target < 200 ms)", run * 1e3);
    println!("  simulate (CPU time) : {:8.1} ms", run_cpu * 1e3);
    println!("  build + simulate    : {:8.1} ms", (build + run) * 1e3);
    println!("  events              : {events}  ({:.2} M events per CPU second)", events as f64 / run_cpu / 1e6);
    println!("  simulated time      : {:.1} µs, bound {}, cube at {:.0}% of peak", summary.time_us, summary.bound, 100.0 * summary.achieved_flops_per_second / summary.peak_flops_per_second);
}
