//! The API table: every name of the `pypto` module (and the tensor methods, `help`, `dir`) with its
//! parameters and a one-paragraph doc in English and Chinese. The interpreter resolves `pypto.*`
//! names through this table, `help()`/`dir()` read it, and the notebook's editor gets it as JSON
//! for completion, hover and signature help: one table, so the docs cannot drift from what runs.

mod help;

use std::sync::OnceLock;

use serde::Serialize;

pub use help::set_help_language;

/// The table's text (format described at the top of `entries.txt`), one file per area so that
/// names added for one area do not touch another's file.
const ENTRIES: [&str; 12] = [
    include_str!("entries.txt"),
    include_str!("language.txt"),
    include_str!("dtypes_and_ops.txt"),
    include_str!("pypto_api.txt"),
    include_str!("torch.txt"),
    include_str!("fidelity.txt"),
    include_str!("autodiff.txt"),
    include_str!("host.txt"),
    include_str!("operations.txt"),
    include_str!("elementwise_operations.txt"),
    include_str!("torch_goldens.txt"),
    include_str!("operation_module.txt"),
];

/// What a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApiKind {
    /// A function (or decorator): has parameters.
    Function,
    /// A module (`pypto.nn`).
    Module,
    /// A constant (`pypto.DT_FP32`).
    Constant,
    /// A tensor attribute (`Tensor.shape`).
    Attribute,
}

/// One parameter as written in the signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiParameter {
    /// Its name (without stars).
    pub name: String,
    /// Its default as written (`None`, `-1` …), when it has one.
    pub default: Option<String>,
    /// `*name`: takes the remaining positional arguments.
    pub variadic: bool,
}

/// One documented name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiEntry {
    /// The qualified name (`pypto.view`, `pypto.nn`, `Tensor.sum`, `help`).
    pub name: String,
    /// Function, module, constant or attribute.
    pub kind: ApiKind,
    /// The parameters of a function, in order.
    pub parameters: Vec<ApiParameter>,
    /// `view(x, shape, offsets, valid_shape=None)` for functions, the short name otherwise.
    pub signature: String,
    /// The doc in English.
    pub doc_en: String,
    /// The doc in Simplified Chinese.
    pub doc_zh: String,
}

impl ApiEntry {
    /// The last part of the name (`view` of `pypto.view`).
    pub fn short_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The doc in `language` (`zh…` is Chinese, anything else English).
    pub fn doc(&self, language: &str) -> &str {
        if language.starts_with("zh") {
            &self.doc_zh
        } else {
            &self.doc_en
        }
    }

    /// The names of the parameters that are bound by name (not the `*args` one).
    pub fn named_parameters(&self) -> Vec<&str> {
        self.parameters
            .iter()
            .filter(|parameter| !parameter.variadic)
            .map(|parameter| parameter.name.as_str())
            .collect()
    }
}

/// The whole table, in the order of its files.
pub fn api_table() -> &'static [ApiEntry] {
    static TABLE: OnceLock<Vec<ApiEntry>> = OnceLock::new();
    TABLE.get_or_init(|| ENTRIES.iter().flat_map(|text| parse_table(text)).collect())
}

/// The entry of the qualified `name`.
pub fn lookup(name: &str) -> Option<&'static ApiEntry> {
    api_table().iter().find(|entry| entry.name == name)
}

/// The entries directly inside `parent` (`pypto` → `pypto.view`, `pypto.nn`, …; not `pypto.nn.*`).
pub fn members(parent: &str) -> impl Iterator<Item = &'static ApiEntry> + '_ {
    api_table().iter().filter(move |entry| {
        entry.name.strip_prefix(parent).and_then(|rest| rest.strip_prefix('.')).is_some_and(|rest| !rest.contains('.'))
    })
}

