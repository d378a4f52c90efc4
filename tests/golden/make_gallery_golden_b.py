"""Golden values for gallery examples 10-13, from an independent numpy reference (float64 math).

Run by hand (not in CI):  pip install numpy && python3 tests/golden/make_gallery_golden_b.py
It writes tests/golden/gallery_b.json. For each example: a list of probes, each a script expression
that tests/gallery/examples_b.rs evaluates in the notebook's session after the notebook ran, the
value numpy expects, and the tolerance (|actual - expected| <= atol + rtol * |expected|).

Inputs are built from formulas on both sides (sin/cos of arange), never from TileLab's RNG. The
notebooks compute those formulas in float32 and round to bfloat16; this script repeats the float32
steps with numpy float32 arithmetic (same IEEE rounding) and emulates bfloat16 by round-to-nearest-
even on the upper 16 bits of the float32 bit pattern.

SwiGLU: a full element-wise comparison of example 10 at M=2200, K=512, N=1024 (run on the
simulated Ascend910B2, the kernels tiled in [64|128, 128] blocks) against this reference (done once
by hand, not stored: the outputs are megabytes; 99.992-100% bit-identical per output) found 32 of
6.7 M elements outside rtol=1/128, atol=1e-4 (4 in dw_g, 14 in dw_fc, 14 in dx, none elsewhere),
all in the sums of BF16 partials (the M tiles of dw, the two products of dx): the cube sums a
partial in FP32 in its own order, so a partial next to a BF16 rounding boundary may round one step
(<= |partial|/128) the other way. 4 of them are outside 1e-4 + sum(|partial|)/128, the bound the
dw/dx probes use; all 32 are within 1e-4 + (sum(|partial|) + |result|)/128 (the flipped partial
plus one more rounding step of the result). The probes below are fixed blocks at tile borders plus
whole-tensor sums of squares.
"""

