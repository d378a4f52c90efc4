//! Table-driven gradient checks: every differentiable primitive, at shapes including scalars,
//! size-1 dims and broadcasting, against central differences in f64 (the checker's numerical side).
#![cfg(not(target_arch = "wasm32"))]

use super::support as autograd_support;

use std::collections::BTreeSet;

use autograd_support::cases;
use tilelab::autograd::{check_gradient, differentiable_op_names, grad, CheckOptions, Result, Var};
use tilelab::tensor::{DType, Tensor};

#[test]
fn every_differentiable_op_passes_in_f32_and_f64_and_coverage_is_complete() {
    let table = cases();
    let mut covered = BTreeSet::new();
    for case in &table {
        for dtype in [DType::F32, DType::F64] {
            let inputs = case.make_inputs(11, dtype);
            let report = check_gradient(&*case.function, &inputs, &CheckOptions::default()).unwrap();
            assert!(report.passed, "{} ({dtype}) failed:\n{report}", case.label);
        }
        covered.insert(case.op.clone());
    }
    let all = differentiable_op_names();
    let missing: Vec<&String> = all.iter().filter(|name| !covered.contains(*name)).collect();
    let checked = all.len() - missing.len();
    println!(
        "gradient-check coverage: {checked}/{} differentiable ops = {:.0}%",
        all.len(),
        100.0 * checked as f64 / all.len() as f64
    );
    assert!(missing.is_empty(), "ops without a gradient check: {missing:?}");
}

#[test]
fn narrow_dtypes_pass_at_their_tolerances() {
    // bf16 and f16: the analytic side rounds every intermediate; tolerances from the dtype table.
    for case in cases().iter().filter(|case| case.op != "normal_cdf") {
        for dtype in [DType::Bf16, DType::F16] {
            let inputs = case.make_inputs(5, dtype);
            let report = check_gradient(&*case.function, &inputs, &CheckOptions::default()).unwrap();
            assert!(report.passed, "{} ({dtype}) failed:\n{report}", case.label);
        }
    }
}

/// x ↦ ∂(Σ w ⊙ f(x))/∂x for every input, flattened and joined: checking its gradient checks the
/// second derivatives, i.e. that every rule's own backward (recorded with create_graph) is right.
fn first_derivative(function: autograd_support::CaseFunction, seed: u64) -> impl Fn(&[Var]) -> Result<Var> {
    move |inputs: &[Var]| {
        let output = function(inputs)?;
        let weights = Tensor::randn(output.shape(), output.dtype(), Some(seed))?;
        let weighted = output.mul(&Var::constant(weights))?.sum()?;
        let gradients = grad(&[weighted], inputs, None, true)?;
        let mut parts = Vec::with_capacity(inputs.len());
        for (gradient, input) in gradients.into_iter().zip(inputs) {
            let gradient = match gradient {
                Some(gradient) => gradient,
                None => input.zeros_like()?,
            };
            parts.push(gradient.reshape(&[input.tensor().numel()])?);
        }
        Var::concat(&parts, 0)
    }
}

#[test]
fn second_derivatives_of_every_rule_pass_in_f64() {
    let mut covered = BTreeSet::new();
    for case in cases() {
        let inputs = case.make_inputs(23, DType::F64);
        let function = first_derivative(case.function.clone(), 99);
        let report = check_gradient(&function, &inputs, &CheckOptions::default()).unwrap();
        assert!(report.passed, "second order of {} failed:\n{report}", case.label);
        covered.insert(case.op.clone());
    }
    assert_eq!(covered.len(), differentiable_op_names().len());
}
