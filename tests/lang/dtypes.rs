//! pypto's integer and bool dtypes and the ops that use them, written as pypto code writes them:
//! masks from comparisons fed to `pypto.where` inside `@pypto.frontend.jit` kernels, integer index
//! tensors for `gather`, `topk`'s (values, indices), and a short tile written into a slice at its
//! offset. Expected values are computed here from the inputs, never by the code under test.

use tilelab::session::{CellResult, Display, Session};

fn session() -> Session {
    let mut session = Session::new();
    assert!(session.run_cell("import pypto").is_ok());
    session
}

fn run(session: &mut Session, code: &str) -> CellResult {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result
}

fn values(session: &mut Session, expression: &str) -> Vec<f64> {
    match run(session, expression).displays.first() {
        Some(Display::Tensor(tensor)) => tensor.values.clone(),
        other => panic!("{expression}: expected a tensor, got {other:?}"),
    }
}

fn error_message(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    let error = result.error().unwrap_or_else(|| panic!("{code}: expected an error"));
    format!("{} {}", error.message, error.help.clone().unwrap_or_default())
}

const INPUT: [f64; 16] = [-1.5, 0.25, 3.0, -0.75, 2.0, -4.0, 0.0, 1.25, -0.5, 5.5, -2.25, 0.75, 1.0, -3.5, 4.5, -0.125];

fn input_literal() -> String {
    let rows: Vec<String> = INPUT.chunks(8).map(|row| format!("{row:?}")).collect();
    format!("pypto.as_tensor([{}])", rows.join(", "))
}

#[test]
fn a_comparison_mask_feeds_where_in_a_jit_kernel() {
    let mut session = session();
    run(
        &mut session,
        &format!(
            "
@pypto.frontend.jit
def leaky(x, out):
    pypto.set_vec_tile_shapes(1, 8)
    for i in pypto.loop(2):
        t = pypto.view(x, [1, 8], [i, 0])
        mask = t > 0.0
        out[i:, 0:] = pypto.where(mask, t, t * 0.125)

x = {}
out = pypto.zeros([2, 8])
leaky(x, out)",
            input_literal()
        ),
    );
    let expected: Vec<f64> = INPUT.iter().map(|&v| if v > 0.0 { v } else { v * 0.125 }).collect();
    assert_eq!(values(&mut session, "out"), expected);
    // The mask itself: DT_BOOL, printed and listed as Python bools.
    let printed = run(&mut session, "m = x[0] >= 0.0\nprint(m.dtype, m.tolist())").stdout;
    assert_eq!(printed.trim(), "pypto.DT_BOOL [False, True, True, False, True, False, True, True]");
    // pypto's function form and a scalar on either side of where.
    assert_eq!(
        values(&mut session, "pypto.where(pypto.lt(x, 0.0), 0.0, x)"),
        INPUT.iter().map(|&v| if v < 0.0 { 0.0 } else { v }).collect::<Vec<_>>()
    );
}

#[test]
fn gather_with_an_integer_index_tensor_in_a_kernel() {
    let mut session = session();
    run(
        &mut session,
        &format!(
            "
@pypto.frontend.jit
def pick(x, index, out):
    out[:] = pypto.gather(x, 1, index)

x = {}
index = pypto.as_tensor([[7, 0, 3], [1, 1, 6]], dtype=pypto.DT_INT64)
out = pypto.zeros([2, 3])
pick(x, index, out)",
            input_literal()
        ),
    );
    let expected = [INPUT[7], INPUT[0], INPUT[3], INPUT[8 + 1], INPUT[8 + 1], INPUT[8 + 6]];
    assert_eq!(values(&mut session, "out"), expected);
    let message = error_message(&mut session, "pypto.gather(x, 1, pypto.as_tensor([[1.0]]))");
    assert!(message.contains("DT_INT32 or DT_INT64") && message.contains("pypto.cast"), "{message}");
    let message = error_message(&mut session, "pypto.gather(x, 1, pypto.as_tensor([[8]], dtype=pypto.DT_INT32))");
    assert!(message.contains("out of range"), "{message}");
}

#[test]
fn topk_returns_values_and_int32_indices() {
    let mut session = session();
    run(&mut session, &format!("x = {}\nvalues, indices = pypto.topk(x, 3, -1)", input_literal()));
    let mut expected_values = Vec::new();
    let mut expected_indices = Vec::new();
    for row in INPUT.chunks(8) {
        let mut order: Vec<usize> = (0..8).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        expected_values.extend(order[..3].iter().map(|&i| row[i]));
        expected_indices.extend(order[..3].iter().map(|&i| i as f64));
    }
    assert_eq!(values(&mut session, "values"), expected_values);
    assert_eq!(values(&mut session, "indices"), expected_indices);
    assert_eq!(run(&mut session, "print(indices.dtype)").stdout.trim(), "pypto.DT_INT32");
    let smallest = values(&mut session, "pypto.topk(x, 1, largest=False)[0]");
    assert_eq!(smallest, vec![-4.0, -3.5]);
}

