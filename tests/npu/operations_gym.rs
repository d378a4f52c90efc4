//! pypto-gym's API examples that needed TileLab changes, in the forms the examples write them: each
//! kernel must run on the simulated NPU (no CPU fallback) and print values that the test checks
//! against references computed here with plain f64 loops; and the torch functions their goldens
//! call, checked the same way.

use crate::kernel_forms::run_on_npu;
use tilelab::session::Session;

/// Runs `code` on the NPU and returns its printed lines.
fn lines(code: &str) -> Vec<String> {
    let mut session = Session::new();
    run_on_npu(&mut session, code).lines().map(str::to_string).collect()
}

/// Runs host-only `code` (no kernel) and returns its printed lines.
fn host_lines(code: &str) -> Vec<String> {
    let mut session = Session::new();
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result.stdout.lines().map(str::to_string).collect()
}

/// The printed list of numbers on `line`.
fn numbers(line: &str) -> Vec<f64> {
    line.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .filter(|item| !item.trim().is_empty())
        .map(|item| item.trim().parse::<f64>().unwrap_or_else(|_| panic!("not a number: {item} in {line}")))
        .collect()
}

/// Values 0.37·k folded into [-1, 1) by sin, as the scripts below make them.
fn wave(count: usize) -> Vec<f64> {
    (0..count).map(|k| (0.37 * k as f64).sin()).collect()
}

#[test]
fn eye_from_one_hot_of_an_int_full_per_row_runs_on_the_npu() {
    // eye.md: row i is one_hot(full([1], i, DT_INT32), n) cast to the output dtype.
    let printed = lines(
        "import pypto\n\
         n = 16\n\
         @pypto.frontend.jit\n\
         def eye_kernel(out):\n    for i in pypto.loop(n, name=\"row\", unroll_list=[1]):\n        idx = pypto.full([1], i, pypto.DT_INT32)\n        row = pypto.cast(pypto.one_hot(idx, n), pypto.DT_FP32)\n        pypto.assemble(row, [i, 0], out)\n\
         out = pypto.full([n, n], 7.0)\n\
         eye_kernel(out)\n\
         print([out[i, j].item() for i in range(n) for j in range(n)])\n",
    );
    let reference: Vec<f64> = (0..16).flat_map(|i| (0..16).map(move |j| if i == j { 1.0 } else { 0.0 })).collect();
    assert_eq!(numbers(printed.last().unwrap()), reference);
}

#[test]
fn logical_not_of_a_bool_tile_is_a_compare_on_the_npu() {
    let printed = lines(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def logical_not_kernel(a, out):\n    for i in pypto.loop(4):\n        a_s = pypto.view(a, [1, 32], [i, 0])\n        pypto.set_vec_tile_shapes(1, 32)\n        r = pypto.logical_not(a_s)\n        pypto.assemble(r, [i, 0], out)\n\
         a = pypto.as_tensor([[(3 * i + j) % 5 == 0 for j in range(32)] for i in range(4)], pypto.DT_BOOL)\n\
         out = pypto.zeros([4, 32], pypto.DT_BOOL)\n\
         logical_not_kernel(a, out)\n\
         print([1.0 if out[i, j].item() else 0.0 for i in range(4) for j in range(32)])\n",
    );
    let reference: Vec<f64> =
        (0..4).flat_map(|i| (0..32).map(move |j| if (3 * i + j) % 5 == 0 { 0.0 } else { 1.0 })).collect();
    assert_eq!(numbers(printed.last().unwrap()), reference);
}

#[test]
fn roll_by_index_select_with_an_int_arange_runs_on_the_npu() {
    // roll.md: pypto.arange(n) of ints is DT_INT32, so its views index index_select directly.
    let printed = lines(
        "import pypto, math\n\
         n = 32\nshift = 3\nsplit = n - shift\n\
         @pypto.frontend.jit\n\
         def roll_kernel(a, out):\n    for i in pypto.loop(4):\n        a_s = pypto.view(a, [1, n], [i, 0])\n        pypto.set_vec_tile_shapes(1, n)\n        idx_all = pypto.arange(n)\n        part_head = pypto.index_select(a_s, -1, pypto.view(idx_all, [shift], [split]))\n        part_tail = pypto.index_select(a_s, -1, pypto.view(idx_all, [split], [0]))\n        r = pypto.concat([part_head, part_tail], dim=-1)\n        pypto.assemble(r, [i, 0], out)\n\
         a = pypto.as_tensor([[math.sin(0.37 * (n * i + j)) for j in range(n)] for i in range(4)])\n\
         out = pypto.zeros([4, n])\n\
         roll_kernel(a, out)\n\
         print([out[i, j].item() for i in range(4) for j in range(n)])\n",
    );
    let input = wave(128);
    let reference: Vec<f64> =
        (0..4).flat_map(|i| (0..32).map(move |j| (i, j))).map(|(i, j)| input[32 * i + (j + 29) % 32]).collect();
    let got = numbers(printed.last().unwrap());
    assert_eq!(got.len(), reference.len());
    for (got, want) in got.iter().zip(&reference) {
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    }
}

