//! Masks inside kernels that used to fall back to the CPU: `logical_not` (of a mask and of a float
//! tile), `logical_and` of two masks and pypto's long name `greater`; each must run on the
//! simulated NPU and give the values of a reference computed here with plain loops.

use crate::kernel_forms::run_on_npu;
use tilelab::session::Session;

/// Runs a kernel whose body writes `out[:] = {expression of x}` on an 8 × 16 float input and
/// returns the bool output as 0/1 values.
fn run_kernel(expression: &str, x: &[f64]) -> Vec<i64> {
    let data: Vec<String> = x.iter().map(|value| format!("{value:?}")).collect();
    let code = format!(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def kernel(x, out):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = {expression}\n\
         x = pypto.reshape(pypto.as_tensor([{}]), [8, 16])\n\
         out = pypto.zeros([8, 16], pypto.DT_BOOL)\n\
         kernel(x, out)\n\
         print([int(out[i, j].item()) for i in range(8) for j in range(16)])\n",
        data.join(", ")
    );
    let mut session = Session::new();
    let printed = run_on_npu(&mut session, &code);
    let last = printed.lines().last().unwrap().trim_matches(['[', ']']);
    last.split(", ").map(|value| value.parse().unwrap()).collect()
}

/// 128 values with zeros, signs and a fractional part: (i mod 7) − 3 plus a half on odd i.
fn input() -> Vec<f64> {
    (0..128).map(|i| ((i % 7) as f64 - 3.0) + if i % 2 == 1 { 0.5 } else { 0.0 }).collect()
}

#[test]
fn logical_not_of_a_float_tile_and_of_a_mask_run_on_the_npu() {
    let x = input();
    let wanted: Vec<i64> = x.iter().map(|&value| i64::from(value == 0.0)).collect();
    assert!(wanted.contains(&1) && wanted.contains(&0));
    assert_eq!(run_kernel("pypto.logical_not(x)", &x), wanted);
    let wanted: Vec<i64> = x.iter().map(|&value| i64::from(value <= 1.0)).collect();
    assert_eq!(run_kernel("pypto.logical_not(pypto.gt(x, 1.0))", &x), wanted);
}

#[test]
fn logical_and_of_two_masks_and_greater_run_on_the_npu() {
    let x = input();
    let wanted: Vec<i64> = x.iter().map(|&value| i64::from(value > -1.0 && value < 2.0)).collect();
    assert_eq!(run_kernel("pypto.logical_and(pypto.greater(x, -1.0), pypto.lt(x, 2.0))", &x), wanted);
    let wanted: Vec<i64> = x.iter().map(|&value| i64::from(value > 0.25)).collect();
    assert_eq!(run_kernel("pypto.greater(x, 0.25)", &x), wanted);
}
