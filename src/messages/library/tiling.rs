//! Messages of the tiling settings a kernel gives pypto: cube tile shapes against the chip's fractal
//! (`set_cube_tile_shapes`, a transposed A), n-buffer depths (`vec_nbuffer_setting`) and the
//! keywords pypto's loops ignore.

use serde::Serialize;

/// A tiling setting's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryTilingMessage {
    /// A cube tile pair that breaks the fractal rules.
    #[serde(rename = "library.cube_tiles")]
    CubeTiles {
        /// `m`, `k` or `n`.
        label: String,
        /// The pair given.
        pair: Vec<usize>,
        /// The side of the chip's cube fractal (16 on Ascend's 16×16 fractals).
        fractal: usize,
    },
    /// A keyword pypto's loops ignore (they take `**kwargs`).
    #[serde(rename = "library.ignored_keyword")]
    IgnoredKeyword {
        /// The function.
        function: String,
        /// The keyword.
        keyword: String,
        /// The keywords it reads, comma-separated.
        known: String,
    },
    /// An m tile pair that is not `[mL0, mL1]` with mL1 a multiple of mL0.
    #[serde(rename = "library.cube_m_tiles")]
    CubeMTiles {
        /// The pair given.
        pair: Vec<usize>,
    },
    /// A transposed A with an mL0 that does not fill fractals.
    #[serde(rename = "library.transposed_m_tile")]
    TransposedMTile {
        /// The kernel's mL0.
        m0: usize,
        /// The side of the chip's cube fractal.
        fractal: usize,
    },
    /// Help of [`LibraryTilingMessage::CubeTiles`].
    #[serde(rename = "library.help.cube_fractals")]
    CubeFractals {
        /// The side of the chip's cube fractal.
        fractal: usize,
    },
    /// An options value that is not a buffer depth.
    #[serde(rename = "library.buffer_depth")]
    BufferDepth {
        /// `pass_options`.
        table: String,
        /// The key.
        key: String,
        /// The value, as written.
        got: String,
    },
    /// Help of [`LibraryTilingMessage::BufferDepth`].
    #[serde(rename = "library.help.buffer_depth")]
    BufferDepthForm,
}

impl LibraryTilingMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryTilingMessage::*;
        match self {
            CubeTiles { label, pair, fractal } => format!("set_cube_tile_shapes: {label} tiles {pair:?} must be [{label}L0, {label}L1] with {label}L0 a multiple of {fractal} and {label}L1 a multiple of {label}L0"),
            IgnoredKeyword { function, keyword, known } => {
                format!("{function} ignores the keyword '{keyword}', as pypto does: it reads {known}")
            }
            CubeMTiles { pair } => format!(
                "set_cube_tile_shapes: m tiles {pair:?} must be [mL0, mL1] with mL0 > 0 and mL1 a multiple of mL0"
            ),
            TransposedMTile { m0, fractal } => format!(
                "pypto.matmul: with a_trans=True A is stored [K, M], so mL0 = {m0} must be a multiple of {fractal}"
            ),
            CubeFractals { fractal } => format!("the cube unit works on {fractal}×{fractal} fractals; e.g. [{fractal}, {fractal}] or a larger multiple"),
            BufferDepth { table, key, got } => format!("{table} '{key}': {got} is not a buffer depth"),
            BufferDepthForm => {
                "give a positive int, or pypto's {'DEFAULT': depth} form (or the older {-1: default_depth, op_index: depth})"
                    .into()
            }
        }
    }
}
