// Generated from the Rust result types (src/session/contract.rs) by `make contract`; do not edit.
// What `Playground.runCell` returns and `tilelab run --json` prints, one object per cell.

/**
 * The construct a missing token should follow, for [`GrammarMessage::ExpectedAfter`].
 */
export type After = { "code": "after.base_class" } | { "code": "after.comprehension" } | { "code": "after.comprehension_target" } | { "code": "after.dictionary_key" } | { "code": "after.module_name" } | { "code": "after.imported_names" } | { "code": "after.for_target" } | { "code": "after.decorator" } | { "code": "after.function_name" } | { "code": "after.parameter" };

/**
 * Which alignment rule a tile breaks.
 */
export type AlignmentDetail = { "code": "npu.alignment.too_many_dims", "params": {
    /**
     * Its dims.
     */
    dims: number,
  }
    } | { "code": "npu.alignment.last_dim", "params": {
    /**
     * The last dim in elements.
     */
    last: number,
    /**
     * In bytes.
     */
    bytes: number,
    /**
     * The granule in bytes.
     */
    alignment: number,
    /**
     * The multiple to use, in elements.
     */
    step: number,
  }
    } | { "code": "npu.alignment.cube_fractal", "params": {
    /**
     * Its shape.
     */
    shape: Array<number>,
  }
} | { "code": "npu.alignment.in_gm" };

/**
 * A malformed argument.
 */
export type ArgumentDetail = { "code": "tensor.argument.empty_reduction" } | { "code": "tensor.argument.needs_a_dim" } | { "code": "tensor.argument.needs_float", "params": {
    /**
     * The tensor's dtype (`DT_INT32`).
     */
    dtype: string,
  }
    } | { "code": "tensor.argument.needs_integer", "params": {
    /**
     * The operands' dtype (`DT_FP32`).
     */
    dtype: string,
  }
    } | { "code": "tensor.argument.bool_subtract" } | { "code": "tensor.argument.bool_negate" } | { "code": "tensor.argument.negative_power" } | { "code": "tensor.argument.integer_division_by_zero" } | { "code": "tensor.argument.integer_true_division" } | { "code": "tensor.argument.index_dtype", "params": {
    /**
     * Its dtype.
     */
    dtype: string,
  }
    } | { "code": "tensor.argument.topk_k", "params": {
    /**
     * The k given.
     */
    k: number,
    /**
     * The size of the dim.
     */
    size: number,
    /**
     * The dim.
     */
    dim: number,
  }
    } | { "code": "tensor.argument.not_a_permutation", "params": {
    /**
     * The order given.
     */
    order: Array<number>,
    /**
     * The rank.
     */
    rank: number,
  }
    } | { "code": "tensor.argument.concat_nothing" } | { "code": "tensor.argument.index_count", "params": {
    /**
     * Indices given.
     */
    count: number,
    /**
     * The rank.
     */
    rank: number,
  }
    } | { "code": "tensor.argument.view_entries", "params": {
    /**
     * The rank.
     */
    rank: number,
  }
    } | { "code": "tensor.argument.valid_shape_larger", "params": {
    /**
     * The valid shape.
     */
    valid: Array<number>,
    /**
     * The tile shape.
     */
    shape: Array<number>,
  }
    } | { "code": "tensor.argument.zero_step" } | { "code": "tensor.argument.repeated_dim", "params": {
    /**
     * The dim.
     */
    dim: number,
  }
    } | { "code": "tensor.argument.data_length", "params": {
    /**
     * Values given.
     */
    values: number,
    /**
     * The shape.
     */
    shape: Array<number>,
    /**
     * Its element count.
     */
    count: number,
  }
    } | { "code": "tensor.argument.arange", "params": {
    /**
     * The start.
     */
    start: string,
    /**
     * The stop.
     */
    stop: string,
    /**
     * The step.
     */
    step: string,
  }
    } | { "code": "tensor.argument.item", "params": {
    /**
     * Its shape.
     */
    shape: Array<number>,
  }
};

/**
 * What an invalid assignment target is, for [`GrammarMessage::CannotAssign`].
 */
export type Assignee = { "code": "assignee.tuple_or_list" } | { "code": "assignee.call" } | { "code": "assignee.literal" } | { "code": "assignee.dict" } | { "code": "assignee.set" } | { "code": "assignee.comparison" } | { "code": "assignee.conditional" } | { "code": "assignee.comprehension" } | { "code": "assignee.lambda" } | { "code": "assignee.slice" } | { "code": "assignee.expression" };

/**
 * A custom op's or autograd function's error, with its detail.
 */
export type AutogradCallMessage = { "code": "autograd.custom_op", "params": {
    /**
     * The op.
     */
    name: string,
    /**
     * What broke.
     */
    detail: AutogradDetail,
  }
    } | { "code": "autograd.bad_argument", "params": {
    /**
     * The function.
     */
    op: string,
    /**
     * What was wrong.
     */
    detail: AutogradDetail,
  }
};

/**
 * What a custom op or autograd function found wrong.
 */
export type AutogradDetail = { "code": "autograd.detail.grad_outputs_count", "params": {
    /**
     * Gradients given.
     */
    given: number,
    /**
     * Outputs.
     */
    outputs: number,
  }
    } | { "code": "autograd.detail.gradients_count", "params": {
    /**
     * Gradients returned.
     */
    given: number,
    /**
     * Inputs of the op.
     */
    inputs: number,
  }
    } | { "code": "autograd.detail.no_outputs" } | { "code": "autograd.detail.recomputation_outputs", "params": {
    /**
     * Outputs of the recomputation.
     */
    recomputed: number,
    /**
     * Outputs of the forward.
     */
    forward: number,
  }
    } | { "code": "autograd.detail.captured_grad" } | { "code": "autograd.detail.float_only", "params": {
    /**
     * The tensor's dtype (`DT_INT32`).
     */
    dtype: string,
  }
    } | { "code": "autograd.detail.clip_bound", "params": {
    /**
     * The bound's shape.
     */
    bound: Array<number>,
    /**
     * The input's shape.
     */
    input: Array<number>,
  }
    } | { "code": "autograd.detail.round_float_only" } | { "code": "autograd.detail.scaler_settings", "params": {
    /**
     * The settings, as printed.
     */
    settings: string,
  }
    } | { "code": "autograd.detail.scale_not_representable", "params": {
    /**
     * The scale, as printed.
     */
    scale: string,
    /**
     * The dtype.
     */
    dtype: string,
  }
    } | { "code": "autograd.detail.session_gone" } | { "code": "autograd.detail.forward_consumed" } | { "code": "autograd.detail.script_error", "params": {
    /**
     * The script error's message.
     */
    text: string,
  }
    } | { "code": "autograd.detail.internal", "params": {
    /**
     * The invariant.
     */
    what: string,
  }
};

/**
 * An autograd or tensor error's message or help.
 */
export type AutogradMessage = { "code": "autograd.backward_without_grad", "params": {
    /**
     * The tensor's name in the script.
     */
    name: string,
  }
    } | { "code": "autograd.backward_without_grad_unnamed" } | { "code": "autograd.tensors_without_grad", "params": {
    /**
     * Their names, comma-separated.
     */
    names: string,
    /**
     * The first of them.
     */
    first: string,
  }
    } | { "code": "autograd.create_with_grad" } | { "code": "autograd.non_scalar_output", "params": {
    /**
     * The output's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "autograd.gradient_shape", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The value's shape.
     */
    expected: Array<number>,
    /**
     * The gradient's shape.
     */
    got: Array<number>,
  }
    } | { "code": "autograd.saved_tensors_freed", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "autograd.saved_tensor_modified", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "autograd.gradient_not_implemented", "params": {
    /**
     * The op.
     */
    name: string,
  }
    } | { "code": "autograd.unknown_custom_op", "params": {
    /**
     * The name.
     */
    name: string,
  }
    } | { "code": "tensor.matmul_inner_dims", "params": {
    /**
     * The left shape.
     */
    lhs: Array<number>,
    /**
     * The right shape.
     */
    rhs: Array<number>,
    /**
     * The left operand's inner dim.
     */
    left: number,
    /**
     * The right operand's inner dim.
     */
    right: number,
  }
    } | { "code": "tensor.dim_out_of_range", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The dim.
     */
    dim: number,
    /**
     * The tensor's rank.
     */
    rank: number,
    /**
     * The lowest dim allowed (`-rank`).
     */
    low: number,
    /**
     * The highest dim allowed (`rank - 1`).
     */
    high: number,
  }
    } | { "code": "tensor.dim_of_scalar", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The dim.
     */
    dim: number,
  }
    } | { "code": "tensor.too_many_elements", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The shape.
     */
    shape: Array<number>,
  }
    } | { "code": "tensor.allocation_too_large", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The size, as printed ("1.5 GiB").
     */
    bytes: string,
    /**
     * The limit, as printed.
     */
    limit: string,
  }
};

/**
 * The backward node of a forward op (`MulBackward` …): it produces the gradients of the op's inputs.
 */
export type BackwardNode = {
  /**
   * The id of the forward op it differentiates.
   */
  forward: number,
  /**
   * `<op>_backward`.
   */
  label: string,
  /**
   * For a generated backward kernel: per forward value it reads, saved or recomputed.
   */
  choices: Array<SaveChoice>,
  /**
   * The bytes of the values it chose to save (what the forward wrote to GM for it).
   */
  saved_bytes: number,
  /**
   * For a generated backward kernel: its tile ops in order (the graph view expands the node
   * into them).
   */
  ops: Array<BackwardOp>,
};

/**
 * One tile op of a generated backward kernel, as the graph view lists it.
 */
export type BackwardOp = {
  /**
   * The op (`mul`, `sub`, `matmul` …).
   */
  op: string,
  /**
   * The line of the forward op whose adjoint it belongs to.
   */
  line: number | null,
  /**
   * Shape and dtype of its result (none for an op without one).
   */
  meta: ValueMeta | null,
  /**
   * Whether it reads a forward value the forward saved.
   */
  reads_saved: boolean,
  /**
   * Whether it reads a forward value the backward recomputes.
   */
  reads_recomputed: boolean,
  /**
   * The forward input whose gradient it writes, when it is that gradient's last op.
   */
  gradient_of: string | null,
};

/**
 * Ops of two broadcast inputs.
 */
export type BinaryOp = "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Maximum" | "Minimum" | "FloorDivide" | "Remainder";

/**
 * An index, view or write past an edge.
 */
export type BoundsDetail = { "code": "tensor.bounds.index", "params": {
    /**
     * The index.
     */
    index: number,
    /**
     * The dim.
     */
    dim: number,
    /**
     * Its size.
     */
    size: number,
  }
    } | { "code": "tensor.bounds.slice", "params": {
    /**
     * The dim.
     */
    dim: number,
    /**
     * Its size.
     */
    size: number,
  }
    } | { "code": "tensor.bounds.view", "params": {
    /**
     * The tile's offset in the dim.
     */
    offset: number,
    /**
     * Its elements in the dim.
     */
    count: number,
    /**
     * The dim.
     */
    dim: number,
    /**
     * The tensor's size there.
     */
    size: number,
    /**
     * Elements that fit.
     */
    fits: number,
  }
    } | { "code": "tensor.bounds.assemble", "params": {
    /**
     * Elements written in the dim.
     */
    count: number,
    /**
     * The offset.
     */
    offset: number,
    /**
     * The dim.
     */
    dim: number,
    /**
     * The output's size there.
     */
    size: number,
  }
};

/**
 * What the items between brackets are, for [`SyntaxMessage::ExpectedComma`].
 */
export type BracketItem = { "code": "item.item" } | { "code": "item.list_item" } | { "code": "item.dictionary_entry" } | { "code": "item.argument" } | { "code": "item.index" };

/**
 * A diagnostic placed in a cell's source.
 */
export type CellDiagnostic = {
  /**
   * Error or warning.
   */
  severity: Severity,
  /**
   * Stable code (`syntax/…`, `runtime/…`, `lang/…`).
   */
  code: string,
  /**
   * The message.
   */
  message: string,
  /**
   * Execution number of the cell whose source holds `span` (a function defined earlier may fail).
   */
  cell: number,
  /**
   * Bytes in that cell's source (always on character boundaries).
   */
  span: Span,
  /**
   * 1-based line of the span's start.
   */
  line: number,
  /**
   * 1-based column of the start (characters).
   */
  column: number,
  /**
   * How to fix it.
   */
  help: string | null,
  /**
   * More context.
   */
  note: string | null,
  /**
   * Calls that led to it, innermost first.
   */
  traceback: Array<TraceLine>,
  /**
   * `message` as a message code with parameters (the common diagnostics; the page renders it in
   * its language, `message` stays the English).
   */
  message_code: Message | null,
  /**
   * `help` as a message code.
   */
  help_code: Message | null,
  /**
   * `note` as a message code.
   */
  note_code: Message | null,
};

/**
 * The result of one `run_cell`.
 */
export type CellResult = {
  /**
   * The cell's execution number (1, 2, …); diagnostics name cells by it.
   */
  execution_count: number,
  /**
   * Ok or error.
   */
  status: CellStatus,
  /**
   * What `print` wrote.
   */
  stdout: string,
  /**
   * Rich displays (the value of the last expression).
   */
  displays: Array<Display>,
  /**
   * Errors and warnings with spans.
   */
  diagnostics: Array<CellDiagnostic>,
  /**
   * Wall time of the run in milliseconds.
   */
  duration_ms: number,
  /**
   * The NPU schedule of each kernel the cell called (its last call), in first-call order.
   */
  kernel_schedules: Array<KernelSchedule>,
};

/**
 * Whether the cell ran to its end.
 */
export type CellStatus = "ok" | "error";

/**
 * How the Jacobian was compared.
 */
export type CheckMode = "Auto" | "Full" | "Projection";

/**
 * A runtime error about a class or an instance, or its help.
 */
