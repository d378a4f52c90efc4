//! The typed details of [`super::NpuCheckMessage`]'s configuration, program and run errors.

use serde::Serialize;

pub use super::json_problem::JsonProblem;
use super::Message;

/// What is wrong with a configuration field.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ConfigDetail {
    /// Text that is not JSON: where the parser stopped and what it met there.
    #[serde(rename = "npu.config.not_json")]
    NotJson {
        /// What is wrong there.
        problem: JsonProblem,
        /// 1-based line of the text.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// JSON that is not an object.
    #[serde(rename = "npu.config.not_an_object")]
    NotAnObject,
    /// A field no preset has.
    #[serde(rename = "npu.config.unknown_field")]
    UnknownField,
    /// A field left out.
    #[serde(rename = "npu.config.missing_field")]
    MissingField,
    /// The JSON decoder's own complaint (`text` stays its English).
    #[serde(rename = "npu.config.decoder")]
    Decoder {
        /// The decoder's message.
        text: String,
    },
    /// A name that is empty or longer than 64 characters.
    #[serde(rename = "npu.config.name")]
    Name {
        /// The value given, as JSON.
        got: String,
    },
    /// An architecture other than Split or Coupled.
    #[serde(rename = "npu.config.architecture")]
    Architecture {
        /// The value given, as JSON.
        got: String,
    },
    /// An integer field outside its range.
    #[serde(rename = "npu.config.whole_number")]
    WholeNumber {
        /// The least value.
        min: u64,
        /// The greatest value.
        max: u64,
        /// The value given, as JSON.
        got: String,
    },
    /// A field that must be a power of two up to a limit.
    #[serde(rename = "npu.config.power_of_two_up_to")]
    PowerOfTwoUpTo {
        /// The greatest value.
        max: u64,
        /// The value given, as JSON.
        got: String,
    },
    /// A rate outside `(0, max]`.
    #[serde(rename = "npu.config.rate")]
    Rate {
        /// The greatest value, as printed.
        max: String,
        /// The value given, as JSON.
        got: String,
    },
    /// A rate that is not a positive finite number.
    #[serde(rename = "npu.config.positive_rate")]
    PositiveRate {
        /// The value, as printed.
        got: String,
    },
    /// A cycle count outside `[0, max]`.
    #[serde(rename = "npu.config.cycles")]
    Cycles {
        /// The greatest value, as printed.
        max: String,
        /// The value given, as printed.
        got: String,
    },
    /// A number that must be finite and at least 0.
    #[serde(rename = "npu.config.non_negative")]
    NonNegative {
        /// The value given, as printed.
        got: String,
    },
    /// A size of 0.
    #[serde(rename = "npu.config.at_least_one")]
    AtLeastOne,
    /// An alignment that is not a power of two.
    #[serde(rename = "npu.config.power_of_two")]
    PowerOfTwo {
        /// The value.
        got: u64,
    },
    /// A coupled chip with other vector-core and cube-core counts.
    #[serde(rename = "npu.config.coupled_cores")]
    CoupledCores {
        /// The cube cores.
        expected: u32,
        /// The vector cores given.
        got: u32,
    },
}

