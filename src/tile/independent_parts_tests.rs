use super::*;
use crate::tensor::{DType, UnaryOp};
use crate::tile::{Dims, GmRegion, TileValue};

fn value(shape: &[usize], dtype: DType) -> TileValue {
    TileValue { shape: Dims::from(shape), valid_shape: Dims::from(shape), dtype }
}

fn region(tensor: u32, shape: &[usize]) -> GmRegion {
    GmRegion { tensor: TensorId(tensor), offsets: Dims::filled(0, shape.len()), shape: Dims::from(shape) }
}

/// A row block copied to tensor 2 (values 0, 1) beside heads doubled into tensor 3 (values 2, 3),
/// their steps interleaved; `heads_from` is the tensor the heads are loaded from.
fn two_chains(heads_from: u32) -> WorkUnit {
    let steps = [
        WorkStep::Load { region: region(0, &[8, 5120]), output: ValueId(0) },
        WorkStep::Load { region: region(heads_from, &[8, 12, 128]), output: ValueId(2) },
        WorkStep::Cast { input: ValueId(0), output: ValueId(1) },
        WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(2), output: ValueId(3) },
        WorkStep::Store { input: ValueId(1), region: region(2, &[8, 5120]), accumulate: false },
        WorkStep::Store { input: ValueId(3), region: region(3, &[8, 12, 128]), accumulate: false },
    ];
    WorkUnit {
        values: vec![
            value(&[8, 5120], DType::F32),
            value(&[8, 5120], DType::Bf16),
            value(&[8, 12, 128], DType::F32),
            value(&[8, 12, 128], DType::F32),
        ],
        steps: steps
            .into_iter()
            .enumerate()
            .map(|(line, step)| LocatedStep { step, line: Some(line as u32) })
            .collect(),
        vec_tile: Some(vec![4, 12, 128]),
    }
}

#[test]
fn chains_sharing_no_value_and_no_written_tensor_become_parts_with_their_own_values() {
    let parts = independent_parts(&two_chains(1), &[]).expect("two parts");
    assert_eq!(parts.len(), 2);
    let lines = |part: &WorkUnit| part.steps.iter().map(|located| located.line.unwrap()).collect::<Vec<_>>();
    assert_eq!(lines(&parts[0]), [0, 2, 4]);
    assert_eq!(lines(&parts[1]), [1, 3, 5]);
    // The heads' part numbers its values from 0: load → 0, exp 0 → 1, store 1.
    let heads = &parts[1];
    assert_eq!(heads.values.iter().map(|value| value.shape.to_vec()).collect::<Vec<_>>(), vec![vec![8, 12, 128]; 2]);
    assert!(matches!(heads.steps[1].step, WorkStep::Unary { input: ValueId(0), output: ValueId(1), .. }));
    assert!(matches!(heads.steps[2].step, WorkStep::Store { input: ValueId(1), .. }));
    assert!(parts.iter().all(|part| part.vec_tile == Some(vec![4, 12, 128])));
}

#[test]
fn a_chain_reading_what_another_writes_stays_with_it() {
    // The heads are loaded from tensor 2, which the row block's store writes.
    assert!(independent_parts(&two_chains(2), &[]).is_none());
    // Tensor 5 is a reshape of tensor 2: the same memory.
    let view = GmView { tensor: TensorId(5), base: TensorId(2), order: None, rows: None };
    assert!(independent_parts(&two_chains(5), &[view]).is_none());
}