export type ClassMessage = { "code": "class.flow_in_body" } | { "code": "class.bad_base", "params": {
    /**
     * The base's type.
     */
    got: string,
  }
    } | { "code": "class.bases" } | { "code": "class.single_inheritance" } | { "code": "class.dataclass_of_named_tuple", "params": {
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.dataclass_target", "params": {
    /**
     * The decorated value's type.
     */
    got: string,
  }
    } | { "code": "class.mutable_default", "params": {
    /**
     * `list` or `dict`.
     */
    kind: string,
    /**
     * The field.
     */
    field: string,
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.default_factory", "params": {
    /**
     * The field.
     */
    field: string,
    /**
     * `list` or `dict`.
     */
    kind: string,
  }
    } | { "code": "class.default_order", "params": {
    /**
     * The class.
     */
    class_name: string,
    /**
     * The field without a default.
     */
    field: string,
    /**
     * The earlier field with one.
     */
    previous: string,
  }
    } | { "code": "class.defaults_last" } | { "code": "class.init_returned", "params": {
    /**
     * The class.
     */
    class_name: string,
    /**
     * The returned value's type.
     */
    got: string,
  }
    } | { "code": "class.define_init", "params": {
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.define_call", "params": {
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.fields", "params": {
    /**
     * The class.
     */
    class_name: string,
    /**
     * The fields, comma-separated.
     */
    fields: string,
    /**
     * The closest field, if one is close.
     */
    suggestion: string | null,
  }
    } | { "code": "class.no_class_attribute", "params": {
    /**
     * The class.
     */
    class_name: string,
    /**
     * The attribute.
     */
    name: string,
  }
    } | { "code": "class.named_tuple_immutable", "params": {
    /**
     * The field.
     */
    name: string,
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.use_replace_method", "params": {
    /**
     * The field.
     */
    name: string,
  }
    } | { "code": "class.frozen_field", "params": {
    /**
     * The field.
     */
    name: string,
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.use_dataclasses_replace", "params": {
    /**
     * The field.
     */
    name: string,
  }
    } | { "code": "class.property_without_setter", "params": {
    /**
     * The property.
     */
    name: string,
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "class.replace_form" } | { "code": "class.needs_dataclass_instance", "params": {
    /**
     * `replace` or `asdict`.
     */
    function: string,
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "class.no_field", "params": {
    /**
     * The class.
     */
    class_name: string,
    /**
     * The keyword.
     */
    name: string,
  }
    } | { "code": "class.super_outside_method" } | { "code": "class.super_in_method" } | { "code": "class.super_not_callable", "params": {
    /**
     * The attribute.
     */
    name: string,
  }
    } | { "code": "class.text_method_type", "params": {
    /**
     * `__str__` or `__repr__`.
     */
    method: string,
    /**
     * The returned value's type.
     */
    got: string,
  }
    } | { "code": "class.object_as_base" } | { "code": "class.field_default_and_factory" } | { "code": "class.named_tuple_class_form" } | { "code": "class.annotation_called", "params": {
    /**
     * `typing.Optional` …
     */
    name: string,
  }
    } | { "code": "class.annotations_ignored" } | { "code": "class.isinstance_annotation", "params": {
    /**
     * The `typing` name.
     */
    name: string,
  }
    } | { "code": "class.isinstance_concrete" } | { "code": "class.isinstance_type", "params": {
    /**
     * The value's type, or the builtin's name.
     */
    got: string,
  }
    } | { "code": "class.attribute_name_type", "params": {
    /**
     * The name's type.
     */
    got: string,
  }
    } | { "code": "class.typing_names" } | { "code": "class.extend_enumeration", "params": {
    /**
     * The new class.
     */
    class_name: string,
    /**
     * The enumeration.
     */
    base_name: string,
  }
    } | { "code": "class.enumeration_value", "params": {
    /**
     * The enumeration.
     */
    class_name: string,
    /**
     * The member.
     */
    name: string,
    /**
     * `int` or `str`.
     */
    expected: string,
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "class.not_enumeration_value", "params": {
    /**
     * The value's repr.
     */
    value: string,
    /**
     * The enumeration.
     */
    class_name: string,
  }
    } | { "code": "class.duplicate_enumeration_value", "params": {
    /**
     * The enumeration.
     */
    class_name: string,
    /**
     * The second name of a value.
     */
    alias: string,
    /**
     * The member's name.
     */
    name: string,
  }
    } | { "code": "class.unique_target", "params": {
    /**
     * Its type.
     */
    got: string,
  }
} | { "code": "class.no_attribute_dict" };

/**
 * A reason the tile recorder refused a kernel.
 */
export type CompilerReason = { "code": "npu.reason.op", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.operand_type", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The operand's Python type.
     */
    type_name: string,
  }
    } | { "code": "npu.reason.operand_not_tensor", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.numbers_only", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.number_index", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.no_result", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.used_as_value", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.inside_computation" } | { "code": "npu.reason.index_step" } | { "code": "npu.reason.write_step" } | { "code": "npu.reason.write_value", "params": {
    /**
     * The value's Python type.
     */
    type_name: string,
  }
    } | { "code": "npu.reason.number_into_region" } | { "code": "npu.reason.transpose_dims" } | { "code": "npu.reason.expand_valid_shape" } | { "code": "npu.reason.expand_shape", "params": {
    /**
     * The tile's shape.
     */
    from: Array<number>,
    /**
     * The shape asked for.
     */
    to: Array<number>,
  }
    } | { "code": "npu.reason.ragged_reshape", "params": {
    /**
     * The tile's shape.
     */
    from: Array<number>,
    /**
     * The shape asked for.
     */
    to: Array<number>,
  }
    } | { "code": "npu.reason.tiles_broadcast", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The left tile's shape.
     */
    lhs: Array<number>,
    /**
     * The right tile's shape.
     */
    rhs: Array<number>,
  }
    } | { "code": "npu.reason.keepdim", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.keepdim_operand" } | { "code": "npu.reason.matmul_rank", "params": {
    /**
     * The left operand's rank.
     */
    left: number,
    /**
     * The right operand's rank.
     */
    right: number,
  }
    } | { "code": "npu.reason.batch_dims", "params": {
    /**
     * The left operand's shape.
     */
    left: Array<number>,
    /**
     * The right operand's shape.
     */
    right: Array<number>,
  }
    } | { "code": "npu.reason.batch_ragged" } | { "code": "npu.reason.batch_empty" } | { "code": "npu.reason.batch_operand" } | { "code": "npu.reason.batch_slice" } | { "code": "npu.reason.view_of_filled" } | { "code": "npu.reason.filled_used" } | { "code": "npu.reason.fill_of_computed", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.reason.write_into_filled" } | { "code": "npu.reason.view_of_unseen" } | { "code": "npu.reason.unseen_tensor" } | { "code": "npu.reason.write_not_argument" } | { "code": "npu.reason.write_read_transposed", "params": {
    /**
     * The tensor.
     */
    name: string,
  }
    } | { "code": "npu.reason.two_shapes", "params": {
    /**
     * The tensor.
     */
    name: string,
  }
    } | { "code": "npu.reason.store_rank", "params": {
    /**
     * The tile's rank.
     */
    tile: number,
    /**
     * The output's rank.
     */
    output: number,
  }
    } | { "code": "npu.reason.iterations_overlap", "params": {
    /**
     * The tensor.
     */
    name: string,
    /**
     * The reading iteration.
     */
    reader: number,
    /**
     * The writing iteration.
     */
    writer: number,
  }
    } | { "code": "npu.reason.stale_value", "params": {
    /**
     * The tensor.
     */
    name: string,
  }
    } | { "code": "npu.reason.defined_by_itself" } | { "code": "npu.reason.return_type", "params": {
    /**
     * The returned value's Python type.
     */
    type_name: string,
  }
};

/**
 * What is wrong with a configuration field.
 */
export type ConfigDetail = { "code": "npu.config.not_json", "params": {
    /**
     * What is wrong there.
     */
    problem: JsonProblem,
    /**
     * 1-based line of the text.
     */
    line: number,
    /**
     * 1-based column.
     */
    column: number,
  }
    } | { "code": "npu.config.not_an_object" } | { "code": "npu.config.unknown_field" } | { "code": "npu.config.missing_field" } | { "code": "npu.config.decoder", "params": {
    /**
     * The decoder's message.
     */
    text: string,
  }
    } | { "code": "npu.config.name", "params": {
    /**
     * The value given, as JSON.
     */
    got: string,
  }
    } | { "code": "npu.config.architecture", "params": {
    /**
     * The value given, as JSON.
     */
    got: string,
  }
    } | { "code": "npu.config.whole_number", "params": {
    /**
     * The least value.
     */
    min: number,
    /**
     * The greatest value.
     */
    max: number,
    /**
     * The value given, as JSON.
     */
    got: string,
  }
    } | { "code": "npu.config.power_of_two_up_to", "params": {
    /**
     * The greatest value.
     */
    max: number,
    /**
     * The value given, as JSON.
     */
    got: string,
  }
    } | { "code": "npu.config.rate", "params": {
    /**
     * The greatest value, as printed.
     */
    max: string,
    /**
     * The value given, as JSON.
     */
    got: string,
  }
    } | { "code": "npu.config.positive_rate", "params": {
    /**
     * The value, as printed.
     */
    got: string,
  }
    } | { "code": "npu.config.cycles", "params": {
    /**
     * The greatest value, as printed.
     */
    max: string,
    /**
     * The value given, as printed.
     */
    got: string,
  }
    } | { "code": "npu.config.non_negative", "params": {
    /**
     * The value given, as printed.
     */
    got: string,
  }
    } | { "code": "npu.config.at_least_one" } | { "code": "npu.config.power_of_two", "params": {
    /**
     * The value.
     */
    got: number,
  }
    } | { "code": "npu.config.coupled_cores", "params": {
    /**
     * The cube cores.
     */
    expected: number,
    /**
     * The vector cores given.
     */
    got: number,
  }
};

/**
 * A Python construct tile scripts do not take, as a message names it.
 */
export type Construct = { "code": "construct.dict_unpacking" } | { "code": "construct.bytes_literal" } | { "code": "construct.complex_literal" } | { "code": "construct.named_escape" } | { "code": "construct.nested_format_field" } | { "code": "construct.walrus" } | { "code": "construct.yield" } | { "code": "construct.await" } | { "code": "construct.async" } | { "code": "construct.loop_else" } | { "code": "construct.relative_import" } | { "code": "construct.star_import" } | { "code": "construct.class_keywords" } | { "code": "construct.positional_only" } | { "code": "construct.percent_format" } | { "code": "construct.tensor_equality" } | { "code": "construct.extended_slice_assignment" } | { "code": "construct.several_bases" } | { "code": "construct.object_instances" } | { "code": "construct.named_tuple_call" };

/**
 * The element type of a tensor.
 *
 * `F32`, `F16` and `Bf16` are the pypto float dtypes (`DT_FP32`, `DT_FP16`, `DT_BF16`); `I8` …
 * `Bool` are its index and mask dtypes (`DT_INT8` … `DT_BOOL`). `F64` is the CPU reference type used
 * by gradient checks and golden comparisons; it is never produced by a kernel.
 */
export type DType = "F32" | "F16" | "Bf16" | "F64" | "I8" | "I16" | "I32" | "I64" | "U8" | "Bool";

/**
 * A construct the backward derivation cannot turn into tile ops.
 */
export type DerivationReason = { "code": "npu.derive.no_adjoint", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.derive.same_tensor" } | { "code": "npu.derive.writes_grad_argument", "params": {
    /**
     * The argument's position.
     */
    index: number,
  }
    } | { "code": "npu.derive.store_into_made" } | { "code": "npu.derive.region_rank" } | { "code": "npu.derive.in_place" } | { "code": "npu.derive.index_drops_dim" } | { "code": "npu.derive.read_of_written" } | { "code": "npu.derive.overlapping_stores" } | { "code": "npu.derive.view_of_computed" } | { "code": "npu.derive.number_gradient" } | { "code": "npu.derive.rank_broadcast", "params": {
    /**
     * The gradient's shape.
     */
    gradient: Array<number>,
    /**
     * The input's shape.
     */
    input: Array<number>,
  }
    } | { "code": "npu.derive.shapes", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The left shape.
     */
    lhs: Array<number>,
    /**
     * The right shape.
     */
    rhs: Array<number>,
  }
    } | { "code": "npu.derive.matmul_rank", "params": {
    /**
     * The left operand's rank.
     */
    left: number,
    /**
     * The right operand's rank.
     */
    right: number,
  }
    } | { "code": "npu.derive.keepdim" } | { "code": "npu.derive.mask_shapes", "params": {
    /**
     * The left shape.
     */
    lhs: Array<number>,
    /**
     * The right shape.
     */
    rhs: Array<number>,
  }
    } | { "code": "npu.derive.mask_over_gradient", "params": {
    /**
     * The mask's shape.
     */
    mask: Array<number>,
    /**
     * The gradient's shape.
     */
    gradient: Array<number>,
  }
    } | { "code": "npu.derive.missing_operand" } | { "code": "npu.derive.no_result" } | { "code": "npu.derive.clip_lost" } | { "code": "npu.derive.arithmetic", "params": {
    /**
     * The error.
     */
    error: Message,
  }
};

/**
 * A rich display.
 */
export type Display = { "kind": "text",
  /**
   * The text.
   */
  text: string,
} | { "kind": "tensor" } & TensorDisplay | { "kind": "graph" } & GraphDisplay | { "kind": "grad_check" } & GradCheckDisplay | { "kind": "schedule" } & ScheduleDisplay | { "kind": "sweep" } & SweepDisplay;

/**
 * One compared entry (a Jacobian entry, or one projection).
 */
export type ElementReport = {
  /**
   * Index in the input (full mode), or `[projection number]`.
   */
  input_index: Array<number>,
  /**
   * Index in the output (full mode; empty for projections).
   */
  output_index: Array<number>,
  /**
   * The engine's value.
   */
  analytic: number,
  /**
   * The central difference on the f64 copy.
   */
  numerical: number,
  /**
   * |analytic − numerical|.
   */
  abs_error: number,
  /**
   * |analytic − numerical| / max(|analytic|, |numerical|).
   */
  rel_error: number,
};

/**
 * One input's per-element error ratios: |analytic − numerical| / (atol·scale + rtol·|numerical|),
 * the largest over the element's Jacobian entries, so > 1 fails.
 */
export type ErrorMap = {
  /**
   * Position among the inputs.
   */
  input: number,
  /**
   * The input's shape.
   */
  shape: Array<number>,
  /**
   * The first `ErrorMap::MAX_ELEMENTS` ratios, row-major (∞ becomes null in JSON).
   */
  errors: Array<number>,
  /**
   * How many elements the input has.
   */
  total: number,
  /**
   * Whether `errors` stops before `total`.
   */
  truncated: boolean,
};

/**
 * What failed in a functional run.
 */
export type ExecutionDetail = { "code": "npu.run.tensor", "params": {
    /**
     * The tensor core's message.
     */
    error: Message,
  }
    } | { "code": "npu.run.gm_count", "params": {
    /**
     * Tensors given.
     */
    given: number,
    /**
     * Tensors the plan declares.
     */
    planned: number,
  }
    } | { "code": "npu.run.gm_tensor", "params": {
    /**
     * The tensor.
     */
    name: string,
    /**
     * Its declared shape.
     */
    shape: Array<number>,
    /**
     * Its declared dtype, as printed.
     */
    dtype: string,
  }
} | { "code": "npu.run.flag_never_set" };

/**
 * What kind of value an argument must be.
 */
export type Expected = { "code": "expected.tensor" } | { "code": "expected.int" } | { "code": "expected.number" } | { "code": "expected.bool" } | { "code": "expected.pypto_dtype" } | { "code": "expected.ints" };

/**
 * When `check_gradient` compares the full Jacobian rather than projections.
 */
