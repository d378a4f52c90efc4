//! Checks of the ops that move values (reshape, transpose, permute, concat, slice, assign_slice, view,
//! assemble, cast) against index arithmetic written in the reference. Moving values is exact.

use tilelab::tensor::{DType, SliceSpec, Tensor};

use super::reference;
use super::{assert_exact, random_tensor, round_to, Inputs, ALL_DTYPES};

/// Reshape keeps the row-major order of values and aliases the buffer (a write through the reshaped
/// handle is seen through the original, as `numpy.reshape` of a contiguous array).
pub fn reshape() {
    let mut inputs = Inputs::new(31);
    for dtype in ALL_DTYPES {
        let (tensor, values) = random_tensor(&mut inputs, &[2, 3, 4], -5.0, 5.0, dtype);
        for shape in [&[24][..], &[4, 6], &[1, 2, 1, 12, 1], &[3, 8]] {
            let reshaped = tensor.reshape(shape).unwrap();
            assert_eq!(reshaped.shape(), shape);
            assert_exact(&format!("reshape {shape:?} {dtype}"), &reshaped.to_f64_vec(), &values);
        }
    }
    let tensor = Tensor::zeros(&[2, 3], DType::F32).unwrap();
    let flat = tensor.reshape(&[6]).unwrap();
    flat.assign_slice(&[SliceSpec { start: 4, step: 1, count: 1 }], &Tensor::scalar(9.0, DType::F32)).unwrap();
    assert_eq!(tensor.to_f64_vec(), vec![0.0, 0.0, 0.0, 0.0, 9.0, 0.0]);
    let empty = Tensor::zeros(&[0, 4], DType::F32).unwrap();
    assert_eq!(empty.reshape(&[2, 0, 3]).unwrap().shape(), &[2, 0, 3]);
}

/// transpose(i, j) and permute(order) against `out[idx] = in[idx permuted]`, for every pair and
/// every permutation of a [2, 3, 4] tensor (negative dims for transpose too); valid shapes follow.
pub fn transpose_permute() {
    let mut inputs = Inputs::new(32);
    let shape = [2usize, 3, 4];
    let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for dtype in ALL_DTYPES {
        let (tensor, values) = random_tensor(&mut inputs, &shape, -5.0, 5.0, dtype);
        for order in orders {
            let (out_shape, expected) = reference::permute(&shape, &values, &order);
            let got = tensor.permute(&order).unwrap();
            assert_eq!((got.shape(), got.dtype()), (&out_shape[..], dtype));
            assert_exact(&format!("permute {order:?} {dtype}"), &got.to_f64_vec(), &expected);
        }
        for (i, j) in [(0isize, 1isize), (0, 2), (1, 2), (-1, -2), (-3, 2), (1, 1)] {
            let mut order = [0usize, 1, 2];
            order.swap(reference::axes_of(Some(&[i]), 3)[0], reference::axes_of(Some(&[j]), 3)[0]);
            let (out_shape, expected) = reference::permute(&shape, &values, &order);
            let got = tensor.transpose(i, j).unwrap();
            assert_eq!(got.shape(), &out_shape[..]);
            assert_exact(&format!("transpose({i}, {j}) {dtype}"), &got.to_f64_vec(), &expected);
        }
    }
    let tile = Tensor::zeros(&[4, 8], DType::F32).unwrap().with_valid_shape(Some(vec![3, 5]));
    assert_eq!(tile.transpose(0, 1).unwrap().valid_shape(), Some(&[5, 3][..]));
}

