//! Progress of long builtins as the session's host sees it: `check_gradient` and `pypto.npu.sweep`
//! report (label, done, total) through the reporter installed with `set_progress_reporter`, with
//! `done` rising to `total`; a session without a reporter runs the same cells unchanged.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;
use std::rc::Rc;

use tilelab::messages::{KernelStage, Message};
use tilelab::session::{set_progress_reporter, ProgressReporter, Session};

type Update = (String, usize, usize, Option<Message>);

/// Runs `code` in a fresh session with a recording reporter; returns what it saw (label, done, total).
fn record(code: &str) -> Vec<(String, usize, usize)> {
    let (seen, _) = record_with(Session::new(), code);
    seen.into_iter().map(|(label, done, total, _)| (label, done, total)).collect()
}

/// Runs `code` in `session` with a recording reporter; returns every update and the session.
fn record_with(mut session: Session, code: &str) -> (Vec<Update>, Session) {
    let seen: Rc<RefCell<Vec<Update>>> = Rc::default();
    let sink = seen.clone();
    let reporter: ProgressReporter = Rc::new(move |label: &str, done, total, message: Option<&Message>| {
        sink.borrow_mut().push((label.to_string(), done, total, message.cloned()))
    });
    set_progress_reporter(Some(reporter));
    let result = session.run_cell(code);
    set_progress_reporter(None);
    assert!(result.is_ok(), "{:?}", result.error());
    let seen = seen.borrow().clone();
    (seen, session)
}

/// A 6×6 input with a 6×6 output: full mode, 36 backward passes + 36 perturbed elements = 72
/// units, each its own percent, so every count 0..=72 arrives once, in order.
#[test]
fn a_gradient_check_reports_every_unit_of_a_small_problem() {
    let seen = record("import pypto as pt\ndef square(t):\n    return t * t\nx = pt.randn([6, 6], seed=1)\nr = pt.autodiff.check_gradient(square, [x])\nassert r.passed");
    let expected: Vec<(String, usize, usize)> = (0..=72).map(|done| ("check_gradient".to_string(), done, 72)).collect();
    assert_eq!(seen, expected);
}

/// A sweep over 4 vec tile shapes reports after each shape: 1/4, 2/4, 3/4, 4/4.
#[test]
fn a_sweep_reports_each_tile_shape() {
    let code = "import pypto as pt\npt.npu.use('teaching')\n@pt.kernel\ndef gated(x, y):\n    pt.set_vec_tile_shapes(8, 64)\n    return pt.silu(x) * y\nx = pt.randn([64, 256], seed=5)\ny = pt.randn([64, 256], seed=6)\ns = pt.npu.sweep(gated, (x, y), vec_tiles=[[2, 64], [4, 64], [8, 64], [16, 64]])";
    let seen = record(code);
    let expected: Vec<(String, usize, usize)> = (1..=4).map(|done| ("sweep".to_string(), done, 4)).collect();
    assert_eq!(seen, expected);
}

/// Without a reporter nothing is recorded and the cell still runs.
#[test]
fn without_a_reporter_cells_run_unchanged() {
    set_progress_reporter(None);
    let result = Session::new().run_cell("import pypto as pt\ndef square(t):\n    return t * t\nr = pt.autodiff.check_gradient(square, [pt.randn([3], seed=2)])\nassert r.passed");
    assert!(result.is_ok(), "{:?}", result.error());
}

/// Any long cell reports the steps it used of its budget (50 M by default), checked every 65 536
/// steps and throttled to whole percents like every label: the first report (0 %) at 65 536
/// steps, the next once 1 % (500 000 steps) is passed, each a multiple of 65 536.
#[test]
fn a_long_loop_reports_its_steps_against_the_budget() {
    let seen = record("total = 0\nfor i in range(400000):\n    total += i");
    let steps: Vec<usize> = seen.iter().filter(|(label, _, _)| label == "steps").map(|(_, done, _)| *done).collect();
    assert!(seen.iter().all(|(label, _, total)| label == "steps" && *total == 50_000_000), "{seen:?}");
    assert_eq!(steps[0], 65_536);
    assert!(steps.len() >= 2, "the loop passes 1 % of the budget: {steps:?}");
    assert!(steps[1] >= 500_000 && steps[1] < 500_000 + 65_536, "{steps:?}");
    assert!(steps.iter().all(|done| done % 65_536 == 0), "{steps:?}");
}

/// Each kernel call reports its three stages as they start (computing the values — its body runs —
/// with 0 of 3 done, compiling 1 of 3, simulating 2 of 3) with a message naming the kernel and its
/// call number in the cell, which starts at 1 again in the next cell. A call whose tile work was
/// compiled for the chip recently reuses it: it only computes.
#[test]
fn kernel_calls_report_their_stages() {
    let define = "import pypto as pt\npt.npu.use('teaching')\n@pt.kernel\ndef scaled(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return x * 2.0\nx = pt.randn([16, 64], seed=3)\ny = pt.randn([32, 64], seed=4)";
    let (seen, mut session) = record_with(Session::new(), &format!("{define}\na = scaled(x)\nb = scaled(y)"));
    let kernel: Vec<_> = seen.iter().filter(|(label, ..)| label == "kernel").collect();
    let stages = [KernelStage::Computing, KernelStage::Compiling, KernelStage::Simulating];
    let mut expected = Vec::new();
    for call in 1..=2 {
        for (position, stage) in stages.iter().enumerate() {
            let message = Message::KernelProgress { kernel: "scaled".into(), call, stage: *stage };
            expected.push(("kernel".to_string(), position, 3, Some(message)));
        }
    }
    assert_eq!(kernel.into_iter().cloned().collect::<Vec<_>>(), expected);
    let (again, _) = record_with(std::mem::take(&mut session), "c = scaled(x)");
    let computing = Message::KernelProgress { kernel: "scaled".into(), call: 1, stage: KernelStage::Computing };
    let again: Vec<_> = again.into_iter().filter(|(label, ..)| label == "kernel").collect();
    // The count starts again in a new cell; the work of `scaled(x)` was compiled in the last cell.
    assert_eq!(again, vec![("kernel".to_string(), 0, 3, Some(computing))]);
}
