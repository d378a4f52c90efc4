//! The page's i18n tables cover every message the engine sends: each `Message` code (listed from
//! the generated declaration, so a new variant is checked without being named here), the words its
//! parameters are rendered with, the heading of every diagnostic code found in the sources, and
//! the title of every example, in English and in 简体中文 — and the Chinese is not the English.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::Path;

use tilelab::messages::{all_codes, KernelStage};

use super::messages_library::table;

/// Every diagnostic code written in the crate's sources (`"runtime/name-error"` …), except the
/// parser tests' own `syntax/test`.
fn diagnostic_codes() -> Vec<String> {
    fn walk(dir: &Path, codes: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, codes);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for prefix in ["\"runtime/", "\"syntax/", "\"npu/", "\"lang/"] {
                    for (start, _) in text.match_indices(prefix) {
                        let body = &text[start + 1..];
                        let end = body.find('"').unwrap_or(0);
                        let code = &body[..end];
                        let tail = &code[code.find('/').unwrap() + 1..];
                        if !tail.is_empty() && tail.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                            codes.push(code.to_string());
                        }
                    }
                }
            }
        }
    }
    let mut codes = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut codes);
    codes.sort();
    codes.dedup();
    codes.retain(|code| code != "syntax/test");
    codes
}

/// The keys the page needs: one per message code (the `text` message is shown as it is), the
/// words of its word parameters, one heading per diagnostic code, one title per example.
fn required_keys() -> Vec<String> {
    let mut keys: Vec<String> =
        all_codes().into_iter().filter(|code| code != "text").map(|code| format!("message.{code}")).collect();
    for stage in KernelStage::ALL {
        let name = serde_json::to_value(stage).unwrap();
        keys.push(format!("message.progress.stage.{}", name.as_str().unwrap()));
    }
    let words =
        ["gradcheck.sides.registered", "gradcheck.sides.recorded", "npu.capacity.fits", "npu.capacity.none", "or"];
    for word in words {
        keys.push(format!("message.{word}"));
    }
    keys.extend(diagnostic_codes().into_iter().map(|code| format!("diagnostic.kind.{code}")));
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for entry in std::fs::read_dir(examples).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".py") {
            keys.push(format!("gallery.title.{stem}"));
        }
    }
    keys
}

#[test]
fn both_tables_have_every_message_diagnostic_kind_and_example_title() {
    let keys = required_keys();
    assert!(keys.len() > 24 + 3 + 40 + 13, "{} keys", keys.len());
    for locale in ["en", "zh-CN"] {
        let entries = table(locale);
        let missing: Vec<&String> = keys.iter().filter(|key| !entries.contains_key(*key)).collect();
        assert!(missing.is_empty(), "messages-{locale}.js lacks {missing:?}");
    }
}

/// A Chinese entry that equals the English one was not translated.
#[test]
fn the_chinese_entries_are_translated() {
    let english = table("en");
    let chinese = table("zh-CN");
    let untranslated: Vec<&String> =
        chinese.iter().filter(|(key, value)| english.get(*key) == Some(value)).map(|(key, _)| key).collect();
    assert!(untranslated.is_empty(), "{untranslated:?}");
}

/// The code lists are what they should be: the known codes are found, no stray prefix-only one.
#[test]
fn the_code_lists_hold_the_known_codes() {
    let codes = diagnostic_codes();
    for known in ["runtime/name-error", "runtime/type-error", "npu/cpu-fallback", "syntax/unclosed-bracket"] {
        assert!(codes.contains(&known.to_string()), "{known} not in {codes:?}");
    }
    assert!(all_codes().contains(&"name.did_you_mean".to_string()));
}

