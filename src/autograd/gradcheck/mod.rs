//! Gradient checking: the engine's gradients (in the inputs' dtypes) against central differences
//! of the same function evaluated on an f64 copy of the inputs. Full Jacobian for small problems,
//! random projections vᵀJu for large ones. Steps and tolerances per dtype: see [`Tolerance`].

mod numeric;
mod progress;
mod report;
mod tolerance;

use serde::{Deserialize, Serialize};

pub use progress::ProgressCallback;
pub use report::{CheckMode, ElementReport, GradCheckReport, InputReport};
pub use tolerance::Tolerance;

use super::engine::{grad_with_options, BackwardOptions};
use super::error::Result;
use super::mode::enable_grad;
use super::var::Var;
use crate::tensor::{Rng, Tensor};
use numeric::{Comparison, Numerical};
use progress::Ticker;

/// `Auto` never takes the full Jacobian of more input elements than this (2 evaluations each).
pub const FULL_INPUT_LIMIT: usize = 512;

/// Options of `check_gradient`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckOptions {
    /// Full, projection, or chosen by size.
    pub mode: CheckMode,
    /// `Auto` checks the full Jacobian when (output elements × input elements) ≤ this (and the
    /// inputs have at most `FULL_INPUT_LIMIT` elements); otherwise projections.
    pub full_limit: usize,
    /// Number of random projections in projection mode.
    pub projections: usize,
    /// Seed of the random projections.
    pub seed: u64,
    /// Overrides the per-dtype table.
    pub tolerance: Option<Tolerance>,
    /// How many worst entries each input report lists.
    pub worst_count: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            mode: CheckMode::Auto,
            full_limit: 4096,
            projections: 3,
            seed: 0,
            tolerance: None,
            worst_count: 5,
        }
    }
}

/// Checks the gradients of `function` at `inputs`. `function` takes and returns `Var`s so it can run
/// both on leaves of the inputs' dtypes (analytic side) and on f64 copies (numerical side). Captured
/// constants of other dtypes promote to f64 on the numerical side; an explicit cast to a narrow
/// dtype inside `function` makes that part of the numerical side narrow too.
pub fn check_gradient(
    function: &dyn Fn(&[Var]) -> Result<Var>,
    inputs: &[Tensor],
    options: &CheckOptions,
) -> Result<GradCheckReport> {
    check_gradient_with_progress(function, inputs, options, None)
}

/// [`check_gradient`] that reports `(done, total)` work units to `progress` (about a hundred
/// updates per check, the first at 0 and the last at `total`). A unit is one backward pass of the
/// analytic Jacobian or one perturbed input element (full mode), or one projection of one input.
pub fn check_gradient_with_progress(
    function: &dyn Fn(&[Var]) -> Result<Var>,
    inputs: &[Tensor],
    options: &CheckOptions,
    progress: Option<ProgressCallback<'_>>,
) -> Result<GradCheckReport> {
    let _on = enable_grad();
    let leaves: Vec<Var> = inputs.iter().map(|input| Var::leaf(input.clone())).collect();
    let output = function(&leaves)?;
    let output_count = output.tensor().numel();
    let input_count: usize = inputs.iter().map(Tensor::numel).sum();
    let mode = match options.mode {
        CheckMode::Auto
            if output_count.saturating_mul(input_count) <= options.full_limit && input_count <= FULL_INPUT_LIMIT =>
        {
            CheckMode::Full
        }
        CheckMode::Auto => CheckMode::Projection,
        chosen => chosen,
    };
    let units = match mode {
        CheckMode::Full | CheckMode::Auto => output_count + input_count,
        CheckMode::Projection => options.projections.max(1) * inputs.len(),
    };
    let ticker = Ticker::new(progress, units);
    let numerical = Numerical::new(function, inputs)?;
    let tolerances: Vec<Tolerance> =
        inputs.iter().map(|input| options.tolerance.unwrap_or_else(|| Tolerance::for_dtype(input.dtype()))).collect();
    let mut reports = Vec::with_capacity(inputs.len());
    match mode {
        CheckMode::Full | CheckMode::Auto => {
            let jacobians = analytic_jacobians(&output, &leaves, &ticker)?;
            for (index, input) in inputs.iter().enumerate() {
                let comparison =
                    numerical.full(index, &jacobians[index], output.shape(), &tolerances[index], &ticker)?;
                reports.push(comparison.into_report(index, input, tolerances[index], options.worst_count, true));
            }
        }
        CheckMode::Projection => {
            let mut rng = Rng::new(options.seed);
            let mut comparisons: Vec<Comparison> = inputs.iter().map(|_| Comparison::default()).collect();
            for projection in 0..options.projections.max(1) {
                let weights: Vec<f64> = (0..output_count).map(|_| rng.normal()).collect();
                let gradients = weighted_gradients(&output, &leaves, &weights)?;
                for (index, input) in inputs.iter().enumerate() {
                    let mut direction: Vec<f64> = (0..input.numel()).map(|_| rng.normal()).collect();
                    let largest = direction.iter().fold(0.0f64, |acc, d| acc.max(d.abs())).max(f64::MIN_POSITIVE);
                    direction.iter_mut().for_each(|d| *d /= largest);
                    let entry = numerical.projection(
                        index,
                        &weights,
                        &direction,
                        &gradients[index],
                        projection,
                        &tolerances[index],
                    )?;
                    comparisons[index].push(entry);
                    ticker.advance();
                }
            }
            for ((index, input), comparison) in inputs.iter().enumerate().zip(comparisons) {
                reports.push(comparison.into_report(index, input, tolerances[index], options.worst_count, false));
            }
        }
    }
    let passed = reports.iter().all(|report| report.passed);
    Ok(GradCheckReport { mode, inputs: reports, passed })
}

