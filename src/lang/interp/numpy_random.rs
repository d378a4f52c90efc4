//! `numpy.random`: the legacy module functions pypto's tests draw their inputs with
//! (`np.random.uniform(-100, 100, [n, m]).astype(np.float32)`, `np.random.choice(range(n), k,
//! replace=False)`), `seed`, `rand`, `randn`, `randint`, `normal`, `permutation`. They draw from the generator
//! `torch.manual_seed` and `np.random.seed` reseed, so a seeded script repeats its numbers; the
//! numbers are not numpy's (its Mersenne Twister stream is not reproduced: documented).

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::{TensorObject, Value};
use crate::autograd::Var;
use crate::lang::syntax::Span;
use crate::messages::Message;
use crate::tensor::{manual_seed, DType, Tensor};

/// Calls `numpy.random.<name>`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("numpy.random.{name}");
    let fail = |text: &str| interpreter.coded(ErrorKind::Value, Message::Text { text: text.into() }, span);
    match name {
        "seed" => {
            let bound = interpreter.bind(&full, &["seed"], arguments, false, span)?;
            manual_seed(bound.int(0, Some(0))? as u64);
            Ok(Value::None)
        }
        "rand" | "randn" => {
            // `rand(d0, d1, …)`: the dims as separate arguments; none is one number.
            let bound = interpreter.bind(&full, &[], arguments, true, span)?;
            let dims = bound
                .rest
                .iter()
                .map(|(value, span)| interpreter.to_shape(value, *span, &full))
                .collect::<Result<Vec<_>>>()?;
            let shape: Option<Vec<usize>> = (!dims.is_empty()).then(|| dims.concat());
            draw(interpreter, shape, DType::F64, span, |unit| unit, name == "randn")
        }
        "uniform" | "normal" => {
            let names = if name == "uniform" { ["low", "high", "size"] } else { ["loc", "scale", "size"] };
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            // uniform(low=0, high=1) and normal(loc=0, scale=1) have the same defaults.
            let (first, second) = (bound.float(0, Some(0.0))?, bound.float(1, Some(1.0))?);
            let shape = size_argument(&bound, 2)?;
            let scale = move |unit: f64| first + unit * if name == "uniform" { second - first } else { second };
            draw(interpreter, shape, DType::F64, span, scale, name == "normal")
        }
        "randint" => {
            let bound = interpreter.bind(&full, &["low", "high", "size"], arguments, false, span)?;
            let (low, high) = match bound.optional(1) {
                None | Some(Value::None) => (0, bound.int(0, None)?),
                Some(_) => (bound.int(0, None)?, bound.int(1, None)?),
            };
            if high <= low {
                return Err(fail("low >= high"));
            }
            let width = (high - low) as f64;
            let shape = size_argument(&bound, 2)?;
            let pick = move |unit: f64| (low as f64 + (unit * width).floor()).min(high as f64 - 1.0);
            draw(interpreter, shape, DType::I64, span, pick, false)
        }
        "choice" => {
            let bound = interpreter.bind(&full, &["a", "size", "replace"], arguments, false, span)?;
            let population: Vec<Value> = match bound.required(0)? {
                Value::Int(count) if *count > 0 => (0..*count).map(Value::Int).collect(),
                Value::Int(_) => return Err(fail("a must be greater than 0 unless no samples are taken")),
                other => interpreter.iterate(other, bound.span_of(0))?,
            };
            let shape = size_argument(&bound, 1)?;
            let count = shape.as_ref().map_or(1, |shape| shape.iter().product::<usize>());
            let replace = bound.flag(2, true)?;
            if !replace && count > population.len() {
                return Err(fail("Cannot take a larger sample than population when 'replace=False'"));
            }
            let units = Tensor::rand(&[population.len().max(count)], DType::F64, None)
                .map_err(|error| interpreter.tensor_error(error, span))?
                .to_f64_vec();
            let picked: Vec<Value> = if replace {
                units[..count]
                    .iter()
                    .map(|unit| {
                        population[((unit * population.len() as f64) as usize).min(population.len() - 1)].clone()
                    })
                    .collect()
            } else {
                // A random order of the population (sorting by uniform keys), its first `count`.
                let mut order: Vec<usize> = (0..population.len()).collect();
                order.sort_by(|left, right| units[*left].total_cmp(&units[*right]));
                order[..count].iter().map(|&index| population[index].clone()).collect()
            };
            match shape {
                None => Ok(picked.into_iter().next().unwrap_or(Value::None)),
                Some(shape) => {
                    let data = Value::list(picked);
                    let dtype = if matches!(data_first(&data), Some(Value::Int(_))) { DType::I64 } else { DType::F64 };
                    let tensor = interpreter.tensor_from_data(&data, dtype, span)?;
                    let tensor = tensor.reshape(&shape).map_err(|error| interpreter.tensor_error(error, span))?;
                    Ok(TensorObject::value(Var::constant(tensor)))
                }
            }
        }
        "permutation" => {
            // An int n: a random order of 0..n; an array: a shuffled copy, along its first dim.
            let bound = interpreter.bind(&full, &["x"], arguments, false, span)?;
            let source = match bound.required(0)? {
                Value::Int(count) if *count >= 0 => {
                    let count = *count as usize;
                    interpreter.check_elements(&[count], span)?;
                    Tensor::from_f64((0..count).map(|index| index as f64).collect(), &[count], DType::I64)
                        .map_err(|error| interpreter.tensor_error(error, span))?
                }
                _ => bound.tensor(0)?.tensor().clone(),
            };
            let Some(&rows) = source.shape().first() else {
                return Err(fail("x must be an integer or at least 1-dimensional"));
            };
            let units = Tensor::rand(&[rows.max(1)], DType::F64, None)
                .map_err(|error| interpreter.tensor_error(error, span))?
                .to_f64_vec();
            let mut order: Vec<usize> = (0..rows).collect();
            order.sort_by(|left, right| units[*left].total_cmp(&units[*right]));
            let values = source.to_f64_vec();
            let width = values.len() / rows.max(1);
            let shuffled =
                order.iter().flat_map(|&row| values[row * width..(row + 1) * width].iter().copied()).collect();
            let tensor = Tensor::from_f64(shuffled, source.shape(), source.dtype())
                .map_err(|error| interpreter.tensor_error(error, span))?;
            Ok(TensorObject::value(Var::constant(tensor)))
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(crate::messages::LibraryMessage::NotAvailableHere { name: full })),
    }
}

