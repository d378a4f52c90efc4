//! The error of the simulator: bad configurations, programs that do not fit the chip, deadlocks.

use std::fmt;

/// A failure of the simulator. Program errors carry the kernel source line the language filled in.
#[derive(Clone, Debug, PartialEq)]
pub enum NpuError {
    /// No preset of this name.
    UnknownPreset { name: String, known: Vec<&'static str> },
    /// A custom configuration with a bad field.
    BadConfig { field: String, detail: String },
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
    Misaligned { memory: &'static str, buffer: String, detail: String, source_line: Option<u32> },
    /// A view or sub-tile reaches past the edge of what it views.
    ViewOutOfBounds {
        what: String,
        offsets: Vec<usize>,
        shape: Vec<usize>,
        bounds: Vec<usize>,
        source_line: Option<u32>,
    },
    /// More programs of one kind than the chip has cores for.
    TooManyCores { kind: &'static str, programs: usize, available: u32 },
    /// A program refers to a buffer, flag or tensor that does not exist, or mixes cube and vector on a split chip.
    InvalidProgram { core: usize, instruction: Option<usize>, detail: String },
    /// Functional execution failed (a tensor op rejected a tile).
    Execution { core: usize, instruction: Option<usize>, detail: String },
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

    /// The error as a message (capacity errors coded for the page's languages; the others as text).
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
            _ => crate::messages::Message::Text { text: self.to_string() },
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
            NpuError::BadConfig { field, detail } => write!(f, "bad NPU configuration field '{field}': {detail}"),
            NpuError::CapacityExceeded { memory, bytes, capacity, buffer, tile, largest_tile, source_line } => {
                write!(f, "{memory} overflow: the tiles need {bytes} bytes but {memory} holds {capacity} bytes (buffer '{buffer}' of tile {tile:?})")?;
                match largest_tile {
                    Some(largest) => write!(f, "; the largest tile that fits is {largest:?}")?,
                    None => write!(f, "; no tile of this kind fits beside the other buffers")?,
                }
                write!(f, "{}", line_suffix(source_line))
            }
            NpuError::Misaligned { memory, buffer, detail, source_line } => {
                write!(f, "misaligned {memory} tile '{buffer}': {detail}{}", line_suffix(source_line))
            }
            NpuError::ViewOutOfBounds { what, offsets, shape, bounds, source_line } => {
                write!(
                    f,
                    "view out of bounds: {what} at offsets {offsets:?} with shape {shape:?} exceeds {bounds:?}{}",
                    line_suffix(source_line)
                )
            }
            NpuError::TooManyCores { kind, programs, available } => {
                write!(f, "{programs} {kind} programs but the chip has {available} {kind} cores")
            }
            NpuError::InvalidProgram { core, instruction, detail } => match instruction {
                Some(index) => write!(f, "core {core}, instruction {index}: {detail}"),
                None => write!(f, "core {core}: {detail}"),
            },
            NpuError::Execution { core, instruction, detail } => match instruction {
                Some(index) => write!(f, "executing core {core}, instruction {index}: {detail}"),
                None => write!(f, "executing: {detail}"),
            },
            NpuError::Deadlock { core, pipe, instruction, op } => {
                write!(f, "deadlock: core {core} pipe {pipe} waits forever at instruction {instruction} ({op}): a flag it waits for is never set")
            }
        }
    }
}

impl std::error::Error for NpuError {}

/// Result of a simulator stage.
pub type Result<T> = std::result::Result<T, NpuError>;
