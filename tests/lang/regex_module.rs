//! `re`: the pattern features model files use (classes, quantifiers, groups, anchors) with
//! Python's leftmost-first backtracking semantics, and the match object. Expected values are
//! worked out by hand from Python's documented rules.

use tilelab::session::Session;

use super::cells::{run_err, run_ok, spanned};

/// test_qat.py's distribution spec: `uniform[low,high]` with optional spaces and signed decimals.
#[test]
fn the_qat_distribution_spec_parses_into_its_groups() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import re
spec = r"uniform\[\s*([-+]?[0-9]*\.?[0-9]+)\s*,\s*([-+]?[0-9]*\.?[0-9]+)\s*\]$"
m = re.match(spec, "uniform[ -1.5 , 2]")
print(m)
print(m.groups(), m.group(0), m.group(1, 2), m.span(2), m.start(1), m.end())
low, high = map(float, m.groups())
print(low, high)
print(re.match(spec, "uniform[1,2]x"), re.match(spec, "uniform[.5,+3.25]").groups())
if not re.match(spec, "uniform[a,b]"):
    print("rejected")
"#,
    );
    // "-1.5" spans 9..13 and "2" 16..17 in "uniform[ -1.5 , 2]" (18 chars).
    assert_eq!(
        printed,
        "<re.Match object; span=(0, 18), match='uniform[ -1.5 , 2]'>\n\
         ('-1.5', '2') uniform[ -1.5 , 2] ('-1.5', '2') (16, 17) 9 18\n\
         -1.5 2.0\nNone ('.5', '+3.25')\nrejected\n"
    );
}

/// Leftmost-first alternation, greedy against lazy, counted repeats, anchors and flags.
#[test]
fn backtracking_follows_pythons_order() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import re
print(re.search(r"(a|ab)(c|bcd)(d*)", "abcd").groups())
print(re.search(r"<.+>", "<a><b>").group(), re.search(r"<.+?>", "<a><b>").group())
print(re.search(r"b+?", "abbb").span(), re.match(r"(\d{2,3})(\d*)", "12345").groups())
print(re.fullmatch(r"[a-z_]\w*", "x_1") is not None, re.fullmatch(r"[a-z]+", "abc1"))
print(re.search(r"^b", "a\nb"), re.search(r"^b", "a\nb", re.MULTILINE).span())
print(re.match("A.C", "a\nc", re.I | re.S).group() == "a\nc", re.match("a.c", "a\nc"))
print(re.search(r"\bcat\b", "concat cat").span(), re.match(r"[^0-9\s]+", "ab 1").group())
print(re.match(r"(a)|(b)", "b").groups(), re.match(r"(a)|(b)", "b").groups("-"), re.match(r"(a)|(b)", "b").span(1))
print(re.match(r"x{2}y{,2}z{1,}", "xxyyzz").group(), re.match(r"a{", "a{").group())
"#,
    );
    // (a|ab): "a" first, then (c|bcd) must match at 1 ("b…"): "c" fails, "bcd" matches; d* is empty.
    assert_eq!(
        printed,
        "('a', 'bcd', '')\n<a><b> <a>\n(1, 2) ('123', '45')\nTrue None\nNone (2, 3)\nTrue None\n\
         (7, 10) ab\n(None, 'b') ('-', 'b') (-1, -1)\nxxyyzz a{\n"
    );
}

/// findall, sub and split, with CPython's rule for empty matches next to a previous match.
#[test]
fn findall_sub_and_split() {
    let mut session = Session::new();
    let printed = run_ok(
        &mut session,
        r#"
import re
print(re.findall(r"\d+", "a1b22c333"), re.findall(r"(\w+)=(\d+)", "a=1, bb=22"), re.findall(r"a*", "baaa"))
print(re.sub("x*", "-", "abxd"), re.sub(r"(\d+)", r"<\1>", "a1b22"), re.sub(r"\s+", " ", "a  b\t\nc", count=1))
print(re.split(r"[,;]\s*", "a, b;c"), re.split(r"(-)", "1-2"), re.escape("a.b*c"))
"#,
    );
    // x* on "abxd": empty at 0, empty at 1, "x" at 2..3, empty at 3 (allowed after a non-empty
    // match), empty at 4: "-a-b--d-".
    assert_eq!(
        printed,
        "['1', '22', '333'] [('a', '1'), ('bb', '22')] ['', 'aaa', '']\n\
         -a-b--d- a<1>b<22> a b\t\nc\n['a', 'b', 'c'] ['1', '-', '2'] a\\.b\\*c\n"
    );
}

/// A pattern Python rejects is an error at the pattern, with Python's reason and position; a
/// feature left out says so; a group the pattern lacks is an IndexError at the argument.
#[test]
fn bad_patterns_are_located_errors() {
    let mut session = Session::new();
    run_ok(&mut session, "import re");
    for (code, spanned_text, message) in [
        ("re.match('a**', 'a')", "'a**'", "re.error: multiple repeat at position 2 of the pattern 'a**'"),
        ("re.match('(ab', 'a')", "'(ab'", "re.error: missing ), unterminated subpattern at position 3 of the pattern '(ab'"),
        ("re.match('[b-a]', 'a')", "'[b-a]'", "re.error: bad character range at position 4 of the pattern '[b-a]'"),
        ("re.match('*a', 'a')", "'*a'", "re.error: nothing to repeat at position 0 of the pattern '*a'"),
        ("re.match(r'(?P<x>a)', 'a')", "r'(?P<x>a)'", "re.error: this group syntax is not supported (only '(...)' and '(?:...)') at position 1 of the pattern '(?P<x>a)'"),
        ("re.match('a', 'a').group(2)", "2", "no such group: 2"),
        ("re.match(1, 'a')", "1", "re.match() needs a str"),
    ] {
        let result = run_err(&mut session, code);
        assert_eq!(result.error().unwrap().message, message, "{code}");
        assert_eq!(spanned(code, &result), spanned_text, "{code}");
    }
}
