//! `make fidelity`: every row of bench/fidelity/measured.csv (measured Ascend kernel figures with
//! their sources) against the simulator, printed as measured vs simulated vs error. Ignored by
//! default (a few seconds of simulation); `scripts/fidelity.sh` runs it and writes the table that
//! docs/npu-model.md shows.

use std::collections::BTreeMap;

use super::fidelity_kernels::{flash_attention, gemm, rms_norm, swiglu};
use super::lowering_support::target;
use tilelab::npu::{check_plan, run, run_warm, summarize, NpuConfig, Summary};
use tilelab::tile::{lower_work, TileWork};

/// One measured row.
struct Row {
    id: String,
    kernel: String,
    shape: Vec<usize>,
    metric: String,
    measured: f64,
    source: String,
}

fn measured_rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/fidelity/measured.csv");
    let text = std::fs::read_to_string(path).expect("bench/fidelity/measured.csv");
    let mut lines = text.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty());
    assert_eq!(lines.next(), Some("id,kernel,shape,metric,measured,source"), "header of {path}");
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 6, "{line}");
            Row {
                id: fields[0].into(),
                kernel: fields[1].into(),
                shape: fields[2].split('x').map(|size| size.parse().expect("a size")).collect(),
                metric: fields[3].into(),
                measured: fields[4].parse().expect("a measured number"),
                source: fields[5].into(),
            }
        })
        .collect()
}

/// The error of each row in bench/fidelity/baseline.md: the table as `make fidelity` wrote it before
/// issue 14's burst model (stop 25: write-back L2, aggregate L2 bandwidth, vector cost classes),
/// kept so the table shows what changed.
fn baseline_errors() -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/fidelity/baseline.md");
    let text = std::fs::read_to_string(path).expect("bench/fidelity/baseline.md");
    text.lines()
        .skip(2)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            (fields.len() > 7).then(|| (fields[1].to_string(), fields[7].to_string()))
        })
        .collect()
}

/// The work a row measures.
fn row_work(row: &Row) -> TileWork {
    match (row.kernel.as_str(), row.shape.as_slice()) {
        ("gemm", [size, ..]) => gemm(*size),
        ("flash_attention", [query, key]) => flash_attention(*query, *key),
        // The streaming case moves 16-row bands; the small one 256-row bands of a 128-wide x.
        ("swiglu", [rows, width]) => swiglu(*rows, *width, if *width > 1024 { 16 } else { 256 }),
        ("rmsnorm", [rows, width]) => rms_norm(*rows, *width),
        other => panic!("no workload for {other:?}"),
    }
}

/// A row's summary and drain bytes, or why it could not be simulated.
type Simulated = Result<(Summary, u64), String>;

/// The summary of a row's simulation and the bytes its L2 still holds dirty at the end (the drain,
/// which the kernel's time does not include: docs/npu-model.md, "Write-back and the drain").
fn simulated_summary(work: &TileWork, config: &NpuConfig, warm: bool) -> Simulated {
    let plan = lower_work(work, &target(config)).map_err(|error| error.to_string())?;
    check_plan(&plan, config).map_err(|error| error.to_string())?;
    let (_, totals) =
        if warm { run_warm(&plan, config) } else { run(&plan, config) }.map_err(|error| error.to_string())?;
    Ok((summarize(&plan, config, &totals), totals.drain_bytes))
}

fn metric(summary: &Summary, metric: &str) -> f64 {
    match metric {
        "time_us" | "time_us_warm" => summary.time_us,
        "cube_busy_percent" => 100.0 * summary.pipe_busy.get("CUBE").copied().unwrap_or(0.0),
        other => panic!("unknown metric {other}"),
    }
}

/// Simulates every row and returns the markdown table (one line per row).
pub fn fidelity_table(config: &NpuConfig) -> String {
    let mut summaries: BTreeMap<(String, Vec<usize>, bool), Simulated> = BTreeMap::new();
    let mut table = String::from(
        "| row | kernel | shape | metric | measured | simulated | error | before | busiest pipes (simulated) | drain after (µs) | source |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let before = baseline_errors();
    for row in measured_rows() {
        let warm = row.metric == "time_us_warm";
        let key = (row.kernel.clone(), row.shape.clone(), warm);
        let summary = summaries.entry(key).or_insert_with(|| simulated_summary(&row_work(&row), config, warm));
        let shape = row.shape.iter().map(usize::to_string).collect::<Vec<_>>().join("×");
        let (simulated, error, busy, drain) = match summary {
            Ok((summary, drain_bytes)) => {
                let value = metric(summary, &row.metric);
                let error = if row.metric.starts_with("time_us") {
                    format!("{:+.1} %", (value / row.measured - 1.0) * 100.0)
                } else {
                    format!("{:+.1} pt", value - row.measured)
                };
                let mut pipes: Vec<(&String, &f64)> = summary.pipe_busy.iter().collect();
                pipes.sort_by(|left, right| right.1.total_cmp(left.1));
                let busy = pipes.iter().take(3).map(|(pipe, share)| format!("{pipe} {:.0}%", **share * 100.0));
                // The dirty lines left at the end, written at the full HBM rate after the kernel.
                let drain_us = *drain_bytes as f64 / config.hbm_bytes_per_cycle / config.clock_mhz;
                (format!("{value:.1}"), error, busy.collect::<Vec<_>>().join(", "), format!("{drain_us:.1}"))
            }
            Err(error) => ("—".into(), "not simulated".into(), error.replace('|', "/"), "—".into()),
        };
        table.push_str(&format!(
            "| {} | {} | {shape} | {} | {} | {simulated} | {error} | {} | {busy} | {drain} | {} |\n",
            row.id,
            row.kernel,
            row.metric,
            row.measured,
            before.get(&row.id).map_or("—", String::as_str),
            row.source
        ));
    }
    table
}

#[test]
#[ignore = "make fidelity runs it: simulates every measured kernel (seconds in a debug build)"]
fn fidelity_against_measured_kernels() {
    let config = NpuConfig::preset("Ascend910B2").unwrap();
    let table = fidelity_table(&config);
    println!("{table}");
    if let Ok(path) = std::env::var("FIDELITY_TABLE") {
        std::fs::write(&path, &table).unwrap_or_else(|error| panic!("writing {path}: {error}"));
    }
}

#[test]
fn the_measured_table_has_a_workload_and_a_source_for_every_row() {
    // Every row names a known source and a kernel this file can build, every metric is known, and
    // the baseline table has the row.
    let before = baseline_errors();
    for row in measured_rows() {
        assert!(before.contains_key(&row.id), "{} is not in bench/fidelity/baseline.md", row.id);
        assert!(["pto-gemm", "pto-fa", "swiglu", "swiglu-warm", "small"].contains(&row.source.as_str()), "{}", row.id);
        assert!(["time_us", "time_us_warm", "cube_busy_percent"].contains(&row.metric.as_str()), "{}", row.id);
        assert!(row.measured > 0.0, "{}", row.id);
        let work = row_work(&row);
        assert!(!work.units.is_empty(), "{}", row.id);
    }
}