export type FullLimits = {
  /**
   * Most Jacobian entries (outputs × input elements) for the full mode.
   */
  jacobian_entries: number,
  /**
   * Most input elements (all inputs together) for the full mode.
   */
  input_elements: number,
};

/**
 * A gradient-check report for display.
 */
export type GradCheckDisplay = {
  /**
   * Whether every input passed.
   */
  passed: boolean,
  /**
   * Largest absolute error over the inputs.
   */
  max_abs_err: number,
  /**
   * Largest relative error.
   */
  max_rel_err: number,
  /**
   * Where each side ran (the analytic side in the inputs' dtypes, the numerical in f64 on the CPU).
   */
  sides: string,
  /**
   * The same as a message code with its parameters, which the page renders in its language.
   */
  sides_message: Message | null,
  /**
   * The full report (per input: tolerance, worst elements, non-differentiable points); its
   * `element_errors` are moved to `error_maps`.
   */
  report: GradCheckReport,
  /**
   * Per input (full mode only), the error ratio of each element for the heatmap.
   */
  error_maps: Array<ErrorMap>,
  /**
   * The sizes up to which the automatic mode compares every Jacobian entry (beyond them it
   * compares random projections), so the page can say why a mode ran.
   */
  full_limits: FullLimits,
};

/**
 * The result of `check_gradient`.
 */
export type GradCheckReport = {
  /**
   * `Full` or `Projection` (never `Auto`).
   */
  mode: CheckMode,
  /**
   * One per input.
   */
  inputs: Array<InputReport>,
  /**
   * Every input passed.
   */
  passed: boolean,
};

/**
 * A gradient sent by the backward node of `producer` to the value `to_output` of node `to` (an
 * input of the forward op): "which node produced which gradient".
 */
export type GradientEdge = {
  /**
   * The forward id of the backward node that computes this gradient.
   */
  producer: number,
  /**
   * The node whose output receives it (a leaf's `.grad` or an op's backward).
   */
  to: number,
  /**
   * Which output of `to`.
   */
  to_output: number,
  /**
   * Shape and dtype of the gradient (those of the value).
   */
  meta: ValueMeta,
};

/**
 * A syntax message of the parser's grammar checks.
 */
export type GrammarMessage = { "code": "syntax.expected_name", "params": {
    /**
     * Which name.
     */
    slot: NameSlot,
    /**
     * What was found.
     */
    found: Token,
  }
    } | { "code": "syntax.keyword_not_a_name", "params": {
    /**
     * The keyword.
     */
    keyword: string,
  }
    } | { "code": "syntax.expected_after", "params": {
    /**
     * The token expected.
     */
    expected: Token,
    /**
     * After what.
     */
    after: After,
    /**
     * What was found, when the message names it.
     */
    found: Token | null,
  }
    } | { "code": "syntax.expected_comma_or", "params": {
    /**
     * The closing bracket.
     */
    closing: string,
    /**
     * After what.
     */
    after: After,
    /**
     * What was found.
     */
    found: Token,
  }
    } | { "code": "syntax.expected_index" } | { "code": "syntax.expected_else" } | { "code": "syntax.conditional_reads" } | { "code": "syntax.try_without_handler" } | { "code": "syntax.add_except" } | { "code": "syntax.clause_without_statement", "params": {
    /**
     * The clause's keyword (`else`).
     */
    keyword: string,
    /**
     * The statement it needs (`if`).
     */
    statement: string,
  }
    } | { "code": "syntax.check_indentation", "params": {
    /**
     * The statement (`if`, `try`).
     */
    statement: string,
  }
    } | { "code": "syntax.own_line", "params": {
    /**
     * Its keyword.
     */
    keyword: string,
  }
    } | { "code": "syntax.outside_loop", "params": {
    /**
     * The keyword.
     */
    keyword: string,
  }
    } | { "code": "syntax.keyword_repeated", "params": {
    /**
     * The keyword.
     */
    name: string,
  }
    } | { "code": "syntax.starred_outside_call" } | { "code": "syntax.unpack_fixed" } | { "code": "syntax.cannot_assign", "params": {
    /**
     * What it is.
     */
    what: Assignee,
  }
    } | { "code": "syntax.write_in_place" } | { "code": "syntax.compare_or_assign" } | { "code": "syntax.assignable" } | { "code": "syntax.comprehension_alone" } | { "code": "syntax.write_comprehension_alone" } | { "code": "syntax.decorator_target" } | { "code": "syntax.one_star" } | { "code": "syntax.after_kwargs" } | { "code": "syntax.default_order", "params": {
    /**
     * The parameter without a default.
     */
    name: string,
  }
    } | { "code": "syntax.duplicate_parameter", "params": {
    /**
     * The parameter.
     */
    name: string,
  }
    } | { "code": "syntax.nested_too_deeply", "params": {
    /**
     * The limit.
     */
    limit: number,
  }
};

/**
 * The whole graph that produced some outputs.
 */
export type GraphData = {
  /**
   * Leaves and ops, inputs before consumers.
   */
  nodes: Array<GraphNode>,
  /**
   * Forward edges.
   */
  edges: Array<GraphEdge>,
  /**
   * One per recorded op whose backward has run.
   */
  backward_nodes: Array<BackwardNode>,
  /**
   * Gradient flow, from backward nodes to the values they differentiate.
   */
  gradient_edges: Array<GradientEdge>,
  /**
   * Ids of the output nodes the graph was taken from.
   */
  outputs: Array<number>,
  /**
   * Bytes of every distinct buffer still saved for backward.
   */
  saved_bytes: number,
  /**
   * The same without buffers that are leaf values (those live anyway): the activation memory.
   */
  saved_activation_bytes: number,
};

/**
 * A graph for display.
 */
export type GraphDisplay = {
  /**
   * Forward nodes.
   */
  num_nodes: number,
  /**
   * Backward nodes (0 before any backward).
   */
  num_backward_nodes: number,
  /**
   * Graphviz text.
   */
  dot: string,
  /**
   * The graph as data.
   */
  graph: GraphData,
};

/**
 * A value flowing from output `from_output` of node `from` into input `to_input` of node `to`.
 */
export type GraphEdge = {
  /**
   * Producer.
   */
  from: number,
  /**
   * Which output of the producer.
   */
  from_output: number,
  /**
   * Consumer.
   */
  to: number,
  /**
   * Which input of the consumer.
   */
  to_input: number,
  /**
   * Shape and dtype of the value.
   */
  meta: ValueMeta,
};

/**
 * A forward node: a leaf or a recorded op.
 */
export type GraphNode = {
  /**
   * Node id (shared by the outputs of one op).
   */
  id: number,
  /**
   * `leaf` or the op's name.
   */
  label: string,
  /**
   * The op, for recorded ops.
   */
  op: Op | null,
  /**
   * The user's name of a leaf.
   */
  name: string | null,
  /**
   * Shape and dtype of each output.
   */
  outputs: Array<ValueMeta>,
  /**
   * Shape and dtype of every input of an op, in argument order, constants included (an input
   * with no edge in `GraphData::edges` is a constant); empty for leaves.
   */
  inputs: Array<ValueMeta>,
  /**
   * The tensors kept for backward (described even after they are freed).
   */
  saved: Array<SavedInfo>,
  /**
   * Whether the saved tensors were already freed by a backward.
   */
  saved_freed: boolean,
  /**
   * For leaves: whether a gradient has been accumulated.
   */
  has_grad: boolean,
};

/**
 * The result for one input.
 */
export type InputReport = {
  /**
   * Position among the inputs.
   */
  input: number,
  /**
   * Its shape.
   */
  shape: Array<number>,
  /**
   * Its dtype (the analytic side's).
   */
  dtype: DType,
  /**
   * Step and tolerances used.
   */
  tolerance: Tolerance,
  /**
   * How many entries or projections were compared.
   */
  compared: number,
  /**
   * Largest absolute error over the differentiable entries.
   */
  max_abs_error: number,
  /**
   * Largest relative error over the differentiable entries.
   */
  max_rel_error: number,
  /**
   * No differentiable entry is outside the tolerance.
   */
  passed: boolean,
  /**
   * The entries with the largest errors (failures first).
   */
  worst: Array<ElementReport>,
  /**
   * Entries at a kink or tie: the one-sided differences disagree even at a smaller step.
   */
  non_differentiable: Array<ElementReport>,
  /**
   * Full mode: per input element (row-major), the largest |analytic − numerical| / (atol·scale +
   * rtol·|numerical|) over its differentiable Jacobian entries (> 1 fails; kinks count 0).
   * Empty in projection mode, where no single element is compared.
   */
  element_errors: Array<number>,
};

/**
 * What the JSON parser met where it stopped.
 */
export type JsonProblem = "end" | "expected_value" | "expected_colon" | "expected_comma" | "key_not_string" | "trailing_comma" | "trailing_characters" | "invalid_number" | "invalid_string" | "other";

/**
 * The NPU schedule of one kernel a cell called, shown after the cell's output.
 */
export type KernelSchedule = {
  /**
   * The kernel's name.
   */
  kernel: string,
  /**
   * How many of the cell's calls of it ran on the NPU.
   */
  calls: number,
  /**
   * The execution number of the cell that defined it: the trace's source lines are its lines.
   */
  cell: number | null,
  /**
   * The schedule of the last call. Its `trace_json` is empty: the trace is kept by the session
   * under `trace_key` for the page to ask for when its reader opens it (`Session::kernel_trace`).
   */
  schedule: ScheduleDisplay,
  /**
   * The key of the last call's trace (`Session::kernel_trace`); None when the trace is too
   * large to send (over [`KernelSchedule::MAX_TRACE_EVENTS`] events).
   */
  trace_key: string | null,
};

/**
 * The stages of a kernel call on the NPU, in order.
 */
export type KernelStage = "computing" | "compiling" | "simulating";

/**
 * What kind of value a library function needed (a word its sentence embeds).
 */
export type Kind = { "code": "library.kind.tensor" } | { "code": "library.kind.tensors" } | { "code": "library.kind.tensor_or_list" } | { "code": "library.kind.tensor_or_number" } | { "code": "library.kind.compared" } | { "code": "library.kind.number" } | { "code": "library.kind.int" } | { "code": "library.kind.str" } | { "code": "library.kind.dict" } | { "code": "library.kind.bool" } | { "code": "library.kind.kernel" } | { "code": "library.kind.torch_dtype" } | { "code": "library.kind.numpy_dtype" } | { "code": "library.kind.dtype_device_tensor" } | { "code": "library.kind.array_or_number" } | { "code": "library.kind.enumeration", "params": {
    /**
     * The enumeration (`CastMode`).
     */
    name: string,
  }
} | { "code": "library.kind.model" } | { "code": "library.kind.dim" } | { "code": "library.kind.one_tensor" };

/**
 * A library message of any group (serialised as its group's own `{code, params}`).
 */
export type LibraryFamily = LibraryMessage | LibraryTensorMessage | LibraryTorchMessage | LibraryKernelMessage | LibraryHostMessage | LibraryOperatorMessage | LibraryTilingMessage | LibraryGatherMessage;

/**
 * A paged gather's message or help.
 */
export type LibraryGatherMessage = { "code": "library.paged_gather_shapes", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The cache's shape.
     */
    cache: Array<number>,
    /**
     * The indices' shape.
     */
    indices: Array<number>,
    /**
     * The block table's shape.
     */
    block_table: Array<number>,
  }
    } | { "code": "library.help.paged_gather_form" } | { "code": "library.paged_gather_block", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The index (a token position).
     */
    index: number,
    /**
     * Its logical block (`index // block_size`).
     */
    block: number,
    /**
     * The block table's entries.
     */
    blocks: number,
  }
    } | { "code": "library.paged_gather_row", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The index.
     */
    index: number,
    /**
     * The row it maps to.
     */
    row: number,
    /**
     * The cache's rows.
     */
    rows: number,
  }
    } | { "code": "library.paged_gather_size", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The size given.
     */
    size: number,
    /**
     * The cache's columns.
     */
    columns: number,
  }
};

/**
 * A host module's message or help.
 */
export type LibraryHostMessage = { "code": "library.system_exit", "params": {
    /**
     * The status, or the text the script gave.
     */
    status: string,
  }
    } | { "code": "library.help.exit_status" } | { "code": "library.help.host_module_has", "params": {
    /**
     * The module.
     */
    module: string,
    /**
     * Its names, in backticks, comma-separated.
     */
    names: string,
  }
    } | { "code": "library.path_needs_files", "params": {
    /**
     * The method (`Path.exists`).
     */
    function: string,
  }
    } | { "code": "library.path_no_such_file", "params": {
    /**
     * The path.
     */
    path: string,
  }
    } | { "code": "library.path_part", "params": {
    /**
     * The part's type.
     */
    type_name: string,
  }
    } | { "code": "library.keywords_only", "params": {
    /**
     * The method.
     */
    function: string,
  }
    } | { "code": "library.argparse_needs_name" } | { "code": "library.argparse_positional_name" } | { "code": "library.argparse_conflicting_option", "params": {
    /**
     * The option string.
     */
    option: string,
  }
    } | { "code": "library.argparse_unknown_action", "params": {
    /**
     * The action given.
     */
    action: string,
  }
    } | { "code": "library.help.argparse_actions" } | { "code": "library.argparse_invalid_nargs", "params": {
    /**
     * The value, as written.
     */
    value: string,
  }
    } | { "code": "library.help.argparse_nargs" } | { "code": "library.argparse_invalid_choice", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The argument (`--run_mode`).
     */
    argument: string,
    /**
     * The value, as written.
     */
    value: string,
    /**
     * The choices, as written, comma-separated.
     */
    choices: string,
  }
    } | { "code": "library.argparse_invalid_value", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The argument.
     */
    argument: string,
    /**
     * The type's name (`int`).
     */
    type_name: string,
    /**
     * The token.
     */
    token: string,
  }
    } | { "code": "library.argparse_required", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The arguments.
     */
    arguments: string,
  }
    } | { "code": "library.argparse_unrecognized", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The tokens, space-separated.
     */
    arguments: string,
  }
    } | { "code": "library.argparse_ignored_explicit", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The argument.
     */
    argument: string,
    /**
     * The value given.
     */
    value: string,
  }
    } | { "code": "library.argparse_expected_one", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The argument.
     */
    argument: string,
  }
    } | { "code": "library.argparse_expected_at_least_one", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The argument.
     */
    argument: string,
  }
    } | { "code": "library.argparse_expected_count", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The argument.
     */
    argument: string,
    /**
     * N.
     */
    count: number,
  }
    } | { "code": "library.argparse_error", "params": {
    /**
     * The parser's program name.
     */
    program: string,
    /**
     * The script's text.
     */
    text: string,
  }
    } | { "code": "library.argparse_usage", "params": {
    /**
     * The line after `usage: ` (`notebook [-h] [--run_mode {npu,sim}]`).
     */
    line: string,
  }
    } | { "code": "library.help.argparse_command_line" } | { "code": "library.regex_pattern", "params": {
    /**
     * Why, in the words of Python's `re` (`nothing to repeat`).
     */
    reason: string,
    /**
     * The char position in the pattern.
     */
    position: number,
    /**
     * The pattern.
     */
    pattern: string,
  }
    } | { "code": "library.regex_no_such_group", "params": {
    /**
     * The group asked for.
     */
    group: string,
  }
};

