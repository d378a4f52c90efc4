//! The benchmark workspace behind `Playground`'s `bench*` methods: named tensors uploaded from
//! JavaScript, the timed operations (matmul, add, sum, one MLP training step) run on them through
//! the tensor core and autograd, and the simulated NPU matmul. The page times the calls; this
//! module only runs them, so TileLab is measured through the same API a notebook uses. The NPU
//! matmul builds its tile plan with `tile` and runs `npu` directly (the exception to session → lang
//! stated in the crate map): it times the simulator on a fixed plan, not the interpreter.

use std::collections::HashMap;
use std::fmt;

use crate::autograd::Var;
use crate::npu::{lowering_target, simulate, NpuConfig};
use crate::tensor::{BinaryOp, DType, ReduceOp, SoftmaxOp, Tensor, UnaryOp};
use crate::tile::{lower_work, whole_matmul, CubeTiles, GmTensor, KernelPlan};

/// Why a benchmark call failed, with the names the caller passed.
#[derive(Debug, Clone, PartialEq)]
pub enum BenchError {
    /// No tensor of this name was uploaded or produced.
    MissingTensor { name: String },
    /// The dtype name is not one of `f32`, `f16`, `bf16`, `f64`.
    UnknownDtype { name: String },
    /// The tensor core, autograd or the simulator refused the operation.
    Failed { op: &'static str, detail: String },
}

impl fmt::Display for BenchError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::MissingTensor { name } => write!(formatter, "bench: no tensor named '{name}'"),
            BenchError::UnknownDtype { name } => {
                write!(formatter, "bench: unknown dtype '{name}' (f32, f16, bf16, f64)")
            }
            BenchError::Failed { op, detail } => write!(formatter, "bench {op}: {detail}"),
        }
    }
}

impl std::error::Error for BenchError {}

/// Results of benchmark calls.
pub type Result<T> = std::result::Result<T, BenchError>;

fn failed(op: &'static str) -> impl Fn(&dyn fmt::Display) -> BenchError {
    move |error| BenchError::Failed { op, detail: error.to_string() }
}

/// The parameters of the MLP, by name in the workspace, in the order of [`BenchWorkspace::mlp_step`].
pub const MLP_PARAMETERS: [&str; 4] = ["w1", "b1", "w2", "b2"];

/// Named tensors the page uploads once and the timed operations read and write.
#[derive(Default)]
pub struct BenchWorkspace {
    tensors: HashMap<String, Tensor>,
}

impl BenchWorkspace {
    /// An empty workspace.
    pub fn new() -> BenchWorkspace {
        BenchWorkspace::default()
    }

    /// Stores `values` (row-major, rounded to `dtype`) as tensor `name`.
    pub fn load(&mut self, name: &str, values: Vec<f32>, shape: &[usize], dtype: &str) -> Result<()> {
        let dtype = DType::parse(dtype).ok_or_else(|| BenchError::UnknownDtype { name: dtype.to_string() })?;
        let tensor = Tensor::from_f32(values, shape, dtype).map_err(|error| failed("load")(&error))?;
        self.tensors.insert(name.to_string(), tensor);
        Ok(())
    }

    /// The values of tensor `name`, widened to f32.
    pub fn read(&self, name: &str) -> Result<Vec<f32>> {
        Ok(self.tensor(name)?.to_f32_vec())
    }

    /// Forgets every tensor.
    pub fn clear(&mut self) {
        self.tensors.clear();
    }

    fn tensor(&self, name: &str) -> Result<&Tensor> {
        self.tensors.get(name).ok_or_else(|| BenchError::MissingTensor { name: name.to_string() })
    }

    /// `out = a @ b` with `Tensor::matmul`; the result dtype is `out_dtype` or the promotion of the inputs.
    pub fn matmul(&mut self, a: &str, b: &str, out: &str, out_dtype: Option<&str>) -> Result<()> {
        let out_dtype = match out_dtype {
            Some(name) => Some(DType::parse(name).ok_or_else(|| BenchError::UnknownDtype { name: name.to_string() })?),
            None => None,
        };
        let product = self
            .tensor(a)?
            .matmul(self.tensor(b)?, false, false, out_dtype)
            .map_err(|error| failed("matmul")(&error))?;
        self.tensors.insert(out.to_string(), product);
        Ok(())
    }

