//! Session behaviour across cells: shared globals, redefinition, failed cells keep earlier state,
//! the step budget stops a runaway loop and the session stays usable, the JSON shape of results.

use tilelab::session::{CellStatus, Display, Limits, Session};

#[test]
fn cells_share_globals_and_redefine() {
    let mut session = Session::new();
    assert!(session.run_cell("x = 2\ndef f(y):\n    return x * y").is_ok());
    let result = session.run_cell("print(f(21))");
    assert_eq!(result.stdout, "42\n");
    // Re-running a definition replaces it; the closure reads the global at call time.
    assert!(session.run_cell("def f(y):\n    return x + y").is_ok());
    assert_eq!(session.run_cell("x = 10\nprint(f(1))").stdout, "11\n");
    assert_eq!(session.run_cell("x").displays, vec![Display::Text { text: "10".into() }]);
}

#[test]
fn a_failed_cell_leaves_earlier_state_intact() {
    let mut session = Session::new();
    session.run_cell("a = 1\nb = [1, 2]");
    let failed = session.run_cell("a = 100\nb.append(3)\nc = undefined_name");
    assert_eq!(failed.status, CellStatus::Error);
    assert_eq!(failed.execution_count, 2);
    let error = failed.error().expect("an error");
    assert_eq!(error.code, "runtime/name-error");
    assert_eq!((error.line, error.column), (3, 5));
    // Bindings made by the failed cell are rolled back; `c` never existed.
    let after = session.run_cell("print(a, 'c' in [])");
    assert_eq!(after.stdout, "1 False\n");
    assert!(session.run_cell("c").error().is_some());
    // A gradient registered by a failing cell is rolled back with its bindings.
    session.run_cell("import pypto as pt\n@pt.kernel\ndef k(x):\n    return x * 3");
    session.run_cell("@pt.register_gradient('k')\ndef bad(g, saved, ctx):\n    return g * 0\n1 / 0");
    let result =
        session.run_cell("x = pt.ones([2], requires_grad=True)\nk(x).sum().backward()\nprint(x.grad.tolist())");
    assert_eq!(
        result.stdout, "[3.0, 3.0]\n",
        "differentiated through the kernel's ops, not by the rolled-back gradient"
    );
}

#[test]
fn syntax_errors_stop_the_cell_before_it_runs() {
    let mut session = Session::new();
    let result = session.run_cell("x = 1\nprint(x\n");
    assert_eq!(result.status, CellStatus::Error);
    assert!(result.diagnostics.iter().all(|diagnostic| diagnostic.code.starts_with("syntax/")));
    assert_eq!(result.stdout, "");
    assert!(session.run_cell("x").error().is_some(), "nothing of the broken cell ran");
}

#[test]
fn step_budget_stops_an_infinite_loop_and_the_session_still_works() {
    let mut session = Session::with_limits(Limits { step_budget: 100_000, ..Limits::default() });
    session.run_cell("import pypto as pt\nt = pt.ones([2])");
    let result = session.run_cell("while True:\n    pass");
    let error = result.error().expect("budget error");
    assert_eq!(error.code, "runtime/step-budget");
    assert!(error.message.contains("step budget exceeded"));
    // The budget restarts per cell and the earlier globals are there.
    let next = session.run_cell("print(t.sum().item())");
    assert!(next.is_ok());
    assert_eq!(next.stdout, "2.0\n");
}

#[test]
fn the_default_budget_is_fifty_million_and_the_call_depth_two_hundred() {
    let limits = Session::new().limits();
    assert_eq!(limits.step_budget, 50_000_000);
    assert_eq!(limits.call_depth, 200);
}

#[test]
fn call_depth_is_configurable() {
    let mut session = Session::with_limits(Limits { call_depth: 10, ..Limits::default() });
    session.run_cell("def down(n):\n    return 0 if n == 0 else down(n - 1)");
    assert_eq!(session.run_cell("print(down(9))").stdout, "0\n");
    let deep = session.run_cell("down(10)");
    assert_eq!(deep.error().map(|error| error.code.as_str()), Some("runtime/call-depth"));
    assert_eq!(deep.error().map(|error| error.traceback.len()), Some(2), "recursive frames are folded into one line");
}

#[test]
fn the_stack_budget_stops_deep_recursion_before_the_native_stack_overflows() {
    // A test thread has 2 MiB of stack; the default budget (768 KiB) stops the recursion first,
    // whatever the frame sizes of this build.
    let mut session = Session::with_limits(Limits { call_depth: 1_000_000, ..Limits::default() });
    session.run_cell("def forever(n):\n    return forever(n + 1)");
    let result = session.run_cell("forever(0)");
    let error = result.error().expect("stopped");
    assert_eq!(error.code, "runtime/call-depth");
    assert!(error.message.contains("stack budget"), "{}", error.message);
    assert!(session.run_cell("print(2)").is_ok());
}

