//! Messages of pypto's paged-cache gathers (`pypto.experimental.gather_in_ub`, `gather_in_l1`):
//! the operands' shapes, the `size` of a row, and an index whose block or row is not in the cache.

use serde::Serialize;

/// A paged gather's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum LibraryGatherMessage {
    /// Operands that are not a 2-D cache, a `[1, k]` index row and a `[1, blocks]` block table.
    #[serde(rename = "library.paged_gather_shapes")]
    Shapes {
        /// The function.
        function: String,
        /// The cache's shape.
        cache: Vec<usize>,
        /// The indices' shape.
        indices: Vec<usize>,
        /// The block table's shape.
        block_table: Vec<usize>,
    },
    /// Help of [`LibraryGatherMessage::Shapes`].
    #[serde(rename = "library.help.paged_gather_form")]
    Form,
    /// An index whose logical block is not an entry of the block table.
    #[serde(rename = "library.paged_gather_block")]
    Block {
        /// The function.
        function: String,
        /// The index (a token position).
        index: i64,
        /// Its logical block (`index // block_size`).
        block: i64,
        /// The block table's entries.
        blocks: usize,
    },
    /// An index whose physical row (`block_table[block] * block_size + index % block_size`) is
    /// outside the cache.
    #[serde(rename = "library.paged_gather_row")]
    Row {
        /// The function.
        function: String,
        /// The index.
        index: i64,
        /// The row it maps to.
        row: i64,
        /// The cache's rows.
        rows: usize,
    },
    /// A `size` that is not between 1 and the cache's columns.
    #[serde(rename = "library.paged_gather_size")]
    Size {
        /// The function.
        function: String,
        /// The size given.
        size: i64,
        /// The cache's columns.
        columns: usize,
    },
}

impl LibraryGatherMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use LibraryGatherMessage::*;
        match self {
            Shapes { function, cache, indices, block_table } => format!(
                "{function}: the cache {cache:?}, indices {indices:?} and block_table {block_table:?} are not [tokens, hidden], [1, k] and [1, blocks]"
            ),
            Form => "the cache is 2-D [tokens, hidden], indices [1, k] and block_table [1, blocks]; the result is [k, hidden]".into(),
            Block { function, index, block, blocks } => format!(
                "{function}: index {index} is in logical block {block}, but block_table has {blocks} entries"
            ),
            Row { function, index, row, rows } => {
                format!("{function}: index {index} maps to row {row}, but the cache has {rows} rows")
            }
            Size { function, size, columns } => {
                format!("{function}: size {size} must be between 1 and the cache's {columns} columns")
            }
        }
    }
}
