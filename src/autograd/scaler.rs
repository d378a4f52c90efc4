//! Dynamic loss scaling for mixed precision: multiply the loss by a scale so small gradients do not
//! underflow in f16, unscale them in f32, skip the step and shrink the scale when a gradient
//! overflowed, grow the scale again after a run of finite steps.

use serde::{Deserialize, Serialize};

use super::error::{AutogradError, Result};
use super::var::Var;
use crate::tensor::{BinaryOp, DType, Tensor};

/// Settings of a `LossScaler`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossScalerConfig {
    /// The first scale. 2^15 by default: the largest power of two an f16 loss can be multiplied by
    /// (f16's maximum is 65504).
    pub init_scale: f64,
    /// Factor applied after `growth_interval` finite steps in a row (> 1).
    pub growth_factor: f64,
    /// Factor applied when a gradient is not finite (in (0, 1)).
    pub backoff_factor: f64,
    /// Finite steps before the scale grows (≥ 1).
    pub growth_interval: u32,
}

impl Default for LossScalerConfig {
    fn default() -> Self {
        LossScalerConfig { init_scale: 32768.0, growth_factor: 2.0, backoff_factor: 0.5, growth_interval: 2000 }
    }
}

/// What `update` did to the scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScaleUpdate {
    /// Unchanged.
    Kept,
    /// Multiplied by the growth factor.
    Grew,
    /// Multiplied by the backoff factor (a gradient overflowed).
    BackedOff,
}

/// Gradients divided by the scale, in f32, and whether all of them are finite.
#[derive(Clone, Debug)]
pub struct Unscaled {
    /// One per parameter (zeros for a parameter without a gradient).
    pub gradients: Vec<Tensor>,
    /// No gradient holds an inf or NaN (otherwise the step must be skipped).
    pub finite: bool,
}

/// The dynamic loss scaler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossScaler {
    config: LossScalerConfig,
    scale: f64,
    finite_steps: u32,
}

impl LossScaler {
    /// A scaler with validated settings.
    pub fn new(config: LossScalerConfig) -> Result<LossScaler> {
        let valid = config.init_scale.is_finite()
            && config.init_scale > 0.0
            && config.growth_factor > 1.0
            && config.backoff_factor > 0.0
            && config.backoff_factor < 1.0
            && config.growth_interval >= 1;
        if !valid {
            return Err(AutogradError::BadArgument {
                op: "LossScaler".into(),
                detail: crate::messages::AutogradDetail::ScalerSettings { settings: format!("{config:?}") },
            });
        }
        Ok(LossScaler { config, scale: config.init_scale, finite_steps: 0 })
    }

    /// The current scale.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// `loss · scale` (backward from it gives scaled gradients).
    pub fn scale_loss(&self, loss: &Var) -> Result<Var> {
        let factor = Tensor::scalar(self.scale, loss.dtype());
        if !factor.item()?.is_finite() {
            return Err(AutogradError::BadArgument {
                op: "scale_loss".into(),
                detail: crate::messages::AutogradDetail::ScaleNotRepresentable {
                    scale: self.scale.to_string(),
                    dtype: loss.dtype().to_string(),
                },
            });
        }
        loss.mul(&Var::constant(factor))
    }

    /// The parameters' gradients divided by the scale, in f32, with the finite check.
    pub fn unscale(&self, parameters: &[Var]) -> Result<Unscaled> {
        let inverse = Tensor::scalar(1.0 / self.scale, DType::F32);
        let mut finite = true;
        let mut gradients = Vec::with_capacity(parameters.len());
        for parameter in parameters {
            let gradient = match parameter.grad() {
                Some(gradient) => gradient.cast(DType::F32)?.binary(BinaryOp::Mul, &inverse)?,
                None => Tensor::zeros(parameter.shape(), DType::F32)?,
            };
            finite &= gradient.to_f32_vec().iter().all(|value| value.is_finite());
            gradients.push(gradient);
        }
        Ok(Unscaled { gradients, finite })
    }

    /// Adjusts the scale after a step: back off on overflow, grow after a run of finite steps.
    pub fn update(&mut self, finite: bool) -> ScaleUpdate {
        if !finite {
            self.scale *= self.config.backoff_factor;
            self.finite_steps = 0;
            return ScaleUpdate::BackedOff;
        }
        self.finite_steps += 1;
        if self.finite_steps >= self.config.growth_interval {
            self.finite_steps = 0;
            self.scale *= self.config.growth_factor;
            return ScaleUpdate::Grew;
        }
        ScaleUpdate::Kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_rejected() {
        let bad = LossScalerConfig { backoff_factor: 1.5, ..LossScalerConfig::default() };
        assert!(LossScaler::new(bad).is_err());
        assert!(LossScaler::new(LossScalerConfig::default()).is_ok());
    }

    #[test]
    fn scale_backs_off_on_overflow_and_grows_after_the_interval() {
        let config = LossScalerConfig { init_scale: 1024.0, growth_interval: 3, ..LossScalerConfig::default() };
        let mut scaler = LossScaler::new(config).unwrap();
        assert_eq!(scaler.update(false), ScaleUpdate::BackedOff);
        assert_eq!(scaler.scale(), 512.0);
        assert_eq!(scaler.update(true), ScaleUpdate::Kept);
        assert_eq!(scaler.update(true), ScaleUpdate::Kept);
        assert_eq!(scaler.update(true), ScaleUpdate::Grew);
        assert_eq!(scaler.scale(), 1024.0);
    }
}
