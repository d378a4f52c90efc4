//! The browser test suite of the tensor core, shared by the page (`tests/browser_core.rs`) and the
//! dedicated worker (`tests/worker_core.rs`): each file sets where it runs and expands this suite.
#![allow(unused_macros)]

/// Expands the shared `#[wasm_bindgen_test]` functions into the calling test file.
macro_rules! browser_suite {
    () => {
        use common::{checks, error_checks, layout_checks, matmul_checks, rng_golden};

        #[wasm_bindgen_test]
        fn built_with_simd128() {
            // .cargo/config.toml turns simd128 on for every wasm build; the kernels under test depend on it.
            assert!(cfg!(target_feature = "simd128"));
        }

        #[wasm_bindgen_test]
        fn rng_bit_patterns_match_the_native_constants() {
            rng_golden::check_bit_patterns();
            rng_golden::check_digests();
            rng_golden::check_global_stream();
        }

        #[wasm_bindgen_test]
        fn rng_moments() {
            rng_golden::check_moments();
        }

        #[wasm_bindgen_test]
        fn creation() {
            matmul_checks::creation();
            matmul_checks::arange();
            matmul_checks::from_data();
        }

        #[wasm_bindgen_test]
        fn unary_ops() {
            checks::unary_ops();
            checks::unary_extremes();
        }

        #[wasm_bindgen_test]
        fn binary_ops_with_broadcasting() {
            checks::binary_ops();
        }

        #[wasm_bindgen_test]
        fn clip() {
            checks::clip();
        }

        #[wasm_bindgen_test]
        fn reductions() {
            checks::reductions();
            checks::nan_propagation();
        }

        #[wasm_bindgen_test]
        fn softmax() {
            checks::softmax();
            checks::softmax_extremes();
        }

        #[wasm_bindgen_test]
        fn matmul_odd_sizes_and_transposes() {
            matmul_checks::matmul_2d();
        }

        #[wasm_bindgen_test]
        fn matmul_batched() {
            matmul_checks::matmul_batched();
        }

        #[wasm_bindgen_test]
        fn layout_ops() {
            layout_checks::reshape();
            layout_checks::transpose_permute();
            layout_checks::concat();
            layout_checks::slice_and_assign();
            layout_checks::slice_to_slice();
        }

        #[wasm_bindgen_test]
        fn view_assemble_cast() {
            layout_checks::view_and_assemble();
            layout_checks::cast();
        }

        #[wasm_bindgen_test]
        fn errors_are_typed_and_name_the_op() {
            error_checks::shape_mismatch();
            error_checks::bad_dims();
            error_checks::element_count_overflow();
            error_checks::allocation_cap();
            error_checks::view_past_the_edge();
        }
    };
}