    /// `out = a + b` with `Tensor::binary`.
    pub fn add(&mut self, a: &str, b: &str, out: &str) -> Result<()> {
        self.binary(BinaryOp::Add, "add", a, b, out)
    }

    /// `out = a * b` with `Tensor::binary`.
    pub fn mul(&mut self, a: &str, b: &str, out: &str) -> Result<()> {
        self.binary(BinaryOp::Mul, "mul", a, b, out)
    }

    fn binary(&mut self, op: BinaryOp, name: &'static str, a: &str, b: &str, out: &str) -> Result<()> {
        let result = self.tensor(a)?.binary(op, self.tensor(b)?).map_err(|error| failed(name)(&error))?;
        self.tensors.insert(out.to_string(), result);
        Ok(())
    }

    /// `out = exp(a)` with `Tensor::unary`.
    pub fn exp(&mut self, a: &str, out: &str) -> Result<()> {
        let result = self.tensor(a)?.unary(UnaryOp::Exp).map_err(|error| failed("exp")(&error))?;
        self.tensors.insert(out.to_string(), result);
        Ok(())
    }

    /// `Σ a` over every element with `Tensor::reduce`, returned.
    pub fn sum(&self, a: &str) -> Result<f64> {
        let total = self.tensor(a)?.reduce(ReduceOp::Sum, None, false).map_err(|error| failed("sum")(&error))?;
        total.item().map_err(|error| failed("sum")(&error))
    }

    /// One SGD step of the MLP `x → relu(x·w1 + b1) → ·w2 + b2` on the batch `x` with one-hot
    /// `labels`: loss = mean over the batch of −Σ labels·log_softmax(logits), backward through
    /// autograd, then `p ← p − learning_rate·∂loss/∂p` for w1, b1, w2, b2. Returns the loss.
    pub fn mlp_step(&mut self, x: &str, labels: &str, learning_rate: f64) -> Result<f64> {
        let op = "mlp_step";
        let parameters: Vec<Var> =
            MLP_PARAMETERS.iter().map(|name| Ok(Var::leaf(self.tensor(name)?.clone()))).collect::<Result<_>>()?;
        let (input, labels) = (Var::constant(self.tensor(x)?.clone()), Var::constant(self.tensor(labels)?.clone()));
        let batch = input.shape()[0].max(1) as f64;
        let loss = (|| {
            let hidden = input.matmul(&parameters[0], false, false, None)?.add(&parameters[1])?.unary(UnaryOp::Relu)?;
            let logits = hidden.matmul(&parameters[2], false, false, None)?.add(&parameters[3])?;
            let log_probabilities = logits.softmax_like(SoftmaxOp::LogSoftmax, -1)?;
            log_probabilities.mul(&labels)?.sum()?.scale(-1.0 / batch)
        })()
        .map_err(|error| failed(op)(&error))?;
        loss.backward().map_err(|error| failed(op)(&error))?;
        let rate = Tensor::scalar(learning_rate, DType::F32);
        for (name, parameter) in MLP_PARAMETERS.iter().zip(&parameters) {
            let gradient = parameter
                .grad()
                .ok_or_else(|| BenchError::Failed { op, detail: format!("no gradient reached {name}") })?;
            let step = gradient.binary(BinaryOp::Mul, &rate).map_err(|error| failed(op)(&error))?;
            let updated = parameter.tensor().binary(BinaryOp::Sub, &step).map_err(|error| failed(op)(&error))?;
            self.tensors.insert(name.to_string(), updated);
        }
        loss.item().map_err(|error| failed(op)(&error))
    }
}

