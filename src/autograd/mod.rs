//! Reverse-mode automatic differentiation over the tensor core: `Var` (a tensor plus its place in
//! the graph), one exhaustive gradient `match` over the primitive ops, `backward` and `grad` (with
//! `create_graph` for higher order), custom ops with registered backwards, checkpointing, a loss
//! scaler for mixed precision, gradient checking, and the graph as serialisable data.
//! Forward kernels never know about autograd: ops record themselves here, after the kernel ran.
//!
//! ```
//! use tilelab::autograd::{grad, Var};
//! use tilelab::tensor::{DType, Tensor, UnaryOp};
//! let x = Var::leaf(Tensor::from_f64(vec![0.5, -1.0], &[2], DType::F64)?);
//! let loss = x.unary(UnaryOp::Tanh)?.sum()?;
//! // d Σ tanh(x) / dx = 1 − tanh²(x), accumulated into x.grad
//! loss.backward()?;
//! assert!((x.grad().unwrap().to_f64_vec()[0] - (1.0 - 0.5f64.tanh().powi(2))).abs() < 1e-12);
//! // Second order: d/dx of the first derivative, with create_graph.
//! let first = grad(&[x.unary(UnaryOp::Tanh)?.sum()?], &[x.clone()], None, true)?.remove(0).unwrap();
//! let second = grad(&[first.sum()?], &[x.clone()], None, false)?.remove(0).unwrap();
//! // (1 − t²)' = −2t(1 − t²)
//! let t = 0.5f64.tanh();
//! assert!((second.tensor().to_f64_vec()[0] + 2.0 * t * (1.0 - t * t)).abs() < 1e-12);
//! # Ok::<(), tilelab::autograd::AutogradError>(())
//! ```

pub mod algebra;
pub mod algebra_masks;
mod algebra_math;
mod checkpoint;
mod custom;
mod engine;
mod error;
pub mod gradcheck;
mod graph;
mod helpers;
mod mode;
mod node;
mod op;
mod ops;
mod rules;
mod rules_select;
mod scaler;
mod selection;
mod var;

pub use checkpoint::{checkpoint, CheckpointFunction};
pub use custom::{
    call_custom, call_custom_once, custom_op_names, register_custom_op, register_gradient, unregister_custom_op,
    Attribute, Attributes, Context, CustomBackward, CustomForward, ForwardOutput,
};
pub use engine::{grad, grad_with_options, BackwardOptions};
pub use error::{AutogradError, Result};
pub use gradcheck::{check_gradient, CheckMode, CheckOptions, GradCheckReport, Tolerance};
pub use graph::{BackwardNode, BackwardOp, GeneratedShown, GradientEdge, GraphData, GraphEdge, GraphNode, SaveChoice};
pub use mode::{enable_grad, is_grad_enabled, no_grad, set_grad_enabled, GradModeGuard};
pub(crate) use node::{node_id_mark, restore_node_ids};
pub use node::{SavedInfo, ValueMeta};
pub use op::{differentiable_op_names, Op, SavePlan, SliceRange, ALL_BINARY, ALL_REDUCE, ALL_UNARY};
pub use scaler::{LossScaler, LossScalerConfig, ScaleUpdate, Unscaled};
pub use var::Var;
