//! The benchmark entry points of `Playground` (`bench*`), kept apart from the notebook surface.
//! `make bench` drives them from bench/page/: it uploads seeded inputs once, times the calls from
//! JavaScript like every other contender's, and checks the outputs against an f64 reference.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;

use super::{to_js_error, Playground};
use crate::npu::NpuConfig;
use crate::session::bench::{self, BenchWorkspace};
use crate::tile::KernelPlan;

thread_local! {
    /// The tensors of the benchmark page (one workspace per wasm instance).
    static BENCH: RefCell<BenchWorkspace> = RefCell::new(BenchWorkspace::new());
    /// The NPU plans `benchNpuPlan` (`"gemm"`) and `benchNpuPlanKernel` built, by kernel, simulated
    /// by `benchNpuSimulate` and `benchNpuSimulateKernel`.
    static NPU_PLANS: RefCell<HashMap<String, (KernelPlan, NpuConfig)>> = RefCell::new(HashMap::new());
}

/// Simulates the plan of `kernel` that `benchNpuPlanKernel` built: (events, simulated cycles).
fn simulate_planned(kernel: &str) -> Result<(usize, u64), JsValue> {
    NPU_PLANS.with(|plans| match plans.borrow().get(kernel) {
        Some((plan, config)) => bench::simulate_planned(plan, config).map_err(to_js_error),
        None => {
            Err(JsValue::from_str(&format!("benchNpuSimulateKernel: call benchNpuPlanKernel('{kernel}', …) first")))
        }
    })
}

fn with_bench<R>(run: impl FnOnce(&mut BenchWorkspace) -> bench::Result<R>) -> Result<R, JsValue> {
    BENCH.with(|workspace| run(&mut workspace.borrow_mut())).map_err(to_js_error)
}

#[wasm_bindgen]
impl Playground {
    /// Which GEMM this build runs: `"relaxed-simd"`, `"simd128"` or `"portable"`.
    #[wasm_bindgen(js_name = benchBuild)]
    pub fn bench_build() -> String {
        use crate::tensor::simd::{USES_RELAXED_SIMD, USES_WASM_SIMD};
        (if USES_RELAXED_SIMD {
            "relaxed-simd"
        } else if USES_WASM_SIMD {
            "simd128"
        } else {
            "portable"
        })
        .to_string()
    }

    /// Uploads `values` as the benchmark tensor `name` of `shape`, rounded to `dtype`.
    #[wasm_bindgen(js_name = benchLoad)]
    pub fn bench_load(name: &str, values: Vec<f32>, shape: Vec<u32>, dtype: &str) -> Result<(), JsValue> {
        let shape: Vec<usize> = shape.into_iter().map(|dim| dim as usize).collect();
        with_bench(|workspace| workspace.load(name, values, &shape, dtype))
    }

    /// The values of benchmark tensor `name`, widened to f32.
    #[wasm_bindgen(js_name = benchRead)]
    pub fn bench_read(name: &str) -> Result<Vec<f32>, JsValue> {
        with_bench(|workspace| workspace.read(name))
    }

    /// Forgets every benchmark tensor.
    #[wasm_bindgen(js_name = benchClear)]
    pub fn bench_clear() {
        BENCH.with(|workspace| workspace.borrow_mut().clear());
    }

    /// `out = a @ b` (result dtype `out_dtype`, or the promotion of the inputs when absent).
    #[wasm_bindgen(js_name = benchMatmul)]
    pub fn bench_matmul(a: &str, b: &str, out: &str, out_dtype: Option<String>) -> Result<(), JsValue> {
        with_bench(|workspace| workspace.matmul(a, b, out, out_dtype.as_deref()))
    }

    /// `out = a + b`.
    #[wasm_bindgen(js_name = benchAdd)]
    pub fn bench_add(a: &str, b: &str, out: &str) -> Result<(), JsValue> {
        with_bench(|workspace| workspace.add(a, b, out))
    }

