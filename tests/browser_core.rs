//! The tensor core in a browser page (Chromium through `wasm-pack test --headless --chrome`), built for
//! wasm32 with `simd128`: the same reference checks as the native tests, the SIMD GEMM on odd sizes,
//! and the committed RNG bit patterns that the native test checks too.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod common;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

browser_suite!();

#[wasm_bindgen_test]
fn runs_in_a_page() {
    // A page's global object is a Window with a document; a worker's has neither.
    assert!(js_sys::Reflect::has(&js_sys::global(), &"document".into()).unwrap());
}
