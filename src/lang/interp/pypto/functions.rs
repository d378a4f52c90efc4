//! The tensor functions of `pypto`: element-wise, reductions, softmax, shape ops, `view`,
//! `assemble`, `matmul`, `cast`, and the reference layers of `pypto.nn` (composites); masks and
//! indices in `functions/masks.rs`, the element-wise functions of one tensor in `functions/unary.rs`.

pub(crate) mod activations;
pub(crate) mod composites;
mod indices;
mod indices_update;
mod integer_ops;
mod layout_ops;
mod masks;
pub(crate) mod unary;

use super::capture::CapturedOp;
use crate::autograd::{is_grad_enabled, Var};
use crate::lang::interp::call::Bound;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTensorMessage, Message};
use crate::tensor::{BinaryOp, ReduceOp, SoftmaxOp, UnaryOp};

/// torch's `gather` and `scatter` on the host: pypto's functions of the same signature, named
/// `torch.name` in their errors.
pub(crate) fn torch_selection(
    interpreter: &Interpreter,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    masks::call(interpreter, "torch", name, arguments, span)
}

/// torch's integer-only functions on the host (`bitwise_and` … `gcd`), pypto's of the same names.
pub(crate) fn torch_integer(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    integer_ops::call(interpreter, "torch", name, arguments, span)
}

/// torch's `argmax` and `argmin` on the host (DT_INT64 indices, `dim=None` flattens).
pub(crate) fn torch_indices(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    indices::torch_arg_extreme(interpreter, name, arguments, span)
}

