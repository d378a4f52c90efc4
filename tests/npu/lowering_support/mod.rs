//! Shared helpers of the lowering tests: building `TileWork` by hand, running it through
//! `lower_work` → `npu::simulate` / `npu::execute`, and the checks every simulation must pass.
#![allow(dead_code)]

use std::collections::BTreeMap;

use tilelab::npu::{allocate_gm, execute, simulate, NpuConfig, Simulation};
use tilelab::tensor::{BinaryOp, DType, SliceSpec, Tensor, UnaryOp};
use tilelab::tile::{
    lower_work, GmRegion, GmTensor, KernelPlan, LocatedStep, LoweringTarget, TensorId, TileValue, TileWork, ValueId,
    WorkSettings, WorkStep, WorkUnit,
};

/// The lowering target of a preset, as the language derives it.
pub fn target(config: &NpuConfig) -> LoweringTarget {
    tilelab::npu::lowering_target(config)
}

/// A GM tensor declaration.
pub fn tensor(name: &str, shape: &[usize], dtype: DType) -> GmTensor {
    GmTensor { name: name.into(), shape: shape.to_vec(), dtype }
}

/// Settings with `buffers`-fold UB buffering and the tile-shape lines 7 (vec) and 8 (cube).
pub fn settings(buffers: usize, cube_tiles: Option<tilelab::tile::CubeTiles>) -> WorkSettings {
    WorkSettings {
        vec_buffers: buffers,
        cube_buffers: 2,
        vec_tile: None,
        cube_tiles,
        vec_tile_line: Some(7),
        cube_tile_line: Some(8),
        ..WorkSettings::default()
    }
}

/// Builds one unit step by step; every step gets a distinct source line (20, 21, …).
#[derive(Default)]
pub struct UnitBuilder {
    /// The unit so far.
    pub unit: WorkUnit,
}

impl UnitBuilder {
    /// A new value of full `shape`, valid part `valid`.
    pub fn value(&mut self, shape: &[usize], valid: &[usize], dtype: DType) -> ValueId {
        self.unit.values.push(TileValue {
            shape: tilelab::tile::Dims::from(shape),
            valid_shape: tilelab::tile::Dims::from(valid),
            dtype,
        });
        ValueId(self.unit.values.len() as u32 - 1)
    }

    /// Appends a step at the next line.
    pub fn step(&mut self, step: WorkStep) {
        let line = Some(20 + self.unit.steps.len() as u32);
        self.unit.steps.push(LocatedStep { step, line });
    }

    /// Loads `valid` elements at `offsets` of tensor `tensor` into a tile of `shape`.
    pub fn load(&mut self, tensor: u32, offsets: &[usize], shape: &[usize], valid: &[usize], dtype: DType) -> ValueId {
        let output = self.value(shape, valid, dtype);
        self.step(WorkStep::Load { region: region(tensor, offsets, valid), output });
        output
    }

    /// A value of the same shapes as `like` in `dtype`.
    pub fn like(&mut self, like: ValueId, dtype: DType) -> ValueId {
        let tile = self.unit.values[like.0 as usize].clone();
        self.value(&tile.shape, &tile.valid_shape, dtype)
    }

    /// Stores the valid part of `input` at `offsets` of tensor `tensor`.
    pub fn store(&mut self, input: ValueId, tensor: u32, offsets: &[usize], accumulate: bool) {
        let valid = self.unit.values[input.0 as usize].valid_shape.clone();
        self.step(WorkStep::Store { input, region: region(tensor, offsets, &valid), accumulate });
    }
}

/// A GM region.
pub fn region(tensor: u32, offsets: &[usize], shape: &[usize]) -> GmRegion {
    GmRegion {
        tensor: TensorId(tensor),
        offsets: tilelab::tile::Dims::from(offsets),
        shape: tilelab::tile::Dims::from(shape),
    }
}

/// The 2-D tiles `(offsets, valid)` of a `shape` tensor in `tile` tiles, row-major.
pub fn tiles_2d(shape: [usize; 2], tile: [usize; 2]) -> Vec<([usize; 2], [usize; 2])> {
    let mut tiles = Vec::new();
    for row in (0..shape[0]).step_by(tile[0]) {
        for column in (0..shape[1]).step_by(tile[1]) {
            tiles.push(([row, column], [tile[0].min(shape[0] - row), tile[1].min(shape[1] - column)]));
        }
    }
    tiles
}

/// Fills GM tensor `index` with seeded normal values (rounded to its dtype) and returns them in f64.
pub fn fill(gm: &[Tensor], index: usize, seed: u64) -> Vec<f64> {
    let values = Tensor::randn(gm[index].shape(), gm[index].dtype(), Some(seed)).unwrap();
    let specs: Vec<SliceSpec> = gm[index].shape().iter().map(|&size| SliceSpec::full(size)).collect();
    gm[index].assign_slice(&specs, &values).unwrap();
    gm[index].to_f64_vec()
}