import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def bf16(values):
    """Rounds to bfloat16 (returned as float64): float32 first, then RNE on the upper 16 bits."""
    f32 = np.asarray(values, dtype=np.float64).astype(np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def f32(values):
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def grid(rows, cols, row_step, col_step, phase, scale, use_cos):
    """The notebooks' `grid`: float32 angle = i*row_step + j*col_step + phase, wave*scale, BF16."""
    row_index = np.arange(rows, dtype=np.float32).reshape(rows, 1)
    col_index = np.arange(cols, dtype=np.float32).reshape(1, cols)
    angle = (row_index * np.float32(row_step) + col_index * np.float32(col_step)) + np.float32(phase)
    # sin/cos evaluated exactly (f64) on the f32 angle, rounded to f32 like a correctly rounded sinf.
    wave = f32(np.cos(angle.astype(np.float64)) if use_cos else np.sin(angle.astype(np.float64)))
    return bf16(wave * np.float32(scale))


def add_bf16(a, b):
    """BF16 + BF16 stored as BF16, computed in f32."""
    return bf16(f32(a + b))


def probe(expr, expected, rtol, atol, why):
    """atol is a number, or an array (one bound per element, for sums of BF16 partials)."""
    if isinstance(atol, np.ndarray):
        atol = [float(v) for v in atol.reshape(-1)]
    if isinstance(expected, np.ndarray):
        expected = [float(v) for v in expected.reshape(-1)]
    else:
        expected = float(expected)
    return {"expr": expr, "expected": expected, "rtol": rtol, "atol": atol, "why": why}


def swiglu_case(m, k, n, tile_b=1024, tile_w=2048, tile_x=1024):
    """SwiGLU backward with the notebook's dtype steps: FP32 compute (here f64), BF16 at the kernel
    outputs, the reductions' and the matmuls' outputs; bias/weight sums split at the same M tiles."""
    x = grid(m, k, 0.011, 0.037, 0.0, 1.0, False)
    w_g = grid(k, n, 0.023, 0.017, 0.5, 0.05, True)
    w_fc = grid(k, n, 0.019, -0.031, 0.2, 0.05, False)
    g = grid(m, n, 0.013, 0.029, 0.3, 2.5, False)
    fc = grid(m, n, 0.007, 0.041, 0.0, 1.0, True)
    dh = grid(m, n, 0.017, -0.023, 1.0, 1.0, False)
    sig = 1.0 / (1.0 + np.exp(-g))
    # silu'(g) = σ(g)(1 + g(1 - σ(g))); dg = dh·fc·silu'(g); dfc = dh·silu(g).
    dg64 = dh * fc * (sig * (1.0 + g * (1.0 - sig)))
    dfc64 = dh * (g * sig)
    dg = bf16(dg64)
    dfc = bf16(dfc64)
    db_g = np.zeros((1, n))
    db_fc = np.zeros((1, n))
    for start in range(0, m, tile_b):
        stop = min(start + tile_b, m)
        db_g = add_bf16(db_g, bf16(dg64[start:stop].sum(axis=0, keepdims=True)))
        db_fc = add_bf16(db_fc, bf16(dfc64[start:stop].sum(axis=0, keepdims=True)))
    dw_g = np.zeros((k, n))
    dw_fc = np.zeros((k, n))
    # Σ|partial| of each sum of BF16 partials (see partial_atol).
    scale = {"dw_g": np.zeros((k, n)), "dw_fc": np.zeros((k, n))}
    for start in range(0, m, tile_w):
        stop = min(start + tile_w, m)
        part_g = bf16(x[start:stop].T @ dg[start:stop])
        part_fc = bf16(x[start:stop].T @ dfc[start:stop])
        dw_g = add_bf16(dw_g, part_g)
        dw_fc = add_bf16(dw_fc, part_fc)
        scale["dw_g"] += np.abs(part_g)
        scale["dw_fc"] += np.abs(part_fc)
    dx_g = bf16(dg @ w_g.T)
    dx_fc = bf16(dfc @ w_fc.T)
    dx = add_bf16(dx_g, dx_fc)
    scale["dx"] = np.abs(dx_g) + np.abs(dx_fc)
    outputs = {"dg": dg, "dfc": dfc, "db_g": db_g, "db_fc": db_fc, "dw_g": dw_g, "dw_fc": dw_fc, "dx": dx}
    probes = []
    # The inputs themselves: a wrong formula on either side shows here first.
    for name, tensor in [("x", x), ("g", g), ("w_g", w_g)]:
        # float32 sums over 2.25M elements in TileLab carry ~1e-4 relative rounding: rtol 1e-3.
        probes.append(probe(f"(pt.cast({name}, pt.DT_FP32) ** 2).sum().item()", (tensor ** 2).sum(), 1e-3, 0.0, f"sum of squares of the input {name}"))
        rows, cols = tensor.shape
        probes.append(probe(f"{name}[{rows - 2}:{rows}, {cols - 8}:{cols}].tolist()", tensor[rows - 2:rows, cols - 8:cols], 1.0 / 128, 0.0, f"the input {name}, last corner"))
    for name, tensor in outputs.items():
        # Sums of squares: a missing, doubled or shifted tile changes them by far more than 0.2%.
        probes.append(probe(f"(pt.cast({name}, pt.DT_FP32) ** 2).sum().item()", (tensor ** 2).sum(), 2e-3, 0.0, f"sum of squares of {name}"))
    # Elements around the M-tile borders and the ragged last rows, and the corners of the weights.
    border = lambda t: (min(tile_b, m) - 2, min(tile_b, m) + 2)
    for name in ["dg", "dfc"]:
        low, high = border(outputs[name])
        probes.append(probe(f"{name}[{low}:{high}, 0:8].tolist()", outputs[name][low:high, 0:8], 1.0 / 128, 1e-4, f"{name} across the first tile border"))
        probes.append(probe(f"{name}[{m - 2}:{m}, {n - 8}:{n}].tolist()", outputs[name][m - 2:m, n - 8:n], 1.0 / 128, 1e-4, f"{name} in the ragged last tile"))
    for name in ["db_g", "db_fc"]:
        probes.append(probe(f"{name}[0:1, 0:16].tolist()", outputs[name][0:1, 0:16], 1.0 / 128, 1e-4, f"{name}, the first 16 columns"))
    def partial_atol(name, rows, cols):
        # A sum of BF16 partials: a partial whose FP32 sum runs in another order (the cube's K
        # pieces) may round one BF16 step the other way, at most 1/128 of the partial. Where the
        # partials cancel, that is large next to the result, so the bound is 1e-4 + Σ|partial|/128,
        # written as a per-element atol on top of rtol·|expected| (equal to the plain bound where
        # the partials have one sign).
        expected = outputs[name][rows, cols]
        return 1e-4 + np.maximum(scale[name][rows, cols] - np.abs(expected), 0.0) / 128
    for name in ["dw_g", "dw_fc"]:
        corner = (slice(0, 2), slice(0, 8))
        probes.append(probe(f"{name}[0:2, 0:8].tolist()", outputs[name][corner], 1.0 / 128, partial_atol(name, *corner), f"{name}, top-left corner"))
        corner = (slice(k - 2, k), slice(n - 8, n))
        probes.append(probe(f"{name}[{k - 2}:{k}, {n - 8}:{n}].tolist()", outputs[name][corner], 1.0 / 128, partial_atol(name, *corner), f"{name}, bottom-right corner"))
    low, high = min(tile_x, m) - 2, min(tile_x, m) + 2
    block = (slice(low, high), slice(0, 8))
    probes.append(probe(f"dx[{low}:{high}, 0:8].tolist()", dx[block], 1.0 / 128, partial_atol("dx", *block), "dx across the first tile border"))
    block = (slice(m - 2, m), slice(k - 8, k))
    probes.append(probe(f"dx[{m - 2}:{m}, {k - 8}:{k}].tolist()", dx[block], 1.0 / 128, partial_atol("dx", *block), "dx in the ragged last tile"))
    sums = {name: float((tensor ** 2).sum()) for name, tensor in outputs.items()}
    return {"sizes": [m, k, n], "probes": probes, "sums_of_squares": sums}


def wave(rows, cols, row_step, col_step, scale):
    """float32 sin(i*row_step + j*col_step) * scale, as the notebooks build it (no BF16 rounding)."""
    row_index = np.arange(rows, dtype=np.float32).reshape(rows, 1)
    col_index = np.arange(cols, dtype=np.float32).reshape(1, cols)
    angle = row_index * np.float32(row_step) + col_index * np.float32(col_step)
    return f32(f32(np.sin(angle.astype(np.float64))) * np.float32(scale)).astype(np.float64)


def log_softmax(rows):
    """Stable log-softmax in float64: x - m - log(sum(exp(x - m)))."""
    top = rows.max(axis=-1, keepdims=True)
    return rows - top - np.log(np.exp(rows - top).sum(axis=-1, keepdims=True))


LOG_SOFTMAX_INPUT = np.array([
    [1e4, -1e4, 0.0, 1.0],
    [-1e4, -1e4, -1e4, -1e4 + 2.0],
    [1e4, 1e4 - 1.0, -5.0, 3.0],
    [0.5, -0.5, 1e4, -1e4],
])


def fusion_case():
    """sin(exp(x)) and its gradient cos(exp(x))·exp(x); log_softmax and its gradient at ±1e4."""
    rows, cols = 64, 256
    x = wave(rows, cols, 0.05, 0.013, 1.5)
    y = np.sin(np.exp(x))
    dy_dx = np.cos(np.exp(x)) * np.exp(x)
    big = f32(LOG_SOFTMAX_INPUT).astype(np.float64)
    stable = log_softmax(big)
    # d/dx_j Σ_i log_softmax(x)_i = 1 - n·softmax(x)_j.
    softmax = np.exp(stable)
    grad = 1.0 - big.shape[1] * softmax
    tensor_bytes = rows * cols * 4
    probes = [
        probe("fused[0:2, 0:8].tolist()", y[0:2, 0:8], 1e-5, 1e-6, "sin(exp(x)), fused kernel"),
        probe("unfused[62:64, 248:256].tolist()", y[62:64, 248:256], 1e-5, 1e-6, "sin(exp(x)), two kernels"),
        probe("fused.sum().item()", y.sum(), 1e-5, 1e-3, "sum of sin(exp(x))"),
        probe("xg.grad[0:2, 0:8].tolist()", dy_dx[0:2, 0:8], 1e-5, 1e-6, "gradient cos(exp(x))·exp(x)"),
        probe("(xg.grad ** 2).sum().item()", (dy_dx ** 2).sum(), 1e-5, 0.0, "sum of squares of the gradient"),
        probe("stable.tolist()", stable, 1e-6, 1e-5, "log_softmax at ±1e4 (float64 stable formula)"),
        probe("big.grad.tolist()", grad, 1e-5, 1e-6, "gradient of Σ log_softmax = 1 - n·softmax"),
        # GM traffic: the fused kernel moves x in and y out once; the pair moves 2x both ways.
        probe("one.gm_bytes_read + one.gm_bytes_written", 2 * tensor_bytes, 0.0, 0.0, "fused GM bytes"),
        probe("first.gm_bytes_read + second.gm_bytes_read + first.gm_bytes_written + second.gm_bytes_written", 4 * tensor_bytes, 0.0, 0.0, "two-kernel GM bytes"),
    ]
    return {"probes": probes, "log_softmax": stable.tolist()}


def f32_grid(shape_steps, phase, use_cos, scale):
    """float32 wave(Σ index_d · step_d + phase) · scale over an n-D grid, as the notebooks build it."""
    shape = [size for size, _ in shape_steps]
    angle = np.zeros([1] * len(shape), dtype=np.float32)
    for axis, (size, step) in enumerate(shape_steps):
        index = np.arange(size, dtype=np.float32).reshape([size if d == axis else 1 for d in range(len(shape))])
        angle = angle + index * np.float32(step) if axis else index * np.float32(step)
    angle = angle + np.float32(phase)
    exact = np.cos(angle.astype(np.float64)) if use_cos else np.sin(angle.astype(np.float64))
    return f32(f32(exact) * np.float32(scale)).astype(np.float64)


def chain_training(layers, steps, rate, rows=16, width=32):
    """SGD on h_{l+1} = tanh(h_l·W_l), loss = mean((h_n - target)^2), backward written by hand."""
    h0 = f32_grid([(rows, 0.3), (width, 0.11)], 0.0, False, 1.0)
    target = f32_grid([(rows, 0.07), (width, -0.05)], 0.0, True, 0.5)
    weights = f32_grid([(layers, 0.7), (width, 0.31), (width, -0.17)], 0.0, False, 0.3)
    losses = []
    for _ in range(steps):
        hs = [h0]
        for layer in range(layers):
            hs.append(np.tanh(hs[-1] @ weights[layer]))
        diff = hs[-1] - target
        losses.append(float((diff ** 2).mean()))
        grad_h = 2.0 * diff / diff.size
        grad_w = np.zeros_like(weights)
        for layer in reversed(range(layers)):
            grad_z = grad_h * (1.0 - hs[layer + 1] ** 2)
            grad_w[layer] = hs[layer].T @ grad_z
            grad_h = grad_z @ weights[layer].T
        weights = weights - rate * grad_w
    return losses


def mixed_precision_problem(width=32):
    features = f32_grid([(64, 0.21), (width, 0.37)], 0.0, False, 1.0)
    goal = np.tanh(f32_grid([(64, 0.05), (width, 0.09)], 0.0, True, 0.8))
    start = f32_grid([(width, 0.13), (width, -0.29)], 0.0, True, 0.2)
    return features, goal, start


def f32_training(steps, rate):
    features, goal, weights = mixed_precision_problem()
    losses = []
    for _ in range(steps):
        prediction = np.tanh(features @ weights)
        diff = prediction - goal
        losses.append(float((diff ** 2).mean()))
        grad_z = 2.0 * diff / diff.size * (1.0 - prediction ** 2)
        weights = weights - rate * (features.T @ grad_z)
    return losses


def f16_training(steps, rate, scale):
    """The notebook's f16 step: f16 storage of the forward and of the gradients (computed in f32),
    loss scaled by `scale`; a step whose weight gradient is not finite is skipped and the scale
    halved; two good steps in a row double it."""
    h = lambda values: np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float16).astype(np.float64)
    features, goal, master = mixed_precision_problem()
    features16 = h(features)
    losses, skipped, good = [], 0, 0
    with np.errstate(over="ignore", invalid="ignore"):
        while len(losses) < steps:
            prediction = h(np.tanh(h(features16 @ h(master))))
            diff = prediction - goal
            grad_prediction = h(scale * 2.0 * diff / diff.size)
            grad_z = h(grad_prediction * (1.0 - prediction ** 2))
            grad_w = h(features16.T @ grad_z)
            if not np.all(np.isfinite(grad_w)):
                skipped += 1
                scale /= 2
                good = 0
                continue
            losses.append(float((diff ** 2).mean()))
            master = master - rate * grad_w / scale
            good += 1
            if good == 2:
                scale *= 2
                good = 0
    return losses, skipped


