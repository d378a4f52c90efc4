//! Expressions by precedence: conditional, `or`, `and`, `not`, comparisons, arithmetic, unary,
//! `**`, then postfix (calls, subscripts, attributes) over atoms.

use super::Parser;
use crate::lang::syntax::ast::{BinaryOp, CompareOp, Expr, ExprKind, LogicalOp, UnaryOp};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::span::Span;
use crate::lang::syntax::token::TokenKind;
use crate::messages::{Construct, GrammarMessage, UnsupportedMessage};

/// Binding levels of the binary operators handled by precedence climbing (higher binds tighter),
/// Python's: `|` below `^` below `&` below the shifts below `+ -` below `* / // % @`.
const LEVEL_BIT_OR: u8 = 1;
const LEVEL_BIT_XOR: u8 = 2;
const LEVEL_BIT_AND: u8 = 3;
const LEVEL_SHIFT: u8 = 4;
const LEVEL_SUM: u8 = 5;
const LEVEL_TERM: u8 = 6;

/// A binary operator token: its level and its operator.
fn binary_operator(kind: TokenKind) -> Option<(u8, BinaryOp)> {
    Some(match kind {
        TokenKind::Pipe => (LEVEL_BIT_OR, BinaryOp::BitOr),
        TokenKind::Caret => (LEVEL_BIT_XOR, BinaryOp::BitXor),
        TokenKind::Ampersand => (LEVEL_BIT_AND, BinaryOp::BitAnd),
        TokenKind::LeftShift => (LEVEL_SHIFT, BinaryOp::LeftShift),
        TokenKind::RightShift => (LEVEL_SHIFT, BinaryOp::RightShift),
        TokenKind::Plus => (LEVEL_SUM, BinaryOp::Add),
        TokenKind::Minus => (LEVEL_SUM, BinaryOp::Subtract),
        TokenKind::Star => (LEVEL_TERM, BinaryOp::Multiply),
        TokenKind::Slash => (LEVEL_TERM, BinaryOp::Divide),
        TokenKind::DoubleSlash => (LEVEL_TERM, BinaryOp::FloorDivide),
        TokenKind::Percent => (LEVEL_TERM, BinaryOp::Modulo),
        TokenKind::At => (LEVEL_TERM, BinaryOp::MatMul),
        _ => return None,
    })
}

