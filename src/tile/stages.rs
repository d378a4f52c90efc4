//! Stage split (DESIGN §3.1 steps 3 and 4): a unit that mixes matmuls with vector steps and does
//! not fit UB whole is cut at every change between cube and vector work into stage units, joined
//! through GM workspaces, as flash attention runs on a split 910B (the cube core writes `q·kᵀ` to
//! a workspace, the vector cores read it back tile by tile, and the cube core reads their `p`).
//!
//! Each stage is then an ordinary unit: a cube stage is cut by the cube tile (one task per output
//! cell), a vector stage by the vec tile (its reductions joined across cells), so a `[128, 8192]`
//! f32 score row is never one UB tile. A value made in one stage and read in a later one is stored
//! to a workspace tensor of its own shape right after it is made and loaded where it is read; a
//! loaded value is simply loaded again by every stage that reads it. The workspaces are returned
//! so that the lowering orders each task's loads of them after the tasks that stored what they
//! read (cross-core flags, see `lower::stage_flags`).

use std::collections::{HashMap, HashSet};

use super::program::{GmRegion, GmTensor, TensorId};
use super::work::{LocatedStep, ValueId, WorkStep, WorkUnit};

/// Whether a step runs on the cube (a matmul) or the vector unit; loads and stores follow data.
fn is_cube(step: &WorkStep) -> bool {
    matches!(step, WorkStep::Matmul { .. })
}

/// The stage of every step: the count of cube/vector changes before it among the computing steps.
/// A store belongs to the stage of the value it stores; a load to none (each stage loads its own).
fn stage_of_steps(unit: &WorkUnit) -> Vec<Option<usize>> {
    let mut producer_stage: HashMap<ValueId, usize> = HashMap::new();
    let mut stages = Vec::with_capacity(unit.steps.len());
    let (mut current, mut kind) = (0usize, None::<bool>);
    for located in &unit.steps {
        let stage = match &located.step {
            WorkStep::Load { .. } => None,
            WorkStep::Store { input, .. } => Some(producer_stage.get(input).copied().unwrap_or(current)),
            step => {
                let cube = is_cube(step);
                if kind.is_some_and(|known| known != cube) {
                    current += 1;
                }
                kind = Some(cube);
                if let Some(output) = step.output() {
                    producer_stage.insert(output, current);
                }
                Some(current)
            }
        };
        stages.push(stage);
    }
    stages
}

/// Vector steps whose values do not share their stage's iteration space (flash attention's
/// `α·o_old`, [128, 128], written before `p·v` beside the [128, 512] scores) move to the next vector
/// stage when the cube stage in between does not read them, so one vec-tile grid covers each stage.
/// Their consumers in the stage move with them; the stage's largest value sets the space.
fn defer_mismatched(unit: &WorkUnit, stages: &mut [Option<usize>]) {
    let count = stages.iter().flatten().max().map_or(0, |last| last + 1);
    let computes = |step: &WorkStep| !matches!(step, WorkStep::Load { .. } | WorkStep::Store { .. });
    for stage in 0..count.saturating_sub(2) {
        let steps: Vec<usize> = (0..unit.steps.len())
            .filter(|&index| stages[index] == Some(stage) && computes(&unit.steps[index].step))
            .collect();
        if steps.iter().any(|&index| is_cube(&unit.steps[index].step)) {
            continue;
        }
        let shape = |value: &ValueId| &unit.values[value.0 as usize].shape;
        let touched = steps.iter().flat_map(|&index| {
            let (reads, written) = unit.steps[index].step.values();
            reads.into_iter().chain(written)
        });
        let Some(space) =
            touched.max_by_key(|value| shape(value).iter().product::<usize>()).map(|value| shape(&value).clone())
        else {
            continue;
        };
        let fits = |value: &ValueId| {
            let size = shape(value);
            size.len() == space.len() && size.iter().zip(&space).all(|(&size, &full)| size == 1 || size == full)
        };
        let mut moved: HashSet<ValueId> = HashSet::new();
        let mut moving = Vec::new();
        for &index in &steps {
            let (reads, written) = unit.steps[index].step.values();
            if reads.iter().chain(&written).any(|value| !fits(value) || moved.contains(value)) {
                moved.extend(written);
                moving.push(index);
            }
        }
        let read_by_cube = (0..unit.steps.len()).any(|index| {
            stages[index] == Some(stage + 1)
                && unit.steps[index].step.values().0.iter().any(|value| moved.contains(value))
        });
        if moving.is_empty() || read_by_cube {
            continue;
        }
        for index in moving {
            stages[index] = Some(stage + 2);
        }
        for (index, located) in unit.steps.iter().enumerate() {
            if let WorkStep::Store { input, .. } = &located.step {
                if moved.contains(input) {
                    stages[index] = Some(stage + 2);
                }
            }
        }
    }
}

