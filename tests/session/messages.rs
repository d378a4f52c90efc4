//! The page's i18n tables cover every message the engine sends: each `Message` code (listed from
//! the generated declaration, so a new variant is checked without being named here), the words its
//! parameters are rendered with, the heading of every diagnostic code found in the sources, and
//! the title of every example, in English and in 简体中文 — and the Chinese is not the English.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::Path;

use tilelab::messages::{all_codes, KernelStage};

/// The `'key': 'value'` entries of a table file (one per line, as the tables are written).
fn table(locale: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("www/i18n/messages-{locale}.js"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut entries = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix('\'') else { continue };
        let Some((key, value)) = rest.split_once("': ") else { continue };
        entries.insert(key.to_string(), value.trim_end_matches(',').to_string());
    }
    entries
}

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
