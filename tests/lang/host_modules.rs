//! The host modules a pypto example imports around its kernels — `sys.argv` and `sys.exit`,
//! `os.environ`, `os.path`, `time`, `argparse` — and the Python a `main()` uses with them (a bare
//! `raise` in an `except` block), so that an example runs unchanged with its defaults.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// pypto's examples parse a run mode and an optional case name; with no command line every
/// default comes back, and an explicit list parses as argparse would.
#[test]
fn argparse_gives_defaults_and_parses_a_given_command_line() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import argparse
parser = argparse.ArgumentParser(description="demo", formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("example_id", type=str, nargs="?", help="a case")
parser.add_argument("--list", action="store_true")
parser.add_argument("--run_mode", "--run-mode", nargs="?", type=str, default="npu", choices=["npu", "sim"])
parser.add_argument("-n", "--repeat", type=int, default=2)
parser.add_argument("--tag", action="append")
args = parser.parse_args()
print(args.example_id, args.list, args.run_mode, args.repeat, args.tag)
given = parser.parse_args(["abs::basic", "--run-mode", "sim", "--list", "-n", "5", "--tag=a", "--tag", "b"])
print(given.example_id, given.list, given.run_mode, given.repeat, given.tag)
print(given)
known, rest = parser.parse_known_args(["--repeat=3", "--other"])
print(known.repeat, rest)
"#,
    );
    assert_eq!(
        printed,
        "None False npu 2 None\n\
         abs::basic True sim 5 ['a', 'b']\n\
         Namespace(example_id='abs::basic', list=True, run_mode='sim', repeat=5, tag=['a', 'b'])\n\
         3 ['--other']\n"
    );
}

/// A command line argparse rejects ends the cell as argparse ends a program (SystemExit 2), with
/// its message, at the `parse_args` call; `except Exception` does not catch it.
#[test]
fn a_bad_command_line_is_a_located_system_exit() {
    let mut session = Session::new();
    run_ok(
        &mut session,
        "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--run_mode', choices=['npu', 'sim'])\n\
         parser.add_argument('--size', type=int, required=True)",
    );
    for (code, message) in [
        (
            "parser.parse_args(['--size', '4', '--run_mode', 'gpu'])",
            "argument --run_mode: invalid choice: 'gpu' (choose from 'npu', 'sim')",
        ),
        ("parser.parse_args(['--size', 'four'])", "argument --size: invalid int value: 'four'"),
        ("parser.parse_args([])", "the following arguments are required: --size"),
        ("parser.parse_args(['--size', '4', 'extra'])", "unrecognized arguments: extra"),
    ] {
        let wrapped = format!("try:\n    {code}\nexcept Exception:\n    print('caught')");
        let result = run_err(&mut session, &wrapped);
        let error = result.error().unwrap();
        assert_eq!(error.code, "runtime/system-exit", "{code}");
        assert_eq!(error.message, format!("notebook: error: {message}"), "{code}");
        assert_eq!(spanned(&wrapped, &result), code, "{code}");
        assert!(result.stdout.is_empty(), "{code}: {}", result.stdout);
    }
}

/// `sys.exit()` and `sys.exit(0)` end a cell as a success (what ran before stays); another status is
/// an error at the call; `except SystemExit` catches it.
#[test]
fn sys_exit_ends_the_cell() {
    let mut session = Session::new();
    let printed = run_ok(&mut session, "import sys\nkept = 1\nprint('before')\nsys.exit(0)\nprint('after')");
    assert_eq!(printed, "before\n");
    assert_eq!(run_ok(&mut session, "print(kept, sys.argv)"), "1 ['notebook']\n");
    run_ok(&mut session, "sys.exit()");
    let code = "x = 2\nsys.exit(3)";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "SystemExit: 3");
    assert_eq!(spanned(code, &result), "sys.exit(3)");
    let printed = run_ok(&mut session, "try:\n    sys.exit(1)\nexcept SystemExit as e:\n    print('caught', e)");
    assert_eq!(printed, "caught 1\n");
    // `BaseException` catches everything, `SystemExit` too; `Exception` does not catch `SystemExit`.
    let code = "for raise_it in (lambda: sys.exit(2), lambda: 1 / 0, lambda: [][1]):\n    try:\n        raise_it()\n    except BaseException:\n        print('caught')";
    assert_eq!(run_ok(&mut session, code), "caught\ncaught\ncaught\n");
    let result = run_err(&mut session, "try:\n    sys.exit(4)\nexcept Exception:\n    print('wrong')");
    assert_eq!(result.error().unwrap().message, "SystemExit: 4");
    assert_eq!(
        run_ok(&mut session, "try:\n    raise BaseException('b')\nexcept BaseException as e:\n    print(e)"),
        "b\n"
    );
}

