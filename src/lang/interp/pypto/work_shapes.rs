//! Shape rules the recorders share: numpy broadcasting of tile shapes and their valid extents,
//! whether a tile in "tile form" (reductions keep their dims) broadcasts like the reference tensor,
//! and reduction dims mapped onto a tile.

/// Whether a tile of shape `tile` broadcasts like a tensor of shape `reference` (equal once leading
/// size-1 dims are dropped), so numpy rules give the same values on both.
pub(crate) fn same_broadcast(tile: &[usize], reference: &[usize]) -> bool {
    let strip = |shape: &[usize]| shape.iter().skip_while(|&&dim| dim == 1).copied().collect::<Vec<_>>();
    strip(tile) == strip(reference)
}

/// Numpy broadcasting of two shapes (None when they do not broadcast).
pub(crate) fn broadcast(lhs: &[usize], rhs: &[usize]) -> Option<Vec<usize>> {
    let rank = lhs.len().max(rhs.len());
    let at =
        |shape: &[usize], index: usize| if index + shape.len() >= rank { shape[index + shape.len() - rank] } else { 1 };
    (0..rank)
        .map(|index| match (at(lhs, index), at(rhs, index)) {
            (a, b) if a == b => Some(a),
            (1, b) => Some(b),
            (a, 1) => Some(a),
            _ => None,
        })
        .collect()
}

/// Reference dims of a reduction over a tensor of rank `reference_rank`, mapped to a tile of rank
/// `tile_rank` (right-aligned; dims that fall off the left are size 1 and need no reduction).
pub(crate) fn tile_dims(dims: &Option<Vec<i64>>, reference_rank: usize, tile_rank: usize) -> Vec<usize> {
    let all: Vec<i64> = (0..reference_rank as i64).collect();
    let mut mapped: Vec<usize> = dims
        .as_ref()
        .unwrap_or(&all)
        .iter()
        .filter_map(|&dim| {
            let dim = if dim < 0 { dim + reference_rank as i64 } else { dim };
            let mapped = dim + tile_rank as i64 - reference_rank as i64;
            (0..tile_rank as i64).contains(&mapped).then_some(mapped as usize)
        })
        .collect();
    mapped.sort_unstable();
    mapped.dedup();
    mapped
}

/// The valid extents of a broadcast result: a dim takes the valid extent of the operands that are
/// not size 1 there.
pub(crate) fn broadcast_valid(
    shape: &[usize],
    lhs: &[usize],
    lhs_valid: &[usize],
    rhs: &[usize],
    rhs_valid: &[usize],
) -> Vec<usize> {
    let rank = shape.len();
    let at = |dims: &[usize], index: usize| {
        if index + dims.len() >= rank {
            Some(dims[index + dims.len() - rank])
        } else {
            None
        }
    };
    (0..rank)
        .map(|index| {
            let pick = |full: &[usize], valid: &[usize]| match at(full, index) {
                Some(size) if size == shape[index] => at(valid, index),
                _ => None,
            };
            pick(lhs, lhs_valid).into_iter().chain(pick(rhs, rhs_valid)).min().unwrap_or(shape[index])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        // [4, 1] against [3] → [4, 3]; [2, 3] against [4] does not broadcast.
        assert_eq!(broadcast(&[4, 1], &[3]), Some(vec![4, 3]));
        assert_eq!(broadcast(&[2, 3], &[4]), None);
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
    }

    #[test]
    fn keepdim_forms_broadcast_alike_only_over_leading_dims() {
        // sum over dim 0 of [R, C] is [C] (reference) and [1, C] (tile): same broadcasting.
        assert!(same_broadcast(&[1, 8], &[8]));
        // sum over dim 1 is [R] against the tile [R, 1]: numpy would align R with the columns.
        assert!(!same_broadcast(&[8, 1], &[8]));
    }

    #[test]
    fn reduction_dims_map_right_aligned() {
        assert_eq!(tile_dims(&Some(vec![-1]), 2, 2), vec![1]);
        assert_eq!(tile_dims(&None, 1, 2), vec![1]);
        assert_eq!(tile_dims(&Some(vec![0]), 1, 2), vec![1]);
    }

    #[test]
    fn ragged_valid_extents_survive_broadcasting() {
        // A ragged [4, 16] tile valid [2, 16] plus a [1, 16] row: valid [2, 16].
        assert_eq!(broadcast_valid(&[4, 16], &[4, 16], &[2, 16], &[1, 16], &[1, 16]), vec![2, 16]);
    }
}
