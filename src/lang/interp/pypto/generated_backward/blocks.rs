//! Row blocks: a backward whose gradients include sums over every row (a bias's or γ's row sum,
//! a weight's `xᵀ·g`) is laid out as pypto-gym's backward kernels are — one unit of work per block
//! of rows (the forward's vec-tile rows, or more), each reading its rows of the row-indexed
//! arguments, storing its rows of the row-indexed gradients, and adding its partial sum into a
//! zero-initialised output with an accumulating store (the NPU's atomic add), so the blocks are
//! independent and spread over the cores. Without blocks such a sum joins every row into one task
//! (one core walks all rows), and a matmul over all rows is one cube task.
//!
//! Every value is classified: *row* (dim 0 is the rows: its block is what a unit computes),
//! *partial* (a sum over rows: a unit holds its block's share) or *fixed* (the same in every unit:
//! weights, `[1, C]` parameters). A partial may only be cast or scaled on its way to a gradient;
//! any other use (or a shape that mixes the classes) keeps the whole-tensor form.

use std::collections::HashMap;

use super::super::capture::{identity, Arg, Captured, CapturedOp, Identity, TensorRef};
use super::GeneratedBackward;
use crate::tensor::{BinaryOp, DType, ReduceOp};

/// What a value is to a block of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Row,
    Partial,
    Fixed,
}

/// The backward as row-block units.
pub(crate) struct Blocked {
    /// The ops: per block a unit start, the views of its rows, its ops and its stores.
    pub ops: Vec<Captured>,
    /// Per gradient, its output: a zero-initialised argument the units write their rows into or
    /// add their partial sums to.
    pub outputs: Vec<TensorRef>,
}

/// Classifies `ops` (forward then adjoint, whole tensors); `None` when the values do not split
/// into row, partial and fixed ones.
fn classify(ops: &[Captured], arguments: &[(String, TensorRef)], rows: usize) -> Option<HashMap<Identity, Class>> {
    // A forward matmul's right operand is a weight even when its first dim happens to be `rows`.
    let weights: Vec<Identity> = ops
        .iter()
        .filter_map(|op| match &op.op {
            CapturedOp::Matmul { b, b_transposed: false, .. } => Some(identity(b)),
            _ => None,
        })
        .collect();
    let is_row_shape = |shape: &[usize]| shape.len() >= 2 && shape[0] == rows;
    let mut classes: HashMap<Identity, Class> = HashMap::new();
    for (_, argument) in arguments {
        let key = identity(argument);
        let row = is_row_shape(argument.shape()) && !weights.contains(&key);
        classes.insert(key, if row { Class::Row } else { Class::Fixed });
    }
    for op in ops {
        let Some(result) = &op.result else { return None };
        if classes.contains_key(&identity(result)) {
            continue; // a saved forward value: read from its argument
        }
        let class_of = |tensor: &TensorRef| classes.get(&identity(tensor)).copied();
        let class = match &op.op {
            CapturedOp::Unary { x, .. } | CapturedOp::Cast { x } => class_of(x)?,
            CapturedOp::Fill { .. } => {
                if is_row_shape(result.shape()) {
                    Class::Row
                } else {
                    Class::Fixed
                }
            }
            CapturedOp::Binary { op: binary, lhs, rhs } => binary_class(*binary, lhs, rhs, &classes, rows)?,
            CapturedOp::Reduce { op: reduce, x, dims } => {
                let rank = x.shape().len() as i64;
                let over_rows = dims.as_ref().is_none_or(|dims| dims.iter().any(|&dim| dim == 0 || dim == -rank));
                match (class_of(x)?, over_rows) {
                    (Class::Row, true) if *reduce == ReduceOp::Sum && result.shape().len() == x.shape().len() => {
                        Class::Partial
                    }
                    (Class::Row, false) => Class::Row,
                    (Class::Fixed, _) => Class::Fixed,
                    _ => return None,
                }
            }
            CapturedOp::Matmul { a, b, a_transposed, b_transposed } => {
                match (class_of(a)?, *a_transposed, class_of(b)?, *b_transposed) {
                    (Class::Row, false, Class::Fixed, _) => Class::Row,
                    (Class::Row, true, Class::Row, false) => Class::Partial,
                    (Class::Fixed, _, Class::Fixed, _) => Class::Fixed,
                    _ => return None,
                }
            }
            CapturedOp::Softmax { x, dim, .. } => {
                let rank = x.shape().len() as i64;
                match class_of(x)? {
                    Class::Row if *dim != 0 && *dim != -rank => Class::Row,
                    Class::Fixed => Class::Fixed,
                    _ => return None,
                }
            }
            _ => return None,
        };
        if class == Class::Row && result.shape().first() != Some(&rows) {
            return None;
        }
        classes.insert(identity(result), class);
    }
    Some(classes)
}

