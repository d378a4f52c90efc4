# %% [markdown]
# # Fused SwiGLU backward in three kernels
# SwiGLU forward, for M token rows `x` (M×K) and N hidden units:
#
#     g  = x·w_g  + b_g          fc = x·w_fc + b_fc
#     h  = silu(g) · fc          silu(g) = g·σ(g)
#
# Given `dh = ∂L/∂h`, the chain rule gives (σ' = σ(1 − σ)):
#
#     silu'(g) = σ(g) + g·σ(g)·(1 − σ(g)) = σ(g)·(1 + g·(1 − σ(g)))
#     dfc  = dh · silu(g)                 dg   = dh · fc · silu'(g)
#     db_g = Σ_m dg[m, :]                 db_fc = Σ_m dfc[m, :]
#     dw_g = xᵀ·dg   (K×N)                dw_fc = xᵀ·dfc (K×N)
#     dx   = dg·w_gᵀ + dfc·w_fcᵀ  (M×K)
#
# The work splits into three kernels, with the tile settings of the pypto-gym kernel:
# - **b** (vector): dg, dfc and the bias gradients, row tiles of `tile_m = 1024`;
# - **w** (cube): the weight gradients, row tiles of `tile_m = 2048`, each tile's `xᵀ·dg` added into
#   the zero-initialised output (the sum over M is split over tiles);
# - **x** (cube): dx, row tiles of `tile_m = 1024`.
#
# Storage is BF16 and compute FP32: a kernel casts the tiles it loads to FP32, and its reduction and
# matmul outputs are BF16. M = 2200 is not a multiple of either tile_m, so the last tile is ragged:
# its view carries a `valid_shape`, the rows outside it read as 0 (they add nothing to the sums) and
# `assemble` writes only the valid rows.
#
# ## 中文说明
# SwiGLU 前向：`h = silu(x·w_g + b_g) · (x·w_fc + b_fc)`。已知 `dh`，由链式法则得
# `dfc = dh·silu(g)`，`dg = dh·fc·silu'(g)`，其中 `silu'(g) = σ(g)·(1 + g·(1 − σ(g)))`；
# 偏置梯度是 dg、dfc 按行（M 方向）求和，权重梯度 `dw = xᵀ·dg`，输入梯度 `dx = dg·w_gᵀ + dfc·w_fcᵀ`。
# 反向拆成三个核：b（向量核，tile_m = 1024）、w（矩阵核，tile_m = 2048，各 M 分块的结果累加到
# 初始为 0 的输出中）、x（矩阵核，tile_m = 1024）。存储为 BF16，计算为 FP32。M = 2200 不是分块
# 大小的整数倍，最后一块通过 `valid_shape` 只处理有效行。

# %%
import pypto as pt

M, K, N = 2200, 512, 1024
TILE_M_B = 1024
TILE_M_W = 2048
TILE_M_X = 1024
BF16 = pt.DT_BF16
FP32 = pt.DT_FP32

# Inputs from formulas (no RNG), so the golden generator builds the same numbers: f32 math, then
# rounded to BF16. g and fc stand for the pre-activations x·w + b that the forward saved; here they
# are formulas of their own (the backward kernels only read them), not computed from x and w.
def grid(rows, cols, row_step, col_step, phase, scale, use_cos):
    row_index = pt.arange(rows).reshape([rows, 1])
    col_index = pt.arange(cols).reshape([1, cols])
    angle = row_index * row_step + col_index * col_step + phase
    wave = pt.cos(angle) if use_cos else pt.sin(angle)
    return pt.cast(wave * scale, BF16)

x = grid(M, K, 0.011, 0.037, 0.0, 1.0, False)
w_g = grid(K, N, 0.023, 0.017, 0.5, 0.05, True)
w_fc = grid(K, N, 0.019, -0.031, 0.2, 0.05, False)
g = grid(M, N, 0.013, 0.029, 0.3, 2.5, False)
fc = grid(M, N, 0.007, 0.041, 0.0, 1.0, True)
dh = grid(M, N, 0.017, -0.023, 1.0, 1.0, False)
print("x", x.shape, x.dtype, "g", g.shape, "w_g", w_g.shape)

# %% [markdown]
# ## Kernel b: dg, dfc and the bias gradients (vector unit)
# Each iteration loads a [1024, N] row tile of dh, g and fc, casts to FP32, computes σ(g) once and
# both gradients from it. The bias gradients are column sums of the tile (BF16 out) added into the
# [1, N] outputs. 每个迭代处理 1024 行；σ(g) 只算一次，两个梯度共用。