/**
 * A kernel tool's message or help.
 */
export type LibraryKernelMessage = { "code": "library.outside_kernel", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.tile_dims", "params": {
    /**
     * The value, as written.
     */
    got: string,
  }
    } | { "code": "library.unroll_factors", "params": {
    /**
     * The value, as written.
     */
    got: string,
  }
    } | { "code": "library.must_be_positive", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * The value given, when shown.
     */
    got: number | null,
  }
    } | { "code": "library.reserved_label", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The label.
     */
    label: string,
  }
    } | { "code": "library.help.other_label" } | { "code": "library.options_target", "params": {
    /**
     * The type decorated.
     */
    got: string,
  }
    } | { "code": "library.file_and_lineno" } | { "code": "library.unbound_symbol", "params": {
    /**
     * The symbol's name.
     */
    name: string,
  }
    } | { "code": "library.help.symbol_value", "params": {
    /**
     * The symbol's name.
     */
    name: string,
  }
    } | { "code": "library.division_by_zero", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.overflow", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.product_overflow", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The product, as written.
     */
    what: string,
  }
    } | { "code": "library.outside_loop", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.help.loop_position" } | { "code": "library.not_loop_index", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The value.
     */
    index: number,
  }
    } | { "code": "library.help.pass_loop_variable" } | { "code": "library.help.decorate_kernel" } | { "code": "library.frame_lost", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.not_on_npu", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * Why.
     */
    reason: Message,
  }
    } | { "code": "library.f64_reference", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The kernel.
     */
    kernel: string,
  }
    } | { "code": "library.help.npu_dtypes" } | { "code": "library.help.warm_l2" } | { "code": "library.failed", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * Why.
     */
    reason: Message,
  }
    } | { "code": "library.spec_sizes", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.help.spec_sizes" } | { "code": "library.spec_too_big", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The shape.
     */
    shape: Array<number>,
    /**
     * The limit in elements.
     */
    limit: number,
  }
    } | { "code": "library.help.smaller_shape" } | { "code": "library.no_vec_tiles" } | { "code": "library.help.vec_tiles" } | { "code": "library.sweep_tile_dims", "params": {
    /**
     * Its position.
     */
    index: number,
    /**
     * The tile.
     */
    tile: Array<number>,
  }
    } | { "code": "library.help.preset_fields" } | { "code": "library.preset_keys" } | { "code": "library.preset_field", "params": {
    /**
     * The field.
     */
    key: string,
    /**
     * Its type.
     */
    got: string,
  }
    } | { "code": "library.unknown_arch", "params": {
    /**
     * The architecture.
     */
    arch: string,
  }
    } | { "code": "library.help.arch_presets", "params": {
    /**
     * The presets, in backticks, comma-separated.
     */
    presets: string,
  }
    } | { "code": "library.no_inputs" } | { "code": "library.returned_non_tensor", "params": {
    /**
     * The type returned.
     */
    got: string,
  }
    } | { "code": "library.kernel_outputs", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * The type returned.
     */
    got: string,
  }
    } | { "code": "library.kernel_output_item", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * The item's type.
     */
    got: string,
  }
    } | { "code": "library.gradient_count", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * Gradients returned.
     */
    count: number,
    /**
     * Tensor inputs.
     */
    inputs: number,
  }
    } | { "code": "library.help.one_gradient_each" } | { "code": "library.gradient_shape", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * The gradient's shape.
     */
    shape: Array<number>,
    /**
     * The input.
     */
    index: number,
    /**
     * The input's shape.
     */
    expected: Array<number>,
  }
    } | { "code": "library.help.gradient_shape" } | { "code": "library.gradient_type", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * The type returned.
     */
    got: string,
  }
    } | { "code": "library.help.gradient_type" } | { "code": "library.loss_scaler_settings", "params": {
    /**
     * The settings, as printed.
     */
    got: string,
  }
};

/**
 * A library function's message about its arguments, or about what is available where.
 */
export type LibraryMessage = { "code": "library.argument_type", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * What it must be.
     */
    expected: Kind,
    /**
     * The type given.
     */
    got: string,
  }
    } | { "code": "library.expected", "params": {
    /**
     * The function (with `()` when the sentence names it so).
     */
    function: string,
    /**
     * What it needed.
     */
    expected: Kind,
    /**
     * The type given.
     */
    got: string,
  }
    } | { "code": "library.operand", "params": {
    /**
     * What it needed.
     */
    expected: Kind,
    /**
     * The type given.
     */
    got: string,
  }
    } | { "code": "library.needs", "params": {
    /**
     * The function, as written in the sentence (`unsqueeze()`).
     */
    function: string,
    /**
     * What it needs.
     */
    what: Kind,
  }
    } | { "code": "library.at_least_arguments", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The fewest it takes.
     */
    count: number,
    /**
     * How many were given.
     */
    given: number,
  }
    } | { "code": "library.one_of", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * The accepted values, quoted.
     */
    choices: Array<string>,
    /**
     * The value given, as written (absent when not shown).
     */
    got: string | null,
  }
    } | { "code": "library.help.gelu_modes" } | { "code": "library.two_scalars", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The first type.
     */
    left: string,
    /**
     * The second type.
     */
    right: string,
  }
    } | { "code": "library.help.tensor_extremes", "params": {
    /**
     * `pypto.minimum`.
     */
    elementwise: string,
    /**
     * `amin`.
     */
    reduction: string,
  }
    } | { "code": "library.cannot_compare", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The first type.
     */
    left: string,
    /**
     * The second type.
     */
    right: string,
  }
    } | { "code": "library.less_than_unsupported", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The left type.
     */
    left: string,
    /**
     * The right type.
     */
    right: string,
  }
    } | { "code": "library.default_single_iterable", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.host_only", "params": {
    /**
     * The function.
     */
    name: string,
  }
    } | { "code": "library.host_code", "params": {
    /**
     * The function.
     */
    name: string,
  }
    } | { "code": "library.help.use_in_kernel", "params": {
    /**
     * `pypto.exp`.
     */
    function: string,
  }
    } | { "code": "library.help.pypto_or_torch" } | { "code": "library.help.numpy_after_call" } | { "code": "library.not_in_tile_scripts", "params": {
    /**
     * The function.
     */
    name: string,
  }
    } | { "code": "library.help.torch_listing" } | { "code": "library.not_available_here", "params": {
    /**
     * The function.
     */
    name: string,
  }
    } | { "code": "library.no_value_here", "params": {
    /**
     * `torch.int64`.
     */
    name: string,
  }
    } | { "code": "library.help.torch_covers", "params": {
    /**
     * The module.
     */
    module: string,
  }
    } | { "code": "library.help.module_lists", "params": {
    /**
     * The module.
     */
    module: string,
  }
    } | { "code": "library.help.numpy_covers", "params": {
    /**
     * Its functions, in backticks, comma-separated.
     */
    names: string,
  }
    } | { "code": "library.no_method", "params": {
    /**
     * The object's type.
     */
    type_name: string,
    /**
     * The method.
     */
    name: string,
  }
    } | { "code": "library.cannot_set_attribute", "params": {
    /**
     * The attribute.
     */
    name: string,
    /**
     * The object (`a tensor`, `pypto.platform`).
     */
    object: string,
  }
    } | { "code": "library.help.define_forward" } | { "code": "library.with_user_text", "params": {
    /**
     * The script's text.
     */
    text: string,
    /**
     * The check's message.
     */
    message: Message,
  }
    } | { "code": "library.int_out_of_range", "params": {
    /**
     * The function.
     */
    function: string,
  }
};

/**
 * A custom operator's message or help.
 */
export type LibraryOperatorMessage = { "code": "library.schema_token", "params": {
    /**
     * The schema as written.
     */
    schema: string,
    /**
     * Where (1-based character).
     */
    position: number,
    /**
     * The token it needs there.
     */
    token: string,
  }
    } | { "code": "library.schema_name", "params": {
    /**
     * The schema as written.
     */
    schema: string,
    /**
     * Where (1-based character).
     */
    position: number,
  }
    } | { "code": "library.schema_type", "params": {
    /**
     * The schema as written.
     */
    schema: string,
    /**
     * The type.
     */
    type_name: string,
  }
    } | { "code": "library.schema_default", "params": {
    /**
     * The schema as written.
     */
    schema: string,
    /**
     * The argument.
     */
    argument: string,
    /**
     * The default as written.
     */
    text: string,
  }
    } | { "code": "library.help.schema_form" } | { "code": "library.library_kind", "params": {
    /**
     * The kind given.
     */
    kind: string,
  }
    } | { "code": "library.dispatch_key", "params": {
    /**
     * The key given.
     */
    key: string,
  }
    } | { "code": "library.help.dispatch_keys" } | { "code": "library.autograd_kernel", "params": {
    /**
     * The operator (`pypto::rms_norm`).
     */
    operator: string,
    /**
     * The key.
     */
    key: string,
  }
    } | { "code": "library.help.register_gradient" } | { "code": "library.no_operator", "params": {
    /**
     * The namespace.
     */
    namespace: string,
    /**
     * The name.
     */
    name: string,
  }
    } | { "code": "library.help.define_operator", "params": {
    /**
     * The namespace.
     */
    namespace: string,
    /**
     * The name.
     */
    name: string,
  }
    } | { "code": "library.operator_namespace", "params": {
    /**
     * The name as given.
     */
    name: string,
    /**
     * The library's namespace.
     */
    namespace: string,
  }
    } | { "code": "library.no_kernel", "params": {
    /**
     * The operator (`pypto::hc_pre`).
     */
    operator: string,
    /**
     * The keys it has kernels for, comma-separated (may be empty).
     */
    registered: string,
  }
    } | { "code": "library.help.runnable_kernels" } | { "code": "library.operator_argument", "params": {
    /**
     * The operator.
     */
    operator: string,
    /**
     * The argument.
     */
    argument: string,
    /**
     * The schema's type (`Tensor`, `int[]`).
     */
    expected: string,
    /**
     * The type given.
     */
    got: string,
  }
    } | { "code": "library.operator_returns", "params": {
    /**
     * The operator.
     */
    operator: string,
    /**
     * The schema's returns (`(Tensor, Tensor)`).
     */
    expected: string,
    /**
     * What the kernel returned (`tuple of 3`, `NoneType`).
     */
    got: string,
  }
} | { "code": "library.no_fake_tensors" };

/**
 * A tensor function's message or help.
 */
export type LibraryTensorMessage = { "code": "library.tensor_no_requires_grad" } | { "code": "library.help.data_with_gradients" } | { "code": "library.tensor_from_data", "params": {
    /**
     * What it was given: `tensor`, `float` or `data`.
     */
    given: string,
  }
    } | { "code": "library.help.as_tensor" } | { "code": "library.too_many_elements", "params": {
    /**
     * The shape.
     */
    shape: Array<number>,
    /**
     * The limit.
     */
    limit: number,
  }
    } | { "code": "library.range_too_long", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The element count.
     */
    count: string,
  }
    } | { "code": "library.nested_too_deep", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The most levels.
     */
    levels: number,
  }
    } | { "code": "library.ragged_item", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The type found.
     */
    got: string,
  }
    } | { "code": "library.ragged_length", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * Its length.
     */
    length: number,
    /**
     * The length expected.
     */
    expected: number,
  }
    } | { "code": "library.zero_step", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.tensor_operator", "params": {
    /**
     * The operator.
     */
    operator: string,
  }
    } | { "code": "library.help.compare_elementwise" } | { "code": "library.chained_comparison" } | { "code": "library.help.combine_masks" } | { "code": "library.leaf_in_place" } | { "code": "library.help.no_grad_update" } | { "code": "library.requires_grad_of_non_leaf" } | { "code": "library.assemble_into_leaf" } | { "code": "library.requires_grad_non_leaf" } | { "code": "library.help.detach" } | { "code": "library.single_ellipsis" } | { "code": "library.too_many_indices", "params": {
    /**
     * The tensor's shape.
     */
    shape: Array<number>,
    /**
     * Indices given.
     */
    given: number,
  }
    } | { "code": "library.tensor_index_type", "params": {
    /**
     * Its type.
     */
    got: string,
  }
    } | { "code": "library.help.view_for_tile" } | { "code": "library.iterate_scalar" } | { "code": "library.move_type", "params": {
    /**
     * Its type.
     */
    got: string,
  }
    } | { "code": "library.help.fill_number" } | { "code": "library.move_shape", "params": {
    /**
     * The moved tensor's shape.
     */
    source: Array<number>,
    /**
     * The output's shape.
     */
    target: Array<number>,
  }
    } | { "code": "library.help.assemble_part" } | { "code": "library.batch_matmul_shapes", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The first shape.
     */
    lhs: Array<number>,
    /**
     * The second shape.
     */
    rhs: Array<number>,
  }
    } | { "code": "library.help.batch_matmul_shapes" } | { "code": "library.extend_param_not_modelled", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The entry's key.
     */
    key: string,
  }
    } | { "code": "library.help.extend_params" } | { "code": "library.bias_columns", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The bias's columns.
     */
    columns: number,
    /**
     * The product's columns.
     */
    product: number,
  }
    } | { "code": "library.help.bias_row" } | { "code": "library.nz_output", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.help.leave_out_nz" } | { "code": "library.needs_dims", "params": {
    /**
     * The op.
     */
    function: string,
    /**
     * The fewest dims.
     */
    count: number,
  }
    } | { "code": "library.not_a_dim", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The value, as written.
     */
    item: string,
    /**
     * The rank.
     */
    rank: number,
  }
    } | { "code": "library.flatten_range", "params": {
    /**
     * The first dim.
     */
    start: number,
    /**
     * The last dim.
     */
    end: number,
    /**
     * The rank.
     */
    rank: number,
  }
    } | { "code": "library.groups_split", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The channels.
     */
    channels: number,
    /**
     * The groups.
     */
    groups: number,
  }
    } | { "code": "library.shape_of_ints", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "library.invalid_shape", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The dims given.
     */
    dims: Array<number>,
  }
    } | { "code": "library.help.valid_shape", "params": {
    /**
     * The valid shape.
     */
    fits: Array<number>,
    /**
     * The tile's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "library.help.view_valid_shape" } | { "code": "library.spec_dim", "params": {
    /**
     * The value, as written.
     */
    got: string,
  }
} | { "code": "library.help.spec_or_tensor" } | { "code": "library.help.spec_not_callable" };

/**
 * A tiling setting's message or help.
 */