/// The class of `lhs op rhs`: a row operand makes a row result if the other broadcasts along the
/// rows; a partial is only scaled by a number.
fn binary_class(op: BinaryOp, lhs: &Arg, rhs: &Arg, classes: &HashMap<Identity, Class>, rows: usize) -> Option<Class> {
    fn class<'a>(arg: &'a Arg, classes: &HashMap<Identity, Class>) -> Option<(Class, Option<&'a TensorRef>)> {
        match arg {
            Arg::Tensor(tensor) => classes.get(&identity(tensor)).copied().map(|class| (class, Some(tensor))),
            Arg::Number(_) => Some((Class::Fixed, None)),
        }
    }
    let ((left, left_tensor), (right, right_tensor)) = (class(lhs, classes)?, class(rhs, classes)?);
    fn broadcasts_rows(tensor: Option<&TensorRef>, rank: usize) -> bool {
        tensor.is_none_or(|tensor| tensor.shape().len() < rank || tensor.shape()[0] == 1)
    }
    match (left, right) {
        (Class::Partial, Class::Fixed) if right_tensor.is_none() && matches!(op, BinaryOp::Mul | BinaryOp::Div) => {
            Some(Class::Partial)
        }
        (Class::Fixed, Class::Partial) if left_tensor.is_none() && op == BinaryOp::Mul => Some(Class::Partial),
        (Class::Partial, _) | (_, Class::Partial) => None,
        (Class::Row, Class::Row) => Some(Class::Row),
        (Class::Row, Class::Fixed) => {
            broadcasts_rows(right_tensor, left_tensor.map_or(0, |t| t.shape().len())).then_some(Class::Row)
        }
        (Class::Fixed, Class::Row) => {
            broadcasts_rows(left_tensor, right_tensor.map_or(0, |t| t.shape().len())).then_some(Class::Row)
        }
        (Class::Fixed, Class::Fixed) => Some(Class::Fixed),
    }
    .filter(|_| rows > 0)
}