/// concat along each dim (negative too) of parts of different lengths; the result is the parts laid
/// side by side along that dim, in the promoted dtype.
pub fn concat() {
    let mut inputs = Inputs::new(33);
    for axis in 0..3usize {
        let lengths = [1usize, 3, 2];
        let parts: Vec<(Tensor, Vec<usize>, Vec<f64>)> = lengths
            .iter()
            .map(|&length| {
                let mut shape = vec![2, 3, 4];
                shape[axis] = length;
                let (tensor, values) = random_tensor(&mut inputs, &shape, -5.0, 5.0, DType::F16);
                (tensor, shape, values)
            })
            .collect();
        let mut shape = vec![2, 3, 4];
        shape[axis] = lengths.iter().sum();
        // Element at idx comes from the part whose range along `axis` holds idx[axis].
        let expected: Vec<f64> = (0..shape.iter().product())
            .map(|flat| {
                let mut index = reference::unravel(flat, &shape);
                let mut part = 0;
                while index[axis] >= lengths[part] {
                    index[axis] -= lengths[part];
                    part += 1;
                }
                parts[part].2[reference::ravel(&index, &parts[part].1)]
            })
            .collect();
        let tensors: Vec<Tensor> = parts.iter().map(|p| p.0.clone()).collect();
        for dim in [axis as isize, axis as isize - 3] {
            let joined = Tensor::concat(&tensors, dim).unwrap();
            assert_eq!((joined.shape(), joined.dtype()), (&shape[..], DType::F16));
            assert_exact(&format!("concat dim {dim}"), &joined.to_f64_vec(), &expected);
        }
    }
    let mixed = Tensor::concat(
        &[Tensor::full(&[1], 0.1, DType::F16).unwrap(), Tensor::full(&[2], 0.1, DType::Bf16).unwrap()],
        0,
    )
    .unwrap();
    assert_eq!(mixed.dtype(), DType::F32);
    assert_exact(
        "concat f16 with bf16",
        &mixed.to_f64_vec(),
        &[round_to(DType::F16, 0.1), round_to(DType::Bf16, 0.1), round_to(DType::Bf16, 0.1)],
    );
}

/// Python's `start:stop:step`, each part optional.
type PythonSlice = (Option<i64>, Option<i64>, Option<i64>);

/// Python-style slices resolved by `SliceSpec::from_python`, against `x[start + i·step]`; then
/// `assign_slice` writes a broadcast value into exactly those positions (rounded to the dtype).
pub fn slice_and_assign() {
    let mut inputs = Inputs::new(34);
    // (start, stop, step) per dim of a [5, 6] tensor, with the resolved (start, step, count) worked
    // out by hand from Python's rules: 1:4 → 1,2,3; ::-2 of 6 → 5,3,1; -2: → 3,4; 4:1:-1 → 4,3,2;
    // ::2**63-1 → 0; ::-2**63 of 6 → 5.
    #[allow(clippy::type_complexity)] // a literal table: (python slices, expected (start, step, count))
    let cases: [([PythonSlice; 2], [(usize, isize, usize); 2]); 5] = [
        ([(Some(1), Some(4), None), (None, None, Some(-2))], [(1, 1, 3), (5, -2, 3)]),
        ([(Some(-2), None, None), (Some(4), Some(1), Some(-1))], [(3, 1, 2), (4, -1, 3)]),
        ([(None, None, Some(2)), (Some(-1), None, None)], [(0, 2, 3), (5, 1, 1)]),
        ([(Some(3), Some(3), None), (None, None, None)], [(3, 1, 0), (0, 1, 6)]),
        // Steps of ±2^63 pick one element (the step of a one-element slice resolves to 1).
        ([(None, None, Some(i64::MAX)), (None, None, Some(i64::MIN))], [(0, 1, 1), (5, 1, 1)]),
    ];
    for dtype in ALL_DTYPES {
        for (python, resolved) in cases {
            let (tensor, values) = random_tensor(&mut inputs, &[5, 6], -5.0, 5.0, dtype);
            let specs: Vec<SliceSpec> = python
                .iter()
                .zip([5, 6])
                .map(|(&(a, b, c), size)| SliceSpec::from_python(a, b, c, size).unwrap())
                .collect();
            let hand: Vec<SliceSpec> =
                resolved.iter().map(|&(start, step, count)| SliceSpec { start, step, count }).collect();
            assert_eq!(specs, hand, "{python:?}");
            let got = tensor.slice(&specs).unwrap();
            assert_eq!(got.shape(), &[resolved[0].2, resolved[1].2]);
            assert_exact(
                &format!("slice {python:?} {dtype}"),
                &got.to_f64_vec(),
                &reference::slice(&[5, 6], &values, &resolved),
            );
            // x[specs] = row (broadcast over the first dim); 0.3 + column index, rounded to the dtype.
            let row: Vec<f64> = (0..resolved[1].2).map(|j| 0.3 + j as f64).collect();
            tensor.assign_slice(&specs, &Tensor::from_f64(row.clone(), &[1, row.len()], DType::F64).unwrap()).unwrap();
            let mut expected = values.clone();
            for i in 0..resolved[0].2 {
                for (j, &value) in row.iter().enumerate() {
                    let r = resolved[0].0 as isize + i as isize * resolved[0].1;
                    let c = resolved[1].0 as isize + j as isize * resolved[1].1;
                    expected[r as usize * 6 + c as usize] = round_to(dtype, value);
                }
            }
            assert_exact(&format!("assign_slice {python:?} {dtype}"), &tensor.to_f64_vec(), &expected);
        }
    }
}