#[test]
fn deeply_nested_lists_are_dropped_without_recursion() {
    let mut session = Session::new();
    // a = [[[…]]] a hundred thousand levels deep, then dropped by rebinding.
    let result = session.run_cell("a = []\nfor i in range(100000):\n    a = [a]\na = 0\nprint('dropped')");
    assert_eq!(result.stdout, "dropped\n");
}

#[test]
fn size_limits_are_errors() {
    let mut session =
        Session::with_limits(Limits { list_items: 1000, string_bytes: 100, tensor_elements: 64, ..Limits::default() });
    assert_eq!(session.run_cell("x = [0] * 1001").error().map(|e| e.code.clone()), Some("runtime/size-limit".into()));
    assert_eq!(session.run_cell("s = 'ab' * 51").error().map(|e| e.code.clone()), Some("runtime/size-limit".into()));
    assert_eq!(
        session.run_cell("import pypto\nt = pypto.zeros([8, 9])").error().map(|e| e.code.clone()),
        Some("runtime/size-limit".into())
    );
    assert!(session.run_cell("import pypto\nt = pypto.zeros([8, 8])").is_ok());
}

#[test]
fn errors_in_functions_of_earlier_cells_point_into_those_cells() {
    let mut session = Session::new();
    session.run_cell("def broken(v):\n    return v + 'text'");
    let result = session.run_cell("\n\nbroken(1)");
    let error = result.error().expect("error");
    assert_eq!(error.cell, 1, "the failing expression is in cell 1");
    assert_eq!(error.line, 2);
    assert_eq!(error.traceback.len(), 1);
    assert_eq!((error.traceback[0].cell, error.traceback[0].line), (2, 3));
}

#[test]
fn displays_carry_tensor_statistics_and_serialise() {
    let mut session = Session::new();
    let result = session.run_cell("import pypto as pt\npt.as_tensor([[1.0, -2.0], [3.0, 6.0]])");
    let Some(Display::Tensor(tensor)) = result.displays.first() else {
        panic!("a tensor display, got {:?}", result.displays)
    };
    assert_eq!(tensor.shape, vec![2, 2]);
    assert_eq!(tensor.dtype, "DT_FP32");
    // min −2, max 6, mean (1 − 2 + 3 + 6)/4 = 2.
    assert_eq!((tensor.min, tensor.max, tensor.mean), (Some(-2.0), Some(6.0), Some(2.0)));
    let json: serde_json::Value = serde_json::to_value(&result).expect("serialisable");
    assert_eq!(json["status"], "ok");
    assert_eq!(json["displays"][0]["kind"], "tensor");
    assert_eq!(json["displays"][0]["shape"], serde_json::json!([2, 2]));
    assert!(json["duration_ms"].as_f64().is_some());
    let failed = serde_json::to_value(session.run_cell("1 / 0")).expect("serialisable");
    assert_eq!(failed["status"], "error");
    assert_eq!(failed["diagnostics"][0]["code"], "runtime/zero-division");
    assert_eq!(failed["diagnostics"][0]["span"], serde_json::json!({"start": 0, "end": 5}));
}

#[test]
fn graph_and_grad_check_displays() {
    let mut session = Session::new();
    session.run_cell(
        "import pypto as pt\nx = pt.as_tensor([0.5, -1.0], requires_grad=True)\ny = (pt.exp(x) * x).sum()\ny.backward()",
    );
    let graph = session.run_cell("pt.graph(y)");
    let Some(Display::Graph(graph)) = graph.displays.first() else { panic!("graph display") };
    assert_eq!(graph.num_nodes, 4, "leaf x, exp, mul, sum");
    assert!(graph.num_backward_nodes >= 3);
    assert!(graph.dot.starts_with("digraph"));
    let check = session.run_cell("def f(u):\n    return pt.exp(u) * u\npt.autodiff.check_gradient(f, [x.detach()])");
    let Some(Display::GradCheck(report)) = check.displays.first() else { panic!("report display") };
    assert!(report.passed);
}

