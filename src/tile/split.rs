//! A matmul feeding element-wise work on a split chip (910B): cube cores compute `c = a·b` block by
//! block and write each block to GM, setting one cross-core flag per block; vector cores wait for a
//! block's flag, stream it through UB in row chunks, apply unary ops and write `d`.

use crate::tensor::{DType, UnaryOp};

use super::builder::{ProgramBuilder, SlotRing, TileError};
use super::patterns::{split_range, tiled_matmul, CubeTiles, MatmulBuffers};
use super::program::{Flag, GmRegion, GmTensor, KernelPlan, Memory, TensorId, TileOp};

/// The shape of the vector side of [`matmul_then_unary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorStage {
    /// Vector cores used.
    pub cores: usize,
    /// Rows of `c` per UB chunk (the columns are the block's nL1).
    pub chunk_rows: usize,
    /// UB buffering depth (1 = none, 2 = ping-pong).
    pub buffers: usize,
}

/// The shape of the cube side of [`matmul_then_unary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeStage {
    /// Cube tile shapes.
    pub tiles: CubeTiles,
    /// Buffering depths.
    pub buffers: MatmulBuffers,
    /// Cube cores used.
    pub cores: usize,
}

/// `d = ops(a · b)`: the cube programs of [`tiled_matmul`] (the first programs) hand each
/// `mL1 × nL1` block of `c` (f32, in GM) to the vector programs that follow them.
pub fn matmul_then_unary(
    a: &GmTensor,
    b: &GmTensor,
    ops: &[UnaryOp],
    output_dtype: DType,
    cube: CubeStage,
    vector: VectorStage,
    line: Option<u32>,
) -> Result<KernelPlan, TileError> {
    let tiles = cube.tiles;
    let pattern = "matmul_then_unary";
    if vector.chunk_rows == 0 {
        return Err(TileError::BadPattern { pattern, detail: "chunk_rows must be at least 1".into() });
    }
    let mut plan = tiled_matmul(a, b, DType::F32, tiles, cube.buffers, cube.cores, line)?;
    let (m, n) = (a.shape[0], b.shape[1]);
    let mut blocks = Vec::new();
    for row in (0..m).step_by(tiles.m[1]) {
        for column in (0..n).step_by(tiles.n[1]) {
            blocks.push(([row, column], [tiles.m[1].min(m - row), tiles.n[1].min(n - column)]));
        }
    }
    // The cube programs write their blocks in order, one FIXPIPE copy-out each.
    let mut block_index = 0u32;
    for program in &mut plan.programs {
        for instruction in
            program.instructions.iter_mut().filter(|instruction| matches!(instruction.op, TileOp::CopyOut { .. }))
        {
            instruction.cross_set.push(Flag(block_index));
            block_index += 1;
        }
    }
    plan.cross_core_flags = blocks.len() as u32;
    plan.name = pattern.into();
    plan.tensors.push(GmTensor { name: "d".into(), shape: vec![m, n], dtype: output_dtype });
    let (c_tensor, d_tensor) = (TensorId(2), TensorId(3));
    for core in 0..vector.cores.max(1) {
        let mine = split_range(blocks.len(), vector.cores, core);
        if mine.is_empty() {
            continue;
        }
        let mut builder = ProgramBuilder::new();
        builder.at_line(line);
        let chunk = [vector.chunk_rows, tiles.n[1]];
        let mut input_ring = SlotRing::new(&mut builder, "c_ub", vector.buffers, Memory::Ub, &chunk, DType::F32);
        let mut output_ring = SlotRing::new(&mut builder, "d_ub", vector.buffers, Memory::Ub, &chunk, output_dtype);
        for block in mine {
            let ([row, column], [rows, columns]) = blocks[block];
            for (position, chunk_row) in (0..rows).step_by(vector.chunk_rows).enumerate() {
                let valid = vec![vector.chunk_rows.min(rows - chunk_row), columns];
                let offsets = vec![row + chunk_row, column];
                let (slot, wait, set) = input_ring.fill();
                let cross_wait = if position == 0 { vec![Flag(block as u32)] } else { Vec::new() };
                let source = GmRegion { tensor: c_tensor, offsets: offsets.clone(), shape: valid.clone() };
                builder.push_cross(
                    TileOp::CopyIn { source, destination: input_ring.slots[slot] },
                    wait,
                    set,
                    cross_wait,
                    Vec::new(),
                )?;
                let (out_slot, out_wait, out_set) = output_ring.fill();
                let steps = ops.len().max(1);
                for step in 0..steps {
                    let mut wait = Vec::new();
                    let mut set = Vec::new();
                    if step == 0 {
                        wait.push(input_ring.ready(slot));
                        wait.extend(out_wait.iter().copied());
                    }
                    if step + 1 == steps {
                        set.push(input_ring.free(slot));
                        set.extend(out_set.iter().copied());
                    }
                    let input = if step == 0 { input_ring.slots[slot] } else { output_ring.slots[out_slot] };
                    let output = output_ring.slots[out_slot];
                    let op = match ops.get(step) {
                        Some(op) => TileOp::Unary { op: *op, input, output, valid_shape: valid.clone() },
                        None => TileOp::Cast { input, output, valid_shape: valid.clone() },
                    };
                    builder.push(op, wait, set)?;
                }
                let destination = GmRegion { tensor: d_tensor, offsets, shape: valid };
                builder.push(
                    TileOp::CopyOut { source: output_ring.slots[out_slot], destination },
                    vec![output_ring.ready(out_slot)],
                    vec![output_ring.free(out_slot)],
                )?;
            }
        }
        plan.programs.push(builder.finish());
    }
    Ok(plan)
}
