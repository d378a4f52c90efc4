//! One matmul of a unit on the cube: `[mL1, nL1]` output blocks; per block the K extent streams
//! through L1 `kL1` at a time (MTE2), each L1 tile is cut into `[mL0, kL0]` / `[kL0, nL0]` pieces
//! for L0A/L0B (MTE1, transposing when the operand is stored transposed), the cube accumulates K
//! in L0C, and FIXPIPE moves the result to GM (stores, or the split chip's workspace) or to UB.

use crate::tensor::DType;

use super::super::builder::TileError;
use super::super::program::{BufferId, Flag, GmRegion, Memory, TileOp};
use super::super::work::CubeTiles;
use super::emitter::Resource;
use super::state::{CoreState, Handoff};

/// Where the matmul result goes besides the stores.
pub(super) enum MatmulResult {
    /// Only to GM stores.
    Stores,
    /// Also into a UB tile (coupled chip: L0C → UB), which needs the whole result in L0C at once.
    Ub(BufferId),
    /// Also into a GM workspace for a vector core (split chip).
    Workspace(Handoff),
}

/// A store of the matmul result: region, accumulate, line, and the cross-core flags it sets once
/// the whole region is written (a stage workspace's readers wait for them).
pub(super) type ResultStore = (GmRegion, bool, Option<u32>, Vec<Flag>);

