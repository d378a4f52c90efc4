//! Every span in a tree, for checks that spans stay inside the source (tests, fuzzing, editors).

use super::*;

impl Expr {
    /// An expression of `kind` covering `span`.
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }

    /// An error expression covering `span`.
    pub fn error(span: Span) -> Self {
        Expr { kind: ExprKind::Error, span }
    }
}

/// Call `visit` with the span of every statement, expression, identifier, parameter and argument
/// of `module`, parents before children.
pub fn for_each_span(module: &Module, visit: &mut dyn FnMut(Span)) {
    visit(module.span);
    for statement in &module.body {
        statement_spans(statement, visit);
    }
}

fn statement_spans(statement: &Stmt, visit: &mut dyn FnMut(Span)) {
    visit(statement.span);
    let expression = |value: &Expr, visit: &mut dyn FnMut(Span)| expression_spans(value, visit);
    match &statement.kind {
        StmtKind::Expr(value) | StmtKind::Return(Some(value)) => expression(value, visit),
        StmtKind::Assign { targets, value } => {
            targets.iter().for_each(|target| expression(target, visit));
            expression(value, visit);
        }
        StmtKind::AugAssign { target, value, .. } => {
            expression(target, visit);
            expression(value, visit);
        }
        StmtKind::AnnAssign { target, annotation, value } => {
            expression(target, visit);
            expression(annotation, visit);
            value.iter().for_each(|value| expression(value, visit));
        }
        StmtKind::Import { names } => {
            for alias in names {
                visit(alias.span);
                alias.path.iter().chain(alias.alias.iter()).for_each(|part| visit(part.span));
            }
        }
        StmtKind::ImportFrom { module, names } => {
            module.iter().for_each(|part| visit(part.span));
            for alias in names {
                visit(alias.span);
                alias.path.iter().chain(alias.alias.iter()).for_each(|part| visit(part.span));
            }
        }
        StmtKind::Try(statement) => {
            statement.body.iter().for_each(|inner| statement_spans(inner, visit));
            for handler in &statement.handlers {
                visit(handler.span);
                handler.types.iter().for_each(|types| expression(types, visit));
                handler.name.iter().for_each(|name| visit(name.span));
                handler.body.iter().for_each(|inner| statement_spans(inner, visit));
            }
            statement.orelse.iter().chain(statement.finalbody.iter()).for_each(|inner| statement_spans(inner, visit));
        }
        StmtKind::Raise { exception, cause } => {
            exception.iter().chain(cause.iter()).for_each(|value| expression(value, visit))
        }
        StmtKind::Delete { targets } => targets.iter().for_each(|target| expression(target, visit)),
        StmtKind::Declare { names, .. } => names.iter().for_each(|name| visit(name.span)),
        StmtKind::ClassDef(class) => {
            class.decorators.iter().chain(class.bases.iter()).for_each(|value| expression(value, visit));
            visit(class.name.span);
            class.body.iter().for_each(|inner| statement_spans(inner, visit));
        }
        StmtKind::FunctionDef(function) => function_spans(function, visit),
        StmtKind::If { test, body, orelse } => {
            expression(test, visit);
            body.iter().chain(orelse.iter()).for_each(|inner| statement_spans(inner, visit));
        }
        StmtKind::For { target, iter, body } => {
            expression(target, visit);
            expression(iter, visit);
            body.iter().for_each(|inner| statement_spans(inner, visit));
        }
        StmtKind::While { test, body } => {
            expression(test, visit);
            body.iter().for_each(|inner| statement_spans(inner, visit));
        }
        StmtKind::Assert { test, message } => {
            expression(test, visit);
            message.iter().for_each(|value| expression(value, visit));
        }
        StmtKind::With { items, body } => {
            for item in items {
                expression(&item.context, visit);
                item.target.iter().for_each(|target| expression(target, visit));
            }
            body.iter().for_each(|inner| statement_spans(inner, visit));
        }
        StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Error => {}
    }
}

