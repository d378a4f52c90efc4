//! Shape arithmetic: element counts without overflow, strides, dims, and numpy broadcasting.

use crate::error::{Result, TensorError};
use crate::messages::{ArgumentDetail, ShapeDetail};

/// Number of elements of `shape`, or an error when it does not fit in `usize`.
pub fn element_count(op: &'static str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |count, &dim| count.checked_mul(dim))
        .ok_or_else(|| TensorError::ElementCountOverflow { op, shape: shape.to_vec() })
}

/// Row-major strides (in elements) of a contiguous tensor of `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    strides
}

/// The multi-index of flat position `flat` in a row-major `shape` (a size-0 dim counts as 1).
pub fn unravel_index(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for axis in (0..shape.len()).rev() {
        let size = shape[axis].max(1);
        index[axis] = flat % size;
        flat /= size;
    }
    index
}

/// Resolves a possibly negative `dim` against `rank`.
pub fn normalize_dim(op: &'static str, dim: isize, rank: usize) -> Result<usize> {
    let resolved = if dim < 0 { dim + rank as isize } else { dim };
    if resolved < 0 || resolved >= rank as isize {
        return Err(TensorError::BadDim { op, dim, rank });
    }
    Ok(resolved as usize)
}

/// Resolves a list of dims (negative allowed, duplicates rejected) into sorted axes.
pub fn normalize_dims(op: &'static str, dims: &[isize], rank: usize) -> Result<Vec<usize>> {
    let mut axes = Vec::with_capacity(dims.len());
    for &dim in dims {
        let axis = normalize_dim(op, dim, rank)?;
        if axes.contains(&axis) {
            return Err(TensorError::BadArgument { op, detail: ArgumentDetail::RepeatedDim { dim: dim as i64 } });
        }
        axes.push(axis);
    }
    axes.sort_unstable();
    Ok(axes)
}

/// The numpy broadcast of two shapes: align trailing dims; each pair must be equal or contain a 1.
pub fn broadcast_shapes(op: &'static str, lhs: &[usize], rhs: &[usize]) -> Result<Vec<usize>> {
    if let Some((axis, a, b)) = broadcast_conflict(lhs, rhs) {
        return Err(TensorError::ShapeMismatch {
            op,
            lhs: lhs.to_vec(),
            rhs: rhs.to_vec(),
            detail: ShapeDetail::Broadcast { dim: axis, left: a, right: b },
        });
    }
    let rank = lhs.len().max(rhs.len());
    // Without a conflict each pair is equal or holds a 1 (a 1 against 0 broadcasts to 0).
    let size = |axis: usize| match (dim_from_end(lhs, rank - 1 - axis), dim_from_end(rhs, rank - 1 - axis)) {
        (1, b) => b,
        (a, _) => a,
    };
    Ok((0..rank).map(size).collect())
}

/// The first dim of the broadcast (counted from the left of the result) whose two sizes differ
/// and neither is 1, as (dim, lhs size, rhs size); `None` when the shapes broadcast.
pub fn broadcast_conflict(lhs: &[usize], rhs: &[usize]) -> Option<(usize, usize, usize)> {
    let rank = lhs.len().max(rhs.len());
    (0..rank).find_map(|axis| {
        let (left, right) = (dim_from_end(lhs, rank - 1 - axis), dim_from_end(rhs, rank - 1 - axis));
        (left != right && left != 1 && right != 1).then_some((axis, left, right))
    })
}

fn dim_from_end(shape: &[usize], from_end: usize) -> usize {
    if from_end < shape.len() {
        shape[shape.len() - 1 - from_end]
    } else {
        1
    }
}

/// Strides that read a tensor of `shape` as if it had the (broadcast) shape `target`: broadcast dims
/// get stride 0.
pub fn broadcast_strides(shape: &[usize], target: &[usize]) -> Vec<usize> {
    let own = contiguous_strides(shape);
    let offset = target.len() - shape.len();
    (0..target.len())
        .map(|axis| if axis < offset || shape[axis - offset] == 1 { 0 } else { own[axis - offset] })
        .collect()
}

/// Visits every multi-index of `shape` in row-major order, calling `visit` with the flat offsets of
/// the index under each of the given stride sets. Used by every strided loop of the core.
pub fn for_each_offset<const N: usize>(shape: &[usize], strides: [&[usize]; N], mut visit: impl FnMut([usize; N])) {
    if shape.contains(&0) {
        return;
    }
    let rank = shape.len();
    let mut index = vec![0usize; rank];
    let mut offsets = [0usize; N];
    loop {
        visit(offsets);
        let mut axis = rank;
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            index[axis] += 1;
            // Wrapping arithmetic: negative strides (reversed slices) are stored as wrapped usizes.
            for (offset, stride) in offsets.iter_mut().zip(strides.iter()) {
                *offset = offset.wrapping_add(stride[axis]);
            }
            if index[axis] < shape[axis] {
                break;
            }
            for (offset, stride) in offsets.iter_mut().zip(strides.iter()) {
                *offset = offset.wrapping_sub(stride[axis].wrapping_mul(shape[axis]));
            }
            index[axis] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shapes("add", &[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes("add", &[], &[2, 2]).unwrap(), vec![2, 2]);
        assert!(broadcast_shapes("add", &[3], &[4]).is_err());
    }

    #[test]
    fn element_count_detects_overflow() {
        assert_eq!(element_count("zeros", &[2, 3, 4]).unwrap(), 24);
        assert_eq!(element_count("zeros", &[]).unwrap(), 1);
        assert!(element_count("zeros", &[usize::MAX, 2]).is_err());
    }

    #[test]
    fn strided_walk_visits_broadcast_offsets() {
        // A [2, 1] operand broadcast to [2, 3]: offsets 0,0,0,1,1,1.
        let mut seen = Vec::new();
        let strides = broadcast_strides(&[2, 1], &[2, 3]);
        for_each_offset(&[2, 3], [&strides], |[offset]| seen.push(offset));
        assert_eq!(seen, vec![0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn negative_dims_resolve() {
        assert_eq!(normalize_dim("sum", -1, 3).unwrap(), 2);
        assert!(normalize_dim("sum", 3, 3).is_err());
        assert!(normalize_dims("sum", &[0, -2], 2).is_err());
    }
}
