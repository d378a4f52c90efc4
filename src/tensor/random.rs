//! A seeded generator whose numbers are bit-identical natively and in wasm: integer state
//! (xoshiro256**), and for normals Box–Muller with `libm`'s log and cos, not the platform's.

use std::cell::RefCell;

use super::dtype::DType;
use super::handle::Tensor;
use super::shape::element_count;
use super::storage::check_allocation;
use crate::error::Result;

/// xoshiro256** seeded through SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng {
    state: [u64; 4],
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut mix = seed;
        let mut next = || {
            mix = mix.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = mix;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng { state: [next(), next(), next(), next()] }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal (Box–Muller; one value per call keeps the stream simple to reproduce).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // in (0, 1]: log is finite
        let u2 = self.uniform();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2)
    }
}

thread_local! {
    static GLOBAL: RefCell<Rng> = RefCell::new(Rng::new(0));
}

/// Reseeds the generator used when no seed is given (`pypto.manual_seed`).
pub fn manual_seed(seed: u64) {
    GLOBAL.with(|rng| *rng.borrow_mut() = Rng::new(seed));
}

fn sample(
    op: &'static str,
    shape: &[usize],
    dtype: DType,
    seed: Option<u64>,
    draw: fn(&mut Rng) -> f64,
) -> Result<Tensor> {
    let count = element_count(op, shape)?;
    check_allocation(op, count, dtype)?;
    let values = match seed {
        Some(seed) => {
            let mut rng = Rng::new(seed);
            (0..count).map(|_| draw(&mut rng)).collect()
        }
        None => GLOBAL.with(|rng| {
            let mut rng = rng.borrow_mut();
            (0..count).map(|_| draw(&mut rng)).collect()
        }),
    };
    Tensor::from_f64(values, shape, dtype)
}

impl Tensor {
    /// Standard normal samples, from `seed` or from the global generator.
    pub fn randn(shape: &[usize], dtype: DType, seed: Option<u64>) -> Result<Tensor> {
        sample("randn", shape, dtype, seed, Rng::normal)
    }

    /// Uniform samples in [0, 1), from `seed` or from the global generator.
    pub fn rand(shape: &[usize], dtype: DType, seed: Option<u64>) -> Result<Tensor> {
        sample("rand", shape, dtype, seed, Rng::uniform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers() {
        let a = Tensor::randn(&[64], DType::F32, Some(7)).unwrap().to_f32_vec();
        let b = Tensor::randn(&[64], DType::F32, Some(7)).unwrap().to_f32_vec();
        assert_eq!(a, b);
        assert_ne!(a, Tensor::randn(&[64], DType::F32, Some(8)).unwrap().to_f32_vec());
    }

    #[test]
    fn moments_are_plausible() {
        // 20k normals: mean within 5σ/√n ≈ 0.035 of 0, variance near 1; uniforms average 1/2.
        let x = Tensor::randn(&[20_000], DType::F64, Some(1)).unwrap().to_f64_vec();
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64;
        assert!(mean.abs() < 0.035 && (var - 1.0).abs() < 0.05, "{mean} {var}");
        let u = Tensor::rand(&[20_000], DType::F64, Some(2)).unwrap().to_f64_vec();
        assert!(u.iter().all(|&v| (0.0..1.0).contains(&v)));
        assert!((u.iter().sum::<f64>() / 20_000.0 - 0.5).abs() < 0.02);
    }

    #[test]
    fn manual_seed_restarts_the_global_stream() {
        manual_seed(3);
        let a = Tensor::rand(&[5], DType::F32, None).unwrap().to_f32_vec();
        manual_seed(3);
        assert_eq!(a, Tensor::rand(&[5], DType::F32, None).unwrap().to_f32_vec());
    }
}