export type LibraryTilingMessage = { "code": "library.cube_tiles", "params": {
    /**
     * `m`, `k` or `n`.
     */
    label: string,
    /**
     * The pair given.
     */
    pair: Array<number>,
    /**
     * The side of the chip's cube fractal (16 on Ascend's 16×16 fractals).
     */
    fractal: number,
  }
    } | { "code": "library.ignored_keyword", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The keyword.
     */
    keyword: string,
    /**
     * The keywords it reads, comma-separated.
     */
    known: string,
  }
    } | { "code": "library.cube_m_tiles", "params": {
    /**
     * The pair given.
     */
    pair: Array<number>,
  }
    } | { "code": "library.transposed_m_tile", "params": {
    /**
     * The kernel's mL0.
     */
    m0: number,
    /**
     * The side of the chip's cube fractal.
     */
    fractal: number,
  }
    } | { "code": "library.help.cube_fractals", "params": {
    /**
     * The side of the chip's cube fractal.
     */
    fractal: number,
  }
    } | { "code": "library.buffer_depth", "params": {
    /**
     * `pass_options`.
     */
    table: string,
    /**
     * The key.
     */
    key: string,
    /**
     * The value, as written.
     */
    got: string,
  }
} | { "code": "library.help.buffer_depth" };

/**
 * A torch function's message or help.
 */
export type LibraryTorchMessage = { "code": "library.rank_required", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The rank it needs.
     */
    rank: number,
    /**
     * The first shape.
     */
    lhs: Array<number>,
    /**
     * The second shape.
     */
    rhs: Array<number>,
  }
    } | { "code": "library.help.matmul_broadcasts" } | { "code": "library.reinterpret", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The dtype asked for.
     */
    dtype: string,
    /**
     * The tensor's dtype.
     */
    from: string,
  }
    } | { "code": "library.help.convert_values" } | { "code": "library.view_dtype_size", "params": {
    /**
     * The tensor's dtype.
     */
    from: string,
    /**
     * The dtype asked for.
     */
    to: string,
    /**
     * The tensor's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "library.dtype_not_available", "params": {
    /**
     * The torch name (`int64`).
     */
    dtype: string,
  }
    } | { "code": "library.help.float_dtypes" } | { "code": "library.help.torch_dtypes" } | { "code": "library.integer_data" } | { "code": "library.help.float_data" } | { "code": "library.mask_shape", "params": {
    /**
     * The mask's shape.
     */
    mask: Array<number>,
    /**
     * The tensor's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "library.index_tensor_type", "params": {
    /**
     * The index's dtype.
     */
    dtype: string,
  }
    } | { "code": "library.index_value_shape", "params": {
    /**
     * The value's shape.
     */
    value: Array<number>,
    /**
     * The selection's shape.
     */
    selection: Array<number>,
  }
    } | { "code": "library.index_with_grad" } | { "code": "library.unused_input" } | { "code": "library.repeat_sizes" } | { "code": "library.repeat_rank", "params": {
    /**
     * How many sizes.
     */
    sizes: number,
    /**
     * The tensor's rank.
     */
    rank: number,
  }
    } | { "code": "library.no_indices", "params": {
    /**
     * `max` or `min`.
     */
    function: string,
  }
    } | { "code": "library.help.use_amax", "params": {
    /**
     * `max` or `min`.
     */
    function: string,
  }
    } | { "code": "library.empty_random_range", "params": {
    /**
     * The lower bound (inclusive).
     */
    low: number,
    /**
     * The upper bound (exclusive).
     */
    high: number,
  }
    } | { "code": "library.dtypes_differ", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The first dtype.
     */
    left: string,
    /**
     * The second dtype.
     */
    right: string,
  }
    } | { "code": "library.help.cast_one_side" } | { "code": "library.help.cast_or_unchecked" } | { "code": "library.both_tolerances", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The missing one.
     */
    missing: string,
  }
    } | { "code": "library.attribute_mismatch", "params": {
    /**
     * `shape` or `dtype`.
     */
    attribute: string,
    /**
     * The actual value.
     */
    actual: string,
    /**
     * The expected value.
     */
    expected: string,
  }
    } | { "code": "library.pad_odd" } | { "code": "library.pad_too_long", "params": {
    /**
     * The number of pads.
     */
    length: number,
    /**
     * The input's dims.
     */
    rank: number,
  }
    } | { "code": "library.pad_negative_size", "params": {
    /**
     * The dim's size.
     */
    size: number,
    /**
     * The pad before it.
     */
    before: number,
    /**
     * The pad after it.
     */
    after: number,
    /**
     * The dim.
     */
    dim: number,
  }
    } | { "code": "library.pad_mode", "params": {
    /**
     * The mode asked for.
     */
    mode: string,
  }
    } | { "code": "library.npu_rank", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * The tensor's shape.
     */
    shape: Array<number>,
    /**
     * The fewest dims it takes.
     */
    least: number,
  }
    } | { "code": "library.npu_shape", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * The tensor's shape.
     */
    shape: Array<number>,
    /**
     * The shapes it takes, as printed (`[384] | [1]`).
     */
    expected: string,
  }
    } | { "code": "library.npu_dtype", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * The dtype given.
     */
    dtype: string,
    /**
     * The dtypes it takes, as printed (`torch.float16 | torch.bfloat16`).
     */
    expected: string,
  }
    } | { "code": "library.group_index", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * x's rows.
     */
    rows: number,
    /**
     * The group ends given.
     */
    values: Array<number>,
  }
    } | { "code": "library.swiglu_odd", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The dim.
     */
    dim: number,
    /**
     * Its size.
     */
    size: number,
  }
    } | { "code": "library.not_close", "params": {
    /**
     * Elements that differ.
     */
    mismatched: number,
    /**
     * Elements compared.
     */
    total: number,
    /**
     * Their share, as printed.
     */
    percent: string,
    /**
     * The greatest absolute difference, as printed.
     */
    absolute: string,
    /**
     * Where.
     */
    absolute_at: string,
    /**
     * `atol`, as printed.
     */
    atol: string,
    /**
     * The greatest relative difference, as printed.
     */
    relative: string,
    /**
     * Where.
     */
    relative_at: string,
    /**
     * `rtol`, as printed.
     */
    rtol: string,
  }
};

/**
 * A message about a literal, or its help.
 */
export type LiteralMessage = { "code": "syntax.f_string_nested_too_deeply" } | { "code": "syntax.f_string_single_brace" } | { "code": "syntax.double_the_brace" } | { "code": "syntax.f_string_unclosed_field" } | { "code": "syntax.close_the_field" } | { "code": "syntax.f_string_empty_field" } | { "code": "syntax.f_string_conversion" } | { "code": "syntax.f_string_unexpected", "params": {
    /**
     * What was found.
     */
    found: Token,
  }
    } | { "code": "syntax.hex_escape", "params": {
    /**
     * The escape's letter (`x`, `u`, `U`).
     */
    escape: string,
    /**
     * The digits it needs.
     */
    count: number,
  }
    } | { "code": "syntax.invalid_escape", "params": {
    /**
     * The escaped character.
     */
    escape: string,
  }
    } | { "code": "syntax.escape_backslash" } | { "code": "syntax.invalid_number", "params": {
    /**
     * The literal.
     */
    text: string,
    /**
     * `hexadecimal`, `octal`, `binary`, `decimal`, `float` or `number` (a word the page translates).
     */
    kind: string,
  }
    } | { "code": "syntax.integer_too_large", "params": {
    /**
     * The literal.
     */
    text: string,
    /**
     * `i64::MAX`.
     */
    limit: number,
  }
    } | { "code": "syntax.name_starts_with_digit" } | { "code": "syntax.leading_zeros", "params": {
    /**
     * The literal.
     */
    text: string,
  }
    } | { "code": "syntax.write_without_zeros", "params": {
    /**
     * The digits without the zeros.
     */
    digits: string,
  }
    } | { "code": "syntax.invalid_underscore", "params": {
    /**
     * The literal.
     */
    text: string,
  }
} | { "code": "syntax.underscores_separate_digits" } | { "code": "syntax.continuation_at_end" } | { "code": "syntax.character_after_continuation" } | { "code": "syntax.continuation_last" };

/**
 * A reason the lowering refused tile work.
 */
export type LoweringReason = { "code": "npu.lowering.cube_tile_multiple", "params": {
    /**
     * `m`, `k` or `n`.
     */
    dim: string,
    /**
     * The level-1 (L1) extent.
     */
    level1: number,
    /**
     * The level-0 (L0) extent.
     */
    level0: number,
  }
    } | { "code": "npu.lowering.reduce_across_tiles", "params": {
    /**
     * The reduction.
     */
    op: string,
  }
    } | { "code": "npu.lowering.empty_matmul", "params": {
    /**
     * Rows of the result.
     */
    m: number,
    /**
     * The contracted dim.
     */
    k: number,
    /**
     * Columns of the result.
     */
    n: number,
  }
    } | { "code": "npu.lowering.no_workspace", "params": {
    /**
     * The value.
     */
    value: number,
  }
    } | { "code": "npu.lowering.workspace_outside" } | { "code": "npu.lowering.unknown_buffer", "params": {
    /**
     * The buffer's number.
     */
    buffer: number,
  }
    } | { "code": "npu.lowering.operand_memory", "params": {
    /**
     * The memory it is in.
     */
    found: string,
    /**
     * The memories the instruction takes.
     */
    allowed: Array<string>,
  }
    } | { "code": "npu.lowering.no_copy_out", "params": {
    /**
     * The source memory.
     */
    memory: string,
  }
    } | { "code": "npu.lowering.no_move", "params": {
    /**
     * The source memory.
     */
    from: string,
    /**
     * The destination memory.
     */
    to: string,
  }
    } | { "code": "npu.lowering.no_transposed_move", "params": {
    /**
     * The source memory.
     */
    from: string,
    /**
     * The destination memory.
     */
    to: string,
  }
    } | { "code": "npu.lowering.step", "params": {
    /**
     * The unit.
     */
    unit: number,
    /**
     * The step's position in the unit.
     */
    step: number,
    /**
     * What is wrong with it.
     */
    fault: StepFault,
  }
    } | { "code": "npu.lowering.read_before_phase", "params": {
    /**
     * The value.
     */
    value: number,
  }
} | { "code": "npu.lowering.recomputed_value" } | { "code": "npu.lowering.empty_load" } | { "code": "npu.lowering.unsplittable" };

/**
 * A sentence as a code and its parameters (`{"code": "schedule.busiest_pipe", "params": {…}}`).
 */
export type Message = { "code": "text", "params": {
    /**
     * The English text.
     */
    text: string,
  }
    } | { "code": "schedule.busiest_pipe", "params": {
    /**
     * MTE2, CUBE, VECTOR …
     */
    pipe: string,
    /**
     * Busy percent, rounded.
     */
    percent: number,
  }
    } | { "code": "schedule.startup_share", "params": {
    /**
     * The bound pipe.
     */
    pipe: string,
    /**
     * Start-up share of its busy time in percent, rounded.
     */
    percent: number,
  }
    } | { "code": "schedule.pipes_wait" } | { "code": "schedule.single_buffered", "params": {
    /**
     * The n-buffering depth asked for (`vec_nbuffer_setting`, 2 by default).
     */
    requested: number,
  }
    } | { "code": "schedule.cube_peak", "params": {
    /**
     * Percent of peak, rounded.
     */
    percent: number,
  }
    } | { "code": "gradcheck.sides.none" } | { "code": "gradcheck.sides.npu", "params": {
    /**
     * Whether the kernel has a registered backward.
     */
    registered: boolean,
    /**
     * The NPU preset.
     */
    preset: string,
  }
    } | { "code": "gradcheck.sides.cpu", "params": {
    /**
     * Whether the kernel has a registered backward.
     */
    registered: boolean,
  }
    } | { "code": "gradcheck.sides.mixed", "params": {
    /**
     * Calls on the NPU.
     */
    npu_calls: number,
    /**
     * Calls on the CPU reference path.
     */
    cpu_calls: number,
    /**
     * The NPU preset.
     */
    preset: string,
  }
    } | { "code": "gradcheck.all_kinks", "params": {
    /**
     * The input's position.
     */
    input: number,
    /**
     * Entries compared.
     */
    count: number,
  }
    } | { "code": "gradcheck.worst", "params": {
    /**
     * The input's position.
     */
    input: number,
    /**
     * The element's index.
     */
    index: Array<number>,
    /**
     * The analytic derivative.
     */
    analytic: number,
    /**
     * The numerical derivative.
     */
    numerical: number,
  }
    } | { "code": "name.undefined", "params": {
    /**
     * The name.
     */
    name: string,
  }
    } | { "code": "name.no_module_attribute", "params": {
    /**
     * The module.
     */
    module: string,
    /**
     * The missing attribute.
     */
    name: string,
  }
    } | { "code": "name.did_you_mean", "params": {
    /**
     * The suggestion (`tanh`, `pypto.view`).
     */
    suggestion: string,
  }
    } | { "code": "name.did_you_mean_pypto", "params": {
    /**
     * `pypto.exp`.
     */
    qualified: string,
  }
    } | { "code": "name.add_import", "params": {
    /**
     * `import pypto as pt`.
     */
    statement: string,
  }
    } | { "code": "type.unsupported_operand", "params": {
    /**
     * `+`, `@` …
     */
    operator: string,
    /**
     * The left operand's type name.
     */
    left: string,
    /**
     * The right operand's type name.
     */
    right: string,
  }
    } | { "code": "npu.vec_tile_misaligned", "params": {
    /**
     * The last dim.
     */
    last: number,
    /**
     * The granule in bytes.
     */
    granule: number,
    /**
     * The dtype (`DT_BF16`).
     */
    dtype: string,
    /**
     * Bytes per element.
     */
    element_bytes: number,
    /**
     * Bytes of the last dim.
     */
    bytes: number,
  }
    } | { "code": "npu.aligned_sizes", "params": {
    /**
     * The multiple, in elements.
     */
    align: number,
    /**
     * The nearest aligned sizes.
     */
    nearest: Array<number>,
  }
    } | { "code": "npu.padded_tile_rows", "params": {
    /**
     * The multiple, in elements.
     */
    align: number,
    /**
     * The nearest aligned sizes.
     */
    nearest: Array<number>,
  }
    } | { "code": "call.unexpected_keyword", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The keyword.
     */
    keyword: string,
  }
    } | { "code": "call.missing_argument", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
  }
    } | { "code": "call.takes", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * Its parameter names, comma-separated.
     */
    names: string,
  }
    } | { "code": "tensor.broadcast_mismatch", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The left shape.
     */
    lhs: Array<number>,
    /**
     * The right shape.
     */
    rhs: Array<number>,
    /**
     * The dim of the broadcast (from the left of the result).
     */
    dim: number,
    /**
     * The left size there.
     */
    left: number,
    /**
     * The right size there.
     */
    right: number,
  }
    } | { "code": "npu.capacity", "params": {
    /**
     * UB, L1, L0A …
     */
    memory: string,
    /**
     * Bytes needed.
     */
    bytes: number,
    /**
     * Bytes the memory holds.
     */
    capacity: number,
    /**
     * The buffer that did not fit.
     */
    buffer: string,
    /**
     * Its tile.
     */
    tile: Array<number>,
    /**
     * The largest tile that fits, if any.
     */
    largest_tile: Array<number> | null,
  }
    } | { "code": "npu.largest_tile", "params": {
    /**
     * The memory.
     */
    memory: string,
    /**
     * The tile.
     */
    tile: Array<number>,
  }
    } | { "code": "npu.no_tile_fits", "params": {
    /**
     * The memory.
     */
    memory: string,
  }
    } | { "code": "npu.misaligned_last_dim", "params": {
    /**
     * The last dim.
     */
    last: number,
    /**
     * The granule in bytes.
     */
    granule: number,
    /**
     * Bytes per element.
     */
    element_bytes: number,
    /**
     * The multiple to use.
     */
    align: number,
  }
    } | { "code": "npu.cpu_fallback", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * Why (a coded reason, or the engine's English as a `text` message).
     */
    reason: Message,
  }
    } | { "code": "npu.cpu_fallback_help" } | { "code": "progress.kernel", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * Which kernel call of the cell (1-based).
     */
    call: number,
    /**
     * What it is doing.
     */
    stage: KernelStage,
  }
} | SyntaxMessage | RuntimeMessage | AutogradMessage | AutogradCallMessage | NpuMessage | TensorMessage | NpuCheckMessage | LibraryFamily;

