//! Messages of the library's kernel tools: vec tile dims and options (cube tiles and buffer depths
//! are `tiling`'s), `pypto.loop` and its helpers, `pypto.schedule`, `pypto.npu.sweep`,
//! `pypto.npu.use`, registered gradients and gradient checks, the loss scaler.

use serde::Serialize;

use super::Message;

/// A kernel tool's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryKernelMessage {
    /// A function that only runs inside a kernel.
    #[serde(rename = "library.outside_kernel")]
    OutsideKernel {
        /// The function.
        function: String,
    },
    /// A vec tile dim that is not a positive int.
    #[serde(rename = "library.tile_dims")]
    TileDims {
        /// The value, as written.
        got: String,
    },
    /// An unroll factor that is not a positive int.
    #[serde(rename = "library.unroll_factors")]
    UnrollFactors {
        /// The value, as written.
        got: String,
    },
    /// A parameter that must be positive.
    #[serde(rename = "library.must_be_positive")]
    MustBePositive {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// The value given, when shown.
        got: Option<i64>,
    },
    /// A semantic label of the reserved form.
    #[serde(rename = "library.reserved_label")]
    ReservedLabel {
        /// The function.
        function: String,
        /// The label.
        label: String,
    },
    /// Help of [`LibraryKernelMessage::ReservedLabel`].
    #[serde(rename = "library.help.other_label")]
    OtherLabel,
    /// `@pypto.options` on something that is not a function.
    #[serde(rename = "library.options_target")]
    OptionsTarget {
        /// The type decorated.
        got: String,
    },
    /// `pypto.cond` with one of `file`/`lineno`.
    #[serde(rename = "library.file_and_lineno")]
    FileAndLineno,
    /// A named `pypto.SymbolicScalar` without a value, which nothing here binds.
    #[serde(rename = "library.unbound_symbol")]
    UnboundSymbol {
        /// The symbol's name.
        name: String,
    },
    /// Help of [`LibraryKernelMessage::UnboundSymbol`].
    #[serde(rename = "library.help.symbol_value")]
    SymbolValue {
        /// The symbol's name.
        name: String,
    },
    /// Division by zero in a library function.
    #[serde(rename = "library.division_by_zero")]
    DivisionByZero {
        /// The function.
        function: String,
    },
    /// Integer overflow in a library function's result.
    #[serde(rename = "library.overflow")]
    Overflow {
        /// The function.
        function: String,
    },
    /// Integer overflow of a named product (`step × factor`).
    #[serde(rename = "library.product_overflow")]
    ProductOverflow {
        /// The function.
        function: String,
        /// The product, as written.
        what: String,
    },
    /// `is_loop_begin` outside a `pypto.loop`.
    #[serde(rename = "library.outside_loop")]
    OutsideLoop {
        /// The function.
        function: String,
    },
    /// Help of [`LibraryKernelMessage::OutsideLoop`].
    #[serde(rename = "library.help.loop_position")]
    LoopPosition,
    /// `is_loop_begin(i)` of a value that is no running loop's index.
    #[serde(rename = "library.not_loop_index")]
    NotLoopIndex {
        /// The function.
        function: String,
        /// The value.
        index: i64,
    },
    /// Help of [`LibraryKernelMessage::NotLoopIndex`].
    #[serde(rename = "library.help.pass_loop_variable")]
    PassLoopVariable,
    /// Help: decorate a function to make a kernel.
    #[serde(rename = "library.help.decorate_kernel")]
    DecorateKernel,
    /// The kernel's frame was lost (an internal error).
    #[serde(rename = "library.frame_lost")]
    FrameLost {
        /// The function.
        function: String,
    },
    /// A kernel that did not run on the NPU, and why.
    #[serde(rename = "library.not_on_npu")]
    NotOnNpu {
        /// The function.
        function: String,
        /// The kernel.
        kernel: String,
        /// Why.
        reason: Box<Message>,
    },
    /// A kernel that ran on the CPU reference path because its tensors are f64.
    #[serde(rename = "library.f64_reference")]
    F64Reference {
        /// The function.
        function: String,
        /// The kernel.
        kernel: String,
    },
    /// Help of [`LibraryKernelMessage::F64Reference`].
    #[serde(rename = "library.help.npu_dtypes")]
    NpuDtypes,
    /// Help of `warm_l2`.
    #[serde(rename = "library.help.warm_l2")]
    WarmL2,
    /// A library function that failed for a reason of another layer.
    #[serde(rename = "library.failed")]
    Failed {
        /// The function.
        function: String,
        /// Why.
        reason: Box<Message>,
    },
    /// A `pypto.Tensor` spec without sizes given to `pypto.schedule`.
    #[serde(rename = "library.spec_sizes")]
    SpecSizes {
        /// The function.
        function: String,
    },
    /// Help of [`LibraryKernelMessage::SpecSizes`].
    #[serde(rename = "library.help.spec_sizes")]
    GiveSizes,
    /// A `pypto.Tensor` spec too big for the reference pass.
    #[serde(rename = "library.spec_too_big")]
    SpecTooBig {
        /// The function.
        function: String,
        /// The shape.
        shape: Vec<usize>,
        /// The limit in elements.
        limit: usize,
    },
    /// Help of [`LibraryKernelMessage::SpecTooBig`].
    #[serde(rename = "library.help.smaller_shape")]
    SmallerShape,
    /// `pypto.npu.sweep` without shapes.
    #[serde(rename = "library.no_vec_tiles")]
    NoVecTiles,
    /// Help of [`LibraryKernelMessage::NoVecTiles`].
    #[serde(rename = "library.help.vec_tiles")]
    VecTilesForm,
    /// A swept vec tile with a zero dim.
    #[serde(rename = "library.sweep_tile_dims")]
    SweepTileDims {
        /// Its position.
        index: usize,
        /// The tile.
        tile: Vec<usize>,
    },
    /// Help of a refused custom preset.
    #[serde(rename = "library.help.preset_fields")]
    PresetFields,
    /// A custom preset whose keys are not strings.
    #[serde(rename = "library.preset_keys")]
    PresetKeys,
    /// A custom preset field of the wrong type.
    #[serde(rename = "library.preset_field")]
    PresetField {
        /// The field.
        key: String,
        /// Its type.
        got: String,
    },
    /// `pypto.platform.npuarch` of an architecture no preset models.
    #[serde(rename = "library.unknown_arch")]
    UnknownArch {
        /// The architecture.
        arch: String,
    },
    /// Help of [`LibraryKernelMessage::UnknownArch`].
    #[serde(rename = "library.help.arch_presets")]
    ArchPresets {
        /// The presets, in backticks, comma-separated.
        presets: String,
    },
    /// `check_gradient` without inputs.
    #[serde(rename = "library.no_inputs")]
    NoInputs,
    /// `check_gradient` of a function that returned no tensor.
    #[serde(rename = "library.returned_non_tensor")]
    ReturnedNonTensor {
        /// The type returned.
        got: String,
    },
    /// A kernel with a registered gradient returned something other than tensors.
    #[serde(rename = "library.kernel_outputs")]
    KernelOutputs {
        /// The kernel.
        kernel: String,
        /// The type returned.
        got: String,
    },
    /// A kernel with a registered gradient returned a tuple with a non-tensor in it.
    #[serde(rename = "library.kernel_output_item")]
    KernelOutputItem {
        /// The kernel.
        kernel: String,
        /// The item's type.
        got: String,
    },
    /// A registered gradient that returned the wrong number of gradients.
    #[serde(rename = "library.gradient_count")]
    GradientCount {
        /// The kernel.
        kernel: String,
        /// Gradients returned.
        count: usize,
        /// Tensor inputs.
        inputs: usize,
    },
    /// Help of [`LibraryKernelMessage::GradientCount`].
    #[serde(rename = "library.help.one_gradient_each")]
    OneGradientEach,
    /// A registered gradient of the wrong shape.
    #[serde(rename = "library.gradient_shape")]
    GradientShape {
        /// The kernel.
        kernel: String,
        /// The gradient's shape.
        shape: Vec<usize>,
        /// The input.
        index: usize,
        /// The input's shape.
        expected: Vec<usize>,
    },
    /// Help of [`LibraryKernelMessage::GradientShape`].
    #[serde(rename = "library.help.gradient_shape")]
    ReduceBroadcast,
    /// A registered gradient that returned neither a tensor nor None.
    #[serde(rename = "library.gradient_type")]
    GradientType {
        /// The kernel.
        kernel: String,
        /// The type returned.
        got: String,
    },
    /// Help of [`LibraryKernelMessage::GradientType`].
    #[serde(rename = "library.help.gradient_type")]
    ReturnTensorOrNone,
    /// A `LossScaler` with settings out of range.
    #[serde(rename = "library.loss_scaler_settings")]
    LossScalerSettings {
        /// The settings, as printed.
        got: String,
    },
}

