//! NPU configurations: the preset table and custom JSON presets, validated in one step.
//! Where each number comes from is in docs/npu-model.md.

use serde::{Deserialize, Serialize};

use crate::tile::{CoreKind, Memory};

use super::error::{NpuError, Result};
use crate::messages::ConfigDetail;

/// How cube and vector units are grouped into cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Architecture {
    /// Separate cube cores (AIC) and vector cores (AIV), as on 910B.
    Split,
    /// Every AI core has both units, as on 910A.
    Coupled,
}

/// Every parameter of the simulated chip; bandwidths are bytes per cycle of one core unless named shared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NpuConfig {
    /// Preset name.
    pub name: String,
    /// Split or coupled cores.
    pub architecture: Architecture,
    /// Cores with a cube unit (coupled: the AI core count).
    pub cube_cores: u32,
    /// Cores with a vector unit (coupled: equal to `cube_cores`).
    pub vector_cores: u32,
    /// Core clock in MHz.
    pub clock_mhz: f64,
    /// Unified buffer bytes per core.
    pub ub_bytes: u64,
    /// L1 bytes per core.
    pub l1_bytes: u64,
    /// L0A bytes per core.
    pub l0a_bytes: u64,
    /// L0B bytes per core.
    pub l0b_bytes: u64,
    /// L0C bytes per core.
    pub l0c_bytes: u64,
    /// Shared L2 cache bytes (re-reads of resident data skip HBM).
    pub l2_bytes: u64,
    /// GM → L1 (MTE2) bytes per cycle per core.
    pub gm_to_l1_bytes_per_cycle: f64,
    /// GM → UB (MTE2) bytes per cycle per core.
    pub gm_to_ub_bytes_per_cycle: f64,
    /// L1 → L0A (MTE1) bytes per cycle.
    pub l1_to_l0a_bytes_per_cycle: f64,
    /// L1 → L0B (MTE1) bytes per cycle.
    pub l1_to_l0b_bytes_per_cycle: f64,
    /// L0C → GM (FIXPIPE) bytes per cycle per core.
    pub l0c_to_gm_bytes_per_cycle: f64,
    /// L0C → UB/L1 (FIXPIPE) bytes per cycle.
    pub l0c_to_ub_bytes_per_cycle: f64,
    /// UB → GM (MTE3) bytes per cycle per core.
    pub ub_to_gm_bytes_per_cycle: f64,
    /// HBM bytes per cycle shared by all cores (L2 misses and write-backs).
    pub hbm_bytes_per_cycle: f64,
    /// HBM bytes per cycle of one core: its L2 misses never move faster (the ini's `ddr_rate`).
    pub hbm_core_bytes_per_cycle: f64,
    /// L2 bytes per cycle shared by all cores (hits and writes into L2): the aggregate L2 bandwidth.
    pub l2_bytes_per_cycle: f64,
    /// Cycles from the kernel launch to the first instruction of every core (launch and dispatch).
    pub launch_cycles: u64,
    /// L2 cache line bytes: residency, hits and write-backs are per line.
    pub l2_line_bytes: u64,
    /// Cycles from issuing a GM transfer to its first byte, paid when the pipe's queue had
    /// drained: a transfer that follows the previous one without a gap has its requests already
    /// outstanding and pays only `gm_issue_cycles` (`burst.rs`).
    pub gm_startup_cycles: u64,
    /// Cycles a GM copy instruction holds its pipe to issue, whatever its size.
    pub gm_issue_cycles: u64,
    /// Least cycles one burst (a contiguous run of a GM transfer) holds the cube core's DMA
    /// (GM → L1 with its ND → NZ conversion, L0C → GM): shorter runs move below the path rate.
    pub gm_to_l1_burst_cycles: f64,
    /// Least cycles one burst holds the vector core's DMA (GM → UB, UB → GM).
    pub gm_to_ub_burst_cycles: f64,
    /// Cycles from issuing an on-core transfer (MTE1, FIXPIPE → UB) to its first byte.
    pub local_startup_cycles: u64,
    /// Cube MACs per cycle for 16-bit operands (16×16×16 = 4096).
    pub cube_macs_per_cycle: u64,
    /// Vector bytes processed per cycle.
    pub vector_bytes_per_cycle: f64,
    /// Issue overhead of one vector instruction in cycles.
    pub vector_startup_cycles: u64,
    /// Alignment of UB tiles (bytes of the last dim).
    pub ub_alignment: u64,
    /// Alignment of L1 tiles (bytes of the last dim).
    pub l1_alignment: u64,
    /// Alignment of L0A/L0B tiles (bytes; one 16×16 fractal of 16-bit values).
    pub l0ab_alignment: u64,
    /// Alignment of L0C tiles (bytes).
    pub l0c_alignment: u64,
}

