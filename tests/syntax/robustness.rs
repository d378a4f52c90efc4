//! The parser under hostile input: deep nesting is a diagnostic (never a stack overflow), random
//! bytes never panic, and every span lies inside the source on UTF-8 character boundaries.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tilelab::lang::syntax::{ast, parse, parse_with_options, LineIndex, ParseOptions, ParseOutput, Span};

const NESTING: &str = "syntax/nesting-too-deep";

/// Check every diagnostic and tree span of `output` and render every diagnostic.
fn assert_spans_sound(source: &str, output: &ParseOutput) {
    let mut check = |span: Span| {
        assert!(span.start <= span.end && span.end <= source.len(), "span {span:?} outside {} bytes", source.len());
        assert!(
            source.is_char_boundary(span.start) && source.is_char_boundary(span.end),
            "span {span:?} splits a char"
        );
    };
    let index = LineIndex::new(source);
    for (number, diagnostic) in output.diagnostics.iter().enumerate() {
        check(diagnostic.span);
        if let Some(span) = diagnostic.note.as_ref().and_then(|note| note.span) {
            check(span);
        }
        // Rendering costs the length of the line; a few hundred renders cover every path.
        if number < 300 {
            let rendered = index.render(source, "cell.py", diagnostic);
            assert!(rendered.contains(&diagnostic.message));
        }
    }
    ast::for_each_span(&output.module, &mut check);
}

/// Run `work` on a thread with a 1 MiB stack — the default stack of a wasm32 module — so the
/// test proves the depth limit keeps the parser inside what the browser build has.
fn on_small_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(work)
        .expect("spawn")
        .join()
        .expect("the parser overflowed or panicked")
}

fn count(output: &ParseOutput, code: &str) -> usize {
    output.diagnostics.iter().filter(|diagnostic| diagnostic.code == code).count()
}

#[test]
fn one_hundred_thousand_nested_parentheses_give_one_diagnostic() {
    let source = format!("x = {}1{}\n", "(".repeat(100_000), ")".repeat(100_000));
    let output = on_small_stack({
        let source = source.clone();
        move || parse(&source)
    });
    assert_eq!(output.diagnostics.len(), 1, "{:?}", output.diagnostics);
    assert_eq!(output.diagnostics[0].code, NESTING);
    assert_spans_sound(&source, &output);
}

#[test]
fn exactly_the_limit_is_accepted() {
    // The right side of `=` is level 1 and each '(' adds one, so 99 parentheses make 100 levels.
    let options = ParseOptions { max_depth: 100 };
    let inside = format!("x = {}1{}\n", "(".repeat(99), ")".repeat(99));
    assert!(parse_with_options(&inside, options).diagnostics.is_empty());
    let over = format!("x = {}1{}\n", "(".repeat(100), ")".repeat(100));
    assert_eq!(count(&parse_with_options(&over, options), NESTING), 1);
    // The limit is a parameter: 5 levels allow four parentheses only.
    let small = ParseOptions { max_depth: 5 };
    assert!(parse_with_options("x = ((((1))))\n", small).diagnostics.is_empty());
    assert_eq!(count(&parse_with_options("x = (((((1)))))\n", small), NESTING), 1);
}

#[test]
fn deep_mixed_and_unclosed_brackets_stay_bounded() {
    let mixed = format!("y = {}0{}\n", "[({".repeat(30_000), "})]".repeat(30_000));
    let unclosed = format!("z = {}\nw = 1\n", "([{".repeat(40_000));
    let results = on_small_stack({
        let (mixed, unclosed) = (mixed.clone(), unclosed.clone());
        move || (parse(&mixed), parse(&unclosed))
    });
    assert_eq!(count(&results.0, NESTING), 1);
    assert_spans_sound(&mixed, &results.0);
    // Every unclosed bracket is reported once, at its own opening; nothing else.
    assert_eq!(count(&results.1, "syntax/unclosed-bracket"), 120_000);
    assert_eq!(results.1.diagnostics.len(), 120_000);
    assert_spans_sound(&unclosed, &results.1);
}