/// What is wrong with a tile program.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ProgramDetail {
    /// A core using both cube and vector pipes on a split chip.
    #[serde(rename = "npu.program.mixed_core")]
    MixedCore,
    /// A buffer id past the program's buffers.
    #[serde(rename = "npu.program.unknown_buffer")]
    UnknownBuffer {
        /// The id.
        id: u32,
    },
    /// A flag id past the program's flags.
    #[serde(rename = "npu.program.unknown_flag")]
    UnknownFlag {
        /// The id.
        id: u32,
    },
    /// A cross-core flag id past the plan's.
    #[serde(rename = "npu.program.unknown_cross_flag")]
    UnknownCrossFlag {
        /// The id.
        id: u32,
    },
    /// A GM tensor id past the plan's tensors.
    #[serde(rename = "npu.program.unknown_tensor")]
    UnknownTensor {
        /// The id.
        id: u32,
    },
    /// A transposing move of a sub-tile that is not 2-D.
    #[serde(rename = "npu.program.transpose_rank")]
    TransposeRank {
        /// The sub-tile's shape.
        shape: Vec<usize>,
    },
    /// Broadcast operands that do not broadcast to the written shape.
    #[serde(rename = "npu.program.operands_broadcast")]
    OperandsBroadcast {
        /// The left operand's shape.
        lhs: Vec<usize>,
        /// The right operand's shape.
        rhs: Vec<usize>,
        /// The written shape.
        written: Vec<usize>,
    },
    /// A reduction of a dim the tile does not have.
    #[serde(rename = "npu.program.reduce_dim")]
    ReduceDim {
        /// The dim.
        dim: usize,
        /// The tile's rank.
        rank: usize,
    },
    /// An op along a dim the tile does not have.
    #[serde(rename = "npu.program.dim_of_tile")]
    DimOfTile {
        /// The op.
        op: String,
        /// The dim.
        dim: usize,
        /// The tile's rank.
        rank: usize,
    },
    /// A vector op given another number of operands.
    #[serde(rename = "npu.program.arity")]
    Arity {
        /// The op.
        op: String,
        /// Operands it takes.
        arity: usize,
        /// Operands given.
        got: usize,
    },
    /// A vector op with only scalar operands.
    #[serde(rename = "npu.program.no_tile_operand")]
    NoTileOperand {
        /// The op.
        op: String,
    },
    /// Operand shapes the tensor core refused (its message).
    #[serde(rename = "npu.program.shapes")]
    Shapes {
        /// The tensor core's message.
        error: Box<Message>,
    },
    /// A vector concat of tiles that differ off the joined dim.
    #[serde(rename = "npu.program.concat")]
    Concat {
        /// The first tile's shape.
        first: Vec<usize>,
        /// The other tile's shape.
        other: Vec<usize>,
        /// The joined dim.
        dim: usize,
    },
    /// A transpose of dims the tile does not have.
    #[serde(rename = "npu.program.transpose_dims")]
    TransposeDims {
        /// The dims.
        dims: Vec<usize>,
        /// The tile's rank.
        rank: usize,
    },
    /// A topk whose k or dim does not fit the tile.
    #[serde(rename = "npu.program.topk")]
    Topk {
        /// The k.
        k: usize,
        /// The dim.
        dim: usize,
        /// The tile's shape.
        shape: Vec<usize>,
    },
    /// topk writing other than DT_INT32 indices.
    #[serde(rename = "npu.program.topk_indices")]
    TopkIndices,
    /// A slice at offsets outside the tile.
    #[serde(rename = "npu.program.slice")]
    Slice {
        /// The offsets.
        offsets: Vec<usize>,
        /// The tile's shape.
        shape: Vec<usize>,
    },
    /// A reshape to another element count.
    #[serde(rename = "npu.program.reshape")]
    Reshape {
        /// The tile's shape.
        from: Vec<usize>,
        /// The written shape.
        to: Vec<usize>,
    },
    /// A gather or scatter whose indices are not integers.
    #[serde(rename = "npu.program.index_dtype")]
    IndexDtype {
        /// `gather` or `scatter`.
        op: String,
    },
    /// A gather or scatter without an index tile of the input's rank.
    #[serde(rename = "npu.program.index_rank")]
    IndexRank {
        /// `gather` or `scatter`.
        op: String,
        /// The dim.
        dim: usize,
    },
    /// A vector op whose result is not the shape it writes.
    #[serde(rename = "npu.program.written_shape")]
    WrittenShape {
        /// The op (a name of the tile ISA: keeps the error small).
        op: &'static str,
        /// The shapes of its tile operands, in order.
        operands: Vec<Vec<usize>>,
        /// How many of its operands are numbers (`None`: none).
        scalars: Option<u32>,
        /// The op's result shape.
        expected: Vec<usize>,
        /// The written shape.
        written: Vec<usize>,
    },
    /// A comparison writing other than a DT_BOOL tile.
    #[serde(rename = "npu.program.compare_writes_bool")]
    CompareWritesBool,
}

/// What failed in a functional run.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ExecutionDetail {
    /// A tensor op refused a tile (its message).
    #[serde(rename = "npu.run.tensor")]
    Tensor {
        /// The tensor core's message.
        error: Box<Message>,
    },
    /// Another number of GM tensors than the plan declares.
    #[serde(rename = "npu.run.gm_count")]
    GmCount {
        /// Tensors given.
        given: usize,
        /// Tensors the plan declares.
        planned: usize,
    },
    /// A GM tensor of another shape or dtype than declared.
    #[serde(rename = "npu.run.gm_tensor")]
    GmTensor {
        /// The tensor.
        name: String,
        /// Its declared shape.
        shape: Vec<usize>,
        /// Its declared dtype, as printed.
        dtype: String,
    },
    /// A cross-core flag waited on and never set.
    #[serde(rename = "npu.run.flag_never_set")]
    FlagNeverSet,
}

