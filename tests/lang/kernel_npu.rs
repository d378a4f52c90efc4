#![cfg(not(target_arch = "wasm32"))]
//! Kernel calls run on the simulated NPU: the values of every call equal a reference computed
//! independently (f64 math here, or the same tensor ops outside a kernel, which run on the CPU),
//! each call leaves a schedule whose events carry the script's line numbers, and a kernel the
//! recorder cannot express falls back to the CPU with one warning naming the op and its line.

use tilelab::session::{CellKind, Notebook, Session};

fn run(session: &mut Session, code: &str) -> tilelab::session::CellResult {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result
}

fn fallbacks(result: &tilelab::session::CellResult) -> Vec<String> {
    result
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.code == "npu/cpu-fallback")
        .map(|diagnostic| diagnostic.message.clone())
        .collect()
}

/// The numbers of a printed (nested) list.
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().unwrap_or_else(|_| panic!("not a number: {part}")))
        .collect()
}

fn printed(session: &mut Session, expression: &str) -> Vec<f64> {
    numbers(&run(session, &format!("print({expression}.tolist())")).stdout)
}

fn assert_close(actual: &[f64], expected: &[f64], atol: f64, rtol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths");
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!((a - e).abs() <= atol + rtol * e.abs(), "{what}[{index}]: {a} vs {e}");
    }
}

#[test]
fn every_example_kernel_runs_on_the_npu() {
    let mut examples: Vec<_> = std::fs::read_dir("examples")
        .expect("examples/")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    examples.sort();
    let mut with_kernels = 0;
    for path in examples {
        let text = std::fs::read_to_string(&path).unwrap();
        let notebook = Notebook::from_py(&text).unwrap();
        let mut session = Session::new();
        let mut schedules = 0;
        for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code) {
            let result = session.run_cell(&cell.source);
            // The examples assert their values against the reference inside the notebook, so a
            // cell that runs to its end has NPU values within tolerance.
            assert!(result.is_ok(), "{}: {:?}", path.display(), result.error());
            assert!(fallbacks(&result).is_empty(), "{}: {:?}", path.display(), fallbacks(&result));
            schedules += session.take_schedules().len();
        }
        let has_kernel = text.contains("@pt.kernel") || text.contains("@pt.frontend.jit") || text.contains("@pypto.");
        if has_kernel {
            with_kernels += 1;
            assert!(schedules > 0, "{}: no kernel call was simulated", path.display());
        }
    }
    assert!(with_kernels >= 4);
}

const SWISH: &str = "import pypto as pt
@pt.kernel
def swish(x):
    pt.set_vec_tile_shapes(8, 16)
    s = pt.sigmoid(x)
    pt.save_for_backward(s)
    return x * s

@pt.register_gradient('swish')
def swish_backward(grad_output, saved, ctx):
    x, s = saved
    return grad_output * s * (1 + x * (1 - s))
";

#[test]
fn swish_values_and_gradient_come_from_the_npu_run() {
    let mut session = Session::new();
    run(&mut session, SWISH);
    run(&mut session, "x = pt.randn([12, 24], requires_grad=True, seed=1)\ny = swish(x)\ny.sum().backward()");
    // swish(x) = x·σ(x); d/dx = σ(x)·(1 + x·(1 − σ(x))), in f64 on the inputs as stored (f32).
    let x = printed(&mut session, "x");
    let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
    let expected: Vec<f64> = x.iter().map(|&v| v * sigmoid(v)).collect();
    assert_close(&printed(&mut session, "y"), &expected, 1e-6, 1e-5, "swish");
    let gradient: Vec<f64> = x.iter().map(|&v| sigmoid(v) * (1.0 + v * (1.0 - sigmoid(v)))).collect();
    assert_close(&printed(&mut session, "x.grad"), &gradient, 1e-6, 1e-5, "swish'");
    let report = run(
        &mut session,
        "r = pt.autodiff.check_gradient(swish, [pt.randn([4, 8], seed=2)])\nprint(r.passed)\nprint(r.sides)",
    );
    let lines: Vec<&str> = report.stdout.lines().collect();
    assert_eq!(lines[0], "True");
    assert_eq!(lines[1], "analytic: forward and registered backward on the simulated NPU Ascend910B2; numerical: central differences in f64 on the CPU");
}

