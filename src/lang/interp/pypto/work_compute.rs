//! The compute steps of a recorded op inside a unit: element-wise, clip, cast, reductions, matmul
//! and softmax (expanded into max, exp, sum, div as the vector unit runs it). How a tensor operand
//! becomes a tile is the caller's resolver (a whole tile, or the region a unit needs).

use super::capture::{Arg, CapturedOp};
use super::work_ops::{UnitBuilder, Unsupported};
use super::work_shapes::{same_broadcast, tile_dims};
use crate::lang::interp::pypto::capture::TensorRef;
use crate::messages::CompilerReason;
use crate::tensor::{BinaryOp, ReduceOp, UnaryOp};
use crate::tile::{ValueId, WorkOperand, WorkStep};

/// Turns operand `index` (in the order the op lists its tensors) into a tile of the unit, with the
/// operand's whole shape in tile form (what broadcasting and reduction dims are checked against).
pub(crate) type Resolver<'a> =
    dyn FnMut(&mut UnitBuilder, usize, &TensorRef) -> Result<(ValueId, Vec<usize>), Unsupported> + 'a;

/// Emits the steps of compute op `kind` whose reference result is `result`; returns the tile
/// holding it.
pub(crate) fn compute(
    builder: &mut UnitBuilder,
    kind: &CapturedOp,
    result: &TensorRef,
    (line, granule): (Option<u32>, usize),
    resolve: &mut Resolver<'_>,
) -> Result<ValueId, Unsupported> {
    let dtype = result.dtype();
    match kind {
        CapturedOp::Unary { op, x } => {
            let (input, _) = resolve(builder, 0, x)?;
            Ok(builder.unary(*op, input, dtype, line))
        }
        CapturedOp::Cast { x } => {
            let (input, _) = resolve(builder, 0, x)?;
            let tile = builder.tile(input).clone();
            let output = builder.value(tile.shape.clone(), tile.valid_shape.clone(), dtype);
            builder.push(WorkStep::Cast { input, output }, line);
            Ok(output)
        }
        CapturedOp::Clip { x, low, high } => {
            let (input, _) = resolve(builder, 0, x)?;
            let tile = builder.tile(input).clone();
            let output = builder.value(tile.shape.clone(), tile.valid_shape.clone(), dtype);
            builder.push(WorkStep::Clip { input, low: *low, high: *high, output }, line);
            Ok(output)
        }
        CapturedOp::Binary { op, lhs, rhs } => {
            let mut index = 0;
            let mut operand =
                |builder: &mut UnitBuilder, arg: &Arg| -> Result<(WorkOperand, Vec<usize>, Vec<usize>), Unsupported> {
                    match arg {
                        Arg::Number(number) => Ok((WorkOperand::Scalar(*number), Vec::new(), Vec::new())),
                        Arg::Tensor(tensor) => {
                            let (id, form) = resolve(builder, index, tensor)?;
                            index += 1;
                            Ok((WorkOperand::Tile(id), form, tensor.shape().to_vec()))
                        }
                    }
                };
            let (left, left_tile, left_reference) = operand(builder, lhs)?;
            let (right, right_tile, right_reference) = operand(builder, rhs)?;
            let alike = (left_tile == right_tile && left_reference == right_reference)
                || (same_broadcast(&left_tile, &left_reference) && same_broadcast(&right_tile, &right_reference));
            if !alike {
                return Err(Unsupported::new(CompilerReason::Keepdim { op: op.name().into() }, line));
            }
            builder.binary(*op, left, right, dtype, line)
        }
        CapturedOp::Reduce { op, x, dims } => {
            let (input, tile) = resolve(builder, 0, x)?;
            if !same_broadcast(&tile, x.shape()) {
                return Err(Unsupported::new(CompilerReason::Keepdim { op: reduce_name(*op).into() }, line));
            }
            Ok(builder.reduce(*op, input, tile_dims(dims, x.shape().len(), tile.len()), dtype, line))
        }
        CapturedOp::Matmul { a, b, a_transposed, b_transposed } => {
            let (left, _) = resolve(builder, 0, a)?;
            let (right, _) = resolve(builder, 1, b)?;
            let (left_tile, right_tile) = (builder.tile(left).clone(), builder.tile(right).clone());
            if left_tile.shape.len() > 2 || right_tile.shape.len() > 2 {
                use super::work_batched::BatchedOperand;
                let (a, b) =
                    ((BatchedOperand::Tile(left), *a_transposed), (BatchedOperand::Tile(right), *b_transposed));
                let mut no_loads = |_: &mut UnitBuilder, _: &crate::tile::GmRegion, _| {
                    Err(Unsupported::new(CompilerReason::BatchOperand, line))
                };
                return super::work_batched::batched_matmul(builder, a, b, dtype, line, &mut no_loads);
            }
            if left_tile.shape.len() != 2 || right_tile.shape.len() != 2 {
                return Err(Unsupported::new(
                    CompilerReason::MatmulRank { left: left_tile.shape.len(), right: right_tile.shape.len() },
                    line,
                ));
            }
            let pick = |tile: &crate::tile::TileValue, transposed: bool, outer: bool| {
                let dim = usize::from(outer == transposed);
                (tile.shape[dim], tile.valid_shape[dim])
            };
            // C[m, n] = op(A)[m, k] · op(B)[k, n]: rows come from A's outer dim, columns from B's.
            let (rows, valid_rows) = pick(&left_tile, *a_transposed, true);
            let (columns, valid_columns) = pick(&right_tile, !*b_transposed, true);
            let output = builder.value(vec![rows, columns], vec![valid_rows, valid_columns], dtype);
            builder.push(
                WorkStep::Matmul {
                    a: left,
                    b: right,
                    a_transposed: *a_transposed,
                    b_transposed: *b_transposed,
                    output,
                },
                line,
            );
            Ok(output)
        }
        CapturedOp::Softmax { x, dim, log } => {
            let (input, tile) = resolve(builder, 0, x)?;
            if !same_broadcast(&tile, x.shape()) {
                return Err(Unsupported::new(CompilerReason::Keepdim { op: "softmax".into() }, line));
            }
            let dims = tile_dims(&Some(vec![*dim]), x.shape().len(), tile.len());
            // softmax(x) = e / Σe with e = exp(x − max x); log_softmax(x) = (x − max x) − log Σe.
            let maximum = builder.reduce(ReduceOp::Amax, input, dims.clone(), dtype, line);
            let shifted =
                builder.binary(BinaryOp::Sub, WorkOperand::Tile(input), WorkOperand::Tile(maximum), dtype, line)?;
            let exponent = builder.unary(UnaryOp::Exp, shifted, dtype, line);
            let total = builder.reduce(ReduceOp::Sum, exponent, dims, dtype, line);
            if *log {
                let log_total = builder.unary(UnaryOp::Log, total, dtype, line);
                builder.binary(BinaryOp::Sub, WorkOperand::Tile(shifted), WorkOperand::Tile(log_total), dtype, line)
            } else {
                builder.binary(BinaryOp::Div, WorkOperand::Tile(exponent), WorkOperand::Tile(total), dtype, line)
            }
        }
        CapturedOp::Vector { .. } | CapturedOp::ClipBounds { .. } => {
            super::work_vector::compute_vector(builder, kind, result, (line, granule), resolve)
        }
        CapturedOp::Reshape { .. } | CapturedOp::Transpose { .. } => {
            let vector = super::work_vector::layout_kind(kind).expect("a layout op");
            super::work_vector::compute_vector(builder, &vector, result, (line, granule), resolve)
        }
        _ => Err(Unsupported::new(CompilerReason::InsideComputation, line)),
    }
}

fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Mean => "mean",
        ReduceOp::Amax => "amax",
        ReduceOp::Amin => "amin",
        ReduceOp::Var => "var",
    }
}
