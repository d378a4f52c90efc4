//! Tensors in expressions: operators with broadcasting and Python scalars (a scalar takes the
//! tensor's dtype), `x[...]` reads, in-place writes (`x[...] = v`, `x += v`), iteration.

use std::rc::Rc;

use super::capture::CapturedOp;
use crate::autograd::{is_grad_enabled, Var};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::ast::{BinaryOp, CompareOp};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTensorMessage};
use crate::tensor::{BinaryOp as TensorBinary, CompareOp as TensorCompare, DType, SliceSpec, Tensor};

/// The element-wise tensor op of an arithmetic operator; `None` for `@` (a matmul). The bitwise
/// operators are pypto's functions and never reach here.
pub(crate) fn elementwise_op(op: BinaryOp) -> Option<TensorBinary> {
    match op {
        BinaryOp::Add => Some(TensorBinary::Add),
        BinaryOp::Subtract => Some(TensorBinary::Sub),
        BinaryOp::Multiply => Some(TensorBinary::Mul),
        BinaryOp::Divide => Some(TensorBinary::Div),
        BinaryOp::Power => Some(TensorBinary::Pow),
        BinaryOp::FloorDivide => Some(TensorBinary::FloorDivide),
        BinaryOp::Modulo => Some(TensorBinary::Remainder),
        BinaryOp::MatMul => None,
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::LeftShift | BinaryOp::RightShift => {
            unreachable!("the bitwise operators call pypto's functions")
        }
    }
}

/// The dtype a Python number takes beside a tensor operand: the tensor's (the left one's when both
/// are tensors).
pub(crate) fn operand_dtype(left: &Value, right: &Value) -> DType {
    match (left, right) {
        (Value::Tensor(object), _) | (_, Value::Tensor(object)) => object.get().dtype(),
        _ => DType::F32,
    }
}

impl Interpreter {
    /// A value as an operand of a tensor op: tensors as they are, numbers (and nested lists) as
    /// constants of `dtype`.
    pub(crate) fn operand(&self, value: &Value, dtype: DType, span: Span) -> Result<Var> {
        match value {
            Value::Tensor(object) => Ok(object.get()),
            Value::List(_) | Value::Tuple(_) => Ok(Var::constant(self.tensor_from_data(value, dtype, span)?)),
            other => match other.as_number() {
                Some(number) => Ok(Var::constant(Tensor::scalar(number, scalar_dtype(other, number, dtype)))),
                None => Err(self.error(ErrorKind::Type, "", span).with_message(LibraryMessage::Operand {
                    expected: Kind::TensorOrNumber,
                    got: other.type_name().to_string(),
                })),
            },
        }
    }

    /// `left op right` for a comparison where at least one side is a tensor: a DT_BOOL mask.
    pub(crate) fn tensor_compare(&self, op: CompareOp, left: &Value, right: &Value, span: Span) -> Result<Value> {
        let op = match op {
            CompareOp::Less => TensorCompare::Lt,
            CompareOp::LessEqual => TensorCompare::Le,
            CompareOp::Greater => TensorCompare::Gt,
            CompareOp::GreaterEqual => TensorCompare::Ge,
            CompareOp::Equal => TensorCompare::Eq,
            CompareOp::NotEqual => TensorCompare::Ne,
            other => {
                return Err(self
                    .error(ErrorKind::Unsupported, "", span)
                    .with_message(LibraryTensorMessage::TensorOperator { operator: other.symbol().to_string() })
                    .with_help_message(LibraryTensorMessage::CompareElementwise))
            }
        };
        let dtype = match (left, right) {
            (Value::Tensor(object), _) | (_, Value::Tensor(object)) => object.get().dtype(),
            _ => DType::F32,
        };
        let a = self.operand(left, dtype, span)?;
        let b = self.operand(right, dtype, span)?;
        let value = self.tensor_result(a.compare(op, &b), span)?;
        self.charge_result(&value, span)?;
        self.capture(Some(&value), || CapturedOp::vector(crate::tile::VectorOp::Compare(op), &[left, right]));
        Ok(value)
    }

    /// A comparison with a tensor operand inside an expression: a mask, or an error for a chain
    /// (`a < x < b` would need the truth value of a mask).
    pub(crate) fn tensor_comparison(
        &self,
        op: CompareOp,
        left: &Value,
        right: &Value,
        chain: usize,
        span: Span,
    ) -> Result<Value> {
        if chain > 1 {
            return Err(self
                .error(ErrorKind::Unsupported, "", span)
                .with_message(LibraryTensorMessage::ChainedComparison)
                .with_help_message(LibraryTensorMessage::CombineMasks));
        }
        self.tensor_compare(op, left, right, span)
    }

