//! Strided copies between storages: the moves behind slices, views, assignments and assembles.
//! Runs of the innermost dim move as one slice copy (or fill, for a broadcast value) and dims that
//! are contiguous in every operand are merged first, so a tile of whole rows is a single copy.
//! Offsets wrap, as in `for_each_offset`: a negative stride is stored as a wrapped `usize`.

use super::dtype::DType;
use super::half_convert::{bf16_to_f32_into, f16_to_f32_into, f32_to_bf16_into, f32_to_f16_into};
use super::shape::for_each_offset;
use super::storage::Storage;

/// The shape and strides with every pair of adjacent dims merged where both operands step through
/// them as through one dim (`stride[a] = stride[a + 1] · shape[a + 1]` in each), and size-1 dims dropped.
pub(crate) fn coalesce(shape: &[usize], first: &[usize], second: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let mut merged: (Vec<usize>, Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new(), Vec::new());
    for axis in 0..shape.len() {
        if shape[axis] == 1 {
            continue;
        }
        let joins = match (merged.0.last(), merged.1.last(), merged.2.last()) {
            (Some(_), Some(&outer_first), Some(&outer_second)) => {
                outer_first == first[axis].wrapping_mul(shape[axis])
                    && outer_second == second[axis].wrapping_mul(shape[axis])
            }
            _ => false,
        };
        if joins {
            let last = merged.0.len() - 1;
            merged.0[last] *= shape[axis];
            merged.1[last] = first[axis];
            merged.2[last] = second[axis];
        } else {
            merged.0.push(shape[axis]);
            merged.1.push(first[axis]);
            merged.2.push(second[axis]);
        }
    }
    merged
}

/// `target[target_base + Σ i·target_strides] = source[source_base + Σ i·source_strides]` for every
/// index `i` of `shape`.
fn copy_typed<T: Copy>(
    target: &mut [T],
    (target_base, target_strides): (usize, &[usize]),
    source: &[T],
    (source_base, source_strides): (usize, &[usize]),
    shape: &[usize],
) {
    if shape.contains(&0) {
        return;
    }
    let (shape, target_strides, source_strides) = coalesce(shape, target_strides, source_strides);
    let rank = shape.len();
    if rank >= 2 && target_strides[rank - 1] == 1 && source_strides[rank - 2] == 1 && source_strides[rank - 1] != 1 {
        let outer = &shape[..rank - 2];
        let strides = (&target_strides[..rank - 2], &source_strides[..rank - 2]);
        let plane = (shape[rank - 2], shape[rank - 1], target_strides[rank - 2], source_strides[rank - 1]);
        for_each_offset(outer, [strides.0, strides.1], |[to, from]| {
            transpose_plane(target, target_base.wrapping_add(to), source, source_base.wrapping_add(from), plane)
        });
        return;
    }
    let layout = Coalesced { shape: &shape, target_strides: &target_strides, source_strides: &source_strides };
    copy_runs(target, target_base, source, source_base, layout, |from, to| to.copy_from_slice(from));
}

/// A copy's shape and both sides' strides, adjacent dims merged (`coalesce`).
#[derive(Clone, Copy)]
struct Coalesced<'a> {
    shape: &'a [usize],
    target_strides: &'a [usize],
    source_strides: &'a [usize],
}

/// The copy of a coalesced layout a run of the innermost dim at a time: `convert` moves a run
/// from source to target (a plain copy, or a dtype conversion); a broadcast run converts its one
/// value and fills; a strided one goes element by element.
fn copy_runs<S: Copy, T: Copy>(
    target: &mut [T],
    target_base: usize,
    source: &[S],
    source_base: usize,
    layout: Coalesced<'_>,
    convert: impl Fn(&[S], &mut [T]),
) {
    let Coalesced { shape, target_strides, source_strides } = layout;
    let Some((&count, outer)) = shape.split_last() else {
        convert(&source[source_base..=source_base], &mut target[target_base..=target_base]);
        return;
    };
    let rank = shape.len();
    let (target_step, source_step) = (target_strides[rank - 1], source_strides[rank - 1]);
    for_each_offset(outer, [&target_strides[..rank - 1], &source_strides[..rank - 1]], |[to, from]| {
        let (to, from) = (target_base.wrapping_add(to), source_base.wrapping_add(from));
        match (target_step, source_step) {
            (1, 1) => convert(&source[from..from + count], &mut target[to..to + count]),
            (1, 0) => {
                convert(&source[from..=from], &mut target[to..=to]);
                let value = target[to];
                target[to..to + count].fill(value);
            }
            _ => {
                for index in 0..count {
                    let at = to.wrapping_add(index.wrapping_mul(target_step));
                    let read = from.wrapping_add(index.wrapping_mul(source_step));
                    convert(&source[read..=read], &mut target[at..=at]);
                }
            }
        }
    });
}

