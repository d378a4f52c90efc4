//! The adjoint derivation against autograd and against f64 central differences, on random chains
//! of element-wise ops (clip, maximum and minimum among them), broadcasts, reductions (amax, amin
//! and var among them), softmax and matmuls. The derived backward capture
//! is evaluated op by op on f64 tensors (a test-only evaluator of the captured ops), starting from
//! the inputs and the loss's gradient alone: the forward values it reads are recomputed.

use std::collections::HashMap;

use super::derive::{derive, Forward};
use crate::autograd::{grad, Var};
use crate::lang::interp::pypto::capture::{identity, Arg, Captured, CapturedOp, Identity, TensorRef};
use crate::tensor::{BinaryOp, DType, ReduceOp, SoftmaxOp, Tensor, UnaryOp};
use crate::tile::VectorOp;

/// A step of a chain over the running value `v` ([4, 8]); `y` ([4, 8], values in [1, 2]), `b`
/// ([1, 8], in [1, 2]) and `m` ([8, 4]) are the other inputs.
#[derive(Clone, Copy, Debug)]
enum Step {
    Unary(UnaryOp),
    /// `op` of a positive value: `op(σ(v) + 0.5)`.
    Positive(UnaryOp),
    WithY(BinaryOp),
    WithBias(BinaryOp),
    Number(BinaryOp, f64),
    /// `v · reduce(v, dim=-1, keepdim)`.
    TimesReduction(ReduceOp),
    Softmax(SoftmaxOp),
    /// `(v @ m) @ mᵀ`, the second with `b_trans`.
    MatmulRoundTrip,
    /// `clip(v, low, high)`.
    Clip(f64, f64),
    /// `(σ(v) + 0.5) ** y`.
    PositivePow,
}

struct Recorder {
    ops: Vec<Captured>,
}

impl Recorder {
    fn push(&mut self, op: CapturedOp, result: &Var) -> Var {
        self.ops.push(Captured { op, result: Some(TensorRef::of(result.tensor())), line: None });
        result.clone()
    }

    fn unary(&mut self, op: UnaryOp, x: &Var) -> Var {
        let result = x.unary(op).unwrap();
        self.push(CapturedOp::Unary { op, x: TensorRef::of(x.tensor()) }, &result)
    }

    fn binary(&mut self, op: BinaryOp, a: &Var, b: &Var) -> Var {
        let result = a.binary(op, b).unwrap();
        let (lhs, rhs) = (Arg::Tensor(TensorRef::of(a.tensor())), Arg::Tensor(TensorRef::of(b.tensor())));
        self.push(CapturedOp::Binary { op, lhs, rhs }, &result)
    }
}

