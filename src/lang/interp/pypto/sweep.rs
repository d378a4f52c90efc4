//! `pypto.npu.sweep(kernel, args, vec_tiles=[…])`: one call of the kernel (on the NPU), whose
//! recorded work is re-tiled and simulated once per vec tile shape. The shape replaces the kernel's
//! `set_vec_tile_shapes` when the work is cut into units, so the user's source and kernel stay as
//! written. (A jit kernel's tiles are its own views: every row simulates the same work.) A shape the chip refuses
//! (overflow, misalignment) is a row with its error, not a failed sweep.

use std::rc::Rc;

use serde::Serialize;

use super::schedule::{record, ScheduleFailure};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::LibraryKernelMessage;

/// One tile shape of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SweepRow {
    /// The vec tile dims.
    pub vec_tile: Vec<usize>,
    /// Simulated cycles (`None` when the shape was refused).
    pub cycles: Option<u64>,
    /// Simulated time in µs.
    pub time_us: Option<f64>,
    /// The busiest resource (`MTE2`, `VECTOR` …).
    pub bound: Option<String>,
    /// Peak UB occupancy in bytes.
    pub peak_ub_bytes: Option<u64>,
    /// Why the shape was refused.
    pub error: Option<String>,
    /// `error` as a message code with parameters (capacity and alignment coded), for the page.
    pub error_message: Option<crate::messages::Message>,
}

/// The result of a sweep: one row per shape, in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SweepTable {
    /// The kernel's name.
    pub kernel: String,
    /// The NPU preset it ran on.
    pub preset: String,
    /// One row per vec tile shape.
    pub rows: Vec<SweepRow>,
    /// Index of the row with the fewest cycles (the first on ties; `None` when every row failed).
    pub best: Option<usize>,
}

/// Calls `pypto.npu.sweep(kernel, args, vec_tiles=[…])`.
pub(crate) fn call(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind("pypto.npu.sweep", &["kernel", "args", "vec_tiles"], arguments, false, span)?;
    let kernel = bound.required(0)?.clone();
    let kernel_span = bound.span_of(0);
    let kernel_arguments = match bound.required(1)? {
        Value::Tuple(_) | Value::List(_) => interpreter.iterate(bound.required(1)?, bound.span_of(1))?,
        // A single tensor is the one argument of a one-input kernel.
        single => vec![single.clone()],
    };
    let shapes_span = bound.span_of(2);
    let shapes = interpreter.iterate(bound.required(2)?, shapes_span)?;
    if shapes.is_empty() {
        return Err(interpreter
            .error(ErrorKind::Value, "", shapes_span)
            .with_message(LibraryKernelMessage::NoVecTiles)
            .with_help_message(LibraryKernelMessage::VecTilesForm));
    }
    let shapes = shapes
        .iter()
        .map(|shape| interpreter.to_shape(shape, shapes_span, "pypto.npu.sweep"))
        .collect::<Result<Vec<_>>>()?;
    if let Some(empty) = shapes.iter().position(|shape| shape.is_empty() || shape.contains(&0)) {
        let message = LibraryKernelMessage::SweepTileDims { index: empty, tile: shapes[empty].clone() };
        return Err(interpreter.error(ErrorKind::TileShape, "", shapes_span).with_message(message));
    }
    let positional = kernel_arguments.into_iter().map(|value| (value, bound.span_of(1))).collect();
    // The sweep's own call gives the recorded work; the rows, not that call, are its traces.
    interpreter.npu.untraced_call.set(true);
    let run = record(
        interpreter,
        &kernel,
        kernel_span,
        Arguments { positional, keywords: Vec::new() },
        "pypto.npu.sweep",
        span,
    );
    interpreter.npu.untraced_call.set(false);
    let run = run?;
    let mut rows = Vec::with_capacity(shapes.len());
    let total = shapes.len();
    for shape in shapes {
        let mut row = SweepRow {
            vec_tile: shape.clone(),
            cycles: None,
            time_us: None,
            bound: None,
            peak_ub_bytes: None,
            error: None,
            error_message: None,
        };
        match alignment_error(&shape, run.frame.dtype.size_in_bytes(), run.config.ub_alignment as usize)
            .map_or_else(|| run.simulate_with(interpreter, &shape), |message| Err(ScheduleFailure::Chip(message)))
        {
            Ok(simulation) => {
                let summary = &simulation.summary;
                row.cycles = Some(summary.cycles);
                row.time_us = Some(summary.time_us);
                row.bound = Some(summary.bound.clone());
                row.peak_ub_bytes = summary.peak_occupancy.get("UB").copied();
                let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
                super::traces::record_trace(&format!("{}-vec{}", run.kernel.name, dims.join("x")), &simulation);
            }
            // The kernel itself cannot be lowered: no shape would help, so the sweep fails.
            Err(ScheduleFailure::Unsupported(message)) => {
                return Err(interpreter.error(ErrorKind::Unsupported, "", span).with_message(message))
            }
            Err(ScheduleFailure::Chip(message)) => {
                row.error = Some(message.english());
                row.error_message = Some(message);
            }
        }
        rows.push(row);
        crate::lang::interp::progress::report_progress("sweep", rows.len(), total);
    }
    let best = best_row(&rows);
    let table = SweepTable { kernel: run.kernel.name.clone(), preset: run.config.name.clone(), rows, best };
    Ok(Value::object(Object::Sweep(Rc::new(table))))
}

