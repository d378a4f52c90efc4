//! The arguments of a kernel call as a generated backward's CPU fallback needs them to run the body
//! again with the tape: every non-tensor argument as passed, each tensor by its place (the fallback
//! supplies the tensors: a jit call's values from before the call, a functional call's inputs).

use crate::lang::interp::eval::Arguments;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;

/// An argument as the fallback needs it.
enum KeptArgument {
    /// A tensor, supplied again by the fallback. Not its object: the object of a jit call's written
    /// argument becomes the node's output, and the node would then hold, through its backward, the
    /// object that holds the node (a cycle never freed).
    Tensor,
    /// Any other value, as passed.
    Other(Value),
}

/// The arguments of a call, tensors by place.
pub(super) struct KeptArguments {
    positional: Vec<(KeptArgument, Span)>,
    keywords: Vec<(String, KeptArgument, Span)>,
}

impl KeptArguments {
    /// Takes the call's arguments before the body runs.
    pub(super) fn of(arguments: &Arguments) -> KeptArguments {
        let keep = |value: &Value| match value {
            Value::Tensor(_) => KeptArgument::Tensor,
            other => KeptArgument::Other(other.clone()),
        };
        KeptArguments {
            positional: arguments.positional.iter().map(|(value, span)| (keep(value), *span)).collect(),
            keywords: arguments.keywords.iter().map(|(name, value, span)| (name.clone(), keep(value), *span)).collect(),
        }
    }

    /// The arguments again, the tensor at place `i` (in call order: positional, then keywords)
    /// being `tensor(i)`.
    pub(super) fn with_tensors(&self, mut tensor: impl FnMut(usize) -> Value) -> Arguments {
        let mut count = 0;
        let mut fill = |value: &KeptArgument| match value {
            KeptArgument::Tensor => {
                count += 1;
                tensor(count - 1)
            }
            KeptArgument::Other(other) => other.clone(),
        };
        let positional = self.positional.iter().map(|(value, span)| (fill(value), *span)).collect();
        let keywords = self.keywords.iter().map(|(name, value, span)| (name.clone(), fill(value), *span)).collect();
        Arguments { positional, keywords }
    }
}
