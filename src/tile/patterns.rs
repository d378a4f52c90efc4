//! Ready-made tile programs for three kernel shapes: an element-wise chain over a tiled 2-D tensor,
//! a row reduction, and a tiled matmul through L1 → L0A/L0B → cube → L0C → FIXPIPE. Tiles are spread
//! over cores in contiguous blocks; ragged last tiles move only their valid shape.

use crate::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};

use super::builder::{ProgramBuilder, SlotRing, TileError};
use super::program::{GmRegion, GmTensor, KernelPlan, Memory, TensorId, TileOp, TileProgram};

/// One step of an element-wise chain applied to the running value (which starts as input 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChainStep {
    /// `value = op(value)`
    Unary(UnaryOp),
    /// `value = op(value, inputs[index])`
    Binary(BinaryOp, usize),
}

/// Splits `count` items into `parts` contiguous ranges whose sizes differ by at most one.
pub fn split_range(count: usize, parts: usize, part: usize) -> std::ops::Range<usize> {
    let parts = parts.max(1);
    (part * count / parts)..((part + 1) * count / parts)
}

fn tiles_2d(shape: [usize; 2], tile: [usize; 2]) -> Vec<([usize; 2], [usize; 2])> {
    let mut tiles = Vec::new();
    for row in (0..shape[0]).step_by(tile[0]) {
        for column in (0..shape[1]).step_by(tile[1]) {
            tiles.push(([row, column], [tile[0].min(shape[0] - row), tile[1].min(shape[1] - column)]));
        }
    }
    tiles
}

fn check_tile(pattern: &'static str, shape: &[usize], tile: &[usize]) -> Result<(), TileError> {
    if shape.len() != 2 || tile.len() != 2 || tile.contains(&0) || shape.contains(&0) {
        return Err(TileError::BadPattern {
            pattern,
            detail: format!("needs a non-empty 2-D tensor and tile, got {shape:?} and {tile:?}"),
        });
    }
    Ok(())
}

/// `out = chain(inputs)` element-wise over 2-D tensors of one shape, in `tile` tiles with
/// `buffers`-fold buffering (1 = none, 2 = ping-pong), spread over `cores` cores. Every step of one
/// tile stays in UB; only the inputs and the result cross GM.
pub fn elementwise_chain(
    inputs: &[GmTensor],
    steps: &[ChainStep],
    output_dtype: DType,
    tile: [usize; 2],
    cores: usize,
    buffers: usize,
    line: Option<u32>,
) -> Result<KernelPlan, TileError> {
    let pattern = "elementwise_chain";
    let first = inputs.first().ok_or(TileError::BadPattern { pattern, detail: "needs at least one input".into() })?;
    check_tile(pattern, &first.shape, &tile)?;
    if let Some(other) = inputs.iter().find(|input| input.shape != first.shape) {
        return Err(TileError::BadPattern {
            pattern,
            detail: format!("input {} has shape {:?}, expected {:?}", other.name, other.shape, first.shape),
        });
    }
    if let Some(ChainStep::Binary(_, index)) =
        steps.iter().find(|step| matches!(step, ChainStep::Binary(_, index) if *index >= inputs.len()))
    {
        return Err(TileError::BadPattern { pattern, detail: format!("step reads input {index} of {}", inputs.len()) });
    }
    let shape = [first.shape[0], first.shape[1]];
    let output = TensorId(inputs.len() as u32);
    let mut tensors = inputs.to_vec();
    tensors.push(GmTensor { name: "out".into(), shape: shape.to_vec(), dtype: output_dtype });
    let tiles = tiles_2d(shape, tile);
    let mut programs = Vec::new();
    for core in 0..cores.max(1) {
        let mine = &tiles[split_range(tiles.len(), cores, core)];
        if mine.is_empty() {
            continue;
        }
        let mut builder = ProgramBuilder::new();
        builder.at_line(line);
        let mut input_rings: Vec<SlotRing> = inputs
            .iter()
            .enumerate()
            .map(|(index, input)| {
                SlotRing::new(&mut builder, &format!("in{index}"), buffers, Memory::Ub, &tile, input.dtype)
            })
            .collect();
        let mut output_ring =
            (!steps.is_empty()).then(|| SlotRing::new(&mut builder, "out", buffers, Memory::Ub, &tile, output_dtype));
        for (offsets, valid) in mine {
            let valid = valid.to_vec();
            let mut input_slots = Vec::new();
            for (index, ring) in input_rings.iter_mut().enumerate() {
                let (slot, wait, set) = ring.fill();
                let source =
                    GmRegion { tensor: TensorId(index as u32), offsets: offsets.to_vec(), shape: valid.clone() };
                builder.push(TileOp::CopyIn { source, destination: ring.slots[slot] }, wait, set)?;
                input_slots.push(slot);
            }
            let destination = GmRegion { tensor: output, offsets: offsets.to_vec(), shape: valid.clone() };
            let Some(ring) = output_ring.as_mut() else {
                // A pure copy: MTE3 writes the input slot straight back out.
                let slot = input_slots[0];
                let source = input_rings[0].slots[slot];
                builder.push(
                    TileOp::CopyOut { source, destination },
                    vec![input_rings[0].ready(slot)],
                    vec![input_rings[0].free(slot)],
                )?;
                continue;
            };
            let (out_slot, out_wait, out_set) = ring.fill();
            let accumulator = ring.slots[out_slot];
            for (position, step) in steps.iter().enumerate() {
                let mut wait = Vec::new();
                let mut set = Vec::new();
                if position == 0 {
                    wait.extend(input_slots.iter().zip(&input_rings).map(|(slot, ring)| ring.ready(*slot)));
                    wait.extend(out_wait.iter().copied());
                }
                if position + 1 == steps.len() {
                    set.extend(input_slots.iter().zip(&input_rings).map(|(slot, ring)| ring.free(*slot)));
                    set.extend(out_set.iter().copied());
                }
                let current = if position == 0 { input_rings[0].slots[input_slots[0]] } else { accumulator };
                let op = match *step {
                    ChainStep::Unary(op) => {
                        TileOp::Unary { op, input: current, output: accumulator, valid_shape: valid.clone() }
                    }
                    ChainStep::Binary(op, index) => {
                        let rhs = input_rings[index].slots[input_slots[index]];
                        TileOp::Binary { op, lhs: current, rhs, output: accumulator, valid_shape: valid.clone() }
                    }
                };
                builder.push(op, wait, set)?;
            }
            builder.push(
                TileOp::CopyOut { source: accumulator, destination },
                vec![ring.ready(out_slot)],
                vec![ring.free(out_slot)],
            )?;
        }
        programs.push(builder.finish());
    }
    Ok(KernelPlan { name: pattern.into(), tensors, programs, cross_core_flags: 0 })
}

