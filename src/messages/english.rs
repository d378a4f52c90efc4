//! The English sentence of each message: what the CLI prints and what a diagnostic's `message`
//! holds (the page renders the code from its tables instead).

use super::{KernelStage, Message};

const NUMERICAL: &str = "numerical: central differences in f64 on the CPU";

fn analytic_side(registered: bool) -> &'static str {
    if registered {
        "forward and registered backward"
    } else {
        "forward (and its backward through the recorded ops)"
    }
}

impl Message {
    /// The message in English.
    pub fn english(&self) -> String {
        match self {
            Message::Text { text } => text.clone(),
            Message::Syntax(message) => message.english(),
            Message::Runtime(message) => message.english(),
            Message::Autograd(message) => message.english(),
            Message::AutogradCall(message) => message.english(),
            Message::Npu(message) => message.english(),
            Message::Tensor(message) => message.english(),
            Message::NpuCheck(message) => message.english(),
            Message::Library(message) => message.english(),
            Message::BusiestPipe { pipe, percent } => format!("{pipe} is the busiest pipe ({percent}% busy)"),
            Message::StartupShare { pipe, percent } => format!(
                "{percent}% of {pipe} busy time is DMA start-up latency: the transfers are small, larger tiles amortise it"
            ),
            Message::PipesWait => {
                "no pipe is busy most of the time: pipes wait on each other (deeper buffering lets them overlap)".into()
            }
            Message::SingleBuffered { requested } => format!(
                "UB holds one copy of each task's tiles, not {requested}: a core's next task waits for its last instead of overlapping it (smaller tiles restore the n-buffering)"
            ),
            Message::CubePeak { percent } => format!("cube at {percent}% of the chip's peak FLOP/s"),
            Message::SidesNone => format!("analytic: no kernel call, the tensor ops on the CPU; {NUMERICAL}"),
            Message::SidesNpu { registered, preset } => {
                format!("analytic: {} on the simulated NPU {preset}; {NUMERICAL}", analytic_side(*registered))
            }
            Message::SidesCpu { registered } => format!(
                "analytic: {} on the CPU reference path (the kernel cannot run on the NPU yet); {NUMERICAL}",
                analytic_side(*registered)
            ),
            Message::SidesMixed { npu_calls, cpu_calls, preset } => format!(
                "analytic: {npu_calls} kernel calls on the simulated NPU {preset} and {cpu_calls} on the CPU reference path; {NUMERICAL}"
            ),
            Message::AllKinks { input, count } => format!(
                "input {input}: all {count} compared entries looked not differentiable, so nothing was verified (does the function round its f64 copy through a narrower tensor?)"
            ),
            Message::WorstElement { input, index, analytic, numerical } => {
                format!("input {input} at {index:?}: analytic {analytic:.6} numerical {numerical:.6}")
            }
            Message::NameUndefined { name } => format!("name '{name}' is not defined"),
            Message::NoModuleAttribute { module, name } => format!("module '{module}' has no attribute '{name}'"),
            Message::DidYouMean { suggestion } => format!("did you mean `{suggestion}`?"),
            Message::DidYouMeanPypto { qualified } => format!("did you mean `{qualified}` (after `import pypto`)?"),
            Message::AddImport { statement } => format!("add `{statement}` first"),
            Message::UnsupportedOperand { operator, left, right } => {
                format!("unsupported operand types for {operator}: '{left}' and '{right}'")
            }
            Message::VecTileMisaligned { last, granule, dtype, element_bytes, bytes } => format!(
                "set_vec_tile_shapes: the last dim {last} is not {granule}-byte aligned for {dtype} ({last} × {element_bytes} B = {bytes} B)"
            ),
            Message::AlignedSizes { align, nearest } => {
                let sizes: Vec<String> = nearest.iter().map(usize::to_string).collect();
                format!("use a multiple of {align} elements: the nearest aligned sizes are {}", sizes.join(" or "))
            }
            Message::PaddedTileRows { align, nearest } => {
                let sizes: Vec<String> = nearest.iter().map(usize::to_string).collect();
                format!(
                    "each tile row is padded to a multiple of {align} elements in UB, which costs UB space and vector lanes; the nearest aligned sizes are {}",
                    sizes.join(" or ")
                )
            }
            Message::UnexpectedKeyword { function, keyword } => {
                format!("{function}() got an unexpected keyword argument '{keyword}'")
            }
            Message::MissingArgument { function, parameter } => {
                format!("{function}() missing required argument '{parameter}'")
            }
            Message::TakesArguments { function, names } => format!("{function} takes: {names}"),
            Message::BroadcastMismatch { op, lhs, rhs, dim, left, right } => format!(
                "{op}: shapes {lhs:?} and {rhs:?} do not match: dim {dim} of the broadcast has sizes {left} and {right}; broadcasting needs equal sizes or a 1"
            ),
            Message::CapacityExceeded { memory, bytes, capacity, buffer, tile, largest_tile } => {
                let fits = match largest_tile {
                    Some(largest) => format!("the largest tile that fits is {largest:?}"),
                    None => "no tile of this kind fits beside the other buffers".into(),
                };
                format!("{memory} overflow: the tiles need {bytes} bytes but {memory} holds {capacity} bytes (buffer '{buffer}' of tile {tile:?}); {fits}")
            }
            Message::LargestTile { memory, tile } => format!("the largest tile that fits in {memory} is {tile:?}"),
            Message::NoTileFits { memory } => format!("no tile of this kind fits in {memory} beside the other buffers"),
            Message::MisalignedLastDim { last, granule, element_bytes, align } => format!(
                "the last dim {last} is not {granule}-byte aligned ({last} × {element_bytes} B); use a multiple of {align}"
            ),
            Message::CpuFallback { kernel, reason } => format!("kernel '{kernel}' ran on the CPU reference path: {}", reason.english()),
            Message::CpuFallbackHelp => {
                "its values are the CPU reference's and no schedule was simulated for this call".into()
            }
            Message::KernelProgress { kernel, call, stage } => {
                let doing = match stage {
                    KernelStage::Compiling => "compiling",
                    KernelStage::Simulating => "simulating",
                    KernelStage::Computing => "computing the values",
                };
                format!("kernel call {call} ({kernel}): {doing}")
            }
        }
    }
}
