//! `with` as real pypto code uses it: `with pypto.options(…):` around kernel calls (the options
//! reach the kernels called in the block, as pypto's config scope does), `@pypto.options` over a
//! test function, `with pypto.function(name, *tensors):` (pypto's older kernel recording), and
//! context managers of the script's own classes. Expected values are computed by hand in the
//! comments, or come from the same kernel configured the other documented way.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// Two copies of one kernel, the second carrying `vec_nbuffer_setting=1` itself; on the two-core
/// `teaching` chip 16 row tiles queue on each core, so single buffering shows in the cycles.
const KERNEL: &str = r#"
import pypto
pypto.npu.use("teaching")

@pypto.frontend.jit
def scale_rows(x: pypto.Tensor([128, 128], pypto.DT_FP32), out: pypto.Tensor([128, 128], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 128)
    for i in pypto.loop(16):
        tile = pypto.view(x, [8, 128], [i * 8, 0])
        pypto.assemble(pypto.exp(tile) * 2.0, [i * 8, 0], out)

@pypto.options(pass_options={"vec_nbuffer_setting": 1})
@pypto.frontend.jit
def scale_rows_single(x: pypto.Tensor([128, 128], pypto.DT_FP32), out: pypto.Tensor([128, 128], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 128)
    for i in pypto.loop(16):
        tile = pypto.view(x, [8, 128], [i * 8, 0])
        pypto.assemble(pypto.exp(tile) * 2.0, [i * 8, 0], out)

x = pypto.zeros([128, 128])
out = pypto.zeros([128, 128])
"#;

/// `vec_nbuffer_setting` changes the schedule (docs/npu-model.md): inside `with pypto.options`
/// the plain kernel schedules exactly as the kernel that carries the option itself, and outside
/// the block it is back to the default. A kernel's own option wins over the scope's.
#[test]
fn options_in_a_with_block_reach_the_kernels_called_there() {
    let mut session = Session::new();
    run_ok(&mut session, KERNEL);
    let code = r#"
default = pypto.schedule(scale_rows, x, out).cycles
single = pypto.schedule(scale_rows_single, x, out).cycles
with pypto.options(pass_options={"vec_nbuffer_setting": 1}):
    scoped = pypto.schedule(scale_rows, x, out).cycles
    with pypto.options(name="inner", pass_options={"vec_nbuffer_setting": 2}):
        inner = pypto.schedule(scale_rows, x, out).cycles
        own = pypto.schedule(scale_rows_single, x, out).cycles
after = pypto.schedule(scale_rows, x, out).cycles
print(scoped == single, inner == default, own == single, after == default, single != default)
"#;
    assert_eq!(run_ok(&mut session, code), "True True True True True\n");
    // The values are the kernel's either way: exp(0) * 2 = 2 everywhere, 128 * 128 * 2 = 32768.
    let code =
        "with pypto.options(pass_options={'vec_nbuffer_setting': 1}):\n    scale_rows(x, out)\nprint(out.sum().item())";
    assert_eq!(run_ok(&mut session, code), "32768.0\n");
}

/// `set_pass_options` inside the block changes the scope (no warning); outside any scope a
/// modelled option still warns that no kernel reads it. `@pypto.options` over a test function
/// opens the scope on every call, as pypto's decorator does.
#[test]
fn set_pass_options_and_the_decorator_over_a_test_function() {
    let mut session = Session::new();
    run_ok(&mut session, KERNEL);
    let code = r#"
single = pypto.schedule(scale_rows_single, x, out).cycles
with pypto.options("main"):
    pypto.set_pass_options(vec_nbuffer_setting=1)
    in_block = pypto.schedule(scale_rows, x, out).cycles

@pypto.options(pass_options={"vec_nbuffer_setting": 1})
def test_scale_rows():
    return pypto.schedule(scale_rows, x, out).cycles

print(in_block == single, test_scale_rows() == single, single != pypto.schedule(scale_rows, x, out).cycles)
"#;
    let result = session.run_cell(code);
    assert_eq!(result.stdout, "True True True\n", "{:?}", result.error());
    assert!(result.diagnostics.iter().all(|diagnostic| diagnostic.code != "npu/option-scope-not-modelled"));
    let result = session.run_cell("pypto.set_pass_options(vec_nbuffer_setting=1)");
    assert!(result.diagnostics.iter().any(|diagnostic| diagnostic.code == "npu/option-scope-not-modelled"));
}

/// `with pypto.function("name", a, b, out):` runs its block as a jit kernel on the tensors named:
/// out = a + b * 2 with a = 1, b = 3 gives 7 in each of the 32 * 64 elements (14336 in all), and
/// the call leaves a schedule under the function's name.
#[test]
fn a_pypto_function_block_runs_as_a_kernel() {
    let mut session = Session::new();
    let code = r#"
import pypto
a = pypto.full([32, 64], 1.0)
b = pypto.full([32, 64], 3.0)
out = pypto.tensor([32, 64], pypto.DT_FP32, "out")
with pypto.function("MAIN", a, b, out):
    pypto.set_vec_tile_shapes(32, 64)
    for _ in pypto.loop(1, name="LOOP_L0", idx_name="i"):
        out[:] = a + b * 2.0
print(out.sum().item())
"#;
    let result = session.run_cell(code);
    assert_eq!(result.stdout, "14336.0\n", "{:?}", result.error());
    assert!(result.kernel_schedules.iter().any(|schedule| schedule.kernel == "MAIN"), "a schedule named MAIN");
    assert!(result.diagnostics.iter().all(|diagnostic| diagnostic.code != "npu/cpu-fallback"));
    let code = "with pypto.function('F', a[0:16], out):\n    out[:] = a";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("not one the header makes"));
    assert_eq!(spanned(code, &result), "a[0:16]");
}

/// A class with `__enter__`/`__exit__`: the target is what `__enter__` returns, `__exit__` runs
/// on every way out (normal end, `return`, an exception), receives the exception, and a true
/// result suppresses it; a false one lets it through to the caller's `except`.
#[test]
fn script_classes_are_context_managers() {
    let mut session = Session::new();
    let code = r#"
class Trace:
    def __init__(self, name, swallow=False):
        self.name = name
        self.swallow = swallow
        self.log = []

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self.log

    def __exit__(self, exc_type, exc_value, traceback):
        self.log.append("exit " + ("ok" if exc_type is None else str(exc_value)))
        return self.swallow

def early(tracer):
    with tracer as log:
        log.append("body")
        return len(log)

quiet = Trace("quiet", swallow=True)
with quiet as log:
    raise ValueError("tile too large")
loud = Trace("loud")
try:
    with loud, Trace("second") as second:
        second.append("inside")
        1 / 0
except ZeroDivisionError:
    loud.log.append("caught")
tracer = Trace("early")
print(early(tracer), tracer.log)
print(quiet.log, loud.log)
"#;
    assert_eq!(
        run_ok(&mut session, code),
        "2 ['enter early', 'body', 'exit ok']\n['enter quiet', 'exit tile too large'] \
         ['enter loud', 'exit division by zero', 'caught']\n"
    );
    let code = "class Plain:\n    pass\nwith Plain():\n    pass";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("does not support the context manager protocol"));
    assert_eq!(spanned(code, &result), "Plain()");
    let code = "with 3:\n    pass";
    let result = run_err(&mut session, code);
    assert!(result.error().unwrap().help.as_deref().unwrap_or("").contains("__enter__"));
}