/**
 * One element of an `assert_allclose` failure (a line of its note).
 */
export type Mismatch = { "code": "assert.mismatch", "params": {
    /**
     * Its index.
     */
    index: Array<number>,
    /**
     * The actual value, as printed.
     */
    actual: string,
    /**
     * The desired value, as printed.
     */
    desired: string,
    /**
     * `|actual - desired|`, as printed.
     */
    difference: string,
  }
};

/**
 * What name the parser expected (`expected a parameter name, found '1'`).
 */
export type NameSlot = { "code": "slot.after_as" } | { "code": "slot.attribute" } | { "code": "slot.after_dot" } | { "code": "slot.class_name" } | { "code": "slot.function_name" } | { "code": "slot.declared" } | { "code": "slot.parameter" } | { "code": "slot.module_after_import" } | { "code": "slot.module_after_from" } | { "code": "slot.imported_name" };

/**
 * A check or run of the simulator that failed.
 */
export type NpuCheckMessage = { "code": "npu.misaligned", "params": {
    /**
     * UB, L1, L0A …
     */
    memory: string,
    /**
     * The buffer.
     */
    buffer: string,
    /**
     * Which rule.
     */
    detail: AlignmentDetail,
    /**
     * The kernel line, when the message does not sit at it.
     */
    line: number | null,
  }
    } | { "code": "npu.view_out_of_bounds", "params": {
    /**
     * What reaches past the edge.
     */
    what: ViewSubject,
    /**
     * Its offsets.
     */
    offsets: Array<number>,
    /**
     * Its shape.
     */
    shape: Array<number>,
    /**
     * The shape it must stay inside.
     */
    bounds: Array<number>,
    /**
     * The kernel line, when the message does not sit at it.
     */
    line: number | null,
  }
    } | { "code": "npu.bad_config", "params": {
    /**
     * The field (`(json)` for the whole text).
     */
    field: string,
    /**
     * What is wrong.
     */
    detail: ConfigDetail,
  }
    } | { "code": "npu.invalid_program", "params": {
    /**
     * The core.
     */
    core: number,
    /**
     * The instruction, if one.
     */
    instruction: number | null,
    /**
     * What is wrong.
     */
    detail: ProgramDetail,
  }
    } | { "code": "npu.execution_at", "params": {
    /**
     * The core.
     */
    core: number,
    /**
     * The instruction.
     */
    instruction: number,
    /**
     * What failed.
     */
    detail: ExecutionDetail,
  }
    } | { "code": "npu.execution", "params": {
    /**
     * What failed.
     */
    detail: ExecutionDetail,
  }
};

/**
 * An NPU error, a fallback reason or a kernel-option warning.
 */
export type NpuMessage = { "code": "npu.unknown_preset", "params": {
    /**
     * `pypto.npu.use`.
     */
    function: string | null,
    /**
     * The name asked for.
     */
    name: string,
    /**
     * The presets, comma-separated.
     */
    known: string,
  }
    } | { "code": "npu.presets", "params": {
    /**
     * The presets, comma-separated.
     */
    known: string,
  }
    } | { "code": "npu.too_many_cores", "params": {
    /**
     * `cube` or `vector`.
     */
    kind: string,
    /**
     * Programs.
     */
    programs: number,
    /**
     * Cores of that kind.
     */
    available: number,
  }
    } | { "code": "npu.deadlock", "params": {
    /**
     * The core.
     */
    core: number,
    /**
     * The pipe.
     */
    pipe: string,
    /**
     * The instruction's index.
     */
    instruction: number,
    /**
     * The instruction's op.
     */
    op: string,
  }
    } | { "code": "npu.fallback.op", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * Its script line.
     */
    line: number | null,
  }
    } | { "code": "npu.calls_kernels" } | { "code": "npu.no_output" } | { "code": "npu.fallback.unsupported", "params": {
    /**
     * What cannot run.
     */
    what: CompilerReason,
    /**
     * Its script line.
     */
    line: number | null,
  }
    } | { "code": "npu.fallback.lowering", "params": {
    /**
     * The stage or instruction that refused it.
     */
    op: string,
    /**
     * Why.
     */
    reason: LoweringReason,
    /**
     * Its script line.
     */
    line: number | null,
  }
    } | { "code": "npu.fallback.values", "params": {
    /**
     * The error.
     */
    error: Message,
  }
    } | { "code": "npu.not_derivable", "params": {
    /**
     * The construct.
     */
    what: DerivationReason,
    /**
     * Its script line.
     */
    line: number | null,
  }
    } | { "code": "npu.backward_lost_output" } | { "code": "npu.no_generated_backward", "params": {
    /**
     * The kernel.
     */
    kernel: string,
    /**
     * Why not.
     */
    reason: Message,
  }
    } | { "code": "npu.no_generated_backward.help" } | { "code": "npu.generated_backward_on_cpu", "params": {
    /**
     * The backward kernel's name.
     */
    name: string,
    /**
     * Why.
     */
    reason: Message,
  }
    } | { "code": "npu.generated_backward_on_cpu.help" } | { "code": "lang.unknown_option", "params": {
    /**
     * `pass_options` or `runtime_options`.
     */
    table: string,
    /**
     * The key.
     */
    key: string,
  }
    } | { "code": "lang.documented_options", "params": {
    /**
     * The keys, comma-separated.
     */
    known: string,
  }
    } | { "code": "npu.option_not_modelled", "params": {
    /**
     * `pass_options` or `runtime_options`.
     */
    table: string,
    /**
     * The key.
     */
    key: string,
    /**
     * What the simulator lacks.
     */
    feature: OptionFeature,
  }
    } | { "code": "npu.options_not_modelled", "params": {
    /**
     * The decorator.
     */
    function: string,
    /**
     * The arguments, comma-separated.
     */
    names: string,
  }
    } | { "code": "npu.jit_options_not_modelled", "params": {
    /**
     * The arguments, comma-separated.
     */
    names: string,
  }
    } | { "code": "npu.set_tiles_inside" } | { "code": "npu.option_scope_not_modelled", "params": {
    /**
     * The function they were given to.
     */
    function: string,
    /**
     * The options, comma-separated.
     */
    names: string,
  }
    } | { "code": "npu.give_options_to_kernel" } | { "code": "npu.cast_mode_not_modelled", "params": {
    /**
     * `pypto.CastMode.CAST_ROUND`.
     */
    mode: string,
  }
    } | { "code": "lang.loop_unroll_skips", "params": {
    /**
     * The range's start.
     */
    start: number,
    /**
     * Its stop.
     */
    stop: number,
    /**
     * Its step.
     */
    step: number,
    /**
     * Indices visited.
     */
    visited: number,
    /**
     * Indices of the range.
     */
    expected: number,
  }
    } | { "code": "lang.multiple_of_step", "params": {
    /**
     * The step.
     */
    step: number,
  }
    } | { "code": "lang.jit_output_rebound", "params": {
    /**
     * The parameter.
     */
    name: string,
    /**
     * The kernel.
     */
    kernel: string,
  }
    } | { "code": "lang.write_output_in_place", "params": {
    /**
     * The parameter.
     */
    name: string,
  }
    } | { "code": "npu.cost_model_output_not_written", "params": {
    /**
     * The file.
     */
    path: string,
    /**
     * What the file system said.
     */
    reason: string,
  }
};

/**
 * A differentiable primitive with its parameters. Composites (layer norm …) are built from these.
 */
export type Op = { "Unary": UnaryOp } | { "Binary": BinaryOp } | { "Clip": { low: number | null, high: number | null, } } | { "Reduce": { op: ReduceOp, axes: Array<number>, keepdim: boolean, } } | { "Softmax": { op: SoftmaxOp, axis: number, } } | { "Matmul": { a_trans: boolean, b_trans: boolean, out_dtype: DType | null, } } | { "Reshape": { shape: Array<number>, } } | { "Permute": { order: Array<number>, } } | { "Concat": { axis: number, } } | { "Slice": { ranges: Array<SliceRange>, } } | { "AssignSlice": { ranges: Array<SliceRange>, } } | { "View": { shape: Array<number>, offsets: Array<number>, valid_shape: Array<number>, } } | { "Assemble": { offsets: Array<number>, } } | { "Cast": { dtype: DType, } } | "Where" | { "Gather": { axis: number, } } | { "Scatter": { axis: number, mode: ScatterMode, } } | { "Cumsum": { axis: number, } } | "NormalCdf" | { "Custom": { name: string, } } | { "Checkpoint": { name: string, } };

/**
 * A runtime error about a value or a limit, or its help.
 */
export type OperationMessage = { "code": "type.bad_unary", "params": {
    /**
     * `-` or `+`.
     */
    operator: string,
    /**
     * The operand's type.
     */
    type_name: string,
  }
    } | { "code": "type.not_iterable", "params": {
    /**
     * The value's type.
     */
    type_name: string,
  }
    } | { "code": "type.not_subscriptable", "params": {
    /**
     * The value's type.
     */
    type_name: string,
  }
    } | { "code": "type.no_item_assignment", "params": {
    /**
     * The value's type.
     */
    type_name: string,
  }
    } | { "code": "type.unhashable", "params": {
    /**
     * The key's type.
     */
    type_name: string,
  }
    } | { "code": "type.update_sequence", "params": {
    /**
     * The item's length.
     */
    length: number,
  }
    } | { "code": "type.not_orderable", "params": {
    /**
     * `<`, `<=` …
     */
    operator: string,
    /**
     * The left operand's type.
     */
    left: string,
    /**
     * The right operand's type.
     */
    right: string,
  }
    } | { "code": "type.compare_scalar" } | { "code": "type.repeat_sequence" } | { "code": "type.in_string", "params": {
    /**
     * The left operand's type.
     */
    got: string,
  }
    } | { "code": "type.slice_index", "params": {
    /**
     * The index's type.
     */
    got: string,
  }
    } | { "code": "call.needs_argument", "params": {
    /**
     * The builtin.
     */
    function: string,
  }
    } | { "code": "call.unsupported_argument", "params": {
    /**
     * The builtin.
     */
    function: string,
    /**
     * The argument's type.
     */
    type_name: string,
  }
    } | { "code": "call.no_keywords", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "call.keywords_must_be_strings" } | { "code": "call.double_star_dict", "params": {
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "type.len_of_scalar" } | { "code": "value.float_parse", "params": {
    /**
     * The string's repr.
     */
    text: string,
  }
    } | { "code": "value.math_domain", "params": {
    /**
     * `sqrt`, `log` …
     */
    function: string,
  }
    } | { "code": "value.nan_to_int" } | { "code": "overflow.infinity_to_int" } | { "code": "overflow.float_too_large", "params": {
    /**
     * The float, as printed.
     */
    value: string,
  }
    } | { "code": "overflow.integer" } | { "code": "operation.negative_shift_count" } | { "code": "overflow.range_too_long" } | { "code": "overflow.iterate_range" } | { "code": "value.negative_size", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The size.
     */
    size: number,
  }
    } | { "code": "type.shape_not_list", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "type.shape_item", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The item's type.
     */
    got: string,
  }
    } | { "code": "limit.call_depth", "params": {
    /**
     * The limit.
     */
    limit: number,
  }
    } | { "code": "limit.stack", "params": {
    /**
     * Nested calls.
     */
    depth: number,
    /**
     * The budget in KiB.
     */
    kib: number,
  }
    } | { "code": "limit.recursion_help" } | { "code": "limit.step_budget", "params": {
    /**
     * The budget.
     */
    budget: number,
  }
    } | { "code": "limit.large_ops" } | { "code": "limit.endless_loop" } | { "code": "limit.timeout", "params": {
    /**
     * The limit in seconds.
     */
    seconds: number,
  }
    } | { "code": "limit.give_more_time" } | { "code": "limit.memory", "params": {
    /**
     * What the values take, as printed.
     */
    held: string,
    /**
     * The budget, as printed.
     */
    budget: string,
  }
    } | { "code": "limit.free_values" } | { "code": "limit.output", "params": {
    /**
     * The limit in bytes.
     */
    limit: number,
  }
    } | { "code": "limit.list", "params": {
    /**
     * Items.
     */
    count: number,
    /**
     * The limit.
     */
    limit: number,
  }
    } | { "code": "limit.string", "params": {
    /**
     * Bytes.
     */
    bytes: number,
    /**
     * The limit.
     */
    limit: number,
  }
    } | { "code": "value.cannot_unpack", "params": {
    /**
     * Values.
     */
    values: number,
    /**
     * Targets.
     */
    targets: number,
  }
    } | { "code": "value.empty_separator" } | { "code": "attribute.no_method", "params": {
    /**
     * The value's type.
     */
    type_name: string,
    /**
     * The method.
     */
    name: string,
  }
    } | { "code": "type.str_needs_string", "params": {
    /**
     * `split`, `join` …
     */
    method: string,
    /**
     * The argument's type.
     */
    got: string,
  }
    } | { "code": "type.join_items", "params": {
    /**
     * The item's type.
     */
    got: string,
  }
    } | { "code": "attribute.cannot_set", "params": {
    /**
     * The attribute.
     */
    name: string,
    /**
     * The object's type.
     */
    type_name: string,
  }
    } | { "code": "name.numpy_unavailable" } | { "code": "runtime.cannot_assign" } | { "code": "runtime.not_parsed", "params": {
    /**
     * `statement` or `expression`.
     */
    what: string,
  }
} | { "code": "control.break_outside_loop" } | { "code": "control.outside_function" };

