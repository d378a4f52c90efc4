"""Golden values for gallery examples 06-09, from an independent float64 reference (numpy).

Run by hand (not in CI):  pip install numpy && python3 tests/golden/make_gallery_golden_a.py
It writes tests/golden/gallery_a.json. tests/gallery/examples_a.rs runs each notebook in a
TileLab session, evaluates every probe expression listed here and compares the printed value with
`expected` element by element: |actual - expected| <= atol + rtol * |expected|.

The inputs are rebuilt from the formulas the notebooks use (no RNG). Where a notebook builds an
input with f32 tensor ops (`pt.sin(pt.arange(0, n) * 0.37) * 2 + 0.3`), each op's result is
rounded to float32 here too, so both sides start from the same numbers up to the last bit of `sin`;
everything after that is float64 math written out below, never TileLab's kernels.
"""

import json
import os

import numpy as np

F32 = np.float32


def f32(values):
    """Rounds to float32 (what a DT_FP32 tensor stores) and returns float64."""
    return np.asarray(values, dtype=np.float64).astype(F32).astype(np.float64)


def f16(values):
    """Rounds a float32 value to float16, round-to-nearest-even (what pt.cast(x, DT_FP16) stores)."""
    return np.asarray(values, dtype=F32).astype(np.float16).astype(np.float64)


