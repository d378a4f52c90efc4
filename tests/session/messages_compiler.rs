//! Why a kernel cannot run on the NPU yet speaks in codes: the compiler's reason inside the
//! CPU-fallback warning is a typed reason (the construct, with its op, shapes, ranks, tensor and
//! iterations as parameters), so the warning renders from the i18n tables — in 简体中文 with no
//! English sentence left, in English as the CLI's own words.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use tilelab::messages::{CompilerReason, Message, NpuMessage};
use tilelab::session::Session;

use super::messages_library::{assert_translated, english_sentences, render, table};

/// A kernel the recorder refuses: its cell and the expected reason (code and parameters) and line.
struct Refused {
    source: &'static str,
    kernel: &'static str,
    reason: Value,
    line: Option<u32>,
}

fn refused() -> Vec<Refused> {
    let refused = |source, kernel, reason, line| Refused { source, kernel, reason, line };
    vec![
        refused(
            "@pt.kernel\ndef strided(a):\n    pt.set_vec_tile_shapes(8, 64)\n    y = pt.exp(a)\n    return y[0:8:2, :]\nr = strided(x)",
            "strided",
            json!({"code": "npu.reason.index_step"}),
            Some(5),
        ),
        refused(
            "@pt.frontend.jit\ndef step_write(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    out[0:8:2, :] = pt.view(a, [4, 64], [0, 0])\nstep_write(x, out)",
            "step_write",
            json!({"code": "npu.reason.write_step"}),
            Some(4),
        ),
        refused(
            "@pt.kernel\ndef soft(a):\n    pt.set_vec_tile_shapes(8, 64)\n    s = pt.sum(a, dim=-1)\n    return pt.softmax(s, -1)\nr = soft(x)",
            "soft",
            json!({"code": "npu.reason.keepdim", "params": {"op": "softmax"}}),
            Some(5),
        ),
        refused(
            "@pt.kernel\ndef number(a):\n    pt.set_vec_tile_shapes(8, 64)\n    return 1.0\nr = number(x)",
            "number",
            json!({"code": "npu.reason.return_type", "params": {"type_name": "float"}}),
            None,
        ),
        refused(
            "@pt.frontend.jit\ndef fill_region(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    out[0:8, :] = 1.0\nfill_region(x, out)",
            "fill_region",
            json!({"code": "npu.reason.number_into_region"}),
            Some(4),
        ),
        refused(
            "@pt.frontend.jit\ndef overlap(a, out):\n    pt.set_vec_tile_shapes(4, 64)\n    for i in pt.loop(0, 2):\n        if i == 0:\n            out[0:4, :] = pt.view(a, [4, 64], [0, 0])\n        else:\n            out[4:8, :] = pt.view(out, [4, 64], [0, 0]) + 1.0\noverlap(x, out)",
            "overlap",
            json!({"code": "npu.reason.iterations_overlap", "params": {"name": "out", "reader": 1, "writer": 0}}),
            None,
        ),
        refused(
            "@pt.frontend.jit\ndef local_write(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.exp(pt.view(a, [8, 64], [0, 0]))\n    t[0:4, :] = pt.view(a, [4, 64], [0, 0])\n    out[:] = t\nlocal_write(x, out)",
            "local_write",
            json!({"code": "npu.reason.write_not_argument"}),
            Some(5),
        ),
        refused(
            "@pt.frontend.jit\ndef transposed(a, out):\n    pt.set_vec_tile_shapes(8, 8)\n    out[0:8, 0:8] = pt.view(out, [8, 8], [0, 0]).T + 1.0\ntransposed(x, pt.zeros([8, 8]))",
            "transposed",
            json!({"code": "npu.reason.unseen_tensor"}),
            Some(4),
        ),
        refused(
            "@pt.kernel\ndef full_view(a):\n    pt.set_vec_tile_shapes(8, 64)\n    f = pt.full([8, 64], 2.0)\n    return pt.view(f, [4, 64], [0, 0]) + 1.0\nr = full_view(x)",
            "full_view",
            json!({"code": "npu.reason.view_of_filled"}),
            Some(5),
        ),
        refused(
            "@pt.frontend.jit\ndef into_full(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    f = pt.ones([8, 64])\n    f[0:4, :] = pt.view(a, [4, 64], [0, 0])\n    out[:] = f + 1.0\ninto_full(x, out)",
            "into_full",
            json!({"code": "npu.reason.write_into_filled"}),
            Some(5),
        ),
        refused(
            "@pt.kernel\ndef ragged(a):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.view(a, [8, 64], [0, 0], valid_shape=[8, 40])\n    return pt.reshape(t, [4, 128])\nr = ragged(x)",
            "ragged",
            json!({"code": "npu.reason.ragged_reshape", "params": {"from": [8, 64], "to": [4, 128]}}),
            Some(5),
        ),
    ]
}