def memory_case():
    chain = chain_training(16, 3, 0.5)
    f32_losses = f32_training(6, 1.0)
    f16_losses, skipped = f16_training(6, 1.0, 2.0 ** 24)
    probes = [
        probe("plain_losses", np.array(chain), 1e-4, 0.0, "16-layer chain, 3 SGD steps (float64 reference)"),
        probe("checkpoint_losses", np.array(chain), 1e-4, 0.0, "the same with pypto.checkpoint every 4 layers"),
        probe("f32_losses", np.array(f32_losses), 1e-4, 0.0, "f32 SGD on tanh(x·W)"),
        probe("f16_losses", np.array(f16_losses), 1e-2, 0.0, "f16 steps with dynamic loss scaling (f16 emulated in numpy)"),
        probe("skipped", skipped, 0.0, 0.0, "steps skipped because an f16 gradient overflowed"),
        # Saved activation bytes (2 KiB per activation, see the notebook): n·6 KiB + 4 KiB plain,
        # (√n − 1)·2 KiB + 4 KiB checkpointed.
        probe("saved[64][0]", 64 * 6144 + 4096, 0.0, 0.0, "plain saved bytes, 64 layers"),
        probe("saved[64][1]", 7 * 2048 + 4096, 0.0, 0.0, "checkpointed saved bytes, 64 layers"),
    ]
    return {"probes": probes, "chain_losses": chain, "f32_losses": f32_losses, "f16_losses": f16_losses, "skipped": skipped}


