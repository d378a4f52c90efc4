//! Messages of the simulated NPU and of the kernel decorators: presets, cores, deadlocks, why a
//! kernel ran on the CPU, and the warnings for options the simulator accepts but does not model.

use serde::Serialize;

/// An NPU error, a fallback reason or a kernel-option warning.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum NpuMessage {
    /// No preset of that name (`function` is the call that asked for it, if any).
    #[serde(rename = "npu.unknown_preset")]
    UnknownPreset {
        /// `pypto.npu.use`.
        function: Option<String>,
        /// The name asked for.
        name: String,
        /// The presets, comma-separated.
        known: String,
    },
    /// Help: the presets there are.
    #[serde(rename = "npu.presets")]
    Presets {
        /// The presets, comma-separated.
        known: String,
    },
    /// More programs of one kind than the chip has cores.
    #[serde(rename = "npu.too_many_cores")]
    TooManyCores {
        /// `cube` or `vector`.
        kind: String,
        /// Programs.
        programs: usize,
        /// Cores of that kind.
        available: u32,
    },
    /// Pipes waiting on a flag nobody sets.
    #[serde(rename = "npu.deadlock")]
    Deadlock {
        /// The core.
        core: usize,
        /// The pipe.
        pipe: String,
        /// The instruction's index.
        instruction: usize,
        /// The instruction's op.
        op: String,
    },
    /// A kernel op with no tile lowering (`line` in the kernel's cell).
    #[serde(rename = "npu.fallback.op")]
    FallbackOp {
        /// The op.
        op: String,
        /// Its script line.
        line: Option<u32>,
    },
    /// A kernel that only calls other kernels (its work ran on the NPU in them).
    #[serde(rename = "npu.calls_kernels")]
    CallsKernels,
    /// A jit kernel that writes none of its outputs.
    #[serde(rename = "npu.no_output")]
    NoOutput,
    /// A use of an op the tile recorder does not take, and why.
    #[serde(rename = "npu.fallback.unsupported")]
    FallbackUnsupported {
        /// What cannot run.
        what: super::CompilerReason,
        /// Its script line.
        line: Option<u32>,
    },
    /// Tile work the compiler's lowering refused (`op`: the lowering stage or instruction).
    #[serde(rename = "npu.fallback.lowering")]
    FallbackLowering {
        /// The stage or instruction that refused it.
        op: String,
        /// Why.
        reason: super::LoweringReason,
        /// Its script line.
        line: Option<u32>,
    },
    /// A compiled kernel whose values the simulator could not compute (a generated backward).
    #[serde(rename = "npu.fallback.values")]
    FallbackValues {
        /// The error.
        error: Box<super::Message>,
    },
    /// A construct whose backward cannot be generated as tile ops.
    #[serde(rename = "npu.not_derivable")]
    NotDerivable {
        /// The construct.
        what: super::DerivationReason,
        /// Its script line.
        line: Option<u32>,
    },
    /// A generated backward whose run lost one of its gradients.
    #[serde(rename = "npu.backward_lost_output")]
    BackwardLostOutput,
    /// A kernel without a registered gradient whose backward cannot be generated; its backward runs
    /// on the CPU tape.
    #[serde(rename = "npu.no_generated_backward")]
    NoGeneratedBackward {
        /// The kernel.
        kernel: String,
        /// Why not.
        reason: Box<super::Message>,
    },
    /// Help: how to get a backward on the NPU anyway.
    #[serde(rename = "npu.no_generated_backward.help")]
    NoGeneratedBackwardHelp,
    /// A generated backward the chip or the compiler refused ran on the CPU tape.
    #[serde(rename = "npu.generated_backward_on_cpu")]
    GeneratedBackwardOnCpu {
        /// The backward kernel's name.
        name: String,
        /// Why.
        reason: Box<super::Message>,
    },
    /// Help: a smaller vec tile leaves room for the backward.
    #[serde(rename = "npu.generated_backward_on_cpu.help")]
    GeneratedBackwardOnCpuHelp,
    /// A dict key a kernel option table does not know.
    #[serde(rename = "lang.unknown_option")]
    UnknownOption {
        /// `pass_options` or `runtime_options`.
        table: String,
        /// The key.
        key: String,
    },
    /// Help: the keys pypto documents.
    #[serde(rename = "lang.documented_options")]
    DocumentedOptions {
        /// The keys, comma-separated.
        known: String,
    },
    /// An option accepted and not modelled.
    #[serde(rename = "npu.option_not_modelled")]
    OptionNotModelled {
        /// `pass_options` or `runtime_options`.
        table: String,
        /// The key.
        key: String,
        /// What the simulator lacks.
        feature: super::OptionFeature,
    },
    /// Arguments of a decorator accepted and not modelled.
    #[serde(rename = "npu.options_not_modelled")]
    OptionsNotModelled {
        /// The decorator.
        function: String,
        /// The arguments, comma-separated.
        names: String,
    },
    /// Arguments of `@pypto.frontend.jit` for pypto's compiler and tools, accepted and not modelled.
    #[serde(rename = "npu.jit_options_not_modelled")]
    JitOptionsNotModelled {
        /// The arguments, comma-separated.
        names: String,
    },
    /// Help: tiles are set inside a kernel.
    #[serde(rename = "npu.set_tiles_inside")]
    SetTilesInside,
    /// Modelled options given where no kernel reads them.
    #[serde(rename = "npu.option_scope_not_modelled")]
    OptionScopeNotModelled {
        /// The function they were given to.
        function: String,
        /// The options, comma-separated.
        names: String,
    },
    /// Help: give the options to the kernel.
    #[serde(rename = "npu.give_options_to_kernel")]
    GiveOptionsToKernel,
    /// A cast mode the simulator does not model.
    #[serde(rename = "npu.cast_mode_not_modelled")]
    CastModeNotModelled {
        /// `pypto.CastMode.CAST_ROUND`.
        mode: String,
    },
    /// `loop_unroll` visiting fewer indices than its range.
    #[serde(rename = "lang.loop_unroll_skips")]
    LoopUnrollSkips {
        /// The range's start.
        start: i64,
        /// Its stop.
        stop: i64,
        /// Its step.
        step: i64,
        /// Indices visited.
        visited: i64,
        /// Indices of the range.
        expected: i64,
    },
    /// Help of [`NpuMessage::LoopUnrollSkips`].
    #[serde(rename = "lang.multiple_of_step")]
    MultipleOfStep {
        /// The step.
        step: i64,
    },
    /// A jit kernel's output parameter rebound instead of written.
    #[serde(rename = "lang.jit_output_rebound")]
    JitOutputRebound {
        /// The parameter.
        name: String,
        /// The kernel.
        kernel: String,
    },
    /// Help of [`NpuMessage::JitOutputRebound`].
    #[serde(rename = "lang.write_output_in_place")]
    WriteOutputInPlace {
        /// The parameter.
        name: String,
    },
    /// The swimlane of a kernel run in pypto's simulation mode could not be written.
    #[serde(rename = "npu.cost_model_output_not_written")]
    CostModelOutputNotWritten {
        /// The file.
        path: String,
        /// What the file system said.
        reason: String,
    },
}

