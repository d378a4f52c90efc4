//! Inputs that used to abort the process (a stack overflow): stacked pypto decorators recursed
//! without end, and dropping a long chain of functions (linked by default arguments or closures)
//! recursed once per link. Each runs on a 1 MiB thread, the stack a wasm instance has.

use tilelab::session::Session;

/// Runs `cells` in one session on a thread with wasm's stack; returns each cell's first error code
/// (or "ok") and its stdout.
fn run_small_stack(cells: &'static [&'static str]) -> Vec<(String, String)> {
    let worker = std::thread::Builder::new().stack_size(1 << 20).spawn(move || {
        let mut session = Session::new();
        let results: Vec<(String, String)> = cells
            .iter()
            .map(|cell| {
                let result = session.run_cell(cell);
                let code = result.error().map_or("ok".to_string(), |error| error.code.clone());
                (code, result.stdout)
            })
            .collect();
        drop(session);
        results
    });
    worker.expect("thread").join().expect("the session must not overflow its stack")
}

#[test]
fn stacked_pypto_decorators_are_type_errors_at_the_decorator() {
    let cells: &[&str] = &[
        "import pypto as pt",
        "@pt.register_gradient('k')\n@pt.kernel\ndef k(x):\n    return x",
        "@pt.kernel\n@pt.kernel\ndef k(x):\n    return x",
        "@pt.frontend.jit\n@pt.kernel\ndef k(x):\n    return x",
        "@pt.kernel(name='a')\n@pt.frontend.jit\ndef k(x):\n    return x",
        "d = pt.register_gradient('k')\nd(3)",
        "pt.kernel(name='k')(pt.ones([2]))",
        "print('still usable')",
    ];
    let results = run_small_stack(cells);
    for (index, (code, _)) in results.iter().enumerate().skip(1).take(6) {
        assert_eq!(code, "runtime/type-error", "cell {index}: {:?}", cells[index]);
    }
    assert_eq!(results[7], ("ok".to_string(), "still usable\n".to_string()));
}

#[test]
fn the_decorator_error_names_the_decorator_and_what_it_got() {
    let mut session = Session::new();
    let result =
        session.run_cell("import pypto as pt\n@pt.register_gradient('k')\n@pt.kernel\ndef k(x):\n    return x");
    let error = result.error().expect("an error");
    assert_eq!(error.line, 2, "at the outer decorator");
    assert!(error.message.contains("pypto.register_gradient") && error.message.contains("kernel"), "{}", error.message);
}

#[test]
fn a_long_chain_of_functions_linked_by_defaults_drops_without_recursion() {
    // 100 000 links: dropped by recursion this needs far more than 1 MiB of stack.
    let results = run_small_stack(&[
        "def f():\n    return 0\nfor i in range(100000):\n    def g(p=f):\n        return p\n    f = g\nf = None\nprint('ok')",
        "def f():\n    return 0\ndef mk(h):\n    def g():\n        return h\n    return g\nfor i in range(100000):\n    f = mk(f)\nf = None\nprint('ok')",
        "import pypto as pt\nk = None\nfor i in range(50000):\n    def g(x, p=k):\n        return x\n    k = pt.kernel(g)\nk = None\nprint('ok')",
    ]);
    for (code, stdout) in results {
        assert_eq!((code.as_str(), stdout.as_str()), ("ok", "ok\n"));
    }
}

#[test]
fn a_long_chain_still_bound_is_dropped_with_the_session() {
    // The chain is still in the globals when the session ends (the test thread drops it).
    let results = run_small_stack(&[
        "def f():\n    return 0\nfor i in range(100000):\n    def g(p=f):\n        return p\n    f = g",
    ]);
    assert_eq!(results[0].0, "ok");
}
