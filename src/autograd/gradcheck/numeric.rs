//! The numerical side: central differences of the function on an f64 copy of the inputs, smaller
//! steps when a difference disagrees, and one-sided differences to tell a kink from a wrong gradient.

use super::progress::Ticker;
use super::report::{ElementReport, InputReport};
use super::tolerance::Tolerance;
use crate::autograd::error::Result;
use crate::autograd::mode::enable_grad;
use crate::autograd::var::Var;
use crate::tensor::{DType, Tensor};

/// The function and the f64 copy of its inputs.
pub(super) struct Numerical<'a> {
    function: &'a dyn Fn(&[Var]) -> Result<Var>,
    base: Vec<Tensor>,
    values: Vec<Vec<f64>>,
    /// The outputs at the unperturbed point (shared by every input and projection).
    center: Vec<f64>,
}

/// One compared entry and its verdict.
pub(super) struct Entry {
    element: ElementReport,
    accepted: bool,
    non_differentiable: bool,
    /// Flat position in the input (full mode) or the projection's number.
    flat_input: usize,
    /// |analytic − numerical| over the allowed error (> 1 fails).
    ratio: f64,
}

/// The entries of one input.
#[derive(Default)]
pub(super) struct Comparison {
    entries: Vec<Entry>,
}

/// Smaller steps tried when a central difference disagrees (a kink may lie within the first step).
const REFINEMENTS: [f64; 2] = [16.0, 256.0];