/// Lays `ops` out in blocks of `block` rows, or `None` when no gradient is a sum over rows (the
/// whole-tensor form is tiled as well) or the values do not split by rows. `gradients` are the
/// gradients to store, in order.
pub(crate) fn row_blocks(
    ops: &[Captured],
    arguments: &[(String, TensorRef)],
    gradients: &[TensorRef],
    rows: usize,
    block: usize,
) -> Option<Blocked> {
    let classes = classify(ops, arguments, rows)?;
    let definitions: HashMap<Identity, &Captured> =
        ops.iter().filter_map(|op| op.result.as_ref().map(|result| (identity(result), op))).collect();
    // Per gradient: the value a unit stores (a partial's cast is dropped: it accumulates in its own
    // dtype, f32 for the rules' sums, and is cast once when read back).
    let mut stored = Vec::new();
    for gradient in gradients {
        let mut value = gradient.clone();
        match classes.get(&identity(gradient)).copied()? {
            Class::Row => stored.push((value, false)),
            Class::Partial => {
                while let Some(CapturedOp::Cast { x }) = definitions.get(&identity(&value)).map(|op| &op.op) {
                    value = x.clone();
                }
                stored.push((value, true));
            }
            Class::Fixed => return None,
        }
    }
    if !stored.iter().any(|(_, accumulated)| *accumulated) || block == 0 || block >= rows {
        return None;
    }
    let outputs: Vec<TensorRef> = stored
        .iter()
        .zip(gradients)
        .map(|((value, accumulated), gradient)| {
            // Sums accumulate in f32: a BF16 accumulator would round once per block.
            let dtype = if *accumulated { DType::F32 } else { value.dtype() };
            TensorRef::fresh(gradient.shape(), None, dtype)
        })
        .collect();
    let mut blocked = Vec::new();
    for start in (0..rows).step_by(block) {
        let valid = block.min(rows - start);
        let block_shape = |shape: &[usize]| -> (Vec<usize>, Option<Vec<usize>>) {
            let mut full = shape.to_vec();
            full[0] = block;
            let ragged = (valid < block).then(|| {
                let mut valid_shape = full.clone();
                valid_shape[0] = valid;
                valid_shape
            });
            (full, ragged)
        };
        let line = ops.first().and_then(|op| op.line);
        blocked.push(Captured { op: CapturedOp::UnitStart, result: None, line });
        let mut renamed: HashMap<Identity, TensorRef> = HashMap::new();
        for (_, argument) in arguments {
            if classes.get(&identity(argument)) == Some(&Class::Row) {
                let (shape, valid_shape) = block_shape(argument.shape());
                let view = TensorRef::fresh(&shape, valid_shape, argument.dtype());
                let mut offsets = vec![0; shape.len()];
                offsets[0] = start;
                let op = CapturedOp::View { source: argument.clone(), offsets };
                blocked.push(Captured { op, result: Some(view.clone()), line });
                renamed.insert(identity(argument), view);
            }
        }
        for op in ops {
            let Some(result) = &op.result else { continue };
            if renamed.contains_key(&identity(result)) || arguments.iter().any(|(_, a)| identity(a) == identity(result))
            {
                continue;
            }
            let fresh = match classes[&identity(result)] {
                Class::Row => {
                    let (shape, valid_shape) = block_shape(result.shape());
                    TensorRef::fresh(&shape, valid_shape, result.dtype())
                }
                Class::Partial | Class::Fixed => TensorRef::fresh(result.shape(), None, result.dtype()),
            };
            let renamed_op = rename(&op.op, &renamed);
            renamed.insert(identity(result), fresh.clone());
            blocked.push(Captured { op: renamed_op, result: Some(fresh), line: op.line });
        }
        for ((value, accumulated), output) in stored.iter().zip(&outputs) {
            let mut tile = renamed.get(&identity(value)).cloned().unwrap_or_else(|| value.clone());
            if tile.dtype() != output.dtype() {
                let cast = TensorRef::fresh(tile.shape(), tile.valid_shape().map(<[usize]>::to_vec), output.dtype());
                blocked.push(Captured { op: CapturedOp::Cast { x: tile }, result: Some(cast.clone()), line });
                tile = cast;
            }
            let zeros = vec![0; output.shape().len()];
            if *accumulated {
                // `out[...] = out[...] + partial`: the recorder makes it an accumulating store.
                let read = TensorRef::fresh(output.shape(), None, output.dtype());
                let view = CapturedOp::View { source: output.clone(), offsets: zeros.clone() };
                blocked.push(Captured { op: view, result: Some(read.clone()), line });
                let sum = TensorRef::fresh(output.shape(), None, output.dtype());
                let add = CapturedOp::Binary { op: BinaryOp::Add, lhs: Arg::Tensor(read), rhs: Arg::Tensor(tile) };
                blocked.push(Captured { op: add, result: Some(sum.clone()), line });
                let store = CapturedOp::Assemble { tile: sum, offsets: zeros, out: output.clone() };
                blocked.push(Captured { op: store, result: None, line });
            } else {
                let mut offsets = zeros;
                offsets[0] = start;
                let store = CapturedOp::Assemble { tile, offsets, out: output.clone() };
                blocked.push(Captured { op: store, result: None, line });
            }
        }
    }
    Some(Blocked { ops: blocked, outputs })
}

/// `op` with its operands renamed to the block's values.
fn rename(op: &CapturedOp, renamed: &HashMap<Identity, TensorRef>) -> CapturedOp {
    let tensor = |tensor: &TensorRef| renamed.get(&identity(tensor)).cloned().unwrap_or_else(|| tensor.clone());
    let arg = |arg: &Arg| match arg {
        Arg::Tensor(value) => Arg::Tensor(tensor(value)),
        Arg::Number(number) => Arg::Number(*number),
    };
    match op {
        CapturedOp::Unary { op, x } => CapturedOp::Unary { op: *op, x: tensor(x) },
        CapturedOp::Cast { x } => CapturedOp::Cast { x: tensor(x) },
        CapturedOp::Binary { op, lhs, rhs } => CapturedOp::Binary { op: *op, lhs: arg(lhs), rhs: arg(rhs) },
        CapturedOp::Reduce { op, x, dims } => CapturedOp::Reduce { op: *op, x: tensor(x), dims: dims.clone() },
        CapturedOp::Matmul { a, b, a_transposed, b_transposed } => {
            CapturedOp::Matmul { a: tensor(a), b: tensor(b), a_transposed: *a_transposed, b_transposed: *b_transposed }
        }
        CapturedOp::Softmax { x, dim, log } => CapturedOp::Softmax { x: tensor(x), dim: *dim, log: *log },
        other => other.clone(),
    }
}

