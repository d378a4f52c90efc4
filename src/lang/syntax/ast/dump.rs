//! A compact text form of the tree (statements one per line, expressions as s-expressions), for
//! tests and for debugging the interpreter.

use super::*;

/// The tree as text: one statement per line, bodies indented by two spaces.
pub fn dump(module: &Module) -> String {
    let mut out = String::new();
    statements(&module.body, 0, &mut out);
    out
}

fn statements(body: &[Stmt], depth: usize, out: &mut String) {
    for statement in body {
        statement_line(statement, depth, out);
    }
}

fn line(depth: usize, text: &str, out: &mut String) {
    out.push_str(&"  ".repeat(depth));
    out.push_str(text);
    out.push('\n');
}

fn statement_line(statement: &Stmt, depth: usize, out: &mut String) {
    match &statement.kind {
        StmtKind::Expr(value) => line(depth, &format!("expr {}", expression(value)), out),
        StmtKind::Assign { targets, value } => {
            let targets: Vec<String> = targets.iter().map(expression).collect();
            line(depth, &format!("assign {} = {}", targets.join(" = "), expression(value)), out)
        }
        StmtKind::AugAssign { target, op, value } => {
            line(depth, &format!("augassign {} {}= {}", expression(target), op.symbol(), expression(value)), out)
        }
        StmtKind::AnnAssign { target, annotation, value } => {
            let value = value.as_ref().map(|value| format!(" = {}", expression(value))).unwrap_or_default();
            line(depth, &format!("annassign {}: {}{value}", expression(target), expression(annotation)), out)
        }
        StmtKind::Import { names } => {
            let names: Vec<String> = names
                .iter()
                .map(|alias| {
                    let path: Vec<&str> = alias.path.iter().map(|part| part.name.as_str()).collect();
                    match &alias.alias {
                        Some(name) => format!("{} as {}", path.join("."), name.name),
                        None => path.join("."),
                    }
                })
                .collect();
            line(depth, &format!("import {}", names.join(", ")), out)
        }
        StmtKind::ImportFrom { module, names } => {
            let module: Vec<&str> = module.iter().map(|part| part.name.as_str()).collect();
            let names: Vec<String> = names
                .iter()
                .map(|alias| {
                    let name = alias.path.first().map_or("", |part| part.name.as_str());
                    match &alias.alias {
                        Some(alias) => format!("{name} as {}", alias.name),
                        None => name.to_string(),
                    }
                })
                .collect();
            line(depth, &format!("from {} import {}", module.join("."), names.join(", ")), out)
        }
        StmtKind::Try(statement) => {
            line(depth, "try", out);
            statements(&statement.body, depth + 1, out);
            for handler in &statement.handlers {
                let types = handler.types.as_ref().map(|types| format!(" {}", expression(types))).unwrap_or_default();
                let name = handler.name.as_ref().map(|name| format!(" as {}", name.name)).unwrap_or_default();
                line(depth, &format!("except{types}{name}"), out);
                statements(&handler.body, depth + 1, out);
            }
            if !statement.orelse.is_empty() {
                line(depth, "else", out);
                statements(&statement.orelse, depth + 1, out);
            }
            if !statement.finalbody.is_empty() {
                line(depth, "finally", out);
                statements(&statement.finalbody, depth + 1, out);
            }
        }
        StmtKind::Raise { exception, cause } => {
            let exception = exception.as_ref().map(|value| format!(" {}", expression(value))).unwrap_or_default();
            let cause = cause.as_ref().map(|value| format!(" from {}", expression(value))).unwrap_or_default();
            line(depth, &format!("raise{exception}{cause}"), out)
        }
        StmtKind::Declare { names, nonlocal } => {
            let names: Vec<&str> = names.iter().map(|name| name.name.as_str()).collect();
            let keyword = if *nonlocal { "nonlocal" } else { "global" };
            line(depth, &format!("{keyword} {}", names.join(", ")), out)
        }
        StmtKind::Delete { targets } => {
            let targets: Vec<String> = targets.iter().map(expression).collect();
            line(depth, &format!("del {}", targets.join(", ")), out)
        }
        StmtKind::ClassDef(class) => {
            for decorator in &class.decorators {
                line(depth, &format!("@{}", expression(decorator)), out);
            }
            let bases: Vec<String> = class.bases.iter().map(expression).collect();
            line(depth, &format!("class {}({})", class.name.name, bases.join(", ")), out);
            statements(&class.body, depth + 1, out);
        }
        StmtKind::FunctionDef(function) => {
            for decorator in &function.decorators {
                line(depth, &format!("@{}", expression(decorator)), out);
            }
            let returns = function.returns.as_ref().map(|r| format!(" -> {}", expression(r))).unwrap_or_default();
            line(depth, &format!("def {}({}){returns}", function.name.name, parameters(&function.parameters)), out);
            statements(&function.body, depth + 1, out);
        }
        StmtKind::Return(value) => match value {
            Some(value) => line(depth, &format!("return {}", expression(value)), out),
            None => line(depth, "return", out),
        },
        StmtKind::If { test, body, orelse } => {
            line(depth, &format!("if {}", expression(test)), out);
            statements(body, depth + 1, out);
            if !orelse.is_empty() {
                line(depth, "else", out);
                statements(orelse, depth + 1, out);
            }
        }
        StmtKind::For { target, iter, body } => {
            line(depth, &format!("for {} in {}", expression(target), expression(iter)), out);
            statements(body, depth + 1, out);
        }
        StmtKind::While { test, body } => {
            line(depth, &format!("while {}", expression(test)), out);
            statements(body, depth + 1, out);
        }
        StmtKind::Break => line(depth, "break", out),
        StmtKind::Continue => line(depth, "continue", out),
        StmtKind::Pass => line(depth, "pass", out),
        StmtKind::Assert { test, message } => {
            let message = message.as_ref().map(|m| format!(", {}", expression(m))).unwrap_or_default();
            line(depth, &format!("assert {}{message}", expression(test)), out)
        }
        StmtKind::With { items, body } => {
            let items: Vec<String> = items
                .iter()
                .map(|item| match &item.target {
                    Some(target) => format!("{} as {}", expression(&item.context), expression(target)),
                    None => expression(&item.context),
                })
                .collect();
            line(depth, &format!("with {}", items.join(", ")), out);
            statements(body, depth + 1, out);
        }
        StmtKind::Error => line(depth, "<error>", out),
    }
}

