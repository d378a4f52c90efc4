//! Text of values: `str()` and `repr()` as Python prints them, format specs of f-strings, and the
//! value preview of tensors.

use super::value::{DTypeFamily, Object, Value};
use crate::messages::RuntimeMessage;
use crate::tensor::Tensor;

/// Python's `repr(float)`: the shortest round-trip digits, `.0` on integral values, an exponent
/// below 1e-4 and from 1e16 on.
pub fn format_float(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-4..1e16).contains(&magnitude) {
        let text = format!("{value:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    let text = format!("{value}");
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

/// `str(value)`.
pub fn to_str(value: &Value) -> String {
    match value {
        Value::Str(text) => text.to_string(),
        Value::Object(object) if matches!(object.as_ref(), Object::Exception { .. }) => match object.as_ref() {
            Object::Exception { message, .. } => message.clone(),
            _ => String::new(),
        },
        Value::Object(object) if matches!(object.as_ref(), Object::Path(_) | Object::Device(_)) => {
            match object.as_ref() {
                Object::Path(text) => text.clone(),
                Object::Device(device) => device.text(),
                _ => String::new(),
            }
        }
        Value::Instance(instance) if super::classes::enumeration::member_type(&instance.class).is_some() => {
            super::classes::enumeration::member_text(instance).unwrap_or_default()
        }
        other => repr(other),
    }
}

/// `repr(value)`. Containers nested deeper than `MAX_REPR_DEPTH` (or containing themselves) print
/// as `[...]`.
pub fn repr(value: &Value) -> String {
    repr_at(value, 0)
}

const MAX_REPR_DEPTH: usize = 64;

thread_local! {
    /// The instances whose repr is being built (innermost last).
    static PRINTING: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn repr_at(value: &Value, depth: usize) -> String {
    if depth > MAX_REPR_DEPTH
        && matches!(value, Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) | Value::Instance(_))
    {
        return "[...]".into();
    }
    let join = |items: &[Value]| items.iter().map(|item| repr_at(item, depth + 1)).collect::<Vec<_>>().join(", ");
    match value {
        Value::None => "None".into(),
        Value::Bool(flag) => if *flag { "True" } else { "False" }.into(),
        Value::Int(number) => number.to_string(),
        Value::Float(number) => format_float(*number),
        Value::Str(text) => quote(text),
        Value::List(items) => format!("[{}]", join(&items.borrow())),
        Value::Tuple(items) if items.len() == 1 => format!("({},)", repr_at(&items[0], depth + 1)),
        Value::Tuple(items) => format!("({})", join(items)),
        Value::Dict(entries) => {
            let parts: Vec<String> = entries
                .borrow()
                .iter()
                .map(|(key, value)| format!("{}: {}", repr_at(key, depth + 1), repr_at(value, depth + 1)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Set(members) if members.borrow().is_empty() => "set()".into(),
        Value::Set(members) => format!("{{{}}}", join(&members.borrow())),
        Value::Range(start, stop, step) if *step == 1 => format!("range({start}, {stop})"),
        Value::Range(start, stop, step) => format!("range({start}, {stop}, {step})"),
        Value::Slice(bounds) => {
            let [a, b, c] = &**bounds;
            let part = |x: &Option<i64>| x.map_or("None".to_string(), |v| v.to_string());
            format!("slice({}, {}, {})", part(a), part(b), part(c))
        }
        Value::Ellipsis => "Ellipsis".into(),
        Value::Function(function) => format!("<function {}>", function.name),
        Value::Builtin(name) if super::classes::is_type_name(name) => format!("<class '{name}'>"),
        Value::Builtin(name) => format!("<built-in function {name}>"),
        Value::Module(name) => format!("<module '{name}'>"),
        Value::Method(bound) => format!("<bound method {}.{}>", bound.0.type_name(), bound.1),
        Value::Tensor(object) => {
            let var = object.get();
            let grad = if var.requires_grad() { ", requires_grad=True" } else { "" };
            format!("tensor({}, dtype={}{grad})", tensor_preview(var.tensor(), 6), var.dtype().pypto_name())
        }
        Value::DType(dtype, family) => match family {
            DTypeFamily::Pypto => format!("pypto.{}", dtype.pypto_name()),
            DTypeFamily::Torch => format!("torch.{}", dtype.torch_name()),
            DTypeFamily::Numpy => dtype.torch_name().to_string(),
        },
        Value::Kernel(kernel) => format!("<kernel {}>", kernel.name),
        Value::Class(class) => format!("<class '{}'>", class.name),
        // A dataclass or NamedTuple shows its fields, as Python's generated `__repr__` does.
        Value::Instance(instance) if super::classes::enumeration::member_type(&instance.class).is_some() => {
            super::classes::enumeration::member_repr(instance).unwrap_or_default()
        }
        Value::Instance(instance) => match instance.named_fields() {
            Some(fields) if instance.class.generated("__repr__").is_some() => {
                // An instance inside its own fields prints as `...`, as Python's dataclass repr does.
                let address = std::rc::Rc::as_ptr(instance) as usize;
                if PRINTING.with(|printing| printing.borrow().contains(&address)) {
                    return "...".into();
                }
                PRINTING.with(|printing| printing.borrow_mut().push(address));
                let parts: Vec<String> =
                    fields.iter().map(|(name, value)| format!("{name}={}", repr_at(value, depth + 1))).collect();
                PRINTING.with(|printing| printing.borrow_mut().pop());
                format!("{}({})", instance.class.name, parts.join(", "))
            }
            _ => format!("<{} object>", instance.class.name),
        },
        Value::Object(object) => match object.as_ref() {
            Object::GradCheck { report, .. } => {
                let worst = report.inputs.iter().map(|input| input.max_abs_error).fold(0.0, f64::max);
                format!(
                    "<GradCheckReport passed={} max_abs_err={}>",
                    if report.passed { "True" } else { "False" },
                    format_float(worst)
                )
            }
            Object::Graph(graph) => {
                format!("<Graph {} nodes, {} backward nodes>", graph.nodes.len(), graph.backward_nodes.len())
            }
            Object::Schedule(simulation) => {
                let summary = &simulation.summary;
                format!(
                    "<Schedule on {}: {} cycles, {:.3} us, {}-bound>",
                    summary.preset, summary.cycles, summary.time_us, summary.bound
                )
            }
            Object::Api(api) => api.repr(),
            Object::Exception { name, message } => format!("{name}({})", quote(message)),
            Object::Path(text) => format!("PosixPath({})", quote(text)),
            Object::RegexMatch(found) => found.repr(),
            Object::Device(device) => device.repr(),
            other => format!("<{}>", super::value::object_name(other)),
        },
    }
}

pub(crate) fn quote(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for character in text.chars() {
        match character {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The values of a tensor as nested lists, at most `edge` items per dim at each end (`...` between).
pub fn tensor_preview(tensor: &Tensor, edge: usize) -> String {
    // Integers print exactly (also int64 above 2^53), masks as True/False, floats shortened.
    let values: Vec<String> = match tensor.dtype() {
        crate::tensor::DType::Bool => {
            tensor.storage().to_i64_vec().iter().map(|&v| if v != 0 { "True" } else { "False" }.to_string()).collect()
        }
        dtype if !dtype.is_float() => tensor.storage().to_i64_vec().iter().map(i64::to_string).collect(),
        _ => tensor.to_f64_vec().into_iter().map(format_element).collect(),
    };
    let shape = tensor.shape().to_vec();
    if shape.is_empty() {
        return values.into_iter().next().unwrap_or_else(|| "0.0".into());
    }
    let mut out = String::new();
    preview_dim(&values, &shape, 0, 0, edge, &mut out);
    out
}

fn preview_dim(values: &[String], shape: &[usize], axis: usize, offset: usize, edge: usize, out: &mut String) {
    let stride: usize = shape[axis + 1..].iter().product();
    let size = shape[axis];
    out.push('[');
    let indices: Vec<Option<usize>> = if size > 2 * edge {
        (0..edge).map(Some).chain(std::iter::once(None)).chain((size - edge..size).map(Some)).collect()
    } else {
        (0..size).map(Some).collect()
    };
    for (position, index) in indices.iter().enumerate() {
        if position > 0 {
            out.push_str(", ");
        }
        match index {
            None => out.push_str("..."),
            Some(index) if axis + 1 == shape.len() => {
                out.push_str(values.get(offset + index).map_or("0.0", String::as_str))
            }
            Some(index) => preview_dim(values, shape, axis + 1, offset + index * stride, edge, out),
        }
    }
    out.push(']');
}

fn format_element(value: f64) -> String {
    if value.is_finite() && value != 0.0 && (value.abs() < 1e-4 || value.abs() >= 1e6) {
        format!("{value:.4e}")
    } else if value.is_finite() {
        let text = format!("{value:.4}");
        let trimmed = text.trim_end_matches('0');
        if trimmed.ends_with('.') {
            format!("{trimmed}0")
        } else {
            trimmed.to_string()
        }
    } else {
        format_float(value)
    }
}

/// The widest field and the most digits a format spec may ask for.
const MAX_FORMAT_WIDTH: usize = 10_000;

/// `format(value, spec)` for the f-string specs `[[fill]align][sign][width][,][.precision][type]`.
pub fn format_with_spec(value: &Value, spec: &str) -> Result<String, RuntimeMessage> {
    // A one-element tensor formats as its number, as torch's 0-d tensors and numpy's scalars do
    // (`f"{np.abs(a - b).max():.6f}"`).
    if let Value::Tensor(object) = value {
        let var = object.get();
        if var.tensor().numel() == 1 && !spec.is_empty() {
            let number = var.tensor().to_f64_vec()[0];
            let scalar = if var.dtype().is_float() { Value::Float(number) } else { Value::Int(number as i64) };
            return format_with_spec(&scalar, spec);
        }
    }
    let mut chars: Vec<char> = spec.chars().collect();
    let mut fill = ' ';
    let mut align = None;
    if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^') {
        fill = chars[0];
        align = Some(chars[1]);
        chars.drain(..2);
    } else if !chars.is_empty() && matches!(chars[0], '<' | '>' | '^') {
        align = Some(chars[0]);
        chars.drain(..1);
    }
    let mut plus = false;
    if chars.first() == Some(&'+') {
        plus = true;
        chars.remove(0);
    }
    let rest: String = chars.iter().collect();
    let (width_part, tail) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
    let width: usize = if width_part.is_empty() { 0 } else { width_part.parse().unwrap_or(usize::MAX) };
    if width > MAX_FORMAT_WIDTH {
        return Err(RuntimeMessage::FormatWidthTooLarge { spec: spec.to_string(), limit: MAX_FORMAT_WIDTH });
    }
    let (precision, kind) = match tail.strip_prefix('.') {
        Some(after) => {
            let (digits, kind) = after.split_at(after.find(|c: char| !c.is_ascii_digit()).unwrap_or(after.len()));
            (
                Some(
                    digits
                        .parse::<usize>()
                        .map_err(|_| RuntimeMessage::InvalidFormatSpec { spec: spec.to_string() })?,
                ),
                kind,
            )
        }
        None => (None, tail),
    };
    if precision.is_some_and(|digits| digits > MAX_FORMAT_WIDTH) {
        return Err(RuntimeMessage::FormatPrecisionTooLarge { spec: spec.to_string(), limit: MAX_FORMAT_WIDTH });
    }
    let number = value.as_number();
    let mut text = match (kind, number) {
        ("f", Some(x)) | ("F", Some(x)) => format!("{:.*}", precision.unwrap_or(6), x),
        ("e", Some(x)) => python_exponent(format!("{:.*e}", precision.unwrap_or(6), x)),
        ("%", Some(x)) => format!("{:.*}%", precision.unwrap_or(6), x * 100.0),
        ("g", Some(x)) | ("", Some(x)) if precision.is_some() => general(x, precision.unwrap_or(6)),
        ("d", _) => match value.as_int() {
            Some(integer) => integer.to_string(),
            None => return Err(RuntimeMessage::FormatNeedsInteger { got: value.type_name().to_string() }),
        },
        ("", _) | ("s", _) => to_str(value),
        (other, _) => {
            let (code, type_name) = (other.to_string(), value.type_name().to_string());
            return Err(RuntimeMessage::UnknownFormatCode { code, type_name });
        }
    };
    if plus && number.is_some_and(|x| x >= 0.0) {
        text.insert(0, '+');
    }
    let length = text.chars().count();
    if length < width {
        let pad = width - length;
        let default_align = if number.is_some() { '>' } else { '<' };
        text = match align.unwrap_or(default_align) {
            '<' => format!("{text}{}", fill.to_string().repeat(pad)),
            '^' => format!("{}{text}{}", fill.to_string().repeat(pad / 2), fill.to_string().repeat(pad - pad / 2)),
            _ => format!("{}{text}", fill.to_string().repeat(pad)),
        };
    }
    Ok(text)
}

fn python_exponent(text: String) -> String {
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let exponent: i32 = exponent.parse().unwrap_or(0);
            format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
        }
        None => text,
    }
}

fn general(value: f64, precision: usize) -> String {
    let precision = precision.max(1);
    if value == 0.0 {
        return "0".into();
    }
    let exponent = value.abs().log10().floor() as i32;
    if exponent < -4 || exponent >= precision as i32 {
        python_exponent(format!("{:.*e}", precision - 1, value))
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        let text = format!("{value:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python() {
        assert_eq!(format_float(1.0), "1.0");
        assert_eq!(format_float(0.1), "0.1");
        assert_eq!(format_float(1e20), "1e+20");
        assert_eq!(format_float(1.5e-7), "1.5e-07");
        assert_eq!(format_float(-2.5), "-2.5");
    }

    #[test]
    fn format_specs_follow_python() {
        assert_eq!(format_with_spec(&Value::Float(1.23456), ".3f").as_deref(), Ok("1.235"));
        assert_eq!(format_with_spec(&Value::Float(12345.678), ".2e").as_deref(), Ok("1.23e+04"));
        assert_eq!(format_with_spec(&Value::Int(42), ">5").as_deref(), Ok("   42"));
        assert_eq!(format_with_spec(&Value::Float(0.000123456), ".3g").as_deref(), Ok("0.000123"));
        assert_eq!(format_with_spec(&Value::string("ab"), "^6").as_deref(), Ok("  ab  "));
    }
}
