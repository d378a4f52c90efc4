//! Where each side of a gradient check ran: the analytic side (kernel calls on the simulated NPU or
//! the CPU reference path) and the numerical side (f64 central differences on the CPU).

use crate::messages::Message;

/// Which side of a gradient check ran where (DESIGN §2), as data: the page renders it from its
/// message tables (`gradcheck.sides.*`, see [`GradCheckSides::message`]), the CLI as English text.
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

    /// The sentence as a message: the analytic side where it ran, the numerical side in f64 on the CPU.
    pub fn message(&self) -> Message {
        match self.code() {
            "none" => Message::SidesNone,
            "npu" => Message::SidesNpu { registered: self.registered, preset: self.preset.clone() },
            "cpu" => Message::SidesCpu { registered: self.registered },
            _ => Message::SidesMixed {
                npu_calls: self.npu_calls,
                cpu_calls: self.cpu_calls,
                preset: self.preset.clone(),
            },
        }
    }

    /// The English sentence.
    pub fn text(&self) -> String {
        self.message().english()
    }
}