#[test]
fn broadcasting_and_numbers_on_every_preset() {
    for preset in ["teaching", "Ascend910A", "Ascend910B2"] {
        let mut session = Session::new();
        run(&mut session, &format!("import pypto as pt\npt.npu.use('{preset}')\n@pt.kernel\ndef affine(x, row, column):\n    pt.set_vec_tile_shapes(8, 32)\n    return (x * row + column) * 0.5 - 1.0\n"));
        let result = run(&mut session, "x = pt.randn([24, 96], seed=3)\nrow = pt.randn([96], seed=4)\ncolumn = pt.randn([24, 1], seed=5)\ny = affine(x, row, column)");
        assert!(fallbacks(&result).is_empty(), "{preset}: {:?}", fallbacks(&result));
        assert_eq!(session.take_schedules().len(), 1);
        // y = (x·row + column)/2 − 1, rows broadcast along dim 0, the column along dim 1.
        let (x, row, column) =
            (printed(&mut session, "x"), printed(&mut session, "row"), printed(&mut session, "column"));
        let expected: Vec<f64> = (0..24 * 96).map(|i| (x[i] * row[i % 96] + column[i / 96]) * 0.5 - 1.0).collect();
        assert_close(&printed(&mut session, "y"), &expected, 1e-5, 1e-5, preset);
    }
}

#[test]
fn reductions_softmax_and_ragged_tiles() {
    let mut session = Session::new();
    run(&mut session, "import pypto as pt\n@pt.kernel\ndef stats(x):\n    pt.set_vec_tile_shapes(4, 16)\n    e = pt.exp(x - pt.amax(x, dim=-1, keepdim=True))\n    return e / pt.sum(e, dim=-1, keepdim=True), x.sum(dim=-1), x.mean(dim=0)\n");
    // 10 × 40 with 4-row tiles: the last row tile has 2 valid rows; rows are whole in each tile.
    let result = run(&mut session, "x = pt.randn([10, 40], seed=6)\np, s, m = stats(x)");
    assert!(fallbacks(&result).is_empty(), "{:?}", fallbacks(&result));
    let x = printed(&mut session, "x");
    let mut softmax = Vec::new();
    let mut sums = Vec::new();
    for row in x.chunks(40) {
        let top = row.iter().cloned().fold(f64::MIN, f64::max);
        let total: f64 = row.iter().map(|v| (v - top).exp()).sum();
        softmax.extend(row.iter().map(|v| (v - top).exp() / total));
        sums.push(row.iter().sum::<f64>());
    }
    let means: Vec<f64> = (0..40).map(|column| (0..10).map(|row| x[row * 40 + column]).sum::<f64>() / 10.0).collect();
    assert_close(&printed(&mut session, "p"), &softmax, 1e-6, 1e-5, "softmax");
    assert_close(&printed(&mut session, "s"), &sums, 1e-5, 1e-5, "row sums");
    assert_close(&printed(&mut session, "m"), &means, 1e-6, 1e-5, "column means");
}

#[test]
fn matmul_feeding_element_wise_work_on_split_and_coupled_chips() {
    for preset in ["Ascend910B2", "Ascend910A"] {
        let mut session = Session::new();
        run(&mut session, &format!("import pypto as pt\npt.npu.use('{preset}')\n@pt.kernel\ndef linear_relu(a, b, bias):\n    pt.set_cube_tile_shapes([32, 64], [32, 64], [32, 64])\n    return pt.relu(pt.matmul(a, b, out_dtype=pt.DT_FP32) + bias)\n"));
        let result = run(&mut session, "a = pt.randn([64, 96], dtype=pt.DT_FP16, seed=7)\nb = pt.randn([96, 128], dtype=pt.DT_FP16, seed=8)\nbias = pt.randn([128], seed=9)\ny = linear_relu(a, b, bias)");
        assert!(fallbacks(&result).is_empty(), "{preset}: {:?}", fallbacks(&result));
        let schedules = session.take_schedules();
        let pipes: std::collections::BTreeSet<&str> =
            schedules[0].1.trace.events.iter().map(|event| event.pipe.name()).collect();
        assert!(pipes.contains("CUBE") && pipes.contains("VECTOR"), "{preset}: {pipes:?}");
        // relu(a·b + bias) in f64 from the f16 inputs as stored.
        let (a, b, bias) = (printed(&mut session, "a"), printed(&mut session, "b"), printed(&mut session, "bias"));
        let expected: Vec<f64> = (0..64 * 128)
            .map(|i| {
                ((0..96).map(|k| a[(i / 128) * 96 + k] * b[k * 128 + i % 128]).sum::<f64>() + bias[i % 128]).max(0.0)
            })
            .collect();
        assert_close(&printed(&mut session, "y"), &expected, 1e-3, 1e-4, preset);
    }
}