/// What one simulated NPU matmul reports: the simulated time and the events it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct NpuMatmulRun {
    /// Simulated kernel time, µs.
    pub simulated_us: f64,
    /// Instructions simulated (trace events).
    pub events: usize,
    /// AI cores the plan used.
    pub cores: usize,
    /// Bytes the simulated kernel read from GM.
    pub gm_bytes_read: u64,
    /// Bytes it wrote to GM.
    pub gm_bytes_written: u64,
    /// Floating-point operations of its cube steps.
    pub flops: u64,
    /// Instructions in the plan.
    pub instructions: u64,
}

/// The tile plan of [`simulate_npu_matmul`] and the preset's configuration.
pub fn plan_npu_matmul(preset: &str, size: usize) -> Result<(KernelPlan, NpuConfig)> {
    let op = "npu_matmul";
    let config = NpuConfig::preset(preset).map_err(|error| failed(op)(&error))?;
    let a = GmTensor { name: "a".into(), shape: vec![size, size], dtype: DType::Bf16 };
    let b = GmTensor { name: "b".into(), shape: vec![size, size], dtype: DType::Bf16 };
    let tiles = CubeTiles { m: [128, 128], k: [64, 256], n: [256, 256] };
    let work = whole_matmul(a, b, DType::F32, tiles, 2, None);
    let plan = lower_work(&work, &lowering_target(&config)).map_err(|error| failed(op)(&error))?;
    Ok((plan, config))
}

/// The tile plan of the SwiGLU backward b kernel of examples/10 at `rows` rows
/// ([`super::bench_kernels::swiglu_b_work`], as `cargo bench --bench npu` times it) on `preset`.
pub fn plan_npu_swiglu_b(preset: &str, rows: usize) -> Result<(KernelPlan, NpuConfig)> {
    let op = "npu_swiglu_b";
    let config = NpuConfig::preset(preset).map_err(|error| failed(op)(&error))?;
    let work = super::bench_kernels::swiglu_b_work(rows);
    let plan = lower_work(&work, &lowering_target(&config)).map_err(|error| failed(op)(&error))?;
    Ok((plan, config))
}

/// Simulates `plan` on `config` (the simulator alone, its plan built beforehand); returns the
/// number of events, so the caller's time gives simulated events per second, and the simulated
/// cycles.
pub fn simulate_planned(plan: &KernelPlan, config: &NpuConfig) -> Result<(usize, u64)> {
    let simulation = simulate(plan, config).map_err(|error| failed("npu_simulate")(&error))?;
    Ok((simulation.trace.events.len(), simulation.summary.cycles))
}

