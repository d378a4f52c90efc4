//! What the simulator lacks, for each kernel option it accepts without modelling (the option
//! table of `src/lang/interp/pypto/options.rs`): a word of the "accepted, not modelled" warning,
//! rendered from its own key in the page.

use serde::Serialize;

/// A device feature an accepted option configures and the simulator does not model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "code")]
pub enum OptionFeature {
    /// Per-function vec n-buffering.
    #[serde(rename = "option_feature.per_function_vec_buffering")]
    PerFunctionVecBuffering,
    /// Per-label vec n-buffering.
    #[serde(rename = "option_feature.per_label_vec_buffering")]
    PerLabelVecBuffering,
    /// Per-function cube n-buffering.
    #[serde(rename = "option_feature.per_function_cube_buffering")]
    PerFunctionCubeBuffering,
    /// Per-label cube n-buffering.
    #[serde(rename = "option_feature.per_label_cube_buffering")]
    PerLabelCubeBuffering,
    /// Keeping a matmul operand resident in L1 across output tiles.
    #[serde(rename = "option_feature.l1_reuse")]
    L1Reuse,
    /// Per-function L1 reuse.
    #[serde(rename = "option_feature.per_function_l1_reuse")]
    PerFunctionL1Reuse,
    /// Per-label L1 reuse.
    #[serde(rename = "option_feature.per_label_l1_reuse")]
    PerLabelL1Reuse,
    /// The partitioner's minimum parallelism before merging subgraphs.
    #[serde(rename = "option_feature.partition_parallelism")]
    PartitionParallelism,
    /// The partitioner's lower bound on subgraph size.
    #[serde(rename = "option_feature.partition_lower_bound")]
    PartitionLowerBound,
    /// The partitioner's upper bound on subgraph size.
    #[serde(rename = "option_feature.partition_upper_bound")]
    PartitionUpperBound,
    /// The partitioner's algorithm.
    #[serde(rename = "option_feature.partition_algorithm")]
    PartitionAlgorithm,
    /// The merger's bound on copied-in bytes.
    #[serde(rename = "option_feature.merge_copy_in_bound")]
    MergeCopyInBound,
    /// The merger's vector parallelism lower bound.
    #[serde(rename = "option_feature.merge_vector_parallelism")]
    MergeVectorParallelism,
    /// Coalescing of copy-outs.
    #[serde(rename = "option_feature.copy_out_coalescing")]
    CopyOutCoalescing,
    /// Mixed cube/vector partitioning.
    #[serde(rename = "option_feature.mixed_partitioning")]
    MixedPartitioning,
    /// Subgraph scopes.
    #[serde(rename = "option_feature.subgraph_scopes")]
    SubgraphScopes,
    /// Dynamic valid-shape optimisation.
    #[serde(rename = "option_feature.valid_shape_optimisation")]
    ValidShapeOptimisation,
    /// Pass verification.
    #[serde(rename = "option_feature.pass_verification")]
    PassVerification,
    /// Slicing of large tensors into pieces by the compiler.
    #[serde(rename = "option_feature.compiler_slicing")]
    CompilerSlicing,
    /// Out-of-order scheduling scopes.
    #[serde(rename = "option_feature.out_of_order_scopes")]
    OutOfOrderScopes,
    /// The out-of-order scheduler's mode.
    #[serde(rename = "option_feature.out_of_order_mode")]
    OutOfOrderMode,
    /// Vector-function tuning.
    #[serde(rename = "option_feature.vector_function_tuning")]
    VectorFunctionTuning,
    /// The device scheduler's mode.
    #[serde(rename = "option_feature.device_scheduler_mode")]
    DeviceSchedulerMode,
    /// How many functions are stitched into one launch.
    #[serde(rename = "option_feature.function_stitching")]
    FunctionStitching,
    /// Tensors prepared on the host.
    #[serde(rename = "option_feature.host_ready_tensors")]
    HostReadyTensors,
    /// The device scheduler's parallelism.
    #[serde(rename = "option_feature.device_scheduler_parallelism")]
    DeviceSchedulerParallelism,
    /// AI CPUs used for scheduling.
    #[serde(rename = "option_feature.scheduling_ai_cpus")]
    SchedulingAiCpus,
    /// Scheduling within one cluster.
    #[serde(rename = "option_feature.same_cluster_scheduling")]
    SameClusterScheduling,
    /// Early launch.
    #[serde(rename = "option_feature.early_launch")]
    EarlyLaunch,
    /// The device task's workspace budget (memory-driven stitching).
    #[serde(rename = "option_feature.workspace_budget")]
    WorkspaceBudget,
    /// Stopping pypto's compiler at a stage.
    #[serde(rename = "option_feature.compile_stage")]
    CompileStage,
}

impl OptionFeature {
    /// The feature in English.
    pub fn english(self) -> &'static str {
        use OptionFeature::*;
        match self {
            PerFunctionVecBuffering => "per-function vec n-buffering",
            PerLabelVecBuffering => "per-label vec n-buffering",
            PerFunctionCubeBuffering => "per-function cube n-buffering",
            PerLabelCubeBuffering => "per-label cube n-buffering",
            L1Reuse => "keeping a matmul operand resident in L1 across output tiles",
            PerFunctionL1Reuse => "per-function L1 reuse",
            PerLabelL1Reuse => "per-label L1 reuse",
            PartitionParallelism => "the partitioner's minimum parallelism before merging subgraphs",
            PartitionLowerBound => "the partitioner's lower bound on subgraph size",
            PartitionUpperBound => "the partitioner's upper bound on subgraph size",
            PartitionAlgorithm => "the partitioner's algorithm",
            MergeCopyInBound => "the merger's bound on copied-in bytes",
            MergeVectorParallelism => "the merger's vector parallelism lower bound",
            CopyOutCoalescing => "coalescing of copy-outs",
            MixedPartitioning => "mixed cube/vector partitioning",
            SubgraphScopes => "subgraph scopes",
            ValidShapeOptimisation => "dynamic valid-shape optimisation",
            PassVerification => "pass verification",
            CompilerSlicing => "slicing of large tensors into pieces by the compiler",
            OutOfOrderScopes => "out-of-order scheduling scopes",
            OutOfOrderMode => "the out-of-order scheduler's mode",
            VectorFunctionTuning => "vector-function tuning",
            DeviceSchedulerMode => "the device scheduler's mode",
            FunctionStitching => "how many functions are stitched into one launch",
            HostReadyTensors => "tensors prepared on the host",
            DeviceSchedulerParallelism => "the device scheduler's parallelism",
            SchedulingAiCpus => "AI CPUs used for scheduling",
            SameClusterScheduling => "scheduling within one cluster",
            EarlyLaunch => "early launch",
            WorkspaceBudget => "the device task's workspace budget (memory-driven stitching)",
            CompileStage => "stopping the compiler at a stage: kernels are always compiled and run",
        }
    }
}