/// The table as JSON (what the notebook's editor reads).
pub fn api_table_json() -> String {
    serde_json::to_string(api_table()).unwrap_or_else(|_| "[]".into())
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a misspelling:
/// at most a third of the name's length (so names shorter than 3 get no suggestion: `y` is not a
/// misspelt `x`).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = name.chars().count() / 3;
    if limit == 0 {
        return None;
    }
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance counting a swap of two neighbours as one edit (`tnah` → `tanh`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    table[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[i - 1][j] + 1).min(table[i][j - 1] + 1).min(table[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = best;
        }
    }
    table[a.len()][b.len()]
}

/// Parses the table text; a malformed entry is a bug in the committed file (the tests parse it).
fn parse_table(text: &str) -> Vec<ApiEntry> {
    let mut entries = Vec::new();
    let mut current: Option<ApiEntry> = None;
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        if line.trim().is_empty() {
            entries.extend(current.take());
        } else if let Some(doc) = line.strip_prefix("en: ") {
            if let Some(entry) = current.as_mut() {
                entry.doc_en = doc.to_string();
            }
        } else if let Some(doc) = line.strip_prefix("zh: ") {
            if let Some(entry) = current.as_mut() {
                entry.doc_zh = doc.to_string();
            }
        } else {
            entries.extend(current.take());
            current = parse_header(line);
        }
    }
    entries.extend(current);
    entries
}

fn parse_header(line: &str) -> Option<ApiEntry> {
    let (keyword, rest) = line.split_once(' ')?;
    let kind = match keyword {
        "def" => ApiKind::Function,
        "module" => ApiKind::Module,
        "const" => ApiKind::Constant,
        "attr" => ApiKind::Attribute,
        _ => return None,
    };
    let (name, parameters) = match rest.split_once('(') {
        Some((name, list)) => (name, parse_parameters(list.strip_suffix(')')?)),
        None => (rest, Vec::new()),
    };
    let short = name.rsplit('.').next().unwrap_or(name);
    let signature = match kind {
        ApiKind::Function => {
            format!("{short}({})", rest.split_once('(').map_or("", |(_, list)| &list[..list.len() - 1]))
        }
        _ => short.to_string(),
    };
    Some(ApiEntry { name: name.to_string(), kind, parameters, signature, doc_en: String::new(), doc_zh: String::new() })
}

fn parse_parameters(list: &str) -> Vec<ApiParameter> {
    list.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, default) = match item.split_once('=') {
                Some((name, default)) => (name.trim(), Some(default.trim().to_string())),
                None => (item, None),
            };
            let variadic = name.starts_with('*');
            ApiParameter { name: name.trim_start_matches('*').to_string(), default, variadic }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_both_docs_and_a_unique_name() {
        let table = api_table();
        assert!(table.len() > 80, "{} entries", table.len());
        for entry in table {
            assert!(!entry.doc_en.is_empty() && !entry.doc_zh.is_empty(), "{} lacks a doc", entry.name);
            assert_eq!(table.iter().filter(|other| other.name == entry.name).count(), 1, "{} twice", entry.name);
        }
    }

    #[test]
    fn signatures_keep_defaults_and_star_parameters() {
        let view = lookup("pypto.view").unwrap();
        assert_eq!(view.signature, "view(input, shape=None, offsets=None, valid_shape=None, dtype=None)");
        assert_eq!(view.named_parameters(), ["input", "shape", "offsets", "valid_shape", "dtype"]);
        assert_eq!(view.parameters[3].default.as_deref(), Some("None"));
        let tiles = lookup("pypto.set_vec_tile_shapes").unwrap();
        assert!(tiles.parameters[0].variadic && tiles.named_parameters().is_empty());
        assert_eq!(lookup("pypto.DT_FP16").unwrap().kind, ApiKind::Constant);
    }

    #[test]
    fn members_are_one_level_deep() {
        let names: Vec<&str> = members("pypto.nn").map(|entry| entry.short_name()).collect();
        assert_eq!(names, ["layer_norm", "group_norm"]);
        assert!(members("pypto").any(|entry| entry.name == "pypto.nn"));
        assert!(!members("pypto").any(|entry| entry.name == "pypto.nn.layer_norm"));
    }

    /// `tnah` is `tanh` with two letters swapped (one edit); `xyz` is near nothing.
    #[test]
    fn closest_names_a_likely_misspelling_only() {
        let names = ["tanh", "exp", "sigmoid", "softmax"];
        assert_eq!(closest("tnah", names), Some("tanh"));
        assert_eq!(closest("sigmod", names), Some("sigmoid"));
        assert_eq!(closest("xyz", names), None);
        assert_eq!(closest("y", ["x"]), None, "one letter is no misspelling");
    }
}
