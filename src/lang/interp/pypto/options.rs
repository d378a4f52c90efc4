//! The options of `pypto.frontend.jit(pass_options=…, runtime_options=…)` (DESIGN §3.1 step 5):
//! every option pypto's configuration documents, with what the simulator does with it. A modelled
//! option changes the schedule; the others are accepted with one "accepted, not modelled" note; a
//! key pypto does not document is a warning that names it. docs/npu-model.md lists the same table.

use crate::lang::interp::value::Value;
use crate::messages::OptionFeature;
use crate::messages::OptionFeature::*;

/// What the simulator does with an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// It changes the compiled kernel; the text says how.
    Modelled(&'static str),
    /// It is accepted and has no effect here; the feature is what it configures on the device.
    NotModelled(OptionFeature),
}

/// `pass_options` keys, in pypto's configuration order.
pub const PASS_OPTIONS: [(&str, Effect); 24] = [
    ("vec_nbuffer_setting", Effect::Modelled("UB buffer copies per vector task (int, or {-1: default, …}): tasks on one core alternate copies so loads overlap compute")),
    ("vec_nbuffer_setting_by_func", Effect::NotModelled(PerFunctionVecBuffering)),
    ("vec_nbuffer_setting_by_label", Effect::NotModelled(PerLabelVecBuffering)),
    ("cube_nbuffer_setting", Effect::Modelled("L1 operand buffer copies of the cube (int, {-1: n} or [[-1, n]]): more copies let the next L1 load overlap the cube")),
    ("cube_nbuffer_setting_by_func", Effect::NotModelled(PerFunctionCubeBuffering)),
    ("cube_nbuffer_setting_by_label", Effect::NotModelled(PerLabelCubeBuffering)),
    ("cube_l1_reuse_setting", Effect::NotModelled(L1Reuse)),
    ("cube_l1_reuse_setting_by_func", Effect::NotModelled(PerFunctionL1Reuse)),
    ("cube_l1_reuse_setting_by_label", Effect::NotModelled(PerLabelL1Reuse)),
    ("pg_parallel_lower_bound", Effect::NotModelled(PartitionParallelism)),
    ("pg_lower_bound", Effect::NotModelled(PartitionLowerBound)),
    ("pg_upper_bound", Effect::NotModelled(PartitionUpperBound)),
    ("pg_partition_algorithm", Effect::NotModelled(PartitionAlgorithm)),
    ("mg_copyin_upper_bound", Effect::NotModelled(MergeCopyInBound)),
    ("mg_vec_parallel_lb", Effect::NotModelled(MergeVectorParallelism)),
    ("copyout_resolve_coalescing", Effect::NotModelled(CopyOutCoalescing)),
    ("auto_mix_partition", Effect::NotModelled(MixedPartitioning)),
    ("sg_set_scope", Effect::NotModelled(SubgraphScopes)),
    ("valid_shape_optimize", Effect::NotModelled(ValidShapeOptimisation)),
    ("enable_pass_verify", Effect::NotModelled(PassVerification)),
    ("enable_slice", Effect::NotModelled(CompilerSlicing)),
    ("sg_set_ooo_scope", Effect::NotModelled(OutOfOrderScopes)),
    ("ooo_sched_mode", Effect::NotModelled(OutOfOrderMode)),
    ("sg_set_tunevf_mode", Effect::NotModelled(VectorFunctionTuning)),
];

/// `runtime_options` keys.
pub const RUNTIME_OPTIONS: [(&str, Effect); 10] = [
    ("run_mode", Effect::Modelled("kernels always run on the simulated NPU here; any mode is accepted")),
    ("device_sched_mode", Effect::NotModelled(DeviceSchedulerMode)),
    ("stitch_function_max_num", Effect::NotModelled(FunctionStitching)),
    ("valid_shape_optimize", Effect::NotModelled(ValidShapeOptimisation)),
    ("ready_on_host_tensors", Effect::NotModelled(HostReadyTensors)),
    ("device_sched_parallelism", Effect::NotModelled(DeviceSchedulerParallelism)),
    ("launch_sched_aicpu_num", Effect::NotModelled(SchedulingAiCpus)),
    ("launch_sched_same_cluster", Effect::NotModelled(SameClusterScheduling)),
    ("launch_early_mode", Effect::NotModelled(EarlyLaunch)),
    ("max_workspace_kb", Effect::NotModelled(WorkspaceBudget)),
];

