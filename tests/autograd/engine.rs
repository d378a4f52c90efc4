//! The engine: recording only when needed, backward semantics (accumulation, errors), the
//! conventions at kinks and ties, dtypes of gradients, tiles, custom ops, second order.
#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use tilelab::autograd::{
    call_custom, grad, no_grad, register_custom_op, Attributes, AutogradError, BackwardOptions, ForwardOutput,
    GraphData, Result, Var,
};
use tilelab::tensor::{BinaryOp, DType, ReduceOp, Tensor, UnaryOp};

fn tensor(values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_f64(values.to_vec(), shape, DType::F64).unwrap()
}

fn leaf(values: &[f64], shape: &[usize]) -> Var {
    Var::leaf(tensor(values, shape))
}

fn close(got: &[f64], want: &[f64], tolerance: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tolerance * (1.0 + w.abs()), "{got:?} vs {want:?}");
    }
}

#[test]
fn scalar_expression_matches_hand_derivatives() {
    // f(a, b) = tanh(a·b + b²) with a = 0.3, b = -0.7:
    // c = ab + b², df/da = (1 − tanh²c)·b, df/db = (1 − tanh²c)·(a + 2b).
    let (a0, b0) = (0.3f64, -0.7f64);
    let (a, b) = (leaf(&[a0], &[]), leaf(&[b0], &[]));
    let square = b.binary(BinaryOp::Pow, &Var::constant(Tensor::scalar(2.0, DType::F64))).unwrap();
    let f = a.mul(&b).unwrap().add(&square).unwrap().unary(UnaryOp::Tanh).unwrap();
    f.backward().unwrap();
    let c = a0 * b0 + b0 * b0;
    let slope = 1.0 - c.tanh().powi(2);
    close(&a.grad().unwrap().to_f64_vec(), &[slope * b0], 1e-12);
    close(&b.grad().unwrap().to_f64_vec(), &[slope * (a0 + 2.0 * b0)], 1e-12);
}

#[test]
fn no_graph_is_built_without_requires_grad_or_under_no_grad() {
    let x = Var::constant(tensor(&[1.0, 2.0], &[2]));
    let y = x.unary(UnaryOp::Exp).unwrap();
    assert!(!y.requires_grad() && y.node_id().is_none());
    let w = leaf(&[1.0, 2.0], &[2]);
    {
        let _off = no_grad();
        assert!(!w.mul(&w).unwrap().requires_grad());
    }
    assert!(w.mul(&w).unwrap().requires_grad());
    let error = y.sum().unwrap().backward().unwrap_err();
    assert!(matches!(error, AutogradError::DoesNotRequireGrad { .. }), "{error}");
    assert!(error.to_string().contains("requires_grad"));
}

#[test]
fn backward_accumulates_and_a_freed_graph_is_an_error() {
    // y = Σ x², dy/dx = 2x; twice with retain_graph gives 4x.
    let x = leaf(&[1.0, -2.0], &[2]);
    let y = x.mul(&x).unwrap().sum().unwrap();
    y.backward_with(None, BackwardOptions { retain_graph: true, create_graph: false }).unwrap();
    y.backward().unwrap();
    close(&x.grad().unwrap().to_f64_vec(), &[4.0, -8.0], 0.0);
    let error = y.backward().unwrap_err();
    assert!(matches!(error, AutogradError::SavedTensorsFreed { .. }), "{error}");
    x.zero_grad();
    assert!(x.grad().is_none());
}

#[test]
fn non_scalar_needs_a_gradient_of_its_shape() {
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let y = x.scale(3.0).unwrap();
    assert!(matches!(y.backward().unwrap_err(), AutogradError::NonScalarOutput { .. }));
    let wrong = Tensor::ones(&[2], DType::F64).unwrap();
    assert!(matches!(
        y.backward_with(Some(&wrong), BackwardOptions::default()).unwrap_err(),
        AutogradError::GradientShapeMismatch { .. }
    ));
    // With v = [1, 10, 100]: d(vᵀ·3x)/dx = 3v.
    y.backward_with(Some(&tensor(&[1.0, 10.0, 100.0], &[3])), BackwardOptions::default()).unwrap();
    close(&x.grad().unwrap().to_f64_vec(), &[3.0, 30.0, 300.0], 0.0);
}