/// The CPU-fallback warning of `source` (run after the common setup) as JSON, with its English.
fn fallback_warning(session: &mut Session, source: &str) -> (Value, String) {
    let result = session.run_cell(source);
    assert!(result.is_ok(), "{source}: {:?}", result.error());
    let warning = result
        .diagnostics
        .iter()
        .find(|diagnostic| diagnostic.code == "npu/cpu-fallback")
        .unwrap_or_else(|| panic!("{source}: no fallback warning in {:?}", result.diagnostics));
    let message = warning.message_code.as_ref().unwrap_or_else(|| panic!("{source}: no code"));
    assert_eq!(warning.message, message.english(), "{source}");
    (serde_json::to_value(message).unwrap(), warning.message.clone())
}

const SETUP: &str = "import pypto as pt\nx = pt.randn([8, 64], seed=1)\nout = pt.zeros([8, 64])";

#[test]
fn each_refused_construct_arrives_as_a_typed_reason_with_its_parameters() {
    let mut session = Session::new();
    assert!(session.run_cell(SETUP).is_ok());
    for Refused { source, kernel, reason, line } in refused() {
        let (message, _) = fallback_warning(&mut session, source);
        let expected = json!({
            "code": "npu.cpu_fallback",
            "params": {"kernel": kernel, "reason": {"code": "npu.fallback.unsupported", "params": {"what": reason, "line": line}}},
        });
        assert_eq!(message, expected, "{source}");
    }
}

/// In 简体中文 each warning renders whole from the table, reason included, with no English sentence
/// and no parameter left unfilled; in English the table gives the CLI's words.
#[test]
fn the_fallback_warnings_render_in_chinese_without_english_sentences() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let mut session = Session::new();
    assert!(session.run_cell(SETUP).is_ok());
    for Refused { source, .. } in refused() {
        let (message, cli) = fallback_warning(&mut session, source);
        let text = render(&message, &chinese);
        assert!(english_sentences(&text).is_empty(), "{source}: {text} has {:?}", english_sentences(&text));
        assert!(!text.contains('{') && text.contains("暂不能在 NPU 上运行"), "{source}: {text}");
        assert_eq!(render(&message, &english), cli, "{source}: the en table differs");
    }
}