def softmax_case():
    """Row softmax of x = 6·sin(0.19 i + 0.047 j) (float32 input), in float64."""
    x = wave(64, 128, 0.19, 0.047, 6.0)
    top = x.max(axis=-1, keepdims=True)
    e = np.exp(x - top)
    y = e / e.sum(axis=-1, keepdims=True)
    probes = [
        probe("y[0:2, 0:8].tolist()", y[0:2, 0:8], 1e-5, 1e-7, "softmax, first rows"),
        probe("y[63, 120:128].tolist()", y[63, 120:128], 1e-5, 1e-7, "softmax, last row"),
        probe("(y ** 2).sum().item()", (y ** 2).sum(), 1e-5, 0.0, "sum of squares of the softmax"),
        probe("pt.amax(y).item()", y.max(), 1e-5, 0.0, "largest probability"),
    ]
    # The sweep's UB need for R rows per tile on the `teaching` chip (2 cores, 16 KiB UB, f32):
    # per unit the loaded x tile (R*128*4 B), one computed tile that x - m, exp and the quotient
    # reuse, and one [R, 1] column (max, then sum) padded to 32 B: R*1056 B, as long as that fits;
    # otherwise the computed values overwrite the loaded tile in place (each op reads its input for
    # the last time): R*544 B. A core with two or more of the 64/R units keeps two copies (double
    # buffering) when they fit, else one (it runs its units one copy at a time). A shape fits iff
    # its one-copy in-place need <= 16384.
    sweep_rows = [1, 2, 4, 8, 16, 32]
    cores, ub_bytes = 2, 16 * 1024

    def need(rows):
        """The first of (copies, layout) whose bytes fit, or the one-copy in-place need."""
        most = min(2, -(-(64 // rows) // cores))
        for copies in range(most, 0, -1):
            for per_row in (128 * 4 + 128 * 4 + 8 * 4, 128 * 4 + 8 * 4):
                if copies * rows * per_row <= ub_bytes:
                    return copies * rows * per_row
        return rows * (128 * 4 + 8 * 4)

    needs = [need(r) for r in sweep_rows]
    # Separate loaded and computed tiles in all the copies a core's units want.
    separate = [min(2, -(-(64 // r) // cores)) * r * (128 * 4 + 128 * 4 + 8 * 4) for r in sweep_rows]
    fits = [need <= ub_bytes for need in needs]
    fitting = [(r, need) for r, need, fit in zip(sweep_rows, needs, fits) if fit]
    fits_expr = "[" + ", ".join('sweep.rows[%d]["error"] is None' % i for i in range(len(sweep_rows))) + "]"
    ub_expr = "[" + ", ".join('sweep.rows[%d]["peak_ub_bytes"]' % i for i, fit in enumerate(fits) if fit) + "]"
    schedule_probes = [
        probe("best_schedule.gm_bytes_read + worst_schedule.gm_bytes_written", 2 * 64 * 128 * 4, 0.0, 0.0, "x read once, y written once"),
        probe(fits_expr, np.array(fits, dtype=np.float64), 0.0, 0.0, "the shapes whose UB need (R*1056 B, or R*544 B in place; twice when double-buffered and that fits, else once) fits 16 KiB"),
        probe(ub_expr, np.array([need for _, need in fitting], dtype=np.float64), 0.0, 0.0, "peak UB bytes of the fitting shapes"),
        # The largest tile that fits with separate loaded and computed tiles: its loads follow each
        # other and pay no first-byte latency; in place, a tile's load waits for the store out of
        # the same buffer, so every load starts on a drained queue. The smallest tile needs the
        # most transfers.
        probe('[best["vec_tile"][0], worst["vec_tile"][0]]', np.array([max(r for r, s in zip(sweep_rows, separate) if s <= ub_bytes), fitting[0][0]], dtype=np.float64), 0.0, 0.0, "best = largest tile fitting without in-place reuse (its loads stream on), worst = 1 row"),
    ]
    return {"probes": probes, "schedule_probes": schedule_probes}


def main():
    golden = {
        "generator": "tests/golden/make_gallery_golden_b.py (numpy, float64)",
        "swiglu_backward": {
            "full": swiglu_case(2200, 512, 1024),
            "small": swiglu_case(2200, 64, 128),
        },
        "fusion_and_stability": fusion_case(),
        "checkpoint_mixed_precision": memory_case(),
        "softmax_tile_sweep": softmax_case(),
    }
    path = os.path.join(HERE, "gallery_b.json")
    with open(path, "w") as handle:
        json.dump(golden, handle, indent=1)
        handle.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