/**
 * A device feature an accepted option configures and the simulator does not model.
 */
export type OptionFeature = { "code": "option_feature.per_function_vec_buffering" } | { "code": "option_feature.per_label_vec_buffering" } | { "code": "option_feature.per_function_cube_buffering" } | { "code": "option_feature.per_label_cube_buffering" } | { "code": "option_feature.l1_reuse" } | { "code": "option_feature.per_function_l1_reuse" } | { "code": "option_feature.per_label_l1_reuse" } | { "code": "option_feature.partition_parallelism" } | { "code": "option_feature.partition_lower_bound" } | { "code": "option_feature.partition_upper_bound" } | { "code": "option_feature.partition_algorithm" } | { "code": "option_feature.merge_copy_in_bound" } | { "code": "option_feature.merge_vector_parallelism" } | { "code": "option_feature.copy_out_coalescing" } | { "code": "option_feature.mixed_partitioning" } | { "code": "option_feature.subgraph_scopes" } | { "code": "option_feature.valid_shape_optimisation" } | { "code": "option_feature.pass_verification" } | { "code": "option_feature.compiler_slicing" } | { "code": "option_feature.out_of_order_scopes" } | { "code": "option_feature.out_of_order_mode" } | { "code": "option_feature.vector_function_tuning" } | { "code": "option_feature.device_scheduler_mode" } | { "code": "option_feature.function_stitching" } | { "code": "option_feature.host_ready_tensors" } | { "code": "option_feature.device_scheduler_parallelism" } | { "code": "option_feature.scheduling_ai_cpus" } | { "code": "option_feature.same_cluster_scheduling" } | { "code": "option_feature.early_launch" } | { "code": "option_feature.workspace_budget" } | { "code": "option_feature.compile_stage" };

/**
 * What is wrong with a tile program.
 */
export type ProgramDetail = { "code": "npu.program.mixed_core" } | { "code": "npu.program.unknown_buffer", "params": {
    /**
     * The id.
     */
    id: number,
  }
    } | { "code": "npu.program.unknown_flag", "params": {
    /**
     * The id.
     */
    id: number,
  }
    } | { "code": "npu.program.unknown_cross_flag", "params": {
    /**
     * The id.
     */
    id: number,
  }
    } | { "code": "npu.program.unknown_tensor", "params": {
    /**
     * The id.
     */
    id: number,
  }
    } | { "code": "npu.program.transpose_rank", "params": {
    /**
     * The sub-tile's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "npu.program.operands_broadcast", "params": {
    /**
     * The left operand's shape.
     */
    lhs: Array<number>,
    /**
     * The right operand's shape.
     */
    rhs: Array<number>,
    /**
     * The written shape.
     */
    written: Array<number>,
  }
    } | { "code": "npu.program.reduce_dim", "params": {
    /**
     * The dim.
     */
    dim: number,
    /**
     * The tile's rank.
     */
    rank: number,
  }
    } | { "code": "npu.program.dim_of_tile", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The dim.
     */
    dim: number,
    /**
     * The tile's rank.
     */
    rank: number,
  }
    } | { "code": "npu.program.arity", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * Operands it takes.
     */
    arity: number,
    /**
     * Operands given.
     */
    got: number,
  }
    } | { "code": "npu.program.no_tile_operand", "params": {
    /**
     * The op.
     */
    op: string,
  }
    } | { "code": "npu.program.shapes", "params": {
    /**
     * The tensor core's message.
     */
    error: Message,
  }
    } | { "code": "npu.program.concat", "params": {
    /**
     * The first tile's shape.
     */
    first: Array<number>,
    /**
     * The other tile's shape.
     */
    other: Array<number>,
    /**
     * The joined dim.
     */
    dim: number,
  }
    } | { "code": "npu.program.transpose_dims", "params": {
    /**
     * The dims.
     */
    dims: Array<number>,
    /**
     * The tile's rank.
     */
    rank: number,
  }
    } | { "code": "npu.program.topk", "params": {
    /**
     * The k.
     */
    k: number,
    /**
     * The dim.
     */
    dim: number,
    /**
     * The tile's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "npu.program.topk_indices" } | { "code": "npu.program.slice", "params": {
    /**
     * The offsets.
     */
    offsets: Array<number>,
    /**
     * The tile's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "npu.program.reshape", "params": {
    /**
     * The tile's shape.
     */
    from: Array<number>,
    /**
     * The written shape.
     */
    to: Array<number>,
  }
    } | { "code": "npu.program.index_dtype", "params": {
    /**
     * `gather` or `scatter`.
     */
    op: string,
  }
    } | { "code": "npu.program.index_rank", "params": {
    /**
     * `gather` or `scatter`.
     */
    op: string,
    /**
     * The dim.
     */
    dim: number,
  }
    } | { "code": "npu.program.written_shape", "params": {
    /**
     * The op (a name of the tile ISA: keeps the error small).
     */
    op: string,
    /**
     * The shapes of its tile operands, in order.
     */
    operands: Array<Array<number>>,
    /**
     * How many of its operands are numbers (`None`: none).
     */
    scalars: number | null,
    /**
     * The op's result shape.
     */
    expected: Array<number>,
    /**
     * The written shape.
     */
    written: Array<number>,
  }
} | { "code": "npu.program.compare_writes_bool" };

/**
 * Reductions.
 */
export type ReduceOp = "Sum" | "Mean" | "Amax" | "Amin" | "Var";

/**
 * A runtime error's message or help.
 */
