//! The table of gradient-check cases shared by the autograd feature tests: at least one case per
//! differentiable primitive, with scalars, size-1 dims and broadcasting among the shapes.
#![allow(dead_code)]

use std::rc::Rc;

use tilelab::autograd::{grad, Result, Var, ALL_BINARY, ALL_REDUCE, ALL_UNARY};
use tilelab::tensor::{BinaryOp, DType, Rng, ScatterMode, SliceSpec, SoftmaxOp, Storage, Tensor, UnaryOp};

/// Where an input's values are drawn from (keeps each op inside its domain).
#[derive(Clone, Copy, Debug)]
pub enum Domain {
    /// Standard normal.
    Normal,
    /// |N(0,1)| + 0.5 (log, sqrt, pow bases).
    Positive,
    /// ±(|N(0,1)| + 0.5) (denominators).
    AwayFromZero,
    /// ⌊z⌋ + a fractional part in [0.15, 0.35]: at least 0.15 from every integer and half-integer,
    /// so that the steps of ceil, floor, trunc, round and sign lie outside the difference stencil.
    Fractional,
    /// 0.9·tanh(N(0,1)): inside (−0.9, 0.9) (atanh, tan away from its poles).
    Unit,
    /// |N(0,1)| + 1.5: above 1 (acosh).
    AboveOne,
}

/// A function under test: inputs in, one value out.
pub type CaseFunction = Rc<dyn Fn(&[Var]) -> Result<Var>>;

/// One gradient-check case: the primitive it covers, input shapes and the function.
#[derive(Clone)]
pub struct Case {
    pub op: String,
    pub label: String,
    pub inputs: Vec<(Vec<usize>, Domain)>,
    pub function: CaseFunction,
}

impl Case {
    fn new(
        op: &str,
        label: &str,
        inputs: Vec<(Vec<usize>, Domain)>,
        function: impl Fn(&[Var]) -> Result<Var> + 'static,
    ) -> Case {
        Case { op: op.to_string(), label: label.to_string(), inputs, function: Rc::new(function) }
    }

    /// Inputs drawn with `seed`, rounded to `dtype`.
    pub fn make_inputs(&self, seed: u64, dtype: DType) -> Vec<Tensor> {
        let mut rng = Rng::new(seed);
        self.inputs
            .iter()
            .map(|(shape, domain)| {
                let count: usize = shape.iter().product();
                let values: Vec<f64> = (0..count)
                    .map(|_| {
                        let z = rng.normal();
                        match domain {
                            Domain::Normal => z,
                            Domain::Positive => z.abs() + 0.5,
                            Domain::AwayFromZero => z.signum() * (z.abs() + 0.5),
                            Domain::Fractional => z.floor() + 0.15 + 0.2 * (z - z.floor()),
                            Domain::Unit => 0.9 * z.tanh(),
                            Domain::AboveOne => z.abs() + 1.5,
                        }
                    })
                    .collect();
                Tensor::from_f64(values, shape, dtype).unwrap()
            })
            .collect()
    }
}

fn domain_of(op: UnaryOp) -> Domain {
    match op {
        UnaryOp::Log | UnaryOp::Log1p | UnaryOp::Log2 | UnaryOp::Log10 | UnaryOp::Sqrt | UnaryOp::Rsqrt => {
            Domain::Positive
        }
        UnaryOp::Tan | UnaryOp::Atanh => Domain::Unit,
        UnaryOp::Acosh => Domain::AboveOne,
        UnaryOp::Reciprocal | UnaryOp::Cbrt => Domain::AwayFromZero,
        UnaryOp::Ceil | UnaryOp::Floor | UnaryOp::Trunc | UnaryOp::Round | UnaryOp::Sign => Domain::Fractional,
        _ => Domain::Normal,
    }
}

fn full(size: usize) -> SliceSpec {
    SliceSpec::full(size)
}