impl LibraryKernelMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryKernelMessage::*;
        match self {
            OutsideKernel { function } => format!("{function} can only be called inside a @pypto.kernel"),
            TileDims { got } => format!("set_vec_tile_shapes: tile dims are positive ints, not {got}"),
            UnrollFactors { got } => format!("unroll_list holds positive ints, not {got}"),
            MustBePositive { function, parameter, got } => match got {
                Some(got) => format!("{function}: {parameter} must be positive, got {got}"),
                None => format!("{function}: {parameter} must be positive"),
            },
            ReservedLabel { function, label } => {
                format!("{function}: label '{label}' has the form of a per-function key (func<magic>_<order>)")
            }
            OtherLabel => "use a label that does not match func<digits>_<digits>".into(),
            OptionsTarget { got } => format!("@pypto.options decorates a function or a kernel, not a '{got}'"),
            FileAndLineno => "pypto.cond: file and lineno must be given together or omitted".into(),
            UnboundSymbol { name } => format!(
                "pypto.SymbolicScalar('{name}') reads 0: nothing binds a symbol of that name here, and pypto's \
                 runtime starts every symbol at 0"
            ),
            SymbolValue { name } => format!(
                "loop indices and dims are values here, not named symbols; give it a value with \
                 pypto.SymbolicScalar('{name}', value)"
            ),
            DivisionByZero { function } => format!("{function}: division by zero"),
            Overflow { function } => format!("{function}: integer overflow"),
            ProductOverflow { function, what } => format!("{function}: {what} overflows"),
            OutsideLoop { function } => format!("{function} must be called inside a `for … in pypto.loop(…)`"),
            LoopPosition => {
                "it tells whether the loop index is at the first (is_loop_begin) or last (is_loop_end) iteration".into()
            }
            NotLoopIndex { function, index } => format!("{function}: {index} is not the index of a running pypto.loop"),
            PassLoopVariable => {
                "pass the loop variable itself: `for i in pypto.loop(n): if pypto.is_loop_begin(i): …`".into()
            }
            DecorateKernel => "decorate the function with @pypto.kernel or @pypto.frontend.jit".into(),
            FrameLost { function } => format!("{function}: the kernel's frame was lost"),
            NotOnNpu { function, kernel, reason } => {
                format!("{function}: kernel '{kernel}' did not run on the NPU: {}", reason.english())
            }
            F64Reference { function, kernel } => format!(
                "{function}: kernel '{kernel}' ran on the CPU reference path (f64 tensors are the CPU reference dtype)"
            ),
            NpuDtypes => "call it with f32, f16 or bf16 tensors".into(),
            WarmL2 => "warm_l2=True schedules the kernel run again right after itself (L2 warm)".into(),
            Failed { function, reason } => format!("{function}: {}", reason.english()),
            SpecSizes { function } => format!("{function}: a pypto.Tensor spec needs a size for every dim"),
            GiveSizes => "give the sizes to schedule, e.g. pypto.Tensor([4096, 4096], pypto.DT_BF16)".into(),
            SpecTooBig { function, shape, limit } => format!(
                "{function}: a pypto.Tensor spec of shape {shape:?} is too big for the kernel's reference pass (at most {limit} elements)"
            ),
            SmallerShape => "schedule a smaller shape: the kernel still runs once on the CPU to record its ops".into(),
            NoVecTiles => "pypto.npu.sweep: vec_tiles is empty".into(),
            VecTilesForm => "pass a list of shapes, e.g. vec_tiles=[[8, 64], [16, 64]]".into(),
            SweepTileDims { index, tile } => format!("pypto.npu.sweep: vec tile {index} {tile:?} needs positive dims"),
            PresetFields => {
                "start from a preset's fields: settings = pypto.npu.config(), then change the values you need".into()
            }
            PresetKeys => "pypto.npu.use: the preset's keys are field names (strings)".into(),
            PresetField { key, got } => {
                format!("pypto.npu.use: field '{key}' holds a {got}, not a number or a string")
            }
            UnknownArch { arch } => format!("pypto.platform.npuarch: no NPU preset models the architecture '{arch}'"),
            ArchPresets { presets } => format!("the presets model DAV_2201 (Ascend910B2) and DAV_1001 (Ascend910A); pypto.npu.use(name) selects any of: {presets}"),
            NoInputs => "check_gradient: no input tensors".into(),
            ReturnedNonTensor { got } => format!("check_gradient: the function returned {got}, not a tensor"),
            KernelOutputItem { kernel, got } => format!(
                "kernel '{kernel}' returned a {got} among its outputs; a kernel with a registered gradient returns tensors"
            ),
            KernelOutputs { kernel, got } => format!(
                "kernel '{kernel}' returned {got}; a kernel with a registered gradient returns its output tensors"
            ),
            GradientCount { kernel, count, inputs } => format!(
                "the registered gradient of '{kernel}' returned {count} gradients for {inputs} tensor inputs"
            ),
            OneGradientEach => {
                "a registered backward returns one gradient (or None) per tensor input of the kernel, in order".into()
            }
            GradientShape { kernel, shape, index, expected } => format!(
                "the registered gradient of '{kernel}' returned a gradient of shape {shape:?} for input {index} of shape {expected:?}"
            ),
            ReduceBroadcast => "each gradient has the shape of its input (reduce broadcast dimensions with .sum(dim, keepdim=True))".into(),
            GradientType { kernel, got } => format!(
                "the registered gradient of '{kernel}' returned a {got} where a tensor or None was expected"
            ),
            ReturnTensorOrNone => "return one tensor (or None) per tensor input of the kernel".into(),
            LossScalerSettings { got } => format!(
                "LossScaler: need init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1, growth_interval ≥ 1 (got {got})"
            ),
        }
    }
}
