//! Messages of the library's tensor functions: creation (`pypto.tensor`, `as_tensor`, `arange`,
//! `pypto.Tensor` specs), indexing, shapes and views, writes into tensors, and what
//! `pypto.matmul`'s output options (`extend_params`, `c_matrix_nz`) model.

use serde::Serialize;

/// A tensor function's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryTensorMessage {
    /// `pypto.tensor(…, requires_grad=…)`.
    #[serde(rename = "library.tensor_no_requires_grad")]
    TensorNoRequiresGrad,
    /// Help of [`LibraryTensorMessage::TensorNoRequiresGrad`].
    #[serde(rename = "library.help.data_with_gradients")]
    DataWithGradients,
    /// `pypto.tensor(data)`: it takes a shape.
    #[serde(rename = "library.tensor_from_data")]
    TensorFromData {
        /// What it was given: `tensor`, `float` or `data`.
        given: String,
    },
    /// Help: `pypto.as_tensor` makes a tensor from data.
    #[serde(rename = "library.help.as_tensor")]
    UseAsTensor,
    /// More elements than the session allows.
    #[serde(rename = "library.too_many_elements")]
    TooManyElements {
        /// The shape.
        shape: Vec<usize>,
        /// The limit.
        limit: usize,
    },
    /// `arange` of more elements than the session allows.
    #[serde(rename = "library.range_too_long")]
    RangeTooLong {
        /// The function.
        function: String,
        /// The element count.
        count: String,
    },
    /// `as_tensor` of lists nested too deep.
    #[serde(rename = "library.nested_too_deep")]
    NestedTooDeep {
        /// The function.
        function: String,
        /// The most levels.
        levels: usize,
    },
    /// `as_tensor` of ragged lists: a non-list where a list was expected.
    #[serde(rename = "library.ragged_item")]
    RaggedItem {
        /// The function.
        function: String,
        /// The type found.
        got: String,
    },
    /// `as_tensor` of ragged lists: a list of the wrong length.
    #[serde(rename = "library.ragged_length")]
    RaggedLength {
        /// The function.
        function: String,
        /// Its length.
        length: usize,
        /// The length expected.
        expected: usize,
    },
    /// A step of zero.
    #[serde(rename = "library.zero_step")]
    ZeroStep {
        /// The function.
        function: String,
    },
    /// A comparison operator tensors do not take (`in`, `is`).
    #[serde(rename = "library.tensor_operator")]
    TensorOperator {
        /// The operator.
        operator: String,
    },
    /// Help: the element-wise comparisons.
    #[serde(rename = "library.help.compare_elementwise")]
    CompareElementwise,
    /// `a < x < b` with tensors.
    #[serde(rename = "library.chained_comparison")]
    ChainedComparison,
    /// Help of [`LibraryTensorMessage::ChainedComparison`].
    #[serde(rename = "library.help.combine_masks")]
    CombineMasks,
    /// An in-place write into a leaf that requires grad.
    #[serde(rename = "library.leaf_in_place")]
    LeafInPlace,
    /// Help of [`LibraryTensorMessage::LeafInPlace`].
    #[serde(rename = "library.help.no_grad_update")]
    NoGradUpdate,
    /// `x.requires_grad_(False)` of a computed tensor (torch's rule: only leaves change the flag).
    #[serde(rename = "library.requires_grad_of_non_leaf")]
    RequiresGradOfNonLeaf,
    /// `pypto.assemble` into a leaf that requires grad.
    #[serde(rename = "library.assemble_into_leaf")]
    AssembleIntoLeaf,
    /// `requires_grad` set on a non-leaf.
    #[serde(rename = "library.requires_grad_non_leaf")]
    RequiresGradNonLeaf,
    /// Help of [`LibraryTensorMessage::RequiresGradNonLeaf`].
    #[serde(rename = "library.help.detach")]
    UseDetach,
    /// An index with two ellipses.
    #[serde(rename = "library.single_ellipsis")]
    SingleEllipsis,
    /// More indices than dims.
    #[serde(rename = "library.too_many_indices")]
    TooManyIndices {
        /// The tensor's shape.
        shape: Vec<usize>,
        /// Indices given.
        given: usize,
    },
    /// An index part of the wrong type.
    #[serde(rename = "library.tensor_index_type")]
    TensorIndexType {
        /// Its type.
        got: String,
    },
    /// Help: `pypto.view` for a tile.
    #[serde(rename = "library.help.view_for_tile")]
    ViewForTile,
    /// `for row in x` of a 0-d tensor.
    #[serde(rename = "library.iterate_scalar")]
    IterateScalar,
    /// `out.move(value)` of a value that is not a tensor.
    #[serde(rename = "library.move_type")]
    MoveType {
        /// Its type.
        got: String,
    },
    /// Help: fill with a number.
    #[serde(rename = "library.help.fill_number")]
    FillNumber,
    /// `out.move(t)` of another shape.
    #[serde(rename = "library.move_shape")]
    MoveShape {
        /// The moved tensor's shape.
        source: Vec<usize>,
        /// The output's shape.
        target: Vec<usize>,
    },
    /// Help: assemble a tile into part of the output.
    #[serde(rename = "library.help.assemble_part")]
    AssemblePart,
    /// A batched matmul whose operands are not `[M, B, K]` and `[B, K, N]`.
    #[serde(rename = "library.batch_matmul_shapes")]
    BatchMatmulShapes {
        /// The function.
        function: String,
        /// The first shape.
        lhs: Vec<usize>,
        /// The second shape.
        rhs: Vec<usize>,
    },
    /// Help of [`LibraryTensorMessage::BatchMatmulShapes`].
    #[serde(rename = "library.help.batch_matmul_shapes")]
    BatchMatmulForm,
    /// An `extend_params` entry the simulated cube does not model.
    #[serde(rename = "library.extend_param_not_modelled")]
    ExtendParamNotModelled {
        /// The function.
        function: String,
        /// The entry's key.
        key: String,
    },
    /// Help of [`LibraryTensorMessage::ExtendParamNotModelled`]: what is modelled.
    #[serde(rename = "library.help.extend_params")]
    ExtendParams,
    /// `extend_params={"bias_tensor": …}` with another number of columns than the product.
    #[serde(rename = "library.bias_columns")]
    BiasColumns {
        /// The function.
        function: String,
        /// The bias's columns.
        columns: usize,
        /// The product's columns.
        product: usize,
    },
    /// Help of [`LibraryTensorMessage::BiasColumns`].
    #[serde(rename = "library.help.bias_row")]
    BiasRow,
    /// `c_matrix_nz=True`: an NZ-format output.
    #[serde(rename = "library.nz_output")]
    NzOutput {
        /// The function.
        function: String,
    },
    /// Help of [`LibraryTensorMessage::NzOutput`].
    #[serde(rename = "library.help.leave_out_nz")]
    LeaveOutNz,
    /// An op that needs more dims (`tensor.mT`).
    #[serde(rename = "library.needs_dims")]
    NeedsDims {
        /// The op.
        function: String,
        /// The fewest dims.
        count: usize,
    },
    /// `permute` of a value that is not a dim.
    #[serde(rename = "library.not_a_dim")]
    NotADim {
        /// The function.
        function: String,
        /// The value, as written.
        item: String,
        /// The rank.
        rank: usize,
    },
    /// `flatten(start, end)` out of range.
    #[serde(rename = "library.flatten_range")]
    FlattenRange {
        /// The first dim.
        start: i64,
        /// The last dim.
        end: i64,
        /// The rank.
        rank: usize,
    },
    /// `group_norm` of channels that do not split.
    #[serde(rename = "library.groups_split")]
    GroupsSplit {
        /// The function.
        function: String,
        /// The channels.
        channels: usize,
        /// The groups.
        groups: usize,
    },
    /// `reshape` with a shape that holds something other than ints.
    #[serde(rename = "library.shape_of_ints")]
    ShapeOfInts {
        /// The function.
        function: String,
    },
    /// `reshape` with an invalid shape.
    #[serde(rename = "library.invalid_shape")]
    InvalidShape {
        /// The function.
        function: String,
        /// The dims given.
        dims: Vec<i64>,
    },
    /// Help: the `valid_shape` that makes a ragged view legal.
    #[serde(rename = "library.help.valid_shape")]
    PassValidShape {
        /// The valid shape.
        fits: Vec<usize>,
        /// The tile's shape.
        shape: Vec<usize>,
    },
    /// Help of a view out of bounds.
    #[serde(rename = "library.help.view_valid_shape")]
    ViewValidShape,
    /// A `pypto.Tensor` dim that is not a size or a marker.
    #[serde(rename = "library.spec_dim")]
    SpecDim {
        /// The value, as written.
        got: String,
    },
    /// Help: specs are shapes; `pypto.tensor` allocates.
    #[serde(rename = "library.help.spec_or_tensor")]
    SpecOrTensor,
    /// Help: calling a spec.
    #[serde(rename = "library.help.spec_not_callable")]
    SpecNotCallable,
}