#[test]
fn arange_of_ints_is_int32_and_a_float_anywhere_makes_it_fp32_and_floats_promote_it() {
    let printed = host_lines(
        "import pypto\n\
         print(pypto.arange(5).dtype, pypto.arange(1, 5, 2).dtype, pypto.arange(0, 2, 0.5).dtype, pypto.arange(4.0).dtype)\n\
         print(pypto.arange(3, dtype=pypto.DT_FP16).dtype)\n\
         print((pypto.arange(4) * 0.5).tolist())\n",
    );
    assert_eq!(printed[0], "pypto.DT_INT32 pypto.DT_INT32 pypto.DT_FP32 pypto.DT_FP32");
    assert_eq!(printed[1], "pypto.DT_FP16");
    assert_eq!(numbers(&printed[2]), vec![0.0, 0.5, 1.0, 1.5]);
}

#[test]
fn torch_goldens_of_the_gym_examples_compute_what_torch_does() {
    let printed = host_lines(
        "import torch\nimport torch.nn.functional as F\n\
         x = torch.tensor([[3.0, -1.0, 7.0, 2.0, 7.5, 0.0], [1.0, 4.0, -2.0, 8.0, 5.0, 6.0]])\n\
         v, i = torch.topk(x, 3, -1, True)\n\
         print(v.tolist(), i.tolist())\n\
         s, j = torch.sort(x, dim=-1, descending=False)\n\
         print(s[0].tolist(), j[0].tolist())\n\
         print(F.glu(x, dim=-1)[1].tolist())\n\
         print(torch.repeat_interleave(x[:, :2], 2, dim=0).tolist())\n\
         print(x.argmax(dim=-1, keepdim=True).tolist(), torch.max(x, dim=1)[0].tolist())\n\
         print(torch.linspace(0, 1, 5).tolist())\n\
         print(torch.roll(x, 2, -1)[0].tolist())\n\
         print(torch.all(x > -1.5, dim=-1).tolist(), torch.any(x > 7.8, dim=-1).tolist())\n\
         print(torch.chunk(x, 2, dim=-1)[1][0].tolist(), torch.norm(x[0]).item())\n\
         print(F.layer_norm(x, [6], eps=0.0)[0].tolist())\n",
    );
    let sigmoid = |value: f64| 1.0 / (1.0 + (-value).exp());
    assert_eq!(printed[0], "[[7.5, 7.0, 3.0], [8.0, 6.0, 5.0]] [[4, 2, 0], [3, 5, 4]]");
    assert_eq!(printed[1], "[-1.0, 0.0, 2.0, 3.0, 7.0, 7.5] [1, 5, 3, 0, 2, 4]");
    let glu: Vec<f64> = [1.0, 4.0, -2.0].iter().zip([8.0, 5.0, 6.0]).map(|(a, b)| a * sigmoid(b)).collect();
    for (got, want) in numbers(&printed[2]).iter().zip(&glu) {
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    }
    assert_eq!(printed[3], "[[3.0, -1.0], [3.0, -1.0], [1.0, 4.0], [1.0, 4.0]]");
    assert_eq!(printed[4], "[[4], [3]] [7.5, 8.0]");
    assert_eq!(numbers(&printed[5]), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    assert_eq!(numbers(&printed[6]), vec![7.5, 0.0, 3.0, -1.0, 7.0, 2.0]);
    assert_eq!(printed[7], "[True, False] [False, True]");
    let row = [3.0f64, -1.0, 7.0, 2.0, 7.5, 0.0];
    let norm = row.iter().map(|value| value * value).sum::<f64>().sqrt();
    let parts: Vec<&str> = printed[8].split("] ").collect();
    assert_eq!(numbers(parts[0]), vec![2.0, 7.5, 0.0]);
    assert!((parts[1].trim().parse::<f64>().unwrap() - norm).abs() < 1e-5);
    let mean = row.iter().sum::<f64>() / 6.0;
    let deviation = (row.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / 6.0).sqrt();
    for (got, value) in numbers(&printed[9]).iter().zip(row) {
        assert!((got - (value - mean) / deviation).abs() < 1e-5, "{got}");
    }
}
