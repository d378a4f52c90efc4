//! Why the tile compiler's lowering refused tile work it was given (`TileError`): the reason inside
//! the CPU-fallback warning (`npu.fallback.lowering`), typed by meaning (a tile setting it cannot
//! use, a reduction split across vec tiles, a malformed unit) so the page renders it in its language.
//! Most are faults of the compiler itself (the recorder never builds such work); the tile settings
//! and reductions across vec tiles are a script's.

use serde::Serialize;

/// A reason the lowering refused tile work.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LoweringReason {
    /// `set_cube_tile_shapes` with a level-1 tile that is not a positive multiple of its level-0 tile.
    #[serde(rename = "npu.lowering.cube_tile_multiple")]
    CubeTileMultiple {
        /// `m`, `k` or `n`.
        dim: String,
        /// The level-1 (L1) extent.
        level1: usize,
        /// The level-0 (L0) extent.
        level0: usize,
    },
    /// A reduction whose reduced dim is split across vec tiles.
    #[serde(rename = "npu.lowering.reduce_across_tiles")]
    ReduceAcrossTiles {
        /// The reduction.
        op: String,
    },
    /// A matmul with an empty dimension.
    #[serde(rename = "npu.lowering.empty_matmul")]
    EmptyMatmul {
        /// Rows of the result.
        m: usize,
        /// The contracted dim.
        k: usize,
        /// Columns of the result.
        n: usize,
    },
    /// A matmul operand computed in UB with no GM workspace planned for it.
    #[serde(rename = "npu.lowering.no_workspace")]
    NoWorkspace {
        /// The value.
        value: u32,
    },
    /// A workspace store of a split matmul that ends outside its last block.
    #[serde(rename = "npu.lowering.workspace_outside")]
    WorkspaceOutside,
    /// A buffer the program does not declare.
    #[serde(rename = "npu.lowering.unknown_buffer")]
    UnknownBuffer {
        /// The buffer's number.
        buffer: u32,
    },
    /// An operand in a memory the instruction cannot read or write.
    #[serde(rename = "npu.lowering.operand_memory")]
    OperandMemory {
        /// The memory it is in.
        found: String,
        /// The memories the instruction takes.
        allowed: Vec<String>,
    },
    /// A copy to GM from a memory no pipe copies out of.
    #[serde(rename = "npu.lowering.no_copy_out")]
    NoCopyOut {
        /// The source memory.
        memory: String,
    },
    /// A move between memories no pipe connects.
    #[serde(rename = "npu.lowering.no_move")]
    NoMove {
        /// The source memory.
        from: String,
        /// The destination memory.
        to: String,
    },
    /// A transposing move between memories no pipe connects (only L1 → L0A/L0B transposes).
    #[serde(rename = "npu.lowering.no_transposed_move")]
    NoTransposedMove {
        /// The source memory.
        from: String,
        /// The destination memory.
        to: String,
    },
    /// A malformed step of a unit.
    #[serde(rename = "npu.lowering.step")]
    Step {
        /// The unit.
        unit: usize,
        /// The step's position in the unit.
        step: usize,
        /// What is wrong with it.
        fault: StepFault,
    },
    /// A value read before the phase of the expansion that makes it.
    #[serde(rename = "npu.lowering.read_before_phase")]
    ReadBeforePhase {
        /// The value.
        value: u32,
    },
    /// A value the expansion should have made and did not.
    #[serde(rename = "npu.lowering.recomputed_value")]
    RecomputedValue,
    /// A load with nothing valid in a cell of the tile grid that other loads fill.
    #[serde(rename = "npu.lowering.empty_load")]
    EmptyLoad,
    /// A step the expansion cannot split into tiles.
    #[serde(rename = "npu.lowering.unsplittable")]
    Unsplittable,
}