/// `assign_slice_from` (a region of one tensor into a region of another, rounded to the target
/// dtype: the executor's DMA copies) writes `source[source_specs]` rounded to the target's dtype
/// into exactly the target's region, for every pair of dtypes (f32 ↔ f16/bf16 convert in the
/// copy) and regions with steps and reversed rows, within one buffer too; unequal shapes are refused.
pub fn slice_to_slice() {
    let mut inputs = Inputs::new(37);
    let region = |rows: (usize, isize), columns: (usize, isize, usize)| {
        [
            SliceSpec { start: rows.0, step: rows.1, count: 3 },
            SliceSpec { start: columns.0, step: columns.1, count: columns.2 },
        ]
    };
    // (source region of a [4, 70] tensor, target region of a [5, 80] one): a block of whole runs,
    // every other column, and rows read bottom up.
    let cases = [
        (region((0, 1), (3, 1, 64)), region((1, 1), (9, 1, 64))),
        (region((1, 1), (0, 2, 35)), region((2, 1), (40, 1, 35))),
        (region((3, -1), (69, -1, 33)), region((0, 2), (0, 1, 33))),
    ];
    for from in ALL_DTYPES {
        for to in ALL_DTYPES {
            for (source_specs, target_specs) in &cases {
                let (source, source_values) = random_tensor(&mut inputs, &[4, 70], -70000.0, 70000.0, from);
                let (target, mut expected) = random_tensor(&mut inputs, &[5, 80], -5.0, 5.0, to);
                target.assign_slice_from(target_specs, &source, source_specs).unwrap();
                let at = |spec: &SliceSpec, index: usize| (spec.start as isize + index as isize * spec.step) as usize;
                for i in 0..3 {
                    for j in 0..source_specs[1].count {
                        let value = source_values[at(&source_specs[0], i) * 70 + at(&source_specs[1], j)];
                        expected[at(&target_specs[0], i) * 80 + at(&target_specs[1], j)] = round_to(to, value);
                    }
                }
                assert_exact(&format!("assign_slice_from {from} → {to}"), &target.to_f64_vec(), &expected);
            }
        }
    }
    // Within one buffer (through a reshaped alias): the region is read before it is written.
    let (tensor, values) = random_tensor(&mut inputs, &[4, 70], -5.0, 5.0, DType::F32);
    let alias = tensor.reshape(&[2, 140]).unwrap();
    let whole_row = |row: usize| [SliceSpec { start: row, step: 1, count: 1 }, SliceSpec::full(140)];
    alias.assign_slice_from(&whole_row(1), &tensor.reshape(&[2, 140]).unwrap(), &whole_row(0)).unwrap();
    let expected: Vec<f64> = values[..140].iter().chain(&values[..140]).copied().collect();
    assert_exact("assign_slice_from within one buffer", &tensor.to_f64_vec(), &expected);
    let shorter = [SliceSpec { start: 0, step: 1, count: 1 }, SliceSpec { start: 0, step: 1, count: 139 }];
    assert!(alias.assign_slice_from(&whole_row(1), &tensor.reshape(&[2, 140]).unwrap(), &shorter).is_err());
    let other = Tensor::zeros(&[2, 140], DType::F16).unwrap();
    assert!(other.assign_slice_from(&whole_row(1), &alias, &shorter).is_err());
}

