//! The library tail speaks in codes: the mistakes scripts make with `pypto`, `torch`, `numpy` and
//! the functional builtins (a view past the edge, `torch` inside a kernel, a numpy misuse, an
//! unsupported comparison, a schedule of a plain function …) reach the page as message codes with
//! their parameters, the CLI's English is the code's own English, and the 简体中文 table renders
//! each of them (and its help) with no English sentence left.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use tilelab::messages::Message;
use tilelab::session::Session;

/// The `'key': value` entries of a table file, with the JavaScript string literal decoded.
pub(crate) fn table(locale: &str) -> BTreeMap<String, String> {
    // The table and the family files it spreads (messages-{locale}-library.js, -core.js, -checks.js,
    // -compiler.js).
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/i18n");
    let text: String = ["", "-library", "-core", "-checks", "-compiler"]
        .iter()
        .map(|part| std::fs::read_to_string(directory.join(format!("messages-{locale}{part}.js"))).unwrap())
        .collect();
    let mut entries = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix('\'') else { continue };
        let Some((key, literal)) = rest.split_once("': ") else { continue };
        let literal = literal.trim_end_matches(',');
        let inner = &literal[1..literal.len() - 1];
        let decoded = inner.replace("\\n", "\n").replace("\\\"", "\"").replace("\\'", "'");
        entries.insert(key.to_string(), decoded);
    }
    entries
}

