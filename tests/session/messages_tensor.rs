//! The tensor and NPU tail speaks in codes: the mistakes scripts make with tensors (a matmul of
//! mismatched inner dims, a reshape of the wrong size, a view past the edge, a concat of unequal
//! dims, a bad permutation, a topk of too many …) and with the simulator (a misaligned tile, a bad
//! field of a custom preset) reach the page as a message code whose detail is itself a code with
//! its parameters; the CLI's English is the code's own English, and the 简体中文 table renders each
//! of them with no English sentence left.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use tilelab::session::Session;

use super::messages_library::{assert_translated, english_sentences, render, table};

/// One mistake: its source and the code and parameters of its message.
struct Mistake {
    source: &'static str,
    message: Value,
}

/// A tensor error's message: `{op}: {detail}` around a detail code.
fn tensor(code: &str, op: &str, detail: &str, params: Value) -> Value {
    let detail = if params.is_null() { json!({"code": detail}) } else { json!({"code": detail, "params": params}) };
    json!({"code": code, "params": {"op": op, "detail": detail}})
}

/// A shape mismatch's message: the two shapes and a detail code.
fn shapes(op: &str, lhs: Value, rhs: Value, detail: &str, params: Value) -> Value {
    let detail = if params.is_null() { json!({"code": detail}) } else { json!({"code": detail, "params": params}) };
    json!({"code": "tensor.shape_mismatch", "params": {"op": op, "lhs": lhs, "rhs": rhs, "detail": detail}})
}

fn mistakes() -> Vec<Mistake> {
    let mistake = |source, message| Mistake { source, message };
    vec![
        mistake(
            "pt.matmul(pt.ones([4, 3]), pt.ones([4, 3]))",
            json!({"code": "tensor.matmul_inner_dims", "params": {"lhs": [4, 3], "rhs": [4, 3], "left": 3, "right": 4}}),
        ),
        mistake(
            "pt.reshape(x, [7, 64])",
            shapes("reshape", json!([8, 64]), json!([7, 64]), "tensor.shape.element_count", json!({"count": 512, "target": 448})),
        ),
        mistake(
            "pt.concat([x, pt.ones([4, 3])], 0)",
            shapes("concat", json!([8, 64]), json!([4, 3]), "tensor.shape.concat_dims", json!({"dim": 0})),
        ),
        mistake(
            "pt.assemble(pt.ones([8, 64]), [4, 0], x)",
            tensor("tensor.out_of_bounds", "assemble", "tensor.bounds.assemble", json!({"count": 8, "offset": 4, "dim": 0, "size": 8})),
        ),
        mistake(
            "x.permute(0, 0)",
            tensor("tensor.bad_argument", "permute", "tensor.argument.not_a_permutation", json!({"order": [0, 0], "rank": 2})),
        ),
        mistake(
            "x.item()",
            tensor("tensor.bad_argument", "item", "tensor.argument.item", json!({"shape": [8, 64]})),
        ),
        mistake(
            "pt.topk(x, 100, -1)",
            tensor("tensor.bad_argument", "topk", "tensor.argument.topk_k", json!({"k": 100, "size": 64, "dim": 1})),
        ),
        mistake(
            "(x > 0) - (x > 1)",
            tensor("tensor.bad_argument", "sub", "tensor.argument.bool_subtract", Value::Null),
        ),
        mistake(
            "pt.gather(x, 1, pt.ones([8, 2]))",
            tensor("tensor.bad_argument", "gather", "tensor.argument.index_dtype", json!({"dtype": "DT_FP32"})),
        ),
        mistake("-(x > 0)", tensor("tensor.bad_argument", "neg", "tensor.argument.bool_negate", Value::Null)),
        mistake("x[0:8:0, 0]", tensor("tensor.bad_argument", "slice", "tensor.argument.zero_step", Value::Null)),
        mistake(
            "pt.sum(x, [1, 1])",
            tensor("tensor.bad_argument", "sum", "tensor.argument.repeated_dim", json!({"dim": 1})),
        ),
        mistake(
            "pt.gather(x, 1, pt.full([8, 2], 99, pt.DT_INT64))",
            tensor("tensor.out_of_bounds", "gather", "tensor.bounds.index", json!({"index": 99, "dim": 1, "size": 64})),
        ),
        mistake(
            "pt.view(x, [8, 64], [4, 0])",
            tensor("tensor.out_of_bounds", "view", "tensor.bounds.view", json!({"offset": 4, "count": 8, "dim": 0, "size": 8, "fits": 4})),
        ),
        // A 5-D vec tile: the simulator's UB rule (at most 4 dims) rejects the kernel's buffers.
        mistake(
            "@pt.kernel\ndef scale(a):\n    pt.set_vec_tile_shapes(1, 1, 1, 2, 64)\n    return a * 2.0\nscale(pt.ones([1, 1, 1, 2, 64]))",
            json!({"code": "npu.misaligned", "params": {"memory": "UB", "buffer": "in0_f32_1x1x1x2x64_0", "detail": {"code": "npu.alignment.too_many_dims", "params": {"dims": 5}}, "line": null}}),
        ),
        // A custom chip from a preset's fields with a field out of its range.
        mistake(
            "settings = pt.npu.config()\nsettings['ub_bytes'] = 0\npt.npu.use(settings)",
            json!({"code": "library.failed", "params": {"function": "pypto.npu.use", "reason": {"code": "npu.bad_config", "params": {"field": "ub_bytes", "detail": {"code": "npu.config.whole_number", "params": {"min": 1, "max": 1_u64 << 40, "got": "0"}}}}}}),
        ),
        mistake(
            "settings = pt.npu.config()\nsettings['architecture'] = 'Mixed'\npt.npu.use(settings)",
            json!({"code": "library.failed", "params": {"function": "pypto.npu.use", "reason": {"code": "npu.bad_config", "params": {"field": "architecture", "detail": {"code": "npu.config.architecture", "params": {"got": "\"Mixed\""}}}}}}),
        ),
    ]
}