/// One of every reason (the match has no wildcard: a new reason must be added here).
fn every_reason() -> Vec<CompilerReason> {
    use CompilerReason::*;
    let op = || "add".to_string();
    let reasons = vec![
        Op { op: op() },
        OperandType { op: op(), type_name: "str".into() },
        OperandNotTensor { op: op() },
        NumbersOnly { op: op() },
        NumberIndex { op: "gather".into() },
        NoResult { op: op() },
        UsedAsValue { op: "assemble".into() },
        InsideComputation,
        IndexStep,
        WriteStep,
        WriteValue { type_name: "list".into() },
        NumberIntoRegion,
        TransposeDims,
        ExpandValidShape,
        ExpandShape { from: vec![8, 3], to: vec![8, 64] },
        RaggedReshape { from: vec![8, 64], to: vec![4, 128] },
        TilesBroadcast { op: op(), lhs: vec![8, 3], rhs: vec![8, 4] },
        Keepdim { op: "softmax".into() },
        KeepdimOperand,
        MatmulRank { left: 3, right: 2 },
        BatchDims { left: vec![2, 16, 16], right: vec![3, 16, 16] },
        BatchRagged,
        BatchEmpty,
        BatchOperand,
        BatchSlice,
        ViewOfFilled,
        FilledUsed,
        FillOfComputed { op: "full".into() },
        WriteIntoFilled,
        ViewOfUnseen,
        UnseenTensor,
        WriteNotArgument,
        WriteReadTransposed { name: "out".into() },
        TwoShapes { name: "out".into() },
        StoreRank { tile: 1, output: 2 },
        IterationsOverlap { name: "out".into(), reader: 1, writer: 0 },
        StaleValue { name: "x".into() },
        DefinedByItself,
        ReturnType { type_name: "float".into() },
    ];
    for reason in &reasons {
        match reason {
            Op { .. } | OperandType { .. } | OperandNotTensor { .. } | NumbersOnly { .. } | NumberIndex { .. } => {}
            NoResult { .. } | UsedAsValue { .. } | InsideComputation | IndexStep | WriteStep | WriteValue { .. } => {}
            NumberIntoRegion | TransposeDims | ExpandValidShape | ExpandShape { .. } | RaggedReshape { .. } => {}
            TilesBroadcast { .. } | Keepdim { .. } | KeepdimOperand | MatmulRank { .. } | BatchDims { .. } => {}
            BatchRagged | BatchEmpty | BatchOperand | BatchSlice | ViewOfFilled | FilledUsed => {}
            FillOfComputed { .. } | WriteIntoFilled | ViewOfUnseen | UnseenTensor | WriteNotArgument => {}
            WriteReadTransposed { .. } | TwoShapes { .. } | StoreRank { .. } | IterationsOverlap { .. } => {}
            StaleValue { .. } | DefinedByItself | ReturnType { .. } => {}
        }
    }
    reasons
}

/// Every reason, inside its warning, renders in English as the engine's English and in 简体中文
/// without English; shapes print as a script writes them (`[8, 64]`).
#[test]
fn every_reason_renders_in_both_languages() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let reasons = every_reason();
    assert_eq!(reasons.len(), tilelab::messages::all_codes().iter().filter(|c| c.starts_with("npu.reason.")).count());
    for reason in reasons {
        let warning = Message::CpuFallback {
            kernel: "k".into(),
            reason: Box::new(NpuMessage::FallbackUnsupported { what: reason.clone(), line: Some(3) }.into()),
        };
        let value = serde_json::to_value(&warning).unwrap();
        assert_eq!(render(&value, &english), warning.english(), "{reason:?}");
        let text = render(&value, &chinese);
        assert!(english_sentences(&text).is_empty(), "{reason:?}: {text} has {:?}", english_sentences(&text));
        assert!(!text.contains('{') && !text.contains("Some(") && text.contains("第 3 行"), "{reason:?}: {text}");
    }
}

/// Every compiler reason of the 简体中文 table is Chinese and not the English entry.
#[test]
fn every_chinese_compiler_reason_is_chinese() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let reasons: Vec<(&String, &String)> =
        chinese.iter().filter(|(key, _)| key.starts_with("message.npu.reason.")).collect();
    assert_eq!(reasons.len(), 39, "{reasons:?}");
    assert_translated(&reasons, &english);
}

/// A custom preset that is not JSON names where the parser stopped and what it met, as codes: no
/// parser English reaches the page.
#[test]
fn text_that_is_not_json_is_located_and_typed() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let mut session = Session::new();
    let cases = [
        ("pt.npu.use('{\"name\": \"mine\",\\n \"ub_bytes\" 1}')", "expected_colon", 2, 13),
        ("pt.npu.use('{\"name\": \"mine\",}')", "trailing_comma", 1, 17),
        ("pt.npu.use('{\"name\": ')", "end", 1, 9),
        ("pt.npu.use('{name: 1}')", "key_not_string", 1, 2),
    ];
    for (call, problem, line, column) in cases {
        let result = session.run_cell(&format!("import pypto as pt\n{call}"));
        let diagnostic = result.error().unwrap_or_else(|| panic!("{call}: no error"));
        let message = serde_json::to_value(diagnostic.message_code.as_ref().expect("a code")).unwrap();
        let detail = &message["params"]["reason"]["params"]["detail"];
        assert_eq!(
            *detail,
            json!({"code": "npu.config.not_json", "params": {"problem": problem, "line": line, "column": column}}),
            "{call}: {message}"
        );
        assert_eq!(render(&message, &english), diagnostic.message, "{call}");
        let text = render(&message, &chinese);
        assert!(english_sentences(&text).is_empty() && text.contains(&format!("第 {line} 行第 {column} 列")), "{text}");
    }
}