/// The mistakes a beginner makes most (and the warnings a kernel gets) reach the page as message
/// codes with typed parameters, not English sentences: a syntax error, an index out of range, a
/// wrong argument count and type, a failed assert, an autograd error, a dim out of range, an
/// unknown NPU preset, a CPU fallback with its reason, an unknown pass option. The English the CLI
/// prints is the code's own English.
#[test]
fn everyday_errors_and_warnings_are_message_codes() {
    use tilelab::messages::{Message, NpuMessage};
    use tilelab::session::Session;
    let mut session = Session::new();
    let setup = session.run_cell("import pypto as pt\nx = pt.randn([8, 64], seed=1)\ndef f(a, b):\n    return a");
    assert!(setup.is_ok(), "{setup:?}");
    let cases = [
        ("for i in range(3)\n    pass", "syntax.expected_colon", "expected ':' after the for header"),
        ("print((1, 2)", "syntax.unclosed_bracket", "unclosed '(' opened here"),
        ("f(a=1, 2)", "syntax.positional_after_keyword", "a positional argument cannot follow keyword arguments"),
        ("class C:\n    pass\nC()()", "call.not_callable", "'C' object is not callable"),
        ("[1, 2, 3][5]", "index.out_of_range", "index 5 is out of range for length 3"),
        ("f(1, 2, 3)", "call.too_many_positional", "f() takes 2 positional arguments but 3 were given"),
        ("pt.randn([2, 2], seed='a')", "call.argument_type", "pypto.randn(): 'seed' must be an int, not str"),
        ("assert 1 == 2, 'sizes differ'", "assert.failed_with", "assertion failed: sizes differ"),
        (
            "pt.ones([2]).sum().backward()",
            "autograd.backward_without_grad_unnamed",
            "backward: this tensor does not require grad: no tensor it was computed from has requires_grad=True",
        ),
        ("x.sum(dim=5)", "tensor.dim_out_of_range", "sum: dim 5 is out of range for a 2-d tensor (expected -2..=1)"),
        ("pt.npu.use('Ascend999')", "npu.unknown_preset", "pypto.npu.use: unknown NPU preset 'Ascend999'"),
    ];
    for (source, code, english) in cases {
        let result = session.run_cell(source);
        let diagnostic = result.diagnostics.first().unwrap_or_else(|| panic!("{source}: no diagnostic"));
        let message = diagnostic.message_code.as_ref().unwrap_or_else(|| panic!("{source}: no code: {diagnostic:?}"));
        assert_eq!(message.code(), code, "{source}");
        assert!(diagnostic.message.starts_with(english), "{source}: {}", diagnostic.message);
        assert_eq!(diagnostic.message, message.english(), "{source}");
    }
    let fallback = session.run_cell(
        "@pt.kernel\ndef running(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.scatter_(x * 1.0, 1, pt.zeros([8, 64], dtype=pt.DT_INT64), x)\ny = running(x)",
    );
    let warning = &fallback.diagnostics[0];
    let Some(Message::CpuFallback { kernel, reason }) = &warning.message_code else { panic!("{warning:?}") };
    assert_eq!(kernel, "running");
    assert_eq!(**reason, Message::Npu(NpuMessage::FallbackOp { op: "scatter_".into(), line: Some(4) }));
    let option = session.run_cell("@pt.frontend.jit(pass_options={'vec_buffer_depth': 2})\ndef k(a, out):\n    pass");
    let warning = &option.diagnostics[0];
    assert_eq!(warning.code, "lang/unknown-option");
    let expected = NpuMessage::UnknownOption { table: "pass_options".into(), key: "vec_buffer_depth".into() };
    assert_eq!(warning.message_code, Some(expected.into()));
    assert_eq!(warning.help_code.as_ref().map(Message::code).as_deref(), Some("lang.documented_options"));
}

/// A syntax error's note (where a bracket opened) is a code too, and so is its help.
#[test]
fn a_mismatched_bracket_has_coded_message_help_and_note() {
    let diagnostics = tilelab::session::check_syntax("y = (1, 2]", 1);
    let diagnostic = &diagnostics[0];
    let code = |message: &Option<tilelab::messages::Message>| message.as_ref().map(|message| message.code());
    assert_eq!(code(&diagnostic.message_code).as_deref(), Some("syntax.mismatched_bracket"));
    assert_eq!(code(&diagnostic.note_code).as_deref(), Some("syntax.opened_here"));
    assert_eq!(diagnostic.note.as_deref(), Some("'(' opened here"));
}

/// A message rendered from the 简体中文 table as the page does: nested messages first, an optional
/// part (`message.<code>.<param>`) only when given, a word parameter phrased by its sentence.
fn render_chinese(message: &serde_json::Value, table: &BTreeMap<String, String>) -> String {
    let code = message["code"].as_str().unwrap();
    let unquote = |text: &str| text.trim_matches('\'').replace("\\'", "'").replace("\\\\", "\\");
    let template = table.get(&format!("message.{code}")).map(|text| unquote(text)).unwrap_or_else(|| panic!("{code}"));
    let mut text = template;
    if let Some(params) = message.get("params").and_then(|params| params.as_object()) {
        for (name, value) in params {
            let part = format!("message.{code}.{name}");
            let rendered = match value {
                serde_json::Value::Object(_) => render_chinese(value, table),
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(word) => match table.get(&format!("{part}.{word}")) {
                    Some(phrase) => unquote(phrase),
                    None => word.clone(),
                },
                other => other.to_string(),
            };
            let rendered = match (table.get(&part), value.is_null()) {
                (Some(fragment), false) => unquote(fragment).replace("{value}", &rendered),
                (Some(_), true) => String::new(),
                (None, _) => rendered,
            };
            text = text.replace(&format!("{{{name}}}"), &rendered);
        }
    }
    text
}

