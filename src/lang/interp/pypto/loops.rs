//! Loop helpers and the scalar arithmetic pypto does on loop-derived values: the stack of running
//! `pypto.loop`s (what `is_loop_begin`/`is_loop_end` ask), `pypto.loop_unroll`, the extra keywords
//! of `pypto.loop`, `pypto.ceildiv`, `pypto.min`/`max` of scalars and `pypto.SymbolicScalar` (whose
//! forms and methods are `symbolic`'s: in pypto loop indices and the values computed from them are
//! symbolic scalars, here they are ints).

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::ast::{Expr, ExprKind};
use crate::lang::syntax::Span;
use crate::messages::{LibraryKernelMessage, LibraryTensorMessage};

/// One running `pypto.loop`: its range and the index of the current iteration.
#[derive(Clone, Copy, Debug)]
pub struct LoopFrame {
    /// The first index.
    pub start: i64,
    /// The bound (exclusive).
    pub stop: i64,
    /// The step (never zero).
    pub step: i64,
    /// The current iteration's index.
    pub current: i64,
}

/// Whether a `for` header's iterable is a `pypto.loop(…)` call (`pypto.loop`, `pt.loop`, or `loop`
/// imported from pypto).
pub(crate) fn is_loop_call(iter: &Expr) -> bool {
    let ExprKind::Call { function, .. } = &iter.kind else { return false };
    match &function.kind {
        ExprKind::Attribute { attribute, .. } => attribute.name == "loop",
        ExprKind::Name(name) => name == "loop",
        _ => false,
    }
}

/// Whether a `for` header's iterable is a `pypto.loop_unroll(…)` call (each factor's pass is a
/// loop of its own in pypto: `is_loop_begin`/`is_loop_end` ask that pass).
pub(crate) fn is_loop_unroll_call(iter: &Expr) -> bool {
    let ExprKind::Call { function, .. } = &iter.kind else { return false };
    match &function.kind {
        ExprKind::Attribute { attribute, .. } => attribute.name == "loop_unroll",
        ExprKind::Name(name) => name == "loop_unroll",
        _ => false,
    }
}

/// The loop frame of each `(index, factor)` pair of a `pypto.loop_unroll`: pypto runs each
/// factor's indices as one `pypto.loop(first, end, step × factor)`, so a pair's frame is its
/// factor's pass (the pass's bound is taken one chunk past its last index, which is exact for
/// `is_loop_end`).
pub(crate) fn unroll_frames(pairs: &[Value]) -> Vec<Option<LoopFrame>> {
    let pair = |value: &Value| match value {
        Value::Tuple(items) if items.len() == 2 => Some((items[0].as_int()?, items[1].as_int()?)),
        _ => None,
    };
    let pairs: Vec<Option<(i64, i64)>> = pairs.iter().map(pair).collect();
    let mut frames = vec![None; pairs.len()];
    let mut first = 0;
    while first < pairs.len() {
        let Some((start, factor)) = pairs[first] else {
            first += 1;
            continue;
        };
        let mut last = first;
        while matches!(pairs.get(last + 1), Some(Some((_, next))) if *next == factor) {
            last += 1;
        }
        let end = pairs[last].map_or(start, |(index, _)| index);
        let chunk = match pairs.get(first + 1) {
            Some(Some((second, _))) if last > first => (second - start).max(1),
            _ => 1,
        };
        let frame = LoopFrame { start, stop: end.saturating_add(chunk), step: chunk, current: start };
        for (index, slot) in frames.iter_mut().enumerate().take(last + 1).skip(first) {
            *slot = pairs[index].map(|(current, _)| LoopFrame { current, ..frame });
        }
        first = last + 1;
    }
    frames
}

/// Keeps a `pypto.loop` on the stack while its `for` runs; pops it however the loop ends.
pub(crate) struct LoopGuard<'a> {
    interpreter: &'a Interpreter,
}

impl Drop for LoopGuard<'_> {
    fn drop(&mut self) {
        self.interpreter.pypto_loops.borrow_mut().pop();
    }
}

impl Interpreter {
    /// Enters a `pypto.loop` over `start..stop` by `step` (the guard leaves it).
    pub(crate) fn enter_loop(&self, start: i64, stop: i64, step: i64) -> LoopGuard<'_> {
        self.pypto_loops.borrow_mut().push(LoopFrame { start, stop, step, current: start });
        LoopGuard { interpreter: self }
    }

    /// Replaces the innermost `pypto.loop`'s frame (a `pypto.loop_unroll` pass's).
    pub(crate) fn set_loop_frame(&self, frame: LoopFrame) {
        if let Some(last) = self.pypto_loops.borrow_mut().last_mut() {
            *last = frame;
        }
    }

    /// Records the index of the innermost `pypto.loop`'s current iteration.
    pub(crate) fn set_loop_index(&self, index: i64) {
        if let Some(frame) = self.pypto_loops.borrow_mut().last_mut() {
            frame.current = index;
        }
    }
}

