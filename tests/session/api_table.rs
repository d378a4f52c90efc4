//! The API table against the interpreter that binds it: every documented `pypto` name resolves, every
//! documented parameter list is exactly what the function binds, `help()`/`dir()` read the table,
//! misspelt names get a suggestion; and what the notebook asks a session between runs (syntax
//! diagnostics while typing, the variables panel), schedules naming their kernel's cell, and a
//! registered backward's mistakes located at its own `return`.

use tilelab::lang::interp::api_table::{api_table, lookup, ApiKind};
use tilelab::session::{check_syntax, CellResult, Display, Session};

fn error_of(result: &CellResult) -> &tilelab::session::CellDiagnostic {
    result.error().unwrap_or_else(|| panic!("expected an error: {result:?}"))
}

/// Every `pypto.*` function and module of the table is what the name evaluates to.
#[test]
fn every_documented_pypto_name_resolves() {
    let mut session = Session::new();
    assert!(session.run_cell("import pypto").is_ok());
    for entry in api_table().iter().filter(|entry| entry.name.starts_with("pypto.")) {
        let result = session.run_cell(&format!("print(repr({}))", entry.name));
        assert!(result.is_ok(), "{} does not resolve: {:?}", entry.name, result.error());
    }
}

/// Calling a function with an unknown keyword makes it list the names it binds: they must be the
/// documented ones, in order (so completion and signature help offer exactly what works).
#[test]
fn documented_parameters_are_the_bound_parameters() {
    let mut session = Session::new();
    session.run_cell(
        "import pypto\nimport torch\nimport numpy\nimport dataclasses\nimport typing\nimport sys, os, time, argparse, pathlib, pkgutil, enum, torch_npu, re\n\
         t = pypto.ones([2, 2])",
    );
    let mut checked = 0;
    // `pypto.schedule(kernel, *args)` passes keywords on to the kernel: it binds no names itself;
    // a function with `**keywords` (`dict(a=1)`) takes any name.
    let binds_names = |entry: &&tilelab::lang::interp::api_table::ApiEntry| {
        entry.name != "pypto.schedule" && !entry.signature.contains("**")
    };
    for entry in api_table().iter().filter(|entry| entry.kind == ApiKind::Function).filter(binds_names) {
        let call = match entry.name.strip_prefix("Tensor.") {
            Some(method) => format!("t.{method}(zz_unknown=1)"),
            None => format!("{}(zz_unknown=1)", entry.name),
        };
        let result = session.run_cell(&call);
        let error = error_of(&result);
        assert!(
            error.message.contains("unexpected keyword argument 'zz_unknown'"),
            "{}: {}",
            entry.name,
            error.message
        );
        let listed = error.help.as_deref().and_then(|help| help.split_once("takes: ")).map(|(_, names)| names);
        let listed: Vec<&str> = listed.unwrap_or("").split(", ").filter(|name| !name.is_empty()).collect();
        assert_eq!(listed, entry.named_parameters(), "{}", entry.name);
        checked += 1;
    }
    assert!(checked > 70, "{checked} functions checked");
}

#[test]
fn help_prints_the_tables_doc_in_the_chosen_language() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt");
    let text = session.run_cell("help(pt.view)").stdout;
    assert!(text.starts_with("pypto.view(input, shape=None, offsets=None, valid_shape=None, dtype=None)\n"), "{text}");
    assert!(text.contains(&lookup("pypto.view").unwrap().doc_en), "{text}");
    session.set_language("zh-CN");
    let text = session.run_cell("help(pt.nn)").stdout;
    assert!(text.contains("layer_norm(x, gamma, beta, eps=1e-05)") && text.contains("层归一化"), "{text}");
    session.set_language("en");
    let text = session.run_cell("def f(a, b=2):\n    return a\nhelp(f)").stdout;
    assert!(text.starts_with("def f(a, b=2)"), "{text}");
}

#[test]
fn dir_lists_notebook_names_module_members_and_tensor_attributes() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt\nweights = pt.ones([2])");
    let listed = session.run_cell("print(dir())").stdout;
    assert!(listed.contains("'weights'") && listed.contains("'pt'"), "{listed}");
    let members = session.run_cell("print(dir(pt.autodiff))").stdout;
    assert_eq!(members.trim(), "['LossScaler', 'check_gradient', 'grad', 'last_backward', 'policy']");
    let attributes = session.run_cell("print(dir(weights))").stdout;
    assert!(attributes.contains("'backward'") && attributes.contains("'shape'"), "{attributes}");
}

#[test]
fn a_misspelt_pypto_name_suggests_the_closest() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt");
    let result = session.run_cell("y = pt.tnah(pt.ones([2]))");
    let error = error_of(&result);
    assert!(error.message.contains("has no attribute 'tnah'"), "{}", error.message);
    assert_eq!(error.help.as_deref(), Some("did you mean `pypto.tanh`?"));
}

/// `approximate` chooses GELU's form; on any other op it is not silently accepted.
#[test]
fn only_gelu_takes_approximate() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt\nx = pt.ones([2])");
    assert!(session.run_cell("pt.gelu(x, approximate='tanh')").is_ok());
    let result = session.run_cell("pt.exp(x, approximate='tanh')");
    assert!(error_of(&result).message.contains("unexpected keyword argument 'approximate'"));
}

