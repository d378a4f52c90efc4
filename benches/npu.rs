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
use tilelab::tile::{lower_work, KernelPlan};

use tilelab::session::bench_kernels::{gemm_work, swiglu_b_work};

/// CPU seconds of this process: on a shared machine wall time includes other people's work.
fn cpu_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

fn measure(label: &str, config: &NpuConfig, build: &dyn Fn() -> KernelPlan) {
    // `TILELAB_PROFILE_SIMULATE=N` simulates one plan N times and nothing else (for `perf record`).
    if let Some(repeats) = std::env::var("TILELAB_PROFILE_SIMULATE").ok().and_then(|text| text.parse::<usize>().ok()) {
        let plan = build();
        let cpu_start = cpu_seconds();
        let events: usize = (0..repeats).map(|_| simulate(&plan, config).expect("simulate").trace.events.len()).sum();
        let seconds = cpu_seconds() - cpu_start;
        println!("{label}: {repeats} simulations, {:.2} M events per CPU second", events as f64 / seconds / 1e6);
        return;
    }
    // `TILELAB_PROFILE_COMPILE=N` compiles the kernel N times and nothing else.
    if let Some(repeats) = std::env::var("TILELAB_PROFILE_COMPILE").ok().and_then(|text| text.parse::<usize>().ok()) {
        let cpu_start = cpu_seconds();
        let instructions: usize = (0..repeats)
            .map(|_| build().programs.iter().map(|program| program.instructions.len()).sum::<usize>())
            .sum();
        let seconds = cpu_seconds() - cpu_start;
        println!("{label}: {repeats} compiles, {:.2} µs per instruction", seconds * 1e6 / instructions as f64);
        return;
    }
    let mut build_times = Vec::new();
    let mut simulate_times = Vec::new();
    let mut simulate_cpu_times = Vec::new();
    let mut events = 0;
    let mut summary = None;
    let mut last_plan = None;
    for _ in 0..5 {
        // One plan alive at a time, as in a session that compiles a kernel again: the previous
        // plan (tens of MB) is dropped before the next is compiled, not after it is simulated.
        drop(last_plan.take());
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
    // As the CLI does: freed memory stays in the process (`tilelab::memory::keep_freed_memory`).
    tilelab::memory::keep_freed_memory();
    // `cargo bench --bench npu -- swiglu` runs only the kernels whose label holds "swiglu" (to profile one).
    let filter = std::env::args().skip(1).find(|argument| !argument.starts_with('-')).unwrap_or_default();
    let chosen = |label: &str| label.to_lowercase().contains(&filter.to_lowercase());
    let config = NpuConfig::preset("Ascend910B2").expect("preset");
    let work = gemm_work(4096);
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