/// Calls a loop or scalar helper of `pypto`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    match name {
        "is_loop_begin" | "is_loop_end" => {
            let bound = interpreter.bind(&full, &["scalar"], arguments, false, span)?;
            let index = bound.int(0, None)?;
            let frame = enclosing_loop(interpreter, &full, index, bound.span_of(0))?;
            Ok(Value::Bool(if name == "is_loop_begin" {
                index == frame.start
            } else if frame.step > 0 {
                index as i128 + frame.step as i128 >= frame.stop as i128
            } else {
                index as i128 + frame.step as i128 <= frame.stop as i128
            }))
        }
        "loop" => {
            let arguments = ignore_other_keywords(interpreter, &full, arguments);
            let bound = interpreter.bind(&full, &LOOP_PARAMETERS, arguments, false, span)?;
            // pypto's scheduling hints: the iterations are the same with or without them.
            if let Some(factors) = bound.optional(5) {
                unroll_factors(interpreter, factors, bound.span_of(5))?;
            }
            let (start, stop) = match bound.optional(1) {
                None => (0, bound.int(0, None)?),
                Some(_) => (bound.int(0, None)?, bound.int(1, None)?),
            };
            let step = bound.int(2, Some(1))?;
            if step == 0 {
                let message = LibraryTensorMessage::ZeroStep { function: "pypto.loop".into() };
                return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(2)).with_message(message));
            }
            Ok(Value::Range(start, stop, step))
        }
        "loop_unroll" => loop_unroll(interpreter, arguments, span),
        "cond" => {
            // In a jit kernel pypto records a branch; here the condition is decided as Python does.
            let bound = interpreter.bind(&full, &["scalar", "file", "lineno"], arguments, false, span)?;
            if bound.optional(1).is_some() != bound.optional(2).is_some() {
                return Err(interpreter
                    .error(ErrorKind::Value, "", span)
                    .with_message(LibraryKernelMessage::FileAndLineno));
            }
            Ok(bound.required(0)?.clone())
        }
        "symbolic_scalar" | "SymbolicScalar" => super::symbolic::construct(interpreter, arguments, span),
        "ceildiv" => {
            let bound = interpreter.bind(&full, &["a", "b"], arguments, false, span)?;
            let (a, b) = (bound.int(0, None)?, bound.int(1, None)?);
            if b == 0 {
                let message = LibraryKernelMessage::DivisionByZero { function: "pypto.ceildiv".into() };
                return Err(interpreter.error(ErrorKind::ZeroDivision, "", bound.span_of(1)).with_message(message));
            }
            // pypto's definition, (a + b - 1) // b, with Python's floor division.
            // In i128: a + b - 1 cannot overflow there, and the quotient fits i64 unless it is
            // i64::MIN / -1's kind.
            let (sum, divisor) = (a as i128 + b as i128 - 1, b as i128);
            let floored = sum.div_euclid(divisor) - i128::from(divisor < 0 && sum.rem_euclid(divisor) != 0);
            let value = i64::try_from(floored).map_err(|_| {
                let message = LibraryKernelMessage::Overflow { function: "pypto.ceildiv".into() };
                interpreter.error(ErrorKind::Overflow, "", span).with_message(message)
            })?;
            Ok(Value::Int(value))
        }
        _ => {
            let bound = interpreter.bind(&full, &["a", "b"], arguments, false, span)?;
            super::symbolic::scalar_extreme(interpreter, name, bound.required(0)?, bound.required(1)?, span)
        }
    }
}

/// The innermost running `pypto.loop` whose current index is `index` (pypto asks the loop the
/// index belongs to; nested loops at the same index are resolved innermost first, as pypto's
/// frontend does).
fn enclosing_loop(interpreter: &Interpreter, function: &str, index: i64, span: Span) -> Result<LoopFrame> {
    let loops = interpreter.pypto_loops.borrow();
    if loops.is_empty() {
        return Err(interpreter
            .error(ErrorKind::Value, "", span)
            .with_message(LibraryKernelMessage::OutsideLoop { function: function.to_string() })
            .with_help_message(LibraryKernelMessage::LoopPosition));
    }
    loops.iter().rev().find(|frame| frame.current == index).copied().ok_or_else(|| {
        interpreter
            .error(ErrorKind::Value, "", span)
            .with_message(LibraryKernelMessage::NotLoopIndex { function: function.to_string(), index })
            .with_help_message(LibraryKernelMessage::PassLoopVariable)
    })
}