/// The names of the presets.
pub const PRESET_NAMES: [&str; 3] = ["Ascend910B2", "Ascend910A", "teaching"];

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// Ascend 910B2: split cores (24 AIC cube cores, 48 AIV vector cores), the default chip. Every parameter, one per line (docs/npu-model.md gives the sources).
fn ascend_910b2() -> NpuConfig {
    NpuConfig {
        name: "Ascend910B2".to_string(),
        architecture: Architecture::Split,
        cube_cores: 24,
        vector_cores: 48,
        clock_mhz: 1800.0,
        ub_bytes: 192 * KIB,
        l1_bytes: 512 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 128 * KIB,
        l2_bytes: 192 * MIB,
        gm_to_l1_bytes_per_cycle: 110.0,
        gm_to_ub_bytes_per_cycle: 110.0,
        l1_to_l0a_bytes_per_cycle: 512.0,
        l1_to_l0b_bytes_per_cycle: 256.0,
        l0c_to_gm_bytes_per_cycle: 86.0,
        l0c_to_ub_bytes_per_cycle: 128.0,
        ub_to_gm_bytes_per_cycle: 64.0,
        hbm_bytes_per_cycle: 768.0,
        hbm_core_bytes_per_cycle: 32.0,
        // Fitted on the GEMM 6144³ row (docs/npu-model.md, Presets): 3.6 TB/s, below the documented
        // 5.2 TB/s peak, which GEMM-style shared reads do not reach.
        l2_bytes_per_cycle: 2000.0,
        launch_cycles: 7200,
        l2_line_bytes: 512,
        gm_startup_cycles: 128,
        // Fitted on the asc-devkit DataCopy measurements of Atlas A2 (docs/npu-model.md, Bursts).
        gm_issue_cycles: 12,
        gm_to_l1_burst_cycles: 5.19,
        gm_to_ub_burst_cycles: 8.08,
        local_startup_cycles: 16,
        cube_macs_per_cycle: 4096,
        vector_bytes_per_cycle: 256.0,
        vector_startup_cycles: 16,
        ub_alignment: 32,
        l1_alignment: 32,
        l0ab_alignment: 512,
        l0c_alignment: 64,
    }
}

/// Ascend 910A: 32 coupled cores (each with a cube and a vector unit). Every parameter, one per line (docs/npu-model.md gives the sources).
fn ascend_910a() -> NpuConfig {
    NpuConfig {
        name: "Ascend910A".to_string(),
        architecture: Architecture::Coupled,
        cube_cores: 32,
        vector_cores: 32,
        clock_mhz: 1000.0,
        ub_bytes: 256 * KIB,
        l1_bytes: 1024 * KIB,
        l0a_bytes: 64 * KIB,
        l0b_bytes: 64 * KIB,
        l0c_bytes: 256 * KIB,
        l2_bytes: 32 * MIB,
        gm_to_l1_bytes_per_cycle: 128.0,
        gm_to_ub_bytes_per_cycle: 128.0,
        l1_to_l0a_bytes_per_cycle: 512.0,
        l1_to_l0b_bytes_per_cycle: 256.0,
        l0c_to_gm_bytes_per_cycle: 64.0,
        l0c_to_ub_bytes_per_cycle: 128.0,
        ub_to_gm_bytes_per_cycle: 64.0,
        hbm_bytes_per_cycle: 1200.0,
        hbm_core_bytes_per_cycle: 37.5,
        // No figure: the cores' paths together (32 × 128), so it never binds.
        l2_bytes_per_cycle: 4096.0,
        launch_cycles: 4000,
        l2_line_bytes: 512,
        gm_startup_cycles: 128,
        // No 910A measurement: the 910B2 figures (the same DMA design is assumed).
        gm_issue_cycles: 12,
        gm_to_l1_burst_cycles: 5.19,
        gm_to_ub_burst_cycles: 8.08,
        local_startup_cycles: 16,
        cube_macs_per_cycle: 4096,
        vector_bytes_per_cycle: 256.0,
        vector_startup_cycles: 16,
        ub_alignment: 32,
        l1_alignment: 32,
        l0ab_alignment: 512,
        l0c_alignment: 64,
    }
}

