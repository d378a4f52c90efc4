//! The kernel compiler (DESIGN §3.1) and its output: tile work captured from a kernel call is
//! memory-planned (`memory`), expanded by the vec and cube tile shapes (`expand*`), cut into tasks
//! scheduled over the cores (`schedule`) and lowered to per-core tile programs (`lower`) — plain
//! data: instruction lists on pipes, joined by set/wait flags, over buffers declared with their
//! memory, shape and dtype.

mod builder;
mod dims;
mod expand;
mod expand_cube;
mod expand_task;
mod fast_hash;
mod flag_list;
mod independent_parts;
mod lower;
mod memory;
mod program;
mod schedule;
mod stage_order;
mod stages;
mod step_reads;
mod vector_ops;
mod whole;
mod work;

pub use builder::{pipe_of, ProgramBuilder, SlotRing, TileError};
pub use dims::Dims;
pub use expand::expand_work;
pub use flag_list::FlagList;
pub use memory::{cut_unit, plan_memory, sink_loads, ub_need};
pub use program::{
    grouped_bytes, Buffer, BufferId, CoreKind, Flag, GmRegion, GmTensor, Instruction, KernelPlan, Memory, Pipe,
    TensorId, TileOp, TileProgram,
};
pub use schedule::{assign, assign_grouped, assign_laned, estimated_cycles};
pub use vector_ops::{VectorOp, VectorOperand};
pub use whole::whole_matmul;
pub use work::{
    lower_work, CubeTiles, GmView, LocatedStep, LoweringTarget, RowGather, StepReads, TileValue, TileWork, ValueId,
    WorkOperand, WorkSettings, WorkStep, WorkUnit,
};
