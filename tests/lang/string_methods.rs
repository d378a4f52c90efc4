//! The methods of strings pypto's scripts and tests use (`"{}".format`, `splitlines`, `rstrip`,
//! `find`, `count` …): each line's expected text is what CPython 3 prints for the same code.

use tilelab::session::Session;

use super::cells::run_ok;

#[test]
fn string_methods_print_what_python_prints() {
    let mut session = Session::new();
    let code = r#"
print("{} {:.2f} {name:>6}".format(1, 2.0, name="ab"))
print("{0} {1} {0!r} {{x}}".format("a", [1, 2]))
d = {"k": 5}
print("{d[k]} {l[1]}".format(d=d, l=[7, 8]))
print("  a b  c ".split(), "a,b,,c".split(",", 2), "a b c d".rsplit(None, 2), "a,b,c".rsplit(",", 1))
print("x\ny\r\nz".splitlines(), "xxhixx".strip("x"), "  hi ".lstrip(), "hi  ".rstrip() + "|")
print("hello".find("l"), "hello".rfind("l"), "hello".find("z"), "hello".count("l"), "hello".index("e"))
print("a=b=c".partition("="), "a=b=c".rpartition("="), "abc".partition("z"))
print("123".isdigit(), "12a".isdigit(), "".isdigit(), "ABC".isupper(), "aB".islower(), "abc".isalpha())
print("hello world foo_bar".title(), "hELLO wORLD".capitalize())
print("42".zfill(5), "-42".zfill(5), "ab".ljust(5, "*") + "|", "ab".rjust(5), "ab".center(7, "-"), "abc".center(6, "-"))
print("test_x".removeprefix("test_"), "a.py".removesuffix(".py"))
try:
    "{".format()
except ValueError as e:
    print(e)
try:
    "{2}".format(1)
except IndexError as e:
    print(e)
try:
    "{x}".format()
except KeyError as e:
    print(e)
try:
    "{}{0}".format(1)
except ValueError as e:
    print(e)
"#;
    let expected = r#"1 2.00     ab
a [1, 2] 'a' {x}
5 8
['a', 'b', 'c'] ['a', 'b', ',c'] ['a b', 'c', 'd'] ['a,b', 'c']
['x', 'y', 'z'] hi hi  hi|
2 3 -1 2 1
('a', '=', 'b=c') ('a=b', '=', 'c') ('abc', '', '')
True False False True False True
Hello World Foo_Bar Hello world
00042 -0042 ab***|    ab ---ab-- -abc--
x a
Single '{' encountered in format string
Replacement index 2 out of range for positional args tuple
'x'
cannot switch from automatic field numbering to manual field specification
"#;
    assert_eq!(run_ok(&mut session, code.trim_start()), format!("{}\n", expected.trim_end()));
}

/// Keyword arguments where Python takes them (split's sep/maxsplit, splitlines' keepends), refused
/// where it does not; replace's count; find/count/startswith/endswith windows (start, end);
/// prefixes as a tuple; splitlines at every line boundary Python knows.
#[test]
fn string_method_arguments_match_python() {
    let mut session = Session::new();
    let code = r#"
s = "a,b,,c"
print(s.split(",", maxsplit=1), s.rsplit(sep=",", maxsplit=2), "a b  c".split(maxsplit=1))
print("x\ny\r\nz\rw\x0bq\x1cend".splitlines(), len("x\ny\r\nz\n".splitlines(keepends=True)[1]), "".splitlines(), "a\n".splitlines(True), "a\n\nb".splitlines())
print("aaaa".replace("a", "b", 2), "abc".replace("", "-", 2), "abc".replace("", "-"), "aaa".replace("a", "", -1))
print("hello world".find("o", 5), "hello world".find("o", 5, 7), "hello".rfind("l", 0, 3), "hello".find("l", -2), "hello".count("l", 3), "héllo".find("l", 2))
print("hello".startswith(("x", "he")), "hello".endswith("lo", 0, 4), "hello".endswith("ll", 0, 4), "hello".startswith("ll", 2), "abc".startswith("", 5), "abc".startswith("", 3))
print("hello".index("l", 3), "hello".rindex("l"), "abc".count("", 1), "abc".count("", 9), "abc".find("", 3), "abc".find("", 4), "abc".find("b", -100, None))
def attempt(function):
    try:
        function()
        print("no error")
    except TypeError as e:
        print("TypeError")
attempt(lambda: "a".strip(chars="a"))
attempt(lambda: "a".split(x=1))
attempt(lambda: "a".replace(old="a", new="b"))
attempt(lambda: "a".find("a", 1, 2, 3))
attempt(lambda: "a".startswith(1))
attempt(lambda: "a".startswith(("a", 1)))
"#;
    let expected = r#"['a', 'b,,c'] ['a,b', '', 'c'] ['a', 'b  c']
['x', 'y', 'z', 'w', 'q', 'end'] 3 [] ['a\n'] ['a', '', 'b']
bbaa -a-bc -a-b-c- 
7 -1 2 3 1 2
True False True True False True
3 3 3 0 3 -1 1
TypeError
TypeError
TypeError
TypeError
TypeError
no error
"#;
    assert_eq!(run_ok(&mut session, code.trim_start()), expected);
}
