//! Where each side of a gradient check ran: the analytic side (kernel calls on the simulated NPU or
//! the CPU reference path) and the numerical side (f64 central differences on the CPU).

/// Which side of a gradient check ran where (DESIGN §2), as data: the page renders it from its
/// message tables (`gradcheck.sides.*`), the CLI and `report.sides` as English text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct GradCheckSides {
    /// Kernel calls of the analytic side that ran on the simulated NPU.
    pub npu_calls: u64,
    /// Kernel calls of the analytic side that ran on the CPU reference path.
    pub cpu_calls: u64,
    /// Whether the checked kernel has a registered backward.
    pub registered: bool,
    /// The NPU preset in use.
    pub preset: String,
}

impl GradCheckSides {
    /// The message code: `none` (no kernel call), `npu`, `cpu` or `mixed`.
    pub fn code(&self) -> &'static str {
        match (self.npu_calls, self.cpu_calls) {
            (0, 0) => "none",
            (_, 0) => "npu",
            (0, _) => "cpu",
            _ => "mixed",
        }
    }

    /// The English sentence: the analytic side where it ran, the numerical side in f64 on the CPU.
    pub fn text(&self) -> String {
        let numerical = "numerical: central differences in f64 on the CPU";
        let what = if self.registered {
            "forward and registered backward"
        } else {
            "forward (and its backward through the recorded ops)"
        };
        let preset = &self.preset;
        match self.code() {
            "none" => format!("analytic: no kernel call, the tensor ops on the CPU; {numerical}"),
            "npu" => format!("analytic: {what} on the simulated NPU {preset}; {numerical}"),
            "cpu" => format!(
                "analytic: {what} on the CPU reference path (the kernel cannot run on the NPU yet); {numerical}"
            ),
            _ => format!(
                "analytic: {} kernel calls on the simulated NPU {preset} and {} on the CPU reference path; {numerical}",
                self.npu_calls, self.cpu_calls
            ),
        }
    }
}
