//! The one `#[wasm_bindgen]` surface of TileLab: the `Playground` struct the Web Worker drives.
//!
//! JSON-able values go out through `serde-wasm-bindgen`; every Rust error leaves through
//! [`to_js_error`] as a JS `Error` carrying the message. There is no `#[wasm_bindgen(start)]`: the
//! worker calls the generated `init()` and then constructs a `Playground`, which installs the panic
//! hook so a Rust panic message reaches the JS console before the module traps.

use std::fmt::Display;
use std::sync::{Mutex, Once};

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::session::Session;
use crate::tensor::{DType, Tensor};

mod bench;

/// Side of the square matrices multiplied by [`Playground::smoke`].
const SMOKE_SIZE: usize = 64;
/// How many leading output values the smoke report shows.
const SMOKE_PREVIEW: usize = 4;
/// Matmuls timed per case, so the mean is above the timer's coarse resolution in a worker.
const SMOKE_REPEATS: usize = 16;
/// Untimed matmuls first, so the mean excludes the engine's lazy compilation of the hot loops.
const SMOKE_WARMUPS: usize = 4;

/// The message of the last Rust panic, kept for [`Playground::take_panic_message`].
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// A TileLab notebook session as seen from JavaScript (the worker owns one).
#[wasm_bindgen]
pub struct Playground {
    session: Session,
}

#[wasm_bindgen]
impl Playground {
    /// A new playground; installs the panic hook on first use.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Playground {
        install_panic_hook();
        Playground { session: Session::new() }
    }

    /// Runs one cell in the session and returns its `CellResult` as a plain JSON-like object
    /// (`{status, stdout, displays, diagnostics, duration_ms, …}`); errors of the user's code are
    /// in `diagnostics`, never thrown.
    #[wasm_bindgen(js_name = runCell)]
    pub fn run_cell(&mut self, code: &str) -> Result<JsValue, JsValue> {
        let result = self.session.run_cell(code);
        result.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(to_js_error)
    }

    /// Runs the engine's warm-up (`session::warm_up`): `www/warm-up-worker.js` calls it once after
    /// the engine worker is ready, so the browser optimises the kernel paths (shared between the
    /// workers) before the reader's first run. Returns its ms.
    #[wasm_bindgen(js_name = warmUp)]
    pub fn warm_up() -> Result<f64, JsValue> {
        crate::session::warm_up().map_err(to_js_error)
    }

    /// Sends progress of long work (gradient checks, sweeps, kernel calls, steps) to
    /// `callback(label, done, total, message)` while a cell runs (`message`: a `{code, params}`
    /// object or null); `undefined` stops it. The worker posts each call to the page.
    #[wasm_bindgen(js_name = setProgress)]
    pub fn set_progress(&mut self, callback: Option<js_sys::Function>) {
        let reporter = callback.map(|callback| -> crate::session::ProgressReporter {
            std::rc::Rc::new(
                move |label: &str, done: usize, total: usize, message: Option<&crate::messages::Message>| {
                    let message = message
                        .and_then(|message| message.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).ok())
                        .unwrap_or(JsValue::NULL);
                    let arguments = js_sys::Array::of4(
                        &JsValue::from_str(label),
                        &JsValue::from_f64(done as f64),
                        &JsValue::from_f64(total as f64),
                        &message,
                    );
                    // A throwing callback must not stop the cell: progress is only a view.
                    let _ = callback.apply(&JsValue::NULL, &arguments);
                },
            )
        });
        crate::session::set_progress_reporter(reporter);
    }

    /// The parser's diagnostics of `code` (a cell being typed), without running it: the same
    /// objects as a result's `diagnostics`, with `cell` 0.
    #[wasm_bindgen(js_name = checkSyntax)]
    pub fn check_syntax(&self, code: &str) -> Result<JsValue, JsValue> {
        let diagnostics = crate::session::check_syntax(code, 0);
        diagnostics.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(to_js_error)
    }

    /// The Chrome trace JSON of a cell result's kernel schedule, by its `trace_key`; undefined when
    /// the session no longer keeps it (or the key is of an earlier session).
    #[wasm_bindgen(js_name = kernelTrace)]
    pub fn kernel_trace(&self, key: &str) -> Option<String> {
        self.session.kernel_trace(key)
    }

    /// The variables the cells defined: `[{name, kind, shape, dtype, requires_grad, preview, cell}]`.
    pub fn variables(&self) -> Result<JsValue, JsValue> {
        let summaries = self.session.variable_summaries();
        summaries.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(to_js_error)
    }

    /// The API table as JSON text (`[{name, kind, parameters, signature, doc_en, doc_zh}]`): the
    /// same table the interpreter resolves `pypto.*` through; the editor's completion reads it.
    #[wasm_bindgen(js_name = apiTable)]
    pub fn api_table() -> String {
        crate::lang::interp::api_table::api_table_json()
    }

    /// The language of `help()` texts (`en`, `zh-CN`).
    #[wasm_bindgen(js_name = setLanguage)]
    pub fn set_language(&mut self, language: &str) {
        self.session.set_language(language);
    }

    /// Forgets every variable, kernel and registered gradient of the session.
    pub fn reset(&mut self) {
        self.session.reset();
    }

    /// Selects the simulated NPU preset (`Ascend910B2`, `Ascend910A`, `teaching`).
    #[wasm_bindgen(js_name = setNpuPreset)]
    pub fn set_npu_preset(&mut self, preset: &str) -> Result<(), JsValue> {
        self.session.set_npu_preset(preset).map_err(to_js_error)
    }

    /// The selected NPU preset.
    #[wasm_bindgen(js_name = npuPreset)]
    pub fn npu_preset(&self) -> String {
        self.session.npu_preset()
    }

    /// The message of the last Rust panic, if any, and forgets it. A panic traps as an opaque
    /// `RuntimeError: unreachable`; the worker calls this to tell the user what actually failed.
    #[wasm_bindgen(js_name = takePanicMessage)]
    pub fn take_panic_message() -> Option<String> {
        LAST_PANIC.lock().ok().and_then(|mut slot| slot.take())
    }

    /// The TileLab version (the crate version).
    pub fn version(&self) -> String {
        crate::VERSION.to_string()
    }

    /// Multiplies seeded 64×64 random matrices in f32 and in bf16 with the tensor core and reports
    /// inputs, outputs, a checksum, whether this build has `simd128`, and the time taken.
    pub fn smoke(&self) -> Result<JsValue, JsValue> {
        let report = smoke_report().map_err(to_js_error)?;
        serde_wasm_bindgen::to_value(&report).map_err(to_js_error)
    }
}