#[test]
fn a_short_tile_is_written_at_the_offset_of_its_slice() {
    // dg[2:, 0:] = tile with a 2-row tile and 4 rows left: rows 2 and 3 change, 4 and 5 stay, as
    // pypto.assemble(tile, [2, 0], dg) writes them.
    let mut session = session();
    run(&mut session, "dg = pypto.zeros([6, 3])\ntile = pypto.ones([2, 3]) * 7.0\ndg[2:, 0:] = tile");
    let mut expected = vec![0.0; 18];
    expected[6..12].fill(7.0);
    assert_eq!(values(&mut session, "dg"), expected);
    // In a kernel, ragged last tile included: rows in steps of 4 over 6 rows.
    run(
        &mut session,
        "
@pypto.frontend.jit
def double(x, dg):
    pypto.set_vec_tile_shapes(4, 8)
    for i in pypto.loop(2):
        rows = 4 if i == 0 else 2
        t = pypto.view(x, [4, 8], [i * 4, 0], valid_shape=[rows, 8])
        dg[i * 4:, 0:] = t * 2.0

x = pypto.arange(48).reshape([6, 8])
out = pypto.zeros([6, 8])
double(x, out)",
    );
    assert_eq!(values(&mut session, "out"), (0..48).map(|v| 2.0 * v as f64).collect::<Vec<_>>());
}

#[test]
fn integer_tensors_print_compute_and_refuse_gradients() {
    let mut session = session();
    run(&mut session, "x = pypto.as_tensor([[1.5, -2.7, 0.0], [3.2, -0.5, 8.9]])\ni = pypto.cast(x, pypto.DT_INT32)");
    // Casts truncate toward zero; // and % follow Python; / gives DT_FP32; sums are DT_INT64.
    let printed = run(&mut session, "print(i)\nprint(i.tolist(), i[0, 1].item())").stdout;
    assert_eq!(printed, "tensor([[1, -2, 0], [3, 0, 8]], dtype=DT_INT32)\n[[1, -2, 0], [3, 0, 8]] -2\n");
    assert_eq!(values(&mut session, "i // 2"), vec![0.0, -1.0, 0.0, 1.0, 0.0, 4.0]);
    assert_eq!(values(&mut session, "i % 3"), vec![1.0, 1.0, 0.0, 0.0, 0.0, 2.0]);
    assert_eq!(values(&mut session, "i / 2"), vec![0.5, -1.0, 0.0, 1.5, 0.0, 4.0]);
    assert_eq!(run(&mut session, "print((i / 2).dtype, i.sum().dtype)").stdout.trim(), "pypto.DT_FP32 pypto.DT_INT64");
    // A float next to an integer tensor makes a float result (torch); an int keeps the dtype.
    assert_eq!(
        run(&mut session, "print((i + 0.5).dtype, (i * 2).dtype)").stdout.trim(),
        "pypto.DT_FP32 pypto.DT_INT32"
    );
    assert_eq!(values(&mut session, "pypto.cumsum(i, 1)"), vec![1.0, -1.0, -1.0, 3.0, 3.0, 11.0]);
    let message = error_message(&mut session, "pypto.zeros([2], dtype=pypto.DT_INT64, requires_grad=True)");
    assert!(message.contains("only float tensors can require gradients"), "{message}");
    let message = error_message(&mut session, "m = x > 0\n-m");
    assert!(message.contains("logical_not"), "{message}");
    let message = error_message(&mut session, "0 < x < 1");
    assert!(message.contains("pypto.logical_and"), "{message}");
    let masks = values(&mut session, "pypto.logical_and(x > 0, pypto.logical_not(x > 3))");
    assert_eq!(masks, vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    for name in ["DT_INT8", "DT_INT16", "DT_INT32", "DT_INT64", "DT_UINT8", "DT_BOOL"] {
        assert_eq!(run(&mut session, &format!("print(pypto.{name})")).stdout.trim(), format!("pypto.{name}"));
    }
}

#[test]
fn new_element_wise_ops_clip_round_and_full() {
    let mut session = session();
    run(&mut session, "x = pypto.as_tensor([-1.25, -0.5, 0.375, 2.5, 2.75])");
    let input = [-1.25f64, -0.5, 0.375, 2.5, 2.75];
    let map = |f: fn(f64) -> f64| input.iter().map(|&v| f(v)).collect::<Vec<f64>>();
    let close = |got: Vec<f64>, want: Vec<f64>, what: &str| {
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-6 * (1.0 + w.abs()), "{what}: {got:?} vs {want:?}");
        }
    };
    close(values(&mut session, "pypto.exp2(x)"), map(|v| 2f64.powf(v)), "exp2");
    close(values(&mut session, "pypto.erf(x)"), map(libm::erf), "erf");
    close(values(&mut session, "pypto.erfc(x)"), map(libm::erfc), "erfc");
    assert_eq!(values(&mut session, "pypto.ceil(x)"), vec![-1.0, -0.0, 1.0, 3.0, 3.0]);
    assert_eq!(values(&mut session, "pypto.floor(x)"), vec![-2.0, -1.0, 0.0, 2.0, 2.0]);
    assert_eq!(values(&mut session, "pypto.trunc(x)"), vec![-1.0, 0.0, 0.0, 2.0, 2.0]);
    assert_eq!(values(&mut session, "pypto.round(x)"), vec![-1.0, -0.0, 0.0, 2.0, 3.0]);
    close(values(&mut session, "pypto.round(x, decimals=1)"), vec![-1.2, -0.5, 0.4, 2.5, 2.8], "round 1");
    assert_eq!(values(&mut session, "pypto.sign(x)"), vec![-1.0, -1.0, 1.0, 1.0, 1.0]);
    // clip with a tensor lower bound and a number upper bound; min > max gives max.
    let clipped = values(&mut session, "pypto.clip(x, pypto.as_tensor([0.0, -1.0, 0.5, 0.0, 3.0]), 2.625)");
    assert_eq!(clipped, vec![0.0, -0.5, 0.5, 2.5, 2.625]);
    // full with a valid_shape: a ragged tile (value inside, 0 outside).
    run(&mut session, "t = pypto.full([3, 4], 5, pypto.DT_INT32, valid_shape=[2, 3])");
    let mut expected = vec![0.0; 12];
    for row in 0..2 {
        expected[row * 4..row * 4 + 3].fill(5.0);
    }
    assert_eq!(values(&mut session, "t"), expected);
    assert_eq!(run(&mut session, "print(t.valid_shape, t.dtype)").stdout.trim(), "[2, 3] pypto.DT_INT32");
}

