//! The library tail's messages: what the `pypto`, `torch` and `numpy` functions of tile scripts
//! and the functional builtins say when a script misuses them. One family, eight groups by
//! meaning: arguments and availability, tensors, torch's own, custom operators
//! (`torch.library`), kernel tools, tiling settings, paged-cache gathers, and the host modules (`sys`, `os`, `time`, `argparse`) scripts
//! use around their kernels.

mod arguments;
mod gathers;
mod host;
mod kernels;
mod operators;
mod tensors;
mod tiling;
mod torch;

use serde::Serialize;

pub use arguments::{Kind, LibraryMessage};
pub use gathers::LibraryGatherMessage;
pub use host::LibraryHostMessage;
pub use kernels::LibraryKernelMessage;
pub use operators::LibraryOperatorMessage;
pub use tensors::LibraryTensorMessage;
pub use tiling::LibraryTilingMessage;
pub use torch::LibraryTorchMessage;

use super::Message;

/// A library message of any group (serialised as its group's own `{code, params}`).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(untagged)]
pub enum LibraryFamily {
    /// Arguments of the wrong kind, functions not available where they were called.
    Arguments(LibraryMessage),
    /// Tensor creation, indexing, shapes and writes.
    Tensors(LibraryTensorMessage),
    /// The torch module's dtypes, conversions and checks.
    Torch(LibraryTorchMessage),
    /// Kernels, loops, schedules, sweeps, presets, registered gradients.
    Kernels(LibraryKernelMessage),
    /// `sys.exit`, the host modules' names, argparse's parsers and command lines.
    Host(LibraryHostMessage),
    /// `torch.library`'s schemas and dispatch keys, `torch.ops` calls.
    Operators(LibraryOperatorMessage),
    /// Cube tile shapes, n-buffer depths, loop keywords.
    Tiling(LibraryTilingMessage),
    /// The paged-cache gathers of `pypto.experimental`.
    Gathers(LibraryGatherMessage),
}

impl LibraryFamily {
    /// The message in English.
    pub fn english(&self) -> String {
        match self {
            LibraryFamily::Arguments(message) => message.english(),
            LibraryFamily::Tensors(message) => message.english(),
            LibraryFamily::Torch(message) => message.english(),
            LibraryFamily::Kernels(message) => message.english(),
            LibraryFamily::Host(message) => message.english(),
            LibraryFamily::Operators(message) => message.english(),
            LibraryFamily::Tiling(message) => message.english(),
            LibraryFamily::Gathers(message) => message.english(),
        }
    }
}

/// The TypeScript declarations of the family's enums (the code list reads its codes from them).
pub(super) fn declarations(config: &ts_rs::Config) -> Vec<String> {
    use ts_rs::TS;
    vec![
        LibraryMessage::decl(config),
        LibraryTensorMessage::decl(config),
        LibraryTorchMessage::decl(config),
        LibraryKernelMessage::decl(config),
        LibraryHostMessage::decl(config),
        LibraryOperatorMessage::decl(config),
        LibraryTilingMessage::decl(config),
        LibraryGatherMessage::decl(config),
        Kind::decl(config),
    ]
}

macro_rules! into_message {
    ($($group:ident => $variant:ident),*) => {$(
        impl From<$group> for Message {
            fn from(message: $group) -> Self {
                Message::Library(Box::new(LibraryFamily::$variant(message)))
            }
        }
    )*};
}

into_message!(LibraryMessage => Arguments, LibraryTensorMessage => Tensors, LibraryTorchMessage => Torch, LibraryKernelMessage => Kernels,
    LibraryHostMessage => Host, LibraryOperatorMessage => Operators, LibraryTilingMessage => Tiling, LibraryGatherMessage => Gathers);
