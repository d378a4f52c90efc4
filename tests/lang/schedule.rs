//! `pypto.npu.use/config` and `pypto.schedule`: the language driving the NPU simulator, checked
//! through the session as a user runs it. Expected figures are computed here from shapes and dtypes.

use tilelab::session::{Display, Session};

fn session_with(setup: &str) -> Session {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto as pt\n{setup}"));
    assert!(result.is_ok(), "setup failed: {:?}", result.error());
    session
}

fn printed(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout.trim_end().to_string()
}

#[test]
fn npu_use_validates_against_the_simulator_presets() {
    let mut session = session_with("");
    let result = session.run_cell("pt.npu.use('nope')");
    let error = result.error().expect("an unknown preset is an error");
    assert_eq!(error.code, "runtime/value-error");
    // The message lists every preset so the user can pick one.
    for preset in ["Ascend910B2", "Ascend910A", "teaching"] {
        assert!(error.message.contains(preset), "{}", error.message);
    }
    // Names are matched case-insensitively and stored in their canonical spelling.
    assert_eq!(printed(&mut session, "pt.npu.use('ascend910a')\nprint(pt.npu.config()['name'])"), "Ascend910A");
    assert!(session.set_npu_preset("nope").is_err());
    assert!(session.set_npu_preset("TEACHING").is_ok());
    assert_eq!(session.npu_preset(), "teaching");
}

#[test]
fn npu_config_lists_the_preset_parameters() {
    // DESIGN §3 table, teaching row: 2 coupled cores, 1.0 GHz, UB 16 KiB, L1 64 KiB, L0A/L0B 8 KiB, L0C 16 KiB.
    let mut session = session_with("pt.npu.use('teaching')\nc = pt.npu.config()");
    let text = printed(&mut session, "print(c['preset'], c['cube_cores'], c['vector_cores'], c['clock_mhz'], c['ub_bytes'], c['l1_bytes'], c['l0a_bytes'], c['l0b_bytes'], c['l0c_bytes'])");
    assert_eq!(
        text,
        format!("teaching 2 2 1000.0 {} {} {} {} {}", 16 * 1024, 64 * 1024, 8 * 1024, 8 * 1024, 16 * 1024)
    );
    assert!(
        printed(&mut session, "print(c['hbm_bytes_per_cycle'] > 0, c['vector_bytes_per_cycle'] > 0)") == "True True"
    );
    // 910B2: 24 cube + 48 vector cores at 1.8 GHz, UB 192 KiB.
    let text = printed(&mut session, "pt.npu.use('Ascend910B2')\nc = pt.npu.config()\nprint(c['cube_cores'], c['vector_cores'], c['clock_mhz'], c['ub_bytes'])");
    assert_eq!(text, format!("24 48 1800.0 {}", 192 * 1024));
}

const CHAIN: &str = "
@pt.kernel
def chain(x, y):
    pt.set_vec_tile_shapes(ROWS, 64)
    z = pt.exp(x) + y
    return pt.relu(z)
x = pt.randn([64, 256], seed=1)
y = pt.randn([64, 256], seed=2)
";

fn chain_session(rows: usize) -> Session {
    session_with(&format!("pt.npu.use('teaching')\n{}", CHAIN.replace("ROWS", &rows.to_string())))
}

fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .map(|word| word.parse::<f64>().unwrap_or_else(|_| panic!("not a number: {word} in {text}")))
        .collect()
}

