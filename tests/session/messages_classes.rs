//! The interpreter tail speaks in codes: the mistakes scripts make with classes (a dataclass's
//! mutable default, a frozen field assigned, `super()` outside a method, `isinstance` against a
//! `typing` name …), f-string format specs, a zero slice step, an option the simulator does not
//! model and an autograd function's refused argument reach the page as message codes with their
//! parameters; the CLI's English is the code's own English, and the 简体中文 table renders each of
//! them (and its help) with no English sentence left.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use tilelab::messages::Message;
use tilelab::session::Session;

use super::messages_library::{assert_translated, english_sentences, render, table};

/// The classes the mistakes use, defined as a config module of a pypto example would.
const SETUP: &str = "import pypto as pt
from dataclasses import dataclass, field
from typing import NamedTuple, List

@dataclass
class Tiling:
    rows: int
    cols: int = 64

@dataclass(frozen=True)
class Shape:
    rows: int

class Tile(NamedTuple):
    m: int
    n: int

class Plain:
    pass

class Label:
    def __str__(self):
        return 3

tiling = Tiling(8)
shape = Shape(8)
tile = Tile(8, 64)
x = pt.randn([8, 64], seed=1)";

/// One mistake: its source, the code and parameters of its message, the code of its help.
struct Mistake {
    source: &'static str,
    message: Value,
    help: Option<&'static str>,
}

fn mistakes() -> Vec<Mistake> {
    let mistake = |source, message, help| Mistake { source, message, help };
    vec![
        mistake(
            "@dataclass\nclass Config:\n    shape: list = []",
            json!({"code": "class.mutable_default", "params": {"kind": "list", "field": "shape", "class_name": "Config"}}),
            Some("class.default_factory"),
        ),
        mistake(
            "@dataclass\nclass Blocks:\n    m: int = 128\n    n: int",
            json!({"code": "class.default_order", "params": {"class_name": "Blocks", "field": "n", "previous": "m"}}),
            Some("class.defaults_last"),
        ),
        // A misspelt field: the help names the fields and the closest one.
        mistake(
            "Tiling(8, colz=32)",
            json!({"code": "call.unexpected_keyword", "params": {"function": "Tiling", "keyword": "colz"}}),
            Some("class.fields"),
        ),
        mistake(
            "shape.rows = 16",
            json!({"code": "class.frozen_field", "params": {"name": "rows", "class_name": "Shape"}}),
            Some("class.use_dataclasses_replace"),
        ),
        mistake(
            "tile.m = 16",
            json!({"code": "class.named_tuple_immutable", "params": {"name": "m", "class_name": "Tile"}}),
            Some("class.use_replace_method"),
        ),
        mistake("super().__init__()", json!({"code": "class.super_outside_method"}), Some("class.super_in_method")),
        mistake(
            "Plain(3)",
            json!({"code": "call.takes_no_arguments", "params": {"function": "Plain", "given": 1}}),
            Some("class.define_init"),
        ),
        mistake(
            "isinstance([1], List)",
            json!({"code": "class.isinstance_annotation", "params": {"name": "typing.List"}}),
            Some("class.isinstance_concrete"),
        ),
        mistake("getattr(tile, 0)", json!({"code": "class.attribute_name_type", "params": {"got": "int"}}), None),
        mistake(
            "class Both(Tiling, Plain):\n    pass",
            json!({"code": "unsupported.construct", "params": {"construct": {"code": "construct.several_bases"}}}),
            Some("class.single_inheritance"),
        ),
        mistake(
            "print(Label())",
            json!({"code": "class.text_method_type", "params": {"method": "__str__", "got": "int"}}),
            None,
        ),
        mistake(
            "Tiling.depth",
            json!({"code": "class.no_class_attribute", "params": {"class_name": "Tiling", "name": "depth"}}),
            None,
        ),
        mistake(
            "import dataclasses\ndataclasses.replace(tiling, depth=2)",
            json!({"code": "class.no_field", "params": {"class_name": "Tiling", "name": "depth"}}),
            None,
        ),
        mistake(
            "Frozen = dataclass(Tile)",
            json!({"code": "class.dataclass_of_named_tuple", "params": {"class_name": "Tile"}}),
            None,
        ),
        mistake("f'{x.sum().item():d}'", json!({"code": "format.integer_code", "params": {"got": "float"}}), None),
        mistake(
            "f'{tile.m:x}'",
            json!({"code": "format.unknown_code", "params": {"code": "x", "type_name": "int"}}),
            None,
        ),
        mistake("[1, 2, 3][::0]", json!({"code": "value.slice_step_zero"}), None),
        mistake(
            "pt.as_tensor([1, 2], dtype=pt.DT_INT32, requires_grad=True)",
            json!({"code": "autograd.bad_argument", "params": {"op": "requires_grad", "detail": {"code": "autograd.detail.float_only", "params": {"dtype": "DT_INT32"}}}}),
            None,
        ),
    ]
}

