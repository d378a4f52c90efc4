//! pypto's operations added from its operation docs, inside `@pypto.frontend.jit` kernels: each
//! kernel must run on the simulated NPU (no CPU fallback) and give values checked against
//! references written out by hand in the script.

use crate::kernel_forms::run_on_npu;
use tilelab::session::Session;

/// Runs `code` on the NPU and returns its printed lines.
fn lines(code: &str) -> Vec<String> {
    let mut session = Session::new();
    run_on_npu(&mut session, code).lines().map(str::to_string).collect()
}

#[test]
fn argmax_of_each_row_runs_on_the_npu_as_pypto_gyms_example_writes_it() {
    // Row i has its largest value 10 at column (5·i) % 16, a -3 at column 15 − i and 0 elsewhere.
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def argmax_kernel(a, out):\n    for i in pypto.loop(4):\n        a_s = pypto.view(a, [1, 16], [i, 0])\n        pypto.set_vec_tile_shapes(1, 16)\n        r = pypto.argmax(a_s, -1, True)\n        pypto.assemble(r, [i, 0], out)\n\
         a = pypto.zeros([4, 16])\n\
         for i in range(4):\n    a[i, (5 * i) % 16] = 10.0\n    a[i, 15 - i] = -3.0\n\
         out = pypto.zeros([4, 1], pypto.DT_INT32)\n\
         argmax_kernel(a, out)\n\
         print([int(out[i, 0].item()) for i in range(4)])\n",
    );
    assert_eq!(printed.last().unwrap(), "[0, 5, 10, 15]");
}

#[test]
fn argmin_with_keepdim_false_writes_a_one_dimensional_output_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def argmin_kernel(a, out):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = pypto.argmin(a, 1)\n\
         a = pypto.ones([8, 16])\n\
         for i in range(8):\n    a[i, (3 * i + 1) % 16] = -2.0\n\
         out = pypto.zeros([8], pypto.DT_INT32)\n\
         argmin_kernel(a, out)\n\
         print([int(out[i].item()) for i in range(8)])\n",
    );
    assert_eq!(printed.last().unwrap(), "[1, 4, 7, 10, 13, 0, 3, 6]");
}

#[test]
fn arange_inside_a_kernel_is_loaded_from_gm_instead_of_falling_back() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def add_columns(a, out):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = a + pypto.arange(16)\n\
         a = pypto.full([8, 16], 0.5)\n\
         out = pypto.zeros([8, 16])\n\
         add_columns(a, out)\n\
         print(max(abs(out[i, j].item() - (j + 0.5)) for i in range(8) for j in range(16)))\n",
    );
    assert_eq!(printed.last().unwrap(), "0.0");
}

#[test]
fn one_hot_inside_a_kernel_compares_with_the_classes_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def encode(x, out):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = pypto.one_hot(x, 16)\n\
         x = pypto.as_tensor([3, 0, 15, 7, 7, 1, 9, 12], pypto.DT_INT32)\n\
         out = pypto.zeros([8, 16], pypto.DT_INT64)\n\
         encode(x, out)\n\
         print([[j for j in range(16) if out[i, j].item() == 1] for i in range(8)])\n\
         print(int(pypto.sum(out).item()))\n",
    );
    assert_eq!(printed[0], "[[3], [0], [15], [7], [7], [1], [9], [12]]");
    assert_eq!(printed[1], "8");
}

#[test]
fn index_select_inside_a_kernel_is_a_gather_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def pick(x, index, out):\n    pypto.set_vec_tile_shapes(8, 32)\n    out[:] = pypto.index_select(x, 0, index)\n\
         x = pypto.zeros([16, 32])\n\
         for i in range(16):\n    x[i, :] = float(i * 10)\n\
         index = pypto.as_tensor([5, 0, 15, 5, 2, 9, 11, 3], pypto.DT_INT32)\n\
         out = pypto.zeros([8, 32])\n\
         pick(x, index, out)\n\
         print([out[r, 31].item() for r in range(8)])\n",
    );
    assert_eq!(printed.last().unwrap(), "[50.0, 0.0, 150.0, 50.0, 20.0, 90.0, 110.0, 30.0]");
}

#[test]
fn scatter_update_of_a_gm_cache_writes_the_rows_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def update(cache, index, rows):\n    pypto.set_vec_tile_shapes(8, 32)\n    cache = pypto.scatter_update(cache, -2, index, rows)\n\
         cache = pypto.zeros([16, 32])\n\
         index = pypto.as_tensor([[1, 2, 3, 4], [9, 10, 14, 15]], pypto.DT_INT32)\n\
         rows = pypto.zeros([8, 32])\n\
         for r in range(8):\n    rows[r, :] = float(r + 1)\n\
         update(cache, index, rows)\n\
         print([cache[r, 0].item() for r in range(16)])\n",
    );
    let expected = "[0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 0.0, 0.0, 0.0, 7.0, 8.0]";
    assert_eq!(printed.last().unwrap(), expected);
}