/// Lowers `work` for `preset`, checks the simulation (see [`check_simulation`]) and returns the
/// plan, the simulation and zeroed GM tensors to fill.
pub fn lower_and_simulate(work: &TileWork, preset: &str) -> (KernelPlan, Simulation, Vec<Tensor>) {
    let config = NpuConfig::preset(preset).unwrap();
    let plan = lower_work(work, &target(&config)).unwrap();
    let simulation = simulate(&plan, &config).unwrap_or_else(|error| panic!("simulate on {preset}: {error}"));
    check_simulation(&simulation, plan.programs.iter().map(|program| program.instructions.len()).sum());
    let gm = allocate_gm(&plan).unwrap();
    (plan, simulation, gm)
}

/// Runs the values after the inputs were filled.
pub fn run_values(plan: &KernelPlan, gm: &[Tensor]) {
    execute(plan, gm).unwrap_or_else(|error| panic!("execute: {error}"));
}

/// Every instruction ran once, events of one pipe of one core never overlap (the queue is in
/// order and runs one instruction at a time), and every event carries its step's source line.
pub fn check_simulation(simulation: &Simulation, instructions: usize) {
    let events = &simulation.trace.events;
    assert_eq!(events.len(), instructions, "one event per instruction");
    let mut per_queue: BTreeMap<(u32, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for event in events {
        assert!(event.source_line.is_some(), "event {} on {:?} has no source line", event.op, event.pipe);
        assert!(event.end >= event.start);
        per_queue.entry((event.core, event.pipe.index())).or_default().push((event.start, event.end));
    }
    for ((core, pipe), mut spans) in per_queue {
        spans.sort_by(|left, right| left.0.total_cmp(&right.0));
        for pair in spans.windows(2) {
            assert!(pair[1].0 >= pair[0].1 - 1e-9, "core {core} pipe {pipe}: {:?} overlaps {:?}", pair[0], pair[1]);
        }
    }
}

/// `|actual − expected| ≤ tolerance(expected)` element by element.
pub fn assert_close(name: &str, actual: &[f64], expected: &[f64], tolerance: impl Fn(usize, f64) -> f64) {
    assert_eq!(actual.len(), expected.len(), "{name}: lengths");
    for (index, (got, want)) in actual.iter().zip(expected).enumerate() {
        let bound = tolerance(index, *want);
        assert!((got - want).abs() <= bound, "{name}[{index}]: got {got}, expected {want} (±{bound})");
    }
}

/// One step of an element-wise chain, applied to the running value (which starts as input 0).
#[derive(Clone, Copy, Debug)]
pub enum Chain {
    /// `value = op(value)`
    Unary(UnaryOp),
    /// `value = op(value, inputs[index])`
    Binary(BinaryOp, usize),
}

/// `y = chain(inputs)` over whole tensors of one shape as one unit, as a kernel without loops
/// captures it (each step computes in `dtype`); the compiler expands it by the vec tile `tile`
/// and spreads the tiles over the cores. `y` is the last GM tensor; every step is at `line`.
pub fn chain_work(
    inputs: &[GmTensor],
    steps: &[Chain],
    dtype: DType,
    tile: [usize; 2],
    buffers: usize,
    line: Option<u32>,
) -> TileWork {
    let shape = inputs[0].shape.clone();
    let mut unit = UnitBuilder::default();
    let loaded: Vec<ValueId> =
        (0..inputs.len()).map(|index| unit.load(index as u32, &vec![0; shape.len()], &shape, &shape, dtype)).collect();
    let mut value = loaded[0];
    for step in steps {
        let output = unit.like(value, dtype);
        unit.step(match *step {
            Chain::Unary(op) => WorkStep::Unary { op, input: value, output },
            Chain::Binary(op, index) => WorkStep::Binary {
                op,
                lhs: tilelab::tile::WorkOperand::Tile(value),
                rhs: tilelab::tile::WorkOperand::Tile(loaded[index]),
                output,
            },
        });
        value = output;
    }
    unit.store(value, inputs.len() as u32, &vec![0; shape.len()], false);
    for step in &mut unit.unit.steps {
        step.line = line;
    }
    let mut tensors = inputs.to_vec();
    tensors.push(tensor("y", &shape, dtype));
    let settings = WorkSettings {
        vec_buffers: buffers,
        vec_tile: Some(tile.to_vec()),
        vec_tile_line: line,
        ..WorkSettings::default()
    };
    TileWork { name: "chain".into(), tensors, views: Vec::new(), ordered: Vec::new(), units: vec![unit.unit], settings }
}

/// Lowers `work` for `config` (the programs a script's kernel call would run).
pub fn compiled(work: &TileWork, config: &NpuConfig) -> KernelPlan {
    lower_work(work, &target(config)).unwrap_or_else(|error| panic!("lower {}: {error}", work.name))
}
