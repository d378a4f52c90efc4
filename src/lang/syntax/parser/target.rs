//! Checks that the left side of `=`, `+=`, `for … in` and `with … as` can be assigned to.

use super::Parser;
use crate::lang::syntax::ast::{Expr, ExprKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::messages::{Assignee, GrammarMessage};

impl Parser<'_> {
    /// A type annotation: an expression in which `|` joins alternatives (`float | None`).
    pub(super) fn annotation(&mut self) -> Expr {
        let outer = std::mem::replace(&mut self.in_annotation, true);
        let annotation = self.expression();
        self.in_annotation = outer;
        annotation
    }

    /// Report `target` if it cannot be assigned to; `single` forbids tuples and lists (for `+=`
    /// and annotated assignment).
    pub(super) fn check_target(&mut self, target: &Expr, single: bool) {
        let what = match &target.kind {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } | ExprKind::Error => return,
            ExprKind::Tuple(items) | ExprKind::List(items) if !single => {
                for item in items {
                    self.check_target(item, false);
                }
                return;
            }
            ExprKind::Tuple(_) | ExprKind::List(_) => Assignee::TupleOrList,
            ExprKind::Call { .. } => Assignee::Call,
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::FString(_)
            | ExprKind::Bool(_)
            | ExprKind::None
            | ExprKind::Ellipsis => Assignee::Literal,
            ExprKind::Dict(_) => Assignee::Dict,
            ExprKind::Set(_) => Assignee::Set,
            ExprKind::Compare { .. } => Assignee::Comparison,
            ExprKind::IfElse { .. } => Assignee::Conditional,
            ExprKind::ListComp { .. } | ExprKind::SetComp { .. } | ExprKind::DictComp { .. } => Assignee::Comprehension,
            ExprKind::Lambda(_) => Assignee::Lambda,
            ExprKind::Slice { .. } => Assignee::Slice,
            ExprKind::Unary { .. } | ExprKind::Binary { .. } | ExprKind::Logical { .. } => Assignee::Expression,
        };
        let diagnostic =
            SyntaxErrorKind::InvalidAssignmentTarget.coded(GrammarMessage::CannotAssign { what }, target.span);
        let diagnostic = match &target.kind {
            ExprKind::Call { .. } => diagnostic.with_help_message(GrammarMessage::WriteInPlace),
            ExprKind::Compare { .. } => diagnostic.with_help_message(GrammarMessage::CompareOrAssign),
            _ => diagnostic.with_help_message(GrammarMessage::Assignable),
        };
        self.report(diagnostic);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::messages;

    #[test]
    fn only_names_attributes_subscripts_and_their_tuples_are_targets() {
        assert!(messages("a, (b.c, d[0]) = x\n[e, f] = y\nfor i, (j, k) in z: pass\n").is_empty());
        assert_eq!(messages("1 = x\n"), ["cannot assign to a literal"]);
        assert_eq!(messages("a + b = x\n"), ["cannot assign to an expression"]);
        assert_eq!(messages("a, f() = x\n"), ["cannot assign to a function call"]);
        assert_eq!(
            messages("a, b += 1\n"),
            ["cannot assign to a tuple or list here (only one name, attribute or subscript)"]
        );
        assert_eq!(messages("with a as f(): pass\n"), ["cannot assign to a function call"]);
    }
}
