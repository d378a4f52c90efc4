//! The compiler's last English: why the lowering refused tile work (`npu.lowering.*`, with a
//! unit's step faults `npu.step.*`) and why a kernel's backward cannot be generated as tile ops
//! (`npu.derive.*`) reach the page as typed reasons inside their warnings. Scripts reach the
//! refusals a script can cause; every reason (the matches have no wildcard: a new reason must be
//! added here) renders in English as the engine's English and in 简体中文 without English.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use tilelab::messages::{DerivationReason, LoweringReason, Message, NpuMessage, StepFault};
use tilelab::session::Session;

use super::messages_library::{assert_translated, english_sentences, render, table};

/// The message of the first diagnostic with `code` of `source`'s cell, as JSON.
fn warning(session: &mut Session, source: &str, code: &str) -> Value {
    let result = session.run_cell(source);
    assert!(result.is_ok(), "{source}: {:?}", result.error());
    let found = result.diagnostics.iter().find(|diagnostic| diagnostic.code == code);
    let found = found.unwrap_or_else(|| panic!("{source}: no {code} in {:?}", result.diagnostics));
    let message = found.message_code.as_ref().unwrap_or_else(|| panic!("{source}: no code"));
    assert_eq!(found.message, message.english(), "{source}");
    serde_json::to_value(message).unwrap()
}

/// Asserts `value` renders in 简体中文 with no English sentence and in English as `english`.
fn assert_renders(value: &Value, english: &str, context: &str) {
    let text = render(value, &table("zh-CN"));
    assert!(english_sentences(&text).is_empty(), "{context}: {text} has {:?}", english_sentences(&text));
    assert!(!text.contains('{') && !text.contains("Some("), "{context}: {text}");
    assert_eq!(render(value, &table("en")), english, "{context}: the en table differs");
}

/// A kernel whose tiles the lowering refuses: the cell, then the reason and its line. (The other
/// lowering reasons are faults of the compiler a script cannot reach: the recorder builds no such
/// work, and `set_cube_tile_shapes` checks its multiples itself, as `runtime/tile-shape`.)
#[test]
fn a_reduction_split_across_vec_tiles_arrives_as_a_typed_reason() {
    let mut session = Session::new();
    let setup = "import pypto as pt\nx = pt.randn([64, 64], seed=1)\nw = pt.randn([64, 64], seed=2)";
    assert!(session.run_cell(setup).is_ok());
    let cases = [
        (
            "@pt.kernel\ndef rows(a):\n    pt.set_vec_tile_shapes(64, 32)\n    return a - pt.var(a, dim=-1, keepdim=True)\nr = rows(x)",
            json!({"op": "expand_work", "reason": {"code": "npu.lowering.reduce_across_tiles", "params": {"op": "var"}}, "line": 4}),
        ),
    ];
    for (source, params) in cases {
        let message = warning(&mut session, source, "npu/cpu-fallback");
        let reason = &message["params"]["reason"];
        assert_eq!(*reason, json!({"code": "npu.fallback.lowering", "params": params}), "{source}: {message}");
        let english = render(&message, &table("en"));
        assert_renders(&message, &english, source);
        assert!(render(&message, &table("zh-CN")).contains("暂不能在 NPU 上运行"), "{source}");
    }
}