/// The rows a block that is a matmul's K grows by: whole steps keep the default cube K tiles whole
/// (an 80-row block overflowed L0A).
const K_STEP_ROWS: usize = 32;

/// Rows per block: whole vec tiles, enough blocks to occupy the vector cores, and — when a unit
/// adds a matmul's partial (`partial_bytes`) — enough rows that the accumulating store moves at
/// most three times the bytes the block's rows bring in (`row_bytes` per row).
pub(crate) fn block_rows(rows: usize, tile_rows: usize, cores: usize, partial_bytes: usize, row_bytes: usize) -> usize {
    let tile_rows = tile_rows.max(1);
    let tiles = rows.div_ceil(tile_rows);
    let for_cores = tiles.div_ceil(cores.max(1)) * tile_rows;
    // The partial's store may move up to three times what the block reads: smaller blocks shorten
    // the tasks that walk a block's rows for a row sum, larger ones store fewer partials. Chosen
    // from a sweep of the SwiGLU backward at M = 2200, K = 512, N = 1024 (16-row vec tiles; block
    // rows → cycles / the hand-written kernels' cycles): 64 → 1.70, 96 → 1.18, 128 → 1.15,
    // 160 → 1.22, 256 → 1.30, 384 → 1.69 (this rule picks 128). Such a block is also the K of the
    // weight gradient's matmul: whole 32-row steps keep the cube's K tiles whole (80 rows
    // overflowed L0A).
    let step = if partial_bytes == 0 {
        tile_rows
    } else {
        tile_rows * K_STEP_ROWS / greatest_common_divisor(tile_rows, K_STEP_ROWS)
    };
    let for_traffic = if row_bytes == 0 { 0 } else { partial_bytes.div_ceil(3 * row_bytes).div_ceil(step) * step };
    for_cores.max(for_traffic)
}

fn greatest_common_divisor(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        greatest_common_divisor(b, a % b)
    }
}

impl GeneratedBackward {
    /// The backward `ops` (storing `gradients`) laid out in row blocks sized for `cores` vector
    /// cores, or `None` (see `row_blocks`).
    pub(super) fn blocked(
        &self,
        ops: &[Captured],
        arguments: &[(String, TensorRef)],
        gradients: &[TensorRef],
        cores: usize,
        vec_tile: Option<&[usize]>,
    ) -> Option<Blocked> {
        let first = self.outputs.first()?.shape();
        let (rows, rank) = (*first.first()?, first.len());
        let tile_rows = vec_tile.filter(|tile| tile.len() == rank).map_or(1, |tile| tile[0]);
        let row_bytes = arguments
            .iter()
            .map(|(_, argument)| argument.shape())
            .zip(arguments.iter().map(|(_, argument)| argument.dtype().size_in_bytes()))
            .filter(|(shape, _)| shape.len() >= 2 && shape[0] == rows)
            .map(|(shape, size)| shape[1..].iter().product::<usize>() * size)
            .sum();
        // A matmul's partial (a weight gradient) is a sum over rows with more than one row of its own.
        let partial_bytes = gradients
            .iter()
            .map(|gradient| gradient.shape())
            .filter(|shape| shape.len() >= 2 && shape[0] != rows && shape[0] > 1)
            .map(|shape| shape.iter().product::<usize>() * 4)
            .sum();
        let block = block_rows(rows, tile_rows, cores, partial_bytes, row_bytes);
        row_blocks(ops, arguments, gradients, rows, block)
    }
}

#[cfg(test)]
mod block_tests {
    use super::block_rows;

    #[test]
    fn blocks_fill_the_cores_and_bound_a_matmul_partials_traffic() {
        // 100 rows of 4-row tiles: 25 tiles over 48 cores, one tile per block.
        assert_eq!(block_rows(100, 4, 48, 0, 256), 4);
        // 2200 rows of 32-row tiles are 69 tiles: 2 per block for 48 cores (64 rows); a 4 MiB
        // partial against 11264 B per row needs ⌈4194304 / (3·11264)⌉ = 125 rows, in whole
        // 32-row steps: 128.
        assert_eq!(block_rows(2200, 32, 48, 4_194_304, 11_264), 128);
        // 24-row tiles step by lcm(24, 32) = 96 rows: 125 → 192.
        assert_eq!(block_rows(2200, 24, 48, 4_194_304, 11_264), 192);
    }
}
