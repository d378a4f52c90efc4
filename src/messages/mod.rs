//! Messages as data: every sentence the engine shows a reader (schedule notes, gradient-check lines,
//! the common diagnostics, progress of a kernel call) is a [`Message`], a code with typed
//! parameters serialised as `{code, params}`. The page renders it from its i18n tables
//! (`www/i18n/en.js`, `zh-CN.js`), the CLI from [`Message::english`]. A leaf module like `error`:
//! any layer may build messages, and it imports none.

mod autograd;
mod autograd_details;
mod classes;
mod codes;
mod compiler;
mod derivation;
mod english;
mod grammar;
mod json_problem;
mod library;
mod literals;
mod lowering;
mod npu;
mod npu_checks;
mod npu_details;
mod operations;
mod option_features;
mod runtime;
mod statements;
mod syntax;
mod tensor;
mod unsupported;
mod words;

use serde::Serialize;

pub use autograd::AutogradMessage;
pub use autograd_details::{AutogradCallMessage, AutogradDetail};
pub use classes::ClassMessage;
pub use codes::all_codes;
pub use compiler::CompilerReason;
pub use derivation::DerivationReason;
pub use grammar::{After, Assignee, GrammarMessage, NameSlot};
pub use library::{
    Kind, LibraryFamily, LibraryGatherMessage, LibraryHostMessage, LibraryKernelMessage, LibraryMessage,
    LibraryOperatorMessage, LibraryTensorMessage, LibraryTilingMessage, LibraryTorchMessage,
};
pub use literals::LiteralMessage;
pub use lowering::{LoweringReason, StepFault};
pub use npu::NpuMessage;
pub use npu_checks::{
    AlignmentDetail, ConfigDetail, ExecutionDetail, JsonProblem, NpuCheckMessage, ProgramDetail, ViewSubject,
};
pub use operations::OperationMessage;
pub use option_features::OptionFeature;
pub use runtime::{Mismatch, RuntimeMessage};
pub use statements::StatementMessage;
pub use syntax::{BracketItem, SyntaxMessage};
pub use tensor::{ArgumentDetail, BoundsDetail, ShapeDetail, TensorMessage};
pub use unsupported::{Construct, UnsupportedMessage};
pub use words::{Expected, Token};

