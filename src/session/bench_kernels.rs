//! The kernels the simulator's speed is measured on — natively by `cargo bench --bench npu`, in
//! the page by `make bench` (`Playground.benchNpuPlanKernel`) — shared with the identity test of
//! the simulator (tests/npu/engine_identity.rs records their full traces): the 4096³ bf16 GEMM and
//! the SwiGLU backward b kernel of examples/10.

use crate::tensor::DType;
use crate::tile::{
    whole_matmul, CubeTiles, GmRegion, GmTensor, LocatedStep, TensorId, TileValue, TileWork, ValueId, WorkSettings,
    WorkStep, WorkUnit,
};

/// `size`³ bf16 matmul (f32 out) with good cube tiles and double buffering, written as one
/// `pypto.matmul` over the whole tensors.
pub fn gemm_work(size: usize) -> TileWork {
    let a = GmTensor { name: "a".into(), shape: vec![size, size], dtype: DType::Bf16 };
    let b = GmTensor { name: "b".into(), shape: vec![size, size], dtype: DType::Bf16 };
    let tiles = CubeTiles { m: [128, 128], k: [64, 256], n: [256, 256] };
    whole_matmul(a, b, DType::F32, tiles, 2, Some(1))
}

/// The b kernel of examples/10 as the recorder records it: per 1024-row tile, loads of g, dh, fc
/// (BF16) cast to FP32, σ(g), silu(g), silu'(g), dfc = dh·silu, dg = dh·fc·silu', both stored as
/// BF16, and their column sums added into the bias outputs by accumulating stores.
pub fn swiglu_b_work(rows: usize) -> TileWork {
    use crate::tensor::{BinaryOp, ReduceOp, UnaryOp};
    use crate::tile::WorkOperand::{Scalar, Tile};
    let (tile_m, n) = (1024, 1024);
    let tensor =
        |name: &str, shape: &[usize]| GmTensor { name: name.into(), shape: shape.to_vec(), dtype: DType::Bf16 };
    let tensors = vec![
        tensor("dh", &[rows, n]),
        tensor("g", &[rows, n]),
        tensor("fc", &[rows, n]),
        tensor("dg", &[rows, n]),
        tensor("dfc", &[rows, n]),
        tensor("db_g", &[1, n]),
        tensor("db_fc", &[1, n]),
    ];
    let mut units = Vec::new();
    for start in (0..rows).step_by(tile_m) {
        let valid = tile_m.min(rows - start);
        let mut values = Vec::new();
        let mut steps = Vec::new();
        let mut value = |shape: [usize; 2], valid: [usize; 2], dtype| {
            values.push(TileValue {
                shape: crate::tile::Dims::from(shape),
                valid_shape: crate::tile::Dims::from(valid),
                dtype,
            });
            ValueId(values.len() as u32 - 1)
        };
        let (full, valid_full, row) = ([tile_m, n], [valid, n], [1, n]);
        let region = |tensor: u32, offsets: [usize; 2], shape: [usize; 2]| GmRegion {
            tensor: TensorId(tensor),
            offsets: crate::tile::Dims::from(offsets),
            shape: crate::tile::Dims::from(shape),
        };
        let loaded = |tensor: u32,
                      steps: &mut Vec<WorkStep>,
                      value: &mut dyn FnMut([usize; 2], [usize; 2], DType) -> ValueId| {
            let narrow = value(full, valid_full, DType::Bf16);
            steps.push(WorkStep::Load { region: region(tensor, [start, 0], valid_full), output: narrow });
            let wide = value(full, valid_full, DType::F32);
            steps.push(WorkStep::Cast { input: narrow, output: wide });
            wide
        };
        let g = loaded(1, &mut steps, &mut value);
        let dh = loaded(0, &mut steps, &mut value);
        let fc = loaded(2, &mut steps, &mut value);
        let sig = value(full, valid_full, DType::F32);
        steps.push(WorkStep::Unary { op: UnaryOp::Sigmoid, input: g, output: sig });
        let mut binary = |op, lhs, rhs, steps: &mut Vec<WorkStep>| {
            let output = value(full, valid_full, DType::F32);
            steps.push(WorkStep::Binary { op, lhs, rhs, output });
            output
        };
        let silu = binary(BinaryOp::Mul, Tile(g), Tile(sig), &mut steps);
        let one_minus = binary(BinaryOp::Sub, Scalar(1.0), Tile(sig), &mut steps);
        let scaled = binary(BinaryOp::Mul, Tile(g), Tile(one_minus), &mut steps);
        let plus_one = binary(BinaryOp::Add, Scalar(1.0), Tile(scaled), &mut steps);
        let silu_grad = binary(BinaryOp::Mul, Tile(sig), Tile(plus_one), &mut steps);
        let dfc = binary(BinaryOp::Mul, Tile(dh), Tile(silu), &mut steps);
        let product = binary(BinaryOp::Mul, Tile(dh), Tile(fc), &mut steps);
        let dg = binary(BinaryOp::Mul, Tile(product), Tile(silu_grad), &mut steps);
        for (gradient, output, bias) in [(dfc, 4, 6), (dg, 3, 5)] {
            let narrow = value(full, valid_full, DType::Bf16);
            steps.push(WorkStep::Cast { input: gradient, output: narrow });
            steps.push(WorkStep::Store {
                input: narrow,
                region: region(output, [start, 0], valid_full),
                accumulate: false,
            });
            let sum = value(row, row, DType::F32);
            steps.push(WorkStep::Reduce { op: ReduceOp::Sum, input: gradient, dims: vec![0], output: sum });
            let partial = value(row, row, DType::Bf16);
            steps.push(WorkStep::Cast { input: sum, output: partial });
            steps.push(WorkStep::Store { input: partial, region: region(bias, [0, 0], row), accumulate: true });
        }
        units.push(WorkUnit {
            values,
            steps: steps.into_iter().map(|step| LocatedStep { step, line: Some(1) }).collect(),
            vec_tile: None,
        });
    }
    let settings = WorkSettings { vec_tile: Some(vec![128, 128]), vec_tile_line: Some(1), ..WorkSettings::default() };
    TileWork { name: "swiglu_backward_b".into(), tensors, views: Vec::new(), ordered: Vec::new(), units, settings }
}
