//! pypto's cost model output: a jit kernel run with `runtime_options={"run_mode": RunMode.SIM}`
//! leaves its swimlane at `./output/output_<time>_<pid>_<host>/CostModelSimulationOutput/
//! merged_swimlane.json` in the working directory (pypto's examples look for it there); a kernel
//! run in the default mode writes nothing; a script finds the file with `os` as pypto's example does.

use std::process::Command;

const SCRIPT: &str = "import pypto

@pypto.frontend.jit(runtime_options={\"run_mode\": pypto.RunMode.SIM})
def scaled(x: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(8, 64)
    out[:] = pypto.sigmoid(x) * x

@pypto.frontend.jit
def plain(x: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(8, 64)
    out[:] = x + 1

import torch
x = torch.rand(32, 128)
out = torch.empty(32, 128)
MODE(x, out)
print(out.shape)
";

fn run_in_scratch(test: &str, kernel: &str) -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!("tilelab-cost-model-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("temp dir");
    std::fs::write(directory.join("kernel.py"), SCRIPT.replace("MODE", kernel)).unwrap();
    run_script(&directory, "kernel.py");
    directory
}

/// Runs `script` of `directory` there with the CLI, which must succeed; returns its stdout.
fn run_script(directory: &std::path::Path, script: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab"))
        .args(["run", script])
        .current_dir(directory)
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_kernel_in_simulation_mode_leaves_its_swimlane_where_pypto_does() {
    let directory = run_in_scratch("sim", "scaled");
    let runs: Vec<_> =
        std::fs::read_dir(directory.join("output")).expect("output/ made").map(|entry| entry.unwrap()).collect();
    assert_eq!(runs.len(), 1, "one folder per run");
    let name = runs[0].file_name().to_string_lossy().into_owned();
    // output_YYYYmmdd_HHMMSS_micros_<pid>_<host>
    let parts: Vec<&str> = name.split('_').collect();
    assert_eq!(parts[0], "output", "{name}");
    assert!(parts[1].len() == 8 && parts[2].len() == 6 && parts[3].len() == 6, "{name}");
    let swimlane = runs[0].path().join("CostModelSimulationOutput").join("merged_swimlane.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&swimlane).expect("swimlane written")).unwrap();
    let events = value["traceEvents"].as_array().expect("a Chrome trace");
    let complete = events.iter().filter(|event| event["ph"] == "X").count();
    assert!(complete > 0, "the schedule's instructions are in it");
    assert!(events.iter().any(|event| event["ph"] == "X" && event["cat"] == "VECTOR"));
}

#[test]
fn a_kernel_in_the_default_mode_writes_nothing() {
    let directory = run_in_scratch("npu", "plain");
    assert!(!directory.join("output").exists());
}

/// pypto's cost-model example finds the run's folder with `os`: `os.path.exists("./output")`, the
/// folders of `os.listdir` whose name holds `os.getpid()`, the newest by `os.path.getctime`.
const FIND: &str = "import os, json, pathlib
out_path = './output'
print(os.path.exists(out_path), os.path.isdir(out_path), os.path.isfile(out_path))
pid = str(os.getpid())
subdirs = [os.path.join(out_path, d) for d in os.listdir(out_path) if os.path.isdir(os.path.join(out_path, d)) and pid in d]
latest = max(subdirs, key=os.path.getctime)
swimlane = os.path.join(latest, 'CostModelSimulationOutput/merged_swimlane.json')
print(len(subdirs), os.path.isfile(swimlane), len(json.loads(pathlib.Path(swimlane).read_text())['traceEvents']) > 0)
print(os.path.exists('./nothing'), 'kernel.py' in os.listdir())
";

#[test]
fn a_script_finds_the_swimlane_with_os_as_pypto_s_example_does() {
    let directory = run_in_scratch("find", "scaled");
    std::fs::write(directory.join("find.py"), FIND).unwrap();
    assert_eq!(run_script(&directory, "find.py"), "True True False\n1 True True\nFalse True\n");
}