/// Turns any Rust error (a `TensorError`, a serialisation error …) into a JS `Error` with its message.
pub fn to_js_error(error: impl Display) -> JsValue {
    js_sys::Error::new(&error.to_string()).into()
}

/// The result of [`Playground::smoke`].
#[derive(Serialize)]
struct SmokeReport {
    version: &'static str,
    /// Whether the wasm was compiled with 128-bit SIMD.
    simd: bool,
    cases: Vec<MatmulCase>,
}

/// One `a @ b` of the smoke test, with everything a reader needs to recompute it.
#[derive(Serialize)]
struct MatmulCase {
    dtype: &'static str,
    seeds: [u64; 2],
    a_shape: Vec<usize>,
    b_shape: Vec<usize>,
    out_shape: Vec<usize>,
    /// Row-major inputs as stored (already rounded to `dtype`).
    a: Vec<f32>,
    b: Vec<f32>,
    out: Vec<f32>,
    /// The first few output values, for display.
    preview: Vec<f32>,
    /// Sum of all output values, accumulated in f64.
    checksum: f64,
    /// Mean wall time of one matmul, in milliseconds.
    milliseconds: f64,
    repeats: usize,
}

fn smoke_report() -> crate::error::Result<SmokeReport> {
    let cases = [(DType::F32, [7, 11]), (DType::Bf16, [13, 17])]
        .into_iter()
        .map(|(dtype, seeds)| matmul_case(dtype, seeds))
        .collect::<crate::error::Result<Vec<_>>>()?;
    Ok(SmokeReport { version: crate::VERSION, simd: cfg!(target_feature = "simd128"), cases })
}

