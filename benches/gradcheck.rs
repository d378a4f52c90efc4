//! Benchmark: a gradient check on a 256×256 f32 input (target: under 1 s natively).
//! Run with `cargo bench --bench gradcheck`.

use std::time::Instant;

use tilelab::autograd::{check_gradient, CheckOptions, Var};
use tilelab::tensor::{DType, ReduceOp, SoftmaxOp, Tensor, UnaryOp};

fn time(label: &str, function: &dyn Fn(&[Var]) -> tilelab::autograd::Result<Var>, input: &Tensor) {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        let report =
            check_gradient(function, std::slice::from_ref(input), &CheckOptions::default()).expect("check runs");
        best = best.min(start.elapsed().as_secs_f64());
        assert!(report.passed, "{report}");
    }
    println!("gradcheck 256×256 f32, {label}: best of 5 = {:.1} ms", best * 1e3);
}

fn main() {
    // As the CLI does: freed memory stays in the process (`tilelab::memory::keep_freed_memory`).
    tilelab::memory::keep_freed_memory();
    let x = Tensor::randn(&[256, 256], DType::F32, Some(1)).expect("input");
    let w = Tensor::randn(&[256, 256], DType::F32, Some(2)).expect("weights");
    let elementwise = {
        let w = w.clone();
        move |x: &[Var]| x[0].unary(UnaryOp::Tanh)?.mul(&Var::constant(w.clone()))?.sum()
    };
    time("Σ tanh(x)·w", &elementwise, &x);
    // 65536 kinks: some lie within a step of the point along the projection direction.
    let kinks = {
        let w = w.clone();
        move |x: &[Var]| x[0].unary(UnaryOp::Relu)?.mul(&Var::constant(w.clone()))?.sum()
    };
    time("Σ relu(x)·w", &kinks, &x);
    let layer = {
        let w = w.clone();
        move |x: &[Var]| {
            let h = x[0].matmul(&Var::constant(w.clone()), false, false, None)?;
            h.softmax_like(SoftmaxOp::LogSoftmax, -1)?.reduce(ReduceOp::Mean, None, false)
        }
    };
    time("mean log_softmax(x·W)", &layer, &x);
}