#[test]
fn an_elementwise_schedule_has_consistent_figures() {
    let mut session = chain_session(8);
    let text = printed(
        &mut session,
        "s = pt.schedule(chain, x, y)\nprint(s.cycles, s.time_us, s.gm_bytes_read, s.gm_bytes_written)",
    );
    let figures = numbers(&text);
    // Two f32 inputs of 64×256 are read once each; one f32 output of 64×256 is written once.
    let element_bytes = 4.0;
    assert_eq!(figures[2], 2.0 * 64.0 * 256.0 * element_bytes);
    assert_eq!(figures[3], 64.0 * 256.0 * element_bytes);
    assert!(figures[0] > 0.0);
    // teaching runs at 1000 MHz: time in µs = cycles / 1000 (cycles are the rounded-up end time).
    assert!((figures[1] - figures[0] / 1000.0).abs() <= 1e-3, "{text}");
    let busy = printed(&mut session, "for pipe in s.pipe_busy:\n    print(pipe, s.pipe_busy[pipe])");
    let mut pipes = Vec::new();
    for line in busy.lines() {
        let (pipe, fraction) = line.split_once(' ').unwrap();
        let fraction: f64 = fraction.parse().unwrap();
        assert!((0.0..=1.0).contains(&fraction), "{line}");
        pipes.push(pipe.to_string());
    }
    // An element-wise chain moves data in (MTE2), computes in UB (VECTOR) and moves it out (MTE3).
    for pipe in ["MTE2", "VECTOR", "MTE3"] {
        assert!(pipes.contains(&pipe.to_string()), "{busy}");
    }
    assert!(pipes.contains(&printed(&mut session, "print(s.bound)")));
    // UB holds double-buffered tiles of 8×64 f32 for two inputs and the output: 2 × 3 × 2048 bytes at most.
    let ub = numbers(&printed(&mut session, "print(s.peak_occupancy['UB'])"))[0];
    assert!(ub > 0.0 && ub <= 2.0 * 3.0 * 8.0 * 64.0 * 4.0, "{ub}");
    // The values are the reference values: relu(exp(x) + y) >= 0 everywhere.
    assert_eq!(printed(&mut session, "print(pt.amin(chain(x, y)).item() >= 0.0)"), "True");
}

#[test]
fn a_larger_vec_tile_changes_the_cycles() {
    let cycles = |rows: usize| {
        let mut session = chain_session(rows);
        numbers(&printed(&mut session, "print(pt.schedule(chain, x, y).cycles)"))[0]
    };
    let (small, large) = (cycles(2), cycles(8));
    // Larger tiles mean fewer DMA start-ups for the same bytes: fewer cycles.
    assert!(large < small, "8-row tiles took {large} cycles, 2-row tiles {small}");
}

#[test]
fn an_overflowing_tile_is_an_error_at_its_set_vec_tile_shapes_line() {
    let mut session = chain_session(64);
    let result = session.run_cell("s = pt.schedule(chain, x, y)");
    let error = result.error().expect("64×64 f32 tiles, two live per unit even in one copy, overflow a 16 KiB UB");
    assert_eq!(error.code, "runtime/tile-shape", "{error:?}");
    // The setup cell (execution 1) is `import pypto as pt`, `pt.npu.use(...)`, then CHAIN, which starts
    // with an empty line, `@pt.kernel`, `def`: set_vec_tile_shapes is on line 6 of that cell.
    assert_eq!((error.cell, error.line), (1, 6), "{error:?}");
    assert!(error.message.contains("UB"), "{}", error.message);
    // A unit holds two live tiles (x, exp(x) in its place, y; the sum and relu reuse freed slots).
    // Two n-buffer copies do not fit, so the need is reported for one: 2 × 64×64×4 = 32768 bytes.
    assert!(error.message.contains(&(2 * 64 * 64 * 4).to_string()), "{}", error.message);
    // The largest r×64 tile that fits once: 2 × r × 64 × 4 bytes ≤ 16384 gives r = 32.
    assert!(error.help.as_deref().unwrap_or("").contains("largest tile that fits in UB is [32, 64]"), "{error:?}");
}

#[test]
fn trace_json_is_chrome_trace_json_with_events() {
    let mut session = chain_session(8);
    let text = printed(&mut session, "print(pt.schedule(chain, x, y).trace_json())");
    let json: serde_json::Value = serde_json::from_str(&text).expect("trace_json() is JSON");
    let events = json
        .get("traceEvents")
        .and_then(|events| events.as_array())
        .or_else(|| json.as_array())
        .expect("a list of trace events");
    assert!(
        events.iter().filter(|event| event.get("ph").and_then(|ph| ph.as_str()) == Some("X")).count() > 0,
        "{text:.300}"
    );
}

