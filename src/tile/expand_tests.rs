//! Tile expansion: the first tasks of a unit are the prefix of all of them.

use super::*;
use crate::tensor::DType;
use crate::tile::{GmTensor, TileValue, WorkSettings};

#[test]
fn the_first_tasks_are_the_prefix_of_all_tasks() {
    // exp over a [40, 100] f32 tensor in [8, 64] tiles: 5 × 2 tasks, the last column ragged.
    let value = TileValue { shape: [40, 100].into(), valid_shape: [40, 100].into(), dtype: DType::F32 };
    let unit = crate::tile::work::exp_unit(&[0, 0], &[40, 100], value, None);
    let tensor = |name: &str| GmTensor { name: name.into(), shape: vec![40, 100], dtype: DType::F32 };
    let work = TileWork {
        name: "exp".into(),
        tensors: vec![tensor("x"), tensor("y")],
        views: Vec::new(),
        ordered: Vec::new(),
        units: vec![unit.clone()],
        settings: WorkSettings { vec_tile: Some(vec![8, 64]), ..WorkSettings::default() },
    };
    let all = expand_unit_tasks(&work, &unit).unwrap();
    assert_eq!(all.len(), 10);
    for limit in [0, 1, 2, 9, 10, 11] {
        assert_eq!(expand_first_tasks(&work, &unit, limit).unwrap(), all[..limit.min(10)].to_vec(), "limit {limit}");
    }
}