#[test]
fn broadcast_gradients_are_reduced_to_input_shapes() {
    // z = Σ (a[2,1] · b[3]): dz/da_i = Σ_j b_j, dz/db_j = Σ_i a_i.
    let a = leaf(&[2.0, 5.0], &[2, 1]);
    let b = leaf(&[1.0, 3.0, -1.0], &[3]);
    a.mul(&b).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(a.grad().unwrap().shape(), &[2, 1]);
    close(&a.grad().unwrap().to_f64_vec(), &[3.0, 3.0], 0.0);
    close(&b.grad().unwrap().to_f64_vec(), &[7.0, 7.0, 7.0], 0.0);
}

#[test]
fn gradients_come_back_in_the_input_dtype() {
    // An f16 leaf cast to f32, then matmul with f32 output: the leaf's grad is f16.
    let x = Var::leaf(Tensor::ones(&[2, 2], DType::F16).unwrap());
    let w = Var::constant(Tensor::ones(&[2, 2], DType::F32).unwrap());
    x.cast(DType::F32).unwrap().matmul(&w, false, false, None).unwrap().sum().unwrap().backward().unwrap();
    let g = x.grad().unwrap();
    assert_eq!(g.dtype(), DType::F16);
    // d Σ(XW)/dX = 1·Wᵀ = all 2s.
    assert_eq!(g.to_f64_vec(), vec![2.0; 4]);
}

#[test]
fn kinks_follow_pytorch_and_ties_split_evenly() {
    let x = leaf(&[-1.0, 0.0, 2.0], &[3]);
    x.unary(UnaryOp::Relu).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_f64_vec(), vec![0.0, 0.0, 1.0]); // relu'(0) = 0
    x.zero_grad();
    x.unary(UnaryOp::Abs).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_f64_vec(), vec![-1.0, 0.0, 1.0]); // abs'(0) = 0
    x.zero_grad();
    x.clip(Some(0.0), Some(2.0)).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_f64_vec(), vec![0.0, 1.0, 1.0]); // bounds included
                                                                     // amax of [1, 3, 3, 2]: two maxima share the gradient, ½ each.
    let y = leaf(&[1.0, 3.0, 3.0, 2.0], &[4]);
    y.reduce(ReduceOp::Amax, None, false).unwrap().backward().unwrap();
    assert_eq!(y.grad().unwrap().to_f64_vec(), vec![0.0, 0.5, 0.5, 0.0]);
    // maximum(a, b) at a tie: ½ to each side.
    let (a, b) = (leaf(&[1.0, 4.0], &[2]), leaf(&[1.0, 3.0], &[2]));
    a.binary(BinaryOp::Maximum, &b).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(a.grad().unwrap().to_f64_vec(), vec![0.5, 1.0]);
    assert_eq!(b.grad().unwrap().to_f64_vec(), vec![0.5, 0.0]);
}

#[test]
fn tiles_route_gradients_through_their_valid_region() {
    // A 2×2 tile at (1, 1) of a 3×3 source with only 2×1 valid: d Σ tile / d source is 1 on the two
    // valid elements (1,1) and (2,1) and 0 elsewhere.
    let source = leaf(&[0.0; 9], &[3, 3]);
    let tile = source.view(&[2, 2], &[1, 1], Some(&[2, 1])).unwrap();
    tile.sum().unwrap().backward().unwrap();
    assert_eq!(source.grad().unwrap().to_f64_vec(), vec![0., 0., 0., 0., 1., 0., 0., 1., 0.]);
    // assemble: the written region's gradient goes to the tile, the rest to the target.
    let target = leaf(&[0.0; 4], &[2, 2]);
    let piece = leaf(&[5.0, 6.0], &[1, 2]);
    let weights = Var::constant(tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2]));
    target.assemble(&piece, &[1, 0]).unwrap().mul(&weights).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(target.grad().unwrap().to_f64_vec(), vec![1.0, 2.0, 0.0, 0.0]);
    assert_eq!(piece.grad().unwrap().to_f64_vec(), vec![3.0, 4.0]);
}

