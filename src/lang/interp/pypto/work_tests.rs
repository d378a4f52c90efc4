//! Unit tests of the recorder: scripts run on the reference path and the `TileWork` they record
//! is checked against the tiling worked out by hand in each comment.

use std::rc::Rc;

use crate::lang::interp::{Interpreter, Limits};
use crate::lang::syntax::parse;
use crate::tile::{TensorId, TileWork, WorkOperand, WorkStep};

fn record(source: &str) -> (Rc<Interpreter>, Option<TileWork>) {
    let interpreter = Interpreter::new(Limits::default());
    interpreter.set_cell_source(1, source);
    let parsed = parse(source);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    if let Err(error) = interpreter.run_module(&parsed.module, 1) {
        panic!("the script failed: {}", error.message);
    }
    let work = interpreter.npu.last_work.borrow().clone();
    if work.is_none() {
        let warnings = interpreter.take_warnings();
        eprintln!("{:?}", warnings.iter().map(|warning| warning.message.clone()).collect::<Vec<_>>());
        warnings.into_iter().for_each(|warning| interpreter.warnings.borrow_mut().push(warning));
    }
    (interpreter, work)
}

fn step_names(work: &TileWork, unit: usize) -> Vec<&'static str> {
    work.units[unit]
        .steps
        .iter()
        .map(|step| match &step.step {
            WorkStep::Load { .. } => "load",
            WorkStep::Unary { .. } => "unary",
            WorkStep::Binary { .. } => "binary",
            WorkStep::Clip { .. } => "clip",
            WorkStep::Reduce { .. } => "reduce",
            WorkStep::Cast { .. } => "cast",
            WorkStep::Matmul { .. } => "matmul",
            WorkStep::Store { .. } => "store",
            WorkStep::Vector { op, .. } => op.name(),
        })
        .collect()
}

