# %% [markdown]
# # Tile-shape tuning for a row-wise softmax
# `softmax(x)_ij = exp(x_ij − m_i) / Σ_k exp(x_ik − m_i)` with `m_i = max_k x_ik` (subtracting the
# row maximum keeps every exponent ≤ 0). Each row needs its maximum and its sum, so a vec tile holds
# whole rows: the tile shape is `[rows per tile, 128]` and the sweep varies the rows per tile.
#
# Few rows per tile: many small DMA transfers, each paying the start-up latency on MTE2/MTE3. Many
# rows: fewer, larger transfers, but the tile (input, exponentials, output, double-buffered) must fit
# in the 16 KiB unified buffer (UB) of the `teaching` chip; a shape that does not fit is a row with
# its error instead of cycles.
#
# ## 中文说明
# 按行 softmax 需要每行的最大值和总和，所以一个向量分块必须包含整行：分块形状为
# `[每块行数, 128]`，扫描只改变每块行数。行数少则 DMA 传输小而多，每次都要付出启动延迟；行数多
# 则传输大而少，但分块（输入、指数、输出，双缓冲）必须放得进 `teaching` 芯片 16 KiB 的 UB，放不下
# 的形状会在表中给出错误而不是周期数。

# %%
import pypto as pt
pt.npu.use("teaching")

ROWS, COLS = 64, 128
row_index = pt.arange(ROWS).reshape([ROWS, 1])
col_index = pt.arange(COLS).reshape([1, COLS])
# Inputs from a formula (no RNG), with a spread of ±6 so the maximum matters.
x = pt.sin(row_index * 0.19 + col_index * 0.047) * 6.0

@pt.kernel
def row_softmax(x, tile_rows):
    pt.set_vec_tile_shapes(tile_rows, COLS)
    top = pt.amax(x, dim=-1, keepdim=True)
    e = pt.exp(x - top)
    return e / pt.sum(e, dim=-1, keepdim=True)

y = row_softmax(x, 4)
pt.assert_allclose(y, pt.softmax(x, dim=-1), rtol=1e-5, atol=1e-7)
pt.assert_allclose(y.sum(dim=-1), pt.ones([ROWS]), rtol=1e-5, atol=1e-6)

# %% [markdown]
# ## The sweep
# `pypto.npu.sweep` records the kernel once and simulates it once per shape (the kernel's own
# `set_vec_tile_shapes` is replaced in the lowering only). 扫描只记录一次核，再对每个形状各模拟一次。

# %%
shapes = [[1, COLS], [2, COLS], [4, COLS], [8, COLS], [16, COLS], [32, COLS]]
sweep = pt.npu.sweep(row_softmax, (x, 4), vec_tiles=shapes)
best = None
worst = None
fitting = 0
for row in sweep.rows:
    if row["error"] is None:
        fitting += 1
        if best is None or row["cycles"] < best["cycles"]:
            best = row
        if worst is None or row["cycles"] > worst["cycles"]:
            worst = row
    else:
        # A refused shape names the memory it overflows.
        assert "UB" in row["error"], row["error"]
    print(row["vec_tile"], row["cycles"], row["bound"], row["error"])
# 1- and 2-row tiles (512 B and 1 KiB per tensor) fit in 16 KiB of UB with room to spare.
assert sweep.rows[0]["error"] is None and sweep.rows[1]["error"] is None
assert fitting >= 2
assert sweep.best["cycles"] == best["cycles"] and sweep.best["vec_tile"] == best["vec_tile"]
# A single-row tile moves 512 B per transfer: the most start-up latency per byte, the slowest shape.
assert worst["vec_tile"] == [1, COLS], worst
assert best["cycles"] < worst["cycles"]
# The 32-row input tile alone is 16 KiB, all of UB: with its output it cannot fit.
assert sweep.rows[5]["error"] is not None
print("best", best["vec_tile"], best["cycles"], "cycles; worst", worst["vec_tile"], worst["cycles"], "cycles")
sweep

# %% [markdown]
# ## Best and worst schedules side by side
# The same kernel with its tile rows set to the best and to the worst shape. Both read x once and
# write y once (64·128·4 B = 32 KiB each way); the difference is how many transfers carry them.
# 最优与最差形状的调度：GM 读写量相同，差别在于传输次数。

# %%
best_schedule = pt.schedule(row_softmax, x, best["vec_tile"][0])
worst_schedule = pt.schedule(row_softmax, x, worst["vec_tile"][0])
print("shape       cycles   bound   MTE2 busy")
print(best["vec_tile"], best_schedule.cycles, best_schedule.bound, round(best_schedule.pipe_busy["MTE2"], 3))
print(worst["vec_tile"], worst_schedule.cycles, worst_schedule.bound, round(worst_schedule.pipe_busy["MTE2"], 3))
tensor_bytes = ROWS * COLS * 4
assert best_schedule.cycles == best["cycles"] and worst_schedule.cycles == worst["cycles"]
assert best_schedule.gm_bytes_read == tensor_bytes and worst_schedule.gm_bytes_read == tensor_bytes
assert best_schedule.gm_bytes_written == tensor_bytes and worst_schedule.gm_bytes_written == tensor_bytes
assert best_schedule.peak_occupancy["UB"] > worst_schedule.peak_occupancy["UB"]
best_schedule

# %%
worst_schedule