impl LibraryTensorMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryTensorMessage::*;
        match self {
            TensorNoRequiresGrad => "pypto.tensor(shape, dtype, name) has no 'requires_grad'".into(),
            DataWithGradients => "for data with gradients use pypto.as_tensor(data, requires_grad=True); for zeros, pypto.zeros(shape, requires_grad=True)".into(),
            TensorFromData { given } => {
                let what = match given.as_str() {
                    "tensor" => "a tensor",
                    "float" => "a float",
                    _ => "data (nested lists or floats)",
                };
                format!("pypto.tensor(shape, dtype, name) allocates a tensor of zeros from a shape; it was given {what}")
            }
            UseAsTensor => "make a tensor from data with pypto.as_tensor(data, dtype=pypto.DT_FP32, requires_grad=False)".into(),
            TooManyElements { shape, limit } => format!("a tensor of shape {shape:?} exceeds the limit of {limit} elements"),
            RangeTooLong { function, count } => format!("{function}: {count} elements exceed the tensor limit"),
            NestedTooDeep { function, levels } => format!("{function}: data nested deeper than {levels} levels"),
            RaggedItem { function, got } => {
                format!("{function}: ragged nested lists (found a {got} where a list was expected)")
            }
            RaggedLength { function, length, expected } => {
                format!("{function}: ragged nested lists (a list of {length} where {expected} was expected)")
            }
            ZeroStep { function } => format!("{function}: step must not be zero"),
            TensorOperator { operator } => format!("'{operator}' with a tensor is not supported"),
            CompareElementwise => "compare element-wise with < <= > >= == != (a DT_BOOL mask)".into(),
            ChainedComparison => "a chained comparison of tensors has no single truth value".into(),
            CombineMasks => "combine the masks: pypto.logical_and(a < x, x < b)".into(),
            LeafInPlace => {
                "a tensor with requires_grad=True that was created by the user cannot be changed in place".into()
            }
            NoGradUpdate => "do the update under `with pypto.no_grad():`, or write into a new tensor".into(),
            RequiresGradOfNonLeaf => {
                "requires_grad_: only a tensor created by the user (a leaf) can change requires_grad; this one was computed (use .detach())".into()
            }
            AssembleIntoLeaf => {
                "pypto.assemble: 'out' requires grad and was created by the user; it cannot be written in place".into()
            }
            RequiresGradNonLeaf => "requires_grad can only be changed on tensors created by the user".into(),
            UseDetach => "use x.detach() to get a tensor cut from the graph".into(),
            SingleEllipsis => "an index can only have a single ellipsis ('...')".into(),
            TooManyIndices { shape, given } => format!("too many indices for a tensor of shape {shape:?}: {given} given"),
            TensorIndexType { got } => format!("tensors are indexed by ints, slices and '...', not {got}"),
            ViewForTile => "use pypto.view(x, shape, offsets) for a tile".into(),
            IterateScalar => "iteration over a 0-d tensor".into(),
            MoveType { got } => format!("'{got}' type cannot be moved to Tensor"),
            FillNumber => "to fill a tensor with a number use out[:] = value".into(),
            MoveShape { source, target } => {
                format!("Tensor.move: a tensor of shape {source:?} cannot be moved into one of shape {target:?}")
            }
            AssemblePart => "to write a tile into part of the output use pypto.assemble(tile, offsets, out) or out[a:b, …] = tile".into(),
            BatchMatmulShapes { function, lhs, rhs } => {
                format!("{function}: shapes {lhs:?} and {rhs:?} are not [M, B, K] and [B, K, N]")
            }
            BatchMatmulForm => "tensor_a is [M, B, K] and tensor_b [B, K, N]; the result is [M, B, N]".into(),
            ExtendParamNotModelled { function, key } => {
                format!("{function}: extend_params['{key}'] is not modelled")
            }
            ExtendParams => "the simulated cube adds `bias_tensor`, applies `relu_type` and multiplies by `scale`; integer quantisation (`scale_tensor`) and TF32 rounding (`trans_mode`) are not available".into(),
            BiasColumns { function, columns, product } => {
                format!("{function}: bias_tensor has {columns} columns, the product {product}")
            }
            BiasRow => "bias_tensor is [1, N]: one value per column of the product".into(),
            NzOutput { function } => format!("{function}: c_matrix_nz=True (an NZ output) is not modelled"),
            LeaveOutNz => "pypto supports only c_matrix_nz=False too: leave it out".into(),
            NeedsDims { function, count } => format!("{function} needs at least {count} dims"),
            NotADim { function, item, rank } => format!("{function}: {item} is not a dim of a {rank}-D tensor"),
            FlattenRange { start, end, rank } => {
                format!("flatten: dims {start}..={end} are not a range of a {rank}-D tensor")
            }
            GroupsSplit { function, channels, groups } => {
                format!("{function}: {channels} channels cannot be split into {groups} groups")
            }
            ShapeOfInts { function } => format!("{function}: a shape holds ints"),
            InvalidShape { function, dims } => format!("{function}: invalid shape {dims:?}"),
            PassValidShape { fits, shape } => format!(
                "pass valid_shape={fits:?}: the tile keeps shape {shape:?} and the elements outside valid_shape read as 0"
            ),
            ViewValidShape => {
                "pypto.view(x, shape, offsets, valid_shape=[…]) reads the elements outside valid_shape as 0".into()
            }
            SpecDim { got } => format!("pypto.Tensor(): a dim is an int, pypto.DYNAMIC, pypto.STATIC or ..., not {got}"),
            SpecOrTensor => {
                "to make a tensor with values use pypto.tensor(shape, dtype) (zeros) or pypto.as_tensor(data)".into()
            }
            SpecNotCallable => {
                "pypto.Tensor(shape, dtype) is a shape-only spec; pypto.tensor(shape, dtype) allocates zeros".into()
            }
        }
    }
}