#[test]
fn kernels_that_cannot_be_lowered_name_the_op() {
    let mut session = session_with("@pt.kernel\ndef every_other(x):\n    return x[0:8:2]\nx = pt.ones([8, 64])");
    let error =
        session.run_cell("pt.schedule(every_other, x)").error().cloned().expect("a stepped slice cannot be lowered");
    assert_eq!(error.code, "runtime/unsupported");
    // Line 1 of the setup cell is the import: the slice is line 4.
    assert!(error.message.contains("cannot run on the NPU yet: indexing with a step at line 4"), "{}", error.message);
    let error = session.run_cell("pt.schedule(pt.exp, x)").error().cloned().expect("not a kernel");
    assert_eq!(error.code, "runtime/type-error");
}

#[test]
fn row_reductions_and_matmuls_are_scheduled() {
    let mut session = session_with("@pt.kernel\ndef rows(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.sum(x, dim=-1)\nx = pt.randn([32, 128])");
    let figures = numbers(&printed(
        &mut session,
        "s = pt.schedule(rows, x)\nprint(s.cycles, s.gm_bytes_read, s.gm_bytes_written)",
    ));
    // Reads the 32×128 f32 input once, writes one f32 per row.
    assert_eq!(figures[1..].to_vec(), vec![32.0 * 128.0 * 4.0, 32.0 * 4.0]);
    assert!(figures[0] > 0.0);
    let setup = "@pt.kernel\ndef mm(a, b):\n    pt.set_cube_tile_shapes([32, 64], [32, 64], [32, 64])\n    return a @ b\na = pt.randn([64, 128], dtype=pt.DT_FP16)\nb = pt.randn([128, 64], dtype=pt.DT_FP16)";
    let mut session = session_with(setup);
    let text = printed(
        &mut session,
        "s = pt.schedule(mm, a, b)\nprint(s.cycles, s.gm_bytes_written, s.pipe_busy['CUBE'] > 0, s.flops)",
    );
    let figures: Vec<&str> = text.split_whitespace().collect();
    assert!(figures[0].parse::<u64>().unwrap() > 0);
    // c is 64×64 in fp16 (the inputs' dtype): 64·64·2 bytes written.
    assert_eq!(figures[1], (64 * 64 * 2).to_string());
    assert_eq!(figures[2], "True");
    // 2·M·K·N floating-point operations.
    assert_eq!(figures[3], (2 * 64 * 128 * 64).to_string());
}

#[test]
fn a_schedule_is_displayed_with_its_summary_and_trace() {
    let mut session = chain_session(8);
    let result = session.run_cell("pt.schedule(chain, x, y)");
    assert!(result.is_ok(), "{:?}", result.error());
    let Some(Display::Schedule(schedule)) = result.displays.first() else {
        panic!("expected a schedule display, got {:?}", result.displays)
    };
    assert_eq!(schedule.summary.preset, "teaching");
    assert_eq!(schedule.summary.gm_bytes_written, 64 * 256 * 4);
    assert!(serde_json::from_str::<serde_json::Value>(&schedule.trace_json).is_ok());
    let json = serde_json::to_value(&result).unwrap();
    let display = &json["displays"][0];
    assert_eq!(display["kind"], "schedule");
    assert_eq!(display["summary"]["cycles"].as_u64(), Some(schedule.summary.cycles));
    assert!(display["summary"]["pipe_busy"]["MTE2"].as_f64().is_some());
    let text = tilelab::session::display_text(&result.displays[0]);
    assert!(text.starts_with(&format!("Schedule on teaching: {} cycles", schedule.summary.cycles)), "{text}");
}