impl Parser<'_> {
    /// `a, b, c` (a tuple without parentheses) or a single expression.
    pub(super) fn expression_list(&mut self) -> Expr {
        self.list_of(Self::expression)
    }

    /// Like [`Self::expression_list`], but a `*x` item is reported (star-assignment is outside
    /// the subset) instead of being a plain error.
    pub(super) fn expression_list_with_star(&mut self) -> Expr {
        self.list_of(Self::star_or_expression)
    }

    /// Assignment targets of a `for`: `i`, `i, (a, b)` — parsed above the comparison level so
    /// that `in` ends them.
    pub(super) fn target_list(&mut self) -> Expr {
        self.list_of(Self::target_list_item)
    }

    pub(super) fn target_list_item(&mut self) -> Expr {
        if self.at(TokenKind::Star) {
            return self.star_or_expression();
        }
        self.binary(LEVEL_BIT_OR)
    }

    fn list_of(&mut self, mut item: impl FnMut(&mut Self) -> Expr) -> Expr {
        let first = item(self);
        if !self.at(TokenKind::Comma) {
            return first;
        }
        let start = first.span.start;
        let mut items = vec![first];
        while self.eat(TokenKind::Comma) {
            if !self.can_start_expression() {
                break;
            }
            items.push(item(self));
        }
        Expr::new(ExprKind::Tuple(items), Span::new(start, self.previous().span.end))
    }

    /// Whether the current token can begin an expression.
    pub(super) fn can_start_expression(&self) -> bool {
        use TokenKind::*;
        matches!(
            self.kind(),
            Name | Int
                | Float
                | String
                | UnterminatedString
                | LeftParen
                | LeftBracket
                | LeftBrace
                | Minus
                | Plus
                | Tilde
                | Not
                | None
                | True
                | False
                | Ellipsis
                | Lambda
                | Await
                | Star
        )
    }

    /// `*x` outside a call: reported, parsed, and turned into an error node.
    pub(super) fn star_or_expression(&mut self) -> Expr {
        if !self.at(TokenKind::Star) {
            return self.expression();
        }
        let star = self.bump();
        let operand = self.binary(LEVEL_BIT_OR);
        let span = star.span.cover(operand.span);
        self.report(
            SyntaxErrorKind::Unsupported
                .coded(GrammarMessage::StarredOutsideCall, span)
                .with_help_message(GrammarMessage::UnpackFixed),
        );
        Expr::error(span)
    }

    /// A full expression: `body if test else orelse`, or anything of higher precedence.
    pub(super) fn expression(&mut self) -> Expr {
        if !self.enter() {
            let start = self.current().span.start;
            self.skip_until(|kind| matches!(kind, TokenKind::Comma | TokenKind::Colon));
            return Expr::error(Span::new(start, self.previous().span.end.max(start)));
        }
        let value = self.conditional();
        self.leave();
        value
    }

    fn conditional(&mut self) -> Expr {
        if self.at(TokenKind::Lambda) {
            return self.lambda();
        }
        let body = self.or_expression();
        if self.at(TokenKind::ColonEqual) {
            let walrus = self.bump();
            let value = self.expression();
            self.unsupported(Construct::Walrus, walrus.span, Some(UnsupportedMessage::AssignFirst));
            return Expr::error(body.span.cover(value.span));
        }
        if !self.at(TokenKind::If) {
            return body;
        }
        self.bump();
        let test = self.or_expression();
        let orelse = if self.eat(TokenKind::Else) {
            self.expression()
        } else {
            let span = self.missing_span();
            self.report(
                SyntaxErrorKind::ExpectedToken
                    .coded(GrammarMessage::ExpectedElse, span)
                    .with_help_message(GrammarMessage::ConditionalReads),
            );
            Expr::error(span)
        };
        let span = body.span.cover(orelse.span);
        Expr::new(ExprKind::IfElse { test: Box::new(test), body: Box::new(body), orelse: Box::new(orelse) }, span)
    }

    pub(super) fn or_expression(&mut self) -> Expr {
        let mut left = self.and_expression();
        let mut levels = 0;
        while self.at(TokenKind::Or) && self.enter_chain(&mut levels) {
            self.bump();
            let right = self.and_expression();
            left = logical(LogicalOp::Or, left, right);
        }
        self.depth -= levels;
        left
    }

    fn and_expression(&mut self) -> Expr {
        let mut left = self.not_expression();
        let mut levels = 0;
        while self.at(TokenKind::And) && self.enter_chain(&mut levels) {
            self.bump();
            let right = self.not_expression();
            left = logical(LogicalOp::And, left, right);
        }
        self.depth -= levels;
        left
    }

    fn not_expression(&mut self) -> Expr {
        if !self.at(TokenKind::Not) {
            return self.comparison();
        }
        let keyword = self.bump();
        if !self.enter() {
            return Expr::error(keyword.span);
        }
        let operand = self.not_expression();
        self.leave();
        let span = keyword.span.cover(operand.span);
        Expr::new(ExprKind::Unary { op: UnaryOp::Not, operand: Box::new(operand) }, span)
    }

    fn comparison(&mut self) -> Expr {
        let left = self.binary(LEVEL_BIT_OR);
        let mut comparisons = Vec::new();
        while let Some(op) = self.comparison_operator() {
            comparisons.push((op, self.binary(LEVEL_BIT_OR)));
        }
        match comparisons.last() {
            None => left,
            Some((_, last)) => {
                let span = left.span.cover(last.span);
                Expr::new(ExprKind::Compare { left: Box::new(left), comparisons }, span)
            }
        }
    }

    /// Consume a comparison operator (`not in` and `is not` are two tokens) if one is next.
    fn comparison_operator(&mut self) -> Option<CompareOp> {
        let op = match self.kind() {
            TokenKind::EqualEqual => CompareOp::Equal,
            TokenKind::NotEqual => CompareOp::NotEqual,
            TokenKind::Less => CompareOp::Less,
            TokenKind::LessEqual => CompareOp::LessEqual,
            TokenKind::Greater => CompareOp::Greater,
            TokenKind::GreaterEqual => CompareOp::GreaterEqual,
            TokenKind::In => CompareOp::In,
            TokenKind::Not if self.nth_kind(1) == TokenKind::In => {
                self.bump();
                CompareOp::NotIn
            }
            TokenKind::Is if self.nth_kind(1) == TokenKind::Not => {
                self.bump();
                CompareOp::IsNot
            }
            TokenKind::Is => CompareOp::Is,
            _ => return None,
        };
        self.bump();
        Some(op)
    }

    /// Precedence climbing over the binary operators of level `minimum` and above.
    pub(super) fn binary(&mut self, minimum: u8) -> Expr {
        let mut left = self.unary();
        let mut levels = 0;
        while let Some((level, op)) = binary_operator(self.kind()) {
            if level < minimum || !self.enter_chain(&mut levels) {
                break;
            }
            let operator = self.bump();
            let right = self.binary(level + 1);
            let span = left.span.cover(right.span);
            left = if self.in_annotation && operator.kind == TokenKind::Pipe {
                // `int | None` in an annotation: kept as the tuple of the alternatives.
                Expr::new(ExprKind::Tuple(vec![left, right]), span)
            } else {
                Expr::new(ExprKind::Binary { op, left: Box::new(left), right: Box::new(right) }, span)
            };
        }
        self.depth -= levels;
        left
    }

    /// Each link of a left-leaning chain (`a + b + c`, `f()()`, `a.b.c`) deepens the tree by one,
    /// so it counts as a nesting level; on reaching the limit the rest of the expression is
    /// skipped (after a diagnostic) and the chain ends.
    pub(super) fn enter_chain(&mut self, levels: &mut usize) -> bool {
        if self.enter() {
            *levels += 1;
            return true;
        }
        self.skip_until(|kind| matches!(kind, TokenKind::Comma | TokenKind::Colon));
        false
    }

    fn unary(&mut self) -> Expr {
        let op = match self.kind() {
            TokenKind::Minus => UnaryOp::Negate,
            TokenKind::Plus => UnaryOp::Plus,
            TokenKind::Tilde => UnaryOp::Invert,
            _ => return self.power(),
        };
        let operator = self.bump();
        if !self.enter() {
            return Expr::error(operator.span);
        }
        let operand = self.unary();
        self.leave();
        let span = operator.span.cover(operand.span);
        Expr::new(ExprKind::Unary { op, operand: Box::new(operand) }, span)
    }

    fn power(&mut self) -> Expr {
        let base = self.postfix();
        if !self.at(TokenKind::DoubleStar) {
            return base;
        }
        let operator = self.bump();
        if !self.enter() {
            return Expr::error(base.span.cover(operator.span));
        }
        // The exponent is a unary expression, so `2 ** -1` works and `**` is right-associative.
        let exponent = self.unary();
        self.leave();
        let span = base.span.cover(exponent.span);
        Expr::new(ExprKind::Binary { op: BinaryOp::Power, left: Box::new(base), right: Box::new(exponent) }, span)
    }
}