/// A `def`'s (or a lambda's) decorators, name, parameters, annotations and body.
fn function_spans(function: &FunctionDef, visit: &mut dyn FnMut(Span)) {
    function.decorators.iter().for_each(|decorator| expression_spans(decorator, visit));
    visit(function.name.span);
    let parameters = &function.parameters;
    let all = parameters
        .positional
        .iter()
        .chain(parameters.varargs.iter())
        .chain(parameters.keyword_only.iter())
        .chain(parameters.kwargs.iter());
    for parameter in all {
        visit(parameter.span);
        visit(parameter.name.span);
        parameter.annotation.iter().chain(parameter.default.iter()).for_each(|value| expression_spans(value, visit));
    }
    function.returns.iter().for_each(|value| expression_spans(value, visit));
    function.body.iter().for_each(|inner| statement_spans(inner, visit));
}

fn expression_spans(value: &Expr, visit: &mut dyn FnMut(Span)) {
    visit(value.span);
    match &value.kind {
        ExprKind::Name(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Ellipsis
        | ExprKind::Error => {}
        ExprKind::FString(parts) => {
            for part in parts {
                if let FStringPart::Field { expression, .. } = part {
                    expression_spans(expression, visit);
                }
            }
        }
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
            items.iter().for_each(|item| expression_spans(item, visit))
        }
        ExprKind::Dict(pairs) => {
            for (key, item) in pairs {
                expression_spans(key, visit);
                expression_spans(item, visit);
            }
        }
        ExprKind::Attribute { value, attribute } => {
            expression_spans(value, visit);
            visit(attribute.span);
        }
        ExprKind::Subscript { value, index } => {
            expression_spans(value, visit);
            expression_spans(index, visit);
        }
        ExprKind::Slice { lower, upper, step } => {
            lower.iter().chain(upper.iter()).chain(step.iter()).for_each(|bound| expression_spans(bound, visit));
        }
        ExprKind::Call { function, arguments } => {
            expression_spans(function, visit);
            for argument in arguments {
                visit(argument.span);
                match &argument.kind {
                    ArgumentKind::Positional(value)
                    | ArgumentKind::Unpack(value)
                    | ArgumentKind::UnpackKeywords(value) => expression_spans(value, visit),
                    ArgumentKind::Keyword { name, value } => {
                        visit(name.span);
                        expression_spans(value, visit);
                    }
                }
            }
        }
        ExprKind::Unary { operand, .. } => expression_spans(operand, visit),
        ExprKind::Binary { left, right, .. } | ExprKind::Logical { left, right, .. } => {
            expression_spans(left, visit);
            expression_spans(right, visit);
        }
        ExprKind::Compare { left, comparisons } => {
            expression_spans(left, visit);
            comparisons.iter().for_each(|(_, right)| expression_spans(right, visit));
        }
        ExprKind::IfElse { test, body, orelse } => {
            expression_spans(test, visit);
            expression_spans(body, visit);
            expression_spans(orelse, visit);
        }
        ExprKind::Lambda(function) => function_spans(function, visit),
        ExprKind::ListComp { element, generators } | ExprKind::SetComp { element, generators } => {
            expression_spans(element, visit);
            comprehension_spans(generators, visit);
        }
        ExprKind::DictComp { key, value, generators } => {
            expression_spans(key, visit);
            expression_spans(value, visit);
            comprehension_spans(generators, visit);
        }
    }
}

fn comprehension_spans(generators: &[Comprehension], visit: &mut dyn FnMut(Span)) {
    for generator in generators {
        expression_spans(&generator.target, visit);
        expression_spans(&generator.iterable, visit);
        generator.conditions.iter().for_each(|condition| expression_spans(condition, visit));
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_span;
    use crate::lang::syntax::parse;

    #[test]
    fn visits_every_node_parent_first() {
        // module, statement, call, function name `f`, argument, its value `1`, keyword argument,
        // its name `k`, its value `x`.
        let source = "f(1, k=x)\n";
        let output = parse(source);
        let mut texts = Vec::new();
        for_each_span(&output.module, &mut |span| texts.push(span.text(source).to_string()));
        assert_eq!(texts, [source, "f(1, k=x)", "f(1, k=x)", "f", "1", "1", "k=x", "k", "x"]);
    }
}
