//! The simulated NPU's state in a session: the chip in use, the kernels running, and what their
//! calls left for the cell to take (schedules, fallback notes). One per interpreter; each cell
//! drains what its calls produced (`Interpreter::take_schedules`).

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use crate::npu::{NpuConfig, Simulation};
use crate::tile::TileWork;

/// The NPU state of a session.
pub(crate) struct NpuContext {
    /// The kernels running now, innermost last (a kernel may call kernels).
    pub kernel_frames: RefCell<Vec<KernelFrame>>,
    /// The preset in use (`pypto.npu.use`).
    pub preset: RefCell<String>,
    /// A custom preset (`pypto.npu.use({...})`), in force while `preset` names it.
    pub custom: RefCell<Option<NpuConfig>>,
    /// The schedules of the kernel calls simulated since the last `take_schedules`.
    pub schedules: RefCell<Vec<(String, Rc<Simulation>)>>,
    /// Kernels already warned about falling back to the CPU (one warning per kernel).
    pub fallback_warned: RefCell<HashSet<String>>,
    /// Kernel calls that ran on the simulated NPU and on the CPU fallback (a gradient check's
    /// report says where its analytic side ran).
    pub call_counts: Cell<(u64, u64)>,
    /// Set while a sweep makes its own call of the kernel: its rows are the traces to keep.
    pub untraced_call: Cell<bool>,
    /// The tile work of the last kernel call recorded for the NPU (for tests and inspection).
    pub last_work: RefCell<Option<TileWork>>,
    /// The vec and cube tile shapes the last kernel call ended with (`pypto.get_vec_tile_shapes`
    /// outside a kernel: pypto's settings outlive the kernel that made them).
    pub last_tiles: RefCell<TileShapes>,
    /// Whether generated backward kernels save or recompute forward values (`pypto.autodiff.policy`).
    pub backward_policy: Cell<super::generated_backward::Policy>,
    /// The kernel of the last `with pypto.function(…):` block, which pypto's device-run helper
    /// (`pypto.runtime._device_run_once_data_from_host`) runs again on the tensors it is given.
    pub recorded_function: RefCell<Option<crate::lang::interp::value::Value>>,
    /// The tensors of that block's header given by an expression rather than a name, by position:
    /// the block reaches them as it did, so a rerun binds them by object (see `run_recorded_on`).
    pub recorded_objects: RefCell<Vec<(usize, std::rc::Rc<crate::lang::interp::value::TensorObject>)>>,
    /// The folder of pypto's cost model output for this session, once a kernel ran in simulation
    /// mode (`cost_model_output.rs`).
    pub cost_model_folder: RefCell<Option<String>>,
    /// The seconds the last kernel call that compiled spent lowering its work into a tile plan
    /// (pypto's compiler monitor total, `pypto.pypto_impl.GetCompilerMonitorTotalElapsed()`); 0
    /// before any.
    pub compile_seconds: Cell<f64>,
}

/// A kernel's vec tile and cube tiles (`[[mL0, mL1], [kL0, kL1], [nL0, nL1]]`).
pub(crate) type TileShapes = (Option<Vec<usize>>, Option<[[usize; 2]; 3]>);

impl Default for NpuContext {
    fn default() -> Self {
        NpuContext {
            kernel_frames: RefCell::new(Vec::new()),
            preset: RefCell::new("Ascend910B2".to_string()),
            custom: RefCell::new(None),
            schedules: RefCell::new(Vec::new()),
            fallback_warned: RefCell::new(HashSet::new()),
            call_counts: Cell::new((0, 0)),
            untraced_call: Cell::new(false),
            last_work: RefCell::new(None),
            last_tiles: RefCell::new((None, None)),
            backward_policy: Cell::new(super::generated_backward::Policy::Auto),
            recorded_function: RefCell::new(None),
            recorded_objects: RefCell::new(Vec::new()),
            cost_model_folder: RefCell::new(None),
            compile_seconds: Cell::new(0.0),
        }
    }
}

/// The state of a running kernel (tile shapes, saved tensors, the dtype that tiles are checked in).
pub(crate) struct KernelFrame {
    /// The last `set_vec_tile_shapes` of the run.
    pub vec_tile_shapes: Option<Vec<usize>>,
    /// The last `set_cube_tile_shapes` of the run: `[[mL0, mL1], [kL0, kL1], [nL0, nL1]]`.
    pub cube_tile_shapes: Option<[[usize; 2]; 3]>,
    pub dtype: crate::tensor::DType,
    pub saved: Vec<crate::lang::interp::value::Value>,
    /// The tensor ops the body executed, in order (what `pypto.schedule` lowers).
    pub ops: Vec<super::capture::Captured>,
    /// Where the last `set_vec_tile_shapes` was called.
    pub vec_tile_site: Option<crate::lang::interp::error::SourceSpan>,
    /// Every `set_vec_tile_shapes` of the run, with the ops it applies to.
    pub vec_tile_history: Vec<super::vec_tiles::VecTileSetting>,
    /// Where the last `set_cube_tile_shapes` was called.
    pub cube_tile_site: Option<crate::lang::interp::error::SourceSpan>,
    /// The statement or expression being evaluated now (the line of the next recorded op).
    pub statement: Option<crate::lang::syntax::Span>,
    /// The first statements of the outermost `pypto.loop` bodies: each time one starts, a new
    /// unit of work starts (an iteration).
    pub unit_starts: Vec<crate::lang::syntax::Span>,
    /// Whether the kernel called other kernels (a composite: they run on the NPU themselves).
    pub calls_kernels: bool,
    /// The tensors the ops made, kept while the call runs when its backward may save some
    /// (`generated_backward`); `None`: not kept.
    pub kept_values: Option<Vec<crate::lang::interp::value::Value>>,
}