/// Side of the square blocks a transposing copy walks: a block's source columns and target rows
/// (32 × 32 values) stay in L1 while it is copied.
const TRANSPOSE_BLOCK: usize = 32;

/// The transposing copy of one plane: `target[to + r·target_row + c] = source[from + r +
/// c·source_column]` for `r < rows`, `c < columns` (the source runs along `r`, the target along `c`), in blocks, so
/// neither side is walked with a cache line per element.
fn transpose_plane<T: Copy>(
    target: &mut [T],
    to: usize,
    source: &[T],
    from: usize,
    (rows, columns, target_row, source_column): (usize, usize, usize, usize),
) {
    for row_block in (0..rows).step_by(TRANSPOSE_BLOCK) {
        let row_end = (row_block + TRANSPOSE_BLOCK).min(rows);
        for column_block in (0..columns).step_by(TRANSPOSE_BLOCK) {
            let column_end = (column_block + TRANSPOSE_BLOCK).min(columns);
            for row in row_block..row_end {
                let target_start = to.wrapping_add(row.wrapping_mul(target_row));
                let source_start = from.wrapping_add(row);
                for column in column_block..column_end {
                    target[target_start.wrapping_add(column)] =
                        source[source_start.wrapping_add(column.wrapping_mul(source_column))];
                }
            }
        }
    }
}

/// Whether [`copy_strided`] converts `source` elements to `target` as `Tensor::cast` does, a run
/// of the innermost dim at a time (f32 to and from f16 and bf16): a caller need not cast first.
pub(crate) fn converts_in_copy(source: DType, target: DType) -> bool {
    matches!((source, target), (DType::F16 | DType::Bf16, DType::F32) | (DType::F32, DType::F16 | DType::Bf16))
}

/// [`copy_typed`] between two element types: `convert` turns a run of source values into the
/// target's (as `Tensor::cast` does).
fn copy_converted<S: Copy, T: Copy>(
    target: &mut [T],
    (target_base, target_strides): (usize, &[usize]),
    source: &[S],
    (source_base, source_strides): (usize, &[usize]),
    shape: &[usize],
    convert: impl Fn(&[S], &mut [T]),
) {
    if shape.contains(&0) {
        return;
    }
    let (shape, target_strides, source_strides) = coalesce(shape, target_strides, source_strides);
    let layout = Coalesced { shape: &shape, target_strides: &target_strides, source_strides: &source_strides };
    copy_runs(target, target_base, source, source_base, layout, convert);
}