const JIT_SOFTMAX: &str = "import pypto as pt
@pt.frontend.jit(pass_options={'vec_nbuffer_setting': 1})
def row_softmax(x, out):
    pt.set_vec_tile_shapes(4, 16)
    rows = x.shape[0]
    for i in pt.loop(0, (rows + 3) // 4):
        start = i * 4
        valid = min(4, rows - start)
        tile = pt.view(x, [4, 16], [start, 0], valid_shape=[valid, 16])
        shifted = tile - pt.amax(tile, dim=-1, keepdim=True)
        e = pt.exp(shifted)
        pt.assemble(e / pt.sum(e, dim=-1, keepdim=True), [start, 0], out)
x = pt.randn([10, 16], seed=4)
out = pt.zeros([10, 16])
row_softmax(x, out)
";

#[test]
fn jit_loop_iterations_are_units_with_ragged_views() {
    // 10 rows in tiles of 4: iterations at rows 0, 4, 8 with 4, 4 and 2 valid rows.
    let (_, work) = record(JIT_SOFTMAX);
    let work = work.expect("recorded");
    assert_eq!(work.tensors.len(), 2);
    assert_eq!(work.units.len(), 3);
    assert_eq!(work.settings.vec_buffers, 1);
    assert_eq!(work.settings.vec_tile_line, Some(4));
    for (unit, (start, valid)) in [(0usize, 4usize), (4, 4), (8, 2)].into_iter().enumerate() {
        assert_eq!(step_names(&work, unit), ["load", "reduce", "binary", "unary", "reduce", "binary", "store"]);
        let steps = &work.units[unit].steps;
        let WorkStep::Load { region, output } = &steps[0].step else { unreachable!() };
        assert_eq!((region.offsets.to_vec(), region.shape.to_vec()), (vec![start, 0], vec![valid, 16]));
        assert_eq!(work.units[unit].values[output.0 as usize].shape, vec![4, 16]);
        let WorkStep::Store { region, .. } = &steps[6].step else { unreachable!() };
        assert_eq!(
            (region.tensor.0, region.offsets.to_vec(), region.shape.to_vec()),
            (1, vec![start, 0], vec![valid, 16])
        );
        // Lines: the view is line 9, amax line 10, exp 11, the assemble line 12.
        let lines: Vec<Option<u32>> = steps.iter().map(|step| step.line).collect();
        assert_eq!(lines, [Some(9), Some(10), Some(10), Some(11), Some(12), Some(12), Some(12)]);
        let WorkStep::Reduce { dims, .. } = &steps[1].step else { unreachable!() };
        assert_eq!(dims, &vec![1]);
    }
}

/// The tasks the compiler's tile expansion makes of `work`.
fn expanded(work: &TileWork) -> TileWork {
    crate::tile::expand_work(work).expect("expands")
}

#[test]
fn functional_kernels_are_one_unit_the_compiler_tiles_by_their_vec_tile() {
    // silu(x) * y on [64, 256]: one unit over the whole tensors, which the compiler expands by the
    // 8 × 64 vec tile into 8 × 4 = 32 tasks, each loading its own tiles.
    let (_, work) = record(
        "import pypto as pt
@pt.kernel
def gated(x, y):
    pt.set_vec_tile_shapes(8, 64)
    return pt.silu(x) * y
a = gated(pt.randn([64, 256], seed=5), pt.randn([64, 256], seed=6))
",
    );
    let work = work.expect("recorded");
    assert_eq!(work.units.len(), 1);
    assert_eq!(step_names(&work, 0), ["load", "unary", "load", "binary", "store"]);
    assert_eq!(work.settings.vec_tile, Some(vec![8, 64]));
    assert_eq!(
        work.tensors.iter().map(|tensor| tensor.shape.clone()).collect::<Vec<_>>(),
        vec![vec![64, 256], vec![64, 256], vec![64, 256]]
    );
    let tasks = expanded(&work);
    assert_eq!(tasks.units.len(), 32);
    // Task 5 is row tile 1, column tile 1.
    let WorkStep::Store { region, .. } = &tasks.units[5].steps.last().expect("steps").step else { unreachable!() };
    assert_eq!((region.offsets.to_vec(), region.shape.to_vec()), (vec![8, 64], vec![8, 64]));
}

#[test]
fn broadcast_operands_and_numbers() {
    // (x + b) * 0.5 with b of shape [1, 64] and 8 × 32 tiles over [16, 64]: 4 tasks; b loads [1, 32].
    let (_, work) = record(
        "import pypto as pt
@pt.kernel
def biased(x, b):
    pt.set_vec_tile_shapes(8, 32)
    return (x + b) * 0.5
r = biased(pt.randn([16, 64], seed=1), pt.randn([1, 64], seed=2))
",
    );
    let tasks = expanded(&work.expect("recorded"));
    assert_eq!(tasks.units.len(), 4);
    let unit = &tasks.units[3];
    let loads: Vec<_> = unit
        .steps
        .iter()
        .filter_map(|step| match &step.step {
            WorkStep::Load { region, .. } => Some((region.tensor.0, region.offsets.clone(), region.shape.clone())),
            _ => None,
        })
        .collect();
    assert!(loads.contains(&(1, [0, 32].into(), [1, 32].into())), "{loads:?}");
    let scalar = unit
        .steps
        .iter()
        .any(|step| matches!(&step.step, WorkStep::Binary { rhs: WorkOperand::Scalar(value), .. } if *value == 0.5));
    assert!(scalar, "{:?}", unit.steps);
}

#[test]
fn a_reduction_walks_the_reduced_dim_in_one_task() {
    // sum over the last dim of [16, 256] with 8 × 64 tiles: one task per 8 rows (2), each walking
    // the 4 column tiles of its rows with the running sum in UB.
    let (_, work) = record(
        "import pypto as pt
@pt.kernel
def row_sum(x):
    pt.set_vec_tile_shapes(8, 64)
    return x.sum(dim=-1)
r = row_sum(pt.randn([16, 256], seed=1))
",
    );
    let work = work.expect("recorded");
    assert_eq!(work.tensors[1].shape, vec![16]);
    let tasks = expanded(&work);
    assert_eq!(tasks.units.len(), 2);
    let loads: Vec<_> = tasks.units[1]
        .steps
        .iter()
        .filter_map(|step| match &step.step {
            WorkStep::Load { region, .. } => Some((region.offsets.to_vec(), region.shape.to_vec())),
            _ => None,
        })
        .collect();
    let expected: Vec<_> = (0..4).map(|column| (vec![8, column * 64], vec![8, 64])).collect();
    assert_eq!(loads, expected);
}

#[test]
fn a_matmul_feeding_element_wise_work_is_cut_by_its_cube_tiles() {
    // relu(a @ b) with a [32, 48], b [48, 64], L1 cube tiles m 16 × n 32: 2 × 2 output tiles, each
    // on a cube core of its own on the 910B2.
    let (_, work) = record(
        "import pypto as pt
@pt.kernel
def mm_relu(a, b):
    pt.set_vec_tile_shapes(16, 32)
    pt.set_cube_tile_shapes([16, 16], [16, 48], [32, 32])
    return pt.relu(pt.matmul(a, b))
r = mm_relu(pt.randn([32, 48], seed=1), pt.randn([48, 64], seed=2))
",
    );
    let work = work.expect("recorded");
    assert_eq!(step_names(&work, 0), ["load", "load", "matmul", "unary", "store"]);
    assert_eq!(work.settings.cube_tile_line, Some(5));
    let config = crate::npu::NpuConfig::preset("Ascend910B2").expect("preset");
    let plan = crate::tile::lower_work(&work, &crate::npu::lowering_target(&config)).expect("lowers");
    let cube = plan.programs.iter().filter(|program| program.core_kind() == crate::tile::CoreKind::Cube).count();
    assert_eq!(cube, 4);
}

#[test]
fn unsupported_ops_fall_back_with_their_line() {
    let (interpreter, work) = record(
        "import pypto as pt
@pt.kernel
def every_other(x):
    y = pt.exp(x)
    return y[0:8:2, :]
r = every_other(pt.randn([8, 8], seed=1))
",
    );
    assert!(work.is_none());
    let warnings = interpreter.take_warnings();
    assert_eq!(warnings.len(), 1);
    let message = &warnings[0].message;
    assert!(message.contains("cannot run on the NPU yet: indexing with a step at line 5"), "{message}");
}

#[test]
fn read_modify_writes_of_one_region_become_accumulating_stores() {
    // Column sums of a [12, 16] input, 4 rows per iteration, added into out[0:1, :] by every
    // iteration: each unit loads its rows, reduces them and stores with accumulate (no load of out).
    let (_, work) = record(
        "import pypto as pt
@pt.frontend.jit
def column_sums(x, out):
    for i in pt.loop(0, 3):
        tile = pt.view(x, [4, 16], [i * 4, 0])
        out[0:1, :] = out[0:1, :] + pt.sum(tile, dim=0, keepdim=True)
x = pt.randn([12, 16], seed=1)
out = pt.zeros([1, 16])
column_sums(x, out)
",
    );
    let work = work.expect("recorded");
    assert_eq!(work.units.len(), 3);
    for unit in 0..3 {
        assert_eq!(step_names(&work, unit), ["load", "reduce", "store"]);
        let WorkStep::Store { accumulate, region, .. } = &work.units[unit].steps[2].step else { unreachable!() };
        assert!(*accumulate);
        assert_eq!((region.tensor.0, region.offsets.to_vec(), region.shape.to_vec()), (1, vec![0, 0], vec![1, 16]));
    }
}

#[test]
fn views_and_values_nothing_stores_are_dropped() {
    // `unused` is viewed and exponentiated but never written: the unit keeps only load, add, store.
    let (_, work) = record(
        "import pypto as pt
@pt.frontend.jit
def shifted(x, out):
    for i in pt.loop(0, 2):
        unused = pt.exp(pt.view(x, [8, 16], [0, 0]))
        tile = pt.view(x, [8, 16], [i * 8, 0])
        pt.assemble(tile + 1.0, [i * 8, 0], out)
x = pt.randn([16, 16], seed=1)
out = pt.zeros([16, 16])
shifted(x, out)
",
    );
    let work = work.expect("recorded");
    assert_eq!(step_names(&work, 0), ["load", "binary", "store"]);
    let WorkStep::Load { region, .. } = &work.units[1].steps[0].step else { unreachable!() };
    assert_eq!(region.offsets, vec![8, 0]);
}

/// The note of a kernel that fell back to the CPU (none: it ran on the NPU).
fn fallback_note(source: &str) -> Option<String> {
    let (interpreter, work) = record(source);
    let notes: Vec<String> = interpreter.take_warnings().into_iter().map(|warning| warning.message).collect();
    work.is_none().then(|| notes.join("\n"))
}

/// A row kernel over four iterations whose loop body is `body` (x and out are [4, 16]).
fn row_kernel(body: &str) -> String {
    format!(
        "import pypto as pt
@pt.frontend.jit
def rows(x, out):
    pt.set_vec_tile_shapes(1, 16)
    for i in pt.loop(1, 4):
        row = pt.view(x, [1, 16], [i, 0])
{body}
x = pt.randn([4, 16], seed=2)
out = pt.zeros([4, 16])
rows(x, out)
"
    )
}

#[test]
fn iterations_writing_the_same_region_keep_their_order() {
    // Iterations 1, 2, 3 each write row 0: `out` is ordered (its tasks run on one core, in program
    // order), so the last iteration's row is what stays, as in the loop.
    let (_, work) = record(&row_kernel("        out[0:1, :] = row"));
    let work = work.expect("overwriting iterations run on the NPU in order");
    assert_eq!(work.ordered, vec![TensorId(1)], "{:?}", work.tensors);
    // Reading what another iteration wrote is still refused (its load is not ordered after the store).
    let note = fallback_note(&row_kernel("        out[i:i + 1, :] = pt.view(out, [1, 16], [i - 1, 0]) * 2.0"))
        .expect("a read of another iteration's write cannot run on the NPU");
    assert!(note.contains("reads a region of `out` that iteration"), "{note}");
}

#[test]
fn iterations_adding_into_the_same_region_do_not_race() {
    // `out[0] = out[0] + row` in every iteration is an accumulating store (atomic add).
    let (_, work) = record(&row_kernel("        out[0:1, :] = out[0:1, :] + row"));
    let work = work.expect("accumulating stores run on the NPU");
    let accumulating = work.units.iter().flat_map(|unit| &unit.steps);
    let stores = accumulating.filter(|step| matches!(step.step, WorkStep::Store { accumulate: true, .. })).count();
    assert_eq!(stores, 3);
}

#[test]
fn an_iteration_reading_what_another_writes_falls_back() {
    // Iteration i reads row i - 1 of out, which the previous iteration (unit) wrote.
    let body = "        prev = pt.view(out, [1, 16], [i - 1, 0])\n        out[i:i + 1, :] = prev + row";
    let note = fallback_note(&row_kernel(body)).expect("a dependence between iterations cannot run");
    assert!(note.contains("iteration 1 reads a region of `out` that iteration 0 writes"), "{note}");
}

#[test]
fn disjoint_rows_written_by_every_iteration_are_independent() {
    let (_, work) = record(&row_kernel("        out[i:i + 1, :] = row * 2.0"));
    assert_eq!(work.expect("disjoint rows run on the NPU").units.len(), 3);
}