#[test]
fn class_and_format_mistakes_arrive_as_codes_with_their_parameters() {
    let mut session = Session::new();
    let setup = session.run_cell(SETUP);
    assert!(setup.is_ok(), "{setup:?}");
    for Mistake { source, message, help } in mistakes() {
        let result = session.run_cell(source);
        let diagnostic = result.diagnostics.first().unwrap_or_else(|| panic!("{source}: no diagnostic"));
        let code = diagnostic.message_code.as_ref().unwrap_or_else(|| panic!("{source}: no code: {diagnostic:?}"));
        assert_eq!(serde_json::to_value(code).unwrap(), message, "{source}");
        // The CLI prints `message`: the code's own English.
        assert_eq!(diagnostic.message, code.english(), "{source}");
        assert_eq!(diagnostic.help_code.as_ref().map(Message::code).as_deref(), help, "{source}: {diagnostic:?}");
        if let Some(help) = &diagnostic.help_code {
            assert_eq!(diagnostic.help.as_deref(), Some(help.english().as_str()), "{source}");
        }
    }
}

/// The help of a misspelt field names the closest field and all of them, in both languages.
#[test]
fn a_misspelt_field_is_suggested_in_both_languages() {
    let mut session = Session::new();
    session.run_cell(SETUP);
    let result = session.run_cell("Tiling(8, colz=32)");
    let help = serde_json::to_value(result.diagnostics[0].help_code.as_ref().expect("a help")).unwrap();
    assert_eq!(
        help,
        json!({"code": "class.fields", "params": {"class_name": "Tiling", "fields": "rows, cols", "suggestion": "cols"}})
    );
    assert_eq!(render(&help, &table("en")), "did you mean `cols`? Tiling has the fields rows, cols");
    assert_eq!(render(&help, &table("zh-CN")), "你是不是想写 `cols`？Tiling 的字段有：rows, cols");
    let far = session.run_cell("Tiling(8, depth=2)");
    let help = serde_json::to_value(far.diagnostics[0].help_code.as_ref().expect("a help")).unwrap();
    assert_eq!(render(&help, &table("zh-CN")), "Tiling 的字段有：rows, cols");
}

/// In 简体中文 every message and help above renders from the table with no English sentence and
/// with its parameters in place; in English the table gives the engine's own English.
#[test]
fn the_interpreter_tail_renders_in_chinese_without_english_sentences() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let mut session = Session::new();
    session.run_cell(SETUP);
    let mut rendered = 0;
    for Mistake { source, .. } in mistakes() {
        let result = session.run_cell(source);
        let diagnostic = &result.diagnostics[0];
        for message in [&diagnostic.message_code, &diagnostic.help_code].into_iter().flatten() {
            let value = serde_json::to_value(message).unwrap();
            let text = render(&value, &chinese);
            assert!(english_sentences(&text).is_empty(), "{source}: {text} has {:?}", english_sentences(&text));
            assert!(!text.contains('{'), "{source}: a parameter left unfilled in {text}");
            assert_eq!(render(&value, &english), message.english(), "{source}: the en table differs");
            rendered += 1;
        }
    }
    // 18 messages and 9 helps.
    assert_eq!(rendered, 27, "{rendered} messages rendered");
}

/// An option pypto documents and the simulator does not model: the warning names what the
/// simulator lacks as a translated word, in English as the engine prints it and in Chinese.
#[test]
fn an_unmodelled_option_names_its_feature_in_each_language() {
    let mut session = Session::new();
    session.run_cell("import pypto as pt");
    let result = session.run_cell("@pt.frontend.jit(pass_options={'pg_upper_bound': 8})\ndef k(a, out):\n    pass");
    let warning = result.diagnostics.first().expect("a warning");
    assert_eq!(warning.code, "npu/option-not-modelled");
    let message = serde_json::to_value(warning.message_code.as_ref().expect("a code")).unwrap();
    let feature = json!({"code": "option_feature.partition_upper_bound"});
    assert_eq!(
        message,
        json!({"code": "npu.option_not_modelled", "params": {"table": "pass_options", "key": "pg_upper_bound", "feature": feature}})
    );
    let english = "pass_options 'pg_upper_bound' is accepted, not modelled: the simulator does not model the partitioner's upper bound on subgraph size";
    assert_eq!(warning.message, english);
    assert_eq!(render(&message, &table("en")), english);
    let chinese = render(&message, &table("zh-CN"));
    assert_eq!(chinese, "pass_options 的 “pg_upper_bound” 会被接受，但没有建模：模拟器没有模拟划分器的子图大小上限");
}

/// Every sentence of the interpreter tail in the 简体中文 table, its parameters left out, is
/// Chinese (code in backticks), and no entry is the English one.
#[test]
fn every_chinese_interpreter_tail_entry_is_chinese() {
    let (chinese, english) = (table("zh-CN"), table("en"));
    let prefixes = ["message.class.", "message.format.", "message.option_feature.", "message.autograd.detail."];
    let tail: Vec<(&String, &String)> =
        chinese.iter().filter(|(key, _)| prefixes.iter().any(|prefix| key.starts_with(prefix))).collect();
    assert_eq!(tail.len(), 44 + 5 + 31 + 14, "{} interpreter tail entries", tail.len());
    assert_translated(&tail, &english);
}
