# %% [markdown]
# # Tile-shape tuning for a row-wise softmax
# `softmax(x)_ij = exp(x_ij − m_i) / Σ_k exp(x_ik − m_i)` with `m_i = max_k x_ik` (subtracting the
# row maximum keeps every exponent ≤ 0). Each row needs its maximum and its sum, so a vec tile holds
# whole rows: the tile shape is `[rows per tile, 128]` and the sweep varies the rows per tile.
#
# Few rows per tile: many small DMA transfers, each paying the start-up latency on MTE2/MTE3. Many
# rows: fewer, larger transfers, but the tiles must fit in the 16 KiB unified buffer (UB) of the
# `teaching` chip; a shape that does not fit is a row with its error instead of cycles.
#
# **How much UB a shape needs.** For R rows per tile the kernel has 64 / R units (row tiles) on the
# chip's 2 cores. Per unit, UB holds the loaded x tile (R·128·4 B), one computed tile that x − m,
# the exponentials and the quotient reuse in turn, and one [R, 1] column for the row maximum, then
# the row sum, padded to 32 B (R·32 B): R·1056 B. A core with two or more units keeps two copies
# of these buffers (the default double buffering: the next unit loads while the current one
# computes): 2·R·1056 = R·2112 B. When that does not fit, the compiler lets each op overwrite the
# input it reads for the last time (a vector instruction may write where it reads): R·544 B per
# copy, R·1088 B with two. When two copies do not fit even in place, a core runs its units one
# copy at a time (no overlap: the schedule notes it). So 1, 2 and 4 rows fit with separate tiles
# (2112, 4224, 8448 B), 8 rows fits in place (8704 B), 16 rows fits only as one copy in place
# (8704 B), and 32 rows (17 408 B in place, as one copy) overflows 16 KiB = 16 384 B.
#
# ## 中文说明
# 按行 softmax 需要每行的最大值和总和，所以一个向量分块必须包含整行：分块形状为
# `[每块行数, 128]`，扫描只改变每块行数。行数少则 DMA 传输小而多，每次都要付出启动延迟；行数多
# 则传输大而少，但分块必须放得进 `teaching` 芯片 16 KiB 的 UB，放不下的形状会在表中给出错误而不是
# 周期数。每块 R 行时，每个单元需要输入块、一个复用的计算块和一个按 32 字节对齐的 [R, 1] 列：
# 输入块、一个复用的计算块和一个 32 字节对齐的 [R, 1] 列：R·1056 字节，双缓冲时 R·2112 字节；放不下时
# 编译器让每个运算原地覆盖其最后一次读取的输入：R·544 字节（双缓冲 R·1088）。两份原地也放不下时，
# 每个核一次只放一份（没有重叠，调度说明里会注明）。1、2、4 行用独立的块即可，8 行原地计算可以放下
# （8704 字节），16 行只能单份原地放下（8704 字节），32 行（单份原地也需 17 408 字节）溢出。

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
for row in sweep.rows:
    if row["error"] is None:
        if best is None or row["cycles"] < best["cycles"]:
            best = row
        if worst is None or row["cycles"] > worst["cycles"]:
            worst = row
    else:
        # A refused shape names the memory it overflows.
        assert "UB" in row["error"], row["error"]
    print(row["vec_tile"], row["cycles"], row["bound"], row["error"])
# The UB need derived above: R·1056 B per copy with separate tiles, R·544 B in place, two copies
# when a core runs two or more of the 64 / R units (2 cores), else one; the first of these that
# fits 16 384 B runs, and a shape that fits none names its one-copy in-place need.
UB_BYTES = 16 * 1024
fitting_rows = []
single_rows = []
for row in sweep.rows:
    rows_per_tile = row["vec_tile"][0]
    units_per_core = (ROWS // rows_per_tile + 1) // 2
    need = None
    for copies in ([2, 1] if units_per_core >= 2 else [1]):
        for bytes_per_row in (1056, 544):
            if need is None and copies * rows_per_tile * bytes_per_row <= UB_BYTES:
                need = copies * rows_per_tile * bytes_per_row
                if copies < min(2, units_per_core):
                    single_rows.append(rows_per_tile)
    if need is not None:
        assert row["error"] is None and row["peak_ub_bytes"] == need, (row, need)
        fitting_rows.append(rows_per_tile)
    else:
        need = rows_per_tile * 544
        assert "UB overflow" in row["error"] and ("need " + str(need) + " bytes") in row["error"], (row, need)
assert fitting_rows == [1, 2, 4, 8, 16] and single_rows == [16], (fitting_rows, single_rows)
# 8 rows fits only in place, where the next tile's load into a buffer waits for the store out of
# it: MTE2's queue drains every tile and each load waits the first-byte latency again. With two
# copies (4 rows: 16 transfers of 2 KiB each way) a load follows the previous one with its requests
# outstanding and pays no latency: the largest tile that fits with separate copies is the best.
assert best["vec_tile"] == [4, COLS], best
assert sweep.best["cycles"] == best["cycles"] and sweep.best["vec_tile"] == best["vec_tile"]
# A single-row tile moves 512 B per transfer: the most start-up latency per byte, the slowest shape.
assert worst["vec_tile"] == [1, COLS], worst
assert best["cycles"] < worst["cycles"]
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
assert best_schedule.peak_occupancy["UB"] == best["peak_ub_bytes"] and worst_schedule.peak_occupancy["UB"] == worst["peak_ub_bytes"]
assert best_schedule.gm_bytes_read == tensor_bytes and worst_schedule.gm_bytes_read == tensor_bytes
assert best_schedule.gm_bytes_written == tensor_bytes and worst_schedule.gm_bytes_written == tensor_bytes
assert best_schedule.peak_occupancy["UB"] > worst_schedule.peak_occupancy["UB"]
best_schedule

# %%
worst_schedule