/// A kernel defined in cell 1 and scheduled from cell 2: the schedule names cell 1, whose lines
/// its trace events carry.
#[test]
fn a_schedule_names_the_cell_that_defined_its_kernel() {
    let mut session = Session::new();
    let defined = session.run_cell(
        "import pypto as pt\n\n@pt.kernel\ndef double(x):\n    pt.set_vec_tile_shapes(4, 8)\n    return x * 2\n",
    );
    assert!(defined.is_ok(), "{:?}", defined.error());
    let result = session.run_cell("pt.schedule(double, pt.ones([4, 8]))");
    assert!(result.is_ok(), "{:?}", result.error());
    match &result.displays[0] {
        Display::Schedule(schedule) => assert_eq!(schedule.cell, Some(1)),
        other => panic!("not a schedule: {other:?}"),
    }
    assert_eq!(result.kernel_schedules[0].schedule.cell, Some(1));
}

/// A registered backward that returns a gradient of the wrong shape is reported at its `return`
/// (cell 2, line 4), not at the `check_gradient` call in cell 3.
#[test]
fn a_wrong_gradient_shape_points_at_the_backwards_return() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt\n\n@pt.kernel\ndef sq(x):\n    return x * x\n");
    let registered = session.run_cell(
        "@pt.register_gradient('sq')\ndef sq_bwd(grad_output, saved, ctx):\n    x = saved[0]\n    return pt.reshape(grad_output * x, [8, 4])\n",
    );
    assert!(registered.is_ok(), "{:?}", registered.error());
    let result = session.run_cell("x = pt.randn([4, 8], seed=1)\npt.autodiff.check_gradient(sq, [x])");
    let error = error_of(&result);
    assert!(error.message.contains("shape [8, 4] for input 0 of shape [4, 8]"), "{}", error.message);
    assert_eq!((error.cell, error.line), (2, 4));
}

#[test]
fn syntax_is_checked_without_running() {
    let diagnostics = check_syntax("x = (1 +\ny = 2", 0);
    assert!(!diagnostics.is_empty());
    assert_eq!(diagnostics[0].cell, 0);
    assert!(diagnostics.iter().all(|diagnostic| diagnostic.line >= 1));
    assert!(check_syntax("x = 1\n", 0).is_empty());
}

#[test]
fn variables_are_summarised_for_the_panel() {
    let mut session = Session::new();
    session.run_cell(
        "import pypto as pt\nw = pt.ones([3, 4], requires_grad=True)\nn = 5\ndef f(a):\n    return a\nsizes = list(range(100000))",
    );
    let summaries = session.variable_summaries();
    let names: Vec<&str> = summaries.iter().map(|summary| summary.name.as_str()).collect();
    assert_eq!(names, ["f", "n", "sizes", "w"], "modules are left out");
    assert_eq!(summaries[2].preview, "100000 items", "a container by its length, not its repr");
    let w = &summaries[3];
    assert_eq!(
        (w.kind.as_str(), w.shape.clone(), w.dtype.as_deref(), w.requires_grad),
        ("Tensor", Some(vec![3, 4]), Some("DT_FP32"), Some(true))
    );
    assert_eq!((summaries[1].preview.as_str(), summaries[0].cell), ("5", Some(1)));
}

/// Where each side of a gradient check ran is data for the page's message tables: a kernel with a
/// registered backward, called on the NPU, is code `npu` with its call count and preset.
#[test]
fn a_gradient_checks_sides_are_a_message_code_with_parameters() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt\n\n@pt.kernel\ndef sq(x):\n    pt.set_vec_tile_shapes(4, 8)\n    return x * x\n\n@pt.register_gradient('sq')\ndef sq_bwd(grad_output, saved, ctx):\n    return grad_output * 2.0 * saved[0]");
    let result = session.run_cell("pt.autodiff.check_gradient(sq, [pt.randn([4, 8], seed=2)])");
    let Display::GradCheck(check) = &result.displays[0] else { panic!("{result:?}") };
    let message = check.sides_message.as_ref().expect("a message code");
    let preset = session.npu_preset();
    assert_eq!(message, &tilelab::messages::Message::SidesNpu { registered: true, preset });
    assert_eq!(message.code(), "gradcheck.sides.npu");
    assert_eq!(check.sides, message.english());
}

/// A misspelt name suggests the closest defined or builtin name; a pypto function used without
/// its module suggests the qualified name.
#[test]
fn a_misspelt_name_suggests_the_closest_one() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt\nweights = pt.ones([2])");
    let result = session.run_cell("y = wieghts * 2");
    assert_eq!(error_of(&result).help.as_deref(), Some("did you mean `weights`?"));
    let result = session.run_cell("y = lne([1])");
    assert_eq!(error_of(&result).help.as_deref(), Some("did you mean `len`?"));
    let result = session.run_cell("y = softmax(weights)");
    assert_eq!(error_of(&result).help.as_deref(), Some("did you mean `pypto.softmax` (after `import pypto`)?"));
    // The same as message codes, which the page renders in its language.
    assert_eq!(
        error_of(&result).message_code,
        Some(tilelab::messages::Message::NameUndefined { name: "softmax".into() })
    );
    assert_eq!(
        error_of(&result).help_code,
        Some(tilelab::messages::Message::DidYouMeanPypto { qualified: "pypto.softmax".into() })
    );
}