/// Copies the elements of `shape` from `source` into `target`, each side addressed by a base and
/// strides (see [`copy_typed`]): exactly when the dtypes match, converted as `Tensor::cast` does
/// for the pairs of [`converts_in_copy`], else each element through f64.
pub(crate) fn copy_strided(
    target: &mut Storage,
    target_at: (usize, &[usize]),
    source: &Storage,
    source_at: (usize, &[usize]),
    shape: &[usize],
) {
    match (&mut *target, source) {
        (Storage::F32(t), Storage::F32(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::F16(t), Storage::F16(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::Bf16(t), Storage::Bf16(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::F64(t), Storage::F64(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::I8(t), Storage::I8(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::I16(t), Storage::I16(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::I32(t), Storage::I32(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::I64(t), Storage::I64(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::U8(t), Storage::U8(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::Bool(t), Storage::Bool(s)) => copy_typed(t, target_at, s, source_at, shape),
        (Storage::F32(t), Storage::F16(s)) => copy_converted(t, target_at, s, source_at, shape, f16_to_f32_into),
        (Storage::F32(t), Storage::Bf16(s)) => copy_converted(t, target_at, s, source_at, shape, bf16_to_f32_into),
        (Storage::F16(t), Storage::F32(s)) => copy_converted(t, target_at, s, source_at, shape, f32_to_f16_into),
        (Storage::Bf16(t), Storage::F32(s)) => copy_converted(t, target_at, s, source_at, shape, f32_to_bf16_into),
        _ => {
            let ((target_base, target_strides), (source_base, source_strides)) = (target_at, source_at);
            for_each_offset(shape, [target_strides, source_strides], |[to, from]| {
                target.copy_element(target_base.wrapping_add(to), source, source_base.wrapping_add(from))
            });
        }
    }
}

/// The elements at `base + Σ index·stride` (wrapping, for negative strides) in a new contiguous
/// buffer of `shape`.
pub(crate) fn gather(source: &Storage, shape: &[usize], strides: &[usize], base: usize) -> Storage {
    fn pick<T: Copy + Default>(values: &[T], shape: &[usize], strides: &[usize], base: usize) -> Vec<T> {
        let mut out = vec![T::default(); shape.iter().product()];
        let own = super::shape::contiguous_strides(shape);
        copy_typed(&mut out, (0, &own), values, (base, strides), shape);
        out
    }
    super::storage::map_storage!(source, values => pick(values, shape, strides, base))
}

/// `count` copies of `value` in `dtype` (rounded once, as `Storage::from_f64`), written directly.
pub(crate) fn filled(count: usize, value: f64, dtype: DType) -> Storage {
    let one = Storage::from_f64(vec![value], dtype);
    match one {
        Storage::F32(v) => Storage::F32(vec![v[0]; count]),
        Storage::F16(v) => Storage::F16(vec![v[0]; count]),
        Storage::Bf16(v) => Storage::Bf16(vec![v[0]; count]),
        Storage::F64(v) => Storage::F64(vec![v[0]; count]),
        Storage::I8(v) => Storage::I8(vec![v[0]; count]),
        Storage::I16(v) => Storage::I16(vec![v[0]; count]),
        Storage::I32(v) => Storage::I32(vec![v[0]; count]),
        Storage::I64(v) => Storage::I64(vec![v[0]; count]),
        Storage::U8(v) => Storage::U8(vec![v[0]; count]),
        Storage::Bool(v) => Storage::Bool(vec![v[0]; count]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    /// The element-by-element copy the fast paths must agree with.
    fn reference(
        target: &mut Storage,
        target_at: (usize, &[usize]),
        source: &Storage,
        source_at: (usize, &[usize]),
        shape: &[usize],
    ) {
        for_each_offset(shape, [target_at.1, source_at.1], |[to, from]| {
            target.copy_element(target_at.0.wrapping_add(to), source, source_at.0.wrapping_add(from))
        });
    }

    #[test]
    fn merges_contiguous_dims_and_keeps_strided_ones() {
        // A [3, 4, 5] contiguous block: one run of 60.
        assert_eq!(coalesce(&[3, 4, 5], &[20, 5, 1], &[20, 5, 1]), (vec![60], vec![1], vec![1]));
        // Rows of a wider tensor: the rows stay separate in the source.
        assert_eq!(coalesce(&[3, 4], &[4, 1], &[9, 1]), (vec![3, 4], vec![4, 1], vec![9, 1]));
        // Size-1 dims vanish; a broadcast (stride 0) dim stays.
        assert_eq!(coalesce(&[1, 3, 4], &[12, 4, 1], &[0, 0, 1]), (vec![3, 4], vec![4, 1], vec![0, 1]));
    }

    #[test]
    fn every_layout_copies_like_the_element_loop() {
        // Source: a 5×7 grid 0..35; copies of odd sub-blocks through row, column, reversed and
        // broadcast strides, in f32, bf16 and int64, into a 6×9 target at an offset.
        let wrapped = |stride: isize| stride as usize;
        let cases: Vec<(Vec<usize>, Vec<usize>, usize)> = vec![
            (vec![3, 5], vec![7, 1], 8),                      // a block
            (vec![5, 7], vec![7, 1], 0),                      // the whole grid
            (vec![3, 4], vec![1, 7], 1),                      // transposed read
            (vec![2, 3], vec![wrapped(-7), wrapped(-2)], 34), // both reversed, step 2
            (vec![4, 6], vec![0, 1], 3),                      // a row broadcast down
            (vec![4, 6], vec![7, 0], 2),                      // a column broadcast across
            (vec![1, 1], vec![7, 1], 12),                     // one element
            (vec![0, 3], vec![7, 1], 0),                      // empty
        ];
        for dtype in [DType::F32, DType::Bf16, DType::I64] {
            let source = Storage::from_f64((0..35).map(f64::from).collect(), dtype);
            for (shape, strides, base) in &cases {
                let target_strides = [9, 1];
                let mut fast = Storage::from_f64(vec![-1.0; 54], dtype);
                let mut slow = fast.clone();
                copy_strided(&mut fast, (10, &target_strides), &source, (*base, strides), shape);
                reference(&mut slow, (10, &target_strides), &source, (*base, strides), shape);
                assert_eq!(fast, slow, "{dtype:?} {shape:?} {strides:?}");
                let gathered = gather(&source, shape, strides, *base);
                let mut expected = Storage::from_f64(vec![0.0; shape.iter().product()], dtype);
                reference(
                    &mut expected,
                    (0, &super::super::shape::contiguous_strides(shape)),
                    &source,
                    (*base, strides),
                    shape,
                );
                assert_eq!(gathered, expected, "gather {dtype:?} {shape:?}");
            }
        }
    }

    #[test]
    fn transposing_copies_cross_blocks_like_the_element_loop() {
        // A [2, 45, 70] source read as [2, 70, 45] (the last two dims swapped, ragged against the
        // 32-blocks), and a plain 2-D transpose of one plane into the middle of a wider target.
        let source = Storage::from_f64((0..2 * 45 * 70).map(f64::from).collect(), DType::F32);
        let (shape, strides) = ([2, 70, 45], [45 * 70, 1, 70]);
        let mut fast = gather(&source, &shape, &strides, 0);
        let mut slow = Storage::from_f64(vec![0.0; 2 * 45 * 70], DType::F32);
        reference(&mut slow, (0, &[45 * 70, 45, 1]), &source, (0, &strides), &shape);
        assert_eq!(fast, slow);
        let target_strides = [50, 1];
        copy_strided(&mut fast, (3, &target_strides), &source, (71, &[1, 70]), &[40, 33]);
        reference(&mut slow, (3, &target_strides), &source, (71, &[1, 70]), &[40, 33]);
        assert_eq!(fast, slow);
    }

    #[test]
    fn mixed_dtypes_round_through_f64() {
        let source = Storage::F32(vec![1.0 + 2f32.powi(-9), 2.0]);
        let mut target = Storage::Bf16(vec![bf16::ZERO; 2]);
        copy_strided(&mut target, (0, &[1]), &source, (0, &[1]), &[2]);
        assert_eq!(target, Storage::Bf16(vec![bf16::ONE, bf16::from_f32(2.0)]));
    }

    /// Each element's bits (floats: NaNs compare by payload, not as unequal).
    fn bits(storage: &Storage) -> Vec<u32> {
        match storage {
            Storage::F32(values) => values.iter().map(|value| value.to_bits()).collect(),
            Storage::F16(values) => values.iter().map(|value| u32::from(value.to_bits())).collect(),
            Storage::Bf16(values) => values.iter().map(|value| u32::from(value.to_bits())).collect(),
            other => panic!("not a float storage: {other:?}"),
        }
    }

    #[test]
    fn converting_copies_round_like_the_element_loop_through_f64() {
        // f32 values on f16 and bf16 rounding ties (either side, odd and even), beyond f16's range,
        // subnormal in f16, zeros, infinities and NaNs with payloads; and every 97th f16 and bf16
        // bit pattern widened. Copied through every layout case (runs, strided, reversed,
        // broadcast) against the element loop, whose mixed-dtype path rounds through f64 with the
        // `half` crate.
        let mut wide: Vec<f32> = Vec::new();
        for k in 0..40u32 {
            let tie = 1.0 + k as f32 * 2f32.powi(-11) + 2f32.powi(-12);
            wide.extend([tie, -tie, f32::from_bits(tie.to_bits() + 1), 1.0 + k as f32 * 2f32.powi(-8) + 2f32.powi(-9)]);
        }
        wide.extend([65504.0, 65519.0, 65520.0, 1e6, 2f32.powi(-25), 3.0 * 2f32.powi(-26), 0.0, -0.0]);
        wide.extend([
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xff80_0001),
            f32::from_bits(0x7fc1_2345),
        ]);
        let narrow: Vec<u16> = (0..=u16::MAX).step_by(97).collect();
        let sources = [
            (Storage::F32(wide.clone()), DType::F16),
            (Storage::F32(wide), DType::Bf16),
            (Storage::F16(narrow.iter().map(|&b| half::f16::from_bits(b)).collect()), DType::F32),
            (Storage::Bf16(narrow.iter().map(|&b| bf16::from_bits(b)).collect()), DType::F32),
        ];
        let wrapped = |stride: isize| stride as usize;
        for (source, target_dtype) in &sources {
            let len = source.len();
            let cases: Vec<(Vec<usize>, Vec<usize>, usize)> = vec![
                (vec![len], vec![1], 0),
                (vec![len / 3], vec![3], 1),
                (vec![len / 2], vec![wrapped(-2)], len - 1),
                (vec![4, len / 4], vec![len / 4, 1], 0),
                (vec![5, 9], vec![0, 1], 7),
            ];
            for (shape, strides, base) in &cases {
                let count: usize = shape.iter().product();
                let target_strides = super::super::shape::contiguous_strides(shape);
                let mut fast = Storage::from_f64(vec![0.0; count + 3], *target_dtype);
                let mut slow = fast.clone();
                copy_strided(&mut fast, (3, &target_strides), source, (*base, strides), shape);
                reference(&mut slow, (3, &target_strides), source, (*base, strides), shape);
                assert_eq!(bits(&fast), bits(&slow), "{target_dtype:?} {shape:?} {strides:?}");
            }
        }
    }

    #[test]
    fn filled_rounds_once_per_dtype() {
        assert_eq!(filled(3, 0.0, DType::Bf16), Storage::Bf16(vec![bf16::ZERO; 3]));
        assert_eq!(filled(2, -2.7, DType::I32), Storage::I32(vec![-2, -2]));
        assert_eq!(filled(2, 0.1, DType::F32), Storage::F32(vec![0.1f32; 2]));
        assert_eq!(filled(0, 1.0, DType::Bool), Storage::Bool(Vec::new()));
    }
}