    /// Replaces the values of a tensor object by `result` (same shape) in place, as `x op= v` does.
    pub(crate) fn write_tensor_object(&self, object: &Rc<TensorObject>, result: Var, span: Span) -> Result<()> {
        let target = object.get();
        if is_grad_enabled() && (target.requires_grad() || result.requires_grad()) {
            self.refuse_leaf_write(&target, span)?;
            *object.var.borrow_mut() = result;
            return Ok(());
        }
        self.write_whole(&target, &result, span)
    }

    /// `left op right` where at least one side is a tensor.
    pub(crate) fn tensor_binary(&self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Result<Value> {
        if crate::lang::interp::bitwise::is_bitwise(op) {
            return self.bitwise(op, left, right, span);
        }
        let dtype = operand_dtype(left, right);
        if op == BinaryOp::MatMul {
            self.charge_matmul(left, right, false, span)?;
        }
        let a = self.operand(left, dtype, span)?;
        let b = self.operand(right, dtype, span)?;
        let tensor_op = elementwise_op(op);
        let result = match tensor_op {
            Some(tensor_op) => a.binary(tensor_op, &b),
            None => a.matmul(&b, false, false, None),
        };
        let value = self.tensor_result(result, span)?;
        self.charge_result(&value, span)?;
        self.capture(Some(&value), || match tensor_op {
            Some(tensor_op) => CapturedOp::binary(tensor_op, left, right),
            None => CapturedOp::Matmul {
                a: super::capture::TensorRef::of(a.tensor()),
                b: super::capture::TensorRef::of(b.tensor()),
                a_transposed: false,
                b_transposed: false,
            },
        });
        Ok(value)
    }

    /// `x op= v` on a tensor: the object keeps its identity. Without autograd involvement the values
    /// are written into its buffer (so `w -= lr * w.grad` under `no_grad` keeps `w` a leaf); with
    /// it, the object takes the recorded result (a leaf that requires grad refuses, as in torch).
    pub(crate) fn tensor_in_place(
        &self,
        op: BinaryOp,
        object: &Rc<TensorObject>,
        right: &Value,
        span: Span,
    ) -> Result<Value> {
        self.capture(None, || CapturedOp::InPlace { target: super::capture::TensorRef::of(object.get().tensor()) });
        let target = object.get();
        let result = match &self.tensor_binary(op, &Value::Tensor(object.clone()), right, span)? {
            Value::Tensor(result) => result.get(),
            other => return Ok(other.clone()),
        };
        if is_grad_enabled() && (target.requires_grad() || result.requires_grad()) {
            self.refuse_leaf_write(&target, span)?;
            *object.var.borrow_mut() = result;
            return Ok(Value::Tensor(object.clone()));
        }
        if result.shape() != target.shape() {
            return Ok(TensorObject::value(result));
        }
        self.write_whole(&target, &result, span)?;
        Ok(Value::Tensor(object.clone()))
    }

    fn refuse_leaf_write(&self, target: &Var, span: Span) -> Result<()> {
        if target.is_leaf() && target.requires_grad() {
            return Err(self
                .error(ErrorKind::Autograd, "", span)
                .with_message(LibraryTensorMessage::LeafInPlace)
                .with_help_message(LibraryTensorMessage::NoGradUpdate));
        }
        Ok(())
    }

    /// Copies `values` (same shape) into `target`'s buffer.
    fn write_whole(&self, target: &Var, values: &Var, span: Span) -> Result<()> {
        let specs: Vec<SliceSpec> = target.shape().iter().map(|&size| SliceSpec::full(size)).collect();
        let source = if values.dtype() == target.dtype() {
            values.tensor().clone()
        } else {
            values.tensor().cast(target.dtype()).map_err(|e| self.tensor_error(e, span))?
        };
        target.tensor().assign_slice(&specs, &source).map_err(|error| self.tensor_error(error, span))
    }

    /// The slice specs of an index (ints, slices, `...`) and which dims an int index drops.
    fn index_specs(&self, shape: &[usize], index: &Value, span: Span) -> Result<(Vec<SliceSpec>, Vec<bool>)> {
        let parts: Vec<Value> = match index {
            Value::Tuple(parts) => parts.as_ref().clone(),
            other => vec![other.clone()],
        };
        let ellipses = parts.iter().filter(|part| matches!(part, Value::Ellipsis)).count();
        if ellipses > 1 {
            return Err(self.error(ErrorKind::Index, "", span).with_message(LibraryTensorMessage::SingleEllipsis));
        }
        let explicit = parts.len() - ellipses;
        if explicit > shape.len() {
            let message = LibraryTensorMessage::TooManyIndices { shape: shape.to_vec(), given: explicit };
            return Err(self.error(ErrorKind::Index, "", span).with_message(message));
        }
        let mut specs = Vec::with_capacity(shape.len());
        let mut dropped = Vec::with_capacity(shape.len());
        for part in &parts {
            match part {
                Value::Ellipsis => {
                    for _ in 0..shape.len() - explicit {
                        specs.push(SliceSpec::full(shape[specs.len()]));
                        dropped.push(false);
                    }
                }
                Value::Slice(bounds) => {
                    let [start, stop, step] = &**bounds;
                    let size = shape[specs.len()];
                    let step = crate::lang::interp::subscript::clamp_step(*step, size);
                    specs.push(
                        SliceSpec::from_python(*start, *stop, step, size)
                            .map_err(|error| self.tensor_error(error, span))?,
                    );
                    dropped.push(false);
                }
                other => {
                    // A 0-d integer tensor indexes as its value, as in torch (`x[index[i, j], j]`);
                    // on the host a one-element one too (its unit dims: `unit_tensor_index`).
                    let scalar = match other {
                        Value::Tensor(object)
                            if !object.get().dtype().is_float()
                                && object.get().dtype() != crate::tensor::DType::Bool
                                && (object.get().shape().is_empty()
                                    || (!self.in_kernel() && super::unit_tensor_index::is_unit_tensor(other))) =>
                        {
                            object.get().tensor().item().ok().map(|value| value as i64)
                        }
                        _ => None,
                    };
                    let Some(raw) = scalar.or_else(|| other.as_int()) else {
                        return Err(self
                            .error(ErrorKind::Unsupported, "", span)
                            .with_message(LibraryTensorMessage::TensorIndexType { got: other.type_name().to_string() })
                            .with_help_message(LibraryTensorMessage::ViewForTile));
                    };
                    let axis = specs.len();
                    let size = shape[axis] as i64;
                    let resolved = if raw < 0 { raw + size } else { raw };
                    if resolved < 0 || resolved >= size {
                        let message = crate::messages::RuntimeMessage::TensorIndexOutOfRange {
                            index: raw,
                            dim: axis,
                            size: size as usize,
                        };
                        return Err(self.error(ErrorKind::Index, "", span).with_message(message));
                    }
                    specs.push(SliceSpec { start: resolved as usize, step: 1, count: 1 });
                    dropped.push(true);
                }
            }
        }
        while specs.len() < shape.len() {
            specs.push(SliceSpec::full(shape[specs.len()]));
            dropped.push(false);
        }
        Ok((specs, dropped))
    }

    /// `x[index]`.
    pub(crate) fn tensor_get_item(&self, var: &Var, index: &Value, span: Span) -> Result<Value> {
        let in_kernel = !self.npu.kernel_frames.borrow().is_empty();
        if let Some((index, new_axes)) = super::new_axes::split(var.shape().len(), index).filter(|_| !in_kernel) {
            let selected = self.tensor_get_item(var, &index, span)?;
            let Value::Tensor(object) = &selected else { return Ok(selected) };
            let shape = super::new_axes::with_unit_dims(object.get().shape(), &new_axes);
            return self.tensor_result(object.get().reshape(&shape), span);
        }
        let (specs, dropped) = self.index_specs(var.shape(), index, span)?;
        let sliced = var.slice(&specs).map_err(|error| self.autograd_error(error, span))?;
        // In a kernel, one element of an integer tensor is pypto's `GetTensorData`: a scalar (an
        // int here, as every symbolic scalar), such as a sequence length read from `kv_act_seqs[b]`.
        let integer = !var.dtype().is_float() && var.dtype() != DType::Bool;
        if in_kernel && integer && !dropped.is_empty() && dropped.iter().all(|drop| *drop) {
            return Ok(Value::Int(self.item(&sliced, span)? as i64));
        }
        let result = if !dropped.contains(&true) {
            TensorObject::value(sliced)
        } else {
            let kept: Vec<usize> =
                specs.iter().zip(&dropped).filter(|(_, drop)| !**drop).map(|(spec, _)| spec.count).collect();
            self.tensor_result(sliced.reshape(&kept), span)?
        };
        self.capture(Some(&result), || CapturedOp::index(var.tensor(), &specs));
        super::unit_tensor_index::put_back(self, var.shape().len(), index, result, span)
    }

    /// `x[index] = value`, in place (see `tensor_in_place` for how autograd is kept right).
    pub(crate) fn tensor_set_item(
        &self,
        object: &Rc<TensorObject>,
        index: &Value,
        value: &Value,
        span: Span,
    ) -> Result<()> {
        let target = object.get();
        let (specs, dropped) = self.index_specs(target.shape(), index, span)?;
        self.capture(None, || CapturedOp::set_item(target.tensor(), &specs, value));
        let mut source = self.operand(value, target.dtype(), span)?;
        if source.dtype() != target.dtype() {
            source = source.cast(target.dtype()).map_err(|error| self.autograd_error(error, span))?;
        }
        let kept_rank = dropped.iter().filter(|drop| !**drop).count();
        if dropped.contains(&true) && source.shape().len() == kept_rank {
            let mut dims = source.shape().iter();
            let region: Vec<usize> =
                dropped.iter().map(|drop| if *drop { 1 } else { dims.next().copied().unwrap_or(1) }).collect();
            source = source.reshape(&region).map_err(|error| self.autograd_error(error, span))?;
        }
        let (specs, source) = self.valid_region(specs, source, span)?;
        if is_grad_enabled() && (target.requires_grad() || source.requires_grad()) {
            self.refuse_leaf_write(&target, span)?;
            let written = target.assign_slice(&specs, &source).map_err(|error| self.autograd_error(error, span))?;
            *object.var.borrow_mut() = written;
            return Ok(());
        }
        // Written in place: a copy of the whole target per write would make a loop of row writes
        // quadratic in the rows.
        target.tensor().assign_slice(&specs, source.tensor()).map_err(|error| self.tensor_error(error, span))
    }

    /// A tile written into a region writes only its valid part at the region's start, as pypto's
    /// `x[off:, 0:] = tile` is `assemble(tile, offsets, x)`: a tile with a `valid_shape` (a ragged
    /// last tile) writes that region, and a tile smaller than the region (`dg[off:, 0:] = tile`
    /// where the slice runs to the edge) writes its own extent. A size-1 dim of a smaller tile
    /// also writes once, not broadcast, as assemble does; a value of lower rank (a number, a row
    /// into a matrix) still broadcasts like numpy.
    fn valid_region(&self, mut specs: Vec<SliceSpec>, source: Var, span: Span) -> Result<(Vec<SliceSpec>, Var)> {
        let valid = source.tensor().valid_or_full_shape();
        if valid.len() != specs.len() || source.shape().is_empty() {
            return Ok((specs, source));
        }
        let mut shrunk = false;
        let mut tile_specs = Vec::with_capacity(valid.len());
        for ((spec, &valid_size), &size) in specs.iter_mut().zip(&valid).zip(source.shape()) {
            // A larger, fully valid tile is left to the broadcast check (an error naming both shapes).
            let ragged = valid_size < size;
            let short = size < spec.count && spec.step == 1;
            if ragged || short {
                spec.count = spec.count.min(valid_size);
                shrunk = true;
            }
            tile_specs.push(SliceSpec { start: 0, step: 1, count: spec.count.min(size) });
        }
        if !shrunk {
            return Ok((specs, source));
        }
        let region = source.slice(&tile_specs).map_err(|error| self.autograd_error(error, span))?;
        Ok((specs, region))
    }

    /// The rows of a tensor (iteration over dim 0).
    pub(crate) fn tensor_rows(&self, var: &Var, span: Span) -> Result<Vec<Value>> {
        let Some(&rows) = var.shape().first() else {
            return Err(self.error(ErrorKind::Type, "", span).with_message(LibraryTensorMessage::IterateScalar));
        };
        self.check_items(rows, span)?;
        (0..rows).map(|row| self.tensor_get_item(var, &Value::Int(row as i64), span)).collect()
    }

    /// The value of a one-element tensor.
    pub(crate) fn item(&self, var: &Var, span: Span) -> Result<f64> {
        var.item().map_err(|error| self.autograd_error(error, span))
    }
}

/// The dtype a Python number takes next to a tensor of `dtype`, as torch: the tensor's, except
/// that a float next to an integer or bool tensor is DT_FP32, an int next to a bool tensor is
/// DT_INT64, and an int outside an integer dtype's range widens to DT_INT64 rather than saturate.
fn scalar_dtype(value: &Value, number: f64, dtype: DType) -> DType {
    match value {
        Value::Float(_) if !dtype.is_float() => DType::F32,
        Value::Int(_) if dtype == DType::Bool => DType::I64,
        Value::Int(integer) => match dtype.integer_range() {
            Some((low, high)) if *integer < low || *integer > high => DType::I64,
            _ => dtype,
        },
        _ if number.is_nan() && !dtype.is_float() => DType::F32,
        _ => dtype,
    }
}