export type RuntimeMessage = { "code": "call.too_many_positional", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * Its positional parameters.
     */
    expected: number,
    /**
     * Arguments given.
     */
    given: number,
  }
    } | { "code": "call.at_most_positional", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The most it takes.
     */
    count: number,
  }
    } | { "code": "call.multiple_values", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
  }
    } | { "code": "call.missing_keyword", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
  }
    } | { "code": "call.takes_no_arguments", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * Arguments given.
     */
    given: number,
  }
    } | { "code": "call.argument_type", "params": {
    /**
     * The function.
     */
    function: string,
    /**
     * The parameter.
     */
    parameter: string,
    /**
     * What it must be.
     */
    expected: Expected,
    /**
     * The type given.
     */
    got: string,
  }
    } | { "code": "call.not_callable", "params": {
    /**
     * The value's type.
     */
    type_name: string,
  }
    } | { "code": "attribute.missing", "params": {
    /**
     * The object's type (or class).
     */
    type_name: string,
    /**
     * The attribute.
     */
    name: string,
  }
    } | { "code": "index.out_of_range", "params": {
    /**
     * The index as written.
     */
    index: number,
    /**
     * The length.
     */
    length: number,
  }
    } | { "code": "index.tensor_out_of_range", "params": {
    /**
     * The index as written.
     */
    index: number,
    /**
     * The dim.
     */
    dim: number,
    /**
     * Its size.
     */
    size: number,
  }
    } | { "code": "index.wrong_type", "params": {
    /**
     * The index's type.
     */
    got: string,
  }
    } | { "code": "index.missing_key", "params": {
    /**
     * The key's repr.
     */
    key: string,
  }
    } | { "code": "index.missing_member", "params": {
    /**
     * The member's repr.
     */
    member: string,
  }
    } | { "code": "index.empty_set" } | { "code": "assert.failed" } | { "code": "assert.failed_with", "params": {
    /**
     * The user's message.
     */
    text: string,
  }
    } | { "code": "assert.allclose_shapes", "params": {
    /**
     * The actual shape.
     */
    actual: Array<number>,
    /**
     * The desired shape.
     */
    desired: Array<number>,
  }
    } | { "code": "assert.same_shape" } | { "code": "assert.allclose", "params": {
    /**
     * Elements that differ.
     */
    differ: number,
    /**
     * Elements compared.
     */
    count: number,
    /**
     * The relative tolerance, as printed.
     */
    rtol: string,
    /**
     * The absolute tolerance, as printed.
     */
    atol: string,
    /**
     * The largest absolute difference, as printed.
     */
    largest: string,
  }
    } | { "code": "assert.worst_mismatches", "params": {
    /**
     * The elements.
     */
    mismatches: Array<Mismatch>,
  }
    } | { "code": "value.division_by_zero" } | { "code": "value.float_division_by_zero" } | { "code": "value.not_in_list" } | { "code": "value.pop_empty" } | { "code": "value.empty_sequence", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "value.give_default", "params": {
    /**
     * The function.
     */
    function: string,
  }
    } | { "code": "value.invalid_int", "params": {
    /**
     * The text's repr.
     */
    text: string,
  }
    } | { "code": "value.ambiguous_truth" } | { "code": "value.use_allclose" } | { "code": "value.zero_step" } | { "code": "value.slice_step_zero" } | { "code": "format.width_too_large", "params": {
    /**
     * The spec.
     */
    spec: string,
    /**
     * The widest field.
     */
    limit: number,
  }
    } | { "code": "format.precision_too_large", "params": {
    /**
     * The spec.
     */
    spec: string,
    /**
     * The most digits.
     */
    limit: number,
  }
    } | { "code": "format.invalid_spec", "params": {
    /**
     * The spec.
     */
    spec: string,
  }
    } | { "code": "format.integer_code", "params": {
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "format.unknown_code", "params": {
    /**
     * The code.
     */
    code: string,
    /**
     * The value's type.
     */
    type_name: string,
  }
} | OperationMessage | StatementMessage | ClassMessage;

/**
 * One forward value a generated backward kernel reads, and whether the forward saved it (a GM
 * write, then a read in the backward) or the backward recomputes it inside its tile.
 */
export type SaveChoice = {
  /**
   * The forward op that made it (`sigmoid`, `matmul` …).
   */
  op: string,
  /**
   * Its line in the kernel's script.
   */
  line: number | null,
  /**
   * Shape and dtype.
   */
  meta: ValueMeta,
  /**
   * Saved (else recomputed).
   */
  saved: boolean,
  /**
   * Its bytes.
   */
  bytes: number,
};

/**
 * One saved tensor, for the graph view.
 */
export type SavedInfo = {
  /**
   * `input 0`, `output 0`, `extra 0` …
   */
  role: string,
  /**
   * Shape and dtype.
   */
  meta: ValueMeta,
  /**
   * Bytes of the values.
   */
  bytes: number,
  /**
   * Identity of the buffer (equal for aliases, so shared buffers are counted once).
   */
  buffer_id: number,
  /**
   * Whether the buffer is the value of a leaf or a constant (held by the caller anyway, so not
   * memory the graph adds).
   */
  is_leaf_value: boolean,
};

/**
 * How `scatter` combines a source value with the element it lands on (pypto's `reduce=`).
 */
export type ScatterMode = "Replace" | "Add" | "Multiply";

/**
 * A simulated schedule for display: the summary figures and the Chrome trace.
 */
export type ScheduleDisplay = {
  /**
   * Cycles, time, busy fraction per pipe, GM bytes, bound, peak occupancy per memory, notes.
   */
  summary: Summary,
  /**
   * Chrome Trace Event JSON (opens in Perfetto).
   */
  trace_json: string,
  /**
   * The execution number of the cell that defined the kernel: the trace's source lines are its
   * lines (None when unknown; the page then uses the cell showing the display).
   */
  cell: number | null,
};

/**
 * How bad a diagnostic is.
 */
export type Severity = "error" | "warning";

/**
 * Why two shapes do not combine.
 */
export type ShapeDetail = { "code": "tensor.shape.broadcast", "params": {
    /**
     * The dim, from the left of the result.
     */
    dim: number,
    /**
     * The left size there.
     */
    left: number,
    /**
     * The right size there.
     */
    right: number,
  }
    } | { "code": "tensor.shape.matmul_rank" } | { "code": "tensor.shape.inner_dims", "params": {
    /**
     * The left operand's last dim.
     */
    left: number,
    /**
     * The right operand's second-to-last dim.
     */
    right: number,
  }
    } | { "code": "tensor.shape.batch_dims", "params": {
    /**
     * The left batch dims.
     */
    left: Array<number>,
    /**
     * The right batch dims.
     */
    right: Array<number>,
  }
    } | { "code": "tensor.shape.element_count", "params": {
    /**
     * The tensor's element count.
     */
    count: number,
    /**
     * The new shape's.
     */
    target: number,
  }
    } | { "code": "tensor.shape.concat_dims", "params": {
    /**
     * The joined dim.
     */
    dim: number,
  }
    } | { "code": "tensor.shape.value_to_slice" } | { "code": "tensor.shape.bound_to_input" } | { "code": "tensor.shape.assemble_rank", "params": {
    /**
     * The offsets given.
     */
    offsets: number,
  }
    } | { "code": "tensor.shape.scatter_source" } | { "code": "tensor.shape.index_shape", "params": {
    /**
     * The indexed dim.
     */
    dim: number,
  }
};

/**
 * One dim of a strided slice (serialisable mirror of `tensor::SliceSpec`).
 */
export type SliceRange = {
  /**
   * First index.
   */
  start: number,
  /**
   * Distance between indices (may be negative).
   */
  step: number,
  /**
   * Number of indices.
   */
  count: number,
};

/**
 * The softmax family, normalised along one dim.
 */
export type SoftmaxOp = "Softmax" | "LogSoftmax";

/**
 * A half-open byte range `start..end` into the source; both ends lie on UTF-8 char boundaries.
 */
export type Span = {
  /**
   * Byte offset of the first byte.
   */
  start: number,
  /**
   * Byte offset one past the last byte.
   */
  end: number,
};

/**
 * A runtime error of a statement, or its help.
 */
export type StatementMessage = { "code": "decorator.target", "params": {
    /**
     * The decorator.
     */
    decorator: string,
    /**
     * The decorated value's type.
     */
    got: string,
  }
    } | { "code": "decorator.one_per_function" } | { "code": "delete.expression" } | { "code": "delete.items", "params": {
    /**
     * The container's type.
     */
    type_name: string,
  }
    } | { "code": "delete.what" } | { "code": "declare.no_nonlocal_binding", "params": {
    /**
     * The name.
     */
    name: string,
  }
    } | { "code": "delete.attribute", "params": {
    /**
     * The attribute.
     */
    name: string,
    /**
     * The object's type.
     */
    type_name: string,
  }
    } | { "code": "delete.no_attribute", "params": {
    /**
     * The attribute.
     */
    name: string,
  }
    } | { "code": "except.types", "params": {
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "except.forms" } | { "code": "import.unavailable", "params": {
    /**
     * The module.
     */
    module: string,
  }
    } | { "code": "import.available" } | { "code": "import.numpy_subset" } | { "code": "import.not_found", "params": {
    /**
     * The module.
     */
    module: string,
  }
    } | { "code": "import.searched", "params": {
    /**
     * The directories, comma separated.
     */
    directories: string,
  }
    } | { "code": "import.no_files" } | { "code": "raise.exception", "params": {
    /**
     * `ValueError` …
     */
    name: string,
    /**
     * The exception's message, if it has one.
     */
    text: string | null,
  }
    } | { "code": "raise.not_an_exception", "params": {
    /**
     * The value's type.
     */
    got: string,
  }
    } | { "code": "raise.exception_types" } | { "code": "with.no_protocol", "params": {
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "with.define_enter_exit", "params": {
    /**
     * The class.
     */
    class_name: string,
  }
    } | { "code": "with.not_a_context_manager", "params": {
    /**
     * The value's type.
     */
    type_name: string,
  }
} | { "code": "with.context_managers" } | { "code": "with.function_in_header" } | { "code": "with.function_tensors_by_name" } | { "code": "with.write_function_header" } | { "code": "with.no_recorded_function" };

/**
 * What is wrong with one step of a unit (the unit's own bookkeeping, checked before lowering it).
 */
export type StepFault = { "code": "npu.step.missing_value", "params": {
    /**
     * The value.
     */
    value: number,
    /**
     * How many values the unit has.
     */
    count: number,
  }
    } | { "code": "npu.step.read_before_produced", "params": {
    /**
     * The value.
     */
    value: number,
  }
    } | { "code": "npu.step.produced_twice", "params": {
    /**
     * The value.
     */
    value: number,
  }
    } | { "code": "npu.step.missing_tensor", "params": {
    /**
     * The tensor's number.
     */
    tensor: number,
  }
    } | { "code": "npu.step.region_rank", "params": {
    /**
     * The tensor.
     */
    name: string,
    /**
     * The region's rank.
     */
    rank: number,
    /**
     * The tile's shape.
     */
    tile: Array<number>,
    /**
     * The tile's rank.
     */
    tile_rank: number,
  }
    } | { "code": "npu.step.region_larger", "params": {
    /**
     * The tensor.
     */
    name: string,
    /**
     * The region's shape.
     */
    region: Array<number>,
    /**
     * The tile's shape.
     */
    tile: Array<number>,
  }
    } | { "code": "npu.step.matmul_operand_rank", "params": {
    /**
     * The operand's shape.
     */
    shape: Array<number>,
  }
    } | { "code": "npu.step.matmul_of_matmul", "params": {
    /**
     * The operand's value.
     */
    value: number,
  }
    } | { "code": "npu.step.numbers_only" } | { "code": "npu.step.reduce_dim", "params": {
    /**
     * The dim.
     */
    dim: number,
    /**
     * The tile's rank.
     */
    rank: number,
  }
};

/**
 * What a schedule object shows (DESIGN §2): the figures of one simulated kernel run.
 */
export type Summary = {
  /**
   * The preset simulated.
   */
  preset: string,
  /**
   * Cycles from the first start to the last end.
   */
  cycles: number,
  /**
   * `cycles` at the clock, in µs.
   */
  time_us: number,
  /**
   * Busy fraction per pipe ("MTE2" → 0.95), averaged over the cores whose program uses the pipe.
   */
  pipe_busy: { [key in string]: number },
  /**
   * Bytes read from GM (L2 hits included).
   */
  gm_bytes_read: number,
  /**
   * Bytes written to GM.
   */
  gm_bytes_written: number,
  /**
   * Bytes read that L2 served without touching HBM.
   */
  l2_hit_bytes: number,
  /**
   * Floating-point operations executed.
   */
  flops: number,
  /**
   * `flops` per second of simulated time.
   */
  achieved_flops_per_second: number,
  /**
   * The cube peak of the whole chip.
   */
  peak_flops_per_second: number,
  /**
   * The busiest pipe ("MTE2", "CUBE", "VECTOR" …).
   */
  bound: string,
  /**
   * Why: notes about the bound (start-up latency share, idle pipes …) as messages.
   */
  notes: Array<Message>,
  /**
   * Largest bytes in use per memory on any one core.
   */
  peak_occupancy: { [key in string]: number },
  /**
   * Capacity per memory of one core.
   */
  capacities: { [key in string]: number },
  /**
   * Cores that ran a program.
   */
  cores_used: number,
  /**
   * Instructions simulated.
   */
  instructions: number,
};

/**
 * A tile sweep for display: the rows (cycles, time, bound, UB peak or the error) and the best.
 */
export type SweepDisplay = {
  /**
   * The kernel's name.
   */
  kernel: string,
  /**
   * The NPU preset it ran on.
   */
  preset: string,
  /**
   * One row per vec tile shape.
   */
  rows: Array<SweepRow>,
  /**
   * Index of the row with the fewest cycles (the first on ties; `None` when every row failed).
   */
  best: number | null,
};

/**
 * One tile shape of a sweep.
 */
export type SweepRow = {
  /**
   * The vec tile dims.
   */
  vec_tile: Array<number>,
  /**
   * Simulated cycles (`None` when the shape was refused).
   */
  cycles: number | null,
  /**
   * Simulated time in µs.
   */
  time_us: number | null,
  /**
   * The busiest resource (`MTE2`, `VECTOR` …).
   */
  bound: string | null,
  /**
   * Peak UB occupancy in bytes.
   */
  peak_ub_bytes: number | null,
  /**
   * Why the shape was refused.
   */
  error: string | null,
  /**
   * `error` as a message code with parameters (capacity and alignment coded), for the page.
   */
  error_message: Message | null,
};

/**
 * A syntax diagnostic's message, help or note.
 */
export type SyntaxMessage = { "code": "syntax.expected_colon", "params": {
    /**
     * The header's keyword.
     */
    keyword: string,
  }
    } | { "code": "syntax.compare_with_equals" } | { "code": "syntax.expected_indented_block", "params": {
    /**
     * The header's keyword.
     */
    keyword: string,
    /**
     * The header's line.
     */
    line: number,
  }
    } | { "code": "syntax.indent_the_body" } | { "code": "syntax.expected_expression", "params": {
    /**
     * The text of the token before.
     */
    after: string | null,
    /**
     * What stands where the expression should.
     */
    found: Token | null,
  }
    } | { "code": "syntax.keyword_not_a_value", "params": {
    /**
     * The keyword.
     */
    keyword: string,
  }
    } | { "code": "syntax.expected_comma", "params": {
    /**
     * The closing bracket.
     */
    closing: string,
    /**
     * What the items are.
     */
    item: BracketItem,
    /**
     * What was found.
     */
    found: Token,
  }
    } | { "code": "syntax.forgot_comma" } | { "code": "syntax.unexpected_after_statement", "params": {
    /**
     * What was found.
     */
    found: Token,
  }
    } | { "code": "syntax.print_is_a_function" } | { "code": "syntax.match_unsupported" } | { "code": "syntax.equals_cannot_appear" } | { "code": "syntax.forgot_operator" } | { "code": "syntax.unexpected_indent" } | { "code": "syntax.inconsistent_dedent" } | { "code": "syntax.indent_like_block" } | { "code": "syntax.mixed_tabs_and_spaces" } | { "code": "syntax.indent_with_spaces" } | { "code": "syntax.unclosed_bracket", "params": {
    /**
     * The bracket.
     */
    bracket: string,
  }
    } | { "code": "syntax.add_closing_bracket", "params": {
    /**
     * The closing bracket.
     */
    closing: string,
  }
    } | { "code": "syntax.mismatched_bracket", "params": {
    /**
     * The closing bracket found.
     */
    closing: string,
    /**
     * The bracket it should close.
     */
    opening: string,
  }
    } | { "code": "syntax.opened_here", "params": {
    /**
     * The bracket.
     */
    bracket: string,
  }
    } | { "code": "syntax.unmatched_closing_bracket", "params": {
    /**
     * The bracket.
     */
    bracket: string,
  }
    } | { "code": "syntax.remove_or_open" } | { "code": "syntax.unterminated_string" } | { "code": "syntax.unterminated_triple_string" } | { "code": "syntax.close_string", "params": {
    /**
     * The quote character.
     */
    quote: string,
  }
    } | { "code": "syntax.close_triple_string", "params": {
    /**
     * The quote character.
     */
    quote: string,
  }
    } | { "code": "syntax.full_width", "params": {
    /**
     * The character.
     */
    character: string,
    /**
     * Its code point, `FF0C`.
     */
    code_point: string,
  }
    } | { "code": "syntax.use_ascii", "params": {
    /**
     * The ASCII character.
     */
    ascii: string,
  }
    } | { "code": "syntax.invalid_character", "params": {
    /**
     * The character.
     */
    character: string,
    /**
     * Its code point, `0024`.
     */
    code_point: string,
  }
    } | { "code": "syntax.invalid_invisible_character", "params": {
    /**
     * Its code point, `200B`.
     */
    code_point: string,
  }
} | { "code": "syntax.use_not" } | { "code": "syntax.use_conditional" } | { "code": "syntax.name_characters" } | { "code": "syntax.return_outside_function" } | { "code": "syntax.last_expression_displayed" } | { "code": "syntax.keyword_needs_name" } | { "code": "syntax.write_name_value" } | { "code": "syntax.positional_after_keyword" } | { "code": "syntax.positional_first" } | { "code": "syntax.lambda_reads" } | { "code": "syntax.else_if" } | { "code": "syntax.use_elif" } | GrammarMessage | LiteralMessage | UnsupportedMessage;

/**
 * A tensor for display: shape, dtype, a preview of values and statistics.
 */
export type TensorDisplay = {
  /**
   * Dims.
   */
  shape: Array<number>,
  /**
   * `DT_FP32` …
   */
  dtype: string,
  /**
   * Whether it is part of a graph.
   */
  requires_grad: boolean,
  /**
   * Nested-list text with `...` for long dims.
   */
  preview: string,
  /**
   * The first values (row-major, at most `TensorDisplay::MAX_VALUES`) for tables and heatmaps.
   */
  values: Array<number>,
  /**
   * Smallest element (NaN ignored; `None` when empty).
   */
  min: number | null,
  /**
   * Largest element.
   */
  max: number | null,
  /**
   * Mean of the elements.
   */
  mean: number | null,
};

/**
 * A tensor error whose detail is typed (the other tensor errors are [`super::AutogradMessage`]s).
 */
export type TensorMessage = { "code": "tensor.shape_mismatch", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * The left shape.
     */
    lhs: Array<number>,
    /**
     * The right shape.
     */
    rhs: Array<number>,
    /**
     * Why.
     */
    detail: ShapeDetail,
  }
    } | { "code": "tensor.bad_argument", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * What is wrong.
     */
    detail: ArgumentDetail,
  }
    } | { "code": "tensor.out_of_bounds", "params": {
    /**
     * The op.
     */
    op: string,
    /**
     * Where.
     */
    detail: BoundsDetail,
  }
};

/**
 * A token as the parser names it in a message ("found ')'", "found the end of the line").
 */
export type Token = { "code": "token.quoted", "params": {
    /**
     * The text, without quotes.
     */
    text: string,
  }
    } | { "code": "token.string", "params": {
    /**
     * The literal's start.
     */
    text: string,
  }
} | { "code": "token.end_of_line" } | { "code": "token.end_of_input" } | { "code": "token.indent" } | { "code": "token.dedent" };

/**
 * Step and tolerances of one check.
 */
export type Tolerance = {
  /**
   * Central-difference step (multiplied by max(1, |x|) per element).
   */
  step: number,
  /**
   * Relative tolerance.
   */
  rtol: number,
  /**
   * Absolute tolerance, relative to the scale of the gradient.
   */
  atol: number,
};

/**
 * One line of a traceback: `function` was called at (`cell`, `line`, `column`).
 */
export type TraceLine = {
  /**
   * The function that was running.
   */
  function: string,
  /**
   * Execution number of the cell holding the call.
   */
  cell: number,
  /**
   * 1-based line of the call in that cell.
   */
  line: number,
  /**
   * 1-based column (in characters).
   */
  column: number,
  /**
   * The call's bytes in that cell.
   */
  span: Span,
  /**
   * How many times in a row this same call appears (recursion is shown once).
   */
  repeated: number,
};

/**
 * Ops of one input.
 */
export type UnaryOp = "Neg" | "Abs" | "Exp" | "Log" | "Sqrt" | "Rsqrt" | "Reciprocal" | "Sin" | "Cos" | "Tanh" | "Sigmoid" | "Relu" | "Silu" | "GeluErf" | "GeluTanh" | "Exp2" | "Erf" | "Erfc" | "Ceil" | "Floor" | "Trunc" | "Round" | "Sign" | "Expm1" | "Log1p" | "Sinh" | "Cosh" | "Atan" | "Asinh" | "Log2" | "Log10" | "Tan" | "Acosh" | "Atanh" | "Cbrt";

/**
 * A construct outside the subset, or the help saying what to use instead.
 */
export type UnsupportedMessage = { "code": "unsupported.construct", "params": {
    /**
     * The construct.
     */
    construct: Construct,
  }
    } | { "code": "unsupported.remove", "params": {
    /**
     * What to remove, as written.
     */
    text: string,
  }
    } | { "code": "unsupported.remove_prefix", "params": {
    /**
     * The prefix (`b`).
     */
    prefix: string,
  }
    } | { "code": "unsupported.write_character" } | { "code": "unsupported.assign_first" } | { "code": "unsupported.build_a_list" } | { "code": "unsupported.use_a_flag" } | { "code": "unsupported.one_file" } | { "code": "unsupported.name_the_imports", "params": {
    /**
     * The module's dotted path.
     */
    path: string,
  }
} | { "code": "unsupported.plain_class" } | { "code": "unsupported.use_f_string" } | { "code": "unsupported.use_allclose" } | { "code": "unsupported.raise_new" } | { "code": "unsupported.nothing_to_reraise" };

/**
 * Shape and dtype of a value flowing along an edge.
 */
export type ValueMeta = {
  /**
   * Dims.
   */
  shape: Array<number>,
  /**
   * Element type.
   */
  dtype: DType,
  /**
   * Valid region of a tile, when it does not cover the whole shape.
   */
  valid_shape: Array<number> | null,
};

/**
 * What reaches past an edge.
 */
export type ViewSubject = { "code": "npu.view.of_tensor", "params": {
    /**
     * The tensor.
     */
    name: string,
  }
    } | { "code": "npu.view.valid_shape", "params": {
    /**
     * The tile.
     */
    name: string,
  }
    } | { "code": "npu.view.sub_tile", "params": {
    /**
     * The tile.
     */
    name: string,
  }
    } | { "code": "npu.view.mmad_operand", "params": {
    /**
     * The tile.
     */
    name: string,
  }
    } | { "code": "npu.view.rows", "params": {
    /**
     * The tile.
     */
    name: string,
  }
    } | { "code": "npu.view.transposed", "params": {
    /**
     * The tile.
     */
    name: string,
  }
    } | { "code": "npu.view.reduced_shape", "params": {
    /**
     * The tile.
     */
    name: string,
  }
};