/// The effect of `key` in `table`, or `None` for a key pypto does not document.
pub fn effect(table: &[(&str, Effect)], key: &str) -> Option<Effect> {
    table.iter().find(|(name, _)| *name == key).map(|(_, effect)| *effect)
}

/// The n-buffer depth when a kernel sets none, or leaves it to pypto (`{}`: pypto picks the merge
/// from the core count).
pub const DEFAULT_BUFFER_DEPTH: usize = 2;

/// An n-buffer setting as a depth: an int, pypto's dict `{"DEFAULT": n, "func8_0": m, "V1": k}` (the
/// older `{-1: default, 0: n, …}`) or list `[[-1, default], [0, n], …]`: the default entry, else the
/// largest; per-function and per-label entries are not told apart. `{}` is pypto's automatic choice
/// (`DEFAULT_BUFFER_DEPTH` here). `None` when malformed or < 1.
pub fn buffer_depth(value: &Value) -> Option<usize> {
    let key_of = |key: &Value| match key {
        Value::Str(text) if text.as_ref() == "DEFAULT" => Some(-1),
        // A function's (`func8_0`) or a label's (`V1`) own setting.
        Value::Str(_) => Some(i64::MAX),
        other => other.as_int(),
    };
    let pairs: Vec<(i64, i64)> = match value {
        Value::Int(depth) => vec![(-1, *depth)],
        Value::Dict(entries) if entries.borrow().is_empty() => return Some(DEFAULT_BUFFER_DEPTH),
        Value::Dict(entries) => {
            entries.borrow().iter().map(|(key, depth)| Some((key_of(key)?, depth.as_int()?))).collect::<Option<_>>()?
        }
        Value::List(items) => items.borrow().iter().map(pair).collect::<Option<_>>()?,
        Value::Tuple(items) => items.iter().map(pair).collect::<Option<_>>()?,
        _ => return None,
    };
    let depth = pairs.iter().find(|(key, _)| *key == -1).or_else(|| pairs.iter().max_by_key(|(_, depth)| *depth))?.1;
    usize::try_from(depth).ok().filter(|&depth| depth >= 1)
}

fn pair(item: &Value) -> Option<(i64, i64)> {
    let items: Vec<Value> = match item {
        Value::List(items) => items.borrow().clone(),
        Value::Tuple(items) => items.to_vec(),
        _ => return None,
    };
    match items.as_slice() {
        [key, depth] => Some((key.as_int()?, depth.as_int()?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_depth_reads_every_form_pypto_accepts() {
        assert_eq!(buffer_depth(&Value::Int(2)), Some(2));
        let dict = Value::dict(vec![(Value::Int(-1), Value::Int(3)), (Value::Int(0), Value::Int(1))]);
        assert_eq!(buffer_depth(&dict), Some(3));
        let list = Value::list(vec![Value::list(vec![Value::Int(-1), Value::Int(2)])]);
        assert_eq!(buffer_depth(&list), Some(2));
        let named =
            Value::dict(vec![(Value::string("DEFAULT"), Value::Int(8)), (Value::string("func8_0"), Value::Int(1))]);
        assert_eq!(buffer_depth(&named), Some(8));
        assert_eq!(buffer_depth(&Value::dict(vec![(Value::string("V1"), Value::Int(4))])), Some(4));
        assert_eq!(buffer_depth(&Value::dict(Vec::new())), Some(DEFAULT_BUFFER_DEPTH));
        assert_eq!(buffer_depth(&Value::Int(0)), None);
        assert_eq!(buffer_depth(&Value::string("two")), None);
    }

    #[test]
    fn every_documented_option_has_an_effect_and_unknown_ones_none() {
        assert!(matches!(effect(&PASS_OPTIONS, "vec_nbuffer_setting"), Some(Effect::Modelled(_))));
        assert!(matches!(effect(&PASS_OPTIONS, "pg_upper_bound"), Some(Effect::NotModelled(_))));
        assert_eq!(effect(&PASS_OPTIONS, "vec_nbufer_setting"), None);
    }
}