#[test]
fn a_new_unary_op_runs_on_the_npu() {
    let mut session = session();
    let result = run(
        &mut session,
        "
@pypto.frontend.jit
def steps(x, out):
    pypto.set_vec_tile_shapes(8, 16)
    for i in pypto.loop(2):
        t = pypto.view(x, [8, 16], [i * 8, 0])
        out[i * 8:, 0:] = pypto.floor(t) + pypto.exp2(t)

x = pypto.arange(256).reshape([16, 16]) * 0.125 - 16.0
out = pypto.zeros([16, 16])
steps(x, out)",
    );
    let fell_back = result.diagnostics.iter().any(|diagnostic| diagnostic.message.contains("CPU reference path"));
    assert!(!fell_back, "{:?}", result.diagnostics);
    assert_eq!(result.kernel_schedules.len(), 1);
    let expected: Vec<f64> = (0..256)
        .map(|i| {
            let v = i as f64 * 0.125 - 16.0;
            v.floor() + 2f64.powf(v)
        })
        .collect();
    let got = values(&mut session, "out");
    for (g, e) in got.iter().zip(&expected) {
        assert!((g - e).abs() <= 1e-6 * (1.0 + e.abs()), "{g} vs {e}");
    }
}

#[test]
fn clip_with_tensor_bounds_in_a_kernel_keeps_its_bounds() {
    let mut session = session();
    run(
        &mut session,
        &format!(
            "
@pypto.frontend.jit
def clamp(x, low, out):
    pypto.set_vec_tile_shapes(1, 8)
    for i in pypto.loop(2):
        t = pypto.view(x, [1, 8], [i, 0])
        b = pypto.view(low, [1, 8], [i, 0])
        out[i:, 0:] = pypto.clip(t, b, 1.0)

x = {}
low = pypto.full([2, 8], -0.5, pypto.DT_FP32)
out = pypto.zeros([2, 8])
clamp(x, low, out)",
            input_literal()
        ),
    );
    let expected: Vec<f64> = INPUT.iter().map(|&v| v.clamp(-0.5, 1.0)).collect();
    assert_eq!(values(&mut session, "out"), expected);
}

/// pypto's dtypes the tensor core does not hold (`DT_UINT16/32/64`, torch's `uint16/32/64`) are
/// names, so a torch ↔ pypto dtype table (pypto's transform example has one) runs; a tensor of one
/// is an error at the dtype.
#[test]
fn unsigned_dtypes_without_tensors_are_names() {
    let mut session = Session::new();
    let printed = super::cells::run_ok(
        &mut session,
        "import torch, pypto\n\
         table = {torch.uint16: pypto.DT_UINT16, torch.uint32: pypto.DT_UINT32, torch.uint64: pypto.DT_UINT64}\n\
         print(len(table), pypto.DT_UINT32, torch.uint64 == pypto.DT_UINT64, pypto.DT_UINT16 == pypto.DT_UINT32)",
    );
    assert_eq!(printed, "3 DataType.DT_UINT32 True False\n");
    let code = "pypto.zeros([2], dtype=pypto.DT_UINT16)";
    let result = super::cells::run_err(&mut session, code);
    assert!(result.error().unwrap().message.contains("'dtype' must be a pypto dtype"), "{:?}", result.error());
    assert_eq!(super::cells::spanned(code, &result), "dtype=pypto.DT_UINT16");
}