#[test]
fn a_cube_tile_that_overflows_l1_is_an_error_at_its_set_cube_tile_shapes_line() {
    let setup = "pt.npu.use('teaching')\n@pt.kernel\ndef mm(a, b):\n    pt.set_cube_tile_shapes([64, 128], [64, 128], [64, 128])\n    return pt.matmul(a, b)\na = pt.randn([128, 128], dtype=pt.DT_FP16)";
    let mut session = session_with(setup);
    let error =
        session.run_cell("pt.schedule(mm, a, a)").error().cloned().expect("the tiles overflow teaching's 64 KiB L1");
    assert_eq!(error.code, "runtime/tile-shape");
    // Lines 1-2 are `import pypto as pt` and `pt.npu.use(...)`: set_cube_tile_shapes is line 5.
    assert_eq!((error.cell, error.line), (1, 5), "{error:?}");
    // Double-buffered fp16 L1 tiles: 2 × (128×128 of a + 128×128 of b) × 2 bytes = 131072 bytes.
    assert!(error.message.contains("L1") && error.message.contains("131072"), "{}", error.message);
}

#[test]
fn a_kernel_with_a_registered_gradient_is_scheduled_and_still_differentiable() {
    let setup = "@pt.kernel\ndef square(x):\n    return x * x\n@pt.register_gradient('square')\ndef square_backward(g, saved, ctx):\n    return g * 2 * saved[0]\nx = pt.as_tensor([[1.0] * 64] * 8, requires_grad=True)";
    let mut session = session_with(setup);
    // One f32 input of 8×64 read, one written.
    assert_eq!(
        printed(&mut session, "s = pt.schedule(square, x)\nprint(s.gm_bytes_read, s.gm_bytes_written)"),
        format!("{} {}", 8 * 64 * 4, 8 * 64 * 4)
    );
    // d/dx sum(x²) = 2x = 2 at x = 1.
    assert_eq!(
        printed(&mut session, "square(x).sum().backward()\nprint(x.grad.amin().item(), x.grad.amax().item())"),
        "2.0 2.0"
    );
}

#[test]
fn kernels_with_any_data_flow_are_scheduled_and_the_rest_refused_by_name() {
    let setup = "x = pt.randn([8, 64], seed=3)
@pt.kernel
def sliced(x):
    return pt.exp(x[0:4])
@pt.kernel
def diamond(x):
    y = pt.exp(x)
    return y + pt.exp(x)
@pt.kernel
def reversed_sub(x, y):
    return x - pt.exp(y)
@pt.kernel
def transposed(x):
    return x.T
@pt.kernel
def flat(x):
    return pt.reshape(pt.exp(x), [512])
@pt.kernel
def cat(x, y):
    return pt.concat([x, y], 0)";
    let mut session = session_with(setup);
    // A value used twice and a result on the right of `-` are ordinary tile work now; the values
    // equal the same ops outside a kernel (the CPU reference).
    printed(
        &mut session,
        "s = pt.schedule(diamond, x)\npt.assert_allclose(diamond(x), pt.exp(x) * 2, rtol=1e-6, atol=1e-7)",
    );
    printed(&mut session, "s = pt.schedule(reversed_sub, x, x)\npt.assert_allclose(reversed_sub(x, x), x - pt.exp(x), rtol=1e-6, atol=1e-7)");
    // A @pypto.kernel goes through the compiler as a jit kernel does: indexing, reshapes of
    // computed tiles and concatenation are tile work too. x[0:4] reads 4·64 f32 and writes as much.
    printed(&mut session, "s = pt.schedule(sliced, x)\nassert s.gm_bytes_read == 4 * 64 * 4 and s.gm_bytes_written == 4 * 64 * 4\npt.assert_allclose(sliced(x), pt.exp(x[0:4]), rtol=1e-6, atol=1e-7)");
    printed(&mut session, "s = pt.schedule(flat, x)\nassert s.gm_bytes_written == 8 * 64 * 4\npt.assert_allclose(flat(x), pt.reshape(pt.exp(x), [512]), rtol=1e-6, atol=1e-7)");
    printed(&mut session, "s = pt.schedule(cat, x, x)\nassert s.gm_bytes_written == 16 * 64 * 4\npt.assert_allclose(cat(x, x), pt.concat([x, x], 0))");
    let error = session.run_cell("pt.schedule(transposed, x)").error().cloned().expect("x.T is not captured");
    assert_eq!(error.code, "runtime/unsupported", "{error:?}");
    assert!(error.message.contains("a tensor the recorder did not see being made"), "{}", error.message);
}