def bf16(values):
    """Rounds a float32 value to bfloat16, round-to-nearest-even on the top 16 bits."""
    bits = np.asarray(values, dtype=F32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(F32).astype(np.float64)


def f32_sin_wave(count, frequency, scale, offset, function=np.sin):
    """`pt.<function>(pt.arange(0, count) * frequency) * scale + offset`, each op stored in f32."""
    index = np.arange(count, dtype=np.float64)
    argument = f32(index * float(F32(frequency)))
    wave = f32(function(argument))
    return f32(f32(wave * float(F32(scale))) + float(F32(offset)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def rounded(value):
    """10 significant digits: far below every tolerance, and a smaller file."""
    if isinstance(value, list):
        return [rounded(item) for item in value]
    if isinstance(value, float):
        return float(f"{value:.10g}")
    return value


def probe(expression, expected, rtol=0.0, atol=0.0, why=""):
    value = rounded(expected.tolist() if isinstance(expected, np.ndarray) else expected)
    return {"expr": expression, "expected": value, "rtol": rtol, "atol": atol, "why": why}


def gelu_example():
    a = 1.702
    x = f32_sin_wave(32, 0.37, 3.0, 0.0).reshape(4, 8)
    w = f32_sin_wave(32, 0.23, 1.0, 0.0, np.cos).reshape(4, 8)
    s = sigmoid(a * x)
    # d/dx x·σ(ax) = σ(ax) + a·x·σ(ax)·(1 − σ(ax)).
    derivative = s + a * x * s * (1 - s)
    t = np.tanh(0.79788456 * (x + 0.044715 * x**3))
    tutorial = 0.5 * (1 + t) * (1 - 0.044715 * x**2 * (1 - t**2))
    error = np.abs(tutorial - derivative)
    worst = np.unravel_index(np.argmax(error), error.shape)
    f32_values = "f32 values from a few f32 ops: relative error a few ulp (≈ 1e-6), well below any wrong formula (≥ 1e-2)"
    return [
        probe("x.tolist()", x, 1e-6, 1e-6, "inputs: same formula, f32 roundings; only sin's last bit may differ"),
        probe("y.tolist()", x * s, 1e-5, 1e-6, "forward x·σ(1.702x); " + f32_values),
        probe("dx.tolist()", w * derivative, 1e-5, 1e-6, "registered product-rule backward, loss Σ y·w; " + f32_values),
        probe("dx_tutorial.tolist()", w * tutorial, 1e-5, 1e-6, "what the tutorial's backward returns; " + f32_values),
        probe("report_wrong.passed", False, why="the tutorial's backward fails the check"),
        probe("report_right.passed", True, why="the product-rule backward passes"),
        probe("list(report_wrong.worst[0][1])", [int(i) for i in worst], why="largest |tutorial − derivative|; the runner-up is 1.5e-3 lower, far above f32 noise"),
        probe("report_wrong.max_abs_err", float(error.max()), 0.0, 1e-4, "the Jacobian is diagonal: the error is max |tutorial − derivative|, up to the finite-difference error (≪ 1e-4)"),
    ]


def layer_norm_rows(x, eps):
    mean = x.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    return (x - mean) * rstd, rstd


def layer_norm_example():
    rows, columns, eps = 6, 16, 1e-5
    x = f32_sin_wave(rows * columns, 0.37, 2.0, 0.5).reshape(rows, columns)
    gamma = f32_sin_wave(columns, 0.5, 0.1, 1.0, np.cos)
    beta = f32(f32(np.arange(columns) * float(F32(0.05))) - float(F32(0.2)))
    w = f32_sin_wave(rows * columns, 0.23, 1.0, 0.0, np.cos).reshape(rows, columns)
    x_hat, rstd = layer_norm_rows(x, eps)
    y = x_hat * gamma + beta
    # dy = w; g = dy·γ; dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), dγ = Σ_rows dy·x̂, dβ = Σ_rows dy.
    g = w * gamma
    dx = rstd * (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True))
    tolerance = "f32 LayerNorm: a few ulp amplified by rstd ≈ 0.7 and the row sums of 16 values"
    return [
        probe("x.tolist()", x, 1e-6, 1e-6, "inputs: same formula, f32 roundings"),
        probe("y.tolist()", y, 1e-5, 1e-5, tolerance),
        probe("dx.tolist()", dx, 1e-5, 1e-5, tolerance),
        probe("dgamma.tolist()", (w * x_hat).sum(axis=0), 1e-5, 1e-5, tolerance),
        probe("dbeta.tolist()", w.sum(axis=0), 1e-5, 1e-5, tolerance),
        probe("report.passed", True),
    ]


def swish_example():
    beta = 1.5
    x = (np.arange(2048) / 256.0 - 4.0).reshape(32, 64)  # exact in f32 and f16
    w32 = f32_sin_wave(2048, 0.23, 1.0, 0.0, np.cos).reshape(32, 64)

    def gradient(x, w):
        s = sigmoid(beta * x)
        # d/dx x·σ(βx) = s·(1 + β·x·(1 − s)).
        return w * s * (1 + beta * x * (1 - s))

    tensor_bytes = 32 * 64 * 4
    schedule_names = ["forward, recomputing", "forward, saving s", "backward, recomputing", "backward, reading s"]
    return [
        probe("x.tolist()", x, 0.0, 0.0, "k/256 − 4 is exact"),
        probe("swish(x, BETA).tolist()", x * sigmoid(beta * x), 1e-5, 1e-6, "f32 forward"),
        probe("dx.tolist()", gradient(x, w32), 1e-5, 1e-6, "f32 recomputing backward, loss Σ y·w"),
        probe("dx_ops.tolist()", gradient(x, w32), 1e-5, 1e-6, "the tape's gradient of the same forward"),
        probe("bytes_ops", 2 * tensor_bytes, why="the tape keeps σ(βx) for the product and y for y·w: two f32 32×64 tensors"),
        probe("bytes_saved", 2 * tensor_bytes, why="saving s keeps s and y"),
        probe("bytes_recompute", tensor_bytes, why="recomputing keeps only y (x is a leaf)"),
        # f16 storage, f32 compute: each of the ~6 ops of forward and backward rounds to 11 bits
        # (relative 2⁻¹¹ ≈ 4.9e-4 each), and the gradient w·s·(1 + βx(1 − s)) is rounded after the
        # products, so 4·2⁻¹¹ ≈ 2e-3 relative plus an absolute 1e-3 where the factor cancels near
        # its zero (x ≈ −1.07 for β = 1.5). A missing β or a wrong s changes values by ≥ 5e-2.
        probe("pt.cast(dx_f16, pt.DT_FP32).tolist()", gradient(x, f16(w32)), 2e-3, 1e-3, "f16: 4·2⁻¹¹ relative + 1e-3 absolute"),
        # bf16 keeps 8 bits (2⁻⁸ ≈ 3.9e-3 per rounding): 4·2⁻⁸ ≈ 1.6e-2 relative plus 8e-3 absolute.
        probe("pt.cast(dx_bf16, pt.DT_FP32).tolist()", gradient(bf16(x), bf16(w32)), 1.6e-2, 8e-3, "bf16: 4·2⁻⁸ relative + 8e-3 absolute"),
        probe("[reports['f32'].passed, reports['f16'].passed, reports['bf16'].passed]", [True, True, True]),
        # The schedules' GM traffic: the tiles partition each 32×64 f32 tensor, so a kernel reads
        # every input tensor once and writes every output once. Forward: x in, y out (saving also
        # writes s); backward: x and the incoming gradient in (reading s adds s), dx out.
        probe(
            "[" + ", ".join(f"[schedules['{name}'].gm_bytes_read, schedules['{name}'].gm_bytes_written]" for name in schedule_names) + "]",
            [[tensor_bytes, tensor_bytes], [tensor_bytes, 2 * tensor_bytes], [2 * tensor_bytes, tensor_bytes], [3 * tensor_bytes, tensor_bytes]],
            why="GM bytes: each input read once, each output written once, 8192 bytes per tensor",
        ),
    ]


def group_norm_example():
    n, c, hw, groups, eps = 2, 8, 8, 4, 1e-5
    x = f32_sin_wave(n * c * hw, 0.37, 2.0, 0.3).reshape(n, c, hw)
    gamma = f32_sin_wave(c, 0.5, 0.1, 1.0, np.cos)
    beta = f32(f32(np.arange(c) * float(F32(0.05))) - float(F32(0.2)))
    w = f32_sin_wave(n * c * hw, 0.23, 1.0, 0.0, np.cos).reshape(n, c, hw)
    grouped = x.reshape(n, groups, -1)
    x_hat, rstd = layer_norm_rows(grouped, eps)
    mean = grouped.mean(axis=-1, keepdims=True)
    x_hat = x_hat.reshape(n, c, hw)
    y = x_hat * gamma[None, :, None] + beta[None, :, None]
    # g = dy·γ_c; per group: dx = rstd·(g − mean(g) − x̂·mean(g·x̂)).
    g = (w * gamma[None, :, None]).reshape(n, groups, -1)
    xg = x_hat.reshape(n, groups, -1)
    dx = rstd * (g - g.mean(axis=-1, keepdims=True) - xg * (g * xg).mean(axis=-1, keepdims=True))
    tolerance = "f32 GroupNorm: a few ulp amplified by rstd and sums of 16–32 values"
    return [
        probe("x.tolist()", x, 1e-6, 1e-6, "inputs: same formula, f32 roundings"),
        probe("y.tolist()", y, 1e-5, 1e-5, tolerance),
        probe("mean.tolist()", mean, 1e-5, 1e-6, tolerance),
        probe("rstd.tolist()", rstd, 1e-5, 1e-6, tolerance),
        probe("dx.tolist()", dx.reshape(n, c, hw), 1e-5, 1e-5, tolerance),
        probe("dgamma.tolist()", (w * x_hat).sum(axis=(0, 2)), 1e-5, 1e-5, tolerance),
        probe("dbeta.tolist()", w.sum(axis=(0, 2)), 1e-5, 1e-5, tolerance),
        probe("report.passed", True),
    ]


def main():
    golden = {
        "about": "Expected values for examples 06-09 from tests/golden/make_gallery_golden_a.py (float64 numpy).",
        "examples": {
            "06_gelu_registered_gradient.py": gelu_example(),
            "07_layernorm_register_gradient.py": layer_norm_example(),
            "08_swish_recompute.py": swish_example(),
            "09_groupnorm_jit_backward.py": group_norm_example(),
        },
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gallery_a.json")
    # One probe per line keeps the file small and its diffs readable.
    lines = ["{", f' "about": {json.dumps(golden["about"])},', ' "examples": {']
    names = list(golden["examples"])
    for number, name in enumerate(names):
        probes = golden["examples"][name]
        lines.append(f"  {json.dumps(name)}: [")
        lines.extend("   " + json.dumps(item, ensure_ascii=False) + ("," if index + 1 < len(probes) else "") for index, item in enumerate(probes))
        lines.append("  ]" + ("," if number + 1 < len(names) else ""))
    lines += [" }", "}"]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