/// Builds the tile plan of a `size³` bf16 matmul (f32 out) on `preset` and simulates it, with the
/// tiling of `benches/npu.rs` (128×64·256 L0/L1 tiles, double-buffered L1), compiled as a
/// script's `pypto.matmul(a, b)` over the whole tensors is.
pub fn simulate_npu_matmul(preset: &str, size: usize) -> Result<NpuMatmulRun> {
    let op = "npu_matmul";
    let (plan, config) = plan_npu_matmul(preset, size)?;
    let simulation = simulate(&plan, &config).map_err(|error| failed(op)(&error))?;
    Ok(NpuMatmulRun {
        simulated_us: simulation.summary.time_us,
        events: simulation.trace.events.len(),
        cores: simulation.summary.cores_used as usize,
        gm_bytes_read: simulation.summary.gm_bytes_read,
        gm_bytes_written: simulation.summary.gm_bytes_written,
        flops: simulation.summary.flops,
        instructions: simulation.summary.instructions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_add_mul_exp_and_sum_by_name() {
        // [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]]; + itself = doubled; Σ = 2·134 = 268.
        let mut workspace = BenchWorkspace::new();
        workspace.load("a", vec![1., 2., 3., 4.], &[2, 2], "f32").unwrap();
        workspace.load("b", vec![5., 6., 7., 8.], &[2, 2], "bf16").unwrap();
        workspace.matmul("a", "b", "c", Some("f32")).unwrap();
        assert_eq!(workspace.read("c").unwrap(), vec![19., 22., 43., 50.]);
        workspace.add("c", "c", "d").unwrap();
        assert_eq!(workspace.sum("d").unwrap(), 268.0);
        // c·c = [[361, 484], [1849, 2500]]; exp of [0, 1, −1] against f64 e (within 2 f32 ulps).
        workspace.mul("c", "c", "e").unwrap();
        assert_eq!(workspace.read("e").unwrap(), vec![361., 484., 1849., 2500.]);
        workspace.load("x", vec![0., 1., -1.], &[3], "f32").unwrap();
        workspace.exp("x", "y").unwrap();
        let exponentials = workspace.read("y").unwrap();
        for (got, wanted) in exponentials.iter().zip([1.0, std::f64::consts::E, 1.0 / std::f64::consts::E]) {
            assert!((*got as f64 - wanted).abs() <= 2.0 * f32::EPSILON as f64 * wanted, "{got} vs {wanted}");
        }
        assert_eq!(workspace.read("nothing"), Err(BenchError::MissingTensor { name: "nothing".into() }));
        assert!(matches!(workspace.load("x", vec![1.0], &[1], "fp8"), Err(BenchError::UnknownDtype { .. })));
        assert!(matches!(workspace.load("x", vec![1.0], &[2], "f32"), Err(BenchError::Failed { op: "load", .. })));
    }

    /// The MLP step against the same step done by hand in f64: forward, softmax cross-entropy,
    /// the textbook gradients (∂L/∂logits = (softmax − labels)/batch, back through w2, the relu
    /// mask and w1), and the SGD update.
    #[test]
    fn mlp_step_matches_an_f64_step_by_hand() {
        let (batch, inputs, hidden, classes, rate) = (3, 4, 5, 3, 0.1);
        let mut rng = crate::tensor::Rng::new(21);
        let mut draw = |count: usize| -> Vec<f32> { (0..count).map(|_| rng.normal() as f32 * 0.5).collect() };
        let (x, w1, b1, w2, b2) =
            (draw(batch * inputs), draw(inputs * hidden), draw(hidden), draw(hidden * classes), draw(classes));
        let mut labels = vec![0.0f32; batch * classes];
        for row in 0..batch {
            labels[row * classes + (row * 2) % classes] = 1.0;
        }
        let mut workspace = BenchWorkspace::new();
        for (name, values, shape) in [
            ("x", &x, vec![batch, inputs]),
            ("labels", &labels, vec![batch, classes]),
            ("w1", &w1, vec![inputs, hidden]),
            ("b1", &b1, vec![hidden]),
            ("w2", &w2, vec![hidden, classes]),
            ("b2", &b2, vec![classes]),
        ] {
            workspace.load(name, values.clone(), &shape, "f32").unwrap();
        }
        let loss = workspace.mlp_step("x", "labels", rate).unwrap();

        let wide = |values: &[f32]| values.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>();
        let (x, w1, b1, w2, b2, labels) = (wide(&x), wide(&w1), wide(&b1), wide(&w2), wide(&b2), wide(&labels));
        let mut pre = vec![0.0; batch * hidden];
        for r in 0..batch {
            for j in 0..hidden {
                pre[r * hidden + j] = b1[j] + (0..inputs).map(|p| x[r * inputs + p] * w1[p * hidden + j]).sum::<f64>();
            }
        }
        let act: Vec<f64> = pre.iter().map(|&v| v.max(0.0)).collect();
        let (mut expected_loss, mut d_logits) = (0.0, vec![0.0; batch * classes]);
        for r in 0..batch {
            let logits: Vec<f64> = (0..classes)
                .map(|c| b2[c] + (0..hidden).map(|j| act[r * hidden + j] * w2[j * classes + c]).sum::<f64>())
                .collect();
            let top = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let norm: f64 = logits.iter().map(|&l| (l - top).exp()).sum();
            for c in 0..classes {
                let probability = (logits[c] - top).exp() / norm;
                expected_loss -= labels[r * classes + c] * (probability.ln()) / batch as f64;
                d_logits[r * classes + c] = (probability - labels[r * classes + c]) / batch as f64;
            }
        }
        assert!((loss - expected_loss).abs() < 1e-5 * expected_loss.abs().max(1.0), "loss {loss} vs {expected_loss}");
        let mut d_pre = vec![0.0; batch * hidden];
        for r in 0..batch {
            for j in 0..hidden {
                let back: f64 = (0..classes).map(|c| d_logits[r * classes + c] * w2[j * classes + c]).sum();
                d_pre[r * hidden + j] = if pre[r * hidden + j] > 0.0 { back } else { 0.0 };
            }
        }
        let new_w1: Vec<f64> = (0..inputs * hidden)
            .map(|i| {
                w1[i]
                    - rate
                        * (0..batch).map(|r| x[r * inputs + i / hidden] * d_pre[r * hidden + i % hidden]).sum::<f64>()
            })
            .collect();
        let new_b1: Vec<f64> =
            (0..hidden).map(|j| b1[j] - rate * (0..batch).map(|r| d_pre[r * hidden + j]).sum::<f64>()).collect();
        let new_w2: Vec<f64> = (0..hidden * classes)
            .map(|i| {
                w2[i]
                    - rate
                        * (0..batch)
                            .map(|r| act[r * hidden + i / classes] * d_logits[r * classes + i % classes])
                            .sum::<f64>()
            })
            .collect();
        let new_b2: Vec<f64> =
            (0..classes).map(|c| b2[c] - rate * (0..batch).map(|r| d_logits[r * classes + c]).sum::<f64>()).collect();
        for (name, expected) in MLP_PARAMETERS.iter().zip([new_w1, new_b1, new_w2, new_b2]) {
            let got = workspace.read(name).unwrap();
            for (g, e) in got.iter().zip(&expected) {
                assert!((f64::from(*g) - e).abs() < 1e-5, "{name}: {g} vs {e}");
            }
        }
    }

    /// The SwiGLU b plan simulates one event per instruction; a bad preset is an error. (Its
    /// events and cycles at 22000 rows are in tests/npu/engine_identity.golden, which the page's
    /// check reads.)
    #[test]
    fn npu_swiglu_b_simulates_one_event_per_instruction() {
        let (plan, config) = plan_npu_swiglu_b("Ascend910B2", 3000).unwrap();
        let instructions: usize = plan.programs.iter().map(|program| program.instructions.len()).sum();
        let (events, cycles) = simulate_planned(&plan, &config).unwrap();
        assert_eq!(events, instructions);
        assert!(cycles > 0);
        assert!(plan_npu_swiglu_b("Ascend9000", 3000).is_err());
    }

    #[test]
    fn npu_matmul_simulates_and_unknown_presets_are_errors() {
        // The simulator's figures are tested in tests/npu_*.rs; here: the bench plan is accepted,
        // simulated on some cores with some events, and a bad preset is an error, not a panic.
        let run = simulate_npu_matmul("Ascend910B2", 512).unwrap();
        // The plan's closed form at S = 512 (bench/page/reference.mjs `npuMatmulPlan` checks the
        // page's run the same way): (512/128)·(512/256) = 8 output blocks on 8 of the 24 cube
        // cores; per block 512/256 = 2 K blocks, each 2 copies in + 256/64 = 4 × (move A, move B,
        // mmad), then 1 copy out: 8·(2·14 + 1) = 232 instructions, one trace event each. GM reads:
        // per K block a 128×256 and a 256×256 bf16 tile (196 608 B): 8·2·196 608 = 3 145 728 B;
        // writes: 512² f32 = 1 048 576 B; FLOPs 2·512³ = 268 435 456.
        assert_eq!((run.cores, run.instructions, run.events), (8, 232, 232), "{run:?}");
        assert_eq!((run.gm_bytes_read, run.gm_bytes_written, run.flops), (3_145_728, 1_048_576, 268_435_456));
        assert!(run.simulated_us > 0.0, "{run:?}");
        assert!(matches!(simulate_npu_matmul("NoSuchChip", 512), Err(BenchError::Failed { op: "npu_matmul", .. })));
    }
}
