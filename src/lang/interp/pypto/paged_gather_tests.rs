//! The recorded work of a paged-cache gather and the values its compiled plan computes: a cache
//! whose row `r` holds `10 r + c` in column `c`, blocks of 2 rows permuted by the block table.

use super::npu_run::lower_and_simulate;
use super::npu_values::execute_plan;
use crate::lang::interp::{Interpreter, Limits};
use crate::lang::syntax::parse;
use crate::npu::NpuConfig;
use crate::tensor::{DType, Tensor};
use crate::tile::TileWork;

/// Indices 1, 6, 2, 5 in blocks of 2 are token 1 of logical block 0, token 0 of block 3, token 0
/// of block 1 and token 1 of block 2; the table [3, 0, 2, 1] puts those blocks at physical 3, 1,
/// 0, 2, so the rows are 3·2+1 = 7, 1·2+0 = 2, 0·2+0 = 0 and 2·2+1 = 5.
const ROWS: [usize; 4] = [7, 2, 0, 5];

const SCRIPT: &str = "import pypto
@pypto.frontend.jit
def gathered(cache, indices, table, w, out, sums):
    pypto.set_vec_tile_shapes(8, 8)
    pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
    right = pypto.view(cache, [8, 4], [0, 4])
    out[:] = pypto.experimental.gather_in_ub(right, indices, table, 2, -2) + 0.0
    rows = pypto.experimental.gather_in_l1(cache, indices, table, 2, 3, True, False)
    sums[:] = pypto.matmul(w, rows, pypto.DT_FP32)
cache = pypto.reshape(pypto.arange(8, dtype=pypto.DT_FP32), [8, 1]) * 10.0 + pypto.arange(8, dtype=pypto.DT_FP32)
indices = pypto.as_tensor([[1, 6, 2, 5]], dtype=pypto.DT_INT32)
table = pypto.as_tensor([[3, 0, 2, 1]], dtype=pypto.DT_INT32)
out = pypto.zeros([4, 4])
sums = pypto.zeros([1, 3])
gathered(cache, indices, table, pypto.ones([1, 4]), out, sums)
";

fn record() -> TileWork {
    let interpreter = Interpreter::new(Limits::default());
    interpreter.set_cell_source(1, SCRIPT);
    let parsed = parse(SCRIPT);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    interpreter.run_module(&parsed.module, 1).unwrap_or_else(|error| panic!("{}", error.message));
    let warnings: Vec<String> = interpreter.take_warnings().into_iter().map(|warning| warning.message).collect();
    let work = interpreter.npu.last_work.borrow().clone();
    work.unwrap_or_else(|| panic!("the kernel ran on the CPU: {warnings:?}"))
}

#[test]
fn a_gather_is_a_view_of_the_cache_rows_the_indices_select() {
    let work = record();
    let gathers: Vec<_> = work.views.iter().filter_map(|view| Some((view, view.rows.as_ref()?))).collect();
    assert_eq!(gathers.len(), 2, "{:?}", work.views);
    // gather_in_ub reads the right half of each row (the view's column offset 4) …
    let (ub, ub_rows) = gathers[0];
    assert_eq!((ub_rows.rows.as_slice(), ub_rows.column), (&ROWS[..], 4));
    assert_eq!(work.tensors[ub.tensor.0 as usize].shape, vec![4, 4]);
    // … and gather_in_l1 the first 3 columns.
    let (l1, l1_rows) = gathers[1];
    assert_eq!((l1_rows.rows.as_slice(), l1_rows.column), (&ROWS[..], 0));
    assert_eq!(work.tensors[l1.tensor.0 as usize].shape, vec![4, 3]);
}

#[test]
fn the_compiled_plan_reads_the_selected_rows() {
    let work = record();
    let (plan, _) = lower_and_simulate(&work, &NpuConfig::preset("Ascend910B2").unwrap())
        .unwrap_or_else(|_| panic!("the work compiles"));
    let cache: Vec<f64> = (0..64).map(|index| (10 * (index / 8) + index % 8) as f64).collect();
    let inputs = [
        Tensor::from_f64(cache, &[8, 8], DType::F32).unwrap(),
        Tensor::from_f64(vec![1.0, 6.0, 2.0, 5.0], &[1, 4], DType::I32).unwrap(),
        Tensor::from_f64(vec![3.0, 0.0, 2.0, 1.0], &[1, 4], DType::I32).unwrap(),
        Tensor::from_f64(vec![1.0; 4], &[1, 4], DType::F32).unwrap(),
        Tensor::from_f64(vec![0.0; 16], &[4, 4], DType::F32).unwrap(),
        Tensor::from_f64(vec![0.0; 3], &[1, 3], DType::F32).unwrap(),
    ];
    let gm = execute_plan(&plan, &work.views, &inputs).unwrap_or_else(|_| panic!("the plan runs"));
    // out[j, c] = cache[ROWS[j], 4 + c] = 10·ROWS[j] + 4 + c.
    let expected: Vec<f64> = ROWS.iter().flat_map(|&row| (0..4).map(move |c| (10 * row + 4 + c) as f64)).collect();
    assert_eq!(gm[4].to_f64_vec(), expected);
    // sums[c] = Σ_j 10·ROWS[j] + c = 10·14 + 4c.
    assert_eq!(gm[5].to_f64_vec(), vec![140.0, 144.0, 148.0]);
}