/// What is wrong with one step of a unit (the unit's own bookkeeping, checked before lowering it).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum StepFault {
    /// A value the unit does not have.
    #[serde(rename = "npu.step.missing_value")]
    MissingValue {
        /// The value.
        value: u32,
        /// How many values the unit has.
        count: usize,
    },
    /// A value read before any step produced it.
    #[serde(rename = "npu.step.read_before_produced")]
    ReadBeforeProduced {
        /// The value.
        value: u32,
    },
    /// A value produced by two steps.
    #[serde(rename = "npu.step.produced_twice")]
    ProducedTwice {
        /// The value.
        value: u32,
    },
    /// A GM tensor the work does not have.
    #[serde(rename = "npu.step.missing_tensor")]
    MissingTensor {
        /// The tensor's number.
        tensor: u32,
    },
    /// A GM region whose rank is not its tile's.
    #[serde(rename = "npu.step.region_rank")]
    RegionRank {
        /// The tensor.
        name: String,
        /// The region's rank.
        rank: usize,
        /// The tile's shape.
        tile: Vec<usize>,
        /// The tile's rank.
        tile_rank: usize,
    },
    /// A GM region larger than its tile.
    #[serde(rename = "npu.step.region_larger")]
    RegionLarger {
        /// The tensor.
        name: String,
        /// The region's shape.
        region: Vec<usize>,
        /// The tile's shape.
        tile: Vec<usize>,
    },
    /// A matmul operand that is not a 2-D tile.
    #[serde(rename = "npu.step.matmul_operand_rank")]
    MatmulOperandRank {
        /// The operand's shape.
        shape: Vec<usize>,
    },
    /// A matmul operand that is another matmul's result (it lives in L0C, not where the cube reads).
    #[serde(rename = "npu.step.matmul_of_matmul")]
    MatmulOfMatmul {
        /// The operand's value.
        value: u32,
    },
    /// A binary step of two numbers.
    #[serde(rename = "npu.step.numbers_only")]
    NumbersOnly,
    /// A reduction over a dim the tile does not have.
    #[serde(rename = "npu.step.reduce_dim")]
    ReduceDim {
        /// The dim.
        dim: usize,
        /// The tile's rank.
        rank: usize,
    },
}

impl LoweringReason {
    /// The reason in English.
    pub fn english(&self) -> String {
        use LoweringReason::*;
        match self {
            CubeTileMultiple { dim, level1, level0 } => {
                format!("{dim}L1 = {level1} must be a positive multiple of {dim}L0 = {level0}")
            }
            ReduceAcrossTiles { op } => {
                format!("`{op}` across vec tiles (set a vec tile that holds the reduced dim whole)")
            }
            EmptyMatmul { m, k, n } => format!("an empty dimension: M = {m}, K = {k}, N = {n}"),
            NoWorkspace { value } => format!("no workspace planned for value {value}"),
            WorkspaceOutside => "a stage workspace store ends outside the matmul's last block".into(),
            UnknownBuffer { buffer } => format!("unknown buffer {buffer}"),
            OperandMemory { found, allowed } => {
                format!("operand lives in {found} but this op needs one of [{}]", allowed.join(", "))
            }
            NoCopyOut { memory } => format!("no pipe copies {memory} to GM (use UB or L0C)"),
            NoMove { from, to } => format!("no pipe moves {from} → {to}"),
            NoTransposedMove { from, to } => {
                format!("no pipe moves {from} → {to} transposed (only L1 → L0A/L0B)")
            }
            Step { unit, step, fault } => format!("unit {unit}, step {step}: {}", fault.english()),
            ReadBeforePhase { value } => format!("value {value} is read before its phase"),
            RecomputedValue => "a recomputed value".into(),
            EmptyLoad => "a load with nothing valid in a cell that other loads fill".into(),
            Unsplittable => "a step the expansion cannot split".into(),
        }
    }
}

impl StepFault {
    /// The fault in English.
    pub fn english(&self) -> String {
        use StepFault::*;
        match self {
            MissingValue { value, count } => format!("value {value} does not exist (the unit has {count})"),
            ReadBeforeProduced { value } => format!("reads value {value} before any step produced it"),
            ProducedTwice { value } => format!("value {value} is produced twice"),
            MissingTensor { tensor } => format!("tensor {tensor} does not exist"),
            RegionRank { name, rank, tile, tile_rank } => {
                format!("the region of '{name}' has rank {rank} but the tile {tile:?} has rank {tile_rank}")
            }
            RegionLarger { name, region, tile } => {
                format!("the region {region:?} of '{name}' is larger than the tile {tile:?}")
            }
            MatmulOperandRank { shape } => format!("matmul operands are 2-D tiles, got {shape:?}"),
            MatmulOfMatmul { value } => format!(
                "matmul operand {value} is another matmul's result; pass it through a vector step (e.g. a cast) or GM"
            ),
            NumbersOnly => "a binary step needs at least one tile operand".into(),
            ReduceDim { dim, rank } => format!("reduces dim {dim} of a {rank}-D tile"),
        }
    }
}