#[test]
fn custom_op_without_backward_fails_at_backward_time() {
    let forward = Rc::new(|inputs: &[Tensor], _: &Attributes| -> Result<ForwardOutput> {
        Ok(ForwardOutput { outputs: vec![inputs[0].unary(UnaryOp::Exp)?], saved: vec![] })
    });
    register_custom_op("my_exp", forward, None);
    let x = leaf(&[1.0], &[1]);
    let y = call_custom("my_exp", std::slice::from_ref(&x), Attributes::new()).unwrap().remove(0);
    assert!((y.tensor().to_f64_vec()[0] - 1f64.exp()).abs() < 1e-12);
    let error = y.sum().unwrap().backward().unwrap_err();
    assert_eq!(error.to_string(), "gradient not implemented for my_exp");
    assert!(matches!(call_custom("nope", &[x], Attributes::new()), Err(AutogradError::UnknownCustomOp { .. })));
}

#[test]
fn a_saved_tensor_written_in_place_is_detected() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let w = tensor(&[3.0, 4.0], &[2]);
    let y = x.mul(&Var::constant(w.clone())).unwrap().sum().unwrap();
    w.assemble(&tensor(&[9.0], &[1]), &[0]).unwrap();
    assert!(matches!(y.backward().unwrap_err(), AutogradError::SavedTensorModified { .. }));
}

#[test]
fn grad_returns_gradients_of_intermediates_without_touching_leaves() {
    // h = 2x, y = Σ h³: dy/dh = 3h², dy/dx = 6h² .
    let x = leaf(&[1.0, -1.5], &[2]);
    let h = x.scale(2.0).unwrap();
    let y = h.mul(&h).unwrap().mul(&h).unwrap().sum().unwrap();
    let grads = grad(&[y], &[h.clone(), x.clone()], None, false).unwrap();
    close(&grads[0].as_ref().unwrap().tensor().to_f64_vec(), &[12.0, 27.0], 1e-12);
    close(&grads[1].as_ref().unwrap().tensor().to_f64_vec(), &[24.0, 54.0], 1e-12);
    assert!(x.grad().is_none());
}

/// f(x) = Σ sin(x)·x² + (Σ x)³ + Σ (Ax)², in f64.
fn objective(x: &Var, a: &Var) -> Result<Var> {
    let first = x.unary(UnaryOp::Sin)?.mul(&x.mul(x)?)?.sum()?;
    let total = x.sum()?;
    let second = total.mul(&total)?.mul(&total)?;
    let ax = a.matmul(&x.reshape(&[3, 1])?, false, false, None)?;
    first.add(&second)?.add(&ax.mul(&ax)?.sum()?)
}

fn gradient_at(point: &[f64], a: &Var) -> Vec<f64> {
    let x = leaf(point, &[3]);
    let value = objective(&x, a).unwrap();
    grad(&[value], &[x], None, false).unwrap().remove(0).unwrap().tensor().to_f64_vec()
}

#[test]
fn hessian_vector_product_matches_finite_differences_of_the_gradient() {
    let a = Var::constant(tensor(&[0.5, -1.0, 2.0, 1.5, 0.3, -0.7], &[2, 3]));
    let point = [0.4, -0.9, 1.3];
    let v = [1.0, -2.0, 0.5];
    // Hv = ∇(∇f·v) with create_graph.
    let x = leaf(&point, &[3]);
    let value = objective(&x, &a).unwrap();
    let first = grad(&[value], std::slice::from_ref(&x), None, true).unwrap().remove(0).unwrap();
    assert!(first.requires_grad());
    let directional = first.mul(&Var::constant(tensor(&v, &[3]))).unwrap().sum().unwrap();
    let hv = grad(&[directional], &[x], None, false).unwrap().remove(0).unwrap().tensor().to_f64_vec();
    // Reference: (∇f(x + εv) − ∇f(x − εv)) / 2ε in f64, ε = 1e-5 (error O(ε²)).
    let epsilon = 1e-5;
    let shifted = |sign: f64| point.iter().zip(&v).map(|(p, d)| p + sign * epsilon * d).collect::<Vec<f64>>();
    let (plus, minus) = (gradient_at(&shifted(1.0), &a), gradient_at(&shifted(-1.0), &a));
    let reference: Vec<f64> = plus.iter().zip(&minus).map(|(p, m)| (p - m) / (2.0 * epsilon)).collect();
    close(&hv, &reference, 1e-6);
}