/// A small teaching chip: 2 coupled cores and 16 KiB of UB, so overflow lessons hit the limits. Every parameter, one per line (docs/npu-model.md gives the sources).
fn teaching() -> NpuConfig {
    NpuConfig {
        name: "teaching".to_string(),
        architecture: Architecture::Coupled,
        cube_cores: 2,
        vector_cores: 2,
        clock_mhz: 1000.0,
        ub_bytes: 16 * KIB,
        l1_bytes: 64 * KIB,
        l0a_bytes: 8 * KIB,
        l0b_bytes: 8 * KIB,
        l0c_bytes: 16 * KIB,
        l2_bytes: MIB,
        gm_to_l1_bytes_per_cycle: 64.0,
        gm_to_ub_bytes_per_cycle: 64.0,
        l1_to_l0a_bytes_per_cycle: 128.0,
        l1_to_l0b_bytes_per_cycle: 128.0,
        l0c_to_gm_bytes_per_cycle: 64.0,
        l0c_to_ub_bytes_per_cycle: 64.0,
        ub_to_gm_bytes_per_cycle: 64.0,
        hbm_bytes_per_cycle: 64.0,
        hbm_core_bytes_per_cycle: 64.0,
        // Never binds: lesson figures stay those of the paths and HBM.
        l2_bytes_per_cycle: 1024.0,
        launch_cycles: 0,
        l2_line_bytes: 512,
        gm_startup_cycles: 64,
        // No issue or burst cost: lesson figures stay start-up plus bytes over the path rate.
        gm_issue_cycles: 0,
        gm_to_l1_burst_cycles: 0.0,
        gm_to_ub_burst_cycles: 0.0,
        local_startup_cycles: 8,
        cube_macs_per_cycle: 4096,
        vector_bytes_per_cycle: 256.0,
        vector_startup_cycles: 8,
        ub_alignment: 32,
        l1_alignment: 32,
        l0ab_alignment: 512,
        l0c_alignment: 64,
    }
}

/// The preset of this exact name.
fn preset_table(name: &str) -> Option<NpuConfig> {
    match name {
        "Ascend910B2" => Some(ascend_910b2()),
        "Ascend910A" => Some(ascend_910a()),
        "teaching" => Some(teaching()),
        _ => None,
    }
}

impl NpuConfig {
    /// The preset of this name (case-insensitive).
    pub fn preset(name: &str) -> Result<Self> {
        PRESET_NAMES
            .iter()
            .find(|known| known.eq_ignore_ascii_case(name))
            .and_then(|known| preset_table(known))
            .ok_or_else(|| NpuError::UnknownPreset { name: name.to_string(), known: PRESET_NAMES.to_vec() })
    }