/// One of every lowering reason and step fault (no wildcard: a new one must be added here).
fn every_lowering_reason() -> Vec<LoweringReason> {
    use LoweringReason::*;
    let faults = vec![
        StepFault::MissingValue { value: 4, count: 3 },
        StepFault::ReadBeforeProduced { value: 2 },
        StepFault::ProducedTwice { value: 2 },
        StepFault::MissingTensor { tensor: 5 },
        StepFault::RegionRank { name: "x".into(), rank: 1, tile: vec![16, 16], tile_rank: 2 },
        StepFault::RegionLarger { name: "x".into(), region: vec![32, 16], tile: vec![16, 16] },
        StepFault::MatmulOperandRank { shape: vec![2, 16, 16] },
        StepFault::MatmulOfMatmul { value: 1 },
        StepFault::NumbersOnly,
        StepFault::ReduceDim { dim: 3, rank: 2 },
    ];
    for fault in &faults {
        match fault {
            StepFault::MissingValue { .. } | StepFault::ReadBeforeProduced { .. } | StepFault::ProducedTwice { .. } => {
            }
            StepFault::MissingTensor { .. } | StepFault::RegionRank { .. } | StepFault::RegionLarger { .. } => {}
            StepFault::MatmulOperandRank { .. } | StepFault::MatmulOfMatmul { .. } | StepFault::NumbersOnly => {}
            StepFault::ReduceDim { .. } => {}
        }
    }
    let memory = |name: &str| name.to_string();
    let mut reasons = vec![
        CubeTileMultiple { dim: "k".into(), level1: 48, level0: 32 },
        ReduceAcrossTiles { op: "sum".into() },
        EmptyMatmul { m: 0, k: 16, n: 16 },
        NoWorkspace { value: 3 },
        WorkspaceOutside,
        UnknownBuffer { buffer: 9 },
        OperandMemory { found: memory("L1"), allowed: vec![memory("UB")] },
        NoCopyOut { memory: memory("L1") },
        NoMove { from: memory("UB"), to: memory("L0A") },
        NoTransposedMove { from: memory("UB"), to: memory("L0B") },
        ReadBeforePhase { value: 2 },
        RecomputedValue,
        EmptyLoad,
        Unsplittable,
    ];
    for reason in &reasons {
        match reason {
            CubeTileMultiple { .. } | ReduceAcrossTiles { .. } | EmptyMatmul { .. } | NoWorkspace { .. } => {}
            WorkspaceOutside | UnknownBuffer { .. } | OperandMemory { .. } | NoCopyOut { .. } | NoMove { .. } => {}
            NoTransposedMove { .. } | Step { .. } | ReadBeforePhase { .. } | RecomputedValue | EmptyLoad => {}
            Unsplittable => {}
        }
    }
    reasons.extend(faults.into_iter().map(|fault| Step { unit: 1, step: 4, fault }));
    reasons
}

/// Every lowering reason, inside its CPU-fallback warning, renders in both languages.
#[test]
fn every_lowering_reason_renders_in_both_languages() {
    let reasons = every_lowering_reason();
    let codes = tilelab::messages::all_codes();
    let count = |prefix: &str| codes.iter().filter(|code| code.starts_with(prefix)).count();
    // Each step fault once inside `Step`; `Step` itself is counted among the reasons it wraps.
    assert_eq!(reasons.len(), count("npu.lowering.") - 1 + count("npu.step."));
    for reason in reasons {
        let message = Message::CpuFallback {
            kernel: "k".into(),
            reason: Box::new(
                NpuMessage::FallbackLowering { op: "matmul".into(), reason: reason.clone(), line: Some(3) }.into(),
            ),
        };
        let value = serde_json::to_value(&message).unwrap();
        assert_renders(&value, &message.english(), &format!("{reason:?}"));
        assert!(render(&value, &table("zh-CN")).contains("第 3 行"), "{reason:?}");
    }
}

/// Every 简体中文 entry of the lowering, its step faults and the derivation is Chinese.
#[test]
fn every_chinese_lowering_and_derivation_entry_is_chinese() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let prefixes = ["message.npu.lowering.", "message.npu.step.", "message.npu.derive."];
    let entries: Vec<(&String, &String)> =
        chinese.iter().filter(|(key, _)| prefixes.iter().any(|prefix| key.starts_with(prefix))).collect();
    assert_eq!(entries.len(), 15 + 10 + 21, "{entries:?}");
    assert_translated(&entries, &english);
}

/// A construct a script can write that has no generated backward: the cell, the warning's code,
/// the reason and its line.
struct Underivable {
    source: &'static str,
    code: &'static str,
    reason: Value,
    line: Option<u32>,
}