/// One stage unit under construction: original value ids renamed to its own.
struct Stage {
    unit: WorkUnit,
    renamed: HashMap<ValueId, ValueId>,
}

impl Stage {
    fn fresh(&mut self, source: &WorkUnit, original: ValueId) -> ValueId {
        self.unit.values.push(source.values[original.0 as usize].clone());
        let id = ValueId(self.unit.values.len() as u32 - 1);
        self.renamed.insert(original, id);
        id
    }

    fn push(&mut self, step: WorkStep, line: Option<u32>) {
        self.unit.steps.push(LocatedStep { step, line });
    }
}

/// The stage units of `unit` (in the order they run) and the workspace tensors joining them
/// (appended to `tensors`, named after the kernel `name`), or `None` when the unit has only one
/// kind of work (nothing to split).
pub(super) fn split_stages(
    name: &str,
    unit: &WorkUnit,
    tensors: &mut Vec<GmTensor>,
) -> Option<(Vec<WorkUnit>, Vec<TensorId>)> {
    let mut stage_of = stage_of_steps(unit);
    defer_mismatched(unit, &mut stage_of);
    let count = stage_of.iter().flatten().max().map_or(0, |last| last + 1);
    if count < 2 {
        return None;
    }
    let mut producer: HashMap<ValueId, usize> = HashMap::new();
    let mut read_in: HashMap<ValueId, Vec<usize>> = HashMap::new();
    for (index, located) in unit.steps.iter().enumerate() {
        let (reads, written) = located.step.values();
        if let Some(value) = written {
            producer.insert(value, index);
        }
        if let Some(stage) = stage_of[index] {
            reads.into_iter().for_each(|value| read_in.entry(value).or_default().push(stage));
        }
    }
    let mut stages: Vec<Stage> = (0..count)
        .map(|_| Stage {
            unit: WorkUnit { vec_tile: unit.vec_tile.clone(), ..WorkUnit::default() },
            renamed: HashMap::new(),
        })
        .collect();
    let mut workspaces: HashMap<ValueId, GmRegion> = HashMap::new();
    let mut created = Vec::new();
    for (index, located) in unit.steps.iter().enumerate() {
        let Some(stage) = stage_of[index] else { continue };
        let (reads, written) = located.step.values();
        for value in reads {
            if stages[stage].renamed.contains_key(&value) {
                continue;
            }
            let made_by = &unit.steps[producer[&value]];
            let region = match &made_by.step {
                WorkStep::Load { region, .. } => region.clone(),
                _ => workspaces.get(&value).cloned().expect("a value read in a later stage was stored when made"),
            };
            let output = stages[stage].fresh(unit, value);
            stages[stage].push(WorkStep::Load { region, output }, made_by.line);
        }
        let mut step = located.step.clone();
        rename(&mut step, &stages[stage].renamed);
        if let Some(value) = written {
            let output = stages[stage].fresh(unit, value);
            set_output(&mut step, output);
        }
        stages[stage].push(step, located.line);
        let Some(value) = written else { continue };
        if read_in.get(&value).is_some_and(|readers| readers.iter().any(|&reader| reader != stage)) {
            let tile = &unit.values[value.0 as usize];
            let tensor = TensorId(tensors.len() as u32);
            tensors.push(GmTensor {
                name: format!("{name}_stage{}", tensor.0),
                shape: tile.shape.to_vec(),
                dtype: tile.dtype,
            });
            created.push(tensor);
            let region = GmRegion {
                tensor,
                offsets: crate::tile::Dims::filled(0, tile.shape.len()),
                shape: tile.valid_shape.clone(),
            };
            let input = stages[stage].renamed[&value];
            stages[stage].push(WorkStep::Store { input, region: region.clone(), accumulate: false }, located.line);
            workspaces.insert(value, region);
        }
    }
    Some((stages.into_iter().map(|stage| stage.unit).collect(), created))
}

fn rename(step: &mut WorkStep, renamed: &HashMap<ValueId, ValueId>) {
    super::memory::rename_reads(step, renamed);
}

