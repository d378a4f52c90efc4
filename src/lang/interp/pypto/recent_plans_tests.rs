//! The memo of compiled kernels: the same work on the same chip is compiled once; another chip,
//! another work or a work evicted by newer ones is compiled again.

use std::rc::Rc;

use super::super::npu_run::lower_and_simulate;
use crate::lang::interp::{Interpreter, Limits};
use crate::lang::syntax::parse;
use crate::npu::NpuConfig;
use crate::tile::TileWork;

/// The work `kernel(x)` records for an [rows, 64] input on the NPU.
fn work_of(rows: usize) -> TileWork {
    let source = format!(
        "import pypto as pt\n@pt.kernel\ndef kernel(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.exp(x) * 2\nkernel(pt.ones([{rows}, 64]))\n"
    );
    let interpreter = Interpreter::new(Limits::default());
    interpreter.set_cell_source(1, &source);
    let parsed = parse(&source);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    interpreter.run_module(&parsed.module, 1).unwrap_or_else(|error| panic!("{}", error.message));
    let work = interpreter.npu.last_work.borrow().clone();
    work.expect("the kernel ran on the NPU")
}

fn compiled(work: &TileWork, config: &NpuConfig) -> Rc<crate::npu::Simulation> {
    lower_and_simulate(work, config).unwrap_or_else(|_| panic!("the work compiles")).1
}

#[test]
fn the_same_work_on_the_same_chip_is_compiled_once() {
    let chip = NpuConfig::preset("Ascend910B2").unwrap();
    let work = work_of(32);
    let first = compiled(&work, &chip);
    // An equal work recorded by another run is found too (equality, not identity).
    assert!(Rc::ptr_eq(&first, &compiled(&work_of(32), &chip)));
    let other_chip = NpuConfig::preset("teaching").unwrap();
    let elsewhere = compiled(&work, &other_chip);
    assert!(!Rc::ptr_eq(&first, &elsewhere));
    let larger = compiled(&work_of(64), &chip);
    assert!(!Rc::ptr_eq(&first, &larger));
    assert_eq!(larger.summary.flops, 2 * first.summary.flops, "the larger work's own schedule");
    assert!(Rc::ptr_eq(&first, &compiled(&work, &chip)), "still kept: three works since");
}

#[test]
fn the_least_recent_work_is_forgotten() {
    let chip = NpuConfig::preset("Ascend910B2").unwrap();
    let work = work_of(16);
    let first = compiled(&work, &chip);
    for rows in [24, 40, 48, 56] {
        compiled(&work_of(rows), &chip);
    }
    let again = compiled(&work, &chip);
    assert!(!Rc::ptr_eq(&first, &again), "four newer works evict it");
    assert_eq!(*first, *again, "compiled again, to the same schedule");
}