/// Calls the tensor function `name` (without the `pypto.` prefix).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    let wrap = |result: crate::autograd::Result<Var>| interpreter.tensor_result(result, span);
    if layout_ops::NAMES.contains(&name) {
        return layout_ops::call(interpreter, name, arguments, span);
    }
    if indices::NAMES.contains(&name) {
        return indices::call(interpreter, name, arguments, span);
    }
    if masks::NAMES.contains(&name) {
        return masks::call(interpreter, "pypto", name, arguments, span);
    }
    if activations::NAMES.contains(&name) {
        return activations::leaky_relu(interpreter, &full, arguments, span);
    }
    if composites::NAMES.contains(&name) {
        return composites::call(interpreter, &full, arguments, span);
    }
    if integer_ops::NAMES.contains(&name) {
        return integer_ops::call(interpreter, "pypto", name, arguments, span);
    }
    if let Some(op) = UnaryOp::from_name(name) {
        return unary::call(interpreter, &full, op, arguments, span);
    }
    if let Some(op) = BinaryOp::from_name(name) {
        // pypto.div(input, other, precision_type) picks a division instruction by precision on a
        // device; the simulation computes in f32 either way.
        let names: &[&str] = match name {
            "pow" => &["x", "exponent"],
            "div" => &["a", "b", "precision_type"],
            _ => &["a", "b"],
        };
        let bound = interpreter.bind(&full, names, arguments, false, span)?;
        if name == "div" {
            unary::check_precision_type(interpreter, &full, bound.values[2].as_ref())?;
        }
        let first = bound.required(0)?.clone();
        let second = bound.required(1)?.clone();
        let dtype = match (&first, &second) {
            (Value::Tensor(object), _) | (_, Value::Tensor(object)) => object.get().dtype(),
            _ => {
                let message = LibraryMessage::Needs { function: format!("{full}()"), what: Kind::AtLeastOneTensor };
                return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
            }
        };
        let a = interpreter.operand(&first, dtype, bound.span_of(0))?;
        let b = interpreter.operand(&second, dtype, bound.span_of(1))?;
        let result = wrap(a.binary(op, &b))?;
        interpreter.capture(Some(&result), || CapturedOp::binary(op, &first, &second));
        return Ok(result);
    }
    if let Some(op) = ReduceOp::from_name(name) {
        let bound = interpreter.bind(&full, &["x", "dim", "keepdim"], arguments, false, span)?;
        let x = bound.tensor(0)?;
        let dims = bound.dims(1)?;
        let result = wrap(x.reduce(op, dims.as_deref(), bound.flag(2, false)?))?;
        interpreter.capture(Some(&result), || CapturedOp::reduce(op, x.tensor(), dims));
        return Ok(result);
    }
    match name {
        "softmax" | "log_softmax" => {
            let bound = interpreter.bind(&full, &["x", "dim"], arguments, false, span)?;
            let op = if name == "softmax" { SoftmaxOp::Softmax } else { SoftmaxOp::LogSoftmax };
            let (x, dim) = (bound.tensor(0)?, bound.int(1, Some(-1))?);
            let result = wrap(x.softmax_like(op, dim as isize))?;
            let log = op == SoftmaxOp::LogSoftmax;
            interpreter.capture(Some(&result), || CapturedOp::Softmax {
                x: super::capture::TensorRef::of(x.tensor()),
                dim,
                log,
            });
            Ok(result)
        }
        "reshape" => {
            let bound = interpreter.bind(&full, &["x", "shape"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let shape = interpreter.resolve_shape(&x, bound.required(1)?, bound.span_of(1))?;
            let result = wrap(x.reshape(&shape))?;
            interpreter.capture(Some(&result), || CapturedOp::Reshape { x: super::capture::TensorRef::of(x.tensor()) });
            Ok(result)
        }
        "transpose" => {
            let bound = interpreter.bind(&full, &["x", "dim0", "dim1"], arguments, false, span)?;
            let (x, first, second) = (bound.tensor(0)?, bound.int(1, Some(0))?, bound.int(2, Some(1))?);
            let result = wrap(x.transpose(first as isize, second as isize))?;
            interpreter.capture(Some(&result), || CapturedOp::transpose(x.tensor(), first, second));
            Ok(result)
        }
        "concat" => {
            let bound = interpreter.bind(&full, &["tensors", "dim"], arguments, false, span)?;
            let items = interpreter.iterate(bound.required(0)?, bound.span_of(0))?;
            let vars = items
                .iter()
                .map(|item| match item {
                    Value::Tensor(object) => Ok(object.get()),
                    other => Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(
                        LibraryMessage::Expected {
                            function: "pypto.concat".into(),
                            expected: Kind::Tensors,
                            got: other.type_name().to_string(),
                        },
                    )),
                })
                .collect::<Result<Vec<_>>>()?;
            let dim = bound.int(1, Some(0))?;
            let result = wrap(Var::concat(&vars, dim as isize))?;
            let rank = vars.first().map_or(0, |first| first.shape().len()) as i64;
            let dim = if dim < 0 { dim + rank } else { dim } as usize;
            interpreter.capture(Some(&result), || CapturedOp::Vector {
                op: crate::tile::VectorOp::Concat { dim },
                args: vars.iter().map(super::capture::Arg::var).collect(),
            });
            Ok(result)
        }
        "view" => {
            let names = ["input", "shape", "offsets", "valid_shape", "dtype"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let x = bound.tensor(0)?;
            if bound.optional(4).is_some() {
                let dtype = bound.dtype(4, x.dtype())?;
                return layout_ops::view_as_dtype(interpreter, &x, dtype, bound.span_of(4));
            }
            let shape = bound.shape(1)?;
            let offsets = bound.shape(2)?;
            // A valid size above the view's own is the whole view (pypto's tests pass
            // `min(n - offset, n)`, which exceeds the tile for every tile but the last).
            let valid = match bound.optional(3) {
                Some(_) => {
                    Some(bound.shape(3)?.iter().zip(&shape).map(|(&valid, &size)| valid.min(size)).collect::<Vec<_>>())
                }
                None => None,
            };
            let result = x.view(&shape, &offsets, valid.as_deref());
            if result.is_err() && valid.is_none() && shape.len() == x.shape().len() && offsets.len() == shape.len() {
                // Name the valid_shape that would make this ragged tile legal.
                let fits: Vec<usize> = (0..shape.len())
                    .map(|axis| shape[axis].min(x.shape()[axis].saturating_sub(offsets[axis])))
                    .collect();
                if fits.iter().all(|&size| size > 0) && fits != shape {
                    let error = interpreter.tensor_result(result, span).err();
                    // The view failed, so its error is there; the fallback only keeps the types whole.
                    let error = error.unwrap_or_else(|| interpreter.error(ErrorKind::ViewOutOfBounds, "", span));
                    return Err(error.with_help_message(LibraryTensorMessage::PassValidShape { fits, shape }));
                }
            }
            let result = wrap(result)?;
            interpreter.capture(Some(&result), || CapturedOp::View {
                source: super::capture::TensorRef::of(x.tensor()),
                offsets,
            });
            Ok(result)
        }
        "assemble" => {
            assemble(interpreter, &bound_of(interpreter, &full, &["tile", "offsets", "out"], arguments, span)?, span)
        }
        "matmul" => {
            let names = ["a", "b", "out_dtype", "a_trans", "b_trans", "c_matrix_nz", "extend_params"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let out_dtype = match bound.optional(2) {
                Some(_) => Some(bound.dtype(2, crate::tensor::DType::F32)?),
                None => None,
            };
            if bound.flag(5, false)? {
                return Err(interpreter
                    .error(ErrorKind::Unsupported, "", bound.span_of(5))
                    .with_message(LibraryTensorMessage::NzOutput { function: full.clone() })
                    .with_help_message(LibraryTensorMessage::LeaveOutNz));
            }
            let extend = super::matmul_extend::ExtendParams::read(interpreter, bound.optional(6), bound.span_of(6))?;
            // What extend_params adds goes into the f32 accumulator, before the cast to out_dtype.
            let accumulated = if extend.is_empty() { out_dtype } else { Some(crate::tensor::DType::F32) };
            let (a, b) = (bound.tensor(0)?, bound.tensor(1)?);
            let (a_transposed, b_transposed) = (bound.flag(3, false)?, bound.flag(4, false)?);
            if a_transposed {
                check_transposed_m_tile(interpreter, bound.span_of(3))?;
            }
            let result = wrap(a.matmul(&b, a_transposed, b_transposed, accumulated))?;
            interpreter.capture(Some(&result), || CapturedOp::Matmul {
                a: super::capture::TensorRef::of(a.tensor()),
                b: super::capture::TensorRef::of(b.tensor()),
                a_transposed,
                b_transposed,
            });
            if extend.is_empty() {
                return Ok(result);
            }
            extend.apply(interpreter, result, out_dtype, span)
        }
        "cast" => {
            let bound = interpreter.bind(&full, &["x", "dtype"], arguments, false, span)?;
            let dtype = bound.dtype(1, crate::tensor::DType::F32)?;
            bound.required(1)?;
            let x = bound.tensor(0)?;
            let result = wrap(x.cast(dtype))?;
            interpreter.capture(Some(&result), || CapturedOp::Cast { x: super::capture::TensorRef::of(x.tensor()) });
            Ok(result)
        }
        "nn.layer_norm" => {
            let bound = interpreter.bind(&full, &["x", "gamma", "beta", "eps"], arguments, false, span)?;
            wrap(layer_norm(&bound.tensor(0)?, &bound.tensor(1)?, &bound.tensor(2)?, bound.float(3, Some(1e-5))?))
        }
        "nn.group_norm" => {
            let bound =
                interpreter.bind(&full, &["x", "num_groups", "gamma", "beta", "eps"], arguments, false, span)?;
            let groups = bound.int(1, None)?;
            let x = bound.tensor(0)?;
            let channels = x.shape().get(1).copied().unwrap_or(0);
            if groups <= 0 || channels % groups as usize != 0 {
                let message = LibraryTensorMessage::GroupsSplit {
                    function: "pypto.nn.group_norm".into(),
                    channels,
                    groups: groups.max(0) as usize,
                };
                return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(1)).with_message(message));
            }
            wrap(group_norm(&x, groups as usize, &bound.tensor(2)?, &bound.tensor(3)?, bound.float(4, Some(1e-5))?))
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(Message::NoModuleAttribute { module: "pypto".into(), name: name.to_string() })),
    }
}