/// view(shape, offsets, valid_shape) reads `x[offset + idx]` inside the valid region and 0 outside;
/// assemble writes back only the valid region and leaves everything else of the target untouched.
pub fn view_and_assemble() {
    let mut inputs = Inputs::new(35);
    let (source, values) = random_tensor(&mut inputs, &[7, 10], 1.0, 5.0, DType::F32);
    // 4×4 tiles over a 7×10 tensor: the last row of tiles has 3 valid rows, the last column 2.
    let target = Tensor::full(&[7, 10], -1.0, DType::Bf16).unwrap();
    for row in (0..7).step_by(4) {
        for col in (0..10).step_by(4) {
            let valid = [4.min(7 - row), 4.min(10 - col)];
            let tile = source.view(&[4, 4], &[row, col], Some(&valid)).unwrap();
            assert_eq!(tile.valid_shape(), if valid == [4, 4] { None } else { Some(&valid[..]) });
            let expected: Vec<f64> = (0..16)
                .map(|flat| {
                    let (i, j) = (flat / 4, flat % 4);
                    if i < valid[0] && j < valid[1] {
                        values[(row + i) * 10 + col + j]
                    } else {
                        0.0
                    }
                })
                .collect();
            assert_exact(&format!("view at ({row}, {col})"), &tile.to_f64_vec(), &expected);
            // Double the tile (its padding stays 0) and write it back: only the valid region lands.
            let doubled = tile.binary(tilelab::tensor::BinaryOp::Mul, &Tensor::scalar(2.0, DType::F32)).unwrap();
            target.assemble(&doubled, &[row, col]).unwrap();
        }
    }
    let expected: Vec<f64> = values.iter().map(|&v| round_to(DType::Bf16, 2.0 * v)).collect();
    assert_exact("assemble of every tile", &target.to_f64_vec(), &expected);
    // A tile written into the middle of a larger tensor leaves its surroundings untouched.
    let out = Tensor::full(&[5, 5], 7.0, DType::F32).unwrap();
    let tile = Tensor::ones(&[3, 3], DType::F32).unwrap().with_valid_shape(Some(vec![2, 1]));
    out.assemble(&tile, &[1, 3]).unwrap();
    let expected: Vec<f64> =
        (0..25).map(|flat| if (flat / 5 == 1 || flat / 5 == 2) && flat % 5 == 3 { 1.0 } else { 7.0 }).collect();
    assert_exact("assemble valid region only", &out.to_f64_vec(), &expected);
}

/// cast between every pair of dtypes rounds the stored value once to the target dtype (so a cast to
/// a wider type is exact and a narrow → narrow cast goes through the exact value).
pub fn cast() {
    let mut inputs = Inputs::new(36);
    for from in ALL_DTYPES {
        let mut values = inputs.values(33, -70000.0, 70000.0, from);
        values.extend(inputs.values(33, -1e-3, 1e-3, from));
        values.pop();
        // Just above the f16 (bf16) tie between 1 and its successor: rounding once goes up; rounding
        // through f32 first would land exactly on the tie and go down to 1.
        let above_ties = [1.0 + 2f64.powi(-11) + 2f64.powi(-40), 1.0 + 2f64.powi(-8) + 2f64.powi(-40)];
        values.extend([
            round_to(from, 0.1),
            round_to(from, 1.0 + 2f64.powi(-9)),
            round_to(from, above_ties[0]),
            round_to(from, above_ties[1]),
            0.0,
        ]);
        let tensor = Tensor::from_f64(values.clone(), &[2, 35], from).unwrap().with_valid_shape(Some(vec![1, 35]));
        for to in ALL_DTYPES {
            let got = tensor.cast(to).unwrap();
            assert_eq!((got.dtype(), got.shape(), got.valid_shape()), (to, &[2, 35][..], Some(&[1, 35][..])));
            let expected: Vec<f64> = values.iter().map(|&v| round_to(to, v)).collect();
            assert_exact(&format!("cast {from} → {to}"), &got.to_f64_vec(), &expected);
        }
    }
}
