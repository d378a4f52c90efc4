//! Golden values from an independent reference: JAX in float64, produced by the committed script
//! tests/golden/make_autograd_golden.py (not run in CI). The same functions are built here from
//! TileLab's primitives; losses and gradients must agree to ~1e-10 in f64 and ~1e-4 in f32.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use serde_json::Value;
use tilelab::autograd::{grad, Result, Var};
use tilelab::tensor::{BinaryOp, DType, ReduceOp, SoftmaxOp, Tensor, UnaryOp};

const GOLDEN: &str = include_str!("../golden/autograd_golden.json");

fn tensor_of(value: &Value, dtype: DType) -> Tensor {
    let shape: Vec<usize> = value["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    let values: Vec<f64> = value["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    Tensor::from_f64(values, &shape, dtype).unwrap()
}

fn scalar(value: f64, dtype: DType) -> Var {
    Var::constant(Tensor::scalar(value, dtype))
}

/// The functions of the script, from primitives. `v` holds the inputs then the constants by name.
fn loss(name: &str, v: &BTreeMap<String, Var>, dtype: DType) -> Result<Var> {
    match name {
        "mlp" => {
            // −mean_rows Σ target · log_softmax(gelu(x W1 + b1) W2)
            let h = v["x"].matmul(&v["w1"], false, false, None)?.add(&v["b1"])?.unary(UnaryOp::GeluErf)?;
            let logits = h.matmul(&v["w2"], false, false, None)?;
            let picked = v["target"].mul(&logits.softmax_like(SoftmaxOp::LogSoftmax, -1)?)?.reduce(
                ReduceOp::Sum,
                Some(&[-1]),
                false,
            )?;
            picked.mean()?.neg()
        }
        "layer_norm" => {
            let x = &v["x"];
            let mean = x.reduce(ReduceOp::Mean, Some(&[-1]), true)?;
            let var = x.reduce(ReduceOp::Var, Some(&[-1]), true)?;
            let y = x
                .sub(&mean)?
                .div(&var.add(&scalar(1e-5, dtype))?.unary(UnaryOp::Sqrt)?)?
                .mul(&v["gamma"])?
                .add(&v["beta"])?;
            y.mul(&v["weights"])?.sum()
        }
        "attention" => {
            let scores = v["q"]
                .matmul(&v["k"], false, true, None)?
                .div(&scalar(8f64.sqrt(), dtype))?
                .softmax_like(SoftmaxOp::Softmax, -1)?;
            scores.matmul(&v["v"], false, false, None)?.mul(&v["weights"])?.sum()
        }
        "elementwise" => {
            let (x, y, p) = (&v["x"], &v["y"], &v["p"]);
            let terms = [
                x.unary(UnaryOp::Sigmoid)?.mul(&y.unary(UnaryOp::Tanh)?)?,
                x.mul(x)?.neg()?.unary(UnaryOp::Exp)?.mul(&y.unary(UnaryOp::Silu)?)?,
                p.unary(UnaryOp::Sqrt)?.mul(&p.unary(UnaryOp::Log)?)?,
                p.unary(UnaryOp::Rsqrt)?.sub(&p.unary(UnaryOp::Reciprocal)?)?,
                x.unary(UnaryOp::Sin)?.mul(&y.unary(UnaryOp::Cos)?)?,
                x.unary(UnaryOp::GeluErf)?.sub(&y.unary(UnaryOp::GeluTanh)?)?,
                x.binary(BinaryOp::Maximum, y)?.sub(&x.binary(BinaryOp::Minimum, y)?.scale(0.5)?)?,
                p.binary(BinaryOp::Pow, y)?,
                x.unary(UnaryOp::Abs)?.mul(&y.unary(UnaryOp::Relu)?)?,
                x.clip(Some(-0.5), Some(0.5))?,
            ];
            let mut total = terms[0].clone();
            for term in &terms[1..] {
                total = total.add(term)?;
            }
            total.sum()
        }
        "reductions" => {
            let x = &v["x"];
            let first = x.reduce(ReduceOp::Amax, Some(&[1]), false)?.sum()?;
            let second = x
                .reduce(ReduceOp::Var, Some(&[0]), false)?
                .mul(&x.reduce(ReduceOp::Mean, Some(&[0]), false)?)?
                .sum()?;
            let low = x.reduce(ReduceOp::Amin, Some(&[1]), false)?;
            first.add(&second)?.sub(&low.mul(&low)?.sum()?)
        }
        "tiles" => {
            let tile = v["x"].view(&[4, 4], &[2, 3], Some(&[3, 3]))?.unary(UnaryOp::Exp)?;
            let out = Var::constant(Tensor::zeros(&[5, 6], dtype)?).assemble(&tile, &[2, 3])?;
            out.mul(&v["weights"])?.sum()
        }
        other => panic!("the golden file has a case {other} this test does not know"),
    }
}

fn assert_close(label: &str, got: &[f64], want: &[f64], rtol: f64) {
    let scale = want.iter().fold(1.0f64, |acc, w| acc.max(w.abs()));
    for (index, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= rtol * scale, "{label}[{index}]: {g} vs golden {w}");
    }
    assert_eq!(got.len(), want.len(), "{label}");
}

fn check_cases(dtype: DType, rtol: f64) {
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    let cases = golden["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut values = BTreeMap::new();
        let mut leaves = Vec::new();
        for (input, tensor) in case["inputs"].as_object().unwrap() {
            let leaf = Var::leaf(tensor_of(tensor, dtype));
            leaves.push((input.clone(), leaf.clone()));
            values.insert(input.clone(), leaf);
        }
        for (constant, tensor) in case["constants"].as_object().unwrap() {
            values.insert(constant.clone(), Var::constant(tensor_of(tensor, dtype)));
        }
        let value = loss(name, &values, dtype).unwrap();
        assert_close(
            &format!("{name} loss ({dtype})"),
            &[value.item().unwrap()],
            &[case["loss"].as_f64().unwrap()],
            rtol,
        );
        value.backward().unwrap();
        for (input, leaf) in leaves {
            let want = tensor_of(&case["grads"][&input], DType::F64).to_f64_vec();
            assert_close(&format!("{name} d/d{input} ({dtype})"), &leaf.grad().unwrap().to_f64_vec(), &want, rtol);
        }
    }
}

#[test]
fn losses_and_gradients_match_jax_in_f64() {
    check_cases(DType::F64, 1e-10);
}

#[test]
fn losses_and_gradients_match_jax_in_f32() {
    check_cases(DType::F32, 1e-4);
}

#[test]
fn hessian_vector_product_matches_jax() {
    // f(x) = Σ sin(x)·x² + (Σ x)³; Hv = ∇(∇f · v) with create_graph.
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    let hessian = &golden["hessian"];
    let x = Var::leaf(tensor_of(&hessian["x"], DType::F64));
    let v = Var::constant(tensor_of(&hessian["v"], DType::F64));
    let total = x.sum().unwrap();
    let f = x
        .unary(UnaryOp::Sin)
        .unwrap()
        .mul(&x)
        .unwrap()
        .mul(&x)
        .unwrap()
        .sum()
        .unwrap()
        .add(&total.mul(&total).unwrap().mul(&total).unwrap())
        .unwrap();
    let first = grad(&[f], std::slice::from_ref(&x), None, true).unwrap().remove(0).unwrap();
    let hv = grad(&[first.mul(&v).unwrap().sum().unwrap()], &[x], None, false).unwrap().remove(0).unwrap();
    assert_close("hvp", &hv.tensor().to_f64_vec(), &tensor_of(&hessian["hvp"], DType::F64).to_f64_vec(), 1e-10);
}