/// The environment holds the device the simulated NPU is; `os.path` works on strings; `time`'s
/// clocks move forward.
#[test]
fn os_and_time_as_examples_use_them() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import os, time
print('TILE_FWK_DEVICE_ID' in os.environ, int(os.environ['TILE_FWK_DEVICE_ID']), os.getenv("HOME", "none"))
os.environ["MY_FLAG"] = "1"
print(os.environ.get("MY_FLAG"), os.path.join("a", "b", "c.py"), os.path.basename("/x/y.json"))
print(os.path.splitext("dir/case.py"), os.path.dirname("/x/y.json"), os.path.exists("/x"))
start = time.perf_counter()
total = 0
for i in range(20000):
    total += i
print(time.perf_counter() - start >= 0, time.time() > 1.7e9)
"#,
    );
    assert_eq!(printed, "True 0 none\n1 a/b/c.py y.json\n('dir/case', '.py') /x False\nTrue True\n");
    assert_eq!(run_ok(&mut session, "print(os.environ['MY_FLAG'])"), "1\n");
    let code = "time.sleeep(1)";
    let result = run_err(&mut session, code);
    assert_eq!(result.error().unwrap().message, "module 'time' has no attribute 'sleeep'");
}

/// A bare `raise` in a handler raises the caught error again, where it first happened.
#[test]
fn a_bare_raise_reraises_the_caught_error() {
    let mut session = Session::new();
    let code = "def f():\n    return 1 / 0\ntry:\n    f()\nexcept Exception as e:\n    print('Error:', e)\n    raise";
    let result = run_err(&mut session, code);
    assert_eq!(result.stdout, "Error: division by zero\n");
    assert_eq!(result.error().unwrap().code, "runtime/zero-division");
    assert_eq!(spanned(code, &result), "1 / 0");
    let result = run_err(&mut session, "raise");
    assert!(result.error().unwrap().message.contains("outside an `except` block"), "{:?}", result.error());
}