fn matmul_case(dtype: DType, seeds: [u64; 2]) -> crate::error::Result<MatmulCase> {
    let shape = [SMOKE_SIZE, SMOKE_SIZE];
    let a = Tensor::randn(&shape, dtype, Some(seeds[0]))?;
    let b = Tensor::randn(&shape, dtype, Some(seeds[1]))?;
    let mut out = a.matmul(&b, false, false, None)?;
    for _ in 1..SMOKE_WARMUPS {
        out = a.matmul(&b, false, false, None)?;
    }
    let start = now_milliseconds();
    for _ in 0..SMOKE_REPEATS {
        out = a.matmul(&b, false, false, None)?;
    }
    let milliseconds = (now_milliseconds() - start) / SMOKE_REPEATS as f64;
    let values = out.to_f32_vec();
    Ok(MatmulCase {
        dtype: dtype.short_name(),
        seeds,
        a_shape: a.shape().to_vec(),
        b_shape: b.shape().to_vec(),
        out_shape: out.shape().to_vec(),
        a: a.to_f32_vec(),
        b: b.to_f32_vec(),
        preview: values.iter().take(SMOKE_PREVIEW).copied().collect(),
        checksum: values.iter().map(|&value| f64::from(value)).sum(),
        out: values,
        milliseconds,
        repeats: SMOKE_REPEATS,
    })
}

/// `performance.now()` of the current global (window or worker); 0 where there is none, which
/// only makes the reported time meaningless, never the result wrong.
fn now_milliseconds() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|value| value.dyn_into::<web_sys::Performance>().ok())
        .map_or(0.0, |performance| performance.now())
}

/// Sends Rust panic messages to `console.error` and keeps the last one: in wasm a panic aborts as
/// an opaque `RuntimeError: unreachable`, so without this the message would be lost.
fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| remember_panic(format!("TileLab: {info}"))));
    });
}