/// `out[r, 0] = op(x[r, :])` in `tile` tiles: each row block is reduced tile by tile and the
/// partial results combined in UB, then written once.
pub fn row_reduction(
    input: &GmTensor,
    op: ReduceOp,
    tile: [usize; 2],
    cores: usize,
    buffers: usize,
    line: Option<u32>,
) -> Result<KernelPlan, TileError> {
    let pattern = "row_reduction";
    check_tile(pattern, &input.shape, &tile)?;
    let shape = [input.shape[0], input.shape[1]];
    let combine = match op {
        ReduceOp::Sum => Some(BinaryOp::Add),
        ReduceOp::Amax => Some(BinaryOp::Maximum),
        ReduceOp::Amin => Some(BinaryOp::Minimum),
        ReduceOp::Mean | ReduceOp::Var => None,
    };
    if combine.is_none() && tile[1] < shape[1] {
        return Err(TileError::BadPattern { pattern, detail: "mean and var need the whole row in one tile".into() });
    }
    let tensors = vec![input.clone(), GmTensor { name: "out".into(), shape: vec![shape[0], 1], dtype: input.dtype }];
    let row_blocks: Vec<usize> = (0..shape[0]).step_by(tile[0]).collect();
    let mut programs = Vec::new();
    for core in 0..cores.max(1) {
        let mine = &row_blocks[split_range(row_blocks.len(), cores, core)];
        if mine.is_empty() {
            continue;
        }
        let mut builder = ProgramBuilder::new();
        builder.at_line(line);
        let mut input_ring = SlotRing::new(&mut builder, "x", buffers, Memory::Ub, &tile, input.dtype);
        let mut output_ring = SlotRing::new(&mut builder, "acc", buffers, Memory::Ub, &[tile[0], 1], input.dtype);
        let partial = builder.buffer("partial", Memory::Ub, &[tile[0], 1], input.dtype);
        for &row in mine {
            let rows = tile[0].min(shape[0] - row);
            let (out_slot, out_wait, out_set) = output_ring.fill();
            let accumulator = output_ring.slots[out_slot];
            let columns: Vec<usize> = (0..shape[1]).step_by(tile[1]).collect();
            for (position, &column) in columns.iter().enumerate() {
                let valid = vec![rows, tile[1].min(shape[1] - column)];
                let (slot, wait, set) = input_ring.fill();
                let source = GmRegion { tensor: TensorId(0), offsets: vec![row, column], shape: valid.clone() };
                builder.push(TileOp::CopyIn { source, destination: input_ring.slots[slot] }, wait, set)?;
                let mut wait = vec![input_ring.ready(slot)];
                if position == 0 {
                    wait.extend(out_wait.iter().copied());
                }
                let last = position + 1 == columns.len();
                let target = if position == 0 { accumulator } else { partial };
                let mut set = vec![input_ring.free(slot)];
                if last && position == 0 {
                    set.extend(out_set.iter().copied());
                }
                builder.push(
                    TileOp::Reduce { op, input: input_ring.slots[slot], output: target, valid_shape: valid },
                    wait,
                    set,
                )?;
                if let (Some(combine), true) = (combine, position > 0) {
                    let set = if last { out_set.clone() } else { Vec::new() };
                    builder.push(
                        TileOp::Binary {
                            op: combine,
                            lhs: accumulator,
                            rhs: partial,
                            output: accumulator,
                            valid_shape: vec![rows, 1],
                        },
                        Vec::new(),
                        set,
                    )?;
                }
            }
            let destination = GmRegion { tensor: TensorId(1), offsets: vec![row, 0], shape: vec![rows, 1] };
            builder.push(
                TileOp::CopyOut { source: accumulator, destination },
                vec![output_ring.ready(out_slot)],
                vec![output_ring.free(out_slot)],
            )?;
        }
        programs.push(builder.finish());
    }
    Ok(KernelPlan { name: pattern.into(), tensors, programs, cross_core_flags: 0 })
}

