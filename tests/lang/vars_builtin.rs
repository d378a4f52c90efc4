//! `vars(object)`: an instance's attributes as a dict (a dataclass's fields, an argparse
//! Namespace's options); what CPython prints for the same code.

use super::cell_output::printed;
use tilelab::session::Session;

#[test]
fn vars_lists_instance_attributes_in_the_order_they_were_set() {
    let code = "class P:\n    def __init__(self):\n        self.a = 1\n        self.b = 'x'\nprint(vars(P()))\n\
                from dataclasses import dataclass\n@dataclass\nclass D:\n    u: int = 1\n    v: float = 2.0\n\
                print(vars(D()), [name for name, _ in vars(D(5)).items()])\n\
                import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--n', type=int, default=3)\n\
                print(vars(parser.parse_args([])))";
    assert_eq!(printed(code), "{'a': 1, 'b': 'x'}\n{'u': 1, 'v': 2.0} ['u', 'v']\n{'n': 3}\n");
}

#[test]
fn vars_of_a_value_without_attributes_is_pythons_type_error() {
    let mut session = Session::new();
    let result = session.run_cell("vars(5)");
    let diagnostic = result.error().expect("an error");
    assert_eq!(diagnostic.message, "vars() argument must have __dict__ attribute");
}