#[test]
fn graph_is_data_serialisable_and_exportable_as_dot() {
    let x = Var::named_leaf(tensor(&[1.0, 2.0], &[2]), "x");
    let w = Var::named_leaf(tensor(&[3.0, 4.0], &[2]), "w");
    let y = x.mul(&w).unwrap().unary(UnaryOp::Exp).unwrap().sum().unwrap();
    let graph = GraphData::from_outputs(std::slice::from_ref(&y));
    assert_eq!(graph.nodes.len(), 5); // x, w, mul, exp, sum
    assert_eq!(graph.edges.len(), 4);
    // No backward has run yet: the graph has no backward nodes and no gradient edges.
    assert!(graph.backward_nodes.is_empty() && graph.gradient_edges.is_empty());
    // mul saves x and w (leaf values, 16 B each); exp saves its output (16 B): 48 B, 16 B activations.
    assert_eq!(graph.saved_bytes, 48);
    assert_eq!(graph.saved_activation_bytes, 16);
    let json = serde_json::to_string(&graph).unwrap();
    let back: GraphData = serde_json::from_str(&json).unwrap();
    assert_eq!(back, graph);
    assert!(!graph.to_dot().contains("_backward"));
    y.backward().unwrap();
    let after = GraphData::from_outputs(&[y]);
    assert_eq!(after.backward_nodes.len(), 3, "mul, exp and sum ran their rules");
    let dot = after.to_dot();
    assert!(dot.starts_with("digraph") && dot.contains("x (leaf)") && dot.contains("mul_backward"), "{dot}");
    // The gradient of x is produced by mul's backward node.
    let x_id = x.node_id().unwrap();
    let producer = after.gradient_edges.iter().find(|edge| edge.to == x_id).unwrap().producer;
    assert_eq!(after.nodes.iter().find(|node| node.id == producer).unwrap().label, "mul");
    assert_eq!(after.saved_bytes, 0);
    assert!(after.nodes.iter().any(|node| node.saved_freed));
}

#[test]
fn dot_export_names_shapes_saved_bytes_and_gradient_edges() {
    let x = Var::named_leaf(tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2]), "x");
    let y = x.matmul(&x, false, true, None).unwrap().reduce(ReduceOp::Sum, None, false).unwrap();
    // Keep the saved values through the backward, so the graph shows both the saved bytes and
    // the gradient edges the backward created.
    y.backward_with(None, tilelab::autograd::BackwardOptions { retain_graph: true, create_graph: false }).unwrap();
    let dot = GraphData::from_outputs(std::slice::from_ref(&y)).to_dot();
    println!("{dot}");
    let id = x.node_id().unwrap();
    assert!(dot.contains(&format!("n{id} [shape=ellipse, label=\"x (leaf)\\n[2, 2] f64\"]")), "{dot}");
    assert!(dot.contains("saved 64 B"), "{dot}"); // matmul keeps both operands: 2 × 32 B (one buffer, listed twice)
    assert!(dot.contains("color=red"), "{dot}");
}

#[test]
fn a_chain_of_100_000_ops_runs_backward_and_drops_without_deep_recursion() {
    // y = x·(1.00001)^n … built one op at a time; dy/dx = 1.00001^n.
    let steps = 100_000;
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let x = leaf(&[1.0], &[]);
            let factor = Var::constant(Tensor::scalar(1.00001, DType::F64));
            let mut y = x.clone();
            for _ in 0..steps {
                y = y.mul(&factor).unwrap();
            }
            y.backward().unwrap();
            let want = 1.00001f64.powi(steps);
            assert!((x.grad().unwrap().to_f64_vec()[0] - want).abs() < 1e-9 * want);
            drop(y);
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}
