#!/bin/sh
# Matmul GFLOP/s of the wasm simd128 GEMM in headless Chromium (256³, 512³, 1024³).
# Builds benches/matmul.rs for wasm32 (bench profile, +simd128 from .cargo/config.toml) and runs
# it through wasm-bindgen-test-runner's bench mode, which prints the console output.
set -eu
cd "$(dirname "$0")/.."
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER:-wasm-bindgen-test-runner}" \
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
WASM_BINDGEN_TEST_ONLY_WEB=1 \
WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-300}" \
exec cargo bench --target wasm32-unknown-unknown --bench matmul "$@"
