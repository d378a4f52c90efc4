//! The report of a gradient check: per input, the errors, the worst elements, the points where the
//! function is not differentiable, pass or fail.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::tolerance::Tolerance;
use crate::tensor::DType;

/// How the Jacobian was compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub enum CheckMode {
    /// Full Jacobian for small problems, projections for large ones.
    Auto,
    /// Every entry of the Jacobian.
    Full,
    /// Random projections vᵀJu.
    Projection,
}

/// One compared entry (a Jacobian entry, or one projection).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ElementReport {
    /// Index in the input (full mode), or `[projection number]`.
    pub input_index: Vec<usize>,
    /// Index in the output (full mode; empty for projections).
    pub output_index: Vec<usize>,
    /// The engine's value.
    pub analytic: f64,
    /// The central difference on the f64 copy.
    pub numerical: f64,
    /// |analytic − numerical|.
    pub abs_error: f64,
    /// |analytic − numerical| / max(|analytic|, |numerical|).
    pub rel_error: f64,
}

/// The result for one input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct InputReport {
    /// Position among the inputs.
    pub input: usize,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its dtype (the analytic side's).
    pub dtype: DType,
    /// Step and tolerances used.
    pub tolerance: Tolerance,
    /// How many entries or projections were compared.
    pub compared: usize,
    /// Largest absolute error over the differentiable entries.
    pub max_abs_error: f64,
    /// Largest relative error over the differentiable entries.
    pub max_rel_error: f64,
    /// No differentiable entry is outside the tolerance.
    pub passed: bool,
    /// The entries with the largest errors (failures first).
    pub worst: Vec<ElementReport>,
    /// Entries at a kink or tie: the one-sided differences disagree even at a smaller step.
    pub non_differentiable: Vec<ElementReport>,
    /// Full mode: per input element (row-major), the largest |analytic − numerical| / (atol·scale +
    /// rtol·|numerical|) over its differentiable Jacobian entries (> 1 fails; kinks count 0).
    /// Empty in projection mode, where no single element is compared.
    #[serde(default)]
    pub element_errors: Vec<f64>,
}

/// The result of `check_gradient`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GradCheckReport {
    /// `Full` or `Projection` (never `Auto`).
    pub mode: CheckMode,
    /// One per input.
    pub inputs: Vec<InputReport>,
    /// Every input passed.
    pub passed: bool,
}

impl fmt::Display for GradCheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "gradient check ({:?}): {}", self.mode, if self.passed { "PASS" } else { "FAIL" })?;
        for input in &self.inputs {
            writeln!(
                f,
                "  input {} {:?} {}: {} — max abs error {:.3e}, max rel error {:.3e} ({} compared, rtol {:.1e}, atol {:.1e}, step {:.1e})",
                input.input,
                input.shape,
                input.dtype,
                if input.passed { "pass" } else { "FAIL" },
                input.max_abs_error,
                input.max_rel_error,
                input.compared,
                input.tolerance.rtol,
                input.tolerance.atol,
                input.tolerance.step
            )?;
            for element in &input.worst {
                writeln!(
                    f,
                    "    at {:?} → out {:?}: analytic {:.6e}, numerical {:.6e}",
                    element.input_index, element.output_index, element.analytic, element.numerical
                )?;
            }
            if !input.non_differentiable.is_empty() {
                writeln!(
                    f,
                    "    {} point(s) not differentiable (kink or tie), e.g. {:?}",
                    input.non_differentiable.len(),
                    input.non_differentiable[0].input_index
                )?;
            }
        }
        Ok(())
    }
}
