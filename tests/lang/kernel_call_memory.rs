//! A kernel call's tensors are freed with its autograd graph: the values its body made, the saved
//! values of its backward and its inputs leave once the script drops the call's result, whatever
//! backward the kernel has (registered, generated for `@pypto.kernel`, generated for
//! `@pypto.frontend.jit`). Before, the autograd registry kept each call's closures under the
//! kernel's name (so its graph lived until the kernel's next call, the last one for good), and a
//! jit call's fallback held the written argument's object, whose value is the call's node (a cycle).
//! Measured with the session's counting allocator (`tilelab::memory::live_bytes`, per thread).

use tilelab::memory::live_bytes;
use tilelab::session::Session;

const MIB: isize = 1 << 20;

/// The input of every kernel: [512, 1024] f32, 2 MiB. The body of each kernel below makes three or
/// more values of that size, so a call whose graph stays alive holds 8 MiB or more (9.6 and 11.3
/// MiB for the generated backwards before the fix); what a first call leaves for good (its compiled
/// plans, the cell's schedules) is 0.6–1.6 MiB, and a second call of the same cell adds nothing.
const INPUT: &str = "x = pt.reshape(pt.sin(pt.arange(0, 512 * 1024) * 0.37), [512, 1024])";

/// Runs `kernel_source` (defining `swish`), then one cell that calls `call` on a leaf copy of the
/// input, differentiates it, reads one number of the gradient and drops everything it made.
/// Returns the bytes the call left behind and the number it printed.
fn bytes_left_by_a_call(kernel_source: &str, call: &str) -> (isize, String) {
    let mut session = Session::new();
    let setup = format!("import pypto as pt\n{INPUT}\n{kernel_source}");
    let result = session.run_cell(&setup);
    assert!(result.is_ok(), "{:?}", result.error());
    let before = live_bytes();
    let cell = format!(
        "leaf = pt.as_tensor(x.tolist(), requires_grad=True)\n{call}\nprint(round(leaf.grad[3, 5].item(), 5))\nleaf = None\ny = None"
    );
    let result = session.run_cell(&cell);
    assert!(result.is_ok(), "{:?}", result.error());
    (live_bytes() - before, result.stdout)
}

/// d/dx of Σ x·σ(x) at x = sin(0.37 · (3 · 1024 + 5)): σ(x)·(1 + x·(1 − σ(x))).
fn expected_gradient() -> String {
    let x = (0.37f64 * (3.0 * 1024.0 + 5.0)).sin();
    let s = 1.0 / (1.0 + (-x).exp());
    format!("{}\n", (s * (1.0 + x * (1.0 - s)) * 1e5).round() / 1e5)
}

#[test]
fn a_generated_backward_frees_the_forward_values_when_the_result_is_dropped() {
    let kernel = "@pt.kernel\ndef swish(x):\n    pt.set_vec_tile_shapes(8, 1024)\n    return x * pt.sigmoid(x)\n";
    let (left, printed) = bytes_left_by_a_call(kernel, "y = swish(leaf)\ny.sum().backward()");
    assert_eq!(printed, expected_gradient());
    assert!(left < 4 * MIB, "the call still holds {} KiB", left >> 10);
}

#[test]
fn a_registered_gradient_frees_the_forward_values_when_the_result_is_dropped() {
    let kernel = "@pt.kernel
def swish(x):
    pt.set_vec_tile_shapes(8, 1024)
    return x * pt.sigmoid(x)

@pt.kernel
def swish_grad(x, dy):
    pt.set_vec_tile_shapes(8, 1024)
    s = pt.sigmoid(x)
    return dy * s * (1 + x * (1 - s))

@pt.register_gradient(\"swish\")
def swish_backward(grad_output, saved, ctx):
    x, = saved
    return swish_grad(x, grad_output)
";
    let (left, printed) = bytes_left_by_a_call(kernel, "y = swish(leaf)\ny.sum().backward()");
    assert_eq!(printed, expected_gradient());
    assert!(left < 4 * MIB, "the call still holds {} KiB", left >> 10);
}

#[test]
fn a_jit_kernel_frees_its_values_when_the_result_is_dropped() {
    let kernel = "@pt.frontend.jit
def swish(x, out):
    pt.set_vec_tile_shapes(8, 1024)
    for i in pt.loop(0, 64, name=\"rows\", idx_name=\"i\"):
        tile = pt.view(x, [8, 1024], [i * 8, 0])
        pt.assemble(tile * pt.sigmoid(tile), [i * 8, 0], out)
";
    let call = "y = pt.zeros([512, 1024])\nswish(leaf, y)\ny.sum().backward()";
    let (left, printed) = bytes_left_by_a_call(kernel, call);
    assert_eq!(printed, expected_gradient());
    assert!(left < 4 * MIB, "the call still holds {} KiB", left >> 10);
}

/// Between a generated backward's forward and its backward, the call holds its input, its output
/// and the values its backward saves — not the values the body made on the way (`auto` recomputes
/// σ(βx) here, so none). The reference run's tape kept them (σ(βx), 2 MiB, for the product's
/// backward) until the backward ran: the node now runs the body again if the chip refuses the
/// generated backward, instead of keeping that tape.
#[test]
fn a_generated_backward_holds_no_forward_values_until_its_backward() {
    let mut session = Session::new();
    let setup = format!(
        "import pypto as pt\n{INPUT}\n@pt.kernel\ndef swish(x, beta):\n    pt.set_vec_tile_shapes(8, 1024)\n    return x * pt.sigmoid(x * beta)\n\
         leaf = pt.as_tensor(x.tolist(), requires_grad=True)"
    );
    assert!(session.run_cell(&setup).is_ok());
    let before = live_bytes();
    let result = session.run_cell("y = swish(leaf, 1.5)");
    assert!(result.is_ok(), "{:?}", result.error());
    let held = live_bytes() - before;
    // y (2 MiB) and what the first call keeps for good (compiled plans, the cell's schedules):
    // 2233 KiB; with the tape kept, 4285 KiB.
    assert!(held < 2 * MIB + (1200 << 10), "the call holds {} KiB before its backward", held >> 10);
    let result = session.run_cell("y.sum().backward()\nprint(round(leaf.grad[3, 5].item(), 5))");
    assert!(result.is_ok(), "{:?}", result.error());
    let x = (0.37f64 * (3.0 * 1024.0 + 5.0)).sin();
    let s = 1.0 / (1.0 + (-1.5 * x).exp());
    assert_eq!(result.stdout, format!("{}\n", ((s * (1.0 + 1.5 * x * (1.0 - s))) * 1e5).round() / 1e5));
}