/// Cube tile shapes of a matmul, as pypto's `set_cube_tile_shapes([mL0, mL1], [kL0, kL1], [nL0, nL1])`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CubeTiles {
    /// `[mL0, mL1]`: rows per L0A tile, rows per L1 tile.
    pub m: [usize; 2],
    /// `[kL0, kL1]`: depth per L0 tile, depth per L1 load.
    pub k: [usize; 2],
    /// `[nL0, nL1]`: columns per L0B tile, columns per L1 tile.
    pub n: [usize; 2],
}

/// Buffering depths of a matmul (1 = none, 2 = double buffering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulBuffers {
    /// Slots per L1 operand.
    pub l1: usize,
    /// Slots per L0A / L0B operand.
    pub l0: usize,
    /// Slots of the L0C accumulator.
    pub l0c: usize,
}

/// `c = a · b` with `a: [M, K]`, `b: [K, N]`: each core owns a contiguous range of `mL1 × nL1`
/// output blocks and streams K through L1 (kL1 at a time) and L0 (kL0 at a time).
pub fn tiled_matmul(
    a: &GmTensor,
    b: &GmTensor,
    output_dtype: DType,
    tiles: CubeTiles,
    buffers: MatmulBuffers,
    cores: usize,
    line: Option<u32>,
) -> Result<KernelPlan, TileError> {
    let pattern = "tiled_matmul";
    check_tile(pattern, &a.shape, &[tiles.m[1], tiles.k[1]])?;
    check_tile(pattern, &b.shape, &[tiles.k[1], tiles.n[1]])?;
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    if b.shape[0] != k {
        return Err(TileError::BadPattern {
            pattern,
            detail: format!("inner dims differ: {:?} · {:?}", a.shape, b.shape),
        });
    }
    for (name, [level0, level1]) in [("m", tiles.m), ("k", tiles.k), ("n", tiles.n)] {
        if level0 == 0 || level1 == 0 || level1 % level0 != 0 {
            return Err(TileError::BadPattern {
                pattern,
                detail: format!("{name}L1 = {level1} must be a positive multiple of {name}L0 = {level0}"),
            });
        }
    }
    let tensors = vec![a.clone(), b.clone(), GmTensor { name: "c".into(), shape: vec![m, n], dtype: output_dtype }];
    let blocks = tiles_2d([m, n], [tiles.m[1], tiles.n[1]]);
    let mut programs = Vec::new();
    for core in 0..cores.max(1) {
        let mine = &blocks[split_range(blocks.len(), cores, core)];
        if !mine.is_empty() {
            programs.push(matmul_core(mine, k, a.dtype, b.dtype, tiles, buffers, line)?);
        }
    }
    Ok(KernelPlan { name: pattern.into(), tensors, programs, cross_core_flags: 0 })
}