/// A matmul of two loaded tiles as the lowering sees it.
pub(super) struct MatmulJob<'r> {
    /// The GM region `a` was loaded from (`[M, K]`, or `[K, M]` when transposed), its tile dtype,
    /// whether it is transposed, and the line of its load (the L1 copies carry it).
    pub a: (&'r GmRegion, DType, bool, Option<u32>),
    /// The same for `b` (`[K, N]`, or `[N, K]` when transposed).
    pub b: (&'r GmRegion, DType, bool, Option<u32>),
    /// Cross-core flags the first L1 copy of `a` / `b` waits for (a staged operand on a split chip,
    /// a stage workspace).
    pub operand_waits: [Vec<Flag>; 2],
    /// The full output tile shape.
    pub output_shape: [usize; 2],
    /// Where the result goes.
    pub stores: Vec<ResultStore>,
    /// The extra destination.
    pub result: MatmulResult,
    /// The matmul's source line.
    pub line: Option<u32>,
}

/// The valid `[M, K, N]` of a matmul from its operand regions. Elements outside a region read as
/// zero, so a K that is ragged in one operand only contributes over the shorter extent.
pub(super) fn extents(a: &GmRegion, a_transposed: bool, b: &GmRegion, b_transposed: bool) -> [usize; 3] {
    extents_of(&a.shape, a_transposed, &b.shape, b_transposed)
}

/// [`extents`] from the operands' valid shapes.
pub(super) fn extents_of(a: &[usize], a_transposed: bool, b: &[usize], b_transposed: bool) -> [usize; 3] {
    let (m, k_a) = if a_transposed { (a[1], a[0]) } else { (a[0], a[1]) };
    let (k_b, n) = if b_transposed { (b[1], b[0]) } else { (b[0], b[1]) };
    [m, k_a.min(k_b), n]
}

fn pad16(value: usize) -> usize {
    value.div_ceil(16).max(1) * 16
}

/// Cube tiles for a kernel that set none, for operands of `element_bytes`: L0 pieces of at most
/// 128 × 64 × 128 in 2-byte operands (16 KiB, a quarter of 910B's L0A/L0B each, so double
/// buffering fits with room to spare; a 128 × 128 f32 accumulator is half of L0C), K halved for
/// 4-byte operands to keep the same bytes, and four K pieces per L1 load.
pub(in crate::tile) fn default_tiles([m, k, n]: [usize; 3], element_bytes: usize) -> CubeTiles {
    let k_limit = (128 / element_bytes.max(1)).clamp(16, 64);
    let (m0, k0, n0) = (pad16(m).min(128), pad16(k).min(k_limit), pad16(n).min(128));
    let k1 = (k0 * 4).min(k.div_ceil(k0).max(1) * k0);
    CubeTiles { m: [m0, m0], k: [k0, k1], n: [n0, n0] }
}

fn offset(region: &GmRegion, delta: [usize; 2]) -> Vec<usize> {
    vec![region.offsets[0] + delta[0], region.offsets[1] + delta[1]]
}

/// Emits the matmul into `core`.
pub(super) fn lower_matmul(core: &mut CoreState<'_>, job: MatmulJob<'_>, tiles: CubeTiles) -> Result<(), TileError> {
    let [mut a_wait, mut b_wait] = job.operand_waits;
    let (a, a_dtype, a_transposed, a_line) = job.a;
    let (b, b_dtype, b_transposed, b_line) = job.b;
    let [m, k, n] = extents(a, a_transposed, b, b_transposed);
    if m == 0 || k == 0 || n == 0 {
        return Err(TileError::InvalidOp {
            op: "matmul",
            detail: crate::messages::LoweringReason::EmptyMatmul { m, k, n },
            source_line: job.line,
        });
    }
    let buffer_line = core.settings().cube_tile_line.or(job.line);
    // A buffer holds min(tile, matrix): a K of 8 streams through an 8-deep L1 tile (padded to the
    // 16-element fractal), not through the kL1 the kernel set for its larger matmuls. M and N are
    // taken from the output tile's full shape, which a ragged last task shares with the others, so
    // all tasks of a core use the same buffers.
    let clamp = |[level0, level1]: [usize; 2], extent: usize| {
        let level1 = level1.min(pad16(extent));
        [level0.min(level1), level1]
    };
    let [m0, m1] = clamp(tiles.m, job.output_shape[0].max(m));
    let [k0, k1] = clamp(tiles.k, k);
    let [n0, n1] = clamp(tiles.n, job.output_shape[1].max(n));
    let whole = match job.result {
        MatmulResult::Ub(_) => Some(core.ring_buffer(
            "c_l0c_tile",
            Memory::L0C,
            &[pad16(job.output_shape[0]), pad16(job.output_shape[1])],
            DType::F32,
            1,
            buffer_line,
        )),
        _ => None,
    };
    let blocks: Vec<(usize, usize)> =
        (0..m).step_by(m1).flat_map(|row| (0..n).step_by(n1).map(move |column| (row, column))).collect();
    for (block_index, &(row, column)) in blocks.iter().enumerate() {
        let (rows, columns) = (m1.min(m - row), n1.min(n - column));
        let (c, base) = match whole {
            Some(tile) => (tile, [row, column]),
            None => (core.ring_buffer("c_l0c", Memory::L0C, &[pad16(m1), n1], DType::F32, 1, buffer_line), [0, 0]),
        };
        core.emitter.at_line(job.line);
        for k_start in (0..k).step_by(k1) {
            let depth = k1.min(k - k_start);
            let (a_shape, a_from) = if a_transposed { ([k1, m1], [k_start, row]) } else { ([m1, k1], [row, k_start]) };
            let a_valid = if a_transposed { vec![depth, rows] } else { vec![rows, depth] };
            let source = GmRegion { tensor: a.tensor, offsets: offset(a, a_from).into(), shape: a_valid.into() };
            core.emitter.at_line(a_line);
            let a_l1 = l1_operand(core, "a_l1", (&a_shape, a_dtype, buffer_line), source, &mut a_wait)?;
            let (b_shape, b_from) =
                if b_transposed { ([n1, k1], [column, k_start]) } else { ([k1, n1], [k_start, column]) };
            let b_valid = if b_transposed { vec![columns, depth] } else { vec![depth, columns] };
            let source = GmRegion { tensor: b.tensor, offsets: offset(b, b_from).into(), shape: b_valid.into() };
            core.emitter.at_line(b_line);
            let b_l1 = l1_operand(core, "b_l1", (&b_shape, b_dtype, buffer_line), source, &mut b_wait)?;
            core.emitter.at_line(job.line);
            for k_piece in (0..depth).step_by(k0) {
                let kv = k0.min(depth - k_piece);
                for m_piece in (0..rows).step_by(m0) {
                    let mv = m0.min(rows - m_piece);
                    // M rows fill whole fractals in L0A (an mL0 of 1 still takes 16 rows).
                    let a_copies = l0_copies(core.l0_bytes[0], pad16(m0) * k0 * a_dtype.size_in_bytes());
                    let a_l0 = core.ring_buffer("a_l0", Memory::L0A, &[pad16(m0), k0], a_dtype, a_copies, buffer_line);
                    let move_a = if a_transposed {
                        TileOp::MoveTransposed {
                            source: a_l1,
                            offsets: [k_piece, m_piece].into(),
                            shape: [kv, mv].into(),
                            destination: a_l0,
                        }
                    } else {
                        TileOp::Move {
                            source: a_l1,
                            offsets: [m_piece, k_piece].into(),
                            shape: [mv, kv].into(),
                            destination: a_l0,
                        }
                    };
                    core.emitter.emit(move_a, &[Resource::Buffer(a_l1)], &[Resource::Buffer(a_l0)], vec![], vec![])?;
                    for n_piece in (0..columns).step_by(n0) {
                        let nv = n0.min(columns - n_piece);
                        let b_copies = l0_copies(core.l0_bytes[1], k0 * n0 * b_dtype.size_in_bytes());
                        let b_l0 = core.ring_buffer("b_l0", Memory::L0B, &[k0, n0], b_dtype, b_copies, buffer_line);
                        let move_b = if b_transposed {
                            TileOp::MoveTransposed {
                                source: b_l1,
                                offsets: [n_piece, k_piece].into(),
                                shape: [nv, kv].into(),
                                destination: b_l0,
                            }
                        } else {
                            TileOp::Move {
                                source: b_l1,
                                offsets: [k_piece, n_piece].into(),
                                shape: [kv, nv].into(),
                                destination: b_l0,
                            }
                        };
                        core.emitter.emit(
                            move_b,
                            &[Resource::Buffer(b_l1)],
                            &[Resource::Buffer(b_l0)],
                            vec![],
                            vec![],
                        )?;
                        // The first K piece of a block overwrites L0C, the rest accumulate onto it.
                        let accumulate = k_start > 0 || k_piece > 0;
                        let mmad = TileOp::Mmad {
                            a: a_l0,
                            b: b_l0,
                            c,
                            c_offsets: [base[0] + m_piece, base[1] + n_piece],
                            m: mv,
                            k: kv,
                            n: nv,
                            accumulate,
                        };
                        let reads = [Resource::Buffer(a_l0), Resource::Buffer(b_l0), Resource::Buffer(c)];
                        core.emitter.emit(
                            mmad,
                            &reads[..if accumulate { 3 } else { 2 }],
                            &[Resource::Buffer(c)],
                            vec![],
                            vec![],
                        )?;
                    }
                }
            }
        }
        if whole.is_none() {
            let last = block_index + 1 == blocks.len();
            for (region, accumulate, line, sets) in &job.stores {
                let sets = if last { sets.clone() } else { Vec::new() };
                store_part(core, c, region, (*accumulate, *line, sets), [row, column], [rows, columns])?;
            }
            if let MatmulResult::Workspace(handoff) = &job.result {
                core.emitter.at_line(job.line);
                let destination = GmRegion {
                    tensor: handoff.region.tensor,
                    offsets: offset(&handoff.region, [row, column]).into(),
                    shape: [rows, columns].into(),
                };
                let cross_set =
                    if block_index + 1 == blocks.len() { handoff.flag.into_iter().collect() } else { Vec::new() };
                core.emitter.emit(
                    TileOp::CopyOut { source: c, destination },
                    &[Resource::Buffer(c)],
                    &[Resource::Tensor(handoff.region.tensor)],
                    vec![],
                    cross_set,
                )?;
            }
        }
    }
    if let Some(c) = whole {
        for (region, accumulate, line, sets) in &job.stores {
            store_part(core, c, region, (*accumulate, *line, sets.clone()), [0, 0], [m, n])?;
        }
        if let MatmulResult::Ub(tile) = job.result {
            core.emitter.at_line(job.line);
            let moved = TileOp::Move { source: c, offsets: [0, 0].into(), shape: [m, n].into(), destination: tile };
            core.emitter.emit(moved, &[Resource::Buffer(c)], &[Resource::Buffer(tile)], vec![], vec![])?;
        }
    }
    Ok(())
}

/// FIXPIPE copies the part of the block at `at` (extent `extent`, at the origin of `c` unless `c`
/// holds the whole result) that falls inside the store region; `how` is (accumulate, line, the
/// cross-core flags to set).
/// The L1 slot holding an operand's `source` region: the slot that already holds it when the
/// operand is resident (a read-only region loaded last into this ring, nothing to wait for), else
/// the ring's next slot, filled by a copy that takes the operand's waits.
fn l1_operand(
    core: &mut CoreState<'_>,
    role: &'static str,
    (shape, dtype, line): (&[usize], DType, Option<u32>),
    source: GmRegion,
    waits: &mut Vec<Flag>,
) -> Result<BufferId, TileError> {
    if waits.is_empty() {
        if let Some(resident) = core.resident_l1(role, shape, dtype, &source) {
            return Ok(resident);
        }
    }
    let buffer = core.ring_buffer(role, Memory::L1, shape, dtype, core.settings().cube_buffers, line);
    core.loaded_l1(buffer, &source);
    let tensor = source.tensor;
    let copy = TileOp::CopyIn { source, destination: buffer };
    core.emitter.emit(copy, &[Resource::Tensor(tensor)], &[Resource::Buffer(buffer)], std::mem::take(waits), vec![])?;
    Ok(buffer)
}

fn store_part(
    core: &mut CoreState<'_>,
    c: BufferId,
    region: &GmRegion,
    (accumulate, line, sets): (bool, Option<u32>, Vec<Flag>),
    at: [usize; 2],
    extent: [usize; 2],
) -> Result<(), TileError> {
    let rows = (at[0] + extent[0]).min(region.shape[0]).saturating_sub(at[0]);
    let columns = (at[1] + extent[1]).min(region.shape[1]).saturating_sub(at[1]);
    if rows == 0 || columns == 0 {
        // Nothing of the region here; a flag still has to be set, after the writes before it.
        if !sets.is_empty() {
            return Err(TileError::InvalidOp {
                op: "matmul",
                detail: crate::messages::LoweringReason::WorkspaceOutside,
                source_line: line,
            });
        }
        return Ok(());
    }
    core.emitter.at_line(line);
    let destination =
        GmRegion { tensor: region.tensor, offsets: offset(region, at).into(), shape: [rows, columns].into() };
    let tensor = Resource::Tensor(region.tensor);
    let op = if accumulate {
        TileOp::CopyOutAccumulate { source: c, destination, order: core.unit as u32 }
    } else {
        TileOp::CopyOut { source: c, destination }
    };
    core.emitter.emit(op, &[Resource::Buffer(c)], &[tensor], vec![], sets)?;
    Ok(())
}

/// Copies of an L0A/L0B operand tile of `bytes`: two (the next K piece moves in while the cube
/// reads this one) when two fit in `capacity`, else one, as pypto's compiler single-buffers an L0
/// tile that fills its buffer (an FP32 `[128, 128]` tile is all of 910B's 64 KiB L0B). A tile
/// larger than the buffer is the capacity check's to report.
fn l0_copies(capacity: u64, bytes: usize) -> usize {
    if 2 * bytes as u64 <= capacity {
        2
    } else {
        1
    }
}
