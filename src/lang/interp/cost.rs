//! The step budget charges work, not only statements: an op on a big tensor, a matmul, or a copy of
//! a long string costs steps in proportion to what it touches, so a short loop of huge ops is
//! stopped like a long loop of small ones. One step is about the time of one simple statement.

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;
use crate::messages::OperationMessage;

/// Tensor elements written or read per step (an element-wise op with its allocation).
pub(crate) const ELEMENTS_PER_STEP: u64 = 32;
/// Multiply-adds of a matmul per step (lenient: a few large matmuls in a cell are ordinary).
pub(crate) const MULTIPLY_ADDS_PER_STEP: u64 = 1024;
/// Bytes of text copied or scanned per step.
pub(crate) const BYTES_PER_STEP: u64 = 256;
/// Steps between two readings of the clock (for a deadline).
#[cfg(not(target_arch = "wasm32"))]
const CLOCK_STEPS: u64 = 4096;

impl Interpreter {
    /// Counts `steps` steps of work; past the budget, an error at `span`.
    pub(crate) fn charge(&self, steps: u64, span: Span) -> Result<()> {
        let before = self.steps.get();
        let total = before.saturating_add(steps);
        self.steps.set(total);
        // The clock is read every few thousand steps (and after any large charge), not every step.
        #[cfg(not(target_arch = "wasm32"))]
        if before / CLOCK_STEPS != total / CLOCK_STEPS {
            self.check_deadline(span)?;
        }
        let budget = self.limits.get().step_budget;
        // Any long cell shows progress: the steps used of its budget, every 65 536 steps.
        if before >> 16 != total >> 16 {
            super::progress::report_progress("steps", total as usize, budget as usize);
        }
        if total > budget {
            let help = if steps > 1 { OperationMessage::LargeOpsCost } else { OperationMessage::EndlessLoop };
            return Err(self
                .coded(ErrorKind::StepBudget, OperationMessage::StepBudget { budget }, span)
                .with_help_message(help));
        }
        Ok(())
    }

    /// Stops the run with a located error once its deadline has passed.
    #[cfg(not(target_arch = "wasm32"))]
    fn check_deadline(&self, span: Span) -> Result<()> {
        let Some((deadline, limit)) = self.deadline.get() else { return Ok(()) };
        if std::time::Instant::now() < deadline {
            return Ok(());
        }
        Err(self
            .coded(ErrorKind::Timeout, OperationMessage::Timeout { seconds: limit.as_secs_f64() }, span)
            .with_help_message(OperationMessage::GiveMoreTime))
    }

    /// Sets (or clears) the wall-clock limit of everything run from now on.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_time_limit(&self, limit: Option<std::time::Duration>) {
        self.deadline.set(limit.map(|limit| (std::time::Instant::now() + limit, limit)));
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
    /// m·k·n multiply-adds per batch; `a_transposed` says a is stored [k, m].
    pub(crate) fn charge_matmul(&self, a: &Value, b: &Value, a_transposed: bool, span: Span) -> Result<()> {
        let (Value::Tensor(a), Value::Tensor(b)) = (a, b) else { return Ok(()) };
        let (a, b) = (a.get(), b.get());
        let (a_shape, b_shape) = (a.shape(), b.shape());
        let dim = |shape: &[usize], from_end: usize| shape.len().checked_sub(from_end).map_or(1, |at| shape[at]);
        let k = if a_transposed { dim(a_shape, 2) } else { dim(a_shape, 1) }.max(1) as u128;
        // b holds k·n elements per matrix (stored [k, n] or, transposed, [n, k]).
        let n = (dim(b_shape, 1) as u128 * dim(b_shape, 2) as u128) / k;
        let multiply_adds = (a.tensor().numel() as u128).saturating_mul(n.max(1));
        self.charge(u64::try_from(multiply_adds / MULTIPLY_ADDS_PER_STEP as u128).unwrap_or(u64::MAX), span)
    }
}