fn matmul_core(
    blocks: &[([usize; 2], [usize; 2])],
    depth: usize,
    a_dtype: DType,
    b_dtype: DType,
    tiles: CubeTiles,
    buffers: MatmulBuffers,
    line: Option<u32>,
) -> Result<TileProgram, TileError> {
    let mut builder = ProgramBuilder::new();
    builder.at_line(line);
    let mut a_l1 = SlotRing::new(&mut builder, "a_l1", buffers.l1, Memory::L1, &[tiles.m[1], tiles.k[1]], a_dtype);
    let mut b_l1 = SlotRing::new(&mut builder, "b_l1", buffers.l1, Memory::L1, &[tiles.k[1], tiles.n[1]], b_dtype);
    let mut a_l0 = SlotRing::new(&mut builder, "a_l0", buffers.l0, Memory::L0A, &[tiles.m[0], tiles.k[0]], a_dtype);
    let mut b_l0 = SlotRing::new(&mut builder, "b_l0", buffers.l0, Memory::L0B, &[tiles.k[0], tiles.n[0]], b_dtype);
    let mut c_l0 =
        SlotRing::new(&mut builder, "c_l0c", buffers.l0c, Memory::L0C, &[tiles.m[1], tiles.n[1]], DType::F32);
    for &([row, column], [rows, columns]) in blocks {
        let (c_slot, c_wait, c_set) = c_l0.fill();
        let mut first_mmad = true;
        let k_blocks: Vec<usize> = (0..depth).step_by(tiles.k[1]).collect();
        for (k_index, &k1) in k_blocks.iter().enumerate() {
            let k_extent = tiles.k[1].min(depth - k1);
            let (a_slot, wait, set) = a_l1.fill();
            builder.push(
                TileOp::CopyIn {
                    source: GmRegion { tensor: TensorId(0), offsets: vec![row, k1], shape: vec![rows, k_extent] },
                    destination: a_l1.slots[a_slot],
                },
                wait,
                set,
            )?;
            let (b_slot, wait, set) = b_l1.fill();
            builder.push(
                TileOp::CopyIn {
                    source: GmRegion { tensor: TensorId(1), offsets: vec![k1, column], shape: vec![k_extent, columns] },
                    destination: b_l1.slots[b_slot],
                },
                wait,
                set,
            )?;
            let k_steps: Vec<usize> = (0..k_extent).step_by(tiles.k[0]).collect();
            let m_steps: Vec<usize> = (0..rows).step_by(tiles.m[0]).collect();
            let n_steps: Vec<usize> = (0..columns).step_by(tiles.n[0]).collect();
            for (k_position, &k0) in k_steps.iter().enumerate() {
                let kv = tiles.k[0].min(k_extent - k0);
                let last_k = k_position + 1 == k_steps.len();
                for (m_position, &m0) in m_steps.iter().enumerate() {
                    let mv = tiles.m[0].min(rows - m0);
                    let (a0, mut wait, set) = a_l0.fill();
                    let mut set = set;
                    if k_position == 0 && m_position == 0 {
                        wait.push(a_l1.ready(a_slot));
                    }
                    if last_k && m_position + 1 == m_steps.len() {
                        set.push(a_l1.free(a_slot));
                    }
                    builder.push(
                        TileOp::Move {
                            source: a_l1.slots[a_slot],
                            offsets: vec![m0, k0],
                            shape: vec![mv, kv],
                            destination: a_l0.slots[a0],
                        },
                        wait,
                        set,
                    )?;
                    for (n_position, &n0) in n_steps.iter().enumerate() {
                        let nv = tiles.n[0].min(columns - n0);
                        let (b0, mut wait, mut set) = b_l0.fill();
                        if k_position == 0 && m_position == 0 && n_position == 0 {
                            wait.push(b_l1.ready(b_slot));
                        }
                        if last_k && m_position + 1 == m_steps.len() && n_position + 1 == n_steps.len() {
                            set.push(b_l1.free(b_slot));
                        }
                        builder.push(
                            TileOp::Move {
                                source: b_l1.slots[b_slot],
                                offsets: vec![k0, n0],
                                shape: vec![kv, nv],
                                destination: b_l0.slots[b0],
                            },
                            wait,
                            set,
                        )?;
                        let mut wait = vec![b_l0.ready(b0)];
                        let mut set = vec![b_l0.free(b0)];
                        if n_position == 0 {
                            wait.push(a_l0.ready(a0));
                        }
                        if n_position + 1 == n_steps.len() {
                            set.push(a_l0.free(a0));
                        }
                        if first_mmad {
                            wait.extend(c_wait.iter().copied());
                        }
                        let last_mmad = k_index + 1 == k_blocks.len()
                            && last_k
                            && m_position + 1 == m_steps.len()
                            && n_position + 1 == n_steps.len();
                        if last_mmad {
                            set.extend(c_set.iter().copied());
                        }
                        let accumulate = !(k_index == 0 && k_position == 0);
                        let mmad = TileOp::Mmad {
                            a: a_l0.slots[a0],
                            b: b_l0.slots[b0],
                            c: c_l0.slots[c_slot],
                            c_offsets: [m0, n0],
                            m: mv,
                            k: kv,
                            n: nv,
                            accumulate,
                        };
                        builder.push(mmad, wait, set)?;
                        first_mmad = false;
                    }
                }
            }
        }
        let destination = GmRegion { tensor: TensorId(2), offsets: vec![row, column], shape: vec![rows, columns] };
        builder.push(
            TileOp::CopyOut { source: c_l0.slots[c_slot], destination },
            vec![c_l0.ready(c_slot)],
            vec![c_l0.free(c_slot)],
        )?;
    }
    Ok(builder.finish())
}
