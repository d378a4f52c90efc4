//! The byte ranges a GM copy touches in its tensor (row-major addresses): a region of any rank
//! walked block by block, or a box of rows (regions of rank 2 or less) described by its first
//! byte, row length, stride and row count.

/// `rows` rows of `row` bytes, `stride` apart, from byte `start`: the bytes of a copy of rank 2 or
/// less, as `region_ranges_into` walks them (one range when the rows follow each other).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowBox {
    pub start: u64,
    pub row: u64,
    pub stride: u64,
    pub rows: u64,
}

impl RowBox {
    /// Its ranges into `ranges` (cleared first).
    pub fn ranges_into(&self, ranges: &mut Vec<(u64, u64)>) {
        ranges.clear();
        let RowBox { start, row, stride, rows } = *self;
        if rows == 0 {
            return;
        }
        if row == stride {
            ranges.push((start, start + rows * row));
        } else {
            ranges.extend((0..rows).map(|index| (start + index * stride, start + index * stride + row)));
        }
    }
}

/// Appends `[start, end)`, extending the last range when it ends at `start`.
fn push_merged(ranges: &mut Vec<(u64, u64)>, start: u64, end: u64) {
    match ranges.last_mut() {
        Some(last) if last.1 == start => last.1 = end,
        _ => ranges.push((start, end)),
    }
}

/// The contiguous byte ranges (row-major addresses) of a region of a tensor, adjacent rows merged,
/// into `ranges` (cleared first: the simulator reuses one vector for every copy).
pub fn region_ranges_into(
    tensor_shape: &[usize],
    element_bytes: u64,
    offsets: &[usize],
    shape: &[usize],
    ranges: &mut Vec<(u64, u64)>,
) {
    ranges.clear();
    let rank = tensor_shape.len();
    if rank == 0 || shape.contains(&0) {
        return;
    }
    // Strides and the block odometer on the stack for the usual ranks (no allocation per copy).
    const STACK_RANK: usize = 8;
    let (mut stack_strides, mut stack_index) = ([1u64; STACK_RANK], [0usize; STACK_RANK]);
    let (mut heap_strides, mut heap_index) = (Vec::new(), Vec::new());
    let (strides, index): (&mut [u64], &mut [usize]) = if rank <= STACK_RANK {
        (&mut stack_strides[..rank], &mut stack_index[..rank])
    } else {
        heap_strides.resize(rank, 1);
        heap_index.resize(rank, 0);
        (&mut heap_strides, &mut heap_index)
    };
    for dim in (0..rank - 1).rev() {
        strides[dim] = strides[dim + 1] * tensor_shape[dim + 1] as u64;
    }
    let row = shape[rank - 1] as u64 * element_bytes;
    // A block is the rows of the last two dims; the odometer below walks the blocks.
    let (rows, row_stride, block_dims) =
        if rank >= 2 { (shape[rank - 2] as u64, strides[rank - 2] * element_bytes, rank - 2) } else { (1, row, 0) };
    // The first element of the current block (no sum over dims per block).
    let mut element: u64 = (0..rank).map(|dim| offsets[dim] as u64 * strides[dim]).sum();
    loop {
        let start = element * element_bytes;
        if row == row_stride {
            // Full-width rows are adjacent: the block is one range.
            push_merged(ranges, start, start + rows * row);
        } else {
            // Rows with gaps between them: one range each (only the first can join the last block).
            push_merged(ranges, start, start + row);
            for next in 1..rows {
                let row_start = start + next * row_stride;
                ranges.push((row_start, row_start + row));
            }
        }
        let mut dim = block_dims;
        loop {
            if dim == 0 {
                return;
            }
            dim -= 1;
            index[dim] += 1;
            element += strides[dim];
            if index[dim] < shape[dim] {
                break;
            }
            element -= strides[dim] * shape[dim] as u64;
            index[dim] = 0;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in super::super) fn region_ranges(
        tensor_shape: &[usize],
        element_bytes: u64,
        offsets: &[usize],
        shape: &[usize],
    ) -> Vec<(u64, u64)> {
        let mut ranges = Vec::new();
        region_ranges_into(tensor_shape, element_bytes, offsets, shape, &mut ranges);
        ranges
    }

    #[test]
    fn regions_become_row_ranges_merged_where_rows_touch() {
        // A [3, 4, 8] f32 tensor: rows of 32 B, blocks of 128 B. The [2, 2, 3] region at [1, 1, 2]
        // has rows of 12 B with 20 B gaps: element (1, 1, 2) is at byte 4·(32 + 8 + 2) = 168.
        assert_eq!(
            region_ranges(&[3, 4, 8], 4, &[1, 1, 2], &[2, 2, 3]),
            vec![(168, 180), (200, 212), (296, 308), (328, 340)]
        );
        // Full-width rows merge, and so do blocks that follow each other: [2, 4, 8] from [1, 0, 0]
        // is the last 256 B of the tensor in one range; a 1-D region is one range too.
        assert_eq!(region_ranges(&[3, 4, 8], 4, &[1, 0, 0], &[2, 4, 8]), vec![(128, 384)]);
        assert_eq!(region_ranges(&[10], 2, &[3], &[4]), vec![(6, 14)]);
        // Full-width rows of blocks with a gap between them: one range per block.
        assert_eq!(region_ranges(&[3, 4, 8], 4, &[0, 1, 0], &[2, 2, 8]), vec![(32, 96), (160, 224)]);
    }
}
