//! Vector op cost classes. Simple ops (add, mul, max, compare, cast, copy …) stream their bytes at
//! the vector rate, so an fp16 tile runs twice as many elements per cycle as an fp32 one. The
//! transcendental and divide class (exp, log, sqrt, trigonometric, the activations built on exp,
//! divide, pow) runs at the fp32 *element* rate whatever the dtype: an fp16 exp costs what an fp32
//! exp costs, twice an fp16 add. Source: pypto's fitted A2A3 cost table
//! (`framework/src/cost_model/simulation/arch/A2A3/PostSimulatorA2A3.h` with `GetParrelRatio` in
//! `PipeSimulatorFast.cpp`): DIV, EXP, LN and SQRT are the ops whose per-byte time is halved for
//! fp32 (the same time per element at both widths), every other op has one per-byte time for both;
//! at fp32 their per-element time is within 17 % of MUL's, so no further factor is applied.
//!
//! Sigmoid and SiLU are no single instruction: they run as pypto builds them
//! (`framework/src/operator/activation/sigmoid.cpp`: cast to fp32, muls −1, exp, adds 1, a tile of
//! ones, div, cast back; the SwiGLU of `framework/src/operator/models/llama/llama_def.cpp`: muls −1,
//! exp, adds 1, div of x), one vector pass each at the fp32 width.

use crate::tensor::{BinaryOp, UnaryOp};
use crate::tile::TileOp;

/// Bytes per element a transcendental or divide op is charged at: the fp32 element width.
const TRANSCENDENTAL_ELEMENT_BYTES: u64 = 4;

/// Whether a unary op is in the transcendental class (reciprocal and rsqrt are single fast
/// instructions in the same table and stay simple).
fn transcendental_unary(op: UnaryOp) -> bool {
    use UnaryOp::*;
    // expm1 and log1p are charged as exp and log, log2 and log10 as log, sinh, cosh, atan, asinh,
    // tan, acosh and atanh as tanh, cbrt as log (it is exp(log|x| / 3) on such hardware): their nearest ops in the class (pypto's cost table has no entry
    // of their own).
    matches!(
        op,
        Exp | Exp2
            | Log
            | Sqrt
            | Sin
            | Cos
            | Tanh
            | Sigmoid
            | Silu
            | GeluErf
            | GeluTanh
            | Erf
            | Erfc
            | Expm1
            | Log1p
            | Sinh
            | Cosh
            | Atan
            | Asinh
            | Log2
            | Log10
            | Tan
            | Acosh
            | Atanh
            | Cbrt
    )
}

/// Whether a binary op is in the divide class.
fn divide_binary(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Div | BinaryOp::Pow | BinaryOp::FloorDivide | BinaryOp::Remainder)
}

/// The vector passes `op` takes at the charged width: 1 for an op the vector unit has, the
/// instructions of its decomposition for sigmoid and SiLU (the two casts only when the tile is
/// narrower than fp32).
pub fn vector_passes(op: &TileOp, widest: u64) -> u64 {
    let casts = if widest < TRANSCENDENTAL_ELEMENT_BYTES { 2 } else { 0 };
    match op {
        // muls −1, exp, adds 1, ones, div
        TileOp::Unary { op: UnaryOp::Sigmoid, .. } => 5 + casts,
        // muls −1, exp, adds 1, div
        TileOp::Unary { op: UnaryOp::Silu, .. } => 4 + casts,
        _ => 1,
    }
}

/// The bytes per element `op` is charged at on the vector unit, given the widest dtype size of
/// its operands: that size for a simple op, at least the fp32 width for the transcendental class.
pub fn charged_element_bytes(op: &TileOp, widest: u64) -> u64 {
    let transcendental = match op {
        TileOp::Unary { op, .. } => transcendental_unary(*op),
        TileOp::Binary { op, .. } | TileOp::BroadcastBinary { op, .. } | TileOp::ScalarBinary { op, .. } => {
            divide_binary(*op)
        }
        _ => false,
    };
    if transcendental {
        widest.max(TRANSCENDENTAL_ELEMENT_BYTES)
    } else {
        widest
    }
}
