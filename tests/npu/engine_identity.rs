//! The simulator's speed work (issue 17 item 2) must not change what it simulates. Each kernel below
//! is compiled and run cold and warm; its plan (every schedule), every trace event (core, pipe,
//! start and end to the bit, op, tile, instruction, bytes, FLOPs, line), the engine totals and the
//! summary are folded into a fingerprint and compared with tests/npu/engine_identity.golden, which
//! the same code wrote from the simulator as it was BEFORE the speed work (commit "engine identity
//! golden"). Regenerate only for a deliberate model change:
//! `ENGINE_IDENTITY_WRITE=1 cargo test --test npu engine_identity`.

use tilelab::npu::{check_plan, lowering_target, run, run_warm, summarize, NpuConfig, Trace};
use tilelab::tile::{lower_work, KernelPlan, TileWork};

use super::fidelity_kernels::{flash_attention, gemm, rms_norm, swiglu};

use tilelab::session::bench_kernels;

const GOLDEN: &str = "tests/npu/engine_identity.golden";

/// FNV-1a, 64 bit: a fixed, platform-independent hash (std's hasher may change between releases).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn word(&mut self, word: u64) {
        self.bytes(&word.to_le_bytes());
    }
}

fn trace_hash(trace: &Trace) -> u64 {
    let mut hash = Fnv::new();
    hash.word(trace.clock_mhz.to_bits());
    hash.bytes(format!("{:?}", trace.core_kinds).as_bytes());
    for event in &trace.events {
        hash.word(u64::from(event.core));
        hash.word(event.pipe.index() as u64);
        hash.word(event.start.to_bits());
        hash.word(event.end.to_bits());
        hash.bytes(event.op.as_bytes());
        hash.bytes(trace.tile(event).as_bytes());
        hash.word(u64::from(event.instruction));
        hash.word(event.bytes);
        hash.word(event.flops);
        hash.word(event.source_line.map_or(u64::MAX, u64::from));
    }
    hash.0
}

/// One line per run: kernel, cold/warm, plan hash, event count, trace hash, totals, summary.
fn fingerprint(label: &str, plan: &KernelPlan, config: &NpuConfig) -> Vec<String> {
    check_plan(plan, config).expect("the plan passes the checks");
    let mut plan_hash = Fnv::new();
    plan_hash.bytes(serde_json::to_string(plan).expect("plans serialise").as_bytes());
    let cold = run(plan, config).expect("cold run");
    let warm = run_warm(plan, config).expect("warm run");
    [("cold", cold), ("warm", warm)]
        .into_iter()
        .map(|(temperature, (trace, totals))| {
            let summary = summarize(plan, config, &totals);
            format!(
                "{label} {temperature} plan {:016x} events {} trace {:016x} totals {totals:?} summary {}",
                plan_hash.0,
                trace.events.len(),
                trace_hash(&trace),
                serde_json::to_string(&summary).expect("summaries serialise")
            )
        })
        .collect()
}

fn lowered(work: &TileWork, config: &NpuConfig) -> KernelPlan {
    lower_work(work, &lowering_target(config)).expect("the kernel compiles")
}

fn preset(name: &str) -> NpuConfig {
    NpuConfig::preset(name).expect("a preset")
}

/// The kernels: the two of `cargo bench --bench npu`, a flash attention (cube and vector cores
/// handing off through cross-core flags), element-wise kernels with a ragged last tile, and
/// multi-core kernels whose data outgrows a shrunk L2 (evictions, dirty write-backs, the recency
/// list) — one with lines that are not a power of two bytes long, one on the coupled teaching chip.
fn fingerprints() -> Vec<String> {
    let b2 = preset("Ascend910B2");
    let mut small_l2 = b2.clone();
    small_l2.l2_bytes = 4 << 20;
    let mut odd_lines = b2.clone();
    (odd_lines.l2_bytes, odd_lines.l2_line_bytes) = (3 << 20, 384);
    let kernels: Vec<(&str, TileWork, &NpuConfig)> = vec![
        ("bench_gemm_4096", bench_kernels::gemm_work(4096), &b2),
        ("bench_swiglu_b_22000", bench_kernels::swiglu_b_work(22000), &b2),
        ("flash_attention_1024x4096", flash_attention(1024, 4096), &b2),
        ("flash_attention_odd_lines", flash_attention(512, 2304), &odd_lines),
        ("swiglu_ragged_1000", swiglu(1000, 1024, 64), &b2),
        ("rms_norm_300", rms_norm(300, 1024), &b2),
        ("gemm_3072_small_l2", gemm(3072), &small_l2),
        ("swiglu_b_small_l2", bench_kernels::swiglu_b_work(3000), &small_l2),
    ];
    let mut lines = Vec::new();
    for (label, work, config) in kernels {
        lines.extend(fingerprint(label, &lowered(&work, config), config));
    }
    let teaching = preset("teaching");
    lines.extend(fingerprint("swiglu_teaching", &lowered(&swiglu(200, 512, 16), &teaching), &teaching));
    lines
}

#[test]
fn every_kernel_simulates_exactly_as_before_the_speed_work() {
    let lines = fingerprints();
    if std::env::var_os("ENGINE_IDENTITY_WRITE").is_some() {
        std::fs::write(GOLDEN, lines.join("\n") + "\n").expect("write the golden file");
        return;
    }
    let golden = std::fs::read_to_string(GOLDEN).expect("the golden file");
    let golden: Vec<&str> = golden.lines().collect();
    assert_eq!(lines.len(), golden.len(), "runs");
    for (line, expected) in lines.iter().zip(golden) {
        assert_eq!(line, expected);
    }
}
