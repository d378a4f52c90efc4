//! Save or recompute, per forward value the generated backward reads. Saving costs GM traffic: the
//! forward writes the value (MTE3) and the backward reads it (MTE2) — a returned output is written
//! anyway, so saving it costs the read only. Recomputing costs vector work: the backward redoes the
//! ops that made the value from the forward's inputs, inside its own tile, and holds their tiles in
//! UB. `auto` takes the cheaper side by the chip's rates, and saves when the recomputation would
//! need a matmul (the cube, and its operands' traffic) or more UB than the chip has;
//! `pypto.autodiff.policy("save" | "recompute")` overrides it.

use std::collections::{HashMap, HashSet};

use super::super::capture::{identity, Captured, CapturedOp, Identity, TensorRef};
use crate::npu::NpuConfig;

/// The session's save-or-recompute policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// Per value, by the cost model.
    #[default]
    Auto,
    /// Every value the backward reads is written by the forward.
    Save,
    /// Every value is recomputed from the forward's inputs inside the backward.
    Recompute,
}

impl Policy {
    /// The policy named `name`.
    pub fn parse(name: &str) -> Option<Policy> {
        match name {
            "auto" => Some(Policy::Auto),
            "save" => Some(Policy::Save),
            "recompute" => Some(Policy::Recompute),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Auto => "auto",
            Policy::Save => "save",
            Policy::Recompute => "recompute",
        }
    }
}

/// The decision for one forward value.
#[derive(Clone, Debug)]
pub(crate) struct Choice {
    /// The value.
    pub value: TensorRef,
    /// Whether it is saved (else recomputed).
    pub save: bool,
    /// Whether the forward returns it (then saving it adds no forward write).
    pub output: bool,
}

fn bytes(tensor: &TensorRef) -> f64 {
    (tensor.shape().iter().product::<usize>() * tensor.dtype().size_in_bytes()) as f64
}

/// The forward ops that recomputing `value` redoes: its cone back to `stops` (the forward's
/// arguments and the values saved already).
fn cone<'a>(
    value: &TensorRef,
    definitions: &HashMap<Identity, &'a Captured>,
    stops: &HashSet<Identity>,
) -> Vec<&'a Captured> {
    let mut stack = vec![identity(value)];
    let mut seen = HashSet::new();
    let mut ops = Vec::new();
    while let Some(key) = stack.pop() {
        if stops.contains(&key) || !seen.insert(key.clone()) {
            continue;
        }
        if let Some(op) = definitions.get(&key) {
            ops.push(*op);
            stack.extend(op.op.tensors().into_iter().map(identity));
        }
    }
    ops
}

/// Decides, for each value in `reads`, whether the forward saves it.
pub(crate) fn choose(
    policy: Policy,
    forward_ops: &[Captured],
    arguments: &[TensorRef],
    outputs: &[TensorRef],
    reads: &[TensorRef],
    vec_tile: Option<&[usize]>,
    config: &NpuConfig,
) -> Vec<Choice> {
    let definitions: HashMap<Identity, &Captured> =
        forward_ops.iter().filter_map(|op| op.result.as_ref().map(|result| (identity(result), op))).collect();
    let mut stops: HashSet<Identity> = arguments.iter().map(identity).collect();
    let outputs: HashSet<Identity> = outputs.iter().map(identity).collect();
    let order: HashMap<Identity, usize> = forward_ops
        .iter()
        .enumerate()
        .filter_map(|(index, op)| op.result.as_ref().map(|result| (identity(result), index)))
        .collect();
    // In the forward's order, so a value recomputed from one saved before it redoes only the ops
    // after that one (σ(h) from a saved h, not from the matmul that made h).
    let mut reads: Vec<&TensorRef> = reads.iter().collect();
    reads.sort_by_key(|value| order.get(&identity(*value)).copied().unwrap_or(usize::MAX));
    // A tile of the backward, computed in f32: of half the forward's rows when it has more than
    // one (the backward is also simulated with half the rows, and keeps the faster).
    let tile_bytes = vec_tile.map(|tile| {
        let halved = if tile.first().is_some_and(|&rows| rows > 1) { 2.0 } else { 1.0 };
        (tile.iter().product::<usize>() * 4) as f64 / halved
    });
    let mut choices = Vec::new();
    for value in reads {
        let output = outputs.contains(&identity(value));
        // Cycles of GM traffic saving costs (a write unless it is an output, and a read) …
        let write = if output { 0.0 } else { bytes(value) / config.ub_to_gm_bytes_per_cycle };
        let save_cycles = write + bytes(value) / config.gm_to_ub_bytes_per_cycle;
        let redone = cone(value, &definitions, &stops);
        let matmul = redone.iter().any(|op| matches!(op.op, CapturedOp::Matmul { .. }));
        // One vector pass per redone op over its result, computed in f32.
        let passes: f64 = redone
            .iter()
            .filter_map(|op| op.result.as_ref())
            .map(|result| (result.shape().iter().product::<usize>() * 4) as f64)
            .sum();
        // … against the vector cycles recomputing costs (infinite when a matmul is redone).
        let recompute_cycles = if matmul { f64::INFINITY } else { passes / config.vector_bytes_per_cycle };
        // The redone tiles live in UB next to the backward's own (about four: inputs, gradient,
        // result), each double-buffered.
        let fits = tile_bytes.is_none_or(|tile| (redone.len() as f64 + 4.0) * tile * 2.0 <= config.ub_bytes as f64);
        let save = match policy {
            Policy::Save => true,
            Policy::Recompute => false,
            Policy::Auto => !fits || save_cycles < recompute_cycles,
        };
        if save {
            stops.insert(identity(value));
        }
        choices.push(Choice { value: value.clone(), save, output });
    }
    choices
}
