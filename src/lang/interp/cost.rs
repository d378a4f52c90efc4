//! The step budget charges work, not only statements: an op on a big tensor, a matmul, or a copy of
//! a long string costs steps in proportion to what it touches, so a short loop of huge ops is
//! stopped like a long loop of small ones. One step is about the time of one simple statement.

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;

/// Tensor elements written or read per step (an element-wise op with its allocation).
pub(crate) const ELEMENTS_PER_STEP: u64 = 32;
/// Multiply-adds of a matmul per step.
pub(crate) const MULTIPLY_ADDS_PER_STEP: u64 = 256;
/// Bytes of text copied or scanned per step.
pub(crate) const BYTES_PER_STEP: u64 = 256;

impl Interpreter {
    /// Counts `steps` steps of work; past the budget, an error at `span`.
    pub(crate) fn charge(&self, steps: u64, span: Span) -> Result<()> {
        let total = self.steps.get().saturating_add(steps);
        self.steps.set(total);
        let budget = self.limits.get().step_budget;
        if total > budget {
            let help = if steps > 1 {
                "large ops cost steps in proportion to their size (tensor elements, multiply-adds, bytes of text): look for a loop that repeats work on large tensors or strings, or raise the session's step budget"
            } else {
                "look for a loop that never ends, or raise the session's step budget"
            };
            return Err(self
                .error(
                    ErrorKind::StepBudget,
                    format!("step budget exceeded: the cell ran more than {budget} steps"),
                    span,
                )
                .with_help(help));
        }
        Ok(())
    }

    /// Charges an op that touches `elements` tensor elements.
    pub(crate) fn charge_elements(&self, elements: usize, span: Span) -> Result<()> {
        self.charge(elements as u64 / ELEMENTS_PER_STEP, span)
    }

    /// Charges copying or scanning `bytes` bytes of text.
    pub(crate) fn charge_bytes(&self, bytes: usize, span: Span) -> Result<()> {
        self.charge(bytes as u64 / BYTES_PER_STEP, span)
    }

    /// Charges the tensors a value holds (a result of a tensor op, or a tuple or list of them).
    pub(crate) fn charge_result(&self, value: &Value, span: Span) -> Result<()> {
        match value {
            Value::Tensor(object) => self.charge_elements(object.get().tensor().numel(), span),
            Value::Tuple(items) => items.iter().try_for_each(|item| self.charge_result(item, span)),
            _ => Ok(()),
        }
    }

    /// Charges a matmul of `a` and `b` before it runs (its cost grows faster than its result):
    /// m·k·n multiply-adds, batch dims included.
    pub(crate) fn charge_matmul(&self, a: &Value, b: &Value, span: Span) -> Result<()> {
        let (Value::Tensor(a), Value::Tensor(b)) = (a, b) else { return Ok(()) };
        let (a, b) = (a.get(), b.get());
        let (a_elements, b_shape) = (a.tensor().numel() as u128, b.shape().to_vec());
        // a: [..., m, k] and b: [..., k, n]: a's elements times n is m·k·n per batch.
        let n = b_shape.last().copied().unwrap_or(1).max(1) as u128;
        let multiply_adds = a_elements.saturating_mul(n);
        self.charge(u64::try_from(multiply_adds / MULTIPLY_ADDS_PER_STEP as u128).unwrap_or(u64::MAX), span)
    }
}
