//! `torch.library` and `torch.ops` as model code uses them around its pypto kernels (hicann/pypto's
//! models, pypto-gym's Phi-3 RMSNorm): a schema defined in a `FRAGMENT` library, a "Meta" and an
//! "NPU" kernel registered by decorator, the call through `torch.ops`, and `FakeTensor`, which no
//! tensor is here. Values are checked against numbers worked out by hand.

use tilelab::session::Session;

fn run(code: &str) -> (Vec<String>, Option<String>) {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import torch\nimport pypto\n{code}"));
    let lines = result.stdout.lines().map(str::to_string).collect();
    let error = result.error().map(|error| format!("{} | {}", error.message, error.help.clone().unwrap_or_default()));
    (lines, error)
}

fn printed(code: &str) -> Vec<String> {
    let (lines, error) = run(code);
    assert!(error.is_none(), "{code}\n{error:?}");
    lines
}

fn failure(code: &str) -> String {
    run(code).1.unwrap_or_else(|| panic!("expected an error:\n{code}"))
}

/// The form of the model files: schema with a tuple return, defaults and a keyword-only
/// argument; a Meta kernel (shapes only) and an NPU kernel that runs a pypto kernel; the NPU
/// kernel's `isinstance(x, FakeTensor)` branch is never taken.
#[test]
fn model_code_defines_registers_and_calls_an_operator_through_torch_ops() {
    let lines = printed(
        "from torch._subclasses.fake_tensor import FakeTensor\n\
         from torch._dynamo import allow_in_graph\n\
         @pypto.kernel\n\
         def scaled(x, s):\n    return pypto.mul(x, s)\n\
         lib = torch.library.Library(\"demo\", \"FRAGMENT\")\n\
         print(lib.define(\"scale_pair(Tensor x, float s=2.0, *, int offset=1) -> (Tensor, Tensor)\"))\n\
         @torch.library.impl(lib, \"scale_pair\", \"Meta\")\n\
         def scale_pair_meta(x, s, offset):\n    return torch.empty_like(x), torch.empty_like(x)\n\
         @allow_in_graph\n\
         def run(x, s, offset):\n    if isinstance(x, FakeTensor):\n        return None\n    return scaled(x, s), x + offset\n\
         @torch.library.impl(lib, \"scale_pair\", \"NPU\")\n\
         def scale_pair_npu(x, s, offset):\n    return run(x, s, offset)\n\
         x = torch.tensor([1.0, -3.0])\n\
         a, b = torch.ops.demo.scale_pair(x)\n\
         print(a.tolist(), b.tolist())\n\
         c, d = torch.ops.demo.scale_pair(x, 0.5, offset=10)\n\
         print(c.tolist(), d.tolist(), isinstance(x, FakeTensor), type(torch.ops.demo.scale_pair(x)).__name__)\n",
    );
    assert_eq!(lines, ["scale_pair", "[2.0, -6.0] [2.0, -2.0]", "[0.5, -1.5] [11.0, 7.0] False tuple"]);
}

/// A call runs the NPU kernel, else the CPU one, else a composite one; the other forms of
/// registration (`impl(qualname, types, func)`, `torch.library.define`, `register_fake`,
/// `lib.impl`) register the same way.
#[test]
fn a_call_runs_the_npu_kernel_before_the_cpu_and_composite_ones() {
    let lines = printed(
        "torch.library.define(\"k::which\", \"(Tensor x) -> str\")\n\
         torch.library.impl(\"k::which\", \"CompositeImplicitAutograd\", lambda x: \"composite\")\n\
         print(torch.ops.k.which(torch.ones(1)))\n\
         torch.library.impl(\"k::which\", [\"cpu\"], lambda x: \"cpu\")\n\
         print(torch.ops.k.which(torch.ones(1)))\n\
         lib = torch.library.Library(\"k\", \"IMPL\")\n\
         lib.impl(\"which\", lambda x: \"npu\", \"PrivateUse1\")\n\
         torch.library.register_fake(\"k::which\")(lambda x: \"meta\")\n\
         print(torch.ops.k.which(x=torch.ones(1)))\n",
    );
    assert_eq!(lines, ["composite", "cpu", "npu"]);
}

/// Model files register the NPU kernel inside `try` and test torch's exact words for a key it
/// does not know.
#[test]
fn an_unknown_dispatch_key_is_torchs_error_and_npu_is_known() {
    let lines = printed(
        "lib = torch.library.Library(\"pypto\", \"FRAGMENT\")\n\
         lib.define(\"f(Tensor x) -> Tensor\")\n\
         for key in [\"NPU\", \"XPU2\"]:\n\
         \x20   try:\n\
         \x20       torch.library.impl(lib, \"f\", key)(lambda x: x)\n\
         \x20       print(key, \"registered\")\n\
         \x20   except Exception as e:\n\
         \x20       print(\"could not parse dispatch key: XPU2\" in str(e))\n",
    );
    assert_eq!(lines, ["NPU registered", "True"]);
}

