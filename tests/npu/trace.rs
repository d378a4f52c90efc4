//! The Chrome trace export: valid JSON, pid = core, tid = pipe, µs timestamps, named processes and
//! threads, and no two events overlapping on one (pid, tid) lane (each pipe is an in-order queue).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use super::lowering_support::{chain_work, compiled, tensor, Chain};
use tilelab::npu::{simulate, NpuConfig};
use tilelab::tensor::{DType, UnaryOp};
use tilelab::tile::{whole_matmul, CubeTiles};

fn check_lanes(json: &str) -> usize {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut lanes: BTreeMap<(u64, u64), Vec<(f64, f64)>> = BTreeMap::new();
    let mut names = 0;
    for event in value["traceEvents"].as_array().unwrap() {
        match event["ph"].as_str().unwrap() {
            "X" => lanes
                .entry((event["pid"].as_u64().unwrap(), event["tid"].as_u64().unwrap()))
                .or_default()
                .push((event["ts"].as_f64().unwrap(), event["dur"].as_f64().unwrap())),
            "M" => names += 1,
            other => panic!("unexpected phase {other}"),
        }
    }
    assert!(names > 0, "process and thread names are present");
    let mut count = 0;
    for (lane, mut events) in lanes {
        events.sort_by(|left, right| left.0.total_cmp(&right.0));
        for pair in events.windows(2) {
            // Tolerance: 1e-9 µs absorbs the rounding of cycles ÷ MHz.
            assert!(pair[0].0 + pair[0].1 <= pair[1].0 + 1e-9, "lane {lane:?}: {:?} overlaps {:?}", pair[0], pair[1]);
        }
        count += events.len();
    }
    count
}

#[test]
fn chrome_trace_lanes_do_not_overlap() {
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    let a = tensor("a", &[512, 512], DType::F16);
    let b = tensor("b", &[512, 512], DType::F16);
    let tiles = CubeTiles { m: [64, 128], k: [64, 128], n: [128, 128] };
    let simulation = simulate(&compiled(&whole_matmul(a, b, DType::F32, tiles, 2, Some(3)), &config), &config).unwrap();
    let json = simulation.trace.to_chrome_json();
    assert_eq!(check_lanes(&json), simulation.trace.events.len());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = value["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["name"] == "process_name")
        .map(|event| event["args"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"AIC 0"));
    // ts is in µs: the last end in cycles ÷ 1800 MHz.
    let last_end = value["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["ph"] == "X")
        .map(|event| event["ts"].as_f64().unwrap() + event["dur"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!((last_end - simulation.summary.time_us).abs() < 1e-6);
    assert!(simulation.trace.events.iter().all(|event| event.source_line == Some(3)));
}

#[test]
fn vector_trace_lanes_do_not_overlap_and_summary_serialises() {
    let config = NpuConfig::preset("teaching").unwrap();
    let x = tensor("x", &[200, 96], DType::F16);
    // 200 rows in 16-row tiles: the last tile is ragged (8 valid rows).
    let simulation = simulate(
        &compiled(&chain_work(&[x], &[Chain::Unary(UnaryOp::Relu)], DType::F16, [16, 96], 2, None), &config),
        &config,
    )
    .unwrap();
    let json = simulation.trace.to_chrome_json();
    check_lanes(&json);
    // `teaching` is a coupled chip: a core is an "AI core" even when its program uses only vector pipes.
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = value["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["name"] == "process_name")
        .map(|event| event["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["AI core 0", "AI core 1"]);
    // Reads: 200·96·2 B, writes the same; ragged tiles move only their valid rows.
    assert_eq!(simulation.summary.gm_bytes_read, 200 * 96 * 2);
    let summary = serde_json::to_value(&simulation.summary).unwrap();
    for field in [
        "cycles",
        "time_us",
        "pipe_busy",
        "gm_bytes_read",
        "gm_bytes_written",
        "bound",
        "peak_occupancy",
        "capacities",
        "achieved_flops_per_second",
    ] {
        assert!(summary.get(field).is_some(), "summary lacks {field}");
    }
}

/// The trace as `serde_json` writes the same values built as JSON objects (the reference form).
fn reference_chrome_json(trace: &tilelab::npu::Trace) -> String {
    use serde_json::json;
    let mut events = Vec::new();
    for (core, kind) in trace.core_kinds.iter().enumerate() {
        let name = tilelab::npu::core_name(core, *kind);
        events.push(json!({"name": "process_name", "ph": "M", "pid": core, "args": {"name": name}}));
        events.push(json!({"name": "process_sort_index", "ph": "M", "pid": core, "args": {"sort_index": core}}));
        for pipe in tilelab::tile::Pipe::ALL {
            events.push(json!({"name": "thread_name", "ph": "M", "pid": core, "tid": pipe.index(), "args": {"name": pipe.name()}}));
        }
    }
    for event in &trace.events {
        events.push(json!({
            "name": event.op, "cat": event.pipe.name(), "ph": "X", "pid": event.core, "tid": event.pipe.index(),
            "ts": event.start / trace.clock_mhz, "dur": (event.end - event.start) / trace.clock_mhz,
            "args": {"tile": trace.tile(event), "bytes": event.bytes, "flops": event.flops, "line": event.source_line,
                     "start_cycle": event.start, "end_cycle": event.end},
        }));
    }
    json!({"traceEvents": events, "displayTimeUnit": "ns"}).to_string()
}

#[test]
fn chrome_json_is_the_text_serde_json_writes_for_the_same_values() {
    // A real schedule (fractional cycles from shared HBM), then the same events with labels that
    // need escaping, no source line, and non-finite times.
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    let a = tensor("a", &[512, 512], DType::F16);
    let b = tensor("b", &[512, 512], DType::F16);
    let tiles = CubeTiles { m: [64, 128], k: [64, 128], n: [128, 128] };
    let mut trace =
        simulate(&compiled(&whole_matmul(a, b, DType::F32, tiles, 2, Some(3)), &config), &config).unwrap().trace;
    assert!(trace.events.iter().any(|event| event.start.fract() != 0.0 || event.end.fract() != 0.0));
    assert_eq!(trace.to_chrome_json(), reference_chrome_json(&trace));
    let mut odd = trace.events[0];
    trace.labels.push("a \"quoted\" \\ tile\n\t\u{1}é 张量".to_string());
    odd.tile = trace.labels.len() as u32 - 1;
    odd.source_line = None;
    odd.end = f64::INFINITY;
    trace.events.push(odd);
    trace.clock_mhz = 1234.5;
    assert_eq!(trace.to_chrome_json(), reference_chrome_json(&trace));
}
