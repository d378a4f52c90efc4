//! `lambda parameters: body`, the one-expression functions real code passes as `key=` or keeps in
//! tables of operations.

use std::sync::Arc;

use super::Parser;
use crate::lang::syntax::ast::{Expr, ExprKind, FunctionDef, Identifier, Stmt, StmtKind};
use crate::lang::syntax::diagnostic::SyntaxErrorKind;
use crate::lang::syntax::token::TokenKind;

impl Parser<'_> {
    /// A lambda; the current token is `lambda`. Its tree is a `FunctionDef` named `<lambda>` whose
    /// body returns the expression (shared, so evaluating a lambda does not copy its body).
    pub(super) fn lambda(&mut self) -> Expr {
        let keyword = self.bump();
        let parameters = self.parameter_list(TokenKind::Colon);
        let body = if self.eat(TokenKind::Colon) {
            self.expression()
        } else {
            let span = self.missing_span();
            self.report(
                SyntaxErrorKind::ExpectedToken
                    .coded(crate::messages::SyntaxMessage::ExpectedColon { keyword: "lambda".into() }, span)
                    .with_help_message(crate::messages::SyntaxMessage::LambdaReads),
            );
            Expr::error(span)
        };
        let span = keyword.span.cover(body.span);
        let name = Identifier { name: "<lambda>".to_string(), span: keyword.span };
        let body = vec![Stmt { kind: StmtKind::Return(Some(body)), span }];
        let definition = FunctionDef { decorators: Vec::new(), name, parameters, returns: None, body };
        Expr::new(ExprKind::Lambda(Arc::new(definition)), span)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{messages, tree};

    #[test]
    fn lambdas_with_every_kind_of_parameter() {
        assert_eq!(tree("f = lambda: 0\n"), "assign f = (lambda () 0)\n");
        assert_eq!(tree("f = lambda a, b=2: a + b\n"), "assign f = (lambda (a, b=2) (+ a b))\n");
        assert_eq!(tree("f = lambda *args, k=1, **kw: k\n"), "assign f = (lambda (*args, k=1, **kw) k)\n");
        // The body is a full expression (a conditional), and a lambda may return a lambda.
        assert_eq!(tree("g = lambda x: x if x else -x\n"), "assign g = (lambda (x) (ifelse x x (neg x)))\n");
        assert_eq!(tree("h = lambda x: lambda y: x * y\n"), "assign h = (lambda (x) (lambda (y) (* x y)))\n");
    }

    #[test]
    fn lambdas_as_arguments_and_in_tables() {
        assert_eq!(
            tree("s = sorted(v, key=lambda p: p[1])\n"),
            "assign s = (call sorted v (kw key (lambda (p) (sub p 1))))\n"
        );
        assert_eq!(
            tree("ops = [(0, lambda a, b: a + b, 'add')]\n"),
            "assign ops = (list (tuple 0 (lambda (a, b) (+ a b)) \"add\"))\n"
        );
    }

    #[test]
    fn broken_lambdas_are_located() {
        assert_eq!(messages("f = lambda x\n"), ["expected ':' after the lambda's parameters"]);
        assert_eq!(messages("f = lambda x, x: x\n"), ["duplicate parameter 'x'"]);
        // Annotations belong to `def`: in a lambda the ':' ends the parameters.
        assert_eq!(messages("f = lambda x: int: x\n").len(), 1);
    }
}
