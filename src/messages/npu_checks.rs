//! Messages of the simulator's checks and runs: a misaligned tile, a view past what it views, a
//! bad field of a custom configuration, a malformed tile program, a failed functional run. Each is
//! a typed detail (grouped by meaning) inside its sentence, as the tensor core's are.

use serde::Serialize;

/// A check or run of the simulator that failed.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum NpuCheckMessage {
    /// A tile that breaks the alignment rule of its memory.
    #[serde(rename = "npu.misaligned")]
    Misaligned {
        /// UB, L1, L0A …
        memory: String,
        /// The buffer.
        buffer: String,
        /// Which rule.
        detail: AlignmentDetail,
        /// The kernel line, when the message does not sit at it.
        line: Option<u32>,
    },
    /// A view or sub-tile past the edge of what it views.
    #[serde(rename = "npu.view_out_of_bounds")]
    ViewOutOfBounds {
        /// What reaches past the edge.
        what: ViewSubject,
        /// Its offsets.
        offsets: Vec<usize>,
        /// Its shape.
        shape: Vec<usize>,
        /// The shape it must stay inside.
        bounds: Vec<usize>,
        /// The kernel line, when the message does not sit at it.
        line: Option<u32>,
    },
    /// A configuration field with a bad value.
    #[serde(rename = "npu.bad_config")]
    BadConfig {
        /// The field (`(json)` for the whole text).
        field: String,
        /// What is wrong.
        detail: ConfigDetail,
    },
    /// A malformed tile program (the compiler's fault, or a mixed core on a split chip).
    #[serde(rename = "npu.invalid_program")]
    InvalidProgram {
        /// The core.
        core: usize,
        /// The instruction, if one.
        instruction: Option<usize>,
        /// What is wrong.
        detail: ProgramDetail,
    },
    /// The functional run of an instruction failed.
    #[serde(rename = "npu.execution_at")]
    ExecutionAt {
        /// The core.
        core: usize,
        /// The instruction.
        instruction: usize,
        /// What failed.
        detail: ExecutionDetail,
    },
    /// The functional run failed outside any instruction.
    #[serde(rename = "npu.execution")]
    Execution {
        /// What failed.
        detail: ExecutionDetail,
    },
}

/// Which alignment rule a tile breaks.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum AlignmentDetail {
    /// A vector tile of more than 4 dims.
    #[serde(rename = "npu.alignment.too_many_dims")]
    TooManyDims {
        /// Its dims.
        dims: usize,
    },
    /// A last dim that does not fill whole granules.
    #[serde(rename = "npu.alignment.last_dim")]
    LastDim {
        /// The last dim in elements.
        last: usize,
        /// In bytes.
        bytes: usize,
        /// The granule in bytes.
        alignment: usize,
        /// The multiple to use, in elements.
        step: usize,
    },
    /// A cube tile not made of 16×16 fractals.
    #[serde(rename = "npu.alignment.cube_fractal")]
    CubeFractal {
        /// Its shape.
        shape: Vec<usize>,
    },
    /// A buffer placed in GM.
    #[serde(rename = "npu.alignment.in_gm")]
    InGm,
}

/// What reaches past an edge.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ViewSubject {
    /// A view of a GM tensor.
    #[serde(rename = "npu.view.of_tensor")]
    OfTensor {
        /// The tensor.
        name: String,
    },
    /// The valid shape in a tile.
    #[serde(rename = "npu.view.valid_shape")]
    ValidShape {
        /// The tile.
        name: String,
    },
    /// A sub-tile of a tile.
    #[serde(rename = "npu.view.sub_tile")]
    SubTile {
        /// The tile.
        name: String,
    },
    /// An operand of an mmad.
    #[serde(rename = "npu.view.mmad_operand")]
    MmadOperand {
        /// The tile.
        name: String,
    },
    /// The rows of a tile.
    #[serde(rename = "npu.view.rows")]
    Rows {
        /// The tile.
        name: String,
    },
    /// The transposed sub-tile in a tile.
    #[serde(rename = "npu.view.transposed")]
    Transposed {
        /// The tile.
        name: String,
    },
    /// The reduced shape in a tile.
    #[serde(rename = "npu.view.reduced_shape")]
    ReducedShape {
        /// The tile.
        name: String,
    },
}

impl NpuCheckMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        let line = |line: &Option<u32>| line.map(|line| format!(" (line {line})")).unwrap_or_default();
        match self {
            NpuCheckMessage::Misaligned { memory, buffer, detail, line: at } => {
                format!("misaligned {memory} tile '{buffer}': {}{}", detail.english(), line(at))
            }
            NpuCheckMessage::ViewOutOfBounds { what, offsets, shape, bounds, line: at } => format!(
                "view out of bounds: {} at offsets {offsets:?} with shape {shape:?} exceeds {bounds:?}{}",
                what.english(),
                line(at)
            ),
            NpuCheckMessage::BadConfig { field, detail } => {
                format!("bad NPU configuration field '{field}': {}", detail.english())
            }
            NpuCheckMessage::InvalidProgram { core, instruction: Some(index), detail } => {
                format!("core {core}, instruction {index}: {}", detail.english())
            }
            NpuCheckMessage::InvalidProgram { core, instruction: None, detail } => {
                format!("core {core}: {}", detail.english())
            }
            NpuCheckMessage::ExecutionAt { core, instruction, detail } => {
                format!("executing core {core}, instruction {instruction}: {}", detail.english())
            }
            NpuCheckMessage::Execution { detail } => format!("executing: {}", detail.english()),
        }
    }
}

impl AlignmentDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        match self {
            AlignmentDetail::TooManyDims { dims } => format!("vector tiles have at most 4 dims, this one has {dims}"),
            AlignmentDetail::LastDim { last, bytes, alignment, step } => format!(
                "the last dim is {last} elements = {bytes} bytes, not a multiple of {alignment} bytes (use a multiple of {step} elements)"
            ),
            AlignmentDetail::CubeFractal { shape } => {
                format!("cube tiles are 2-D with both dims multiples of 16 (the 16×16 fractal), got {shape:?}")
            }
            AlignmentDetail::InGm => "buffers live on the core, not in GM".into(),
        }
    }
}

impl ViewSubject {
    /// The subject in English.
    pub fn english(&self) -> String {
        match self {
            ViewSubject::OfTensor { name } => format!("a view of '{name}'"),
            ViewSubject::ValidShape { name } => format!("the valid shape in tile '{name}'"),
            ViewSubject::SubTile { name } => format!("a sub-tile of '{name}'"),
            ViewSubject::MmadOperand { name } => format!("the mmad operand '{name}'"),
            ViewSubject::Rows { name } => format!("the rows of tile '{name}'"),
            ViewSubject::Transposed { name } => format!("the transposed sub-tile in '{name}'"),
            ViewSubject::ReducedShape { name } => format!("the reduced shape in tile '{name}'"),
        }
    }
}

pub use super::npu_details::{ConfigDetail, ExecutionDetail, JsonProblem, ProgramDetail};

impl From<NpuCheckMessage> for super::Message {
    fn from(message: NpuCheckMessage) -> Self {
        super::Message::NpuCheck(Box::new(message))
    }
}

/// The TypeScript declarations of the family's enums (the code list reads its codes from them).
pub(super) fn declarations(config: &ts_rs::Config) -> Vec<String> {
    use ts_rs::TS;
    vec![
        NpuCheckMessage::decl(config),
        AlignmentDetail::decl(config),
        ViewSubject::decl(config),
        ConfigDetail::decl(config),
        ProgramDetail::decl(config),
        ExecutionDetail::decl(config),
    ]
}