/// Each mistake's message is its code with a typed detail, the CLI's English is the code's, and
/// the 简体中文 render has every parameter in place and no English sentence; the en table renders the
/// engine's own English.
#[test]
fn tensor_mistakes_are_codes_with_typed_details_and_render_in_chinese() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let mut session = Session::new();
    let setup = session.run_cell("import pypto as pt\nx = pt.randn([8, 64], seed=1)");
    assert!(setup.is_ok(), "{setup:?}");
    let mut failures = Vec::new();
    for Mistake { source, message: expected } in mistakes() {
        let result = session.run_cell(source);
        let Some(message) = result.diagnostics.first().and_then(|diagnostic| diagnostic.message_code.as_ref()) else {
            failures.push(format!("{source}: no coded diagnostic: {:?}", result.diagnostics));
            continue;
        };
        let value = serde_json::to_value(message).unwrap();
        if value != expected {
            failures.push(format!("{source}: {value} ≠ {expected}"));
            continue;
        }
        assert_eq!(result.diagnostics[0].message, message.english(), "{source}");
        let text = render(&value, &chinese);
        assert!(english_sentences(&text).is_empty(), "{source}: {text} has {:?}", english_sentences(&text));
        assert!(!text.contains('{'), "{source}: a parameter left unfilled in {text}");
        assert_eq!(render(&value, &english), message.english(), "{source}: the en table differs");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every entry of the tail (the tensor core's details and the simulator's checks, reachable from a
/// script or not: a malformed tile program is the compiler's fault) is Chinese in the 简体中文
/// table once its parameters are left out, and differs from the English entry.
#[test]
fn every_chinese_tensor_and_npu_check_entry_is_chinese() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let prefixes = [
        "message.tensor.",
        "message.npu.alignment.",
        "message.npu.view",
        "message.npu.config.",
        "message.npu.program.",
        "message.npu.run.",
        "message.npu.misaligned",
        "message.npu.bad_config",
        "message.npu.invalid_program",
        "message.npu.execution",
    ];
    let tail: Vec<(&String, &String)> =
        chinese.iter().filter(|(key, _)| prefixes.iter().any(|prefix| key.starts_with(prefix))).collect();
    // 38 tensor codes, 57 NPU checks (`npu.view_out_of_bounds` among them), 3 optional parts.
    assert!(tail.len() >= 98, "{} entries", tail.len());
    assert_translated(&tail, &english);
}