fn remember_panic(message: String) {
    web_sys::console::error_1(&JsValue::from_str(&message));
    if let Ok(mut slot) = LAST_PANIC.lock() {
        *slot = Some(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Each output element must equal Σ_k a[i,k]·b[k,j] recomputed here in f64 from the reported
    /// inputs: within 1e-5·Σ_k|a||b| for f32 (f32 accumulation over k = 64), plus one bf16 rounding
    /// of the result (relative 2⁻⁸) for bf16.
    #[wasm_bindgen_test]
    fn smoke_matches_an_f64_matmul_of_its_inputs() {
        let report = smoke_report().unwrap();
        assert!(report.simd, "the wasm build must have simd128 (see .cargo/config.toml)");
        assert_eq!(report.cases.len(), 2);
        for case in &report.cases {
            let n = SMOKE_SIZE;
            assert_eq!(case.out.len(), n * n);
            let rounding = if case.dtype == "bf16" { 2f64.powi(-8) } else { 0.0 };
            let mut checksum = 0.0;
            for i in 0..n {
                for j in 0..n {
                    let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
                    for k in 0..n {
                        let term = f64::from(case.a[i * n + k]) * f64::from(case.b[k * n + j]);
                        exact += term;
                        magnitude += term.abs();
                    }
                    let got = f64::from(case.out[i * n + j]);
                    let tolerance = 1e-5 * magnitude + rounding * exact.abs();
                    assert!((got - exact).abs() <= tolerance, "{} out[{i},{j}] = {got}, expected {exact}", case.dtype);
                    checksum += got;
                }
            }
            assert_eq!(case.checksum, checksum);
        }
    }

    /// Rust errors reach JS as `Error` objects whose message is the Display text.
    #[wasm_bindgen_test]
    fn errors_become_js_errors_with_the_message() {
        let a = Tensor::zeros(&[2, 3], DType::F32).unwrap();
        let error = a.matmul(&a, false, false, None).unwrap_err();
        let value = to_js_error(&error);
        let js_error: js_sys::Error = value.dyn_into().unwrap();
        assert_eq!(String::from(js_error.message()), error.to_string());
    }

    /// The hook's message is logged and handed out exactly once.
    #[wasm_bindgen_test]
    fn a_remembered_panic_message_is_taken_once() {
        remember_panic("TileLab: panicked at here: test message".to_string());
        assert_eq!(Playground::take_panic_message().as_deref(), Some("TileLab: panicked at here: test message"));
        assert_eq!(Playground::take_panic_message(), None);
    }

    /// A cell runs in the session and its result arrives as a plain object: `x = 6 * 7` then
    /// `print(x)` in a second cell prints "42" (globals are shared between cells).
    #[wasm_bindgen_test]
    fn cells_share_globals_and_results_are_plain_objects() {
        let mut playground = Playground::new();
        let first = playground.run_cell("x = 6 * 7").unwrap();
        assert_eq!(field(&first, "status"), "ok");
        let second = playground.run_cell("print(x)").unwrap();
        assert_eq!(field(&second, "stdout"), "42\n");
        let failed = playground.run_cell("import pypto\ny = pypto.zeros([2, 3]) @ pypto.zeros([2, 3])").unwrap();
        assert_eq!(field(&failed, "status"), "error");
        let diagnostics = js_sys::Reflect::get(&failed, &"diagnostics".into()).unwrap();
        let first_diagnostic = js_sys::Reflect::get(&diagnostics, &0.into()).unwrap();
        assert!(field(&first_diagnostic, "message").contains("inner dims 3 ≠ 2"));
    }

    /// A gradient check over a 4×4 input with a 4×4 output runs in full mode: 16 backward passes
    /// plus 16 perturbed elements = 32 units, each reported (32 < 100 steps) as (label, done, 32)
    /// with done rising 0, 1, …, 32; without a callback nothing is reported.
    #[wasm_bindgen_test]
    fn progress_reaches_the_js_callback() {
        let mut playground = Playground::new();
        let callback = js_sys::Function::new_with_args(
            "label, done, total",
            "(globalThis.tilelabProgress = globalThis.tilelabProgress || []).push([label, done, total]);",
        );
        playground.set_progress(Some(callback));
        let result = playground.run_cell("import pypto as pt\ndef square(t):\n    return t * t\nx = pt.randn([4, 4], seed=1)\nr = pt.autodiff.check_gradient(square, [x])").unwrap();
        assert_eq!(field(&result, "status"), "ok");
        playground.set_progress(None);
        playground.run_cell("r2 = pt.autodiff.check_gradient(square, [x])").unwrap();
        let seen = js_sys::Reflect::get(&js_sys::global(), &"tilelabProgress".into()).unwrap();
        let seen: js_sys::Array = seen.dyn_into().unwrap();
        assert_eq!(seen.length(), 33);
        for (index, entry) in seen.iter().enumerate() {
            let entry: js_sys::Array = entry.dyn_into().unwrap();
            assert_eq!(entry.get(0).as_string().as_deref(), Some("check_gradient"));
            assert_eq!(entry.get(1).as_f64(), Some(index as f64));
            assert_eq!(entry.get(2).as_f64(), Some(32.0));
        }
    }

    fn field(object: &JsValue, name: &str) -> String {
        js_sys::Reflect::get(object, &name.into()).unwrap().as_string().unwrap_or_default()
    }

    /// The warm-up the worker runs after `ready` completes in the browser build too.
    #[wasm_bindgen_test]
    fn the_warm_up_runs_in_the_browser() {
        let milliseconds = Playground::warm_up().unwrap();
        assert!(milliseconds > 0.0);
    }

    #[wasm_bindgen_test]
    fn version_is_the_crate_version() {
        assert_eq!(Playground::new().version(), env!("CARGO_PKG_VERSION"));
    }
}
