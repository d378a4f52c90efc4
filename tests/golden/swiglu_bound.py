"""Which bound holds for dw_g, dw_fc and dx of example 10 at full size (M=2200, K=512, N=1024), and why.

Run:  pip install numpy && python3 tests/golden/swiglu_bound.py [DUMP_DIR]

DUMP_DIR (optional) holds TileLab's outputs as raw little-endian float32 (dw_g.f32, dw_fc.f32,
dx.f32), written by `TILELAB_SWIGLU_DUMP=DIR cargo test --test gallery_swiglu_full`.
Without it the script only derives the bound; with it, it also checks every element against it.

The outputs are sums of BF16 partials, each partial an FP32 reduction:
    dw[k, n] = BF16(Σ_t BF16(P_t)),  P_t = Σ_{m in M tile t} x[m, k]·dg[m, n]   (t: 2048 + 152 rows)
    dx[m, k] = BF16(BF16(Q_1) + BF16(Q_2)),  Q_1 = Σ_n dg[m, n]·w_g[k, n],  Q_2 = Σ_n dfc[m, n]·w_fc[k, n]
The golden script (make_gallery_golden_b.py) computes P_t exactly (float64) and rounds like the
notebook; TileLab computes P_t in FP32 in the cube's own order. Three things may separate them:
  1. dg, dfc themselves: TileLab computes them in FP32 (exp within a few ulp), numpy in float64; where
     the float64 value lies within the FP32 error of a BF16 rounding midpoint, the two BF16 values
     differ by one BF16 step. Those inputs move P_t by |x|·step(dg).
  2. the FP32 reduction: any order, fused or not, errs by at most γ_L·Σ|terms| (Higham §3.1;
     γ_L = L·u/(1 − L·u), u = 2⁻²⁴, L terms; products of BF16 values are exact in FP32).
  3. the roundings to BF16: two values that differ by d round to BF16 values that differ by at most
     d + half a step of each, and a step of y is at most |y|/128 (2⁻⁷|y|); the float64 → float32 →
     BF16 double rounding of the golden adds at most 2⁻²⁴|y|; the FP32 add of two BF16 values errs by
     at most 2⁻²⁴ of the sum.
Chaining them gives, per element, the bound B that holds for every accumulation order (computed
below). The README's earlier bound 1e-4 + Σ|BF16 partial|/128 ("E") leaves out the final rounding
of the result and items 1–2; the looser 1e-4 + (Σ|partial| + |result|)/128 ("H") covers the final
rounding but still not 1–2. The script prints where each is proved, and, with a dump, the measured
worst ratio |TileLab − golden| / bound for B, H and E.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gallery_golden_b import add_bf16, bf16, grid  # noqa: E402

U32 = 2.0 ** -24
STEP = 2.0 ** -7  # a BF16 step is at most 2⁻⁷ of the value (8-bit significand)
# FP32 relative error of TileLab's dg/dfc before the cast to BF16: exp within 3 ulp (src/tensor/simd),
# then about 8 more roundings (σ, 1 − σ, g·(…), 1 + …, products): 16 ulp is a generous ceiling.
DG_ULPS = 16


def gamma(length):
    return length * U32 / (1 - length * U32)


def bf16_step(values):
    """The distance between consecutive BF16 values at |values| (0 where the value is 0)."""
    magnitude = np.abs(values)
    exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
    return np.where(magnitude > 0, 2.0 ** (exponent - 7), 0.0)


def flip_step(exact):
    """Per element: the BF16 step by which TileLab's FP32-computed value may round differently from
    numpy's float64 one (the float64 value within DG_ULPS FP32 ulps of a BF16 rounding midpoint)."""
    rounded = bf16(exact)
    step = bf16_step(rounded)
    # The midpoints next to the rounded value; the float64 value lies between them.
    distance = np.minimum(np.abs(exact - (rounded - step / 2)), np.abs(exact - (rounded + step / 2)))
    possible = distance <= DG_ULPS * U32 * np.abs(exact) * 2
    return np.where(possible, np.maximum(step, bf16_step(rounded + np.sign(exact) * step)), 0.0)