/// Every case of the table.
pub fn cases() -> Vec<Case> {
    use Domain::*;
    let mut cases = Vec::new();
    for op in ALL_UNARY {
        let domain = domain_of(op);
        cases.push(Case::new(op.name(), &format!("{} scalar", op.name()), vec![(vec![], domain)], move |x| {
            x[0].unary(op)
        }));
        cases.push(Case::new(op.name(), &format!("{} [2,1,3]", op.name()), vec![(vec![2, 1, 3], domain)], move |x| {
            x[0].unary(op)
        }));
    }
    for op in ALL_BINARY {
        let (left, right) = match op {
            BinaryOp::Div | BinaryOp::FloorDivide | BinaryOp::Remainder => (Normal, AwayFromZero),
            BinaryOp::Pow => (Positive, Normal),
            _ => (Normal, Normal),
        };
        let shapes: [(Vec<usize>, Vec<usize>); 4] =
            [(vec![2, 3], vec![2, 3]), (vec![2, 3], vec![3]), (vec![4, 1], vec![1, 3]), (vec![], vec![2, 2])];
        for (a, b) in shapes {
            let label = format!("{} {a:?} {b:?}", op.name());
            cases.push(Case::new(op.name(), &label, vec![(a, left), (b, right)], move |x| x[0].binary(op, &x[1])));
        }
    }
    for op in ALL_REDUCE {
        let name = op.name();
        cases.push(Case::new(name, &format!("{name} all"), vec![(vec![3, 4], Normal)], move |x| {
            x[0].reduce(op, None, false)
        }));
        cases.push(Case::new(name, &format!("{name} dim 1"), vec![(vec![2, 3, 4], Normal)], move |x| {
            x[0].reduce(op, Some(&[1]), false)
        }));
        cases.push(Case::new(name, &format!("{name} dims 0,-1 keepdim"), vec![(vec![2, 3, 4], Normal)], move |x| {
            x[0].reduce(op, Some(&[0, -1]), true)
        }));
        cases.push(Case::new(name, &format!("{name} size-1 dim"), vec![(vec![3, 1], Normal)], move |x| {
            x[0].reduce(op, Some(&[1]), true)
        }));
    }
    for (op, name) in [(SoftmaxOp::Softmax, "softmax"), (SoftmaxOp::LogSoftmax, "log_softmax")] {
        cases.push(Case::new(name, &format!("{name} last"), vec![(vec![2, 5], Normal)], move |x| {
            x[0].softmax_like(op, -1)
        }));
        cases.push(Case::new(name, &format!("{name} first"), vec![(vec![3, 2, 2], Normal)], move |x| {
            x[0].softmax_like(op, 0)
        }));
        cases.push(Case::new(name, &format!("{name} size-1"), vec![(vec![4, 1], Normal)], move |x| {
            x[0].softmax_like(op, 1)
        }));
    }
    cases.push(Case::new("clip", "clip both", vec![(vec![3, 4], Normal)], |x| x[0].clip(Some(-0.5), Some(0.7))));
    cases.push(Case::new("clip", "clip low", vec![(vec![5], Normal)], |x| x[0].clip(Some(0.1), None)));
    for (a_trans, b_trans) in [(false, false), (true, false), (false, true), (true, true)] {
        let a = if a_trans { vec![4, 3] } else { vec![3, 4] };
        let b = if b_trans { vec![2, 4] } else { vec![4, 2] };
        let label = format!("matmul trans {a_trans} {b_trans}");
        cases.push(Case::new("matmul", &label, vec![(a, Normal), (b, Normal)], move |x| {
            x[0].matmul(&x[1], a_trans, b_trans, None)
        }));
    }
    cases.push(Case::new(
        "matmul",
        "matmul batched broadcast",
        vec![(vec![2, 3, 4], Normal), (vec![4, 2], Normal)],
        |x| x[0].matmul(&x[1], false, false, None),
    ));
    cases.push(Case::new(
        "matmul",
        "matmul batch dim 1",
        vec![(vec![1, 2, 3], Normal), (vec![2, 3, 2], Normal)],
        |x| x[0].matmul(&x[1], false, false, None),
    ));
    cases.push(Case::new("reshape", "reshape", vec![(vec![2, 6], Normal)], |x| {
        x[0].reshape(&[3, 1, 4])?.unary(UnaryOp::Sin)
    }));
    cases.push(Case::new("permute", "permute", vec![(vec![2, 3, 4], Normal)], |x| x[0].permute(&[2, 0, 1])));
    cases.push(Case::new("permute", "transpose", vec![(vec![3, 2], Normal)], |x| x[0].transpose(0, 1)));
    cases.push(Case::new("concat", "concat dim 1", vec![(vec![2, 3], Normal), (vec![2, 2], Normal)], |x| {
        Var::concat(&x[..2], 1)
    }));
    cases.push(Case::new(
        "concat",
        "concat dim 0",
        vec![(vec![1, 3], Normal), (vec![2, 3], Normal), (vec![1, 3], Normal)],
        |x| Var::concat(x, 0),
    ));
    cases.push(Case::new("slice", "slice strided", vec![(vec![4, 5], Normal)], |x| {
        x[0].slice(&[SliceSpec { start: 1, step: 2, count: 2 }, SliceSpec { start: 4, step: -2, count: 3 }])
    }));
    cases.push(Case::new(
        "assign_slice",
        "assign_slice broadcast",
        vec![(vec![4, 5], Normal), (vec![3], Normal)],
        |x| {
            x[0].assign_slice(
                &[SliceSpec { start: 0, step: 2, count: 2 }, SliceSpec { start: 1, step: 1, count: 3 }],
                &x[1],
            )
        },
    ));
    cases.push(Case::new("assign_slice", "assign_slice full", vec![(vec![3, 2], Normal), (vec![3, 1], Normal)], |x| {
        x[0].assign_slice(&[full(3), SliceSpec { start: 1, step: 1, count: 1 }], &x[1])?.unary(UnaryOp::Tanh)
    }));
    cases.push(Case::new("view", "view ragged tile", vec![(vec![5, 6], Normal)], |x| {
        x[0].view(&[4, 4], &[2, 3], Some(&[3, 3]))?.unary(UnaryOp::Exp)
    }));
    cases.push(Case::new("view", "view inner tile", vec![(vec![4, 4], Normal)], |x| x[0].view(&[2, 2], &[1, 1], None)));
    cases.push(Case::new("assemble", "assemble ragged tile", vec![(vec![5, 6], Normal), (vec![4, 4], Normal)], |x| {
        let tile = x[1].view(&[4, 4], &[0, 0], Some(&[3, 3]))?;
        x[0].assemble(&tile, &[2, 3])
    }));
    cases.push(Case::new("assemble", "assemble full tile", vec![(vec![3, 4], Normal), (vec![2, 2], Normal)], |x| {
        x[0].assemble(&x[1], &[1, 2])
    }));
    cases.push(Case::new("cast", "cast to f64", vec![(vec![2, 3], Normal)], |x| {
        x[0].cast(DType::F64)?.unary(UnaryOp::Tanh)
    }));
    indexing_cases(&mut cases);
    cases.push(Case::new("normal_cdf", "gelu'' via create_graph", vec![(vec![2, 3], Normal)], |x| {
        // d/dx of Σ gelu(x) is gelu'(x) = Φ(x) + xφ(x); its gradient exercises normal_cdf's rule.
        let total = x[0].unary(UnaryOp::GeluErf)?.sum()?;
        let first = grad(&[total], &[x[0].clone()], None, true)?;
        Ok(first.into_iter().next().flatten().expect("gelu depends on x"))
    }));
    cases
}