#[test]
fn an_operator_with_only_a_meta_kernel_cannot_run() {
    let message = failure(
        "lib = torch.library.Library(\"pypto\", \"FRAGMENT\")\nlib.define(\"g(Tensor x) -> Tensor\")\n\
         @torch.library.impl(lib, \"g\", \"Meta\")\ndef g(x):\n    return torch.empty_like(x)\n\
         torch.ops.pypto.g(torch.ones(2))\n",
    );
    assert!(
        message
            .contains("could not run 'pypto::g' with arguments from the 'NPU' backend: it has kernels for [Meta] only"),
        "{message}"
    );
    assert!(message.contains("\"Meta\" kernel only gives output shapes"), "{message}");
}

#[test]
fn arguments_and_returns_are_checked_against_the_schema() {
    let header = "lib = torch.library.Library(\"pypto\", \"FRAGMENT\")\n\
                  lib.define(\"h(Tensor x, int n, Tensor? bias=None) -> (Tensor, Tensor)\")\n\
                  lib.impl(\"h\", lambda x, n, bias: (x, x), \"NPU\")\n";
    let message = failure(&format!("{header}torch.ops.pypto.h(3, 2)\n"));
    assert!(message.contains("pypto::h: argument 'x' must be Tensor, got int"), "{message}");
    let message = failure(&format!("{header}torch.ops.pypto.h(torch.ones(1), 2.5)\n"));
    assert!(message.contains("argument 'n' must be int, got float"), "{message}");
    let message = failure(&format!("{header}torch.ops.pypto.h(torch.ones(1))\n"));
    assert!(message.contains("missing") && message.contains("'n'"), "{message}");
    let lines = printed(&format!("{header}a, b = torch.ops.pypto.h(torch.ones(1), 2, bias=None)\nprint(a.tolist())\n"));
    assert_eq!(lines, ["[1.0]"]);
    let message = failure(
        "lib = torch.library.Library(\"pypto\", \"FRAGMENT\")\nlib.define(\"t(Tensor x) -> (Tensor, Tensor, Tensor)\")\n\
         lib.impl(\"t\", lambda x: (x, x), \"NPU\")\ntorch.ops.pypto.t(torch.ones(1))\n",
    );
    assert!(
        message.contains("its schema returns (Tensor, Tensor, Tensor), but its kernel returned tuple of 2"),
        "{message}"
    );
}

#[test]
fn schemas_that_do_not_parse_say_where() {
    let define = |schema: &str| failure(&format!("torch.library.Library(\"p\", \"DEF\").define(\"{schema}\")\n"));
    let message = define("f(Tensor x) Tensor");
    assert!(message.contains("the schema 'f(Tensor x) Tensor' needs '->' at character 13"), "{message}");
    assert!(message.contains("a schema reads name(Tensor x"), "{message}");
    let message = define("f(Tensr x) -> Tensor");
    assert!(message.contains("has the unknown type 'Tensr'"), "{message}");
    let message = define("f(Tensor x, int n=) -> Tensor");
    assert!(message.contains("the default of 'n'"), "{message}");
    // Alias annotations, lists, optionals and named returns parse.
    let lines = printed(
        "lib = torch.library.Library(\"p\", \"DEF\")\n\
         print(lib.define(\"u.out(Tensor(a!) x, int[2] k=[1, 1], Tensor?[] xs=[], *, ScalarType? dtype=None) -> (Tensor values, Tensor indices)\"))\n",
    );
    assert_eq!(lines, ["u"]);
    let message = failure("torch.library.Library(\"p\", \"SHARED\")\n");
    assert!(message.contains("kind must be \"DEF\", \"IMPL\" or \"FRAGMENT\", got \"SHARED\""), "{message}");
}

#[test]
fn an_undefined_operator_and_a_fake_tensor_are_clear_errors() {
    let message = failure("torch.ops.pypto.nothing_here(1)\n");
    assert!(message.contains("torch.ops.pypto has no operator 'nothing_here'"), "{message}");
    assert!(message.contains("torch.library.Library(\"pypto\", \"FRAGMENT\")"), "{message}");
    assert_eq!(printed("print(hasattr(torch.ops.pypto, \"nothing_here\"))\n"), ["False"]);
    let message = failure("from torch._subclasses.fake_tensor import FakeTensor\nFakeTensor()\n");
    assert!(message.contains("there are no fake tensors here"), "{message}");
    let message = failure(
        "lib = torch.library.Library(\"pypto\", \"FRAGMENT\")\nlib.define(\"v(Tensor x) -> Tensor\")\n\
         lib.impl(\"v\", lambda x: x, \"AutogradNPU\")\n",
    );
    assert!(
        message.contains("\"AutogradNPU\" (a backward) is not supported here") && message.contains("register_gradient"),
        "{message}"
    );
}

/// Inside a kernel, torch.ops is the host's, as the rest of torch.
#[test]
fn torch_ops_is_host_only() {
    let message = failure(
        "lib = torch.library.Library(\"pypto\", \"FRAGMENT\")\nlib.define(\"w(Tensor x) -> Tensor\")\n\
         lib.impl(\"w\", lambda x: x, \"NPU\")\n\
         @pypto.kernel\ndef k(x):\n    return torch.ops.pypto.w(x)\nk(torch.ones(2))\n",
    );
    assert!(message.contains("torch.ops.pypto.w"), "{message}");
}
