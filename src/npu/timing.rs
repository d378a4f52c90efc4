//! The cost of one instruction from the configuration: GM copies cost an issue, a first-byte
//! latency when their queue had drained, and bytes over the path rate as their bursts allow
//! (`burst.rs`; they additionally share L2 and HBM), on-core copies a start-up plus bytes over the path, the cube one cycle per 16×16×16
//! fractal step, the vector unit an issue overhead plus bytes over 256 B/cycle (transcendental and
//! divide ops at the fp32 element width, `vector_class.rs`).

use crate::tensor::DType;
use crate::tile::{Buffer, GmRegion, KernelPlan, Memory, Pipe, TileOp, TileProgram, VectorOp, VectorOperand};

use super::burst::{burst_rate, bursts};
use super::config::NpuConfig;
use super::vector_class::{charged_element_bytes, vector_passes};

/// What an instruction costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cost {
    /// A fixed number of cycles.
    Fixed { cycles: f64 },
    /// A GM transfer: `issue` cycles, `startup` more when its queue had drained (the first-byte
    /// latency), then `bytes` at up to `path_bytes_per_cycle` (the path rate its bursts allow; and a
    /// share of L2 and HBM). An accumulating write (`read_first`) reads the region before it writes
    /// it back (atomic add). `short_burst_cycles` is what the bursts cost beyond the path rate
    /// (counted with the start-up as DMA overhead in the summary).
    Gm {
        bytes: u64,
        issue: f64,
        startup: f64,
        path_bytes_per_cycle: f64,
        short_burst_cycles: f64,
        write: bool,
        read_first: bool,
    },
}

/// Cost, bytes moved and FLOPs of one instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InstructionCost {
    /// The time model.
    pub cost: Cost,
    /// Bytes moved or processed.
    pub bytes: u64,
    /// Floating-point operations (2 per MAC on the cube, 1 per element on the vector unit).
    pub flops: u64,
}

fn elements(shape: &[usize]) -> u64 {
    shape.iter().map(|dim| *dim as u64).product()
}

fn round_up(value: usize, step: usize) -> u64 {
    value.div_ceil(step) as u64
}

fn region_bytes(plan: &KernelPlan, region: &GmRegion) -> u64 {
    let dtype = plan.tensors.get(region.tensor.0 as usize).map(|tensor| tensor.dtype).unwrap_or(DType::F32);
    elements(&region.shape) * dtype.size_in_bytes() as u64
}

/// The cost of a GM transfer of `region` (`bytes`) over a path of (bytes per cycle, least cycles
/// per burst).
fn gm_transfer(
    plan: &KernelPlan,
    (region, bytes): (&GmRegion, u64),
    (path, burst_cycles): (f64, f64),
    write: bool,
    read_first: bool,
    config: &NpuConfig,
) -> Cost {
    let rate = match plan.tensors.get(region.tensor.0 as usize) {
        Some(tensor) => {
            let (_, run_bytes) = bursts(&tensor.shape, &region.shape, tensor.dtype.size_in_bytes() as u64);
            burst_rate(path, run_bytes, burst_cycles)
        }
        None => path,
    };
    Cost::Gm {
        bytes,
        issue: config.gm_issue_cycles as f64,
        startup: config.gm_startup_cycles as f64,
        path_bytes_per_cycle: rate,
        short_burst_cycles: bytes as f64 / rate - bytes as f64 / path,
        write,
        read_first,
    }
}

