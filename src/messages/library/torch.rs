//! Messages of the `torch` module's own mistakes: dtypes it does not hold, conversions that would
//! reinterpret bytes, results it does not return, and its checks (`allclose`, `assert_close`).

use serde::Serialize;

/// A torch function's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryTorchMessage {
    /// `torch.mm`/`bmm` of tensors of another rank.
    #[serde(rename = "library.rank_required")]
    RankRequired {
        /// The function.
        function: String,
        /// The rank it needs.
        rank: usize,
        /// The first shape.
        lhs: Vec<usize>,
        /// The second shape.
        rhs: Vec<usize>,
    },
    /// Help: `torch.matmul` broadcasts.
    #[serde(rename = "library.help.matmul_broadcasts")]
    MatmulBroadcasts,
    /// `from_torch(t, dtype=…)` of another dtype.
    #[serde(rename = "library.reinterpret")]
    Reinterpret {
        /// The function.
        function: String,
        /// The dtype asked for.
        dtype: String,
        /// The tensor's dtype.
        from: String,
    },
    /// Help of [`LibraryTorchMessage::Reinterpret`].
    #[serde(rename = "library.help.convert_values")]
    ConvertValues,
    /// `t.view(dtype)` whose last dim's bytes are not a whole number of the new elements.
    #[serde(rename = "library.view_dtype_size")]
    ViewDtypeSize {
        /// The tensor's dtype.
        from: String,
        /// The dtype asked for.
        to: String,
        /// The tensor's shape.
        shape: Vec<usize>,
    },
    /// A dtype tensors do not hold yet.
    #[serde(rename = "library.dtype_not_available")]
    DtypeNotAvailable {
        /// The torch name (`int64`).
        dtype: String,
    },
    /// Help: the float dtypes.
    #[serde(rename = "library.help.float_dtypes")]
    FloatDtypes,
    /// Help: the torch dtypes.
    #[serde(rename = "library.help.torch_dtypes")]
    TorchDtypes,
    /// `torch.tensor` of integer data.
    #[serde(rename = "library.integer_data")]
    IntegerData,
    /// Help of [`LibraryTorchMessage::IntegerData`].
    #[serde(rename = "library.help.float_data")]
    FloatData,
    /// `x[mask]` with a mask whose shape is not `x`'s leading shape.
    #[serde(rename = "library.mask_shape")]
    MaskShape {
        /// The mask's shape.
        mask: Vec<usize>,
        /// The tensor's shape.
        shape: Vec<usize>,
    },
    /// `x[index]` with a float tensor (or a 0-d `x`).
    #[serde(rename = "library.index_tensor_type")]
    IndexTensorType {
        /// The index's dtype.
        dtype: String,
    },
    /// `x[index] = value` with a value that does not broadcast to the selection.
    #[serde(rename = "library.index_value_shape")]
    IndexValueShape {
        /// The value's shape.
        value: Vec<usize>,
        /// The selection's shape.
        selection: Vec<usize>,
    },
    /// Indexing by a tensor a tensor that requires grad.
    #[serde(rename = "library.index_with_grad")]
    IndexWithGrad,
    /// `torch.autograd.grad` of an input the outputs do not use (torch's words).
    #[serde(rename = "library.unused_input")]
    UnusedInput,
    /// `x.repeat(sizes)` with a size that is not a non-negative int.
    #[serde(rename = "library.repeat_sizes")]
    RepeatSizes,
    /// `x.repeat(sizes)` with fewer sizes than dims (torch's rule).
    #[serde(rename = "library.repeat_rank")]
    RepeatRank {
        /// How many sizes.
        sizes: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// `max(x, dim)`: indices are not available.
    #[serde(rename = "library.no_indices")]
    NoIndices {
        /// `max` or `min`.
        function: String,
    },
    /// Help of [`LibraryTorchMessage::NoIndices`].
    #[serde(rename = "library.help.use_amax")]
    UseAmax {
        /// `max` or `min`.
        function: String,
    },
    /// `torch.randint` with `high <= low`.
    #[serde(rename = "library.empty_random_range")]
    EmptyRandomRange {
        /// The lower bound (inclusive).
        low: i64,
        /// The upper bound (exclusive).
        high: i64,
    },
    /// `torch.allclose` of two dtypes.
    #[serde(rename = "library.dtypes_differ")]
    DtypesDiffer {
        /// The function.
        function: String,
        /// The first dtype.
        left: String,
        /// The second dtype.
        right: String,
    },
    /// Help: cast one side first.
    #[serde(rename = "library.help.cast_one_side")]
    CastOneSide,
    /// Help: cast one side or skip the dtype check.
    #[serde(rename = "library.help.cast_or_unchecked")]
    CastOrUnchecked,
    /// `assert_close` with only one tolerance.
    #[serde(rename = "library.both_tolerances")]
    BothTolerances {
        /// The function.
        function: String,
        /// The missing one.
        missing: String,
    },
    /// `assert_close`: shapes or dtypes differ (torch's sentence).
    #[serde(rename = "library.attribute_mismatch")]
    AttributeMismatch {
        /// `shape` or `dtype`.
        attribute: String,
        /// The actual value.
        actual: String,
        /// The expected value.
        expected: String,
    },
    /// `F.pad` with an odd number of pads.
    #[serde(rename = "library.pad_odd")]
    PadOdd,
    /// `F.pad` with more pads than two per dim.
    #[serde(rename = "library.pad_too_long")]
    PadTooLong {
        /// The number of pads.
        length: usize,
        /// The input's dims.
        rank: usize,
    },
    /// `F.pad` cropping a dim below nothing.
    #[serde(rename = "library.pad_negative_size")]
    PadNegativeSize {
        /// The dim's size.
        size: usize,
        /// The pad before it.
        before: i64,
        /// The pad after it.
        after: i64,
        /// The dim.
        dim: usize,
    },
    /// `F.pad` in a mode other than constant.
    #[serde(rename = "library.pad_mode")]
    PadMode {
        /// The mode asked for.
        mode: String,
    },
    /// A torch_npu op's tensor with too few dims.
    #[serde(rename = "library.npu_rank")]
    NpuRank {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// The tensor's shape.
        shape: Vec<usize>,
        /// The fewest dims it takes.
        least: usize,
    },
    /// A torch_npu op's tensor of another shape than the op needs.
    #[serde(rename = "library.npu_shape")]
    NpuShape {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// The tensor's shape.
        shape: Vec<usize>,
        /// The shapes it takes, as printed (`[384] | [1]`).
        expected: String,
    },
    /// A torch_npu op's tensor or dtype argument of a dtype the op does not take.
    #[serde(rename = "library.npu_dtype")]
    NpuDtype {
        /// The function.
        function: String,
        /// The parameter.
        parameter: String,
        /// The dtype given.
        dtype: String,
        /// The dtypes it takes, as printed (`torch.float16 | torch.bfloat16`).
        expected: String,
    },
    /// `npu_dynamic_quant`'s `group_index` that does not split x's rows into groups.
    #[serde(rename = "library.group_index")]
    GroupIndex {
        /// The function.
        function: String,
        /// x's rows.
        rows: usize,
        /// The group ends given.
        values: Vec<i64>,
    },
    /// `npu_swiglu` along a dim of odd size.
    #[serde(rename = "library.swiglu_odd")]
    SwigluOdd {
        /// The function.
        function: String,
        /// The dim.
        dim: i64,
        /// Its size.
        size: usize,
    },
    /// `assert_close`: values differ (torch's report).
    #[serde(rename = "library.not_close")]
    NotClose {
        /// Elements that differ.
        mismatched: usize,
        /// Elements compared.
        total: usize,
        /// Their share, as printed.
        percent: String,
        /// The greatest absolute difference, as printed.
        absolute: String,
        /// Where.
        absolute_at: String,
        /// `atol`, as printed.
        atol: String,
        /// The greatest relative difference, as printed.
        relative: String,
        /// Where.
        relative_at: String,
        /// `rtol`, as printed.
        rtol: String,
    },
}

