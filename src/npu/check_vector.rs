//! Static checks of a `TileOp::Vector`: every tile operand's valid part lies in its buffer, the
//! written part lies in the output buffer, and the shapes fit the op (broadcasting for the
//! element-wise ones, the joined or swapped dims for the structural ones).

use crate::messages::{ProgramDetail, ViewSubject};
use crate::tensor::{broadcast_shapes, DType};
use crate::tile::{Buffer, BufferId, VectorOp, VectorOperand};

/// What is wrong with a vector instruction.
pub(super) enum Problem {
    /// A malformed instruction.
    Invalid(ProgramDetail),
    /// A valid shape that runs past its buffer.
    OutOfBounds { what: ViewSubject, shape: Vec<usize>, bounds: Vec<usize> },
}

fn fits(shape: &[usize], bounds: &[usize]) -> bool {
    shape.len() == bounds.len() && shape.iter().zip(bounds).all(|(extent, bound)| extent <= bound)
}

/// Checks one vector instruction; `buffer` looks up a buffer by id.
pub(super) fn check_vector<'a, E>(
    op: &VectorOp,
    inputs: &[VectorOperand],
    output: &Buffer,
    valid_shape: &[usize],
    buffer: &dyn Fn(BufferId) -> Result<&'a Buffer, E>,
) -> Result<(), Problem> {
    let mut shapes = Vec::new();
    let mut dtypes = Vec::new();
    for input in inputs {
        match input {
            VectorOperand::Tile { buffer: id, shape } => {
                let tile = buffer(*id).map_err(|_| Problem::Invalid(ProgramDetail::UnknownBuffer { id: id.0 }))?;
                if !fits(shape, &tile.shape) {
                    return Err(Problem::OutOfBounds {
                        what: ViewSubject::ValidShape { name: tile.name.clone() },
                        shape: shape.clone(),
                        bounds: tile.shape.to_vec(),
                    });
                }
                shapes.push(Some(shape.clone()));
                dtypes.push(Some(tile.dtype));
            }
            VectorOperand::Scalar(_) => {
                shapes.push(None);
                dtypes.push(None);
            }
        }
    }
    if !fits(valid_shape, &output.shape) {
        return Err(Problem::OutOfBounds {
            what: ViewSubject::ValidShape { name: output.name.clone() },
            shape: valid_shape.to_vec(),
            bounds: output.shape.to_vec(),
        });
    }
    let arity = match op {
        VectorOp::Compare(_) | VectorOp::Gather { .. } => 2,
        VectorOp::Integer(integer) => integer.arity(),
        VectorOp::Select | VectorOp::Scatter { .. } => 3,
        VectorOp::Concat { .. } => inputs.len().max(1),
        VectorOp::Duplicate { .. } => 0,
        _ => 1,
    };
    if inputs.len() != arity {
        return Err(Problem::Invalid(ProgramDetail::Arity { op: op.name().into(), arity, got: inputs.len() }));
    }
    // A tile of one number has no operand to agree with: its valid shape fits its buffer (above).
    if let VectorOp::Duplicate { .. } = op {
        return Ok(());
    }
    let tiles: Vec<&Vec<usize>> = shapes.iter().flatten().collect();
    let Some(first) = tiles.first() else {
        return Err(Problem::Invalid(ProgramDetail::NoTileOperand { op: op.name().into() }));
    };
    let expected: Option<Vec<usize>> = match op {
        VectorOp::Compare(_) | VectorOp::Integer(_) | VectorOp::Select => {
            let mut shape: Vec<usize> = first.to_vec();
            for other in &tiles[1..] {
                shape = broadcast_shapes("vector", &shape, other)
                    .map_err(|error| Problem::Invalid(ProgramDetail::Shapes { error: Box::new(error.message()) }))?;
            }
            Some(shape)
        }
        VectorOp::Round { .. } => Some(first.to_vec()),
        VectorOp::Duplicate { .. } => None,
        // The padded tile covers the input's valid region (a smaller one is a wrong written shape).
        VectorOp::FillPad { .. } => (first.len() != valid_shape.len()
            || first.iter().zip(valid_shape).any(|(input, output)| input > output))
        .then(|| first.to_vec()),
        VectorOp::Expand => {
            broadcast_shapes("expand", first, valid_shape)
                .map_err(|error| Problem::Invalid(ProgramDetail::Shapes { error: Box::new(error.message()) }))?;
            None
        }
        VectorOp::CumSum { dim } | VectorOp::Concat { dim } if *dim >= first.len() => {
            return Err(Problem::Invalid(ProgramDetail::DimOfTile {
                op: op.name().into(),
                dim: *dim,
                rank: first.len(),
            }));
        }
        VectorOp::CumSum { .. } => Some(first.to_vec()),
        VectorOp::Concat { dim } => {
            let mut shape = first.to_vec();
            shape[*dim] = 0;
            for tile in &tiles {
                let others_match =
                    tile.len() == shape.len() && (0..shape.len()).all(|axis| axis == *dim || tile[axis] == first[axis]);
                if !others_match {
                    return Err(Problem::Invalid(ProgramDetail::Concat {
                        first: first.to_vec(),
                        other: tile.to_vec(),
                        dim: *dim,
                    }));
                }
                shape[*dim] += tile[*dim];
            }
            Some(shape)
        }
        VectorOp::Transpose { dims } => {
            if dims.iter().any(|dim| *dim >= first.len()) {
                return Err(Problem::Invalid(ProgramDetail::TransposeDims { dims: dims.to_vec(), rank: first.len() }));
            }
            let mut shape = first.to_vec();
            shape.swap(dims[0], dims[1]);
            Some(shape)
        }
        VectorOp::TopK { k, dim, .. } => {
            if *dim >= first.len() || *k == 0 || *k > first[*dim] {
                return Err(Problem::Invalid(ProgramDetail::Topk { k: *k, dim: *dim, shape: first.to_vec() }));
            }
            if output.dtype != DType::I32 {
                return Err(Problem::Invalid(ProgramDetail::TopkIndices));
            }
            let mut shape = first.to_vec();
            shape[*dim] = *k;
            Some(shape)
        }
        VectorOp::Slice { offsets } => {
            if offsets.len() > first.len() || offsets.iter().zip(first.iter()).any(|(offset, size)| offset >= size) {
                return Err(Problem::Invalid(ProgramDetail::Slice {
                    offsets: offsets.to_vec(),
                    shape: first.to_vec(),
                }));
            }
            Some(first[offsets.len()..].to_vec())
        }
        VectorOp::Reshape => {
            if first.iter().product::<usize>() != valid_shape.iter().product::<usize>() {
                return Err(Problem::Invalid(ProgramDetail::Reshape {
                    from: first.to_vec(),
                    to: valid_shape.to_vec(),
                }));
            }
            None
        }
        VectorOp::Scatter { dim, .. } => {
            if dtypes.get(1).copied().flatten().is_some_and(|dtype| !matches!(dtype, DType::I32 | DType::I64)) {
                return Err(Problem::Invalid(ProgramDetail::IndexDtype { op: op.name().into() }));
            }
            match tiles.get(1) {
                Some(index) if *dim < first.len() && index.len() == first.len() => Some(first.to_vec()),
                _ => return Err(Problem::Invalid(ProgramDetail::IndexRank { op: op.name().into(), dim: *dim })),
            }
        }
        VectorOp::Gather { dim } => {
            if dtypes.get(1).copied().flatten().is_some_and(|dtype| !matches!(dtype, DType::I32 | DType::I64)) {
                return Err(Problem::Invalid(ProgramDetail::IndexDtype { op: op.name().into() }));
            }
            match tiles.get(1) {
                Some(index) if *dim < first.len() && index.len() == first.len() => Some(index.to_vec()),
                _ => return Err(Problem::Invalid(ProgramDetail::IndexRank { op: op.name().into(), dim: *dim })),
            }
        }
    };
    if let Some(expected) = expected.filter(|expected| expected != valid_shape) {
        return Err(Problem::Invalid(ProgramDetail::WrittenShape {
            op: op.name(),
            operands: shapes.iter().flatten().cloned().collect(),
            scalars: Some(shapes.iter().filter(|shape| shape.is_none()).count() as u32).filter(|&count| count > 0),
            expected,
            written: valid_shape.to_vec(),
        }));
    }
    if matches!(op, VectorOp::Compare(_)) && output.dtype != DType::Bool {
        return Err(Problem::Invalid(ProgramDetail::CompareWritesBool));
    }
    Ok(())
}