/// A vector instruction whose written shape is not its result's (a compiler fault the program check
/// catches) prints its operands as shapes are written, a number operand counted, not `Some(…)`/`None`.
#[test]
fn a_written_shape_names_operand_shapes_as_scripts_write_them() {
    use tilelab::messages::{NpuCheckMessage, ProgramDetail};
    let (chinese, english) = (table("zh-CN"), table("en"));
    let detail = ProgramDetail::WrittenShape {
        op: "add",
        operands: vec![vec![16, 64]],
        scalars: Some(1),
        expected: vec![16, 64],
        written: vec![16, 32],
    };
    let message: Message = NpuCheckMessage::InvalidProgram { core: 0, instruction: Some(3), detail }.into();
    let value = serde_json::to_value(&message).unwrap();
    assert!(message.english().contains("`add` of [[16, 64]] and 1 number(s) gives [16, 64], not the written [16, 32]"));
    assert_eq!(render(&value, &english), message.english());
    let text = render(&value, &chinese);
    assert!(text.contains("`add` 作用于分块 [[16, 64]] 及 1 个数字 得到 [16, 64]，而不是写出的 [16, 32]"), "{text}");
    assert!(english_sentences(&text).is_empty(), "{text}");
}

/// `pypto.autodiff.policy` with a policy it does not know, or not a string, says so in codes.
#[test]
fn a_bad_backward_policy_is_coded() {
    let chinese = table("zh-CN");
    let mut session = Session::new();
    let cases = [
        (
            "pt.autodiff.policy('fast')",
            json!({"code": "library.one_of", "params": {"function": "pypto.autodiff.policy", "parameter": "policy", "choices": ["\"auto\"", "\"save\"", "\"recompute\""], "got": "'fast'"}}),
        ),
        (
            "pt.autodiff.policy(3)",
            json!({"code": "library.argument_type", "params": {"function": "pypto.autodiff.policy", "parameter": "policy", "expected": {"code": "library.kind.str"}, "got": "int"}}),
        ),
    ];
    for (call, expected) in cases {
        let result = session.run_cell(&format!("import pypto as pt\n{call}"));
        let diagnostic = result.error().unwrap_or_else(|| panic!("{call}: no error"));
        let message = diagnostic.message_code.as_ref().expect("a code");
        assert_eq!(serde_json::to_value(message).unwrap(), expected, "{call}");
        assert_eq!(diagnostic.message, message.english());
        let text = render(&serde_json::to_value(message).unwrap(), &chinese);
        assert!(english_sentences(&text).is_empty(), "{text}");
    }
}

/// `pypto.schedule` and `pypto.npu.sweep` of a kernel the compiler refuses carry the same typed
/// reason as the warning, so their errors render in 简体中文 too.
#[test]
fn a_schedule_or_sweep_of_a_refused_kernel_carries_the_typed_reason() {
    let chinese = table("zh-CN");
    let mut session = Session::new();
    assert!(session.run_cell(SETUP).is_ok());
    let kernel =
        "@pt.kernel\ndef strided(a):\n    pt.set_vec_tile_shapes(8, 64)\n    y = pt.exp(a)\n    return y[0:8:2, :]";
    assert!(session.run_cell(kernel).is_ok());
    let reason =
        json!({"code": "npu.fallback.unsupported", "params": {"what": {"code": "npu.reason.index_step"}, "line": 5}});
    for call in ["pt.schedule(strided, x)", "pt.npu.sweep(strided, (x,), vec_tiles=[[8, 64], [4, 64]])"] {
        let result = session.run_cell(call);
        let diagnostic = result.error().unwrap_or_else(|| panic!("{call}: no error"));
        let message = serde_json::to_value(diagnostic.message_code.as_ref().expect("a code")).unwrap();
        let found = if message["code"] == "npu.fallback.unsupported" { &message } else { &message["params"]["reason"] };
        assert_eq!(*found, reason, "{call}: {message}");
        assert_eq!(diagnostic.message, diagnostic.message_code.as_ref().unwrap().english(), "{call}");
        let text = render(&message, &chinese);
        assert!(english_sentences(&text).is_empty() && text.contains("带步长的索引"), "{call}: {text}");
    }
}