/// Runs `steps` on the inputs `[x, y, b, m]`, recording the capture; returns the output.
fn run_chain(inputs: &[Var], steps: &[Step], recorder: &mut Recorder) -> Var {
    let (y, b, m) = (&inputs[1], &inputs[2], &inputs[3]);
    let mut v = inputs[0].clone();
    for step in steps {
        v = match *step {
            Step::Unary(op) => recorder.unary(op, &v),
            Step::Positive(op) => {
                let s = recorder.unary(UnaryOp::Sigmoid, &v);
                let half = s.scalar_like(0.5);
                let shifted = s.add(&half).unwrap();
                let lhs = Arg::Tensor(TensorRef::of(s.tensor()));
                let shifted =
                    recorder.push(CapturedOp::Binary { op: BinaryOp::Add, lhs, rhs: Arg::Number(0.5) }, &shifted);
                recorder.unary(op, &shifted)
            }
            Step::PositivePow => {
                let s = recorder.unary(UnaryOp::Sigmoid, &v);
                let shifted = s.add(&s.scalar_like(0.5)).unwrap();
                let lhs = Arg::Tensor(TensorRef::of(s.tensor()));
                let shifted =
                    recorder.push(CapturedOp::Binary { op: BinaryOp::Add, lhs, rhs: Arg::Number(0.5) }, &shifted);
                recorder.binary(BinaryOp::Pow, &shifted, y)
            }
            Step::WithY(op) => recorder.binary(op, &v, y),
            Step::WithBias(op) => recorder.binary(op, &v, b),
            Step::Number(op, number) => {
                let result = v.binary(op, &v.scalar_like(number)).unwrap();
                let lhs = Arg::Tensor(TensorRef::of(v.tensor()));
                recorder.push(CapturedOp::Binary { op, lhs, rhs: Arg::Number(number) }, &result)
            }
            Step::TimesReduction(op) => {
                let reduced = v.reduce(op, Some(&[-1]), true).unwrap();
                let x = TensorRef::of(v.tensor());
                let reduced = recorder.push(CapturedOp::Reduce { op, x, dims: Some(vec![-1]) }, &reduced);
                recorder.binary(BinaryOp::Mul, &v, &reduced)
            }
            Step::Softmax(op) => {
                let result = v.softmax_like(op, -1).unwrap();
                let log = op == SoftmaxOp::LogSoftmax;
                recorder.push(CapturedOp::Softmax { x: TensorRef::of(v.tensor()), dim: -1, log }, &result)
            }
            Step::Clip(low, high) => {
                let result = v.clip(Some(low), Some(high)).unwrap();
                let x = TensorRef::of(v.tensor());
                recorder.push(CapturedOp::Clip { x, low: Some(low), high: Some(high) }, &result)
            }
            Step::MatmulRoundTrip => {
                let product = v.matmul(m, false, false, None).unwrap();
                let (a, b) = (TensorRef::of(v.tensor()), TensorRef::of(m.tensor()));
                let op = CapturedOp::Matmul { a, b, a_transposed: false, b_transposed: false };
                let product = recorder.push(op, &product);
                let back = product.matmul(m, false, true, None).unwrap();
                let (a, b) = (TensorRef::of(product.tensor()), TensorRef::of(m.tensor()));
                recorder.push(CapturedOp::Matmul { a, b, a_transposed: false, b_transposed: true }, &back)
            }
        };
    }
    v
}

/// Evaluates captured ops in order on f64 tensors.
fn evaluate(ops: &[Captured], values: &mut HashMap<Identity, Tensor>) {
    for captured in ops {
        let tensor = |reference: &TensorRef| values.get(&identity(reference)).cloned().expect("a value the op reads");
        let arg = |arg: &Arg| match arg {
            Arg::Tensor(reference) => tensor(reference),
            Arg::Number(number) => Tensor::scalar(*number, DType::F64),
        };
        let result = captured.result.as_ref().expect("every evaluated op has a result");
        let value = match &captured.op {
            CapturedOp::Unary { op, x } => tensor(x).unary(*op).unwrap(),
            CapturedOp::Binary { op, lhs, rhs } => arg(lhs).binary(*op, &arg(rhs)).unwrap(),
            CapturedOp::Cast { x } => tensor(x).cast(result.dtype()).unwrap(),
            CapturedOp::Reduce { op, x, dims } => {
                let dims: Option<Vec<isize>> = dims.as_ref().map(|dims| dims.iter().map(|&dim| dim as isize).collect());
                let keepdim = result.shape().len() == x.shape().len();
                tensor(x).reduce(*op, dims.as_deref(), keepdim).unwrap()
            }
            CapturedOp::Matmul { a, b, a_transposed, b_transposed } => {
                tensor(a).matmul(&tensor(b), *a_transposed, *b_transposed, None).unwrap()
            }
            CapturedOp::Softmax { x, dim, log } => {
                let op = if *log { SoftmaxOp::LogSoftmax } else { SoftmaxOp::Softmax };
                tensor(x).softmax_like(op, *dim as isize).unwrap()
            }
            CapturedOp::Clip { x, low, high } => tensor(x).clip(*low, *high).unwrap(),
            CapturedOp::Vector { op: VectorOp::Compare(compare), args } => {
                arg(&args[0]).compare(*compare, &arg(&args[1])).unwrap()
            }
            CapturedOp::Vector { op: VectorOp::Select, args } => {
                Tensor::select(&arg(&args[0]), &arg(&args[1]), &arg(&args[2])).unwrap()
            }
            other => panic!("no evaluator for `{}`", other.name()),
        };
        assert_eq!(value.shape(), result.shape(), "`{}` made the shape its reference names", captured.op.name());
        values.insert(identity(result), value);
    }
}