const JIT: &str = "import pypto as pt
@pt.frontend.jit(pass_options={'vec_nbuffer_setting': BUFFERS})
def scale_rows(x, out):
    pt.set_vec_tile_shapes(8, 64)
    for i in pt.loop(0, (x.shape[0] + 7) // 8):
        start = i * 8
        valid = min(8, x.shape[0] - start)
        tile = pt.view(x, [8, 64], [start, 0], valid_shape=[valid, 64])
        out[start:start + 8, :] = pt.exp(tile) * 2.0 + 1.0
";

#[test]
fn jit_outputs_are_written_in_place_with_lines_in_the_trace() {
    let mut cycles = Vec::new();
    let mut peaks = Vec::new();
    for buffers in [1, 2] {
        let mut session = Session::new();
        // The two-core teaching chip: each core runs several units, so a second copy is used.
        run(&mut session, "import pypto as pt\npt.npu.use('teaching')");
        run(&mut session, &JIT.replace("BUFFERS", &buffers.to_string()));
        let result =
            run(&mut session, "x = pt.randn([60, 64], seed=10)\nout = pt.full([60, 64], -7.0)\nscale_rows(x, out)");
        assert!(fallbacks(&result).is_empty(), "{:?}", fallbacks(&result));
        // A cell's schedules are kept until the next cell runs.
        let schedules = session.take_schedules();
        // out = 2·eˣ + 1 everywhere (the ragged last tile has 4 of its 8 rows; the rest stays out).
        let x = printed(&mut session, "x");
        let expected: Vec<f64> = x.iter().map(|v| 2.0 * v.exp() + 1.0).collect();
        assert_close(&printed(&mut session, "out"), &expected, 1e-5, 1e-5, "jit out");
        assert_eq!(schedules.len(), 1);
        let simulation = &schedules[0].1;
        // The view is line 8 of the cell, the exp/mul/add/store line 9.
        let lines: std::collections::BTreeSet<u32> =
            simulation.trace.events.iter().filter_map(|event| event.source_line).collect();
        assert!(lines.contains(&8) && lines.contains(&9), "{lines:?}");
        assert!(lines.iter().all(|line| (4..=9).contains(line)), "{lines:?}");
        cycles.push(simulation.summary.cycles);
        peaks.push(simulation.summary.peak_occupancy.get("UB").copied().unwrap_or(0));
    }
    // Double buffering holds two copies of the unit's tiles and overlaps copies with compute.
    assert!(peaks[1] > peaks[0], "{peaks:?}");
    assert!(cycles[1] < cycles[0], "{cycles:?}");
}

#[test]
fn a_kernel_the_recorder_cannot_express_falls_back_with_one_warning() {
    let mut session = Session::new();
    run(&mut session, "import pypto as pt\n@pt.kernel\ndef flat(x):\n    y = pt.exp(x)\n    return y[0:8:2, :]\n");
    let result = run(&mut session, "x = pt.randn([8, 8], seed=11)\na = flat(x)\nb = flat(x)\npt.assert_allclose(a, pt.exp(x)[0:8:2, :], rtol=1e-6, atol=1e-7)");
    let warnings = fallbacks(&result);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("cannot run on the NPU yet: indexing with a step at line 5"), "{}", warnings[0]);
    assert!(session.take_schedules().is_empty());
    let schedule = session.run_cell("pt.schedule(flat, x)");
    assert!(
        schedule.error().is_some_and(|error| error.message.contains("indexing with a step at line 5")),
        "{:?}",
        schedule.error()
    );
}