impl ConfigDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        use ConfigDetail::*;
        match self {
            NotJson { problem, line, column } => {
                format!("not JSON: {} at line {line}, column {column}", problem.english())
            }
            NotAnObject => "a custom preset is an object of fields, e.g. {\"name\": \"mine\", …}".into(),
            UnknownField => "unknown field (the fields are those of pypto.npu.config())".into(),
            MissingField => "missing: a custom preset gives every field (start from pypto.npu.config())".into(),
            Decoder { text } => text.clone(),
            Name { got } => format!("must be a name of 1 to 64 characters, got {got}"),
            Architecture { got } => format!("must be \"Split\" or \"Coupled\", got {got}"),
            WholeNumber { min, max, got } => format!("must be a whole number from {min} to {max}, got {got}"),
            PowerOfTwoUpTo { max, got } => format!("must be a power of two up to {max}, got {got}"),
            Rate { max, got } => format!("must be a number above 0 and at most {max}, got {got}"),
            PositiveRate { got } => format!("must be a positive finite number, got {got}"),
            Cycles { max, got } => format!("must be a number from 0 to {max}, got {got}"),
            NonNegative { got } => format!("must be a finite number of at least 0, got {got}"),
            AtLeastOne => "must be at least 1".into(),
            PowerOfTwo { got } => format!("must be a power of two, got {got}"),
            CoupledCores { expected, got } => {
                format!("a coupled chip has one vector unit per core: expected {expected}, got {got}")
            }
        }
    }
}

impl ProgramDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        use ProgramDetail::*;
        match self {
            MixedCore => {
                "uses both cube and vector pipes, but this chip has separate cube and vector cores (go through GM)"
                    .into()
            }
            UnknownBuffer { id } => format!("unknown buffer {id}"),
            UnknownFlag { id } => format!("unknown flag {id}"),
            UnknownCrossFlag { id } => format!("unknown cross-core flag {id}"),
            UnknownTensor { id } => format!("unknown tensor {id}"),
            TransposeRank { shape } => format!("a transposing move takes a 2-D sub-tile, got {shape:?}"),
            OperandsBroadcast { lhs, rhs, written } => {
                format!("operands {lhs:?} and {rhs:?} do not broadcast to {written:?}")
            }
            ReduceDim { dim, rank } => format!("reduces dim {dim} of a {rank}-D tile"),
            DimOfTile { op, dim, rank } => format!("`{op}` along dim {dim} of a {rank}-D tile"),
            Arity { op, arity, got } => format!("`{op}` takes {arity} operands, got {got}"),
            NoTileOperand { op } => format!("`{op}` needs at least one tile operand"),
            Shapes { error } => error.english(),
            Concat { first, other, dim } => format!("`concat` of {first:?} and {other:?} along dim {dim}"),
            TransposeDims { dims, rank } => format!("`transpose` of dims {dims:?} of a {rank}-D tile"),
            Topk { k, dim, shape } => format!("`topk` of {k} along dim {dim} of {shape:?}"),
            TopkIndices => "`topk` writes DT_INT32 indices".into(),
            Slice { offsets, shape } => format!("`slice` at {offsets:?} of {shape:?}"),
            Reshape { from, to } => format!("`reshape` of {from:?} to {to:?}"),
            IndexDtype { op } => format!("`{op}` indices are DT_INT32 or DT_INT64 tiles"),
            IndexRank { op, dim } => format!("`{op}` along dim {dim} needs an index tile of the input's rank"),
            WrittenShape { op, operands, scalars, expected, written } => {
                let scalars = scalars.map(|count| format!(" and {count} number(s)")).unwrap_or_default();
                format!("`{op}` of {operands:?}{scalars} gives {expected:?}, not the written {written:?}")
            }
            CompareWritesBool => "a comparison writes a DT_BOOL tile".into(),
        }
    }
}

impl ExecutionDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        match self {
            ExecutionDetail::Tensor { error } => error.english(),
            ExecutionDetail::GmCount { given, planned } => format!("{given} GM tensors given, the plan has {planned}"),
            ExecutionDetail::GmTensor { name, shape, dtype } => format!("GM tensor '{name}' must be {shape:?} {dtype}"),
            ExecutionDetail::FlagNeverSet => "waits on a cross-core flag that is never set".into(),
        }
    }
}