/// xorshift64: a reproducible stream for the chains and the inputs.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn uniform(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn tensor(&mut self, shape: &[usize], low: f64, high: f64) -> Tensor {
        let values = (0..shape.iter().product::<usize>()).map(|_| self.uniform(low, high)).collect();
        Tensor::from_f64(values, shape, DType::F64).unwrap()
    }

    fn step(&mut self) -> Step {
        use BinaryOp::{Add, Div, Maximum, Minimum, Mul, Sub};
        let smooth = [
            UnaryOp::Tanh,
            UnaryOp::Sigmoid,
            UnaryOp::Sin,
            UnaryOp::Cos,
            UnaryOp::Silu,
            UnaryOp::GeluErf,
            UnaryOp::GeluTanh,
            UnaryOp::Erf,
            UnaryOp::Erfc,
            UnaryOp::Neg,
            UnaryOp::Abs,
        ];
        let positive = [UnaryOp::Log, UnaryOp::Sqrt, UnaryOp::Rsqrt, UnaryOp::Reciprocal, UnaryOp::Exp, UnaryOp::Exp2];
        let binary = [Add, Sub, Mul, Div, Maximum, Minimum];
        let reductions = [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Amax, ReduceOp::Amin, ReduceOp::Var];
        let pick = |random: &mut Random, count: usize| (random.next() % count as u64) as usize;
        match pick(self, 9) {
            0 => Step::Unary(smooth[pick(self, smooth.len())]),
            1 => match pick(self, positive.len() + 1) {
                // pow of a positive base, by y ([1, 2]) — the base is σ(v) + 0.5.
                index if index == positive.len() => Step::PositivePow,
                index => Step::Positive(positive[index]),
            },
            2 => Step::WithY(binary[pick(self, binary.len())]),
            3 => Step::WithBias(binary[pick(self, binary.len())]),
            // A number: maximum/minimum with one too (as `pt.maximum(x, 0.0)`).
            4 => Step::Number(binary[pick(self, binary.len())], self.uniform(0.5, 2.0)),
            5 => Step::TimesReduction(reductions[pick(self, reductions.len())]),
            6 => Step::Softmax(if pick(self, 2) == 0 { SoftmaxOp::Softmax } else { SoftmaxOp::LogSoftmax }),
            7 => {
                let low = self.uniform(-1.0, 0.0);
                Step::Clip(low, low + self.uniform(0.5, 1.5))
            }
            _ => Step::MatmulRoundTrip,
        }
    }
}

/// L = Σ chain(x, y, b, m) ⊙ w.
fn loss(values: &[Tensor], steps: &[Step], weights: &Tensor) -> f64 {
    let inputs: Vec<Var> = values.iter().cloned().map(Var::constant).collect();
    let output = run_chain(&inputs, steps, &mut Recorder { ops: Vec::new() });
    output.tensor().binary(BinaryOp::Mul, weights).unwrap().to_f64_vec().iter().sum()
}