fn underivable() -> Vec<Underivable> {
    let case = |source, code, reason, line| Underivable { source, code, reason, line };
    let none = "npu/no-generated-backward";
    vec![
        case(
            "@pt.kernel\ndef leaky(a):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.where(a > 0.0, a, a * 0.5) * 2.0\nleaky(x).sum().backward()",
            none,
            json!({"code": "npu.derive.no_adjoint", "params": {"op": "select"}}),
            Some(4),
        ),
        case(
            "@pt.kernel\ndef add2(a, b):\n    pt.set_vec_tile_shapes(8, 64)\n    return a + b\nadd2(x, x).sum().backward()",
            none,
            json!({"code": "npu.derive.same_tensor"}),
            None,
        ),
        case(
            "@pt.kernel\ndef rowsum(a):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.exp(pt.sum(a, dim=-1))\nrowsum(x).sum().backward()",
            none,
            json!({"code": "npu.derive.keepdim"}),
            Some(4),
        ),
        case(
            "@pt.kernel\ndef bias(a, b):\n    pt.set_vec_tile_shapes(8, 64)\n    return a + b\nbias(x, row).sum().backward()",
            none,
            json!({"code": "npu.derive.rank_broadcast", "params": {"gradient": [8, 64], "input": [64]}}),
            None,
        ),
        case(
            "@pt.frontend.jit\ndef twice(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    pt.assemble(a * 3.0, [0, 0], out)\n    pt.assemble(pt.view(out, [8, 64], [0, 0]) * a, [0, 0], out)\nout = pt.zeros([8, 64])\ntwice(x, out)",
            none,
            json!({"code": "npu.derive.read_of_written"}),
            Some(5),
        ),
        case(
            "@pt.frontend.jit\ndef bump(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.exp(pt.view(a, [8, 64], [0, 0]))\n    t += 1.0\n    out[:] = t\nout = pt.zeros([8, 64])\nbump(x, out)",
            none,
            json!({"code": "npu.derive.in_place"}),
            Some(5),
        ),
        case(
            "@pt.frontend.jit\ndef store2(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    out[0:8, :] = pt.exp(pt.view(a, [8, 64], [0, 0]))\n    out[0:8, :] = pt.view(a, [8, 64], [0, 0]) * 2.0\nout = pt.zeros([8, 64])\nstore2(x, out)",
            none,
            json!({"code": "npu.derive.overlapping_stores"}),
            Some(4),
        ),
        case(
            "@pt.frontend.jit\ndef half(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.exp(pt.view(a, [8, 64], [0, 0]))\n    out[0:8, 0:32] = pt.view(t, [8, 32], [0, 0])\nout = pt.zeros([8, 32])\nhalf(x, out)",
            none,
            json!({"code": "npu.derive.view_of_computed"}),
            Some(5),
        ),
        case(
            "@pt.frontend.jit\ndef made(a, out):\n    pt.set_vec_tile_shapes(8, 64)\n    t = pt.zeros([8, 64])\n    t[0:8, :] = pt.view(a, [8, 64], [0, 0]) * 2.0\n    out[:] = t\nout = pt.zeros([8, 64])\nmade(x, out)",
            none,
            json!({"code": "npu.derive.store_into_made"}),
            Some(5),
        ),
        case(
            "@pt.frontend.jit\ndef first(a, out):\n    pt.set_vec_tile_shapes(1, 64)\n    r = a[0]\n    out[0:1, :] = pt.reshape(r * 2.0, [1, 64])\nout = pt.zeros([1, 64])\nfirst(x, out)",
            none,
            json!({"code": "npu.derive.index_drops_dim"}),
            Some(4),
        ),
    ]
}

const GRAD_SETUP: &str = "import pypto as pt\nx = pt.as_tensor(pt.randn([8, 64], seed=1).tolist(), requires_grad=True)\nrow = pt.as_tensor(pt.randn([64], seed=2).tolist(), requires_grad=True)";