/// Rows of the Jacobian per input: `jacobians[input][output element]` = d output / d input (flat).
fn analytic_jacobians(output: &Var, leaves: &[Var], ticker: &Ticker) -> Result<Vec<Vec<Vec<f64>>>> {
    let count = output.tensor().numel();
    let mut jacobians: Vec<Vec<Vec<f64>>> = leaves.iter().map(|_| Vec::with_capacity(count)).collect();
    for element in 0..count {
        let mut one_hot = vec![0.0; count];
        one_hot[element] = 1.0;
        let rows = weighted_gradients(output, leaves, &one_hot)?;
        for (jacobian, row) in jacobians.iter_mut().zip(rows) {
            jacobian.push(row);
        }
        ticker.advance();
    }
    Ok(jacobians)
}

/// vᵀJ per input, flat f64 (zeros where an input does not influence the output).
fn weighted_gradients(output: &Var, leaves: &[Var], weights: &[f64]) -> Result<Vec<Vec<f64>>> {
    if !output.requires_grad() {
        return Ok(leaves.iter().map(|leaf| vec![0.0; leaf.tensor().numel()]).collect());
    }
    let seed = Var::constant(Tensor::from_f64(weights.to_vec(), output.shape(), output.dtype())?);
    let options = BackwardOptions { retain_graph: true, create_graph: false };
    let gradients = grad_with_options(std::slice::from_ref(output), leaves, Some(&[seed]), options)?;
    Ok(gradients
        .into_iter()
        .zip(leaves)
        .map(|(gradient, leaf)| gradient.map_or_else(|| vec![0.0; leaf.tensor().numel()], |g| g.tensor().to_f64_vec()))
        .collect())
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::tensor::DType;

    /// Full mode on f(x) = x·x with x of 3×4 (12 elements, 12 outputs): 12 backward passes for the
    /// analytic Jacobian plus 12 perturbed elements = 24 units, every one reported (24 < 100 steps).
    /// Projection mode with 3 projections over 2 inputs: 6 units.
    #[test]
    fn progress_counts_backward_passes_and_perturbed_elements() {
        let x = Tensor::randn(&[3, 4], DType::F64, Some(3)).unwrap();
        let seen = RefCell::new(Vec::new());
        let record = |done: usize, total: usize| seen.borrow_mut().push((done, total));
        let report = check_gradient_with_progress(
            &|vars: &[Var]| vars[0].mul(&vars[0]),
            std::slice::from_ref(&x),
            &CheckOptions::default(),
            Some(&record),
        )
        .unwrap();
        assert!(report.passed, "{report}");
        assert_eq!(report.mode, CheckMode::Full);
        assert_eq!(seen.take(), (0..=24).map(|done| (done, 24)).collect::<Vec<_>>());

        let options = CheckOptions { mode: CheckMode::Projection, ..CheckOptions::default() };
        let y = Tensor::randn(&[3, 4], DType::F64, Some(4)).unwrap();
        check_gradient_with_progress(&|vars: &[Var]| vars[0].mul(&vars[1]), &[x, y], &options, Some(&record)).unwrap();
        assert_eq!(seen.take(), (0..=6).map(|done| (done, 6)).collect::<Vec<_>>());
    }
}