fn logical(op: LogicalOp, left: Expr, right: Expr) -> Expr {
    let span = left.span.cover(right.span);
    Expr::new(ExprKind::Logical { op, left: Box::new(left), right: Box::new(right) }, span)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{messages, tree};

    #[test]
    fn precedence_follows_python() {
        // `not` is looser than comparisons; `*` tighter than `+`; unary minus looser than `**`.
        assert_eq!(tree("not a == b\n"), "expr (not (compare a == b))\n");
        assert_eq!(tree("a * b + c % d\n"), "expr (+ (* a b) (% c d))\n");
        assert_eq!(tree("-2 ** -x\n"), "expr (neg (** 2 (neg x)))\n");
        assert_eq!(tree("a not in b is not c\n"), "expr (compare a not in b is not c)\n");
        assert_eq!(tree("x = a if b else c\n"), "assign x = (ifelse b a c)\n");
    }

    #[test]
    fn bitwise_operators_bind_as_in_python() {
        // `|` below `^` below `&` below the shifts below `+`; comparisons below them all.
        assert_eq!(tree("a | b ^ c & d << 1 + 2\n"), "expr (| a (^ b (& c (<< d (+ 1 2)))))\n");
        assert_eq!(tree("x & 1 == y >> 2\n"), "expr (compare (& x 1) == (>> y 2))\n");
        assert_eq!(tree("~a & -b\n"), "expr (& (invert a) (neg b))\n");
    }

    #[test]
    fn conditional_and_walrus() {
        assert_eq!(messages("x = a if b\n"), ["expected 'else' in the conditional expression"]);
        assert_eq!(messages("f(y := 2)\n"), ["the walrus operator ':=' is not supported in tile scripts"]);
    }

    #[test]
    fn a_missing_operand_names_the_operator() {
        assert_eq!(messages("x = 1 *\n"), ["expected an expression after '*'"]);
        assert_eq!(messages("x = (1 + )\n"), ["expected an expression after '+', found ')'"]);
        assert_eq!(messages("x = if\n")[0], "expected an expression after '=', found 'if'");
    }
}
