//! `pypto.set_vec_tile_shapes` inside a kernel, and the alignment rule for the tiles it sets. A vec
//! tile's last dim should fill whole UB granules (32 B on every preset) in the dtype of the tensors
//! it tiles — the tensors of the ops that run while it is in force, of the tile's rank — so the
//! check runs once the kernel body has run and those ops are known. A tile that does not is what
//! pypto's compiler pads: every tile row takes whole granules in UB (the loads pad the last dim),
//! so the kernel runs, with a warning naming the aligned sizes that waste no UB or vector lanes. A
//! last dim of 1 (a column) is padded by the chip and never warned about. Outside a kernel (no
//! dtype known yet) a misaligned tile is an error, as it always was.

use super::capture::TensorRef;
use crate::lang::interp::error::{ErrorKind, Result, RuntimeError, SourceSpan};
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::syntax::Span;
use crate::messages::Message;
use crate::tensor::DType;

/// One `set_vec_tile_shapes` call of a running kernel.
#[derive(Clone, Debug)]
pub(crate) struct VecTileSetting {
    /// How many ops the kernel had recorded when it was set (it applies from there on).
    pub from_op: usize,
    /// The tile dims.
    pub dims: Vec<usize>,
    /// The last dim's argument (where an alignment error points).
    pub site: SourceSpan,
}

impl Interpreter {
    /// Sets the vec tile of the running kernel (`span`: the last dim's argument). Outside a kernel
    /// the tile is checked at once against f32, the default dtype.
    pub(crate) fn set_vec_tiles(&self, dims: Vec<usize>, span: Span) -> Result<()> {
        let site = self.at(span);
        let mut frames = self.npu.kernel_frames.borrow_mut();
        let Some(frame) = frames.last_mut() else {
            drop(frames);
            let granule = self.npu_config(span)?.ub_alignment as usize;
            return match misalignment(&dims, DType::F32, granule) {
                Some((message, help)) => {
                    Err(RuntimeError::new(ErrorKind::TileShape, "", site).with_message(message).with_help_message(help))
                }
                None => Ok(()),
            };
        };
        frame.vec_tile_history.push(VecTileSetting { from_op: frame.ops.len(), dims: dims.clone(), site });
        frame.vec_tile_shapes = Some(dims);
        Ok(())
    }
}

/// Warns, once per call, about each vec tile of a finished kernel body whose last dim does not fill
/// whole granules of a tensor it tiled (the tiles' rows are padded in UB).
pub(crate) fn check_vec_tiles(interpreter: &Interpreter, frame: &KernelFrame, span: Span) -> Result<()> {
    let granule = interpreter.npu_config(span)?.ub_alignment as usize;
    for (index, setting) in frame.vec_tile_history.iter().enumerate() {
        let until = frame.vec_tile_history.get(index + 1).map_or(frame.ops.len(), |next| next.from_op);
        let tiled = frame.ops[setting.from_op..until]
            .iter()
            .flat_map(|op| op.op.tensors().into_iter().chain(op.result.as_ref()).collect::<Vec<&TensorRef>>());
        // Comparison masks are packed by the chip (bits, not a byte row per tile row): they take
        // the alignment of the values compared.
        let tiled = tiled.filter(|tensor| tensor.dtype() != DType::Bool);
        for tensor in tiled.filter(|tensor| tensor.shape().len() == setting.dims.len()) {
            if let Some((message, Message::AlignedSizes { align, nearest })) =
                misalignment(&setting.dims, tensor.dtype(), granule)
            {
                let help = Message::PaddedTileRows { align, nearest };
                let site = setting.site;
                interpreter.warn_message_in(site.cell, "npu/vec-tile-padded", message, site.span, Some(help));
                break;
            }
        }
    }
    Ok(())
}

/// The message and help when `dims`' last dim does not fill whole granules of `dtype`.
fn misalignment(dims: &[usize], dtype: DType, granule: usize) -> Option<(Message, Message)> {
    let &last = dims.last()?;
    let bytes = dtype.size_in_bytes();
    let align = (granule / bytes).max(1);
    if last == 1 || last % align == 0 {
        return None;
    }
    let lower = last / align * align;
    let nearest = if lower == 0 { vec![lower + align] } else { vec![lower, lower + align] };
    let dtype = dtype.pypto_name().to_string();
    Some((
        Message::VecTileMisaligned { last, granule, dtype, element_bytes: bytes, bytes: last * bytes },
        Message::AlignedSizes { align, nearest },
    ))
}