fn parameters(parameters: &Parameters) -> String {
    let one = |parameter: &Parameter, prefix: &str| {
        let mut text = format!("{prefix}{}", parameter.name.name);
        if let Some(annotation) = &parameter.annotation {
            text.push_str(&format!(": {}", expression(annotation)));
        }
        if let Some(default) = &parameter.default {
            text.push_str(&format!("={}", expression(default)));
        }
        text
    };
    let mut parts: Vec<String> = parameters.positional.iter().map(|p| one(p, "")).collect();
    match &parameters.varargs {
        Some(varargs) => parts.push(one(varargs, "*")),
        None if !parameters.keyword_only.is_empty() => parts.push("*".into()),
        None => {}
    }
    parts.extend(parameters.keyword_only.iter().map(|p| one(p, "")));
    parts.extend(parameters.kwargs.iter().map(|p| one(p, "**")));
    parts.join(", ")
}

/// One expression as an s-expression: `(+ a (call f 1 (kw dim -1)))`.
pub fn expression(value: &Expr) -> String {
    let list = |head: &str, items: &[Expr]| {
        let mut text = format!("({head}");
        for item in items {
            text.push(' ');
            text.push_str(&expression(item));
        }
        text.push(')');
        text
    };
    let optional = |value: &Option<Box<Expr>>| value.as_ref().map_or("_".to_string(), |v| expression(v));
    match &value.kind {
        ExprKind::Name(name) => name.clone(),
        ExprKind::Int(number) => number.to_string(),
        ExprKind::Float(number) => format!("{number:?}"),
        ExprKind::Str(text) => format!("{text:?}"),
        ExprKind::FString(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|part| match part {
                    FStringPart::Literal(text) => format!("{text:?}"),
                    FStringPart::Field { expression: field, conversion, format_spec } => {
                        let conversion = conversion.map(|c| format!(" !{c}")).unwrap_or_default();
                        let spec = format_spec.as_ref().map(|s| format!(" :{s:?}")).unwrap_or_default();
                        format!("{{{}{conversion}{spec}}}", expression(field))
                    }
                })
                .collect();
            format!("(f {})", parts.join(" "))
        }
        ExprKind::Bool(flag) => if *flag { "True" } else { "False" }.to_string(),
        ExprKind::None => "None".into(),
        ExprKind::Ellipsis => "...".into(),
        ExprKind::List(items) => list("list", items),
        ExprKind::Tuple(items) => list("tuple", items),
        ExprKind::Set(items) => list("set", items),
        ExprKind::Dict(pairs) => {
            let pairs: Vec<String> =
                pairs.iter().map(|(k, v)| format!(" ({} {})", expression(k), expression(v))).collect();
            format!("(dict{})", pairs.concat())
        }
        ExprKind::Attribute { value, attribute } => format!("(. {} {})", expression(value), attribute.name),
        ExprKind::Subscript { value, index } => format!("(sub {} {})", expression(value), expression(index)),
        ExprKind::Slice { lower, upper, step } => {
            format!("(slice {} {} {})", optional(lower), optional(upper), optional(step))
        }
        ExprKind::Call { function, arguments } => {
            let mut text = format!("(call {}", expression(function));
            for argument in arguments {
                text.push(' ');
                text.push_str(&match &argument.kind {
                    ArgumentKind::Positional(value) => expression(value),
                    ArgumentKind::Keyword { name, value } => format!("(kw {} {})", name.name, expression(value)),
                    ArgumentKind::Unpack(value) => format!("(* {})", expression(value)),
                    ArgumentKind::UnpackKeywords(value) => format!("(** {})", expression(value)),
                });
            }
            text.push(')');
            text
        }
        ExprKind::Unary { op, operand } => {
            let op = match op {
                UnaryOp::Negate => "neg",
                UnaryOp::Plus => "pos",
                UnaryOp::Not => "not",
                UnaryOp::Invert => "invert",
            };
            format!("({op} {})", expression(operand))
        }
        ExprKind::Binary { op, left, right } => format!("({} {} {})", op.symbol(), expression(left), expression(right)),
        ExprKind::Logical { op, left, right } => {
            let op = if *op == LogicalOp::And { "and" } else { "or" };
            format!("({op} {} {})", expression(left), expression(right))
        }
        ExprKind::Compare { left, comparisons } => {
            let mut text = format!("(compare {}", expression(left));
            for (op, right) in comparisons {
                text.push_str(&format!(" {} {}", op.symbol(), expression(right)));
            }
            text.push(')');
            text
        }
        ExprKind::IfElse { test, body, orelse } => {
            format!("(ifelse {} {} {})", expression(test), expression(body), expression(orelse))
        }
        ExprKind::Lambda(function) => {
            let body = match function.body.first().map(|statement| &statement.kind) {
                Some(StmtKind::Return(Some(body))) => expression(body),
                _ => "<error>".into(),
            };
            format!("(lambda ({}) {body})", parameters(&function.parameters))
        }
        ExprKind::ListComp { element, generators } => {
            format!("(listcomp {}{})", expression(element), comprehension(generators))
        }
        ExprKind::SetComp { element, generators } => {
            format!("(setcomp {}{})", expression(element), comprehension(generators))
        }
        ExprKind::DictComp { key, value, generators } => {
            format!("(dictcomp {} {}{})", expression(key), expression(value), comprehension(generators))
        }
        ExprKind::Error => "<error>".into(),
    }
}

/// The `for … in … if …` clauses of a comprehension.
fn comprehension(generators: &[Comprehension]) -> String {
    let mut text = String::new();
    for generator in generators {
        text.push_str(&format!(" for {} in {}", expression(&generator.target), expression(&generator.iterable)));
        for condition in &generator.conditions {
            text.push_str(&format!(" if {}", expression(condition)));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::lang::syntax::ast::dump;
    use crate::lang::syntax::parse;

    #[test]
    fn dump_shows_errors_and_nesting() {
        let output = parse("def f(a: int = 1) -> None:\n    return a if a else -a\nx = 1 +\n");
        assert_eq!(
            dump(&output.module),
            "def f(a: int=1) -> None\n  return (ifelse a a (neg a))\nassign x = (+ 1 <error>)\n"
        );
    }
}
