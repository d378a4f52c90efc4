//! The tensor core in a dedicated Web Worker (the way the notebook runs it; Chromium through `wasm-pack test --headless --chrome`), built for
//! wasm32 with `simd128`: the same reference checks as the native tests, the SIMD GEMM on odd sizes,
//! and the committed RNG bit patterns that the native test checks too.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod common;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_dedicated_worker);

browser_suite!();

#[wasm_bindgen_test]
fn runs_in_a_worker() {
    // A dedicated worker's global scope has importScripts and no document.
    let global = js_sys::global();
    assert!(js_sys::Reflect::has(&global, &"importScripts".into()).unwrap());
    assert!(!js_sys::Reflect::has(&global, &"document".into()).unwrap());
}