impl<'a> Numerical<'a> {
    pub fn new(function: &'a dyn Fn(&[Var]) -> Result<Var>, inputs: &[Tensor]) -> Result<Numerical<'a>> {
        let base = inputs.iter().map(|input| input.cast(DType::F64)).collect::<std::result::Result<Vec<_>, _>>()?;
        let values: Vec<Vec<f64>> = base.iter().map(Tensor::to_f64_vec).collect();
        let mut numerical = Numerical { function, base, values, center: Vec::new() };
        if !numerical.values.is_empty() {
            numerical.center = numerical.evaluate(0, numerical.values[0].clone())?;
        }
        Ok(numerical)
    }

    /// The outputs (flat f64) with input `index` replaced by `values`.
    fn evaluate(&self, index: usize, values: Vec<f64>) -> Result<Vec<f64>> {
        // Leaves, not constants, so that a function that differentiates inside (a gradient of a
        // gradient) evaluates the same way on both sides.
        let _on = enable_grad();
        let mut arguments: Vec<Var> = self.base.iter().map(|tensor| Var::leaf(tensor.clone())).collect();
        arguments[index] = Var::leaf(Tensor::from_f64(values, self.base[index].shape(), DType::F64)?);
        Ok((self.function)(&arguments)?.tensor().to_f64_vec())
    }

    /// Outputs at `x + s·direction` and `x − s·direction` for input `index`.
    fn probe(&self, index: usize, direction: &dyn Fn(usize) -> f64, step: f64) -> Result<(Vec<f64>, Vec<f64>)> {
        let x = &self.values[index];
        let shifted = |sign: f64| x.iter().enumerate().map(|(i, &v)| v + sign * step * direction(i)).collect();
        Ok((self.evaluate(index, shifted(1.0))?, self.evaluate(index, shifted(-1.0))?))
    }

    /// Every Jacobian entry of input `index`; `jacobian[j][i]` is the analytic d out_j / d in_i.
    pub fn full(
        &self,
        index: usize,
        jacobian: &[Vec<f64>],
        output_shape: &[usize],
        tolerance: &Tolerance,
        ticker: &Ticker,
    ) -> Result<Comparison> {
        let x = &self.values[index];
        let center = &self.center;
        let mut columns = Vec::with_capacity(x.len());
        for (i, &value) in x.iter().enumerate() {
            let step = tolerance.step * value.abs().max(1.0);
            let unit = move |k: usize| if k == i { 1.0 } else { 0.0 };
            let (plus, minus) = self.probe(index, &unit, step)?;
            columns.push((step, plus, minus));
            ticker.advance();
        }
        let analytic_column = |i: usize| jacobian.iter().map(|row| row[i]).collect::<Vec<f64>>();
        let mut scale = 1.0f64;
        for (i, (step, plus, minus)) in columns.iter().enumerate() {
            for (j, analytic) in analytic_column(i).into_iter().enumerate() {
                scale = scale.max(analytic.abs()).max(((plus[j] - minus[j]) / (2.0 * step)).abs());
            }
        }
        let mut comparison = Comparison::default();
        let shape = self.base[index].shape().to_vec();
        for (i, (step, plus, minus)) in columns.into_iter().enumerate() {
            let unit = move |k: usize| if k == i { 1.0 } else { 0.0 };
            let analytic = analytic_column(i);
            let verdicts =
                judge(&analytic, center, step, (plus, minus), scale, tolerance, &|s| self.probe(index, &unit, s))?;
            for (j, (numerical, accepted, non_differentiable)) in verdicts.into_iter().enumerate() {
                let ratio = error_ratio(analytic[j], numerical, scale, tolerance);
                let element = element(
                    crate::tensor::unravel_index(i, &shape),
                    crate::tensor::unravel_index(j, output_shape),
                    analytic[j],
                    numerical,
                );
                comparison.entries.push(Entry { element, accepted, non_differentiable, flat_input: i, ratio });
            }
        }
        Ok(comparison)
    }

    /// One projection vᵀJu for input `index`: `weights` = v, `direction` = u, `gradient` = vᵀJ.
    pub fn projection(
        &self,
        index: usize,
        weights: &[f64],
        direction: &[f64],
        gradient: &[f64],
        number: usize,
        tolerance: &Tolerance,
    ) -> Result<Entry> {
        let x = &self.values[index];
        let project = |outputs: Vec<f64>| vec![outputs.iter().zip(weights).map(|(o, w)| o * w).sum::<f64>()];
        let analytic: f64 = gradient.iter().zip(direction).map(|(g, u)| g * u).sum();
        let scale =
            gradient.iter().zip(direction).map(|(g, u)| (g * u).abs()).sum::<f64>().max(analytic.abs()).max(1.0);
        let center = project(self.center.clone());
        let step = tolerance.step * x.iter().fold(1.0f64, |acc, v| acc.max(v.abs()));
        let along = |k: usize| direction[k];
        let probe = |s: f64| -> Result<(Vec<f64>, Vec<f64>)> {
            let (plus, minus) = self.probe(index, &along, s)?;
            Ok((project(plus), project(minus)))
        };
        let first = probe(step)?;
        let verdicts = judge(&[analytic], &center, step, first, scale, tolerance, &probe)?;
        let (numerical, accepted, non_differentiable) = verdicts[0];
        let ratio = error_ratio(analytic, numerical, scale, tolerance);
        Ok(Entry {
            element: element(vec![number], Vec::new(), analytic, numerical),
            accepted,
            non_differentiable,
            flat_input: number,
            ratio,
        })
    }
}

/// Verdicts per output: (numerical value, accepted, not differentiable). A disagreeing central
/// difference is retried at smaller steps; what still disagrees is a kink when the one-sided
/// differences disagree at two steps (a jump that does not shrink with the step), else a failure.
/// Agreeing entries whose one-sided differences jump are also marked (ties, kinks met at their mean).
fn judge(
    analytic: &[f64],
    center: &[f64],
    step: f64,
    first: (Vec<f64>, Vec<f64>),
    scale: f64,
    tolerance: &Tolerance,
    probe: &dyn Fn(f64) -> Result<(Vec<f64>, Vec<f64>)>,
) -> Result<Vec<(f64, bool, bool)>> {
    let central = |(plus, minus): &(Vec<f64>, Vec<f64>), s: f64| {
        plus.iter().zip(minus).map(|(p, m)| (p - m) / (2.0 * s)).collect::<Vec<f64>>()
    };
    // |right − left| one-sided slopes per output, and whether it exceeds the tolerance and the
    // rounding noise of the differences (each f64 value is off by up to ε·|f|, so a slope by
    // 2ε·|f|/s: at small steps a smooth function's h·|f''| falls below that noise, which must not
    // read as a jump that "does not shrink").
    let jumps = |(plus, minus): &(Vec<f64>, Vec<f64>), s: f64| -> Vec<(f64, bool)> {
        (0..center.len())
            .map(|j| {
                let right = (plus[j] - center[j]) / s;
                let left = (center[j] - minus[j]) / s;
                let magnitude = plus[j].abs().max(center[j].abs()).max(minus[j].abs());
                let noise = 8.0 * f64::EPSILON * magnitude / s;
                let jump = (right - left).abs();
                (jump, !tolerance.accepts(right, left, scale) && jump > noise)
            })
            .collect()
    };
    let mut numerical = central(&first, step);
    let mut accepted: Vec<bool> =
        (0..analytic.len()).map(|j| tolerance.accepts(analytic[j], numerical[j], scale)).collect();
    let mut last = (first, step);
    for divisor in REFINEMENTS {
        if accepted.iter().all(|&ok| ok) {
            break;
        }
        let s = step / divisor;
        let samples = probe(s)?;
        let refined = central(&samples, s);
        for j in 0..analytic.len() {
            if !accepted[j] && tolerance.accepts(analytic[j], refined[j], scale) {
                accepted[j] = true;
                numerical[j] = refined[j];
            }
        }
        last = (samples, s);
    }
    // A kink: the slopes jump, and the jump does not shrink with the step (for a smooth function
    // it is h·|f''| and falls 16-fold when the step does).
    let suspicious = jumps(&last.0, last.1);
    let confirmed = if suspicious.iter().any(|&(_, jump)| jump) {
        let s = last.1 / 16.0;
        jumps(&probe(s)?, s)
    } else {
        suspicious.clone()
    };
    Ok((0..analytic.len())
        .map(|j| {
            let kink = suspicious[j].1 && confirmed[j].1 && confirmed[j].0 >= 0.5 * suspicious[j].0;
            (numerical[j], accepted[j], kink)
        })
        .collect())
}

/// |analytic − numerical| / (atol·scale + rtol·|numerical|): the error in units of what the
/// tolerance allows, so 1 is the pass/fail line whatever the dtype (∞ when nothing is allowed).
fn error_ratio(analytic: f64, numerical: f64, scale: f64, tolerance: &Tolerance) -> f64 {
    let error = (analytic - numerical).abs();
    let allowed = tolerance.atol * scale + tolerance.rtol * numerical.abs();
    if error == 0.0 {
        0.0
    } else if allowed > 0.0 {
        error / allowed
    } else {
        f64::INFINITY
    }
}

fn element(input_index: Vec<usize>, output_index: Vec<usize>, analytic: f64, numerical: f64) -> ElementReport {
    let abs_error = (analytic - numerical).abs();
    let denominator = analytic.abs().max(numerical.abs());
    let rel_error = if denominator > 0.0 { abs_error / denominator } else { 0.0 };
    ElementReport { input_index, output_index, analytic, numerical, abs_error, rel_error }
}

impl Comparison {
    pub fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// The input's report; `per_element` (full mode) also fills the largest error ratio per input
    /// element over its differentiable entries.
    pub fn into_report(
        self,
        input: usize,
        tensor: &Tensor,
        tolerance: Tolerance,
        worst_count: usize,
        per_element: bool,
    ) -> InputReport {
        let compared = self.entries.len();
        let (kinks, mut smooth): (Vec<Entry>, Vec<Entry>) =
            self.entries.into_iter().partition(|entry| entry.non_differentiable);
        let mut element_errors = if per_element { vec![0.0f64; tensor.numel()] } else { Vec::new() };
        for entry in &smooth {
            // NaN compares false, so a NaN ratio is kept explicitly (it marks a broken gradient).
            if let Some(slot) = element_errors.get_mut(entry.flat_input) {
                if entry.ratio > *slot || entry.ratio.is_nan() {
                    *slot = entry.ratio;
                }
            }
        }
        let max_abs_error = smooth.iter().fold(0.0f64, |acc, entry| acc.max(entry.element.abs_error));
        let max_rel_error = smooth.iter().fold(0.0f64, |acc, entry| acc.max(entry.element.rel_error));
        // A check that verified nothing is no pass: when every compared entry looks like a kink, the
        // function is rarely kinked everywhere; it usually rounds the f64 copy through a narrow buffer
        // (an f32 tensor made inside it), and a wrong gradient would hide behind the classification.
        let verified = compared == 0 || !smooth.is_empty();
        let passed = verified && smooth.iter().all(|entry| entry.accepted);
        smooth.sort_by(|a, b| a.accepted.cmp(&b.accepted).then(b.element.abs_error.total_cmp(&a.element.abs_error)));
        InputReport {
            input,
            shape: tensor.shape().to_vec(),
            dtype: tensor.dtype(),
            tolerance,
            compared,
            max_abs_error,
            max_rel_error,
            passed,
            worst: smooth.into_iter().take(worst_count).map(|entry| entry.element).collect(),
            non_differentiable: kinks.into_iter().map(|entry| entry.element).collect(),
            element_errors,
        }
    }
}
