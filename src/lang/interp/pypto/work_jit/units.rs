//! Where a jit kernel's units of work start (every `pypto.loop` iteration) and what a finished
//! unit keeps (the steps whose results something stores).

use crate::lang::syntax::ast::{ExprKind, Stmt, StmtKind};
use crate::lang::syntax::Span;
use crate::tile::WorkUnit;

/// Where units of work start in `body`: the first statement of every `pypto.loop` body, nested or
/// not (every iteration of every loop is work, as in pypto), and the statement after a nested
/// loop (what an outer iteration does after its inner loop is not the inner loop's last iteration).
pub(crate) fn loop_body_starts(body: &[Stmt]) -> Vec<Span> {
    let mut starts = Vec::new();
    for statement in body {
        match &statement.kind {
            StmtKind::For { iter, body, .. } if is_pypto_loop(iter) => {
                starts.extend(body.first().map(|first| first.span));
                starts.extend(loop_body_starts(body));
                let mut statements = body.iter().peekable();
                while let Some(inner) = statements.next() {
                    let nested = matches!(&inner.kind, StmtKind::For { iter, .. } if is_pypto_loop(iter));
                    if let (true, Some(next)) = (nested, statements.peek()) {
                        starts.push(next.span);
                    }
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::With { body, .. } => {
                starts.extend(loop_body_starts(body))
            }
            StmtKind::If { body, orelse, .. } => {
                starts.extend(loop_body_starts(body));
                starts.extend(loop_body_starts(orelse));
            }
            _ => {}
        }
    }
    starts
}

fn is_pypto_loop(iter: &crate::lang::syntax::ast::Expr) -> bool {
    matches!(&iter.kind, ExprKind::Call { function, .. } if matches!(&function.kind, ExprKind::Attribute { attribute, .. } if matches!(attribute.name.as_str(), "loop" | "loop_unroll")))
}

/// Removes the steps whose results nothing stores (a view or a value the script computed and
/// never wrote), as the pypto compiler does: they would only cost copies and vector time.
pub(super) fn drop_dead_steps(unit: &mut WorkUnit) {
    let mut live = std::collections::HashSet::new();
    let mut keep = vec![false; unit.steps.len()];
    for (index, located) in unit.steps.iter().enumerate().rev() {
        let (reads, output) = located.step.values();
        if output.is_none_or(|output| live.contains(&output)) {
            keep[index] = true;
            live.extend(reads);
        }
    }
    let mut flags = keep.into_iter();
    unit.steps.retain(|_| flags.next().unwrap_or(true));
}
