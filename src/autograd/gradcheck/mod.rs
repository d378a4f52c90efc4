//! Gradient checking: the engine's gradients (in the inputs' dtypes) against central differences
//! of the same function evaluated on an f64 copy of the inputs. Full Jacobian for small problems,
//! random projections vᵀJu for large ones. Steps and tolerances per dtype: see [`Tolerance`].

mod numeric;
mod report;
mod tolerance;

use serde::{Deserialize, Serialize};

pub use report::{CheckMode, ElementReport, GradCheckReport, InputReport};
pub use tolerance::Tolerance;

use super::engine::{grad_with_options, BackwardOptions};
use super::error::Result;
use super::mode::enable_grad;
use super::var::Var;
use crate::tensor::{Rng, Tensor};
use numeric::{Comparison, Numerical};

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
        CheckOptions { mode: CheckMode::Auto, full_limit: 4096, projections: 3, seed: 0, tolerance: None, worst_count: 5 }
    }
}

/// Checks the gradients of `function` at `inputs`. `function` takes and returns `Var`s so it can run
/// both on leaves of the inputs' dtypes (analytic side) and on f64 constants (numerical side).
pub fn check_gradient(function: &dyn Fn(&[Var]) -> Result<Var>, inputs: &[Tensor], options: &CheckOptions) -> Result<GradCheckReport> {
    let _on = enable_grad();
    let leaves: Vec<Var> = inputs.iter().map(|input| Var::leaf(input.clone())).collect();
    let output = function(&leaves)?;
    let output_count = output.tensor().numel();
    let input_count: usize = inputs.iter().map(Tensor::numel).sum();
    let mode = match options.mode {
        CheckMode::Auto if output_count.saturating_mul(input_count) <= options.full_limit && input_count <= FULL_INPUT_LIMIT => CheckMode::Full,
        CheckMode::Auto => CheckMode::Projection,
        chosen => chosen,
    };
    let numerical = Numerical::new(function, inputs)?;
    let tolerances: Vec<Tolerance> = inputs.iter().map(|input| options.tolerance.unwrap_or_else(|| Tolerance::for_dtype(input.dtype()))).collect();
    let mut reports = Vec::with_capacity(inputs.len());
    match mode {
        CheckMode::Full | CheckMode::Auto => {
            let jacobians = analytic_jacobians(&output, &leaves)?;
            for (index, input) in inputs.iter().enumerate() {
                let comparison = numerical.full(index, &jacobians[index], output.shape(), &tolerances[index])?;
                reports.push(comparison.into_report(index, input, tolerances[index], options.worst_count));
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
                    let entry = numerical.projection(index, &weights, &direction, &gradients[index], projection, &tolerances[index])?;
                    comparisons[index].push(entry);
                }
            }
            for ((index, input), comparison) in inputs.iter().enumerate().zip(comparisons) {
                reports.push(comparison.into_report(index, input, tolerances[index], options.worst_count));
            }
        }
    }
    let passed = reports.iter().all(|report| report.passed);
    Ok(GradCheckReport { mode, inputs: reports, passed })
}

/// Rows of the Jacobian per input: `jacobians[input][output element]` = d output / d input (flat).
fn analytic_jacobians(output: &Var, leaves: &[Var]) -> Result<Vec<Vec<Vec<f64>>>> {
    let count = output.tensor().numel();
    let mut jacobians: Vec<Vec<Vec<f64>>> = leaves.iter().map(|_| Vec::with_capacity(count)).collect();
    for element in 0..count {
        let mut one_hot = vec![0.0; count];
        one_hot[element] = 1.0;
        let rows = weighted_gradients(output, leaves, &one_hot)?;
        for (jacobian, row) in jacobians.iter_mut().zip(rows) {
            jacobian.push(row);
        }
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
