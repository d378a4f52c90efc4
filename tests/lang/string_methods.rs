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