#[test]
fn unsqueeze_inside_a_kernel_is_a_reshape_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def lift(a, out):\n    pypto.set_vec_tile_shapes(1, 8, 16)\n    out[:] = pypto.unsqueeze(a, 0) * 2.0\n\
         a = pypto.full([8, 16], 1.5)\n\
         out = pypto.zeros([1, 8, 16])\n\
         lift(a, out)\n\
         print(out.shape, pypto.amax(pypto.abs(out - 3.0)).item())\n",
    );
    assert_eq!(printed.last().unwrap(), "[1, 8, 16] 0.0");
}

#[test]
fn tril_of_a_computed_tile_is_a_select_by_a_constant_mask_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def lower(a, out):\n    pypto.set_vec_tile_shapes(16, 16)\n    out[:] = pypto.tril(a * 2.0, -1) + pypto.triu(a, 15)\n\
         a = pypto.ones([16, 16])\n\
         out = pypto.zeros([16, 16])\n\
         lower(a, out)\n\
         print(pypto.sum(out).item(), out[15, 0].item(), out[0, 15].item(), out[3, 3].item())\n",
    );
    // 120 elements strictly below the diagonal, times 2, and the corner (0, 15) once.
    assert_eq!(printed.last().unwrap(), "241.0 2.0 1.0 0.0");
}

#[test]
fn permute_of_an_argument_and_of_a_computed_tile_run_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def move(a, out, again):\n    pypto.set_vec_tile_shapes(4, 8, 16)\n    out[:] = pypto.permute(a, [2, 0, 1]) + 1.0\n    again[:] = pypto.permute(a * 1.0, [1, 2, 0])\n\
         a = pypto.arange(512).reshape([4, 8, 16])\n\
         out = pypto.zeros([16, 4, 8])\n\
         again = pypto.zeros([8, 16, 4])\n\
         move(a, out, again)\n\
         print(out[5, 2, 3].item(), again[7, 9, 3].item())\n",
    );
    // a[i, j, k] = 128i + 16j + k: out[5, 2, 3] = a[2, 3, 5] + 1, again[7, 9, 3] = a[3, 7, 9].
    assert_eq!(printed.last().unwrap(), "310.0 505.0");
}

#[test]
fn the_added_element_wise_math_ops_run_on_the_npu_and_match_f64_math() {
    let printed = lines(
        "import pypto\nimport math\n\
         @pypto.frontend.jit\n\
         def maths(a, e, l, s, c, t, h):\n    pypto.set_vec_tile_shapes(8, 16)\n    e[:] = pypto.expm1(a)\n    l[:] = pypto.log1p(a * a)\n    s[:] = pypto.sinh(a)\n    c[:] = pypto.cosh(a)\n    t[:] = pypto.atan(a)\n    h[:] = pypto.asinh(a)\n\
         a = pypto.zeros([8, 16])\n\
         for i in range(8):\n    for j in range(16):\n        a[i, j] = (i * 16 + j - 64) / 32.0\n\
         outs = [pypto.zeros([8, 16]) for _ in range(6)]\n\
         maths(a, *outs)\n\
         refs = [lambda x: math.exp(x) - 1.0, lambda x: math.log(1.0 + x * x), lambda x: (math.exp(x) - math.exp(-x)) / 2.0,\n\
                 lambda x: (math.exp(x) + math.exp(-x)) / 2.0, math.atan, lambda x: math.log(x + math.sqrt(x * x + 1.0))]\n\
         worst = 0.0\n\
         for out, ref in zip(outs, refs):\n    for i in range(8):\n        for j in range(16):\n            x = (i * 16 + j - 64) / 32.0\n            worst = max(worst, abs(out[i, j].item() - ref(x)) / max(1.0, abs(ref(x))))\n\
         print(worst < 1e-6)\n",
    );
    assert_eq!(printed.last().unwrap(), "True");
}