/// The shape of every pypto example's script part: the run mode peeked from `sys.argv` at import,
/// an `ArgumentParser` in `main()`, the device from the environment, `torch.npu.set_device`, a
/// re-raise around the cases, and `if __name__ == "__main__": main()`. It runs unchanged, and the
/// kernel runs on the NPU.
#[test]
fn a_pypto_example_main_runs_unchanged() {
    let mut session = Session::new();
    let result = session.run_cell(
        r#"
import argparse
import os
import sys
import torch
import pypto

def peek_run_mode(default="npu"):
    for index, argument in enumerate(sys.argv):
        if argument == "--run_mode" and index + 1 < len(sys.argv):
            return sys.argv[index + 1]
    return default

run_mode = pypto.RunMode.NPU if peek_run_mode() == "npu" else pypto.RunMode.SIM

@pypto.frontend.jit(runtime_options={"run_mode": run_mode})
def double_kernel(x: pypto.Tensor([], pypto.DT_FP32), out: pypto.Tensor([], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 64)
    out[:] = x + x

def test_double(device_id):
    device = f"npu:{device_id}"
    x = torch.randn((32, 64), dtype=torch.float32, device=device)
    out = torch.empty((32, 64), dtype=torch.float32, device=device)
    double_kernel(x, out)
    torch.testing.assert_close(out, x * 2)
    print("ok", device)

def main():
    parser = argparse.ArgumentParser(description="double")
    parser.add_argument("example_id", nargs="?")
    parser.add_argument("--run_mode", default="npu", choices=["npu", "sim"])
    args = parser.parse_args()
    if "TILE_FWK_DEVICE_ID" not in os.environ:
        print("set TILE_FWK_DEVICE_ID")
        sys.exit(1)
    device_id = int(os.environ["TILE_FWK_DEVICE_ID"])
    if args.run_mode == "npu":
        torch.npu.set_device(device_id)
    try:
        test_double(device_id)
    except Exception as error:
        print(f"Error: {error}")
        raise

if __name__ == "__main__":
    main()
"#,
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "ok npu:0\n");
    assert!(
        result.diagnostics.iter().all(|diagnostic| diagnostic.code != "npu/cpu-fallback"),
        "{:?}",
        result.diagnostics
    );
    assert_eq!(result.kernel_schedules.len(), 1);
}

/// `extend_params={"bias_tensor": bias}` adds one value per column to the f32 product before the
/// cast, and the kernel still runs on the NPU. The reference is computed on the host with torch.
#[test]
fn matmul_extend_params_adds_the_bias() {
    let mut session = Session::new();
    let result = session.run_cell(
        r#"
import torch, pypto
@pypto.frontend.jit
def biased(a: pypto.Tensor([], pypto.DT_FP16), b: pypto.Tensor([], pypto.DT_FP16),
           bias: pypto.Tensor([], pypto.DT_FP32), out: pypto.Tensor([], pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])
    out[:] = pypto.matmul(a, b, pypto.DT_FP32, extend_params={"bias_tensor": bias})

a = torch.randn((32, 64), dtype=torch.float16)
b = torch.randn((64, 64), dtype=torch.float16)
bias = torch.randn((1, 64), dtype=torch.float32)
out = torch.empty((32, 64), dtype=torch.float32)
biased(a, b, bias, out)
torch.testing.assert_close(out, torch.matmul(a.float(), b.float()) + bias, rtol=1e-3, atol=1e-3)
print(torch.erfc(torch.tensor([0.0, 1.0])).tolist())
"#,
    );
    assert!(result.is_ok(), "{:?}", result.error());
    // erfc(0) = 1, erfc(1) = 0.157299207… (f32).
    assert_eq!(result.stdout, "[1.0, 0.15729920566082]\n");
    assert!(
        result.diagnostics.iter().all(|diagnostic| diagnostic.code != "npu/cpu-fallback"),
        "{:?}",
        result.diagnostics
    );
    let code = "pypto.matmul(a, b, pypto.DT_FP32, extend_params={'trans_mode': 1})";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("extend_params['trans_mode'] is not modelled"));
}

/// The page has no files: `open` says it needs the host's files, `os.listdir` too, and
/// `os.path.exists` is False.
#[test]
fn without_the_host_s_files_open_and_listdir_say_so() {
    let mut session = Session::new();
    let result = run_err(&mut session, "import os\nprint(os.path.exists('data.json'))\nf = open('data.json')");
    assert_eq!(result.stdout, "False\n");
    let error = result.error().unwrap();
    assert!(error.message.starts_with("open reads the file system") && error.line == 3, "{}", error.message);
    let result = run_err(&mut session, "import os\nos.listdir('.')");
    assert!(result.error().unwrap().message.starts_with("os.listdir reads the file system"));
}

/// `sys.float_info` holds the IEEE 754 double's limits, with the values CPython documents:
/// max = (2 − 2**-52)·2**1023, min = 2**-1022, epsilon = 2**-52; dig 15, mant_dig 53, max_exp 1024,
/// min_exp −1021, max_10_exp 308, min_10_exp −307, radix 2, rounds 1.
#[test]
fn sys_float_info_has_the_double_limits() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        "import sys\nf = sys.float_info\nprint(f.max, f.min, f.epsilon)\n\
         print(f.dig, f.mant_dig, f.max_exp, f.min_exp, f.max_10_exp, f.min_10_exp, f.radix, f.rounds)\n\
         print(f.max == (2 - 2 ** -52) * 2.0 ** 1023, f.min == 2.0 ** -1022, f.epsilon == 2.0 ** -52, 1.0 + f.epsilon > 1.0)\n\
         print(-sys.float_info.max)",
    );
    assert_eq!(
        printed,
        "1.7976931348623157e+308 2.2250738585072014e-308 2.220446049250313e-16\n\
         15 53 1024 -1021 308 -307 2 1\nTrue True True True\n-1.7976931348623157e+308\n"
    );
    let result = run_err(&mut session, "sys.float_info.maxx");
    assert!(result.error().unwrap().help.as_deref().unwrap_or("").contains("sys.float_info.max"));
}