/// Each construct's warning carries its typed reason and line inside `npu.no_generated_backward`
/// and renders in 简体中文 without English.
#[test]
fn each_underivable_construct_arrives_as_a_typed_reason() {
    let mut failures = Vec::new();
    for Underivable { source, code, reason, line } in underivable() {
        let mut session = Session::new();
        assert!(session.run_cell(GRAD_SETUP).is_ok());
        let result = session.run_cell(source);
        let found = result.diagnostics.iter().find(|diagnostic| diagnostic.code == code);
        let Some(message) = found.and_then(|found| found.message_code.as_ref()) else {
            failures.push(format!("{source}: no {code} in {:?}", result.diagnostics));
            continue;
        };
        let value = serde_json::to_value(message).unwrap();
        let expected = json!({"code": "npu.not_derivable", "params": {"what": reason, "line": line}});
        if value["params"]["reason"] != expected {
            failures.push(format!("{source}: {value}"));
            continue;
        }
        assert_renders(&value, &message.english(), source);
        assert!(render(&value, &table("zh-CN")).contains("无法生成反向内核"), "{source}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// One of every derivation reason (no wildcard: a new one must be added here).
fn every_derivation_reason() -> Vec<DerivationReason> {
    use tilelab::messages::ArgumentDetail::EmptyReduction;
    use tilelab::messages::TensorMessage;
    use DerivationReason::*;
    let shape = || vec![8, 64];
    let reasons = vec![
        NoAdjoint { op: "select".into() },
        SameTensor,
        WritesGradArgument { index: 1 },
        StoreIntoMade,
        RegionRank,
        InPlace,
        IndexDropsDim,
        ReadOfWritten,
        OverlappingStores,
        ViewOfComputed,
        NumberGradient,
        RankBroadcast { gradient: shape(), input: vec![64] },
        Shapes { op: "add".into(), lhs: shape(), rhs: vec![8, 3] },
        MatmulRank { left: 3, right: 2 },
        Keepdim,
        MaskShapes { lhs: shape(), rhs: vec![8, 3] },
        MaskOverGradient { mask: shape(), gradient: vec![8, 3] },
        MissingOperand,
        NoResult,
        ClipLost,
        Arithmetic { error: Box::new(TensorMessage::BadArgument { op: "amax".into(), detail: EmptyReduction }.into()) },
    ];
    for reason in &reasons {
        match reason {
            NoAdjoint { .. } | SameTensor | WritesGradArgument { .. } | StoreIntoMade | RegionRank | InPlace => {}
            IndexDropsDim | ReadOfWritten | OverlappingStores | ViewOfComputed | NumberGradient => {}
            RankBroadcast { .. } | Shapes { .. } | MatmulRank { .. } | Keepdim | MaskShapes { .. } => {}
            MaskOverGradient { .. } | MissingOperand | NoResult | ClipLost | Arithmetic { .. } => {}
        }
    }
    reasons
}

/// Every derivation reason, in both warnings that carry it, renders in both languages.
#[test]
fn every_derivation_reason_renders_in_both_languages() {
    let reasons = every_derivation_reason();
    let codes = tilelab::messages::all_codes();
    assert_eq!(reasons.len(), codes.iter().filter(|code| code.starts_with("npu.derive.")).count());
    for reason in reasons {
        let not_derivable =
            || Box::new(Message::from(NpuMessage::NotDerivable { what: reason.clone(), line: Some(7) }));
        let warnings = [
            NpuMessage::NoGeneratedBackward { kernel: "k".into(), reason: not_derivable() },
            NpuMessage::GeneratedBackwardOnCpu { name: "k.backward".into(), reason: not_derivable() },
        ];
        for warning in warnings {
            let message = Message::from(warning);
            let value = serde_json::to_value(&message).unwrap();
            assert_renders(&value, &message.english(), &format!("{reason:?}"));
            assert!(render(&value, &table("zh-CN")).contains("第 7 行"), "{reason:?}");
        }
    }
}