/// The unroll factors of `unroll_list`: positive ints.
fn unroll_factors(interpreter: &Interpreter, value: &Value, span: Span) -> Result<Vec<i64>> {
    let items = interpreter.iterate(value, span)?;
    items
        .iter()
        .map(|item| match item.as_int() {
            Some(factor) if factor > 0 && !matches!(item, Value::Bool(_)) => Ok(factor),
            _ => Err(interpreter
                .error(ErrorKind::Value, "", span)
                .with_message(LibraryKernelMessage::UnrollFactors { got: crate::lang::interp::format::repr(item) })),
        })
        .collect()
}

/// `pypto.loop_unroll(start, stop, step, unroll_list=[1], …)`: pypto's schedule of the range in
/// chunks, largest factor first, as `(index, factor)` pairs: for each factor `p` (sorted down,
/// with 1 added) the loop runs from where the last one stopped to `stop - (stop - start) % (step*p)`
/// by `step*p`, exactly as pypto computes it.
fn loop_unroll(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let arguments = ignore_other_keywords(interpreter, "pypto.loop_unroll", arguments);
    let bound = interpreter.bind("pypto.loop_unroll", &LOOP_PARAMETERS, arguments, false, span)?;
    let mut factors = match bound.optional(5) {
        Some(list) => unroll_factors(interpreter, list, bound.span_of(5))?,
        None => vec![1],
    };
    let (start, stop) = match bound.optional(1) {
        None => (0, bound.int(0, None)?),
        Some(_) => (bound.int(0, None)?, bound.int(1, None)?),
    };
    let step = bound.int(2, Some(1))?;
    if step <= 0 {
        let message = LibraryKernelMessage::MustBePositive {
            function: "pypto.loop_unroll".into(),
            parameter: "step".into(),
            got: None,
        };
        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(2)).with_message(message));
    }
    factors.sort_unstable_by(|a, b| b.cmp(a));
    factors.dedup();
    if !factors.contains(&1) {
        factors.push(1);
    }
    let mut pairs = Vec::new();
    if stop <= start {
        return Ok(Value::list(pairs));
    }
    let mut next = start;
    for factor in factors {
        let chunk = step.checked_mul(factor).ok_or_else(|| {
            let message = LibraryKernelMessage::ProductOverflow {
                function: "pypto.loop_unroll".into(),
                what: "step × factor".into(),
            };
            interpreter.error(ErrorKind::Overflow, "", span).with_message(message)
        })?;
        // i128 keeps ranges near the ends of i64 from overflowing; `end` lies between start and stop.
        let end = (stop as i128 - (stop as i128 - start as i128).rem_euclid(chunk as i128)) as i64;
        let mut index = next as i128;
        while index < end as i128 {
            interpreter.check_items(pairs.len() + 1, span)?;
            pairs.push(Value::tuple(vec![Value::Int(index as i64), Value::Int(factor)]));
            index += chunk as i128;
        }
        next = end;
    }
    // pypto's split measures each remainder from `start`, not from where the last pass stopped: when
    // `stop - start` is not a multiple of `step` the last index is never visited. Same here, said.
    let visited: i64 = pairs
        .iter()
        .filter_map(|pair| match pair {
            Value::Tuple(items) => items.get(1).and_then(Value::as_int),
            _ => None,
        })
        .sum();
    let expected = ((stop as i128 - start as i128 + step as i128 - 1) / step as i128) as i64;
    if visited < expected {
        let message = crate::messages::NpuMessage::LoopUnrollSkips { start, stop, step, visited, expected };
        let help = crate::messages::NpuMessage::MultipleOfStep { step };
        interpreter.warn_message("lang/loop-unroll-skips", message.into(), span, Some(help.into()));
    }
    Ok(Value::list(pairs))
}

/// The parameters of `pypto.loop` and `pypto.loop_unroll` (which passes its keywords on to `loop`).
const LOOP_PARAMETERS: [&str; 8] =
    ["start", "stop", "step", "name", "idx_name", "unroll_list", "submit_before_loop", "parallel"];

/// pypto's loops take `**kwargs` and read only the keywords they know: another keyword (`idx=`) is
/// ignored there, so here too, with a warning at the call that names what pypto reads.
fn ignore_other_keywords(interpreter: &Interpreter, function: &str, mut arguments: Arguments) -> Arguments {
    arguments.keywords.retain(|(keyword, _, keyword_span)| {
        let known = LOOP_PARAMETERS[3..].contains(&keyword.as_str());
        if !known {
            let message = crate::messages::LibraryTilingMessage::IgnoredKeyword {
                function: function.to_string(),
                keyword: keyword.clone(),
                known: LOOP_PARAMETERS[3..].join(", "),
            };
            interpreter.warn_message("lang/unknown-option", message.into(), *keyword_span, None);
        }
        known
    });
    arguments
}