impl LibraryTorchMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryTorchMessage::*;
        match self {
            RankRequired { function, rank, lhs, rhs } => {
                format!("{function}: expects {rank}-D tensors, got {lhs:?} and {rhs:?}")
            }
            MatmulBroadcasts => "torch.matmul broadcasts".into(),
            Reinterpret { function, dtype, from } => {
                format!("{function}(dtype={dtype}) would reinterpret the {from} bytes of the tensor")
            }
            ConvertValues => {
                "convert the values instead: pypto.cast(x, dtype), or t.to(dtype) before from_torch".into()
            }
            ViewDtypeSize { from, to, shape } => format!(
                "view(dtype): the last dim of a {from} tensor of shape {shape:?} does not hold a whole number of {to} elements"
            ),
            MaskShape { mask, shape } => format!(
                "the shape of the mask {mask:?} does not match the shape of the indexed tensor {shape:?}"
            ),
            IndexTensorType { dtype } => {
                format!("tensors used as indices must be bool or integer tensors, not {dtype} (and index a tensor with dims)")
            }
            IndexValueShape { value, selection } => {
                format!("shape mismatch: value of shape {value:?} cannot be broadcast to the indexing result of shape {selection:?}")
            }
            IndexWithGrad => "indexing by a tensor is not recorded for backward here: index a tensor that does not require grad (x.detach()[mask])".into(),
            UnusedInput => "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.".into(),
            RepeatSizes => "Tensor.repeat: the sizes must be non-negative ints".into(),
            RepeatRank { sizes, rank } => format!(
                "Tensor.repeat: {sizes} sizes for a tensor of {rank} dims (the number of sizes cannot be smaller than the number of dims)"
            ),
            DtypeNotAvailable { dtype } => format!("torch.{dtype}: {dtype} tensors are not available yet"),
            FloatDtypes => "tensors hold float32, float16, bfloat16 or float64 here; use torch.float32".into(),
            TorchDtypes => "torch.float32, torch.float16, torch.bfloat16 (or pypto.DT_FP32 …)".into(),
            IntegerData => "torch: integer data makes an int64 tensor, which is not available yet".into(),
            FloatData => "pass dtype=torch.float32 (or write the numbers as floats: 1.0)".into(),
            NoIndices { function } => {
                format!("{function}(dim) returns values and indices in torch; indices are not available here")
            }
            UseAmax { function } => {
                format!("use torch.a{function}(x, dim=…, keepdim=…) (or x.a{function}(dim)) for the values")
            }
            EmptyRandomRange { low, high } => {
                format!("torch.randint: the range [{low}, {high}) is empty (high must be greater than low)")
            }
            DtypesDiffer { function, left, right } => format!("{function}: {left} did not match {right}"),
            CastOneSide => "cast one side first, e.g. out.float() or golden.to(out.dtype)".into(),
            CastOrUnchecked => {
                "cast one side (out.float(), golden.to(torch.bfloat16)) or pass check_dtype=False".into()
            }
            BothTolerances { function, missing } => format!(
                "{function}: both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}"
            ),
            AttributeMismatch { attribute, actual, expected } => {
                format!("The values for attribute '{attribute}' do not match: {actual} != {expected}.")
            }
            PadOdd => "Padding length must be divisible by 2".into(),
            PadTooLong { length, rank } => format!(
                "Padding length should be less than or equal to two times the input dimension but got padding length {length} and input of dimension {rank}"
            ),
            PadNegativeSize { size, before, after, dim } => format!(
                "The input size {size}, plus negative padding {before} and {after} resulted in a negative output size, which is invalid. Check dimension {dim} of your input."
            ),
            PadMode { mode } => format!(
                "torch.nn.functional.pad: mode '{mode}' is not available here; only mode='constant' pads (with value=…)"
            ),
            NpuRank { function, parameter, shape, least } => {
                format!("{function}: {parameter} must have at least {least} dims, got shape {shape:?}")
            }
            NpuShape { function, parameter, shape, expected } => {
                format!("{function}: {parameter} must have shape {expected}, got {shape:?}")
            }
            NpuDtype { function, parameter, dtype, expected } => {
                format!("{function}: {parameter} must be {expected}, got {dtype}")
            }
            GroupIndex { function, rows, values } => format!(
                "{function}: group_index must be non-decreasing group ends, each at most the {rows} rows of x and the last equal to {rows}, got {values:?}"
            ),
            SwigluOdd { function, dim, size } => {
                format!("{function}: dim {dim} has size {size}, which does not split into two halves")
            }
            NotClose { mismatched, total, percent, absolute, absolute_at, atol, relative, relative_at, rtol } => format!(
                "Tensor-likes are not close!\n\nMismatched elements: {mismatched} / {total} ({percent}%)\nGreatest absolute difference: {absolute} at index {absolute_at} (up to {atol} allowed)\nGreatest relative difference: {relative} at index {relative_at} (up to {rtol} allowed)"
            ),
        }
    }
}
