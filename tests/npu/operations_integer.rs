//! pypto's integer-only operations (`bitwise_*`, shifts, `gcd`) inside kernels: each must run on
//! the simulated NPU (no CPU fallback), over ragged tiles as pypto's operation tests cut them, and
//! give the values of a reference computed here with plain i64 loops.

use crate::kernel_forms::run_on_npu;
use tilelab::session::Session;

/// Values of a 10 × 13 int16 input: a spread of signs and magnitudes from a fixed recurrence.
fn input(seed: i64) -> Vec<i64> {
    (0..130).map(|i| ((i * 37 + seed * 11) % 199) - 99).collect()
}

/// Runs `call` (an expression of the views `a` and `b`, or of `a` and a number) on 10 × 13 int16
/// inputs cut into 8 × 8 tiles with ragged edges, and returns the output's values.
fn run_kernel(call: &str, a: &[i64], b: &[i64]) -> Vec<i64> {
    let list = |values: &[i64]| {
        let rows: Vec<String> = values
            .chunks(13)
            .map(|row| format!("[{}]", row.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")))
            .collect();
        format!("[{}]", rows.join(", "))
    };
    let code = format!(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def kernel(x, y, out):\n    for i in pypto.loop(2):\n        for j in pypto.loop(2):\n            rows = pypto.min(10 - i * 8, 8)\n            columns = pypto.min(13 - j * 8, 8)\n            a = pypto.view(x, [8, 8], [i * 8, j * 8], valid_shape=[rows, columns])\n            b = pypto.view(y, [8, 8], [i * 8, j * 8], valid_shape=[rows, columns])\n            pypto.set_vec_tile_shapes(8, 8)\n            pypto.assemble({call}, [i * 8, j * 8], out)\n\
         x = pypto.as_tensor({}, pypto.DT_INT16)\n\
         y = pypto.as_tensor({}, pypto.DT_INT16)\n\
         out = pypto.zeros([10, 13], pypto.DT_INT16)\n\
         kernel(x, y, out)\n\
         print([int(out[i, j].item()) for i in range(10) for j in range(13)])\n",
        list(a),
        list(b)
    );
    let mut session = Session::new();
    let printed = run_on_npu(&mut session, &code);
    let last = printed.lines().last().unwrap().trim_matches(['[', ']']);
    last.split(", ").map(|value| value.parse().unwrap()).collect()
}

/// The reference of an op on one pair of values.
type Reference = fn(i64, i64) -> i64;

/// `value` wrapped to int16.
fn int16(value: i64) -> i64 {
    value as i16 as i64
}

#[test]
fn bitwise_and_or_xor_not_of_ragged_int16_tiles_match_the_i64_reference() {
    let (a, b) = (input(1), input(5));
    let cases: [(&str, Reference); 4] = [
        ("pypto.bitwise_and(a, b)", |x, y| x & y),
        ("pypto.bitwise_or(a, b)", |x, y| x | y),
        ("pypto.bitwise_xor(a, b)", |x, y| x ^ y),
        ("pypto.bitwise_not(a)", |x, _| -x - 1),
    ];
    for (call, reference) in cases {
        let wanted: Vec<i64> = a.iter().zip(&b).map(|(&x, &y)| int16(reference(x, y))).collect();
        assert_eq!(run_kernel(call, &a, &b), wanted, "{call}");
    }
}

#[test]
fn shifts_by_tiles_and_by_numbers_follow_torchs_edges_on_the_npu() {
    // Shift amounts from -99 to 99: most are negative or at least 16, where torch gives 0 (left)
    // or the sign fill (right); the rest multiply or floor-divide by a power of two.
    let (a, b) = (input(2), input(7));
    let left = |x: i64, s: i64| if (0..16).contains(&s) { int16(x * (1 << s)) } else { 0 };
    let right = |x: i64, s: i64| {
        let s = if (0..15).contains(&s) { s } else { 15 };
        x.div_euclid(1 << s)
    };
    let wanted: Vec<i64> = a.iter().zip(&b).map(|(&x, &s)| left(x, s)).collect();
    assert_eq!(run_kernel("pypto.bitwise_left_shift(a, b)", &a, &b), wanted);
    let wanted: Vec<i64> = a.iter().zip(&b).map(|(&x, &s)| right(x, s)).collect();
    assert_eq!(run_kernel("pypto.bitwise_right_shift(a, b)", &a, &b), wanted);
    // The scalar forms: a tile shifted by 3, and 1 shifted by each element of a tile.
    let wanted: Vec<i64> = a.iter().map(|&x| left(x, 3)).collect();
    assert_eq!(run_kernel("pypto.bitwise_left_shift(a, 3)", &a, &b), wanted);
    let small: Vec<i64> = a.iter().map(|&x| x.rem_euclid(18) - 1).collect();
    let wanted: Vec<i64> = small.iter().map(|&s| right(1000, s)).collect();
    assert_eq!(run_kernel("pypto.bitwise_right_shift(1000, a)", &small, &b), wanted);
}

#[test]
fn gcd_of_tiles_and_of_a_number_match_euclids_algorithm() {
    let euclid = |x: i64, y: i64| {
        let (mut x, mut y) = (x.abs(), y.abs());
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    let (a, b) = (input(3), input(4));
    let wanted: Vec<i64> = a.iter().zip(&b).map(|(&x, &y)| euclid(x, y)).collect();
    assert_eq!(run_kernel("pypto.gcd(a, b)", &a, &b), wanted);
    let wanted: Vec<i64> = a.iter().map(|&x| euclid(x, 12)).collect();
    assert_eq!(run_kernel("pypto.gcd(a, 12)", &a, &b), wanted);
}
