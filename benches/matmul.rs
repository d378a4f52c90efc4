//! Matmul throughput in GFLOP/s (2·n³ flops per n×n×n product) for n = 256, 512, 1024: the median
//! (and best) of several timed samples of `simd::gemm` after a warm-up, single-threaded.
//!
//! Natively: `cargo bench --bench matmul` (the portable kernel).
//! In headless Chromium (the wasm simd128 kernel): `bench/matmul-chromium.sh`, which runs
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner CHROMEDRIVER=/usr/bin/chromedriver
//!  WASM_BINDGEN_TEST_ONLY_WEB=1 cargo bench --target wasm32-unknown-unknown --bench matmul`.
//! By the renderer thread's CPU time (for a shared machine): `node bench/matmul-cpu-time.mjs`,
//! which loads this file's `matmul_repeat` export into Chromium through playwright-core.

#![cfg_attr(target_arch = "wasm32", no_main)]

use tilelab::tensor::simd::{self, MatrixRef};
use tilelab::tensor::Rng;

/// The square sizes measured.
const SIZES: [usize; 3] = [256, 512, 1024];

/// Timed samples per size.
const SAMPLES: usize = 21;
/// Each sample repeats the product until it lasts this long: long enough that the browser's
/// coarse `performance.now()` (100 µs steps without cross-origin isolation) costs ≤ 1 %, short
/// enough that on a shared machine some samples run undisturbed (the "best" figure).
const SAMPLE_SECONDS: f64 = 0.01;
/// Untimed warm-up per size: V8 first runs wasm in its baseline compiler and swaps in optimised
/// code only for later calls (no on-stack replacement for wasm), so warm up with many calls.
const WARM_UP_SECONDS: f64 = 0.5;

/// (median, best) GFLOP/s of `size³` products, timed with `now` (seconds). The best sample is
/// shown too because the machine may be shared: it is the figure least disturbed by others.
fn measure(size: usize, now: &dyn Fn() -> f64) -> (f64, f64) {
    let (a, b) = inputs(size);
    let mut out = vec![0.0f32; size * size];
    let mut product = || square_product(size, &a, &b, &mut out);
    let warm_up_start = now();
    let mut warm_up_calls = 0;
    while warm_up_calls < 3 || now() - warm_up_start < WARM_UP_SECONDS {
        product();
        warm_up_calls += 1;
    }
    let one_call = (now() - warm_up_start) / warm_up_calls as f64;
    let repeats = (SAMPLE_SECONDS / one_call).ceil().max(1.0) as usize;
    let mut seconds: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = now();
            (0..repeats).for_each(|_| product());
            (now() - start) / repeats as f64
        })
        .collect();
    // Keep the result observable so the product cannot be optimised away.
    assert!(out.iter().all(|x| x.is_finite()));
    seconds.sort_by(f64::total_cmp);
    let flops = 2.0 * (size as f64).powi(3);
    (flops / seconds[SAMPLES / 2] / 1e9, flops / seconds[0] / 1e9)
}

/// Two random `size × size` matrices (standard normal, seeded by the size).
fn inputs(size: usize) -> (Vec<f32>, Vec<f32>) {
    let mut rng = Rng::new(size as u64);
    let a = (0..size * size).map(|_| rng.normal() as f32).collect();
    let b = (0..size * size).map(|_| rng.normal() as f32).collect();
    (a, b)
}

/// `out = a @ b` for row-major `size × size` matrices.
fn square_product(size: usize, a: &[f32], b: &[f32], out: &mut [f32]) {
    let matrix = |data| MatrixRef { data, rows: size, cols: size, row_stride: size, col_stride: 1 };
    simd::gemm(matrix(a), matrix(b), out);
}

/// One line per size.
fn report(platform: &str, print: &dyn Fn(String), now: &dyn Fn() -> f64) {
    let kernel = if simd::USES_WASM_SIMD { "wasm simd128" } else { "portable" };
    for size in SIZES {
        let (median, best) = measure(size, now);
        print(format!("matmul {platform} ({kernel}) {size}x{size}x{size}: {median:.2} GFLOP/s median, {best:.2} best"));
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // As the CLI does: freed memory stays in the process (`tilelab::memory::keep_freed_memory`).
    tilelab::memory::keep_freed_memory();
    let start = std::time::Instant::now();
    report("native wall-clock", &|line| println!("{line}"), &|| start.elapsed().as_secs_f64());
    // On a shared machine wall-clock time includes waiting for the CPU; this thread's CPU time
    // does not.
    #[cfg(unix)]
    report("native thread-cpu-time", &|line| println!("{line}"), &thread_cpu_seconds);
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`, nanosecond resolution).
#[cfg(all(unix, not(target_arch = "wasm32")))]
fn thread_cpu_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `time` is a valid timespec for the call to fill.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_test::{console_log, wasm_bindgen_bench, Criterion};

    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen]
    extern "C" {
        /// `performance.now()` in milliseconds (window or worker).
        #[wasm_bindgen(js_namespace = performance, js_name = now)]
        fn performance_now() -> f64;
    }

    /// Runs only under `--bench` (the runner's bench mode, which also prints console output).
    /// The timing is our own median, not criterion's, so the criterion handle goes unused.
    #[wasm_bindgen_bench]
    fn matmul_gflops(_criterion: &mut Criterion) {
        let agent = USER_AGENT
            .with(|agent| agent.split(' ').find(|part| part.contains("Chrome/")).unwrap_or(agent).to_string());
        super::report(&format!("browser {agent}"), &|line| console_log!("{line}"), &|| performance_now() / 1e3);
    }

    thread_local! {
        /// The inputs and output of the last size `matmul_repeat` ran.
        static PRODUCT: std::cell::RefCell<(usize, Vec<f32>, Vec<f32>, Vec<f32>)> = Default::default();
    }

    /// For `bench/matmul-cpu-time.mjs`, which times calls by the renderer thread's CPU time: runs
    /// `repeats` products of `size³` (inputs made on the first call for a size) and returns a
    /// checksum of the output so the work is observable.
    #[wasm_bindgen]
    pub fn matmul_repeat(size: usize, repeats: usize) -> f32 {
        PRODUCT.with_borrow_mut(|(current, a, b, out)| {
            if *current != size {
                (*a, *b) = super::inputs(size);
                *out = vec![0.0; size * size];
                *current = size;
            }
            (0..repeats).for_each(|_| super::square_product(size, a, b, out));
            out.iter().sum()
        })
    }

    #[wasm_bindgen]
    extern "C" {
        /// The browser's user agent, to show which engine ran the numbers.
        #[wasm_bindgen(thread_local_v2, js_namespace = navigator, js_name = userAgent)]
        static USER_AGENT: String;
    }
}