fn bound_of<'a>(
    interpreter: &'a Interpreter,
    name: &str,
    names: &[&str],
    arguments: Arguments,
    span: Span,
) -> Result<Bound<'a>> {
    interpreter.bind(name, names, arguments, false, span)
}

/// `assemble(tile, offsets, out)`: writes the valid region of `tile` into `out` in place.
fn assemble(interpreter: &Interpreter, bound: &Bound<'_>, span: Span) -> Result<Value> {
    let tile = bound.tensor(0)?;
    let offsets = bound.shape(1)?;
    let Value::Tensor(out) = bound.required(2)? else {
        let message = LibraryMessage::ArgumentType {
            function: "pypto.assemble".into(),
            parameter: "out".into(),
            expected: Kind::Tensor,
            got: bound.required(2)?.type_name().to_string(),
        };
        return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(2)).with_message(message));
    };
    let target = out.get();
    interpreter.capture(None, || CapturedOp::Assemble {
        tile: super::capture::TensorRef::of(tile.tensor()),
        offsets: offsets.clone(),
        out: super::capture::TensorRef::of(target.tensor()),
    });
    let tile = if tile.dtype() == target.dtype() {
        tile
    } else {
        tile.cast(target.dtype()).map_err(|error| interpreter.autograd_error(error, span))?
    };
    if is_grad_enabled() && (target.requires_grad() || tile.requires_grad()) {
        if target.is_leaf() && target.requires_grad() {
            let message = LibraryTensorMessage::AssembleIntoLeaf;
            return Err(interpreter.error(ErrorKind::Autograd, "", span).with_message(message));
        }
        let written = target.assemble(&tile, &offsets).map_err(|error| interpreter.autograd_error(error, span))?;
        *out.var.borrow_mut() = written;
    } else {
        target.tensor().assemble(tile.tensor(), &offsets).map_err(|error| interpreter.tensor_error(error, span))?;
    }
    Ok(Value::None)
}