/// A parameter as the page prints it (www/i18n/messages.js: nested messages rendered, lists
/// bracketed).
fn parameter(value: &Value, table: &BTreeMap<String, String>) -> String {
    match value {
        Value::Object(object) if object.contains_key("code") => render(value, table),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|item| parameter(item, table)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A message rendered from `table` by the rules of www/i18n/messages.js: word parameters phrased
/// by their own key, optional parts shown only when given, `{name}` replaced.
pub(crate) fn render(message: &Value, table: &BTreeMap<String, String>) -> String {
    let code = message["code"].as_str().unwrap();
    let empty = serde_json::Map::new();
    let params = message.get("params").and_then(Value::as_object).unwrap_or(&empty);
    if code == "text" {
        return params["text"].as_str().unwrap_or_default().to_string();
    }
    let mut text = table.get(&format!("message.{code}")).unwrap_or_else(|| panic!("no entry for {code}")).clone();
    for (name, value) in params {
        let part = format!("message.{code}.{name}");
        let phrased = value.as_str().and_then(|word| table.get(&format!("{part}.{word}")));
        let shown = phrased.cloned().unwrap_or_else(|| parameter(value, table));
        let shown = match (table.get(&part), value) {
            (Some(_), Value::Null) => String::new(),
            (Some(optional), _) => optional.replace("{value}", &shown),
            (None, _) => shown,
        };
        text = text.replace(&format!("{{{name}}}"), &shown);
    }
    text
}

/// Asserts that every `(key, text)` of the 简体中文 table, its `{parameters}` left out, is Chinese
/// (code in backticks) and differs from the English entry.
pub(crate) fn assert_translated(entries: &[(&String, &String)], english: &BTreeMap<String, String>) {
    for (key, text) in entries {
        let mut template = text.to_string();
        while let (Some(start), Some(end)) = (template.find('{'), template.find('}')) {
            if end < start {
                break;
            }
            template.replace_range(start..=end, " ");
        }
        assert!(english_sentences(&template).is_empty(), "{key}: {text}");
        assert_ne!(english.get(*key), Some(*text), "{key} is not translated");
    }
}

/// Runs of four or more English words, leaving out code in backticks and quoted names (as the
/// e2e tests read the page).
pub(crate) fn english_sentences(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut closing = None;
    for character in text.chars() {
        match (closing, character) {
            (Some(end), _) if character == end => closing = None,
            (Some(_), _) => {}
            (None, '`') => closing = Some('`'),
            (None, '“') => closing = Some('”'),
            (None, '\'') => closing = Some('\''),
            (None, _) => prose.push(character),
        }
    }
    let mut runs = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for token in prose.split(|c: char| !(c.is_ascii_alphabetic() || " ,;:()-".contains(c))) {
        // A one-letter word ends a run, as does the end of the token.
        for word in token.split(|c: char| " ,;:()-".contains(c)).filter(|word| !word.is_empty()).chain([""]) {
            if word.len() >= 2 {
                run.push(word);
                continue;
            }
            if run.len() >= 4 {
                runs.push(run.join(" "));
            }
            run.clear();
        }
    }
    runs
}

/// One mistake: its source, the code and parameters of its message (`Null`: a message of the core
/// tail, not checked here), the code of its help.
struct Mistake {
    source: &'static str,
    params: Value,
    help: Option<&'static str>,
}

fn mistakes() -> Vec<Mistake> {
    let mistake = |source, params, help| Mistake { source, params, help };
    vec![
        // A tile past the tensor's edge: the help names the valid_shape that makes it legal.
        mistake("pt.view(x, [8, 64], [4, 0])", Value::Null, Some("library.help.valid_shape")),
        mistake(
            "@pt.kernel\ndef k(a):\n    pt.set_vec_tile_shapes(8, 64)\n    return torch.exp(a)\nk(x)",
            json!({"code": "library.host_only", "params": {"name": "torch.exp"}}),
            Some("library.help.use_in_kernel"),
        ),
        mistake(
            "torch.mm(torch.ones(2, 3, 4), torch.ones(4, 5))",
            json!({"code": "library.rank_required", "params": {"function": "torch.mm", "rank": 2, "lhs": [2, 3, 4], "rhs": [4, 5]}}),
            Some("library.help.matmul_broadcasts"),
        ),
        mistake(
            "np.abs('a')",
            json!({"code": "library.argument_type", "params": {"function": "numpy.abs", "parameter": "x", "expected": {"code": "library.kind.array_or_number"}, "got": "str"}}),
            None,
        ),
        mistake(
            "np.fft(x)",
            json!({"code": "name.no_module_attribute", "params": {"module": "numpy", "name": "fft"}}),
            Some("library.help.numpy_covers"),
        ),
        mistake(
            "pt.tensor([1.0, 2.0])",
            json!({"code": "library.tensor_from_data", "params": {"given": "data"}}),
            Some("library.help.as_tensor"),
        ),
        mistake(
            "x[0, 0, 0]",
            json!({"code": "library.too_many_indices", "params": {"shape": [8, 64], "given": 3}}),
            None,
        ),
        mistake("0 < x < 1", json!({"code": "library.chained_comparison"}), Some("library.help.combine_masks")),
        mistake(
            "sorted([1, 'a'])",
            json!({"code": "library.less_than_unsupported", "params": {"function": "sorted", "left": "str", "right": "int"}}),
            None,
        ),
        mistake(
            "for i in pt.loop(0, 4, 0):\n    pass",
            json!({"code": "library.zero_step", "params": {"function": "pypto.loop"}}),
            None,
        ),
        mistake(
            "def plain(a):\n    return a\npt.schedule(plain, x)",
            json!({"code": "library.expected", "params": {"function": "pypto.schedule", "expected": {"code": "library.kind.kernel"}, "got": "function"}}),
            Some("library.help.decorate_kernel"),
        ),
        mistake(
            "torch.testing.assert_close(torch.ones(2), torch.ones(3))",
            json!({"code": "library.attribute_mismatch", "params": {"attribute": "shape", "actual": "torch.Size([2])", "expected": "torch.Size([3])"}}),
            None,
        ),
        mistake(
            "@pt.kernel\ndef bad_tile(a):\n    pt.set_vec_tile_shapes(0, 64)\n    return a * 2.0\nbad_tile(x)",
            json!({"code": "library.tile_dims", "params": {"got": "0"}}),
            None,
        ),
        mistake(
            "pt.gelu(x, approximate='fast')",
            json!({"code": "library.one_of", "params": {"function": "pypto.gelu", "parameter": "approximate", "choices": ["\"none\"", "\"tanh\""], "got": "'fast'"}}),
            Some("library.help.gelu_modes"),
        ),
        mistake(
            "pt.concat([x, 1])",
            json!({"code": "library.expected", "params": {"function": "pypto.concat", "expected": {"code": "library.kind.tensors"}, "got": "int"}}),
            None,
        ),
        // A pypto example's command line with a run mode argparse rejects.
        mistake(
            "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--run_mode', choices=['npu', 'sim'])\nparser.parse_args(['--run_mode', 'gpu'])",
            json!({"code": "library.argparse_invalid_choice", "params": {"program": "notebook", "argument": "--run_mode", "value": "'gpu'", "choices": "'npu', 'sim'"}}),
            Some("library.help.argparse_command_line"),
        ),
        mistake(
            "import sys\nsys.exit(2)",
            json!({"code": "library.system_exit", "params": {"status": "2"}}),
            Some("library.help.exit_status"),
        ),
        mistake(
            "pt.matmul(x, x, pt.DT_FP32, b_trans=True, extend_params={'trans_mode': 1})",
            json!({"code": "library.extend_param_not_modelled", "params": {"function": "pypto.matmul", "key": "trans_mode"}}),
            Some("library.help.extend_params"),
        ),
        mistake(
            "pt.matmul(x, x, b_trans=True, c_matrix_nz=True)",
            json!({"code": "library.nz_output", "params": {"function": "pypto.matmul"}}),
            Some("library.help.leave_out_nz"),
        ),
    ]
}

#[test]
fn library_mistakes_arrive_as_codes_with_their_parameters() {
    let mut session = Session::new();
    let setup = session.run_cell("import pypto as pt\nimport torch\nimport numpy as np\nx = pt.randn([8, 64], seed=1)");
    assert!(setup.is_ok(), "{setup:?}");
    for Mistake { source, params, help } in mistakes() {
        let result = session.run_cell(source);
        let diagnostic = result.diagnostics.first().unwrap_or_else(|| panic!("{source}: no diagnostic"));
        if !params.is_null() {
            let message =
                diagnostic.message_code.as_ref().unwrap_or_else(|| panic!("{source}: no code: {diagnostic:?}"));
            assert_eq!(serde_json::to_value(message).unwrap(), params, "{source}");
            assert_eq!(diagnostic.message, message.english(), "{source}");
        }
        assert_eq!(diagnostic.help_code.as_ref().map(Message::code).as_deref(), help, "{source}: {diagnostic:?}");
        if let Some(help) = &diagnostic.help_code {
            assert_eq!(diagnostic.help.as_deref(), Some(help.english().as_str()), "{source}");
        }
    }
}

/// In 简体中文 every message and help above renders from the table with no English sentence, and
/// with its parameters in place; in English the table gives the engine's own English.
#[test]
fn the_library_messages_render_in_chinese_without_english_sentences() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let mut session = Session::new();
    session.run_cell("import pypto as pt\nimport torch\nimport numpy as np\nx = pt.randn([8, 64], seed=1)");
    let mut rendered = 0;
    for Mistake { source, params, .. } in mistakes() {
        let result = session.run_cell(source);
        let diagnostic = &result.diagnostics[0];
        // A message of the core tail is the other family's to render.
        let message = if params.is_null() { &None } else { &diagnostic.message_code };
        for message in [message, &diagnostic.help_code].into_iter().flatten() {
            let value = serde_json::to_value(message).unwrap();
            let text = render(&value, &chinese);
            assert!(english_sentences(&text).is_empty(), "{source}: {text} has {:?}", english_sentences(&text));
            assert!(!text.contains('{'), "{source}: a parameter left unfilled in {text}");
            if value["code"].as_str().is_some_and(|code| code.starts_with("library.")) {
                assert_eq!(render(&value, &english), message.english(), "{source}: the en table differs");
            }
            rendered += 1;
        }
    }
    // 18 messages of the library (the view's is the core tail's) and 12 helps.
    assert_eq!(rendered, 30, "{rendered} messages rendered");
}

/// A command line argparse rejects is coded whole: its message, the usage line as its note, and its
/// help; in 简体中文 the note reads 用法 with the usage line itself left as argparse prints it.
#[test]
fn a_rejected_command_line_has_a_coded_usage_note() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let mut session = Session::new();
    let source =
        "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--size', type=int, required=True)\n\
                  parser.add_argument('--run_mode', choices=['npu', 'sim'])\nparser.parse_args(['--run_mode', 'sim'])";
    let result = session.run_cell(source);
    let diagnostic = result.diagnostics.first().expect("a diagnostic");
    let message = serde_json::to_value(diagnostic.message_code.as_ref().expect("a message code")).unwrap();
    assert_eq!(
        message,
        json!({"code": "library.argparse_required", "params": {"program": "notebook", "arguments": "--size"}})
    );
    assert_eq!(render(&message, &chinese), "notebook：错误：缺少以下必需参数：--size");
    let note = serde_json::to_value(diagnostic.note_code.as_ref().expect("a note code")).unwrap();
    let line = "notebook [-h] --size SIZE [--run_mode {npu,sim}]";
    assert_eq!(note, json!({"code": "library.argparse_usage", "params": {"line": line}}));
    assert_eq!(diagnostic.note.as_deref(), Some(format!("usage: {line}").as_str()));
    assert_eq!(render(&note, &english), format!("usage: {line}"));
    assert_eq!(render(&note, &chinese), format!("用法：{line}"));
}

/// Every library sentence of the 简体中文 table, its parameters left out, is Chinese (code in
/// backticks), and no entry is the English one.
#[test]
fn every_chinese_library_entry_is_chinese() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let library: Vec<(&String, &String)> =
        chinese.iter().filter(|(key, _)| key.starts_with("message.library.")).collect();
    assert!(library.len() >= 182, "{} library entries", library.len());
    assert_translated(&library, &english);
}

/// The check itself: an English sentence is found, code and quoted names are not.
#[test]
fn english_sentences_are_found_and_code_is_not() {
    let found = english_sentences("pass valid_shape: the tile keeps its shape, a b c d");
    assert_eq!(found, vec!["shape the tile keeps its shape".to_string()]);
    assert!(english_sentences("请用 `pypto.view(x, shape, offsets)` 取分块").is_empty());
    assert!(english_sentences("“torch.exp” 在主机端运行").is_empty());
}