    /// `out = a * b`.
    #[wasm_bindgen(js_name = benchMul)]
    pub fn bench_mul(a: &str, b: &str, out: &str) -> Result<(), JsValue> {
        with_bench(|workspace| workspace.mul(a, b, out))
    }

    /// `out = exp(a)`.
    #[wasm_bindgen(js_name = benchExp)]
    pub fn bench_exp(a: &str, out: &str) -> Result<(), JsValue> {
        with_bench(|workspace| workspace.exp(a, out))
    }

    /// `Σ a` over every element.
    #[wasm_bindgen(js_name = benchSum)]
    pub fn bench_sum(a: &str) -> Result<f64, JsValue> {
        with_bench(|workspace| workspace.sum(a))
    }

    /// One SGD step of the 2-layer MLP on tensors `w1 b1 w2 b2` (updated in place); returns the loss.
    #[wasm_bindgen(js_name = benchMlpStep)]
    pub fn bench_mlp_step(x: &str, labels: &str, learning_rate: f64) -> Result<f64, JsValue> {
        with_bench(|workspace| workspace.mlp_step(x, labels, learning_rate))
    }

    /// Builds the tile plan of a `size³` bf16 matmul on `preset` for `benchNpuSimulate` (untimed).
    #[wasm_bindgen(js_name = benchNpuPlan)]
    pub fn bench_npu_plan(preset: &str, size: u32) -> Result<(), JsValue> {
        Playground::bench_npu_plan_kernel("gemm", preset, size)
    }

    /// Simulates the plan `benchNpuPlan` built (the simulator alone); returns its events.
    #[wasm_bindgen(js_name = benchNpuSimulate)]
    pub fn bench_npu_simulate() -> Result<u32, JsValue> {
        simulate_planned("gemm").map(|(events, _)| events as u32)
    }

    /// Builds the tile plan of `kernel` on `preset` for `benchNpuSimulateKernel` (untimed):
    /// `"gemm"` (a `size`³ bf16 matmul) or `"swiglu_b"` (the SwiGLU backward b kernel of
    /// examples/10 at `size` rows).
    #[wasm_bindgen(js_name = benchNpuPlanKernel)]
    pub fn bench_npu_plan_kernel(kernel: &str, preset: &str, size: u32) -> Result<(), JsValue> {
        let planned = match kernel {
            "gemm" => bench::plan_npu_matmul(preset, size as usize),
            "swiglu_b" => bench::plan_npu_swiglu_b(preset, size as usize),
            other => {
                return Err(JsValue::from_str(&format!("benchNpuPlanKernel: no kernel '{other}' (gemm, swiglu_b)")))
            }
        }
        .map_err(to_js_error)?;
        NPU_PLANS.with(|plans| plans.borrow_mut().insert(kernel.to_string(), planned));
        Ok(())
    }

    /// Simulates the plan of `kernel` that `benchNpuPlanKernel` built (the simulator alone);
    /// returns `[events, simulated cycles]`.
    #[wasm_bindgen(js_name = benchNpuSimulateKernel)]
    pub fn bench_npu_simulate_kernel(kernel: &str) -> Result<Vec<f64>, JsValue> {
        simulate_planned(kernel).map(|(events, cycles)| vec![events as f64, cycles as f64])
    }

    /// Builds and simulates a `size³` bf16 matmul on `preset`; returns `[simulated µs, events,
    /// cores, GM bytes read, GM bytes written, FLOPs, instructions]`.
    #[wasm_bindgen(js_name = benchNpuMatmul)]
    pub fn bench_npu_matmul(preset: &str, size: u32) -> Result<Vec<f64>, JsValue> {
        let run = bench::simulate_npu_matmul(preset, size as usize).map_err(to_js_error)?;
        Ok(vec![
            run.simulated_us,
            run.events as f64,
            run.cores as f64,
            run.gm_bytes_read as f64,
            run.gm_bytes_written as f64,
            run.flops as f64,
            run.instructions as f64,
        ])
    }
}