/// `(x − mean) / √(var + eps) · gamma + beta` over the last dim.
fn layer_norm(x: &Var, gamma: &Var, beta: &Var, eps: f64) -> crate::autograd::Result<Var> {
    let mean = x.reduce(ReduceOp::Mean, Some(&[-1]), true)?;
    let centred = x.sub(&mean)?;
    let variance = x.reduce(ReduceOp::Var, Some(&[-1]), true)?;
    let inverse = variance.add_scalar(eps)?.unary(UnaryOp::Rsqrt)?;
    centred.mul(&inverse)?.mul(gamma)?.add(beta)
}

/// Group norm of `[N, C, …]`: statistics per (sample, group of C/G channels), then a per-channel
/// affine transform.
fn group_norm(x: &Var, groups: usize, gamma: &Var, beta: &Var, eps: f64) -> crate::autograd::Result<Var> {
    let shape = x.shape().to_vec();
    let batch = shape.first().copied().unwrap_or(1);
    let channels = shape.get(1).copied().unwrap_or(1);
    let rest: usize = shape.iter().skip(2).product();
    let grouped = x.reshape(&[batch, groups, (channels / groups) * rest])?;
    let mean = grouped.reduce(ReduceOp::Mean, Some(&[-1]), true)?;
    let variance = grouped.reduce(ReduceOp::Var, Some(&[-1]), true)?;
    let normalised = grouped.sub(&mean)?.mul(&variance.add_scalar(eps)?.unary(UnaryOp::Rsqrt)?)?.reshape(&shape)?;
    let mut affine_shape = vec![1, channels];
    affine_shape.extend(std::iter::repeat_n(1, shape.len().saturating_sub(2)));
    normalised.mul(&gamma.reshape(&affine_shape)?)?.add(&beta.reshape(&affine_shape)?)
}

impl Interpreter {
    /// A reshape target: ints with at most one `-1`, resolved against `x`'s element count.
    pub(crate) fn resolve_shape(&self, x: &Var, value: &Value, span: Span) -> Result<Vec<usize>> {
        let items = match value {
            Value::Int(_) => vec![value.clone()],
            Value::Tensor(object) if object.get().shape().is_empty() => vec![value.clone()],
            other => self.iterate(other, span)?,
        };
        let mut dims: Vec<i64> = Vec::with_capacity(items.len());
        for item in &items {
            let not_int = || {
                let message = LibraryTensorMessage::ShapeOfInts { function: "reshape".into() };
                self.error(ErrorKind::Type, "", span).with_message(message)
            };
            // On the host a one-element integer tensor is an int (torch's `__index__`), as the
            // goldens' `x.reshape(s1, n1, min(block, seq_len[b]))` gives.
            let dim =
                if self.in_kernel() { item.as_int() } else { crate::lang::interp::torch::indexing::as_index(item) };
            dims.push(dim.ok_or_else(not_int)?);
        }
        let known: i64 = dims.iter().filter(|&&d| d != -1).product();
        let inferred = dims.iter().filter(|&&d| d == -1).count();
        if inferred > 1 || dims.iter().any(|&d| d < -1) {
            let message = LibraryTensorMessage::InvalidShape { function: "reshape".into(), dims };
            return Err(self.error(ErrorKind::Value, "", span).with_message(message));
        }
        let total = x.tensor().numel() as i64;
        Ok(dims
            .iter()
            .map(|&d| if d == -1 && known > 0 { (total / known) as usize } else { d.max(0) as usize })
            .collect())
    }
}

/// A transposed A (`a_trans=True`, stored `[K, M]`) has M as its inner dim, which pypto needs in
/// whole fractals: the kernel's mL0 must be a multiple of the fractal side.
fn check_transposed_m_tile(interpreter: &Interpreter, span: Span) -> Result<()> {
    let m0 =
        interpreter.npu.kernel_frames.borrow().last().and_then(|frame| frame.cube_tile_shapes).map(|[m, _, _]| m[0]);
    let Some(m0) = m0 else { return Ok(()) };
    let fractal = super::kernel::cube_fractal_side(&interpreter.npu_config(span)?);
    if m0 % fractal == 0 {
        return Ok(());
    }
    Err(interpreter
        .error(ErrorKind::TileShape, "", span)
        .with_message(crate::messages::LibraryTilingMessage::TransposedMTile { m0, fractal })
        .with_help_message(crate::messages::LibraryTilingMessage::CubeFractals { fractal }))
}