impl NpuMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use NpuMessage::*;
        let at_line = |line: &Option<u32>| line.map(|line| format!(" at line {line}")).unwrap_or_default();
        match self {
            UnknownPreset { function, name, known } => {
                let prefix = function.as_ref().map(|function| format!("{function}: ")).unwrap_or_default();
                format!("{prefix}unknown NPU preset '{name}' (known: {known})")
            }
            Presets { known } => format!("presets: {known} (or a dict of every field, as pypto.npu.config() returns)"),
            TooManyCores { kind, programs, available } => {
                format!("{programs} {kind} programs but the chip has {available} {kind} cores")
            }
            Deadlock { core, pipe, instruction, op } => format!(
                "deadlock: core {core} pipe {pipe} waits forever at instruction {instruction} ({op}): a flag it waits for is never set"
            ),
            CallsKernels => "its work runs in the kernels it calls".into(),
            NoOutput => "the kernel writes no output".into(),
            FallbackOp { op, line } => format!("cannot run on the NPU yet: `{op}`{}", at_line(line)),
            FallbackUnsupported { what, line } => {
                format!("cannot run on the NPU yet: {}{}", what.english(), at_line(line))
            }
            FallbackLowering { op, reason, line } => {
                format!("cannot run on the NPU yet: `{op}`: {}{}", reason.english(), at_line(line))
            }
            FallbackValues { error } => format!("the simulator could not compute the values: {}", error.english()),
            NotDerivable { what, line } => format!("{}{}", what.english(), at_line(line)),
            BackwardLostOutput => "the backward lost one of its gradients".into(),
            NoGeneratedBackward { kernel, reason } => {
                format!("kernel '{kernel}' has no generated backward: {reason}; its backward runs on the CPU tape")
            }
            NoGeneratedBackwardHelp => {
                "register one with @pypto.register_gradient, or use ops whose gradients are ops".into()
            }
            GeneratedBackwardOnCpu { name, reason } => format!("the generated backward '{name}' ran on the CPU: {reason}"),
            GeneratedBackwardOnCpuHelp => {
                "a smaller vec tile (set_vec_tile_shapes) leaves room for the backward's working set".into()
            }
            UnknownOption { table, key } => format!("unknown {table} key '{key}' (ignored)"),
            DocumentedOptions { known } => format!("pypto documents: {known}"),
            OptionNotModelled { table, key, feature } => {
                format!("{table} '{key}' is accepted, not modelled: the simulator does not model {}", feature.english())
            }
            OptionsNotModelled { function, names } => format!("{function}: {names} accepted, not modelled"),
            JitOptionsNotModelled { names } => format!(
                "pypto.frontend.jit: {names} accepted, not modelled (settings of pypto's compiler and tools)"
            ),
            SetTilesInside => "inside a kernel, pypto.set_vec_tile_shapes / set_cube_tile_shapes set the tiles".into(),
            OptionScopeNotModelled { function, names } => {
                format!("{function}: {names} set here do not reach a kernel in the simulator")
            }
            GiveOptionsToKernel => "give them to the kernel: @pypto.frontend.jit(pass_options={…}), or @pypto.options(…) directly above the jit decorator".into(),
            CastModeNotModelled { mode } => format!(
                "pypto.cast: {mode} is accepted, not modelled: the cast rounds to nearest-even and does not saturate"
            ),
            LoopUnrollSkips { start, stop, step, visited, expected } => format!(
                "pypto.loop_unroll({start}, {stop}, {step}) visits {visited} of the {expected} indices of range({start}, {stop}, {step}), as pypto's split does"
            ),
            MultipleOfStep { step } => format!("make stop - start a multiple of step ({step}), or use pypto.loop"),
            JitOutputRebound { name, kernel } => format!(
                "'{name}' is a parameter of jit kernel '{kernel}': `{name} = …` rebinds the local name and does not write the output"
            ),
            CostModelOutputNotWritten { path, reason } => {
                format!("the cost model's swimlane (run_mode SIM) could not be written to {path}: {reason}")
            }
            WriteOutputInPlace { name } => format!(
                "outputs of a @pypto.frontend.jit kernel are written in place: `{name}[:] = …` or `pypto.assemble(tile, offsets, {name})`"
            ),
        }
    }
}

impl From<NpuMessage> for super::Message {
    fn from(message: NpuMessage) -> Self {
        super::Message::Npu(message)
    }
}