#[test]
fn long_operator_chains_and_prefix_runs_are_limited_not_overflowed() {
    let sources = [
        format!("x = {}1\n", "-".repeat(100_000)),
        format!("x = {}y\n", "not ".repeat(50_000)),
        format!("x = 2{}\n", " ** 2".repeat(50_000)),
        format!("x = 1{}\n", " + 1".repeat(50_000)),
        format!("x = a{}\n", " and b".repeat(50_000)),
        format!("x = f{}\n", "()".repeat(50_000)),
        format!("x = a{}\n", ".b".repeat(50_000)),
        format!("x = a{}\n", " if b else c".repeat(50_000)),
        format!("x = f\"{{{}}}\"\n", "f'{".repeat(2_000)),
    ];
    for source in sources {
        let output = on_small_stack({
            let source = source.clone();
            move || parse(&source)
        });
        assert!(output.diagnostics.iter().all(|d| d.span.end <= source.len()));
        assert_spans_sound(&source, &output);
        assert!(!output.diagnostics.is_empty(), "{}: expected a diagnostic", &source[..30]);
    }
}

#[test]
fn ten_thousand_nested_blocks_give_a_diagnostic() {
    let mut source = String::new();
    for depth in 0..10_000 {
        source.push_str(&" ".repeat(depth));
        source.push_str("if x:\n");
    }
    source.push_str(&" ".repeat(10_000));
    source.push_str("pass\nafter = 1\n");
    let output = on_small_stack({
        let source = source.clone();
        move || parse(&source)
    });
    assert!(count(&output, NESTING) >= 1);
    assert!(output.diagnostics.iter().all(|d| d.code == NESTING), "{:?}", output.diagnostics);
    // The statement after the deep block is still parsed.
    let last = output.module.body.last().expect("statements");
    assert_eq!(last.span.text(&source), "after = 1");
    assert_spans_sound(&source, &output);
}

#[test]
fn a_megabyte_of_random_bytes_never_panics() {
    // A fixed xorshift generator so the input is the same every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes = Vec::with_capacity(1 << 20);
    while bytes.len() < 1 << 20 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    let random = String::from_utf8_lossy(&bytes).into_owned();
    // Also random text drawn from the language's own alphabet, which reaches deeper paths.
    let alphabet: Vec<char> = "()[]{}:,.=+-*/%@<>!&|^~ \n\t\\'\"#fxr0123456789eifdn张量，（）".chars().collect();
    let mut tokens = String::new();
    for _ in 0..(1 << 18) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        tokens.push(alphabet[(state % alphabet.len() as u64) as usize]);
    }
    for source in [random, tokens] {
        let output = on_small_stack({
            let source = source.clone();
            move || parse(&source)
        });
        assert!(!output.diagnostics.is_empty());
        assert_spans_sound(&source, &output);
    }
}

#[test]
fn chinese_identifiers_strings_and_comments_keep_spans_on_boundaries() {
    let source =
        "# 注释\n张量 = \"张量\"  # 注释\n结果 = 张量 + （1，2）\nprint(f\"{张量}：{结果!r}\")\n坏 = \"未结束\n";
    let output = parse(source);
    assert_spans_sound(source, &output);
    let codes: Vec<&str> = output.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            "syntax/full-width-punctuation",
            "syntax/full-width-punctuation",
            "syntax/full-width-punctuation",
            "syntax/unterminated-string"
        ]
    );
    let index = LineIndex::new(source);
    // '（' is the 11th character of line 3 ("结果 = 张量 + （"): column 11, though byte 23 of the line.
    let position = index.line_column(source, output.diagnostics[0].span.start);
    assert_eq!((position.line, position.column), (3, 11));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_parses_without_panicking(source in "\\PC{0,200}") {
        let output = parse(&source);
        assert_spans_sound(&source, &output);
    }

    #[test]
    fn token_soup_parses_without_panicking(
        pieces in proptest::collection::vec(
            prop_oneof![
                Just("("), Just(")"), Just("["), Just("]"), Just("{"), Just("}"), Just(":"), Just(","),
                Just("\n"), Just("    "), Just("\t"), Just("if"), Just("else"), Just("for"), Just("in"),
                Just("def"), Just("return"), Just("x"), Just("1"), Just("1e-5"), Just("="), Just("+="),
                Just("*"), Just("**"), Just("@"), Just("f\"{x:.3f}\""), Just("'张'"), Just("\"\"\""),
                Just("#注释"), Just("\\"), Just("lambda"), Just("class"), Just("."), Just("not"),
                Just("；"), Just("（"), Just("$"), Just("0x"), Just("elif"), Just("with"), Just("as"),
            ],
            0..80,
        )
    ) {
        let source: String = pieces.concat();
        for max_depth in [ParseOptions::DEFAULT_MAX_DEPTH, 2] {
            let output = parse_with_options(&source, ParseOptions { max_depth });
            assert_spans_sound(&source, &output);
        }
    }
}
