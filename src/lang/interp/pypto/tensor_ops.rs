//! Tensors in expressions: operators with broadcasting and Python scalars (a scalar takes the
//! tensor's dtype), `x[...]` reads, in-place writes (`x[...] = v`, `x += v`), iteration.

use std::rc::Rc;

use crate::autograd::{is_grad_enabled, Var};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::ast::BinaryOp;
use crate::lang::syntax::Span;
use crate::tensor::{BinaryOp as TensorBinary, DType, SliceSpec, Tensor};

impl Interpreter {
    /// A value as an operand of a tensor op: tensors as they are, numbers (and nested lists) as
    /// constants of `dtype`.
    pub(crate) fn operand(&self, value: &Value, dtype: DType, span: Span) -> Result<Var> {
        match value {
            Value::Tensor(object) => Ok(object.get()),
            Value::List(_) | Value::Tuple(_) => Ok(Var::constant(self.tensor_from_data(value, dtype, span)?)),
            other => match other.as_number() {
                Some(number) => Ok(Var::constant(Tensor::scalar(number, dtype))),
                None => Err(self.error(
                    ErrorKind::Type,
                    format!("expected a tensor or a number, not {}", other.type_name()),
                    span,
                )),
            },
        }
    }

    /// `left op right` where at least one side is a tensor.
    pub(crate) fn tensor_binary(&self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Result<Value> {
        let dtype = match (left, right) {
            (Value::Tensor(object), _) | (_, Value::Tensor(object)) => object.get().dtype(),
            _ => DType::F32,
        };
        if op == BinaryOp::MatMul {
            self.charge_matmul(left, right, false, span)?;
        }
        let a = self.operand(left, dtype, span)?;
        let b = self.operand(right, dtype, span)?;
        let result = match op {
            BinaryOp::Add => a.binary(TensorBinary::Add, &b),
            BinaryOp::Subtract => a.binary(TensorBinary::Sub, &b),
            BinaryOp::Multiply => a.binary(TensorBinary::Mul, &b),
            BinaryOp::Divide => a.binary(TensorBinary::Div, &b),
            BinaryOp::Power => a.binary(TensorBinary::Pow, &b),
            BinaryOp::MatMul => a.matmul(&b, false, false, None),
            BinaryOp::FloorDivide => a.binary(TensorBinary::FloorDivide, &b),
            BinaryOp::Modulo => a.binary(TensorBinary::Remainder, &b),
        };
        let value = self.tensor_result(result, span)?;
        self.charge_result(&value, span)?;
        if self.in_kernel() {
            let name = match op {
                BinaryOp::Add => "add",
                BinaryOp::Subtract => "sub",
                BinaryOp::Multiply => "mul",
                BinaryOp::Divide => "div",
                BinaryOp::Power => "pow",
                BinaryOp::FloorDivide => "floor_divide",
                BinaryOp::Modulo => "remainder",
                BinaryOp::MatMul => "matmul",
            };
            let operand = |value: &Value| match value {
                Value::Tensor(object) => super::lowering::Operand::Tensor(object.get().tensor().clone()),
                other => super::lowering::Operand::Other(other.clone()),
            };
            self.record_op(name, vec![(None, operand(left)), (None, operand(right))], Some(&value));
        }
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
        if self.in_kernel() {
            self.record_op(
                &format!("{}=", op.symbol()),
                vec![(None, super::lowering::Operand::Tensor(object.get().tensor().clone()))],
                None,
            );
        }
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
                .error(
                    ErrorKind::Autograd,
                    "a tensor with requires_grad=True that was created by the user cannot be changed in place",
                    span,
                )
                .with_help("do the update under `with pypto.no_grad():`, or write into a new tensor"));
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
            return Err(self.error(ErrorKind::Index, "an index can only have a single ellipsis ('...')", span));
        }
        let explicit = parts.len() - ellipses;
        if explicit > shape.len() {
            return Err(self.error(
                ErrorKind::Index,
                format!("too many indices for a tensor of shape {shape:?}: {explicit} given"),
                span,
            ));
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
                    let Some(raw) = other.as_int() else {
                        return Err(self
                            .error(
                                ErrorKind::Unsupported,
                                format!("tensors are indexed by ints, slices and '...', not {}", other.type_name()),
                                span,
                            )
                            .with_help("use pypto.view(x, shape, offsets) for a tile"));
                    };
                    let axis = specs.len();
                    let size = shape[axis] as i64;
                    let resolved = if raw < 0 { raw + size } else { raw };
                    if resolved < 0 || resolved >= size {
                        return Err(self.error(
                            ErrorKind::Index,
                            format!("index {raw} is out of range for dim {axis} of size {size}"),
                            span,
                        ));
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
        let (specs, dropped) = self.index_specs(var.shape(), index, span)?;
        let sliced = var.slice(&specs).map_err(|error| self.autograd_error(error, span))?;
        let result = if !dropped.contains(&true) {
            TensorObject::value(sliced)
        } else {
            let kept: Vec<usize> =
                specs.iter().zip(&dropped).filter(|(_, drop)| !**drop).map(|(spec, _)| spec.count).collect();
            self.tensor_result(sliced.reshape(&kept), span)?
        };
        if self.in_kernel() {
            let operands = vec![
                (None, super::lowering::Operand::Tensor(var.tensor().clone())),
                (None, super::lowering::Operand::Other(index.clone())),
            ];
            self.record_op("x[...]", operands, Some(&result));
        }
        Ok(result)
    }

    /// `x[index] = value`, in place (see `tensor_in_place` for how autograd is kept right).
    pub(crate) fn tensor_set_item(
        &self,
        object: &Rc<TensorObject>,
        index: &Value,
        value: &Value,
        span: Span,
    ) -> Result<()> {
        if self.in_kernel() {
            let operand = |value: &Value| match value {
                Value::Tensor(object) => super::lowering::Operand::Tensor(object.get().tensor().clone()),
                other => super::lowering::Operand::Other(other.clone()),
            };
            self.record_op(
                "x[...] =",
                vec![(None, operand(&Value::Tensor(object.clone()))), (None, operand(index)), (None, operand(value))],
                None,
            );
        }
        let target = object.get();
        let (specs, dropped) = self.index_specs(target.shape(), index, span)?;
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
        let written =
            target.detach().assign_slice(&specs, &source.detach()).map_err(|error| self.autograd_error(error, span))?;
        self.write_whole(&target, &written, span)
    }

    /// A tile with a `valid_shape` writes only its valid region (a ragged last tile never writes
    /// past the edge): the region and the tile shrink to the valid part.
    fn valid_region(&self, mut specs: Vec<SliceSpec>, source: Var, span: Span) -> Result<(Vec<SliceSpec>, Var)> {
        let Some(valid) = source.tensor().valid_shape().map(<[usize]>::to_vec) else {
            return Ok((specs, source));
        };
        if valid.len() != specs.len() || valid.as_slice() == source.shape() {
            return Ok((specs, source));
        }
        let mut tile_specs = Vec::with_capacity(valid.len());
        for (spec, &valid_size) in specs.iter_mut().zip(&valid) {
            spec.count = spec.count.min(valid_size);
            tile_specs.push(SliceSpec { start: 0, step: 1, count: spec.count });
        }
        let region = source.slice(&tile_specs).map_err(|error| self.autograd_error(error, span))?;
        Ok((specs, region))
    }

    /// The rows of a tensor (iteration over dim 0).
    pub(crate) fn tensor_rows(&self, var: &Var, span: Span) -> Result<Vec<Value>> {
        let Some(&rows) = var.shape().first() else {
            return Err(self.error(ErrorKind::Type, "iteration over a 0-d tensor", span));
        };
        self.check_items(rows, span)?;
        (0..rows).map(|row| self.tensor_get_item(var, &Value::Int(row as i64), span)).collect()
    }

    /// The value of a one-element tensor.
    pub(crate) fn item(&self, var: &Var, span: Span) -> Result<f64> {
        var.item().map_err(|error| self.autograd_error(error, span))
    }
}