#[test]
fn iterations_adding_into_one_region_accumulate_on_the_npu() {
    let mut session = Session::new();
    run(&mut session, "import pypto as pt\n@pt.frontend.jit\ndef column_sums(x, out):\n    for i in pt.loop(0, 6):\n        tile = pt.view(x, [8, 32], [i * 8, 0], valid_shape=[min(8, 44 - i * 8), 32])\n        out[0:1, :] = out[0:1, :] + pt.sum(tile, dim=0, keepdim=True)\n");
    // out starts at 1: out[j] = 1 + Σ_i x[i, j] over 44 rows, added by 6 iterations (the last has 4 rows).
    let result = run(&mut session, "x = pt.randn([44, 32], seed=12)\nout = pt.ones([1, 32])\ncolumn_sums(x, out)");
    assert!(fallbacks(&result).is_empty(), "{:?}", fallbacks(&result));
    assert_eq!(session.take_schedules().len(), 1);
    let x = printed(&mut session, "x");
    let expected: Vec<f64> = (0..32).map(|column| 1.0 + (0..44).map(|row| x[row * 32 + column]).sum::<f64>()).collect();
    assert_close(&printed(&mut session, "out"), &expected, 1e-5, 1e-5, "column sums");
}

#[test]
fn a_registered_backward_that_calls_kernels_runs_them_on_the_npu_after_the_forward() {
    let mut session = Session::new();
    run(
        &mut session,
        "import pypto as pt
@pt.kernel
def cube(x):
    return x * x * x
@pt.kernel
def cube_grad(g, x):
    return g * 3.0 * x * x
@pt.register_gradient('cube')
def cube_backward(grad_output, saved, ctx):
    return cube_grad(grad_output, saved[0])
",
    );
    let result =
        run(&mut session, "x = pt.randn([16, 32], requires_grad=True, seed=13)\ny = cube(x)\ny.sum().backward()");
    assert!(fallbacks(&result).is_empty(), "{:?}", fallbacks(&result));
    let order: Vec<String> = session.take_schedules().into_iter().map(|(name, _)| name).collect();
    assert_eq!(order, ["cube", "cube_grad"]);
    // d/dx Σx³ = 3x².
    let x = printed(&mut session, "x");
    let expected: Vec<f64> = x.iter().map(|v| 3.0 * v * v).collect();
    assert_close(&printed(&mut session, "x.grad"), &expected, 1e-5, 1e-5, "3x²");
}

#[test]
fn a_kernel_that_calls_a_jit_kernel_runs_it_on_the_npu_without_a_warning() {
    let mut session = Session::new();
    run(
        &mut session,
        "import pypto as pt
@pt.frontend.jit
def double(x, out):
    for i in pt.loop(0, 2):
        tile = pt.view(x, [8, 16], [i * 8, 0])
        pt.assemble(tile * 2.0, [i * 8, 0], out)
@pt.kernel
def doubled(x):
    out = pt.zeros([16, 16])
    double(x, out)
    return out
",
    );
    let result = run(&mut session, "x = pt.randn([16, 16], seed=14)\ny = doubled(x)");
    assert!(fallbacks(&result).is_empty(), "{:?}", fallbacks(&result));
    let order: Vec<String> = session.take_schedules().into_iter().map(|(name, _)| name).collect();
    assert_eq!(order, ["double"]);
    // y = 2x.
    let expected: Vec<f64> = printed(&mut session, "x").iter().map(|v| 2.0 * v).collect();
    assert_close(&printed(&mut session, "y"), &expected, 0.0, 1e-7, "2x");
}

const SAVED_AND_RECOMPUTED: &str = "import pypto as pt
seen = []
@pt.kernel
def swish_saving(x):
    pt.set_vec_tile_shapes(4, 64)
    s = pt.sigmoid(x)
    pt.save_for_backward(s)
    return x * s

@pt.register_gradient('swish_saving')
def swish_saving_backward(grad_output, saved, ctx):
    x, s = saved
    seen.append(ctx.outputs[0])
    return grad_output * s * (1 + x * (1 - s))

@pt.kernel
def swish_recomputing(x):
    pt.set_vec_tile_shapes(4, 64)
    return x * pt.sigmoid(x)

