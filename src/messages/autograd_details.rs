//! What broke when a custom op, a checkpoint or an autograd function refused its arguments: the
//! detail of `AutogradError::CustomOp` and `AutogradError::BadArgument` as a code with parameters.

use serde::Serialize;

/// A custom op's or autograd function's error, with its detail.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum AutogradCallMessage {
    /// A custom op (a registered gradient, a kernel's backward) broke its contract.
    #[serde(rename = "autograd.custom_op")]
    CustomOp {
        /// The op.
        name: String,
        /// What broke.
        detail: AutogradDetail,
    },
    /// An autograd function refused an argument.
    #[serde(rename = "autograd.bad_argument")]
    BadArgument {
        /// The function.
        op: String,
        /// What was wrong.
        detail: AutogradDetail,
    },
}

/// What a custom op or autograd function found wrong.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum AutogradDetail {
    /// `grad(outputs, inputs, grad_outputs)` with a different count of gradients and outputs.
    #[serde(rename = "autograd.detail.grad_outputs_count")]
    GradOutputsCount {
        /// Gradients given.
        given: usize,
        /// Outputs.
        outputs: usize,
    },
    /// A backward returned a gradient count other than its inputs'.
    #[serde(rename = "autograd.detail.gradients_count")]
    GradientsCount {
        /// Gradients returned.
        given: usize,
        /// Inputs of the op.
        inputs: usize,
    },
    /// A forward (or checkpointed function) returned nothing.
    #[serde(rename = "autograd.detail.no_outputs")]
    NoOutputs,
    /// A checkpoint's recomputation returned another output count than its forward.
    #[serde(rename = "autograd.detail.recomputation_outputs")]
    RecomputationOutputs {
        /// Outputs of the recomputation.
        recomputed: usize,
        /// Outputs of the forward.
        forward: usize,
    },
    /// A checkpointed function used a value that requires grad without taking it as an input.
    #[serde(rename = "autograd.detail.captured_grad")]
    CapturedGrad,
    /// `requires_grad` of an integer tensor.
    #[serde(rename = "autograd.detail.float_only")]
    FloatOnly {
        /// The tensor's dtype (`DT_INT32`).
        dtype: String,
    },
    /// A `clip` bound that does not broadcast to the input.
    #[serde(rename = "autograd.detail.clip_bound")]
    ClipBound {
        /// The bound's shape.
        bound: Vec<usize>,
        /// The input's shape.
        input: Vec<usize>,
    },
    /// `round(decimals < 0)` of an integer tensor.
    #[serde(rename = "autograd.detail.round_float_only")]
    RoundFloatOnly,
    /// A loss scaler with out-of-range settings.
    #[serde(rename = "autograd.detail.scaler_settings")]
    ScalerSettings {
        /// The settings, as printed.
        settings: String,
    },
    /// A loss scale the loss's dtype cannot hold.
    #[serde(rename = "autograd.detail.scale_not_representable")]
    ScaleNotRepresentable {
        /// The scale, as printed.
        scale: String,
        /// The dtype.
        dtype: String,
    },
    /// The session that recorded the op has ended (a tape kept past it).
    #[serde(rename = "autograd.detail.session_gone")]
    SessionGone,
    /// A kernel's saved forward was taken twice.
    #[serde(rename = "autograd.detail.forward_consumed")]
    ForwardConsumed,
    /// A script error inside a callback (its message, already shown as the error itself).
    #[serde(rename = "autograd.detail.script_error")]
    ScriptError {
        /// The script error's message.
        text: String,
    },
    /// An engine contract broken (a bug, reported instead of a panic): the invariant in English.
    #[serde(rename = "autograd.detail.internal")]
    Internal {
        /// The invariant.
        what: String,
    },
}

impl AutogradCallMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        match self {
            AutogradCallMessage::CustomOp { name, detail } => format!("custom op {name}: {}", detail.english()),
            AutogradCallMessage::BadArgument { op, detail } => format!("{op}: {}", detail.english()),
        }
    }
}

impl AutogradDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        use AutogradDetail::*;
        match self {
            GradOutputsCount { given, outputs } => format!("{given} grad_outputs for {outputs} outputs"),
            GradientsCount { given, inputs } => format!("the backward returned {given} gradients for {inputs} inputs"),
            NoOutputs => "the function returned no outputs".into(),
            RecomputationOutputs { recomputed, forward } => {
                format!("the recomputation returned {recomputed} outputs, the forward {forward}")
            }
            CapturedGrad => {
                "the function uses a value that requires grad but is not among its inputs; pass it as an input".into()
            }
            FloatOnly { dtype } => format!(
                "only float tensors can require gradients, this one is {dtype}; cast it with pypto.cast(x, pypto.DT_FP32) first"
            ),
            ClipBound { bound, input } => {
                format!("the bound of shape {bound:?} does not broadcast to the input's shape {input:?}")
            }
            RoundFloatOnly => {
                "negative decimals need a float tensor; cast it with pypto.cast(x, pypto.DT_FP32) first".into()
            }
            ScalerSettings { settings } => format!(
                "need init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1, growth_interval ≥ 1 (got {settings})"
            ),
            ScaleNotRepresentable { scale, dtype } => format!("the scale {scale} is not representable in {dtype}"),
            SessionGone => "the session that recorded it has ended".into(),
            ForwardConsumed => "the forward was already consumed".into(),
            ScriptError { text } => text.clone(),
            Internal { what } => format!("internal: {what}"),
        }
    }
}

impl From<AutogradCallMessage> for super::Message {
    fn from(message: AutogradCallMessage) -> Self {
        super::Message::AutogradCall(message)
    }
}