fn data_first(data: &Value) -> Option<Value> {
    match data {
        Value::List(items) => items.borrow().first().cloned(),
        _ => None,
    }
}

/// The `size` argument: `None` (one number) or a shape.
fn size_argument(bound: &super::call::Bound, index: usize) -> Result<Option<Vec<usize>>> {
    match bound.optional(index) {
        None | Some(Value::None) => Ok(None),
        Some(_) => bound.shape(index).map(Some),
    }
}

/// `shape` numbers drawn uniformly in [0, 1) (normally when `normal`), mapped by `map`: an array
/// of `dtype`, or one number when `shape` is `None`.
fn draw(
    interpreter: &Interpreter,
    shape: Option<Vec<usize>>,
    dtype: DType,
    span: Span,
    map: impl Fn(f64) -> f64,
    normal: bool,
) -> Result<Value> {
    let dims = shape.clone().unwrap_or_else(|| vec![1]);
    interpreter.check_elements(&dims, span)?;
    let units = if normal { Tensor::randn(&dims, DType::F64, None) } else { Tensor::rand(&dims, DType::F64, None) }
        .map_err(|error| interpreter.tensor_error(error, span))?;
    let values: Vec<f64> = units.to_f64_vec().into_iter().map(map).collect();
    match shape {
        None if dtype == DType::I64 => Ok(Value::Int(values[0] as i64)),
        None => Ok(Value::Float(values[0])),
        Some(shape) => {
            let tensor =
                Tensor::from_f64(values, &shape, dtype).map_err(|error| interpreter.tensor_error(error, span))?;
            Ok(TensorObject::value(Var::constant(tensor)))
        }
    }
}