@pt.register_gradient('swish_recomputing')
def swish_recomputing_backward(grad_output, saved, ctx):
    x, = saved
    seen.append(ctx.outputs[0])
    s = pt.sigmoid(x)
    return grad_output * s * (1 + x * (1 - s))

@pt.kernel
def exp_saving_output(x):
    pt.set_vec_tile_shapes(4, 64)
    y = pt.exp(x)
    pt.save_for_backward(y)
    return y

@pt.register_gradient('exp_saving_output')
def exp_saving_output_backward(grad_output, saved, ctx):
    x, y = saved
    seen.append(ctx.outputs[0])
    return grad_output * y

w = pt.randn([16, 64], seed=15)
def activation_bytes(kernel):
    x = pt.randn([16, 64], requires_grad=True, seed=16)
    y = kernel(x)
    loss = (y * w).sum()
    graph = pt.graph(loss)
    loss.backward()
    same = seen[-1].tolist() == y.tolist()
    return graph.saved_activation_bytes, same
";

#[test]
fn a_registered_backward_sees_the_outputs_the_caller_received_and_the_graph_holds_them_once() {
    let mut session = Session::new();
    run(&mut session, SAVED_AND_RECOMPUTED);
    let result = run(&mut session, "print(activation_bytes(swish_saving))\nprint(activation_bytes(swish_recomputing))\nprint(activation_bytes(exp_saving_output))");
    assert!(fallbacks(&result).is_empty(), "{:?}", fallbacks(&result));
    // One f32 16×64 tensor is 16·64·4 = 4096 bytes. The graph of (kernel(x)·w).sum() keeps, without
    // leaves (x, w): the kernel node's saved extras and its output y (a custom backward may read
    // ctx.outputs), and y again for the product y·w — the same buffer, counted once, because the
    // node's output is the tensor the caller received (the NPU's), not the reference run's copy.
    // - saving s: s and y → 8192 (a second copy of y would make it 12288);
    // - recomputing s: y only → 4096 (8192 with the copy);
    // - saving its own output y: y is both the extra and the output → 4096 (8192 with the copy).
    // `True`: ctx.outputs[0] equals the returned y element for element.
    assert_eq!(result.stdout, "(8192, True)\n(4096, True)\n(4096, True)\n", "{}", result.stdout);
    // Every call ran on the NPU: three forwards (the backwards call no kernel).
    assert_eq!(session.take_schedules().len(), 3);
}

#[test]
fn a_tile_too_large_for_ub_is_reported_at_its_line_without_a_second_line_number() {
    let mut session = Session::new();
    run(
        &mut session,
        "import pypto as pt\npt.npu.use('teaching')\nx = pt.randn([64, 64], seed=17)\ns = pt.sigmoid(x)\ng = pt.randn([64, 64], seed=18)",
    );
    // Line 4 of this cell sets the tile: one 64×64 f32 tile is all of teaching's 16 KiB UB, so no
    // op with two inputs fits however the compiler cuts the chain.
    let result = session.run_cell("@pt.kernel\ndef grad_from_saved(x, s, grad_output):\n    # three inputs\n    pt.set_vec_tile_shapes(64, 64)\n    return grad_output * s * (1 + 1.5 * x * (1 - s))\ndx = grad_from_saved(x, s, g)");
    let error = result.error().expect("a 64×64 tile overflows UB");
    assert_eq!(error.code, "runtime/tile-shape", "{error:?}");
    assert_eq!((error.cell, error.line), (2, 4), "{error:?}");
    // The span names the line; a "(line N)" counted in the cell would disagree with a file's numbering.
    assert!(!error.message.contains("(line"), "{}", error.message);
    // One unit on one core (one buffer copy), lowered in place: g·s overwrites g, 1.5·x overwrites
    // x, 1 − s overwrites s, and their product one of them: at most three 64·64·4 = 16384-byte
    // tiles live, 49152 bytes > 16384; the largest r×64 tile has 3 · r · 256 ≤ 16384, r = 21.
    assert!(error.message.contains("49152") && error.message.contains("16384"), "{}", error.message);
    assert!(error.help.as_deref().unwrap_or("").contains("largest tile that fits in UB is [21, 64]"), "{error:?}");
}
