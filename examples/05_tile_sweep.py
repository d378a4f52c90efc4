# %% [markdown]
# # Choosing a vec tile with `pypto.npu.sweep`
# Every kernel call runs on the simulated NPU: the ops it executes are recorded as tile work
# (here: one unit per 8×64 tile of the output), lowered to tile programs (copy in on MTE2, compute
# on the vector unit in UB, copy out on MTE3, double-buffered) and executed and timed on the
# selected NPU preset. `pypto.schedule(kernel, *args)` calls it once and returns that schedule.
# Here we use the small `teaching` chip: 16 KiB of UB, 1 GHz.

# %%
import pypto as pt
pt.npu.use('teaching')
config = pt.npu.config()

@pt.kernel
def gated(x, y):
    # SwiGLU-style gate: silu(x) * y, element-wise on 64×256 f32.
    pt.set_vec_tile_shapes(8, 64)
    return pt.silu(x) * y

x = pt.randn([64, 256], seed=5)
y = pt.randn([64, 256], seed=6)
pt.assert_allclose(gated(x, y), x * pt.sigmoid(x) * y, rtol=1e-5, atol=1e-6)

# %% [markdown]
# ## One schedule
# Two f32 inputs are read once and one output written once. Moving those bytes over the GM link
# is a floor on the cycles; the tiles' DMA start-ups and the pipeline fill sit on top of it.

# %%
s = pt.schedule(gated, x, y)
tensor_bytes = 64 * 256 * 4
assert s.gm_bytes_read == 2 * tensor_bytes
assert s.gm_bytes_written == tensor_bytes
floor = 2 * tensor_bytes / config['hbm_bytes_per_cycle']
assert floor <= s.cycles <= 4 * floor, (floor, s.cycles)
assert abs(s.time_us - s.cycles / config['clock_mhz']) < 1e-3
assert s.peak_occupancy['UB'] <= 2 * 3 * 8 * 64 * 4
s

# %% [markdown]
# ## A sweep over tile shapes
# `pypto.npu.sweep(kernel, args, vec_tiles=[...])` calls the kernel once and re-tiles and
# simulates its recorded work once per shape, in place of the kernel's own `set_vec_tile_shapes`
# (the source stays as written). Small tiles pay a DMA start-up per tile. A unit holds two tiles
# in UB at a time (x, then silu(x) in its place, and y; the product reuses a freed slot), double
# buffered: 16×64 needs 2 × 2 × 4 KiB = 16 KiB, all of this chip's UB. 32×64 would need 32 KiB
# double-buffered; one copy (16 KiB) fits, so it runs single-buffered — a core's next tile waits
# for its last — and its schedule says so. 64×64 needs 32 KiB even as one copy and is refused:
# that row carries the error instead of cycles.

# %%
sweep = pt.npu.sweep(gated, (x, y), vec_tiles=[[2, 64], [4, 64], [8, 64], [16, 64], [32, 64], [64, 64]])
fewest = None
fitting = 0
for row in sweep.rows:
    if row['error'] is None:
        fitting += 1
        if fewest is None or row['cycles'] < fewest:
            fewest = row['cycles']
assert fitting == 5
assert sweep.rows[5]['cycles'] is None and 'UB' in sweep.rows[5]['error']
assert sweep.best['cycles'] == fewest
# Larger tiles amortise the start-ups: each doubling of the rows saves cycles.
assert sweep.rows[0]['cycles'] > sweep.rows[1]['cycles'] > sweep.rows[2]['cycles'] > sweep.rows[3]['cycles']
# The kernel's own tile is 8×64, so its schedule is the 8×64 row.
assert sweep.rows[2]['cycles'] == s.cycles
sweep