def inputs(m, k, n):
    x = grid(m, k, 0.011, 0.037, 0.0, 1.0, False)
    w_g = grid(k, n, 0.023, 0.017, 0.5, 0.05, True)
    w_fc = grid(k, n, 0.019, -0.031, 0.2, 0.05, False)
    g = grid(m, n, 0.013, 0.029, 0.3, 2.5, False)
    fc = grid(m, n, 0.007, 0.041, 0.0, 1.0, True)
    dh = grid(m, n, 0.017, -0.023, 1.0, 1.0, False)
    sig = 1.0 / (1.0 + np.exp(-g))
    dg64 = dh * fc * (sig * (1.0 + g * (1.0 - sig)))
    dfc64 = dh * (g * sig)
    return x, w_g, w_fc, dg64, dfc64


def partial_bound(exact_partial, magnitude, moved_by_inputs, length):
    """|BF16(TileLab partial) − BF16(golden partial)|: inputs + FP32 reduction + the two roundings."""
    reduction = moved_by_inputs + gamma(length) * (magnitude + moved_by_inputs)
    return reduction + STEP * (np.abs(exact_partial) + reduction) + U32 * np.abs(exact_partial)


def sum_of_partials(partials, bounds):
    """The golden's BF16 sum of BF16 partials and the bound on TileLab's difference from it."""
    total = np.zeros_like(partials[0])
    moved = np.zeros_like(partials[0])
    for index, (partial, bound) in enumerate(zip(partials, bounds)):
        total = add_bf16(total, bf16(partial))
        moved = moved + bound
        if index > 0:
            # The FP32 add (2⁻²⁴) and the rounding of the sum to BF16 (a step at most); the first
            # partial is added to the zero-initialised output exactly.
            moved = moved + (STEP + 2 * U32) * (np.abs(total) + moved)
    return total, moved


def outputs_and_bounds(m=2200, k=512, n=1024, tile_w=2048):
    x, w_g, w_fc, dg64, dfc64 = inputs(m, k, n)
    dg, dfc = bf16(dg64), bf16(dfc64)
    flip_g, flip_fc = flip_step(dg64), flip_step(dfc64)
    results = {}
    for name, d, flip in [("dw_g", dg, flip_g), ("dw_fc", dfc, flip_fc)]:
        partials, bounds, stated = [], [], 0.0
        for start in range(0, m, tile_w):
            rows = slice(start, min(start + tile_w, m))
            partial = x[rows].T @ d[rows]
            magnitude = np.abs(x[rows]).T @ np.abs(d[rows])
            moved = np.abs(x[rows]).T @ flip[rows]
            partials.append(partial)
            bounds.append(partial_bound(partial, magnitude, moved, rows.stop - rows.start))
            stated = stated + np.abs(bf16(partial))
        total, bound = sum_of_partials(partials, bounds)
        results[name] = (total, bound, stated)
    q_g, q_fc = dg @ w_g.T, dfc @ w_fc.T
    bounds = [
        partial_bound(q_g, np.abs(dg) @ np.abs(w_g).T, flip_g @ np.abs(w_g).T, n),
        partial_bound(q_fc, np.abs(dfc) @ np.abs(w_fc).T, flip_fc @ np.abs(w_fc).T, n),
    ]
    total, bound = sum_of_partials([q_g, q_fc], bounds)
    results["dx"] = (total, bound, np.abs(bf16(q_g)) + np.abs(bf16(q_fc)))
    return results


def main():
    dump = sys.argv[1] if len(sys.argv) > 1 else None
    m, k, n = 2200, 512, 1024
    results = outputs_and_bounds(m, k, n)
    shapes = {"dw_g": (k, n), "dw_fc": (k, n), "dx": (m, k)}
    for name, (golden, bound, partial_sum) in results.items():
        stated = 1e-4 + partial_sum / 128  # E
        widened = 1e-4 + (partial_sum + np.abs(golden)) / 128  # H
        print(f"{name}: {golden.size} elements")
        print(f"  proved bound B: median {np.median(bound):.3g}, max {bound.max():.3g}; B ÷ H: median {np.median(bound / widened):.3f}, max {(bound / widened).max():.3f}")
        print(f"  elements where B exceeds E (E not proved): {int((bound > stated).sum())}, H: {int((bound > widened).sum())}")
        if dump:
            actual = np.fromfile(os.path.join(dump, f"{name}.f32"), dtype="<f4").astype(np.float64).reshape(shapes[name])
            error = np.abs(actual - golden)
            for label, limit in [("B", bound), ("H", widened), ("E", stated)]:
                over = error > limit
                print(f"  measured: outside {label}: {int(over.sum())}; worst |Δ| ÷ {label} = {(error / limit).max():.3f}")
            print(f"  bit-identical to the golden: {100 * np.mean(actual == golden):.3f}%")


if __name__ == "__main__":
    main()
