//! The error of the simulator: bad configurations, programs that do not fit the chip, deadlocks.

use std::fmt;

use crate::messages::{AlignmentDetail, ConfigDetail, ExecutionDetail, NpuCheckMessage, ProgramDetail, ViewSubject};

/// A failure of the simulator. Program errors carry the kernel source line the language filled in.
#[derive(Clone, Debug, PartialEq)]
pub enum NpuError {
    /// No preset of this name.
    UnknownPreset { name: String, known: Vec<&'static str> },
    /// A custom configuration with a bad field.
    BadConfig { field: String, detail: ConfigDetail },
    /// The buffers of one memory need more bytes than it has.
    CapacityExceeded {
        memory: &'static str,
        bytes: u64,
        capacity: u64,
        buffer: String,
        tile: Vec<usize>,
        largest_tile: Option<Vec<usize>>,
        source_line: Option<u32>,
    },
    /// A tile violates the alignment rule of its memory.
    Misaligned { memory: &'static str, buffer: String, detail: AlignmentDetail, source_line: Option<u32> },
    /// A view or sub-tile reaches past the edge of what it views.
    ViewOutOfBounds {
        what: ViewSubject,
        offsets: Vec<usize>,
        shape: Vec<usize>,
        bounds: Vec<usize>,
        source_line: Option<u32>,
    },
    /// More programs of one kind than the chip has cores for.
    TooManyCores { kind: &'static str, programs: usize, available: u32 },
    /// A program refers to a buffer, flag or tensor that does not exist, or mixes cube and vector on a split chip.
    InvalidProgram { core: usize, instruction: Option<usize>, detail: ProgramDetail },
    /// Functional execution failed (a tensor op rejected a tile).
    Execution { core: usize, instruction: Option<usize>, detail: ExecutionDetail },
    /// Pipes wait on flags nobody will set.
    Deadlock { core: usize, pipe: &'static str, instruction: usize, op: &'static str },
}

fn line_suffix(line: &Option<u32>) -> String {
    line.map(|line| format!(" (line {line})")).unwrap_or_default()
}

impl NpuError {
    /// The kernel source line the error carries, if any.
    pub fn source_line(&self) -> Option<u32> {
        match self {
            NpuError::CapacityExceeded { source_line, .. }
            | NpuError::Misaligned { source_line, .. }
            | NpuError::ViewOutOfBounds { source_line, .. } => *source_line,
            _ => None,
        }
    }

    /// The error as a message code with its parameters.
    pub fn message(&self) -> crate::messages::Message {
        match self {
            NpuError::CapacityExceeded { memory, bytes, capacity, buffer, tile, largest_tile, source_line: None } => {
                crate::messages::Message::CapacityExceeded {
                    memory: memory.to_string(),
                    bytes: *bytes,
                    capacity: *capacity,
                    buffer: buffer.clone(),
                    tile: tile.clone(),
                    largest_tile: largest_tile.clone(),
                }
            }
            NpuError::UnknownPreset { name, known } => crate::messages::NpuMessage::UnknownPreset {
                function: None,
                name: name.clone(),
                known: known.join(", "),
            }
            .into(),
            NpuError::TooManyCores { kind, programs, available } => crate::messages::NpuMessage::TooManyCores {
                kind: kind.to_string(),
                programs: *programs,
                available: *available,
            }
            .into(),
            NpuError::Deadlock { core, pipe, instruction, op } => crate::messages::NpuMessage::Deadlock {
                core: *core,
                pipe: pipe.to_string(),
                instruction: *instruction,
                op: op.to_string(),
            }
            .into(),
            NpuError::CapacityExceeded { .. } => crate::messages::Message::Text { text: self.to_string() },
            NpuError::Misaligned { memory, buffer, detail, source_line } => NpuCheckMessage::Misaligned {
                memory: memory.to_string(),
                buffer: buffer.clone(),
                detail: detail.clone(),
                line: *source_line,
            }
            .into(),
            NpuError::ViewOutOfBounds { what, offsets, shape, bounds, source_line } => {
                NpuCheckMessage::ViewOutOfBounds {
                    what: what.clone(),
                    offsets: offsets.clone(),
                    shape: shape.clone(),
                    bounds: bounds.clone(),
                    line: *source_line,
                }
                .into()
            }
            NpuError::BadConfig { field, detail } => {
                NpuCheckMessage::BadConfig { field: field.clone(), detail: detail.clone() }.into()
            }
            NpuError::InvalidProgram { core, instruction, detail } => {
                NpuCheckMessage::InvalidProgram { core: *core, instruction: *instruction, detail: detail.clone() }
                    .into()
            }
            NpuError::Execution { core, instruction: Some(instruction), detail } => {
                NpuCheckMessage::ExecutionAt { core: *core, instruction: *instruction, detail: detail.clone() }.into()
            }
            NpuError::Execution { instruction: None, detail, .. } => {
                NpuCheckMessage::Execution { detail: detail.clone() }.into()
            }
        }
    }

    /// The same error without its source line, for a diagnostic whose span already points at the
    /// line: the line it carries counts from the top of the kernel's cell, not of the file, so the
    /// message and the location would disagree.
    pub fn without_source_line(&self) -> NpuError {
        let mut error = self.clone();
        if let NpuError::CapacityExceeded { source_line, .. }
        | NpuError::Misaligned { source_line, .. }
        | NpuError::ViewOutOfBounds { source_line, .. } = &mut error
        {
            *source_line = None;
        }
        error
    }
}

impl fmt::Display for NpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NpuError::UnknownPreset { name, known } => {
                write!(f, "unknown NPU preset '{name}' (known: {})", known.join(", "))
            }
            NpuError::BadConfig { .. }
            | NpuError::Misaligned { .. }
            | NpuError::ViewOutOfBounds { .. }
            | NpuError::InvalidProgram { .. }
            | NpuError::Execution { .. } => f.write_str(&self.message().english()),
            NpuError::CapacityExceeded { memory, bytes, capacity, buffer, tile, largest_tile, source_line } => {
                write!(f, "{memory} overflow: the tiles need {bytes} bytes but {memory} holds {capacity} bytes (buffer '{buffer}' of tile {tile:?})")?;
                match largest_tile {
                    Some(largest) => write!(f, "; the largest tile that fits is {largest:?}")?,
                    None => write!(f, "; no tile of this kind fits beside the other buffers")?,
                }
                write!(f, "{}", line_suffix(source_line))
            }
            NpuError::TooManyCores { kind, programs, available } => {
                write!(f, "{programs} {kind} programs but the chip has {available} {kind} cores")
            }
            NpuError::Deadlock { core, pipe, instruction, op } => {
                write!(f, "deadlock: core {core} pipe {pipe} waits forever at instruction {instruction} ({op}): a flag it waits for is never set")
            }
        }
    }
}

impl std::error::Error for NpuError {}

/// Result of a simulator stage.
pub type Result<T> = std::result::Result<T, NpuError>;
