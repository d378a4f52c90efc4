//! `pypto.npu.sweep(kernel, args, vec_tiles=[…])`: one row per vec tile with cycles, time, bound and
//! UB peak, or the error that refused the shape; the best row is the one with the fewest cycles.
//! Each row is checked against `pypto.schedule` of the same kernel with that shape written in its
//! source — a separate run, recording and lowering of the kernel through the same model.

use tilelab::session::{display_text, Display, Session};

/// A two-input element-wise chain, relu(exp(x) + y), on 64×256 f32 with the tile in its source.
const CHAIN: &str = "
@pt.kernel
def chain(x, y):
    pt.set_vec_tile_shapes(ROWS, COLUMNS)
    z = pt.exp(x) + y
    return pt.relu(z)
x = pt.randn([64, 256], seed=1)
y = pt.randn([64, 256], seed=2)
";

fn chain_session(rows: usize, columns: usize) -> Session {
    let mut session = Session::new();
    let source = CHAIN.replace("ROWS", &rows.to_string()).replace("COLUMNS", &columns.to_string());
    let result = session.run_cell(&format!("import pypto as pt\npt.npu.use('teaching')\n{source}"));
    assert!(result.is_ok(), "setup failed: {:?}", result.error());
    session
}

fn printed(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout.trim_end().to_string()
}

/// The shapes swept. A unit holds two live tiles in UB (x, exp(x) in its place; y, and the sum
/// and relu reuse freed slots), double-buffered: 32×64 needs 2 × 2 × 32×64×4 B = 32768 B > 16 KiB,
/// but one copy (16384 B) fits, so it runs single-buffered; 64×64 needs 2 × 64×64×4 B = 32768 B
/// even as one copy and is refused.
const SHAPES: [[usize; 2]; 5] = [[2, 64], [4, 64], [8, 64], [32, 64], [64, 64]];

fn sweep_call() -> String {
    let shapes: Vec<String> = SHAPES.iter().map(|[rows, columns]| format!("[{rows}, {columns}]")).collect();
    format!("s = pt.npu.sweep(chain, (x, y), vec_tiles=[{}])", shapes.join(", "))
}

/// `(cycles or None, error or None)` per row, read from the script.
fn rows_of(session: &mut Session) -> Vec<(Option<u64>, Option<String>)> {
    let text = printed(session, "for row in s.rows:\n    print(row['cycles'], '|', row['error'])");
    text.lines()
        .map(|line| {
            let (cycles, error) = line.split_once(" | ").expect("two fields");
            (cycles.parse().ok(), (error != "None").then(|| error.to_string()))
        })
        .collect()
}

#[test]
fn the_best_row_has_the_fewest_cycles_and_an_overflow_is_an_error_row() {
    let mut session = chain_session(8, 64);
    printed(&mut session, &sweep_call());
    let rows = rows_of(&mut session);
    assert_eq!(rows.len(), SHAPES.len());
    // The overflowing shape is a row with its error; the others have cycles and no error.
    let (cycles, error) = &rows[4];
    assert!(cycles.is_none());
    let error = error.as_deref().expect("64×64 overflows UB");
    assert!(error.contains("UB") && error.contains(&(2 * 64 * 64 * 4).to_string()), "{error}");
    for (cycles, error) in &rows[..4] {
        assert!(cycles.is_some() && error.is_none(), "{rows:?}");
    }
    // The best row, computed here from the rows: fewest cycles, first of equals.
    let best = rows
        .iter()
        .enumerate()
        .filter_map(|(index, (cycles, _))| Some((cycles.as_ref().copied()?, index)))
        .min()
        .unwrap()
        .1;
    let vec_tile = printed(&mut session, "print(s.best['vec_tile'], s.best['cycles'])");
    assert_eq!(vec_tile, format!("[{}, {}] {}", SHAPES[best][0], SHAPES[best][1], rows[best].0.unwrap()));
    // Larger tiles amortise DMA start-up: the cycles fall as the (fitting) tiles grow.
    assert!(rows[0].0 > rows[1].0 && rows[1].0 > rows[2].0, "{rows:?}");
}

#[test]
fn each_row_matches_a_schedule_with_that_tile_in_the_source() {
    let mut session = chain_session(8, 64);
    printed(&mut session, &sweep_call());
    let rows = rows_of(&mut session);
    for (shape, (cycles, _)) in SHAPES.iter().zip(&rows).take(3) {
        let mut own = chain_session(shape[0], shape[1]);
        let scheduled: u64 = printed(&mut own, "print(pt.schedule(chain, x, y).cycles)").parse().unwrap();
        assert_eq!(Some(scheduled), *cycles, "vec tile {shape:?}");
    }
    // The sweep overrides the tile for its rows only: the kernel still schedules with its own 8×64.
    let after: u64 = printed(&mut session, "print(pt.schedule(chain, x, y).cycles)").parse().unwrap();
    assert_eq!(Some(after), rows[2].0);
}