# %%
@pt.frontend.jit(pass_options={"vec_nbuffer_setting": 2})
def swiglu_backward_b(dh, g, fc, dg, dfc, db_g, db_fc):
    pt.set_vec_tile_shapes(128, 128)
    rows = dh.shape[0]
    cols = dh.shape[1]
    for i in pt.loop(0, (rows + TILE_M_B - 1) // TILE_M_B, name="m_tiles", idx_name="i"):
        start = i * TILE_M_B
        valid = [min(TILE_M_B, rows - start), cols]
        dh_t = pt.cast(pt.view(dh, [TILE_M_B, cols], [start, 0], valid_shape=valid), FP32)
        g_t = pt.cast(pt.view(g, [TILE_M_B, cols], [start, 0], valid_shape=valid), FP32)
        fc_t = pt.cast(pt.view(fc, [TILE_M_B, cols], [start, 0], valid_shape=valid), FP32)
        sig = pt.sigmoid(g_t)
        dfc_t = dh_t * (g_t * sig)
        dg_t = dh_t * fc_t * (sig * (1.0 + g_t * (1.0 - sig)))
        pt.assemble(pt.cast(dg_t, BF16), [start, 0], dg)
        pt.assemble(pt.cast(dfc_t, BF16), [start, 0], dfc)
        db_g[:] = db_g + pt.cast(pt.sum(dg_t, dim=0, keepdim=True), BF16)
        db_fc[:] = db_fc + pt.cast(pt.sum(dfc_t, dim=0, keepdim=True), BF16)

dg = pt.zeros([M, N], dtype=BF16)
dfc = pt.zeros([M, N], dtype=BF16)
db_g = pt.zeros([1, N], dtype=BF16)
db_fc = pt.zeros([1, N], dtype=BF16)
swiglu_backward_b(dh, g, fc, dg, dfc, db_g, db_fc)
print("dg", dg.dtype, "db_g", db_g.shape)

# %% [markdown]
# ## Kernel w: weight gradients (cube unit)
# `dw_g = xᵀ·dg` sums over M. Each 2048-row tile contributes `x_tᵀ·dg_t` (BF16 out), added into the
# zero-initialised [K, N] outputs; the ragged second tile has 152 valid rows, its zero rows add 0.
# Cube tiles: m [128, 128], k [128, 256], n [128, 256] ([L0, L1] per dim).
# 权重梯度按 M 分两块（2048 + 152 行），每块的 xᵀ·dg 累加到初始为 0 的输出。

# %%
@pt.frontend.jit
def swiglu_backward_w(x, dg, dfc, dw_g, dw_fc):
    pt.set_vec_tile_shapes(128, 128)
    pt.set_cube_tile_shapes([128, 128], [128, 256], [128, 256])
    rows = x.shape[0]
    k = x.shape[1]
    n = dg.shape[1]
    for i in pt.loop(0, (rows + TILE_M_W - 1) // TILE_M_W, name="m_tiles", idx_name="i"):
        start = i * TILE_M_W
        valid = min(TILE_M_W, rows - start)
        x_t = pt.view(x, [TILE_M_W, k], [start, 0], valid_shape=[valid, k])
        dg_t = pt.view(dg, [TILE_M_W, n], [start, 0], valid_shape=[valid, n])
        dfc_t = pt.view(dfc, [TILE_M_W, n], [start, 0], valid_shape=[valid, n])
        dw_g[:] = dw_g + pt.matmul(x_t, dg_t, out_dtype=BF16, a_trans=True)
        dw_fc[:] = dw_fc + pt.matmul(x_t, dfc_t, out_dtype=BF16, a_trans=True)

dw_g = pt.zeros([K, N], dtype=BF16)
dw_fc = pt.zeros([K, N], dtype=BF16)
swiglu_backward_w(x, dg, dfc, dw_g, dw_fc)
print("dw_g", dw_g.shape, dw_g.dtype)

# %% [markdown]
# ## Kernel x: the input gradient (cube unit)
# `dx = dg·w_gᵀ + dfc·w_fcᵀ`: two matmuls per 1024-row tile with the weights transposed on the fly
# (`b_trans=True`), BF16 outputs added in FP32 and stored as BF16.
# Cube tiles: m [128, 128], k [64, 256], n [256, 256]. 每块两次矩阵乘，权重在读取时转置。

# %%
@pt.frontend.jit
def swiglu_backward_x(dg, dfc, w_g, w_fc, dx):
    pt.set_vec_tile_shapes(128, 128)
    pt.set_cube_tile_shapes([128, 128], [64, 256], [256, 256])
    rows = dg.shape[0]
    n = dg.shape[1]
    k = w_g.shape[0]
    for i in pt.loop(0, (rows + TILE_M_X - 1) // TILE_M_X, name="m_tiles", idx_name="i"):
        start = i * TILE_M_X
        valid = min(TILE_M_X, rows - start)
        dg_t = pt.view(dg, [TILE_M_X, n], [start, 0], valid_shape=[valid, n])
        dfc_t = pt.view(dfc, [TILE_M_X, n], [start, 0], valid_shape=[valid, n])
        dx_t = pt.matmul(dg_t, w_g, out_dtype=BF16, b_trans=True) + pt.matmul(dfc_t, w_fc, out_dtype=BF16, b_trans=True)
        pt.assemble(dx_t, [start, 0], dx)

dx = pt.zeros([M, K], dtype=BF16)
swiglu_backward_x(dg, dfc, w_g, w_fc, dx)
print("dx", dx.shape, dx.dtype)

# %% [markdown]
# ## Checked against the same math without tiles
# The reference below applies the formulas to whole tensors outside any kernel, with the same dtype
# steps (FP32 compute, BF16 reduction and matmul outputs, the bias and weight sums split at the
# same M boundaries). The element-wise gradients and the biases are checked everywhere; the
# matmuls only on the first and last 16 columns of the weight gradients and the rows around every
# M-tile border of dx (the whole products would double the notebook's run time; the golden sums of
# squares below cover every element). The golden file of the tests is produced independently by
# numpy (`tests/golden/make_gallery_golden_b.py`). Tolerance: rtol = 1/128 (one BF16 step), atol = 1e-4.
# One caveat of BF16 partial results: where dx's two products, or dw's two M-tile partials, nearly
# cancel, a one-step BF16 rounding difference of a partial (f32 sums in a different order round the
# other way) is large relative to the small result. Against the numpy golden this happens for 58 of
# the 3.4 M output elements, each within one BF16 step of its larger partial.
# 参考实现不分块，在整张量上按相同的数据类型步骤计算；矩阵乘只核对部分行列，其余由金标准平方和覆盖。

# %%
def check(name, actual, wanted):
    pt.assert_allclose(pt.cast(actual, FP32), pt.cast(wanted, FP32), rtol=1.0 / 128, atol=1e-4)
    print(name, "matches the untiled reference on", actual.shape)

g32 = pt.cast(g, FP32)
sig = pt.sigmoid(g32)
dg32 = pt.cast(dh, FP32) * pt.cast(fc, FP32) * (sig * (1.0 + g32 * (1.0 - sig)))
dfc32 = pt.cast(dh, FP32) * (g32 * sig)
check("dg", dg, pt.cast(dg32, BF16))
check("dfc", dfc, pt.cast(dfc32, BF16))
db_g_ref = pt.zeros([1, N], dtype=BF16)
db_fc_ref = pt.zeros([1, N], dtype=BF16)
for start in range(0, M, TILE_M_B):
    stop = min(start + TILE_M_B, M)
    db_g_ref = db_g_ref + pt.cast(pt.sum(dg32[start:stop], dim=0, keepdim=True), BF16)
    db_fc_ref = db_fc_ref + pt.cast(pt.sum(dfc32[start:stop], dim=0, keepdim=True), BF16)
check("db_g", db_g, db_g_ref)
check("db_fc", db_fc, db_fc_ref)
for first_column in [0, N - 16]:
    dw_g_ref = pt.zeros([K, 16], dtype=BF16)
    dw_fc_ref = pt.zeros([K, 16], dtype=BF16)
    for start in range(0, M, TILE_M_W):
        stop = min(start + TILE_M_W, M)
        x_rows = pt.transpose(x[start:stop], 0, 1)
        dw_g_ref = dw_g_ref + pt.matmul(x_rows, dg[start:stop, first_column:first_column + 16], out_dtype=BF16)
        dw_fc_ref = dw_fc_ref + pt.matmul(x_rows, dfc[start:stop, first_column:first_column + 16], out_dtype=BF16)
    check("dw_g columns " + str(first_column) + "+16", dw_g[:, first_column:first_column + 16], dw_g_ref)
    check("dw_fc columns " + str(first_column) + "+16", dw_fc[:, first_column:first_column + 16], dw_fc_ref)
w_g_t = pt.transpose(w_g, 0, 1)
w_fc_t = pt.transpose(w_fc, 0, 1)
for first_row in [0, TILE_M_X - 4, 2 * TILE_M_X - 4, M - 8]:
    rows = [first_row, first_row + 8]
    dx_ref = pt.matmul(dg[rows[0]:rows[1]], w_g_t, out_dtype=BF16) + pt.matmul(dfc[rows[0]:rows[1]], w_fc_t, out_dtype=BF16)
    check("dx rows " + str(first_row) + "+8", dx[rows[0]:rows[1]], dx_ref)
names = ["dg", "dfc", "db_g", "db_fc", "dw_g", "dw_fc", "dx"]
outputs = [dg, dfc, db_g, db_fc, dw_g, dw_fc, dx]

# %% [markdown]
# ## Numbers that must not drift
# Sums of squares of every output, computed by the independent numpy golden
# (`tests/golden/make_gallery_golden_b.py`, stored in `tests/golden/gallery_b.json`). A wrong ragged
# tile (rows written twice, a missing tile, a bias summed over the padding) moves them by far more
# than 0.2%. The second row of numbers is for the smaller K and N that the debug-build test uses.
# 每个输出的平方和，数值来自独立的 numpy 金标准（第二组用于调试构建下的较小 K、N）。

# %%
GOLDEN_SUMS_OF_SQUARES = {
    "2200x512x1024": {"dg": 284167, "dfc": 1.40617e+06, "db_g": 1.79464e+06, "db_fc": 4.69405e+07, "dw_g": 2.27687e+10, "dw_fc": 5.75486e+09, "dx": 3.06291e+07},
    "2200x64x128": {"dg": 33311.3, "dfc": 169404, "db_g": 197143, "db_fc": 5.16232e+06, "dw_g": 3.18313e+08, "dw_fc": 8.633e+07, "dx": 637546},
}
golden_sums = GOLDEN_SUMS_OF_SQUARES[str(M) + "x" + str(K) + "x" + str(N)]
for index, name in enumerate(names):
    measured = (pt.cast(outputs[index], FP32) ** 2).sum().item()
    wanted = golden_sums[name]
    assert abs(measured - wanted) <= 2e-3 * wanted, (name, measured, wanted)
print("all seven SwiGLU backward outputs match the golden sums of squares")

# %% [markdown]
# ## The three schedules side by side
# `pypto.schedule` runs a kernel once more and returns its tile schedule on the selected chip
# (Ascend910B2: split cube and vector cores). The outputs are fresh zero tensors so the accumulated
# gradients above stay as they are. Kernel b is vector work and reads/writes BF16 [M, N] tensors;
# w and x are cube work: their FLOPs are 2·2·M·K·N each.
# 三个核的调度：b 为向量计算，w 和 x 为矩阵计算（各 2·2·M·K·N 次浮点运算）。

# %%
pt.npu.use("Ascend910B2")
schedule_b = pt.schedule(swiglu_backward_b, dh, g, fc, pt.zeros_like(dg), pt.zeros_like(dfc), pt.zeros_like(db_g), pt.zeros_like(db_fc))
schedule_w = pt.schedule(swiglu_backward_w, x, dg, dfc, pt.zeros_like(dw_g), pt.zeros_like(dw_fc))
schedule_x = pt.schedule(swiglu_backward_x, dg, dfc, w_g, w_fc, pt.zeros_like(dx))
print("kernel  cycles      bound    GM read      GM written")
for name, s in [("b", schedule_b), ("w", schedule_w), ("x", schedule_x)]:
    print(name, "     ", s.cycles, "  ", s.bound, "  ", s.gm_bytes_read, "  ", s.gm_bytes_written)
bf16_mn = M * N * 2
# b reads dh, g, fc once and writes dg, dfc at least once.
assert schedule_b.gm_bytes_read >= 3 * bf16_mn, schedule_b.gm_bytes_read
assert schedule_b.gm_bytes_written >= 2 * bf16_mn, schedule_b.gm_bytes_written
assert schedule_w.flops >= 2 * 2 * M * K * N and schedule_x.flops >= 2 * 2 * M * K * N
assert schedule_b.pipe_busy["VECTOR"] > 0 and schedule_w.pipe_busy["CUBE"] > 0 and schedule_x.pipe_busy["CUBE"] > 0
schedule_b

# %%
schedule_w

# %%
schedule_x
