//! pypto's paged-cache gathers, `pypto.experimental.gather_in_ub` and `gather_in_l1`: the rows
//! of a KV cache stored in blocks of `block_size` tokens that a `[1, k]` row of token indices
//! selects, through a `[1, blocks]` block table. Index `i` is token `i % block_size` of logical
//! block `i // block_size`, stored at row `block_table[i // block_size] * block_size + i %
//! block_size` of the cache. The result is `[k, hidden]` (`gather_in_ub`) or the first `size`
//! columns, `[k, size]` (`gather_in_l1`); its valid shape is the indices' valid length by the
//! cache's valid columns, as in pypto. `is_b_matrix` and `is_trans` of `gather_in_l1` choose the
//! L1 layout of a matmul operand and do not change the values.

use super::capture::{CapturedOp, TensorRef};
use crate::autograd::Var;
use crate::error::TensorError;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{ArgumentDetail, LibraryGatherMessage, LibraryKernelMessage, LibraryMessage};
use crate::tensor::DType;

/// `pypto.experimental.gather_in_ub(param, indices, block_table, block_size, axis)`.
pub(crate) fn gather_in_ub(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let full = "pypto.experimental.gather_in_ub";
    let names = ["param", "indices", "block_table", "block_size", "axis"];
    let bound = interpreter.bind(full, &names, arguments, false, span)?;
    let (cache, indices, table) = (bound.tensor(0)?, bound.tensor(1)?, bound.tensor(2)?);
    let block_size = bound.int(3, None)?;
    // pypto gathers along the token dim only: axis -2.
    let axis = bound.int(4, None)?;
    if axis != -2 {
        let message = LibraryMessage::OneOf {
            function: full.into(),
            parameter: "axis".into(),
            choices: vec!["-2".into()],
            got: Some(axis.to_string()),
        };
        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(4)).with_message(message));
    }
    let operands = Operands { function: full, cache: &cache, indices: &indices, table: &table };
    let columns = cache.shape().get(1).copied().unwrap_or(0);
    operands.gather(interpreter, (block_size, bound.span_of(3)), columns, span)
}

/// `pypto.experimental.gather_in_l1(src, indices, block_table, block_size, size, is_b_matrix,
/// is_trans)`.
pub(crate) fn gather_in_l1(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let full = "pypto.experimental.gather_in_l1";
    let names = ["src", "indices", "block_table", "block_size", "size", "is_b_matrix", "is_trans"];
    let bound = interpreter.bind(full, &names, arguments, false, span)?;
    let (cache, indices, table) = (bound.tensor(0)?, bound.tensor(1)?, bound.tensor(2)?);
    let block_size = bound.int(3, None)?;
    let size = bound.int(4, None)?;
    // The operand's place in a matmul and its L1 layout: required, as in pypto, without effect
    // on the values.
    for index in [5, 6] {
        bound.required(index)?;
        bound.flag(index, false)?;
    }
    let operands = Operands { function: full, cache: &cache, indices: &indices, table: &table };
    operands.check_shapes(interpreter, span)?;
    let columns = cache.shape()[1];
    let size = usize::try_from(size).ok().filter(|&size| (1..=columns).contains(&size)).ok_or_else(|| {
        let message = LibraryGatherMessage::Size { function: full.into(), size, columns };
        interpreter.error(ErrorKind::Value, "", bound.span_of(4)).with_message(message)
    })?;
    operands.gather(interpreter, (block_size, bound.span_of(3)), size, span)
}

/// A paged gather's tensor operands.
struct Operands<'a> {
    function: &'static str,
    cache: &'a Var,
    indices: &'a Var,
    table: &'a Var,
}

impl Operands<'_> {
    /// The cache must be 2-D, the indices `[1, k]` and the block table `[1, blocks]`; indices and
    /// table of an integer dtype.
    fn check_shapes(&self, interpreter: &Interpreter, span: Span) -> Result<()> {
        let (cache, indices, table) = (self.cache.shape(), self.indices.shape(), self.table.shape());
        let one_row = |shape: &[usize]| shape.len() == 2 && shape[0] == 1;
        if cache.len() != 2 || !one_row(indices) || !one_row(table) {
            let message = LibraryGatherMessage::Shapes {
                function: self.function.into(),
                cache: cache.to_vec(),
                indices: indices.to_vec(),
                block_table: table.to_vec(),
            };
            return Err(interpreter
                .error(ErrorKind::Tensor, "", span)
                .with_message(message)
                .with_help_message(LibraryGatherMessage::Form));
        }
        for operand in [self.indices, self.table] {
            if !matches!(operand.dtype(), DType::I32 | DType::I64) {
                let detail = ArgumentDetail::IndexDtype { dtype: operand.dtype().pypto_name().into() };
                return Err(interpreter.tensor_error(TensorError::BadArgument { op: self.function, detail }, span));
            }
        }
        Ok(())
    }

    /// The gathered `[k, columns]` tile.
    fn gather(
        &self,
        interpreter: &Interpreter,
        (block_size, size_span): (i64, Span),
        columns: usize,
        span: Span,
    ) -> Result<Value> {
        self.check_shapes(interpreter, span)?;
        if block_size <= 0 {
            let message = LibraryKernelMessage::MustBePositive {
                function: self.function.into(),
                parameter: "block_size".into(),
                got: Some(block_size),
            };
            return Err(interpreter.error(ErrorKind::Value, "", size_span).with_message(message));
        }
        let rows = self.rows(interpreter, block_size, span)?;
        let height = self.indices.shape()[1];
        let gathered = self.cache.tensor().take_rows(&rows, height, (0, columns));
        let gathered = gathered.map_err(|error| interpreter.tensor_error(error, span))?;
        let value = TensorObject::value(Var::constant(gathered));
        let source = TensorRef::of(self.cache.tensor());
        interpreter.capture(Some(&value), || CapturedOp::GatherRows { source, rows });
        Ok(value)
    }

    /// The cache row of each valid index (the indices past the valid length are not read).
    fn rows(&self, interpreter: &Interpreter, block_size: i64, span: Span) -> Result<Vec<usize>> {
        let count = self.indices.tensor().valid_or_full_shape()[1];
        let indices = self.indices.tensor().storage().to_i64_vec();
        let table = self.table.tensor().storage().to_i64_vec();
        let cache_rows = self.cache.shape()[0];
        let error = |message: LibraryGatherMessage| interpreter.error(ErrorKind::Value, "", span).with_message(message);
        let mut rows = Vec::with_capacity(count);
        for &index in &indices[..count] {
            let block = index.div_euclid(block_size);
            let Some(&physical) = usize::try_from(block).ok().and_then(|block| table.get(block)) else {
                let function = self.function.into();
                return Err(error(LibraryGatherMessage::Block { function, index, block, blocks: table.len() }));
            };
            let row = physical.saturating_mul(block_size).saturating_add(index.rem_euclid(block_size));
            match usize::try_from(row).ok().filter(|&row| row < cache_rows) {
                Some(row) => rows.push(row),
                None => {
                    let function = self.function.into();
                    return Err(error(LibraryGatherMessage::Row { function, index, row, rows: cache_rows }));
                }
            }
        }
        Ok(rows)
    }
}
