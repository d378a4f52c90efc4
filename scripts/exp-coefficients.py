#!/usr/bin/env python3
"""The polynomial of the wasm vector exp (src/tensor/simd/wasm_exp.rs, POLYNOMIAL).

e^r ≈ 1 + r + r²·(c2 + c3·r + c4·r² + c5·r³ + c6·r⁴) on |r| ≤ ln2/2 (with 0.05 % margin): the relative
error is minimised by Lawson's iteration (reweighted least squares on 4001 Chebyshev nodes, which
converges to the minimax fit), the reference values from mpmath at 40 digits. Prints the
coefficients as f32 bit patterns and the relative error of the rounded polynomial in exact
arithmetic. Needs numpy and mpmath: `python3 scripts/exp-coefficients.py`.
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
HALF_WIDTH = float(mp.log(2) / 2) * 1.0005
NODES = 4001

nodes = np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES) * HALF_WIDTH
# The part the polynomial approximates, (e^r − 1 − r)/r², and the weight r²/e^r that turns its
# error into the relative error of e^r.
target = np.array([float((mp.exp(mp.mpf(r)) - 1 - mp.mpf(r)) / mp.mpf(r) ** 2) for r in nodes])
weight = nodes**2 / np.array([float(mp.exp(mp.mpf(r))) for r in nodes])
powers = np.vander(nodes, 5, increasing=True)
lawson = np.ones(NODES)
for _ in range(200):
    scaled = weight * lawson
    coefficients, *_ = np.linalg.lstsq(powers * scaled[:, None], target * scaled, rcond=None)
    error = np.abs(weight * (powers @ coefficients - target))
    lawson = lawson * error
    lawson /= lawson.max()

rounded = coefficients.astype(np.float32)
print('POLYNOMIAL (c2..c6):', ', '.join(f'0x{int(c.view(np.uint32)):08x}' for c in rounded))
grid = np.linspace(-HALF_WIDTH, HALF_WIDTH, 200001)
approximation = 1 + grid + grid**2 * np.polyval(rounded.astype(np.float64)[::-1], grid)
print(f'relative error of the rounded polynomial: {np.max(np.abs(approximation / np.exp(grid) - 1)):.2e}')