/// pypto's log2, log10, tan, acosh and atanh in one jit kernel, on the NPU, against Python's math
/// in f64 (inputs inside each domain; the worst relative error of f32 math is a few ulps).
#[test]
fn log2_log10_tan_acosh_and_atanh_run_on_the_npu_and_match_f64_math() {
    let printed = lines(
        "import pypto\nimport math\n\
         @pypto.frontend.jit\n\
         def maths(a, l2, l10, t, c, h):\n    pypto.set_vec_tile_shapes(8, 16)\n    l2[:] = pypto.log2(a)\n    l10[:] = pypto.log10(a, precision_type=None)\n    t[:] = pypto.tan(a - 1.0)\n    c[:] = pypto.acosh(a + 1.0)\n    h[:] = pypto.atanh(a - 1.0)\n\
         a = pypto.zeros([8, 16])\n\
         for i in range(8):\n    for j in range(16):\n        a[i, j] = (i * 16 + j + 1) / 129.0 * 1.9 + 0.05\n\
         outs = [pypto.zeros([8, 16]) for _ in range(5)]\n\
         maths(a, *outs)\n\
         refs = [lambda x: math.log(x) / math.log(2.0), lambda x: math.log(x) / math.log(10.0), lambda x: math.tan(x - 1.0),\n\
                 lambda x: math.log(x + 1.0 + math.sqrt((x + 1.0) ** 2 - 1.0)), lambda x: 0.5 * math.log((1.0 + (x - 1.0)) / (1.0 - (x - 1.0)))]\n\
         worst = 0.0\n\
         for out, ref in zip(outs, refs):\n    for i in range(8):\n        for j in range(16):\n            x = a[i, j].item()\n            worst = max(worst, abs(out[i, j].item() - ref(x)) / max(1.0, abs(ref(x))))\n\
         print(worst < 2e-6)\n",
    );
    assert_eq!(printed.last().unwrap(), "True");
}

/// Python's `&` of two masks and `<<`/`|` of an int tile in a kernel run on the NPU (pypto's
/// bitwise functions); the reference is worked in the test from the same inputs.
#[test]
fn bitwise_operators_in_a_kernel_run_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def k(a, out, bits):\n    pypto.set_vec_tile_shapes(8, 16)\n    out[:] = pypto.where((a > 0.0) & (a < 0.5), a, 0.0)\n    bits[:] = (pypto.cast(a * 8.0, pypto.DT_INT32) << 1) | 1\n\
         a = pypto.zeros([8, 16])\n\
         for i in range(8):\n    for j in range(16):\n        a[i, j] = (i * 16 + j - 64) / 64.0\n\
         out = pypto.zeros([8, 16])\n\
         bits = pypto.zeros([8, 16], pypto.DT_INT32)\n\
         k(a, out, bits)\n\
         print(out.sum().item(), bits[7, 15].item(), bits[0, 0].item())\n",
    );
    // a = (k - 64) / 64 for k = 0..127: (0, 0.5) holds k = 65..95, summing (1 + … + 31) / 64 = 7.75;
    // the last is 63/64 · 8 = 7.875 → 7 → 15; the first −8 → −16 | 1 = −15.
    assert_eq!(printed.last().unwrap(), "7.75 15 -15");
}

/// pypto's lrelu in a kernel on the NPU and torch's leaky_relu on the host, worked by hand:
/// a = (k − 16) / 4 for k = 0..31; the negatives sum to −34 (× 0.1 = −3.4), the rest to 30.
#[test]
fn lrelu_runs_on_the_npu_and_leaky_relu_on_the_host() {
    let printed = lines(
        "import pypto, torch\nimport torch.nn.functional as F\n\
         @pypto.frontend.jit\n\
         def k(a, out):\n    pypto.set_vec_tile_shapes(4, 8)\n    out[:] = pypto.lrelu(a, 0.1)\n\
         a = pypto.zeros([4, 8])\n\
         for i in range(4):\n    for j in range(8):\n        a[i, j] = (i * 8 + j - 16) / 4.0\n\
         out = pypto.zeros([4, 8])\n\
         k(a, out)\n\
         print(abs(out.sum().item() - 26.6) < 1e-5, abs(out[0, 0].item() + 0.4) < 1e-7, out[3, 7].item())\n\
         print(F.leaky_relu(torch.tensor([-2.0, 3.0]), negative_slope=0.5).tolist())\n",
    );
    assert_eq!(printed, ["True True 3.75", "[-1.0, 3.0]"]);
}

