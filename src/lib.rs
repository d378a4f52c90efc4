//! TileLab: write pypto-style tile kernels, differentiate them, and run them on a simulated
//! Ascend-like NPU, in the browser (WebAssembly) and natively.
//!
//! The map of the crate (`A → B`: A may use B; see DESIGN.md §1):
//! - [`error`] — the error of the tensor core.
//! - [`messages`] — sentences as data (a code with typed parameters) for the page's i18n tables,
//!   with their English for the CLI; a leaf any layer may use, like `error`.
//! - [`memory`] — live heap bytes per thread (a counting global allocator): the session's memory budget.
//! - [`tensor`] (→ error) — `Tensor`, dtypes (f32/f16/bf16, integers, bool, f64 reference), every
//!   forward op, broadcasting, the seeded generator, the SIMD kernels.
//! - [`autograd`] (→ tensor) — `Var`, the tape, gradient rules, `backward`/`grad`, custom ops,
//!   checkpointing, the loss scaler, gradient checking, the graph as data.
//! - [`lang`] (→ autograd, tile, npu, tensor) — the tile script language: `lang::syntax` (lexer,
//!   parser, AST, diagnostics with byte spans) and `lang::interp` (values, scopes, limits, the `pypto`
//!   and `torch` modules). A kernel call runs its body once on the tensor core (its values, computed
//!   once) while each op site captures its op, typed (`pypto::capture`: the tensor core's op enums,
//!   tensors named by buffer id); the capture becomes `tile::TileWork`, which the compiler lowers
//!   and `npu` simulates (the schedule). The session's NPU state is one `NpuContext`.
//! - [`session`] (→ lang) — a notebook session: `Session::run_cell` → serialisable `CellResult`;
//!   notebook files (`.py` with `# %%` cells, `.ipynb`). One stated exception: `session::bench`
//!   (the workspace of the benchmark page) also uses `tile` and `npu` directly, so the compiler's and
//!   the simulator's own speed on a fixed matmul is measured without the interpreter in the timing.
//! - [`tile`] (→ tensor) — the kernel compiler as plain-data stages (DESIGN §3.1): `TileWork` (units
//!   of typed steps on tiles, GM tensors and their views) → memory planning (`memory`: loads sunk,
//!   cuts through GM workspaces) → tile expansion (`expand`, `expand_cube`: vec and cube tile grids
//!   into tasks) → scheduling over cores (`schedule`) → per-core `TileProgram`s (`lower`: UB slots,
//!   flags from data, cube staging); tile programs as plain data (pipes, memories, buffers, flags).
//! - [`npu`] (→ tile, tensor) — the simulated NPU: presets, capacity/alignment checks, the
//!   event-driven timing model, functional execution (which holds the compiler to the values a
//!   kernel's body computed), `Trace`, `Summary`, Chrome trace export.
//! - `wasm_api` (wasm32 only) — the one `#[wasm_bindgen]` surface, the `Playground` struct; its
//!   benchmark entry points (`bench*`) in `wasm_api::bench`.
//! - `bin/tilelab` — the command-line interface.

pub mod autograd;
pub mod error;
pub mod lang;
pub mod memory;
pub mod messages;
pub mod npu;
pub mod session;
pub mod tensor;
pub mod tile;

#[cfg(target_arch = "wasm32")]
pub mod wasm_api;

/// The TileLab version (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