/// A constant integer (index) or bool (mask) tensor.
fn constant(storage: Storage, shape: &[usize]) -> Var {
    Var::constant(Tensor::from_storage(storage, shape).unwrap())
}

/// `where`, `gather` (also through `topk`), `scatter`, `cumsum` and `clip` with tensor bounds.
fn indexing_cases(cases: &mut Vec<Case>) {
    use Domain::*;
    let mask = || constant(Storage::Bool(vec![true, false, true, false, true, true]), &[2, 3]);
    cases.push(Case::new("where", "where broadcast other", vec![(vec![2, 3], Normal), (vec![3], Normal)], move |x| {
        Var::select(&mask(), &x[0], &x[1])
    }));
    cases.push(Case::new("where", "where scalar input", vec![(vec![], Normal), (vec![2, 3], Normal)], move |x| {
        Var::select(&mask(), &x[0], &x[1])
    }));
    // Repeated indices: the gradients of both reads of x[1][1] and x[2][3] add up.
    cases.push(Case::new("gather", "gather dim 1 repeated", vec![(vec![3, 4], Normal)], |x| {
        x[0].gather(1, &constant(Storage::I64(vec![2, 0, 1, 1, 3, 3]), &[3, 2]))
    }));
    cases.push(Case::new("gather", "gather dim 0 int32", vec![(vec![3, 2], Normal)], |x| {
        x[0].gather(0, &constant(Storage::I32(vec![2, 0]), &[1, 2]))
    }));
    cases.push(Case::new("gather", "topk values", vec![(vec![2, 5], Normal)], |x| Ok(x[0].topk(2, -1, true)?.0)));
    cases.push(Case::new("scatter", "scatter replace", vec![(vec![3, 4], Normal), (vec![2, 2], Normal)], |x| {
        x[0].scatter(1, &constant(Storage::I64(vec![0, 2, 3, 1]), &[2, 2]), &x[1], ScatterMode::Replace)
    }));
    cases.push(Case::new("scatter", "scatter add repeated", vec![(vec![3, 4], Normal), (vec![1, 3], Normal)], |x| {
        x[0].scatter(1, &constant(Storage::I64(vec![1, 1, 3]), &[1, 3]), &x[1], ScatterMode::Add)
    }));
    cases.push(Case::new("scatter", "scatter scalar src", vec![(vec![2, 3], Normal), (vec![], Normal)], |x| {
        x[0].scatter(0, &constant(Storage::I32(vec![1, 0, 1]), &[1, 3]), &x[1], ScatterMode::Replace)
    }));
    cases.push(Case::new(
        "scatter",
        "scatter src larger than index",
        vec![(vec![2, 3], Normal), (vec![2, 3], Normal)],
        |x| x[0].scatter(1, &constant(Storage::I64(vec![2, 0]), &[2, 1]), &x[1], ScatterMode::Replace),
    ));
    cases.push(Case::new("cumsum", "cumsum last", vec![(vec![2, 4], Normal)], |x| x[0].cumsum(-1)));
    cases.push(Case::new("cumsum", "cumsum first", vec![(vec![3, 2, 2], Normal)], |x| x[0].cumsum(0)));
    cases.push(Case::new("clip", "clip tensor bounds", vec![(vec![2, 3], Normal), (vec![3], Normal)], |x| {
        let high = x[1].add_scalar(1.5)?;
        x[0].clip_tensors(Some(&x[1]), Some(&high))
    }));
}