/// pypto's cbrt and hypot in a kernel on the NPU against values worked by hand: a = (k − 16)³ / 8
/// for k = 0..31 has the cube root (k − 16) / 2 (negative below k = 16); hypot(3m, 4m) = 5|m| for
/// m = k − 16. On the host, torch.cbrt / torch._prims.cbrt keep the sign of −0 and ±inf, NaN
/// stays NaN, and torch.hypot(3, 4) = 5.
#[test]
fn cbrt_and_hypot_run_on_the_npu_and_on_the_host() {
    let printed = lines(
        "import pypto, torch\n\
         @pypto.frontend.jit\n\
         def k(a, b, c, root, length):\n    pypto.set_vec_tile_shapes(4, 8)\n    root[:] = pypto.cbrt(a)\n    length[:] = pypto.hypot(b, c)\n\
         a = pypto.zeros([4, 8])\nb = pypto.zeros([4, 8])\nc = pypto.zeros([4, 8])\n\
         for i in range(4):\n    for j in range(8):\n        m = i * 8 + j - 16\n        a[i, j] = m * m * m / 8.0\n        b[i, j] = 3.0 * m\n        c[i, j] = 4.0 * m\n\
         root = pypto.zeros([4, 8])\nlength = pypto.zeros([4, 8])\n\
         k(a, b, c, root, length)\n\
         worst_root = max(abs(root[i, j].item() - (i * 8 + j - 16) / 2.0) for i in range(4) for j in range(8))\n\
         worst_length = max(abs(length[i, j].item() - 5.0 * abs(i * 8 + j - 16)) for i in range(4) for j in range(8))\n\
         print(worst_root < 1e-5, worst_length < 1e-4, root[0, 0].item(), length[0, 0].item())\n\
         print(torch.cbrt(torch.tensor([-0.0, float('inf'), float('-inf'), 0.001])).tolist())\n\
         print(torch._prims.cbrt(torch.tensor([-64.0])).tolist(), [v != v for v in torch.cbrt(torch.tensor([float('nan')])).tolist()])\n\
         print(torch.hypot(torch.tensor([3.0, -5.0]), torch.tensor([[4.0], [12.0]])).tolist())\n",
    );
    assert_eq!(
        printed,
        [
            "True True -8.0 80.0",
            "[-0.0, inf, -inf, 0.10000000149011612]",
            "[-4.0] [True]",
            "[[5.0, 6.4031243324279785], [12.369317054748535, 13.0]]",
        ]
    );
}

/// pypto's prelu in a kernel on the NPU: a 2-D [4, 8] input shares weight[c] along its dim 1 and a
/// 3-D [2, 4, 8] input shares weight[c] along dim 1 too (the weight reshaped to [4, 1, 1]).
/// x = −(j + 1) for the 2-D input with weight[j] = j / 8: prelu = −(j + 1)·j / 8, summed over j =
/// −(0 + 2 + 6 + 12 + 20 + 30 + 42 + 56) / 8 = −21 per row; a positive entry is kept.
#[test]
fn prelu_shares_its_weight_along_the_channel_dim_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def k(x, w8, out, y, w4, out3):\n    pypto.set_vec_tile_shapes(4, 8)\n    out[:] = pypto.prelu(x, w8)\n    pypto.set_vec_tile_shapes(2, 4, 8)\n    out3[:] = pypto.prelu(y, w4)\n\
         x = pypto.zeros([4, 8])\nw8 = pypto.zeros([8])\ny = pypto.zeros([2, 4, 8])\nw4 = pypto.zeros([4])\n\
         for j in range(8):\n    w8[j] = j / 8.0\n    for i in range(4):\n        x[i, j] = -(j + 1.0)\n\
         x[2, 5] = 7.0\n\
         for c in range(4):\n    w4[c] = c + 1.0\n\
         for n in range(2):\n    for c in range(4):\n        for j in range(8):\n            y[n, c, j] = -1.0 if j % 2 == 0 else 2.0\n\
         out = pypto.zeros([4, 8])\nout3 = pypto.zeros([2, 4, 8])\n\
         k(x, w8, out, y, w4, out3)\n\
         print(out[0].sum().item(), out[2, 5].item(), out[3, 7].item())\n\
         print(out3[1, 2, 0].item(), out3[1, 2, 1].item(), out3[0, 3, 4].item(), out3.sum().item())\n",
    );
    // 3-D: per (n, c) row four −1·(c + 1) and four 2 → 8 − 4(c + 1); summed over c = 8·4 − 4·10 = −8,
    // over n = −16.
    assert_eq!(printed, ["-21.0 7.0 -7.0", "-3.0 2.0 -4.0 -16.0"]);
}

/// pypto's var with `correction` on the NPU: each row is 0..7 (mean 3.5, Σ(x − x̄)² = 42), so
/// correction 1 gives 42 / 7 = 6, correction 2 (the method form) 42 / 6 = 7, and no correction the
/// population variance 42 / 8 = 5.25.
#[test]
fn var_divides_by_n_minus_correction_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def k(a, one, two, none):\n    pypto.set_vec_tile_shapes(4, 8)\n    one[:] = pypto.var(a, [1], keepdim=True, correction=1)\n    two[:] = a.var(-1, correction=2, keepdim=True)\n    none[:] = pypto.var(a, -1, True)\n\
         a = pypto.zeros([4, 8])\n\
         for i in range(4):\n    for j in range(8):\n        a[i, j] = j * 1.0\n\
         one = pypto.zeros([4, 1])\ntwo = pypto.zeros([4, 1])\nnone = pypto.zeros([4, 1])\n\
         k(a, one, two, none)\n\
         print([round(t[i, 0].item(), 5) for t in (one, two, none) for i in (0, 3)])\n",
    );
    assert_eq!(printed, ["[6.0, 6.0, 7.0, 7.0, 5.25, 5.25]"]);
}