/// Runs of three or more English words outside backticks and quotes: an untranslated sentence.
fn english_runs(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut inside = None;
    for character in text.chars() {
        match (inside, character) {
            (None, '`') => inside = Some('`'),
            (None, '“') => inside = Some('”'),
            (Some(close), c) if c == close => inside = None,
            (None, c) => plain.push(c),
            _ => {}
        }
    }
    let mut runs = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for word in plain.split(|c: char| !(c.is_ascii_alphabetic() || c == ' ' || c == '\'')).flat_map(|piece| {
        let words: Vec<&str> = piece.split(' ').filter(|word| word.len() > 1).collect();
        // A piece of three or more words is one run; the split keeps pieces apart.
        std::iter::once(words)
    }) {
        run.extend(word);
        if run.len() >= 3 {
            runs.push(run.join(" "));
        }
        run.clear();
    }
    runs
}

/// Mistakes of the core tail — the parser's unsupported constructs and missing tokens, literals,
/// the interpreter's types, limits and statements — arrive as codes with their parameters, the CLI's
/// English is the code's English, and their 简体中文 render (message and help) has no English sentence.
#[test]
fn core_tail_mistakes_are_codes_and_render_in_chinese() {
    use tilelab::session::Session;
    let chinese = table("zh-CN");
    assert_eq!(english_runs("分块脚本不支持 `global x`：the run took longer"), ["the run took longer"]);
    let mut session = Session::new();
    let cases: [(&str, &str, serde_json::Value); 16] = [
        ("d = {**a}", "unsupported.construct", serde_json::json!({"construct": {"code": "construct.dict_unpacking"}})),
        (
            "from pypto import *",
            "unsupported.construct",
            serde_json::json!({"construct": {"code": "construct.star_import"}}),
        ),
        (
            "def f():\n    yield 1",
            "unsupported.construct",
            serde_json::json!({"construct": {"code": "construct.yield"}}),
        ),
        (
            "for i in range(3):\n    pass\nelse:\n    pass",
            "unsupported.construct",
            serde_json::json!({"construct": {"code": "construct.loop_else"}}),
        ),
        ("def f(a=1, b):\n    return a", "syntax.default_order", serde_json::json!({"name": "b"})),
        (
            "import pypto as\n",
            "syntax.expected_name",
            serde_json::json!({"slot": {"code": "slot.after_as"}, "found": {"code": "token.end_of_line"}}),
        ),
        ("f() = 3", "syntax.cannot_assign", serde_json::json!({"what": {"code": "assignee.call"}})),
        ("y = 012", "syntax.leading_zeros", serde_json::json!({"text": "012"})),
        ("y = f'{x!q}'", "syntax.f_string_conversion", serde_json::json!(null)),
        ("-'a'", "type.bad_unary", serde_json::json!({"operator": "-", "type_name": "str"})),
        ("for v in 3:\n    pass", "type.not_iterable", serde_json::json!({"type_name": "int"})),
        ("2 ** 62 * 4", "overflow.integer", serde_json::json!(null)),
        ("a, b = [1, 2, 3]", "value.cannot_unpack", serde_json::json!({"values": 3, "targets": 2})),
        ("import sqlite3", "import.unavailable", serde_json::json!({"module": "sqlite3"})),
        ("with 3:\n    pass", "with.not_a_context_manager", serde_json::json!({"type_name": "int"})),
        (
            "raise ValueError('bad size')",
            "raise.exception",
            serde_json::json!({"name": "ValueError", "text": "bad size"}),
        ),
    ];
    for (source, code, params) in cases {
        let result = session.run_cell(source);
        let diagnostic = result.diagnostics.first().unwrap_or_else(|| panic!("{source}: no diagnostic"));
        let message = diagnostic.message_code.as_ref().unwrap_or_else(|| panic!("{source}: no code: {diagnostic:?}"));
        let json = serde_json::to_value(message).unwrap();
        assert_eq!(message.code(), code, "{source}: {json}");
        if !params.is_null() {
            assert_eq!(json["params"], params, "{source}");
        }
        assert_eq!(diagnostic.message, message.english(), "{source}");
        let mut rendered = vec![render_chinese(&json, &chinese)];
        if let Some(help) = &diagnostic.help_code {
            rendered.push(render_chinese(&serde_json::to_value(help).unwrap(), &chinese));
        }
        for text in rendered {
            assert!(english_runs(&text).is_empty(), "{source}: {text}: {:?}", english_runs(&text));
            assert!(text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{source}: {text}");
        }
    }
}