#[test]
fn warnings_do_not_stop_a_cell() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import pypto as pt\n@pt.frontend.jit(runtime_options={'nope': 1})\ndef k(x, y):\n    y[:] = x\nprint('ran')",
    );
    assert!(result.is_ok());
    assert_eq!(result.stdout, "ran\n");
    assert_eq!(result.diagnostics.len(), 1);
    assert_eq!(result.diagnostics[0].code, "lang/unknown-option");
}

#[test]
fn diagnostic_spans_count_bytes_and_columns_count_characters() {
    let mut session = Session::new();
    // "张" is 3 bytes and 1 character; "😀" is 4 bytes and 1 character.
    let result = session.run_cell("s = '张😀'\nt = s + 未知");
    let error = result.error().expect("name error");
    let source = "s = '张😀'\nt = s + 未知";
    let start = source.find('未').expect("position");
    assert_eq!(error.span.start, start);
    assert_eq!(error.span.end - error.span.start, "未知".len());
    assert_eq!((error.line, error.column), (2, 9));
}

#[test]
fn reset_forgets_everything() {
    let mut session = Session::new();
    session.run_cell("x = 1");
    session.reset();
    assert!(session.run_cell("x").error().is_some());
    assert_eq!(session.run_cell("print(1)").execution_count, 2, "numbering restarts after the failed lookup cell");
}

/// From the interpreter fuzzer (seed `fuzz/seeds/rebound_builtin.py`): a cell may rebind a
/// builtin (`print= 11`), as Python allows; the session stays usable and calling the rebound name
/// is an error that says the value is not callable, not a crash.
#[test]
fn rebinding_a_builtin_is_allowed_and_the_session_stays_usable() {
    let mut session = Session::new();
    assert!(session.run_cell("print= 11").is_ok());
    assert_eq!(session.run_cell("(1 + 1) * 3").displays, vec![Display::Text { text: "6".into() }]);
    let call = session.run_cell("print(1)");
    assert_eq!(call.status, CellStatus::Error);
    assert!(call.diagnostics[0].message.contains("not callable"), "{}", call.diagnostics[0].message);
}

#[test]
fn a_cell_lists_the_npu_schedule_of_each_kernel_it_called() {
    let mut session = Session::new();
    let define = "import pypto as pt\npt.npu.use('teaching')\n@pt.kernel\ndef double(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return x * 2.0\n@pt.kernel\ndef shift(x):\n    return x + 1.0\nx = pt.ones([16, 64])";
    let defined = session.run_cell(define);
    assert!(defined.is_ok(), "{:?}", defined.diagnostics);
    // Defining kernels calls none: nothing to show.
    assert!(defined.kernel_schedules.is_empty());
    let called = session.run_cell("y = double(double(x))\nz = shift(y)\ny = double(z)");
    assert!(called.is_ok(), "{:?}", called.diagnostics);
    // Grouped by kernel in first-call order, with the number of calls of each.
    let listed: Vec<(&str, usize)> =
        called.kernel_schedules.iter().map(|entry| (entry.kernel.as_str(), entry.calls)).collect();
    assert_eq!(listed, vec![("double", 3), ("shift", 1)]);
    // Their trace lines are lines of the cell that defined them (execution number 1).
    assert!(called.kernel_schedules.iter().all(|entry| entry.cell == Some(1)));
    // The shown schedule is the kernel's own: the same cycles as asking pypto.schedule for one call
    // on the same input shape, and a trace the page can parse. The result carries no trace: the
    // session keeps it under the entry's key until the page asks for it.
    let asked = session.run_cell("print(pt.schedule(double, x).cycles)").stdout;
    assert_eq!(called.kernel_schedules[0].schedule.summary.cycles.to_string(), asked.trim());
    assert!(called.kernel_schedules.iter().all(|entry| entry.schedule.trace_json.is_empty()));
    let key = called.kernel_schedules[0].trace_key.as_deref().expect("a key");
    let trace: serde_json::Value = serde_json::from_str(&session.kernel_trace(key).expect("kept")).expect("trace JSON");
    let events = trace["traceEvents"].as_array().expect("events");
    // The last call's trace: its instructions read the input tile and write double's output.
    assert!(events.iter().any(|event| event["ph"] == "X" && event["name"] == "mul"), "{events:?}");
    let shift_key = called.kernel_schedules[1].trace_key.as_deref().expect("a key");
    assert_ne!(session.kernel_trace(shift_key), session.kernel_trace(key));
    // Another session does not answer this one's keys.
    assert_eq!(Session::new().kernel_trace(key), None);
    // The values are the kernel's: ((1·2·2)+1)·2 = 10 everywhere.
    assert_eq!(session.run_cell("print(y.tolist()[3][5])").stdout, "10.0\n");
}
