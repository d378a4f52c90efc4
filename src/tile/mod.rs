//! Tile programs as plain data: per-core instruction lists on pipes, joined by set/wait flags, over
//! buffers declared with their memory, shape and dtype; a builder with n-buffered slot rings; and
//! ready-made programs for element-wise chains, row reductions, tiled matmuls, and a matmul feeding
//! unary ops across split cube/vector cores.

mod builder;
mod expand;
mod expand_cube;
mod expand_task;
mod lower;
mod memory;
mod patterns;
mod program;
mod schedule;
mod split;
mod stage_order;
mod stages;
mod vector_ops;
mod work;

pub use builder::{pipe_of, ProgramBuilder, SlotRing, TileError};
pub use expand::expand_work;
pub use memory::{cut_unit, plan_memory, sink_loads, ub_need};
pub use patterns::{elementwise_chain, row_reduction, split_range, tiled_matmul, ChainStep, CubeTiles, MatmulBuffers};
pub use program::{
    Buffer, BufferId, CoreKind, Flag, GmRegion, GmTensor, Instruction, KernelPlan, Memory, Pipe, TensorId, TileOp,
    TileProgram,
};
pub use schedule::{assign, assign_grouped, assign_laned, estimated_cycles};
pub use split::{matmul_then_unary, CubeStage, VectorStage};
pub use vector_ops::{VectorOp, VectorOperand};
pub use work::{
    lower_work, GmView, LocatedStep, LoweringTarget, TileValue, TileWork, ValueId, WorkOperand, WorkSettings, WorkStep,
    WorkUnit,
};