/// The cost of `program.instructions[index]` (the program was checked, so ids are valid).
pub fn instruction_cost(plan: &KernelPlan, program: &TileProgram, index: usize, config: &NpuConfig) -> InstructionCost {
    let instruction = &program.instructions[index];
    let buffer = |id: crate::tile::BufferId| -> &Buffer { &program.buffers[id.0 as usize] };
    let vector = |count: u64, size: u64| Cost::Fixed {
        cycles: config.vector_startup_cycles as f64 + ((count * size) as f64 / config.vector_bytes_per_cycle).ceil(),
    };
    match &instruction.op {
        TileOp::CopyIn { source, destination } => {
            let path = if buffer(*destination).memory == Memory::L1 {
                (config.gm_to_l1_bytes_per_cycle, config.gm_to_l1_burst_cycles)
            } else {
                (config.gm_to_ub_bytes_per_cycle, config.gm_to_ub_burst_cycles)
            };
            let bytes = region_bytes(plan, source);
            InstructionCost { cost: gm_transfer(plan, (source, bytes), path, false, false, config), bytes, flops: 0 }
        }
        TileOp::CopyOut { destination, .. } | TileOp::CopyOutAccumulate { destination, .. } => {
            let read_first = matches!(instruction.op, TileOp::CopyOutAccumulate { .. });
            let bytes = region_bytes(plan, destination);
            let path = if instruction.pipe == Pipe::Fixpipe {
                (config.l0c_to_gm_bytes_per_cycle, config.gm_to_l1_burst_cycles)
            } else {
                (config.ub_to_gm_bytes_per_cycle, config.gm_to_ub_burst_cycles)
            };
            let cost = gm_transfer(plan, (destination, bytes), path, true, read_first, config);
            InstructionCost { cost, bytes, flops: 0 }
        }
        TileOp::Move { source, shape, destination, .. } | TileOp::MoveTransposed { source, shape, destination, .. } => {
            let bytes = elements(shape) * buffer(*source).dtype.size_in_bytes() as u64;
            let rate = match buffer(*destination).memory {
                Memory::Ub | Memory::L1 => config.l0c_to_ub_bytes_per_cycle,
                Memory::L0B => config.l1_to_l0b_bytes_per_cycle,
                _ => config.l1_to_l0a_bytes_per_cycle,
            };
            let cycles = config.local_startup_cycles as f64 + (bytes as f64 / rate).ceil();
            InstructionCost { cost: Cost::Fixed { cycles }, bytes, flops: 0 }
        }
        TileOp::Mmad { a, m, k, n, .. } => {
            // One 16×16×16 fractal step per cycle at 4096 MAC/cycle; ragged edges still cost whole fractals.
            let fractal_steps = round_up(*m, 16) * round_up(*k, 16) * round_up(*n, 16);
            let step_cycles = 4096.0 / config.cube_macs_per_cycle as f64;
            // 32-bit operands take two passes (assumption, see docs/npu-model.md).
            let width = if buffer(*a).dtype.size_in_bytes() >= 4 { 2.0 } else { 1.0 };
            let macs = (*m * *k * *n) as u64;
            InstructionCost {
                cost: Cost::Fixed { cycles: fractal_steps as f64 * step_cycles * width },
                bytes: 0,
                flops: 2 * macs,
            }
        }
        TileOp::Unary { input, output, valid_shape, .. }
        | TileOp::Cast { input, output, valid_shape }
        | TileOp::ScalarBinary { input, output, valid_shape, .. }
        | TileOp::Clip { input, output, valid_shape, .. } => {
            let count = elements(valid_shape);
            let size = buffer(*input).dtype.size_in_bytes().max(buffer(*output).dtype.size_in_bytes()) as u64;
            let charged = charged_element_bytes(&instruction.op, size);
            let Cost::Fixed { cycles } = vector(count, charged) else { unreachable!("vector costs are fixed") };
            let passes = vector_passes(&instruction.op, size);
            InstructionCost { cost: Cost::Fixed { cycles: cycles * passes as f64 }, bytes: count * size, flops: count }
        }
        TileOp::Binary { lhs, output, valid_shape, .. } => {
            let count = elements(valid_shape);
            let size = buffer(*lhs).dtype.size_in_bytes().max(buffer(*output).dtype.size_in_bytes()) as u64;
            let charged = charged_element_bytes(&instruction.op, size);
            InstructionCost { cost: vector(count, charged), bytes: count * size, flops: count }
        }
        TileOp::BroadcastBinary { lhs, rhs, output, valid_shape, .. } => {
            // The output has the most elements; the widest of the three dtypes sets the bytes per element.
            let count = elements(valid_shape);
            let size = [lhs, rhs, output].iter().map(|id| buffer(**id).dtype.size_in_bytes()).max().unwrap_or(4) as u64;
            let charged = charged_element_bytes(&instruction.op, size);
            InstructionCost { cost: vector(count, charged), bytes: count * size, flops: count }
        }
        TileOp::Reduce { input, valid_shape, .. } | TileOp::ReduceDims { input, valid_shape, .. } => {
            let count = elements(valid_shape);
            let size = buffer(*input).dtype.size_in_bytes() as u64;
            InstructionCost { cost: vector(count, size), bytes: count * size, flops: count }
        }
        TileOp::Vector { op, inputs, output, valid_shape } => {
            // Each pass is one vector instruction over the output elements at the widest dtype; a
            // running sum issues one instruction per slice along its dim (the slice added to the
            // running total), so its start-up cost grows with the scanned length.
            let count = elements(valid_shape);
            let size = inputs
                .iter()
                .filter_map(|input| match input {
                    VectorOperand::Tile { buffer: id, .. } => Some(buffer(*id).dtype.size_in_bytes()),
                    VectorOperand::Scalar(_) => None,
                })
                .chain([buffer(*output).dtype.size_in_bytes()])
                .max()
                .unwrap_or(4) as u64;
            let (instructions, per_instruction) = match op {
                VectorOp::CumSum { dim } => {
                    let slices = valid_shape.get(*dim).copied().unwrap_or(1).max(1) as u64;
                    (slices, count.div_ceil(slices))
                }
                VectorOp::TopK { dim, .. } => {
                    // A bitonic sort of the n elements along the dim: log2 n · (log2 n + 1) / 2
                    // compare-exchange passes over the input tile.
                    let (input, n) = match inputs.first() {
                        Some(VectorOperand::Tile { shape, .. }) => {
                            (elements(shape), shape.get(*dim).copied().unwrap_or(1).max(1))
                        }
                        _ => (count, 1),
                    };
                    let stages = n.next_power_of_two().trailing_zeros() as u64;
                    ((stages * (stages + 1) / 2).max(1), input)
                }
                _ => (op.passes(), count),
            };
            let Cost::Fixed { cycles } = vector(per_instruction, size) else { unreachable!("vector costs are fixed") };
            let flops =
                if matches!(op, VectorOp::CumSum { .. } | VectorOp::Round { .. }) { count * op.passes() } else { 0 };
            InstructionCost {
                cost: Cost::Fixed { cycles: cycles * instructions as f64 },
                bytes: count * size * op.passes(),
                flops,
            }
        }
        TileOp::Scalar { cycles } => {
            InstructionCost { cost: Cost::Fixed { cycles: *cycles as f64 }, bytes: 0, flops: 0 }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{BinaryOp, ReduceOp, UnaryOp};
    use crate::tile::{ProgramBuilder, TensorId};

    #[test]
    fn generic_vector_ops_cost_their_bytes_at_the_vector_rate() {
        // teaching: vector issue 8 cycles, 256 B/cycle.
        // Broadcast add of an f16 [16, 64] tile and an f32 [16, 1] column into f16: 1024 output
        // elements at the widest dtype (4 B) = 4096 B → 8 + 16 = 24 cycles.
        // Column sum of an f32 [16, 64] tile: 1024 input elements × 4 B → 8 + 16 = 24 cycles.
        // Transposing move of a 32×16 f16 sub-tile: on-core start-up 8 + 1024 B / 128 B/cycle = 16 cycles.
        let config = NpuConfig::preset("teaching").unwrap();
        let mut builder = ProgramBuilder::new();
        let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F16);
        let column = builder.buffer("c", Memory::Ub, &[16, 1], DType::F32);
        let wide = builder.buffer("w", Memory::Ub, &[16, 64], DType::F32);
        let sums = builder.buffer("s", Memory::Ub, &[1, 64], DType::F32);
        let staged = builder.buffer("l1", Memory::L1, &[32, 16], DType::F16);
        let left = builder.buffer("l0a", Memory::L0A, &[16, 32], DType::F16);
        let broadcast = TileOp::BroadcastBinary {
            op: BinaryOp::Add,
            lhs: tile,
            lhs_shape: [16, 64].into(),
            rhs: column,
            rhs_shape: [16, 1].into(),
            output: tile,
            valid_shape: [16, 64].into(),
        };
        builder.push(broadcast, vec![], vec![]).unwrap();
        builder
            .push(
                TileOp::ReduceDims {
                    op: ReduceOp::Sum,
                    input: wide,
                    output: sums,
                    dims: [0].into(),
                    valid_shape: [16, 64].into(),
                },
                vec![],
                vec![],
            )
            .unwrap();
        builder
            .push(
                TileOp::MoveTransposed {
                    source: staged,
                    offsets: [0, 0].into(),
                    shape: [32, 16].into(),
                    destination: left,
                },
                vec![],
                vec![],
            )
            .unwrap();
        let region = GmRegion { tensor: TensorId(0), offsets: [0, 0].into(), shape: [1, 64].into() };
        builder
            .push(TileOp::CopyOutAccumulate { source: sums, destination: region, order: 0 }, vec![], vec![])
            .unwrap();
        let program = builder.finish();
        let tensor = crate::tile::GmTensor { name: "out".into(), shape: vec![1, 64], dtype: DType::F32 };
        let plan = KernelPlan {
            name: "costs".into(),
            tensors: vec![tensor],
            programs: vec![program.clone()],
            cross_core_flags: 0,
            single_buffered_from: None,
        };
        let cycles = |index| match instruction_cost(&plan, &program, index, &config).cost {
            Cost::Fixed { cycles } => cycles,
            Cost::Gm { .. } => f64::NAN,
        };
        assert_eq!((cycles(0), cycles(1), cycles(2)), (24.0, 24.0, 16.0));
        // The accumulating copy-out writes its 256 bytes after reading them (read-modify-write).
        let accumulate = instruction_cost(&plan, &program, 3, &config);
        assert!(matches!(accumulate.cost, Cost::Gm { bytes: 256, write: true, read_first: true, .. }));
    }

    #[test]
    fn transcendental_and_divide_ops_run_at_the_fp32_element_rate() {
        // teaching: vector issue 8 cycles, 256 B/cycle. 1024 elements ([16, 64]):
        // f16 add 8 + 1024 × 2 / 256 = 16; f16 exp and f16 divide at 4 B per element: 8 + 16 = 24
        // (twice an f16 add's streaming); f32 add and f32 exp both 8 + 1024 × 4 / 256 = 24.
        let config = NpuConfig::preset("teaching").unwrap();
        let mut builder = ProgramBuilder::new();
        let half = builder.buffer("h", Memory::Ub, &[16, 64], DType::F16);
        let single = builder.buffer("s", Memory::Ub, &[16, 64], DType::F32);
        let shape = vec![16, 64];
        let binary = |op, tile| TileOp::Binary {
            op,
            lhs: tile,
            rhs: tile,
            output: tile,
            valid_shape: crate::tile::Dims::from(&*shape),
        };
        let exp = |tile| TileOp::Unary {
            op: UnaryOp::Exp,
            input: tile,
            output: tile,
            valid_shape: crate::tile::Dims::from(&*shape),
        };
        for op in [
            binary(BinaryOp::Add, half),
            exp(half),
            binary(BinaryOp::Div, half),
            binary(BinaryOp::Add, single),
            exp(single),
        ] {
            builder.push(op, vec![], vec![]).unwrap();
        }
        let program = builder.finish();
        let plan = KernelPlan {
            name: "classes".into(),
            tensors: vec![],
            programs: vec![program.clone()],
            cross_core_flags: 0,
            single_buffered_from: None,
        };
        let cycles: Vec<f64> = (0..5)
            .map(|index| match instruction_cost(&plan, &program, index, &config).cost {
                Cost::Fixed { cycles } => cycles,
                Cost::Gm { .. } => f64::NAN,
            })
            .collect();
        assert_eq!(cycles, vec![16.0, 24.0, 24.0, 24.0, 24.0]);
        // The bytes reported stay the tile's own: 1024 × 2 for the f16 exp.
        assert_eq!(instruction_cost(&plan, &program, 1, &config).bytes, 2048);
    }

    #[test]
    fn sigmoid_and_silu_cost_their_decomposition() {
        // teaching: vector issue 8 cycles, 256 B/cycle; one fp32-width pass over 1024 elements is
        // 8 + 1024 × 4 / 256 = 24 cycles. f16 SiLU: cast, muls, exp, adds, div, cast = 6 passes, 144;
        // f32 SiLU needs no casts: 4 passes, 96; f16 sigmoid adds the tile of ones: 7 passes, 168.
        let config = NpuConfig::preset("teaching").unwrap();
        let mut builder = ProgramBuilder::new();
        let half = builder.buffer("h", Memory::Ub, &[16, 64], DType::F16);
        let single = builder.buffer("s", Memory::Ub, &[16, 64], DType::F32);
        let unary = |op, tile| TileOp::Unary { op, input: tile, output: tile, valid_shape: [16, 64].into() };
        for op in [unary(UnaryOp::Silu, half), unary(UnaryOp::Silu, single), unary(UnaryOp::Sigmoid, half)] {
            builder.push(op, vec![], vec![]).unwrap();
        }
        let program = builder.finish();
        let plan = KernelPlan {
            name: "passes".into(),
            tensors: vec![],
            programs: vec![program.clone()],
            cross_core_flags: 0,
            single_buffered_from: None,
        };
        let cycles: Vec<f64> = (0..3)
            .map(|index| match instruction_cost(&plan, &program, index, &config).cost {
                Cost::Fixed { cycles } => cycles,
                Cost::Gm { .. } => f64::NAN,
            })
            .collect();
        assert_eq!(cycles, vec![144.0, 96.0, 168.0]);
    }
}