#[test]
fn time_and_occupancy_follow_the_cycles_and_the_tile() {
    let mut session = chain_session(8, 64);
    printed(&mut session, &sweep_call());
    for (index, [rows, columns]) in SHAPES.iter().enumerate().take(3) {
        let text = printed(
            &mut session,
            &format!("r = s.rows[{index}]\nprint(r['cycles'], r['time_us'], r['peak_ub_bytes'], r['bound'])"),
        );
        let fields: Vec<&str> = text.split_whitespace().collect();
        let cycles: f64 = fields[0].parse().unwrap();
        let time_us: f64 = fields[1].parse().unwrap();
        // teaching runs at 1000 MHz: µs = cycles / 1000.
        assert!((time_us - cycles / 1000.0).abs() < 1e-3, "{text}");
        // UB holds at most two buffers of each of the three tensors' tiles.
        let ub: usize = fields[2].parse().unwrap();
        assert!(ub > 0 && ub <= 2 * 3 * rows * columns * 4, "{text}");
        assert!(["MTE2", "MTE3", "VECTOR"].contains(&fields[3]), "{text}");
    }
}

#[test]
fn a_tile_that_fits_ub_only_once_runs_single_buffered_with_a_note() {
    // 32×64: two live tiles of 8 KiB fill the 16 KiB UB once; two copies would need 32 KiB.
    let mut single = chain_session(32, 64);
    let notes = printed(&mut single, "s = pt.schedule(chain, x, y)\nprint(s.notes)\nprint(s.peak_occupancy['UB'])");
    let (notes, peak) = notes.rsplit_once('\n').unwrap();
    assert!(notes.contains("UB holds one copy of each task's tiles, not 2"), "{notes}");
    assert!(peak.parse::<u64>().unwrap() <= 16 * 1024, "{peak}");
    // 16×64 fits twice (2 × 2 × 4 KiB = 16 KiB): double-buffered, no note.
    let mut double = chain_session(16, 64);
    let notes = printed(&mut double, "print(pt.schedule(chain, x, y).notes)");
    assert!(!notes.contains("one copy"), "{notes}");
}

#[test]
fn a_misaligned_shape_is_an_error_row() {
    let mut session = chain_session(8, 64);
    // 12 f32 = 48 B is not a multiple of 32 B.
    printed(&mut session, "s = pt.npu.sweep(chain, [x, y], vec_tiles=[[8, 12], [8, 64]])");
    let rows = rows_of(&mut session);
    assert!(rows[0].0.is_none() && rows[0].1.as_deref().unwrap().contains("32-byte"), "{rows:?}");
    assert!(rows[1].0.is_some());
    assert_eq!(printed(&mut session, "print(s.best['vec_tile'])"), "[8, 64]");
}

#[test]
fn the_display_is_a_sweep_with_the_best_marked() {
    let mut session = chain_session(8, 64);
    printed(&mut session, &sweep_call());
    let result = session.run_cell("s");
    let Some(display @ Display::Sweep(sweep)) = result.displays.first() else {
        panic!("expected a sweep display, got {:?}", result.displays)
    };
    let json = serde_json::to_value(display).unwrap();
    assert_eq!(json["kind"], "sweep");
    assert_eq!(json["rows"].as_array().unwrap().len(), SHAPES.len());
    assert_eq!(json["preset"], "teaching");
    let best = sweep.table.best.expect("a best row");
    assert_eq!(json["best"], best);
    let text = display_text(display);
    let marked: Vec<&str> = text.lines().filter(|line| line.trim_start().starts_with('*')).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].contains(&sweep.table.rows[best].cycles.unwrap().to_string()), "{text}");
    assert!(text.contains("64x64") && text.contains("error"), "{text}");
}

#[test]
fn bad_calls_are_errors_at_the_call() {
    let mut session = chain_session(8, 64);
    let error =
        session.run_cell("pt.npu.sweep(pt.exp, (x,), vec_tiles=[[8, 64]])").error().cloned().expect("not a kernel");
    assert_eq!(error.code, "runtime/type-error", "{error:?}");
    let error = session.run_cell("pt.npu.sweep(chain, (x, y), vec_tiles=[])").error().cloned().expect("no shapes");
    assert_eq!(error.code, "runtime/value-error", "{error:?}");
    let error =
        session.run_cell("pt.npu.sweep(chain, (x, y), vec_tiles=[[0, 64]])").error().cloned().expect("a zero dim");
    assert_eq!(error.code, "runtime/tile-shape", "{error:?}");
}
