//! The jit adjoint's structural decisions on hand-built captures: plain stores where the views of
//! an argument are disjoint, f32 accumulating stores where they overlap, and the captures it
//! refuses (two stores into one region, a view of a computed tile).

use super::jit::derive_jit;
use crate::lang::interp::pypto::capture::{Arg, Captured, CapturedOp, TensorRef};
use crate::tensor::{BinaryOp, DType, UnaryOp};

fn op(op: CapturedOp, result: Option<&TensorRef>) -> Captured {
    Captured { op, result: result.cloned(), line: Some(1) }
}

/// Two units: each views 4 rows of x ([8, 16], BF16) from `offset` and the whole of γ ([1, 16],
/// f32), computes `exp(view)·γ` and assembles it into the same rows of out.
fn two_units(second_offset: usize) -> (Vec<Captured>, Vec<TensorRef>) {
    let x = TensorRef::fresh(&[8, 16], None, DType::Bf16);
    let gamma = TensorRef::fresh(&[1, 16], None, DType::F32);
    let out = TensorRef::fresh(&[8, 16], None, DType::F32);
    let mut ops = Vec::new();
    for offset in [0, second_offset] {
        ops.push(op(CapturedOp::UnitStart, None));
        let view = TensorRef::fresh(&[4, 16], None, DType::Bf16);
        ops.push(op(CapturedOp::View { source: x.clone(), offsets: vec![offset, 0] }, Some(&view)));
        let exp = TensorRef::fresh(&[4, 16], None, DType::Bf16);
        ops.push(op(CapturedOp::Unary { op: UnaryOp::Exp, x: view }, Some(&exp)));
        let scaled = TensorRef::fresh(&[4, 16], None, DType::F32);
        let product = CapturedOp::Binary { op: BinaryOp::Mul, lhs: Arg::Tensor(exp), rhs: Arg::Tensor(gamma.clone()) };
        ops.push(op(product, Some(&scaled)));
        ops.push(op(CapturedOp::Assemble { tile: scaled, offsets: vec![offset, 0], out: out.clone() }, None));
    }
    (ops, vec![x, gamma, out])
}

fn stores(ops: &[Captured]) -> usize {
    ops.iter().filter(|op| matches!(op.op, CapturedOp::Assemble { .. })).count()
}

#[test]
fn disjoint_views_store_plainly_and_a_parameter_viewed_by_every_unit_accumulates_in_f32() {
    let (ops, arguments) = two_units(4);
    let adjoint = derive_jit(&ops, &arguments, &[true, true, false]).expect("derivable");
    let dtypes: Vec<Option<DType>> =
        adjoint.gradients.iter().map(|gradient| gradient.as_ref().map(TensorRef::dtype)).collect();
    // x's two views are disjoint: its gradient is stored in its dtype; γ is read whole by both
    // units: its partials are added into an f32 gradient; out needs none.
    assert_eq!(dtypes, vec![Some(DType::Bf16), Some(DType::F32), None]);
    assert_eq!(adjoint.grad_outputs.len(), 1);
    // Per unit: the store of dx's rows and the accumulating store of γ's partial.
    assert_eq!(stores(&adjoint.ops), 4);
    let accumulating =
        adjoint.ops.iter().filter(|op| matches!(&op.op, CapturedOp::Binary { op: BinaryOp::Add, .. })).count();
    assert_eq!(accumulating, 2);
    let units = adjoint.ops.iter().filter(|op| matches!(op.op, CapturedOp::UnitStart)).count();
    assert_eq!(units, 2);
}

#[test]
fn overlapping_stores_into_an_output_are_refused() {
    // Views at rows 0 and 2 overlap in rows 2..4 — but so do the stores into out: refused.
    let (ops, arguments) = two_units(2);
    let refused = derive_jit(&ops, &arguments, &[true, false, false]).err().expect("refused");
    assert_eq!(refused.what, crate::messages::DerivationReason::OverlappingStores, "{refused:?}");
}

#[test]
fn a_view_of_a_computed_tile_is_refused_with_what_to_do() {
    let x = TensorRef::fresh(&[4, 16], None, DType::F32);
    let out = TensorRef::fresh(&[4, 8], None, DType::F32);
    let exp = TensorRef::fresh(&[4, 16], None, DType::F32);
    let half = TensorRef::fresh(&[4, 8], None, DType::F32);
    let ops = vec![
        op(CapturedOp::Unary { op: UnaryOp::Exp, x: x.clone() }, Some(&exp)),
        op(CapturedOp::View { source: exp, offsets: vec![0, 8] }, Some(&half)),
        op(CapturedOp::Assemble { tile: half, offsets: vec![0, 0], out: out.clone() }, None),
    ];
    let refused = derive_jit(&ops, &[x, out], &[true, false]).err().expect("refused");
    assert_eq!(refused.what, crate::messages::DerivationReason::ViewOfComputed, "{refused:?}");
    assert_eq!(refused.line, Some(1));
}