#[test]
fn derived_adjoints_match_autograd_and_central_differences_on_random_chains() {
    let mut random = Random(0x5eed_0018);
    for chain in 0..80 {
        let steps: Vec<Step> = (0..5).map(|_| random.step()).collect();
        let values = vec![
            random.tensor(&[4, 8], -1.0, 1.0),
            random.tensor(&[4, 8], 1.0, 2.0),
            random.tensor(&[1, 8], 1.0, 2.0),
            random.tensor(&[8, 4], -0.5, 0.5),
        ];
        let weights = random.tensor(&[4, 8], -1.0, 1.0);
        let inputs: Vec<Var> = values.iter().cloned().map(Var::leaf).collect();
        let mut recorder = Recorder { ops: Vec::new() };
        let output = run_chain(&inputs, &steps, &mut recorder);
        // Autograd's gradients of L (through the value rules).
        let total = output.mul(&Var::constant(weights.clone())).unwrap().sum().unwrap();
        let expected = grad(&[total], &inputs, None, false).unwrap();
        // The derived backward, evaluated from the inputs and dL/dy = w alone.
        let references: Vec<TensorRef> = values.iter().map(TensorRef::of).collect();
        let outputs = [TensorRef::of(output.tensor())];
        let forward = Forward { ops: &recorder.ops, inputs: &references, outputs: &outputs };
        let adjoint = derive(&forward, &[true; 4], &[TensorRef::of(&weights)])
            .unwrap_or_else(|reason| panic!("chain {chain} {steps:?}: {reason:?}"));
        let mut known: HashMap<Identity, Tensor> =
            values.iter().chain([&weights]).map(|tensor| (identity(tensor), tensor.clone())).collect();
        evaluate(&recorder.ops, &mut known);
        evaluate(&adjoint.ops, &mut known);
        for (index, gradient) in adjoint.gradients.iter().enumerate() {
            let derived = match gradient {
                Some(Arg::Tensor(reference)) => known[&identity(reference)].to_f64_vec(),
                // An input the chain never read: autograd gives it no gradient either.
                None => {
                    assert!(expected[index].is_none(), "chain {chain} {steps:?}: input {index} lost its gradient");
                    continue;
                }
                Some(Arg::Number(number)) => panic!("chain {chain} {steps:?}: input {index} got the number {number}"),
            };
            let autograd =
                expected[index].as_ref().map_or_else(|| vec![0.0; derived.len()], |g| g.tensor().to_f64_vec());
            for (element, (&ours, &theirs)) in derived.iter().zip(&autograd).enumerate() {
                assert!(
                    (ours - theirs).abs() <= 1e-10 * (1.0 + theirs.abs()),
                    "chain {chain} {steps:?}: input {index}[{element}] derived {ours} autograd {theirs}"
                );
            }
            // Central differences in f64 on two elements of each input: (L(v+h) − L(v−h))/2h,
            // error O(h²) ≈ 1e-10 plus rounding ≈ 1e-16/h.
            for element in [0, derived.len() - 1] {
                let h = 1e-5;
                let shifted = |delta: f64| {
                    let mut moved = values.clone();
                    let mut data = moved[index].to_f64_vec();
                    data[element] += delta;
                    moved[index] = Tensor::from_f64(data, values[index].shape(), DType::F64).unwrap();
                    loss(&moved, &steps, &weights)
                };
                let numerical = (shifted(h) - shifted(-h)) / (2.0 * h);
                assert!(
                    (derived[element] - numerical).abs() <= 1e-5 * (1.0 + numerical.abs()),
                    "chain {chain} {steps:?}: input {index}[{element}] derived {} numerical {numerical}",
                    derived[element]
                );
            }
        }
    }
}

#[test]
fn a_matmul_adjoint_is_two_matmuls_with_transposed_operands() {
    // C = A·B, A [4, 8], B [8, 2]: dA = G·Bᵀ (b_trans), dB = Aᵀ·G (a_trans); no transpose op.
    let a = Tensor::from_f64((0..32).map(f64::from).collect(), &[4, 8], DType::F64).unwrap();
    let b = Tensor::from_f64((0..16).map(f64::from).collect(), &[8, 2], DType::F64).unwrap();
    let c = a.matmul(&b, false, false, None).unwrap();
    let (a_ref, b_ref) = (TensorRef::of(&a), TensorRef::of(&b));
    let ops = [Captured {
        op: CapturedOp::Matmul { a: a_ref.clone(), b: b_ref.clone(), a_transposed: false, b_transposed: false },
        result: Some(TensorRef::of(&c)),
        line: Some(3),
    }];
    let g = TensorRef::of(&Tensor::zeros(&[4, 2], DType::F64).unwrap());
    let adjoint =
        derive(&Forward { ops: &ops, inputs: &[a_ref, b_ref], outputs: &[TensorRef::of(&c)] }, &[true, true], &[g])
            .unwrap();
    let forms: Vec<(bool, bool, Option<u32>)> = adjoint
        .ops
        .iter()
        .map(|captured| match &captured.op {
            CapturedOp::Matmul { a_transposed, b_transposed, .. } => (*a_transposed, *b_transposed, captured.line),
            other => panic!("a matmul adjoint made `{}`", other.name()),
        })
        .collect();
    assert_eq!(forms, vec![(false, true, Some(3)), (true, false, Some(3))]);
}
