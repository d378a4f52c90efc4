# TileLab: `make run` builds everything and serves the page; `make test` runs every test.
# Tools that are missing (wasm target, wasm-pack, wasm-bindgen-cli, node_modules) are installed
# by scripts/ensure-tools.sh; Chromium, ChromeDriver and a CJK font come from Debian
# (scripts/ensure-system.sh: installs them as root, otherwise prints the apt-get command and fails).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := run

export PATH := $(HOME)/.cargo/bin:$(PATH)

PORT ?= 8080
CHROMIUM ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver
VITE := node_modules/.bin/vite

.PHONY: run serve tools system lint contract typecheck wasm wasm-relaxed web test test-native test-wasm test-e2e browser clean bench bench-matmul bench-matmul-cpu bench-gradcheck bench-page corpus fidelity

## run: install what is missing, build the wasm package and the page, serve dist/ on 127.0.0.1:$(PORT)
run: web
	PORT=$(PORT) node scripts/serve.mjs dist

## serve: serve the last build of dist/ without rebuilding
serve:
	PORT=$(PORT) node scripts/serve.mjs dist

## tools: install the missing build and test tools
tools:
	scripts/ensure-tools.sh

## wasm: build pkg/ (release, simd128 from .cargo/config.toml) and check that it really uses SIMD
wasm: tools
	wasm-pack build --target web --release --mode no-install
	node scripts/check-simd.mjs pkg/tilelab_bg.wasm

## wasm-relaxed: build pkg-relaxed/ (simd128 + relaxed-simd: fused multiply-add in the GEMM); the
## worker loads it instead of pkg/ where the browser validates relaxed-simd. Own target dir, since
## RUSTFLAGS replace .cargo/config.toml's flags and would otherwise rebuild pkg/'s artifacts.
wasm-relaxed: tools
	RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR=target/relaxed \
	  wasm-pack build --target web --release --mode no-install --out-dir pkg-relaxed
	node scripts/check-simd.mjs pkg-relaxed/tilelab_bg.wasm

## web: build the front end with Vite into dist/
web: wasm wasm-relaxed
	$(VITE) build --logLevel warn
	@echo "built dist/"

## test: install what is missing, then the lint gate and every test (native, wasm in Chromium, end to
## end); stops at the first failing group
test: tools system lint test-native typecheck test-wasm test-e2e

## lint: the formatter and clippy gates (rustfmt.toml; every warning is an error)
lint:
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings

## contract: regenerate www/engine/contract.d.ts (the TypeScript of the result types) from the Rust
## types; `cargo test` fails while the committed file is stale
contract:
	TILELAB_WRITE_CONTRACT=1 cargo test --lib session::contract

## typecheck: check www/ (JSDoc-typed JS) against the generated contract and the wasm package's
## declarations with tsc --checkJs (tsconfig.json); needs pkg/ and pkg-relaxed/
typecheck: tools wasm wasm-relaxed
	node_modules/.bin/tsc -p tsconfig.json

## test-native: cargo test (library, binary, integration and doc tests); benches are only compiled,
## since a benchmark run in a debug build proves nothing and takes minutes
test-native:
	cargo test
	cargo test --benches --no-run

# wasm-pack sets WASM_BINDGEN_TEST_ONLY_WEB, which silently skips test binaries not configured for a
# browser; WASM_BINDGEN_USE_BROWSER runs those in the browser too, so nothing is skipped.
## test-wasm: the wasm-bindgen tests, in headless Chromium
test-wasm: tools browser
	CHROMEDRIVER=$(CHROMEDRIVER) \
	WASM_BINDGEN_USE_BROWSER=1 \
	WASM_BINDGEN_TEST_WEBDRIVER_JSON=$(CURDIR)/scripts/webdriver.json \
	WASM_BINDGEN_TEST_TIMEOUT=120 \
	  wasm-pack test --headless --chrome --mode no-install

## test-e2e: build the page and drive it in headless Chromium (node --test tests/e2e/)
test-e2e: web browser
	CHROMIUM_PATH=$(CHROMIUM) node --test tests/e2e/

## system: the system packages of the browser tests (chromium, chromium-driver, fonts-wqy-microhei)
system:
	CHROMIUM=$(CHROMIUM) CHROMEDRIVER=$(CHROMEDRIVER) scripts/ensure-system.sh

## browser: what the browser tests and benchmarks need (the same as system)
browser: system

## bench: TileLab (both wasm builds) against tfjs-backend-wasm and onnxruntime-web in one headless
## Chromium page; writes bench/results.json and docs/benchmarks.md (BENCH_ROUNDS=9 by default)
bench: wasm wasm-relaxed browser
	CHROMIUM_PATH=$(CHROMIUM) node scripts/bench-run.mjs --rounds $(or $(BENCH_ROUNDS),9)

## bench-matmul: matmul GFLOP/s for 256³, 512³, 1024³, natively and in headless Chromium (wasm simd128)
bench-matmul: tools browser
	cargo bench --bench matmul
	bench/matmul-chromium.sh

## bench-matmul-cpu: the Chromium matmul timed by the renderer thread's CPU time (for a busy machine)
bench-matmul-cpu: tools browser
	node bench/matmul-cpu-time.mjs

## bench-gradcheck: time of a gradient check on a 256×256 f32 input, natively
bench-gradcheck:
	cargo bench --bench gradcheck

## bench-page: page ready-to-run (cold loads), re-running the Swish cell, gzip size of the wasm, in
## headless Chromium on localhost; prints a table and writes bench/page-results.json
bench-page: web browser
	CHROMIUM_PATH=$(CHROMIUM) node scripts/bench-page.mjs

## corpus: run the pypto corpus notebooks with the CLI; prints each file's outcome and "N of M run unchanged"
corpus:
	scripts/corpus.sh

## clean: remove build outputs of this checkout (target/, pkg/, dist/, test-artifacts/)
clean:
	cargo clean
	rm -rf pkg pkg-relaxed dist test-artifacts

## fidelity: simulate every measured Ascend kernel of bench/fidelity/measured.csv and print measured vs
## simulated vs error; writes bench/fidelity/results.md and the table in docs/npu-model.md
fidelity:
	scripts/fidelity.sh