/// A sentence as a code and its parameters (`{"code": "schedule.busiest_pipe", "params": {…}}`).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum Message {
    /// Text the engine has no code for yet (a rare diagnostic): shown as it is, in English.
    #[serde(rename = "text")]
    Text {
        /// The English text.
        text: String,
    },
    /// A schedule note: the bound pipe and how busy it was.
    #[serde(rename = "schedule.busiest_pipe")]
    BusiestPipe {
        /// MTE2, CUBE, VECTOR …
        pipe: String,
        /// Busy percent, rounded.
        percent: u32,
    },
    /// A schedule note: DMA start-up latency dominates the bound pipe's busy time.
    #[serde(rename = "schedule.startup_share")]
    StartupShare {
        /// The bound pipe.
        pipe: String,
        /// Start-up share of its busy time in percent, rounded.
        percent: u32,
    },
    /// A schedule note: no pipe is busy most of the time.
    #[serde(rename = "schedule.pipes_wait")]
    PipesWait,
    /// A schedule note: UB holds one copy of the tasks' tiles, not the n-buffering asked for.
    #[serde(rename = "schedule.single_buffered")]
    SingleBuffered {
        /// The n-buffering depth asked for (`vec_nbuffer_setting`, 2 by default).
        requested: usize,
    },
    /// A schedule note: the cube's share of the chip's peak FLOP/s.
    #[serde(rename = "schedule.cube_peak")]
    CubePeak {
        /// Percent of peak, rounded.
        percent: u32,
    },
    /// Gradient check sides: no kernel call ran.
    #[serde(rename = "gradcheck.sides.none")]
    SidesNone,
    /// Gradient check sides: every kernel call ran on the simulated NPU.
    #[serde(rename = "gradcheck.sides.npu")]
    SidesNpu {
        /// Whether the kernel has a registered backward.
        registered: bool,
        /// The NPU preset.
        preset: String,
    },
    /// Gradient check sides: every kernel call ran on the CPU reference path.
    #[serde(rename = "gradcheck.sides.cpu")]
    SidesCpu {
        /// Whether the kernel has a registered backward.
        registered: bool,
    },
    /// Gradient check sides: some calls on the NPU, some on the CPU.
    #[serde(rename = "gradcheck.sides.mixed")]
    SidesMixed {
        /// Calls on the NPU.
        npu_calls: u64,
        /// Calls on the CPU reference path.
        cpu_calls: u64,
        /// The NPU preset.
        preset: String,
    },
    /// Gradient check: every compared entry of an input looked not differentiable.
    #[serde(rename = "gradcheck.all_kinks")]
    AllKinks {
        /// The input's position.
        input: usize,
        /// Entries compared.
        count: usize,
    },
    /// Gradient check: one of the worst elements.
    #[serde(rename = "gradcheck.worst")]
    WorstElement {
        /// The input's position.
        input: usize,
        /// The element's index.
        index: Vec<usize>,
        /// The analytic derivative.
        analytic: f64,
        /// The numerical derivative.
        numerical: f64,
    },
    /// `name 'x' is not defined`.
    #[serde(rename = "name.undefined")]
    NameUndefined {
        /// The name.
        name: String,
    },
    /// `module 'pypto' has no attribute 'tanhh'`.
    #[serde(rename = "name.no_module_attribute")]
    NoModuleAttribute {
        /// The module.
        module: String,
        /// The missing attribute.
        name: String,
    },
    /// Help: the closest known name.
    #[serde(rename = "name.did_you_mean")]
    DidYouMean {
        /// The suggestion (`tanh`, `pypto.view`).
        suggestion: String,
    },
    /// Help: a pypto function used without its module.
    #[serde(rename = "name.did_you_mean_pypto")]
    DidYouMeanPypto {
        /// `pypto.exp`.
        qualified: String,
    },
    /// Help: a module used before its import.
    #[serde(rename = "name.add_import")]
    AddImport {
        /// `import pypto as pt`.
        statement: String,
    },
    /// An operator applied to values of types it does not take.
    #[serde(rename = "type.unsupported_operand")]
    UnsupportedOperand {
        /// `+`, `@` …
        operator: String,
        /// The left operand's type name.
        left: String,
        /// The right operand's type name.
        right: String,
    },
    /// A vec tile whose last dim does not fill whole UB granules of the tiled dtype.
    #[serde(rename = "npu.vec_tile_misaligned")]
    VecTileMisaligned {
        /// The last dim.
        last: usize,
        /// The granule in bytes.
        granule: usize,
        /// The dtype (`DT_BF16`).
        dtype: String,
        /// Bytes per element.
        element_bytes: usize,
        /// Bytes of the last dim.
        bytes: usize,
    },
    /// Help: the multiple to use and the nearest aligned sizes (one or two).
    #[serde(rename = "npu.aligned_sizes")]
    AlignedSizes {
        /// The multiple, in elements.
        align: usize,
        /// The nearest aligned sizes.
        nearest: Vec<usize>,
    },
    /// Help of a misaligned vec tile that runs padded: each tile row is padded in UB.
    #[serde(rename = "npu.padded_tile_rows")]
    PaddedTileRows {
        /// The multiple, in elements.
        align: usize,
        /// The nearest aligned sizes.
        nearest: Vec<usize>,
    },
    /// A call with a keyword the function does not take.
    #[serde(rename = "call.unexpected_keyword")]
    UnexpectedKeyword {
        /// The function.
        function: String,
        /// The keyword.
        keyword: String,
    },
    /// A call without a required argument.
    #[serde(rename = "call.missing_argument")]
    MissingArgument {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
    },
    /// Help: the parameters a function takes.
    #[serde(rename = "call.takes")]
    TakesArguments {
        /// The function.
        function: String,
        /// Its parameter names, comma-separated.
        names: String,
    },
    /// Two shapes that do not broadcast: dim `dim` of the result has sizes `left` and `right`.
    #[serde(rename = "tensor.broadcast_mismatch")]
    BroadcastMismatch {
        /// The op.
        op: String,
        /// The left shape.
        lhs: Vec<usize>,
        /// The right shape.
        rhs: Vec<usize>,
        /// The dim of the broadcast (from the left of the result).
        dim: usize,
        /// The left size there.
        left: usize,
        /// The right size there.
        right: usize,
    },
    /// The tiles need more bytes than a memory holds.
    #[serde(rename = "npu.capacity")]
    CapacityExceeded {
        /// UB, L1, L0A …
        memory: String,
        /// Bytes needed.
        bytes: u64,
        /// Bytes the memory holds.
        capacity: u64,
        /// The buffer that did not fit.
        buffer: String,
        /// Its tile.
        tile: Vec<usize>,
        /// The largest tile that fits, if any.
        largest_tile: Option<Vec<usize>>,
    },
    /// Help: the largest tile that fits in a memory.
    #[serde(rename = "npu.largest_tile")]
    LargestTile {
        /// The memory.
        memory: String,
        /// The tile.
        tile: Vec<usize>,
    },
    /// Help: no tile of this kind fits.
    #[serde(rename = "npu.no_tile_fits")]
    NoTileFits {
        /// The memory.
        memory: String,
    },
    /// A vec tile whose last dim breaks the UB granule (a sweep row).
    #[serde(rename = "npu.misaligned_last_dim")]
    MisalignedLastDim {
        /// The last dim.
        last: usize,
        /// The granule in bytes.
        granule: usize,
        /// Bytes per element.
        element_bytes: usize,
        /// The multiple to use.
        align: usize,
    },
    /// A kernel ran on the CPU reference path.
    #[serde(rename = "npu.cpu_fallback")]
    CpuFallback {
        /// The kernel.
        kernel: String,
        /// Why (a coded reason, or the engine's English as a `text` message).
        reason: Box<Message>,
    },
    /// Help of the fallback warning.
    #[serde(rename = "npu.cpu_fallback_help")]
    CpuFallbackHelp,
    /// Progress: a kernel call at one stage of its way through the compiler and simulator.
    #[serde(rename = "progress.kernel")]
    KernelProgress {
        /// The kernel.
        kernel: String,
        /// Which kernel call of the cell (1-based).
        call: usize,
        /// What it is doing.
        stage: KernelStage,
    },
    /// A syntax diagnostic's message (its own `{code, params}`).
    #[serde(untagged)]
    Syntax(SyntaxMessage),
    /// A runtime error's message (calls, indices, assertions, values).
    #[serde(untagged)]
    Runtime(RuntimeMessage),
    /// An autograd or tensor error's message.
    #[serde(untagged)]
    Autograd(AutogradMessage),
    /// A custom op's or autograd function's error, with its coded detail.
    #[serde(untagged)]
    AutogradCall(AutogradCallMessage),
    /// An NPU error, fallback reason or kernel-option warning.
    #[serde(untagged)]
    Npu(NpuMessage),
    /// A tensor error with a typed detail (shapes, arguments, bounds), boxed as the library's.
    #[serde(untagged)]
    Tensor(Box<TensorMessage>),
    /// A failed check or run of the simulator (alignment, views, configuration, programs), boxed.
    #[serde(untagged)]
    NpuCheck(Box<NpuCheckMessage>),
    /// A library function's message (pypto, torch, numpy, the functional builtins), boxed: its
    /// largest variants would widen every message.
    #[serde(untagged)]
    Library(Box<LibraryFamily>),
}

/// The stages of a kernel call on the NPU, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KernelStage {
    /// Running the kernel's body: its values, and the capture of its ops.
    Computing,
    /// Lowering the captured work into per-core tile programs.
    Compiling,
    /// Simulating the schedule.
    Simulating,
}

impl KernelStage {
    /// The stages, in order (the progress bar counts them).
    pub const ALL: [KernelStage; 3] = [KernelStage::Computing, KernelStage::Compiling, KernelStage::Simulating];

    /// 1-based position among [`KernelStage::ALL`].
    pub fn position(self) -> usize {
        KernelStage::ALL.iter().position(|stage| *stage == self).unwrap_or(0) + 1
    }
}

impl Message {
    /// The message code (`schedule.busiest_pipe`), as serialised.
    pub fn code(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|value| value.get("code").and_then(|code| code.as_str()).map(str::to_string))
            .unwrap_or_default()
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english())
    }
}

#[cfg(test)]
mod tests;