pub(super) fn set_output(step: &mut WorkStep, fresh: ValueId) {
    match step {
        WorkStep::Load { output, .. }
        | WorkStep::Unary { output, .. }
        | WorkStep::Binary { output, .. }
        | WorkStep::Clip { output, .. }
        | WorkStep::Reduce { output, .. }
        | WorkStep::Cast { output, .. }
        | WorkStep::Matmul { output, .. }
        | WorkStep::Vector { output, .. } => *output = fresh,
        WorkStep::Store { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{DType, ReduceOp, UnaryOp};
    use crate::tile::TileValue;

    fn value(shape: &[usize], dtype: DType) -> TileValue {
        TileValue { shape: crate::tile::Dims::from(shape), valid_shape: crate::tile::Dims::from(shape), dtype }
    }

    fn region(tensor: u32, shape: &[usize]) -> GmRegion {
        GmRegion {
            tensor: TensorId(tensor),
            offsets: crate::tile::Dims::filled(0, shape.len()),
            shape: crate::tile::Dims::from(shape),
        }
    }

    #[test]
    fn a_matmul_feeding_a_softmax_feeding_a_matmul_becomes_three_stages_joined_through_gm() {
        // s = q·kᵀ; m = rowmax s; e = exp(s); p = fp16(e); o = p·v; store o. Stages: [matmul s],
        // [max, exp, cast], [matmul o]. s crosses 0 → 1 and p crosses 1 → 2: two workspaces. m is
        // read in its own stage only; q, k, v are loaded again by the stage that reads them.
        let unit = WorkUnit {
            values: vec![
                value(&[128, 128], DType::F16),  // 0 q
                value(&[1024, 128], DType::F16), // 1 k
                value(&[128, 1024], DType::F32), // 2 s
                value(&[128, 1], DType::F32),    // 3 m
                value(&[128, 1024], DType::F32), // 4 e
                value(&[128, 1024], DType::F16), // 5 p
                value(&[1024, 128], DType::F16), // 6 v
                value(&[128, 128], DType::F32),  // 7 o
            ],
            steps: [
                WorkStep::Load { region: region(0, &[128, 128]), output: ValueId(0) },
                WorkStep::Load { region: region(1, &[1024, 128]), output: ValueId(1) },
                WorkStep::Matmul {
                    a: ValueId(0),
                    b: ValueId(1),
                    a_transposed: false,
                    b_transposed: true,
                    output: ValueId(2),
                },
                WorkStep::Reduce { op: ReduceOp::Amax, input: ValueId(2), dims: vec![1], output: ValueId(3) },
                WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(2), output: ValueId(4) },
                WorkStep::Cast { input: ValueId(4), output: ValueId(5) },
                WorkStep::Load { region: region(2, &[1024, 128]), output: ValueId(6) },
                WorkStep::Matmul {
                    a: ValueId(5),
                    b: ValueId(6),
                    a_transposed: false,
                    b_transposed: false,
                    output: ValueId(7),
                },
                WorkStep::Store { input: ValueId(7), region: region(3, &[128, 128]), accumulate: false },
            ]
            .into_iter()
            .map(|step| LocatedStep { step, line: Some(1) })
            .collect(),
            vec_tile: None,
        };
        let mut tensors = vec![GmTensor { name: "x".into(), shape: vec![1], dtype: DType::F16 }; 4];
        let (stages, workspaces) = split_stages("fa", &unit, &mut tensors).expect("split");
        assert_eq!(stages.len(), 3);
        assert_eq!(workspaces, vec![TensorId(4), TensorId(5)]);
        assert_eq!((tensors[4].shape.clone(), tensors[4].dtype), (vec![128, 1024], DType::F32));
        assert_eq!((tensors[5].shape.clone(), tensors[5].dtype), (vec![128, 1024], DType::F16));
        let kinds = |stage: &WorkUnit| {
            stage
                .steps
                .iter()
                .map(|located| match &located.step {
                    WorkStep::Load { region, .. } => format!("load {}", region.tensor.0),
                    WorkStep::Store { region, .. } => format!("store {}", region.tensor.0),
                    WorkStep::Matmul { .. } => "matmul".into(),
                    WorkStep::Reduce { .. } => "reduce".into(),
                    WorkStep::Unary { .. } => "exp".into(),
                    WorkStep::Cast { .. } => "cast".into(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(&stages[0]), ["load 0", "load 1", "matmul", "store 4"]);
        assert_eq!(kinds(&stages[1]), ["load 4", "reduce", "exp", "cast", "store 5"]);
        assert_eq!(kinds(&stages[2]), ["load 5", "load 2", "matmul", "store 3"]);
        // Each stage has only its own values, so the vec-tile grid of stage 1 spans [128, 1024].
        assert_eq!(stages[1].values.len(), 4);
        assert_eq!(stages[2].values.len(), 3);
    }

    #[test]
    fn a_unit_of_one_kind_is_not_split() {
        let unit = WorkUnit {
            values: vec![value(&[16, 16], DType::F16); 2],
            steps: vec![
                LocatedStep { step: WorkStep::Load { region: region(0, &[16, 16]), output: ValueId(0) }, line: None },
                LocatedStep {
                    step: WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(0), output: ValueId(1) },
                    line: None,
                },
            ],
            vec_tile: None,
        };
        assert!(split_stages("k", &unit, &mut Vec::new()).is_none());
    }
}
