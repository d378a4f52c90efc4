//! Fuzz the tile script parser: any bytes (made UTF-8 lossily) must parse without a panic, every
//! diagnostic and tree span must lie inside the source on character boundaries, and rendering
//! every diagnostic must work.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tilelab::lang::syntax::{ast, parse_with_options, LineIndex, ParseOptions, Span};

fn check(source: &str, span: Span) {
    assert!(span.start <= span.end && span.end <= source.len(), "span {span:?} outside {} bytes", source.len());
    assert!(source.is_char_boundary(span.start) && source.is_char_boundary(span.end), "span {span:?} splits a char");
}

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    // A small depth limit as well as the default, so the limit paths are fuzzed too.
    for max_depth in [ParseOptions::DEFAULT_MAX_DEPTH, 3] {
        let output = parse_with_options(&source, ParseOptions { max_depth });
        let index = LineIndex::new(&source);
        for diagnostic in &output.diagnostics {
            check(&source, diagnostic.span);
            if let Some(span) = diagnostic.note.as_ref().and_then(|note| note.span) {
                check(&source, span);
            }
            let _ = index.render(&source, "fuzz.py", diagnostic);
        }
        ast::for_each_span(&output.module, &mut |span| check(&source, span));
    }
});