    /// A custom configuration from JSON with every field, validated.
    pub fn from_json(text: &str) -> Result<Self> {
        let config: NpuConfig = serde_json::from_str(text).map_err(|error| {
            let message = error.to_string();
            // serde names the offending field in its message ("unknown field `x`", "missing field `y`").
            let field = message.split('`').nth(1).unwrap_or("(json)").to_string();
            NpuError::BadConfig { field, detail: ConfigDetail::Decoder { text: message } }
        })?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<()> {
        let bad = |field: &str, detail: ConfigDetail| Err(NpuError::BadConfig { field: field.to_string(), detail });
        let rates = [
            ("clock_mhz", self.clock_mhz),
            ("gm_to_l1_bytes_per_cycle", self.gm_to_l1_bytes_per_cycle),
            ("gm_to_ub_bytes_per_cycle", self.gm_to_ub_bytes_per_cycle),
            ("l1_to_l0a_bytes_per_cycle", self.l1_to_l0a_bytes_per_cycle),
            ("l1_to_l0b_bytes_per_cycle", self.l1_to_l0b_bytes_per_cycle),
            ("l0c_to_gm_bytes_per_cycle", self.l0c_to_gm_bytes_per_cycle),
            ("l0c_to_ub_bytes_per_cycle", self.l0c_to_ub_bytes_per_cycle),
            ("ub_to_gm_bytes_per_cycle", self.ub_to_gm_bytes_per_cycle),
            ("hbm_bytes_per_cycle", self.hbm_bytes_per_cycle),
            ("hbm_core_bytes_per_cycle", self.hbm_core_bytes_per_cycle),
            ("l2_bytes_per_cycle", self.l2_bytes_per_cycle),
            ("vector_bytes_per_cycle", self.vector_bytes_per_cycle),
        ];
        for (field, value) in rates {
            if !(value.is_finite() && value > 0.0) {
                return bad(field, ConfigDetail::PositiveRate { got: value.to_string() });
            }
        }
        let bursts = [
            ("gm_to_l1_burst_cycles", self.gm_to_l1_burst_cycles),
            ("gm_to_ub_burst_cycles", self.gm_to_ub_burst_cycles),
        ];
        for (field, value) in bursts {
            if !(value.is_finite() && value >= 0.0) {
                return bad(field, ConfigDetail::NonNegative { got: value.to_string() });
            }
        }
        let sizes = [
            ("cube_cores", self.cube_cores as u64),
            ("vector_cores", self.vector_cores as u64),
            ("ub_bytes", self.ub_bytes),
            ("l1_bytes", self.l1_bytes),
            ("l0a_bytes", self.l0a_bytes),
            ("l0b_bytes", self.l0b_bytes),
            ("l0c_bytes", self.l0c_bytes),
            ("cube_macs_per_cycle", self.cube_macs_per_cycle),
            ("l2_line_bytes", self.l2_line_bytes),
        ];
        for (field, value) in sizes {
            if value == 0 {
                return bad(field, ConfigDetail::AtLeastOne);
            }
        }
        let alignments = [
            ("ub_alignment", self.ub_alignment),
            ("l1_alignment", self.l1_alignment),
            ("l0ab_alignment", self.l0ab_alignment),
            ("l0c_alignment", self.l0c_alignment),
        ];
        for (field, value) in alignments {
            if !value.is_power_of_two() {
                return bad(field, ConfigDetail::PowerOfTwo { got: value });
            }
        }
        if self.architecture == Architecture::Coupled && self.cube_cores != self.vector_cores {
            return bad(
                "vector_cores",
                ConfigDetail::CoupledCores { expected: self.cube_cores, got: self.vector_cores },
            );
        }
        Ok(())
    }

    /// Bytes of an on-core memory (GM: the L2 size).
    pub fn capacity(&self, memory: Memory) -> u64 {
        match memory {
            Memory::Gm => self.l2_bytes,
            Memory::L1 => self.l1_bytes,
            Memory::L0A => self.l0a_bytes,
            Memory::L0B => self.l0b_bytes,
            Memory::L0C => self.l0c_bytes,
            Memory::Ub => self.ub_bytes,
        }
    }

    /// The alignment rule of a memory in bytes.
    pub fn alignment(&self, memory: Memory) -> u64 {
        match memory {
            Memory::Gm => 1,
            Memory::L1 => self.l1_alignment,
            Memory::L0A | Memory::L0B => self.l0ab_alignment,
            Memory::L0C => self.l0c_alignment,
            Memory::Ub => self.ub_alignment,
        }
    }

    /// How many programs of a kind can run at once.
    pub fn cores_for(&self, kind: CoreKind) -> u32 {
        match kind {
            CoreKind::Cube | CoreKind::Mixed => self.cube_cores,
            CoreKind::Vector => self.vector_cores,
        }
    }

    /// Cube peak in FLOP/s over all cube cores (2 FLOPs per MAC).
    pub fn cube_peak_flops(&self) -> f64 {
        2.0 * self.cube_macs_per_cycle as f64 * self.cube_cores as f64 * self.clock_mhz * 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_round_trip_through_json() {
        for name in PRESET_NAMES {
            let config = NpuConfig::preset(name).unwrap();
            let text = serde_json::to_string(&config).unwrap();
            assert_eq!(NpuConfig::from_json(&text).unwrap(), config);
        }
        assert_eq!(NpuConfig::preset("ascend910b2").unwrap().name, "Ascend910B2");
    }

    #[test]
    fn bad_fields_are_named() {
        let mut value = serde_json::to_value(NpuConfig::preset("teaching").unwrap()).unwrap();
        value["hbm_bytes_per_cycle"] = serde_json::json!(-1.0);
        match NpuConfig::from_json(&value.to_string()) {
            Err(NpuError::BadConfig { field, .. }) => assert_eq!(field, "hbm_bytes_per_cycle"),
            other => panic!("expected a bad field, got {other:?}"),
        }
        value["hbm_bytes_per_cycle"] = serde_json::json!(64.0);
        value["ub_size"] = serde_json::json!(1);
        match NpuConfig::from_json(&value.to_string()) {
            Err(NpuError::BadConfig { field, .. }) => assert_eq!(field, "ub_size"),
            other => panic!("expected an unknown field, got {other:?}"),
        }
        assert!(matches!(NpuConfig::preset("Ascend999"), Err(NpuError::UnknownPreset { .. })));
    }
}
