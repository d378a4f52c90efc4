//! The serialised shape of messages and the list of codes.

use super::*;

/// Serialised as `{code, params}`; a variant without parameters has no `params`.
#[test]
fn serialises_as_code_and_parameters() {
    let note = Message::BusiestPipe { pipe: "MTE2".into(), percent: 96 };
    assert_eq!(
        serde_json::to_string(&note).unwrap(),
        r#"{"code":"schedule.busiest_pipe","params":{"pipe":"MTE2","percent":96}}"#
    );
    assert_eq!(serde_json::to_string(&Message::PipesWait).unwrap(), r#"{"code":"schedule.pipes_wait"}"#);
    assert_eq!(note.code(), "schedule.busiest_pipe");
}

/// The codes come from the declaration: one per variant, each once.
#[test]
fn every_code_is_listed_once() {
    let codes = all_codes();
    assert!(codes.contains(&"progress.kernel".to_string()) && codes.contains(&"text".to_string()), "{codes:?}");
    // One per `rename` in src/messages: 32 common, 49 syntax (with bracket items), 37 runtime
    // (with a mismatch line, format specs and a zero slice step), 15 autograd, 30 NPU, 12 words,
    // 235 library (with 5 of the paged-cache gathers, 19 kinds of value, 27 of the host modules, 18 of torch.library, 5 of torch_npu's
    // quantisation ops and 2 of named symbolic scalars); 59 grammar (with name slots,
    // places and assignees), 21 literals, 34 unsupported (with the constructs), 52 operations
    // (types, conversions, limits), 28 statements; the interpreter tail: 43 classes, 31 features
    // of unmodelled options, 16 custom op and autograd argument errors (with their details); 38
    // tensor (3 errors, 11 shape, 21 argument and 4 bounds details) and 57 NPU checks (6 errors, 4
    // alignment rules, 7 view subjects, 16 configuration, 22 program and 4 run details); 39 reasons
    // the compiler cannot run a kernel on the NPU yet (with a definition that reads itself), 15 of its lowering (with 10 faults of a
    // unit's step) and 21 constructs a backward cannot be generated for.
    let core_tail = 59 + 21 + 34 + 52 + 28;
    let interpreter_tail = 43 + 31 + 16;
    let tensor_and_npu_tail = 39 + 59 + 39 + 15 + 10 + 21;
    let tails = core_tail + interpreter_tail + tensor_and_npu_tail;
    assert_eq!(codes.len(), 32 + 49 + 37 + 15 + 30 + 12 + 235 + tails, "{codes:?}");
    let unique: std::collections::HashSet<_> = codes.iter().collect();
    assert_eq!(unique.len(), codes.len());
}
