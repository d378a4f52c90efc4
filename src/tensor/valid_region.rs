//! Valid regions laid out in row-major order: a tile's `valid_shape` box that holds the tile's
//! first elements, and the box of a given element count in another shape (what a `reshape` of a
//! partial tile keeps valid, as pypto derives it).

/// Whether the box of `valid` extents at the origin of `shape` holds its first elements in
/// row-major order (a whole tensor, `[3, 16]` of `[4, 16]`, `[1, 10, 32]` of `[1, 16, 32]`; not
/// `[4, 10]` of `[4, 16]`).
pub fn leads_row_major(valid: &[usize], shape: &[usize]) -> bool {
    let Some(cut) = (0..valid.len().min(shape.len())).find(|&axis| valid[axis] < shape[axis]) else {
        return true;
    };
    let single_before = shape[..cut].iter().all(|&extent| extent == 1);
    let rest = if valid[cut] <= 1 {
        leads_row_major(&valid[cut + 1..], &shape[cut + 1..])
    } else {
        valid[cut + 1..] == shape[cut + 1..]
    };
    single_before && rest
}

/// The box at the origin of `shape` that holds exactly its first `count` elements in row-major
/// order (`320` of `[16, 32]` is `[10, 32]`; `10` of `[2, 16]` is `[1, 10]`), if there is one.
pub fn leading_box(count: usize, shape: &[usize]) -> Option<Vec<usize>> {
    let Some((&outer, inner_shape)) = shape.split_first() else {
        return (count == 1).then(Vec::new);
    };
    let inner: usize = inner_shape.iter().product();
    if count == outer * inner {
        return Some(shape.to_vec());
    }
    let head = if outer == 1 || count < inner {
        leading_box(count, inner_shape).map(|rest| std::iter::once(1).chain(rest).collect())
    } else if inner > 0 && count % inner == 0 {
        Some(std::iter::once(count / inner).chain(inner_shape.iter().copied()).collect())
    } else {
        None
    };
    head.filter(|_| count <= outer * inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_regions_are_the_row_major_prefixes() {
        assert!(leads_row_major(&[4, 16], &[4, 16]));
        assert!(leads_row_major(&[3, 16], &[4, 16]));
        assert!(leads_row_major(&[1, 10, 32], &[1, 16, 32]));
        assert!(leads_row_major(&[1, 10], &[2, 16]));
        assert!(!leads_row_major(&[4, 10], &[4, 16]));
        assert!(!leads_row_major(&[2, 3, 32], &[2, 16, 32]));
        assert!(!leads_row_major(&[2, 10], &[3, 16]));
    }

    #[test]
    fn the_leading_box_of_a_count() {
        assert_eq!(leading_box(320, &[16, 32]), Some(vec![10, 32]));
        assert_eq!(leading_box(10, &[2, 16]), Some(vec![1, 10]));
        assert_eq!(leading_box(512, &[16, 32]), Some(vec![16, 32]));
        assert_eq!(leading_box(320, &[1, 16, 32]), Some(vec![1, 10, 32]));
        assert_eq!(leading_box(40, &[4, 16]), None);
        assert_eq!(leading_box(600, &[16, 32]), None);
        for (count, shape) in [(320, vec![16, 32]), (10, vec![2, 16]), (7, vec![3, 1, 8])] {
            let boxed = leading_box(count, &shape).unwrap();
            assert!(leads_row_major(&boxed, &shape));
            assert_eq!(boxed.iter().product::<usize>(), count);
        }
    }
}
