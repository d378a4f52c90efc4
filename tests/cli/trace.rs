//! `tilelab run FILE --trace-out DIR`: one Chrome Trace Event file per simulated kernel call
//! (`pypto.schedule`, each fitting sweep row), named `<cell>-<n>-<kernel>.json`; DIR is created.
//! Each file is valid JSON whose complete events carry pid/tid/ts/dur, and a pipe (pid, tid) runs
//! one instruction at a time: its events never overlap.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const NOTEBOOK: &str = "# %% [markdown]
# Traces of a schedule and a sweep.

# %%
import pypto as pt
pt.npu.use('teaching')

@pt.kernel
def scaled(x):
    pt.set_vec_tile_shapes(8, 64)
    return pt.sigmoid(x) * x

x = pt.randn([32, 128], seed=3)

# %%
s = pt.schedule(scaled, x)
print(s.cycles)

# %%
t = pt.npu.sweep(scaled, (x,), vec_tiles=[[4, 64], [8, 64], [64, 128]])
print(len(t.rows))
";

fn scratch(test: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("tilelab-trace-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("temp dir");
    directory
}

#[test]
fn every_kernel_call_writes_a_chrome_trace_without_overlaps() {
    let directory = scratch("files");
    let notebook = directory.join("trace.py");
    std::fs::write(&notebook, NOTEBOOK).unwrap();
    // A nested directory that does not exist yet: the CLI creates it.
    let out = directory.join("traces").join("run");
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab"))
        .args(["run", notebook.to_str().unwrap(), "--trace-out", out.to_str().unwrap()])
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .expect("DIR exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Notebook cell 2 (the markdown cell is 0) scheduled once; cell 3 swept three shapes, of which
    // 64×128 overflows the 16 KiB UB (2 × 2 × 64×128×4 B) and so has no trace.
    assert_eq!(names, ["2-1-scaled.json", "3-1-scaled-vec4x64.json", "3-2-scaled-vec8x64.json"]);
    for name in &names {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|error| panic!("{name}: {error}"));
        let events = json["traceEvents"].as_array().unwrap_or_else(|| panic!("{name}: no traceEvents"));
        let mut lanes: BTreeMap<(i64, i64), Vec<(f64, f64)>> = BTreeMap::new();
        for event in events.iter().filter(|event| event["ph"] == "X") {
            let field =
                |key: &str| event[key].as_f64().unwrap_or_else(|| panic!("{name}: event without {key}: {event}"));
            let (pid, tid, start, duration) = (field("pid") as i64, field("tid") as i64, field("ts"), field("dur"));
            assert!(duration >= 0.0 && start >= 0.0, "{name}: {event}");
            lanes.entry((pid, tid)).or_default().push((start, start + duration));
        }
        assert!(!lanes.is_empty(), "{name}: no complete events");
        for ((pid, tid), mut spans) in lanes {
            spans.sort_by(|a, b| a.partial_cmp(b).unwrap());
            for pair in spans.windows(2) {
                // Tolerance for the microsecond rounding of cycle times in the file.
                assert!(
                    pair[1].0 >= pair[0].1 - 1e-6,
                    "{name}: overlap on ({pid}, {tid}): {:?} then {:?}",
                    pair[0],
                    pair[1]
                );
            }
        }
    }
    // The schedule's file describes the run the notebook printed: the last event ends at the cycles
    // (teaching: 1000 MHz, so µs = cycles / 1000).
    let stdout = String::from_utf8_lossy(&output.stdout);
    let cycles: f64 = stdout.lines().next().unwrap().trim().parse().unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("2-1-scaled.json")).unwrap()).unwrap();
    let end = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["ph"] == "X")
        .map(|event| event["ts"].as_f64().unwrap() + event["dur"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(
        end <= cycles / 1000.0 + 1e-6 && end > (cycles - 1.0) / 1000.0 - 1e-3,
        "trace ends at {end} us, schedule {cycles} cycles"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn without_trace_out_nothing_is_written_and_a_missing_dir_argument_is_refused() {
    let directory = scratch("refused").join("missing");
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab")).args(["run", "x.py", "--trace-out"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--trace-out"));
    assert!(!directory.exists());
}
