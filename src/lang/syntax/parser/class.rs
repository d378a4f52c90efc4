//! `class Name(Base):` with its decorators and body.

use super::Parser;
use crate::lang::syntax::ast::{ClassDef, Expr, StmtKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{After, Construct, GrammarMessage, NameSlot, UnsupportedMessage};

impl Parser<'_> {
    /// A class definition after its decorators; the current token is `class`.
    pub(super) fn class_definition(&mut self, decorators: Vec<Expr>) -> StmtKind {
        let keyword = self.bump();
        let name = self.identifier(NameSlot::ClassName);
        let bases = if self.at(TokenKind::LeftParen) { self.class_bases() } else { Vec::new() };
        self.header_colon("class");
        // A class body is neither a function nor a loop: `return` and `break` in it are errors.
        let saved_loop_depth = std::mem::take(&mut self.loop_depth);
        let saved_function_depth = std::mem::take(&mut self.function_depth);
        let body = self.block("class", keyword.span.start);
        self.function_depth = saved_function_depth;
        self.loop_depth = saved_loop_depth;
        StmtKind::ClassDef(Box::new(ClassDef { decorators, name, bases, body }))
    }

    /// `(A, B)` after the class name; keywords (`metaclass=…`) are reported.
    fn class_bases(&mut self) -> Vec<Expr> {
        self.bump();
        let mut bases = Vec::new();
        while !self.at(TokenKind::RightParen) && !self.at(TokenKind::EndOfFile) {
            if self.at(TokenKind::Name) && self.nth_kind(1) == TokenKind::Equal {
                let keyword = self.current().span;
                self.unsupported(Construct::ClassKeywords, keyword, Some(UnsupportedMessage::PlainClass));
                self.skip_until(|kind| kind == TokenKind::Comma);
            } else {
                bases.push(self.expression());
            }
            if self.eat(TokenKind::Comma) {
                continue;
            }
            if !self.at(TokenKind::RightParen) {
                let span = self.missing_span();
                let found = self.found_token();
                let message = GrammarMessage::ExpectedCommaOr { closing: ")".into(), after: After::BaseClass, found };
                self.coded(SyntaxErrorKind::ExpectedToken, message, span);
                self.skip_until(|kind| kind == TokenKind::Comma);
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        self.eat(TokenKind::RightParen);
        bases
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{messages, tree};
    use crate::lang::syntax::ast::dump;
    use crate::lang::syntax::parse;

    #[test]
    fn a_dataclass_with_annotated_fields_and_a_method() {
        let source = "@dataclass(frozen=True)\nclass Tiling(Base):\n    tile_m: int = 128\n    dtype: pypto.DType\n\n    def rows(self) -> int:\n        return self.tile_m\n";
        let output = parse(source);
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
        assert_eq!(
            dump(&output.module),
            "@(call dataclass (kw frozen True))\nclass Tiling(Base)\n  annassign tile_m: int = 128\n  annassign dtype: (. pypto DType)\n  def rows(self) -> int\n    return (. self tile_m)\n"
        );
    }

    #[test]
    fn class_bodies_are_not_functions_or_loops() {
        assert_eq!(messages("class C:\n    return 1\n"), ["'return' outside a function"]);
        assert_eq!(messages("for i in x:\n    class C:\n        break\n"), ["'break' outside a loop"]);
        assert_eq!(
            messages("class C(metaclass=M):\n    pass\n"),
            ["class keywords (`metaclass=…`) are not supported in tile scripts"]
        );
        assert_eq!(messages("class C\n    pass\n"), ["expected ':' after the class header"]);
    }

    #[test]
    fn union_annotations_parse_as_alternatives_and_bitwise_or_elsewhere() {
        let source = "class R(NamedTuple):\n    pesq: float | None\ndef f(x: int | None = None) -> str | None:\n    y: int | str = 1\n";
        assert!(messages(source).is_empty(), "{:?}", messages(source));
        assert_eq!(tree("y: int | str = a | b\n"), "annassign y: (tuple int str) = (| a b)\n");
    }

    #[test]
    fn from_imports_with_aliases_and_parentheses() {
        let output = parse("from pypto import Tensor as PTensor, loop\nfrom typing import (List,\n    Optional,)\n");
        assert!(output.diagnostics.is_empty(), "{:?}", output.diagnostics);
        assert_eq!(
            dump(&output.module),
            "from pypto import Tensor as PTensor, loop\nfrom typing import List, Optional\n"
        );
        assert_eq!(
            messages("from .helpers import f\nfrom pypto import *\n"),
            [
                "relative imports (`from .module import name`) are not supported in tile scripts",
                "`from … import *` is not supported in tile scripts"
            ]
        );
    }
}
