//! What the parser's unit tests share: a source's tree as text, and its diagnostics' messages.

use crate::lang::syntax::ast::dump;
use crate::lang::syntax::parse;

/// The dumped tree of `source`, which must parse without a diagnostic.
pub(super) fn tree(source: &str) -> String {
    let output = parse(source);
    assert!(output.diagnostics.is_empty(), "{source:?}: {:?}", output.diagnostics);
    dump(&output.module)
}

/// The messages of `source`'s diagnostics, in order.
pub(super) fn messages(source: &str) -> Vec<String> {
    parse(source).diagnostics.into_iter().map(|diagnostic| diagnostic.message).collect()
}