/// The UB-granule rule `set_vec_tile_shapes` applies to the last dim, for shapes that bypass it.
fn alignment_error(shape: &[usize], element_bytes: usize, granule: usize) -> Option<crate::messages::Message> {
    let last = *shape.last()?;
    let align = (granule / element_bytes).max(1);
    (last % align != 0).then_some(crate::messages::Message::MisalignedLastDim { last, granule, element_bytes, align })
}

/// The row with the fewest cycles; the first of equals.
fn best_row(rows: &[SweepRow]) -> Option<usize> {
    rows.iter().enumerate().filter_map(|(index, row)| Some((row.cycles?, index))).min().map(|(_, index)| index)
}

fn optional<T>(value: Option<T>, convert: impl Fn(T) -> Value) -> Value {
    value.map_or(Value::None, convert)
}

/// A row as a script dict.
fn row_value(row: &SweepRow) -> Value {
    let entries = vec![
        (Value::string("vec_tile"), Value::list(row.vec_tile.iter().map(|&dim| Value::Int(dim as i64)).collect())),
        (Value::string("cycles"), optional(row.cycles, |cycles| Value::Int(cycles as i64))),
        (Value::string("time_us"), optional(row.time_us, Value::Float)),
        (Value::string("bound"), optional(row.bound.clone(), Value::string)),
        (Value::string("peak_ub_bytes"), optional(row.peak_ub_bytes, |bytes| Value::Int(bytes as i64))),
        (Value::string("error"), optional(row.error.clone(), Value::string)),
    ];
    Value::dict(entries)
}

/// `sweep.name` (None when a sweep has no such attribute).
pub(crate) fn attribute(table: &SweepTable, name: &str) -> Option<Value> {
    Some(match name {
        "rows" => Value::list(table.rows.iter().map(row_value).collect()),
        "best" => optional(table.best.and_then(|index| table.rows.get(index)), row_value),
        "best_index" => optional(table.best, |index| Value::Int(index as i64)),
        "kernel" => Value::string(table.kernel.as_str()),
        "preset" => Value::string(table.preset.as_str()),
        _ => return None,
    })
}

/// The sweep as a text table with the best row marked by `*`.
pub fn sweep_text(table: &SweepTable) -> String {
    let mut text = format!(
        "Sweep of {} on {} ({} vec tiles)\n    {:<12} {:>10} {:>10} {:>8} {:>10}",
        table.kernel,
        table.preset,
        table.rows.len(),
        "vec_tile",
        "cycles",
        "time_us",
        "bound",
        "UB bytes"
    );
    for (index, row) in table.rows.iter().enumerate() {
        let marker = if table.best == Some(index) { "*" } else { " " };
        let dims: Vec<String> = row.vec_tile.iter().map(usize::to_string).collect();
        let shape = dims.join("x");
        match (&row.error, row.cycles, row.time_us) {
            (Some(error), _, _) => text.push_str(&format!("\n  {marker} {shape:<12} error: {error}")),
            (None, Some(cycles), Some(time_us)) => text.push_str(&format!(
                "\n  {marker} {shape:<12} {cycles:>10} {time_us:>10.3} {:>8} {:>10}",
                row.bound.as_deref().unwrap_or("-"),
                row.peak_ub_bytes.map_or("-".to_string(), |bytes| bytes.to_string())
            )),
            _ => text.push_str(&format!("\n  {marker} {shape:<12} (no result)")),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cycles: Option<u64>) -> SweepRow {
        SweepRow {
            vec_tile: vec![8, 64],
            cycles,
            time_us: cycles.map(|c| c as f64 / 1000.0),
            bound: None,
            peak_ub_bytes: None,
            error: cycles.is_none().then(|| "overflow".into()),
            error_message: None,
        }
    }

    #[test]
    fn the_best_row_has_the_fewest_cycles_and_errors_never_win() {
        assert_eq!(best_row(&[row(Some(30)), row(None), row(Some(20)), row(Some(20))]), Some(2));
        assert_eq!(best_row(&[row(None)]), None);
    }

    #[test]
    fn alignment_follows_the_32_byte_rule() {
        // f32: 8 elements per 32 bytes; f16: 16.
        assert!(alignment_error(&[8, 64], 4, 32).is_none());
        assert!(alignment_error(&[8, 12], 4, 32).is_some());
        assert!(alignment_error(&[8, 24], 2, 32).is_some());
    }

    #[test]
    fn the_text_marks_the_best_row() {
        let table = SweepTable {
            kernel: "k".into(),
            preset: "teaching".into(),
            rows: vec![row(Some(30)), row(Some(20)), row(None)],
            best: Some(1),
        };
        let text = sweep_text(&table);
        let marked: Vec<&str> = text.lines().filter(|line| line.trim_start().starts_with('*')).collect();
        assert_eq!(marked.len(), 1);
        assert!(marked[0].contains("20"), "{text}");
        assert!(text.contains("error: overflow"));
    }
}
