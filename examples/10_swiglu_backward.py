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
# **Two levels of tiling.** A kernel's outermost `pypto.loop` iteration (one `tile_m` row tile) is
# one unit of work on one core. Inside it, inner `pypto.loop`s walk the tile in vec-tile-sized
# blocks, the way an Ascend C kernel loops over its UB tiles: every value that lives in the unified
# buffer (UB) is one block, and a block's buffers are reused by the next block once its last use is
# past. A whole [1024, 1024] FP32 row tile would be 4 MiB; the UB of the Ascend910B2 preset used
# here holds 192 KiB.
#
# Storage is BF16 and compute FP32: a kernel casts the tiles it loads to FP32, and its reduction and
# matmul outputs are BF16. M = 2200 is not a multiple of either tile_m, so the last tile is ragged
# (2200 = 1024 + 1024 + 152 = 2048 + 152), and so is its last block (152 = 128 + 24): a view
# carries a `valid_shape`, the rows outside it read as 0 (they add nothing to the sums) and
# `assemble` writes only the valid rows.
#
# ## 中文说明
# SwiGLU 前向：`h = silu(x·w_g + b_g) · (x·w_fc + b_fc)`。已知 `dh`，由链式法则得
# `dfc = dh·silu(g)`，`dg = dh·fc·silu'(g)`，其中 `silu'(g) = σ(g)·(1 + g·(1 − σ(g)))`；
# 偏置梯度是 dg、dfc 按行（M 方向）求和，权重梯度 `dw = xᵀ·dg`，输入梯度 `dx = dg·w_gᵀ + dfc·w_fcᵀ`。
# 反向拆成三个核：b（向量核，tile_m = 1024）、w（矩阵核，tile_m = 2048，各 M 分块的结果累加到
# 初始为 0 的输出中）、x（矩阵核，tile_m = 1024）。存储为 BF16，计算为 FP32。
# 两级分块：最外层 `pypto.loop` 的每次迭代（一个 tile_m 行块）是一个核上的一个工作单元；单元内部
# 再用内层 `pypto.loop` 按向量分块遍历，UB 中的每个值都是一个小块，块的缓冲区在最后一次使用后由
# 下一块复用（Ascend910B2 的 UB 只有 192 KiB，而整块 [1024, 1024] 的 FP32 数据就有 4 MiB）。
# M = 2200 不是分块大小的整数倍，最后的行块和小块通过 `valid_shape` 只处理有效行。

# %%
import pypto as pt

M, K, N = 2200, 512, 1024
TILE_M_B = 1024
TILE_M_W = 2048
TILE_M_X = 1024
# Vec tiles (the blocks of the inner loops): [128, 128]; kernel b's FP32 chain uses 64-row blocks
# so that all its live tiles fit in UB (see kernel b).
VEC_M, VEC_N = 128, 128
VEC_M_B = 64
BF16 = pt.DT_BF16
FP32 = pt.DT_FP32
# The kernels run on the simulated Ascend910B2 (split cube and vector cores, 192 KiB UB): the
# 16 KiB UB of the default `teaching` chip is too small for these tiles.
pt.npu.use("Ascend910B2")

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
# Each unit is a 1024-row tile; inside it, the kernel walks [64, 128] blocks, column block by
# column block and, within a column, row block by row block. Per block it loads g, dh and fc
# (BF16), casts each to FP32, computes σ(g) once and both gradients from it, and stores dg and dfc
# as BF16. The column sums of the blocks are added up in FP32 over the tile's rows; once per
# column block the tile's BF16 partial is added into the [1, N] bias outputs by an accumulating
# store (`out[r] = out[r] + t` on a view becomes an atomic add in GM, so the three units may run
# on three cores at once).
#
# Why 64 rows and not 128: the block needs four FP32 tiles live at once (g or dh, σ(g), silu'(g)
# and silu(g) or dfc), one loaded BF16 tile and one computed BF16 tile, 4·4 + 2·2 = 20 bytes per
# element, plus 1792 B of [1, 128] column-sum tiles. [128, 128] blocks would need 128·128·20 + 1792 =
# 329 472 B > 192 KiB = 196 608 B; the largest row count that fits is ⌊(196 608 − 1792) / (128·20)⌋
# = 76, and the kernel uses 64 (165 632 B, as the schedule's peak UB occupancy shows). With three
# units on 48 vector cores every core runs at most one unit, so `vec_nbuffer_setting: 2` never
# needs the second copy of the buffers here.
#
# 每个单元是 1024 行；单元内按 [64, 128] 小块遍历（先列块，再行块）。每块加载 g、dh、fc（BF16）
# 并转为 FP32，σ(g) 只算一次，两个梯度共用；偏置梯度的列和在 FP32 中跨行块累加，每个列块把本单元
# 的 BF16 部分和以原子加写入输出。一块同时需要 4 个 FP32 块和 2 个 BF16 块（每元素 20 字节），
# [128, 128] 需要 329 472 字节，超过 192 KiB 的 UB；最多 76 行，这里取 64 行。

# %%
@pt.frontend.jit(pass_options={"vec_nbuffer_setting": 2})
def swiglu_backward_b(dh, g, fc, dg, dfc, db_g, db_fc):
    pt.set_vec_tile_shapes(VEC_M_B, VEC_N)
    rows = dh.shape[0]
    cols = dh.shape[1]
    for i in pt.loop(0, (rows + TILE_M_B - 1) // TILE_M_B, name="m_tiles", idx_name="i"):
        start = i * TILE_M_B
        tile_rows = min(TILE_M_B, rows - start)
        for j in pt.loop(0, (cols + VEC_N - 1) // VEC_N, name="n_blocks", idx_name="j"):
            col = j * VEC_N
            width = min(VEC_N, cols - col)
            for r in pt.loop(0, (tile_rows + VEC_M_B - 1) // VEC_M_B, name="m_blocks", idx_name="r"):
                row = start + r * VEC_M_B
                valid = [min(VEC_M_B, rows - row), width]
                g_t = pt.cast(pt.view(g, [VEC_M_B, VEC_N], [row, col], valid_shape=valid), FP32)
                sig = pt.sigmoid(g_t)
                silu_grad = sig * (1.0 + g_t * (1.0 - sig))
                silu = g_t * sig
                dh_t = pt.cast(pt.view(dh, [VEC_M_B, VEC_N], [row, col], valid_shape=valid), FP32)
                dfc_t = dh_t * silu
                pt.assemble(pt.cast(dfc_t, BF16), [row, col], dfc)
                fc_t = pt.cast(pt.view(fc, [VEC_M_B, VEC_N], [row, col], valid_shape=valid), FP32)
                dg_t = dh_t * fc_t * silu_grad
                pt.assemble(pt.cast(dg_t, BF16), [row, col], dg)
                # Column sums of this block, added up in FP32 over the tile's row blocks.
                if r == 0:
                    sum_g = pt.sum(dg_t, dim=0, keepdim=True)
                    sum_fc = pt.sum(dfc_t, dim=0, keepdim=True)
                else:
                    sum_g = sum_g + pt.sum(dg_t, dim=0, keepdim=True)
                    sum_fc = sum_fc + pt.sum(dfc_t, dim=0, keepdim=True)
            # One BF16 partial per M tile, added into the output by an accumulating store.
            bias_g = pt.view(db_g, [1, VEC_N], [0, col], valid_shape=[1, width])
            pt.assemble(bias_g + pt.cast(sum_g, BF16), [0, col], db_g)
            bias_fc = pt.view(db_fc, [1, VEC_N], [0, col], valid_shape=[1, width])
            pt.assemble(bias_fc + pt.cast(sum_fc, BF16), [0, col], db_fc)

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
# Inside a unit the kernel walks the [128, 128] blocks of the output: block (a, b) is the product
# of the tile's columns a of x ([2048, 128], transposed) and columns b of dg (the contraction runs
# over the tile's 2048 rows, streamed through L1 256 rows at a time). Each BF16 partial is added
# into its output block by an accumulating store; the `pt.cast(…, BF16)` spells out that what is
# added is the BF16-rounded partial (the partial passes through UB, and the golden adds BF16
# partials too).
# Cube tiles: m [128, 128], k [128, 256], n [128, 256] ([L0, L1] per dim).
# 权重梯度按 M 分两块（2048 + 152 行），每块的 xᵀ·dg 累加到初始为 0 的输出。单元内按输出的
# [128, 128] 小块遍历，每块的 BF16 部分和以原子加写入输出。

# %%
@pt.frontend.jit
def swiglu_backward_w(x, dg, dfc, dw_g, dw_fc):
    pt.set_vec_tile_shapes(VEC_M, VEC_N)
    pt.set_cube_tile_shapes([128, 128], [128, 256], [128, 256])
    rows = x.shape[0]
    k = x.shape[1]
    n = dg.shape[1]
    for i in pt.loop(0, (rows + TILE_M_W - 1) // TILE_M_W, name="m_tiles", idx_name="i"):
        start = i * TILE_M_W
        tile_rows = min(TILE_M_W, rows - start)
        for a in pt.loop(0, (k + VEC_M - 1) // VEC_M, name="k_blocks", idx_name="a"):
            k0 = a * VEC_M
            k_valid = min(VEC_M, k - k0)
            x_t = pt.view(x, [TILE_M_W, VEC_M], [start, k0], valid_shape=[tile_rows, k_valid])
            for b in pt.loop(0, (n + VEC_N - 1) // VEC_N, name="n_blocks", idx_name="b"):
                n0 = b * VEC_N
                n_valid = min(VEC_N, n - n0)
                dg_t = pt.view(dg, [TILE_M_W, VEC_N], [start, n0], valid_shape=[tile_rows, n_valid])
                dfc_t = pt.view(dfc, [TILE_M_W, VEC_N], [start, n0], valid_shape=[tile_rows, n_valid])
                block = [VEC_M, VEC_N]
                corner = [k0, n0]
                valid = [k_valid, n_valid]
                # out[r] = out[r] + t: an accumulating store (atomic add in GM) of the BF16 partial.
                dw_g_t = pt.view(dw_g, block, corner, valid_shape=valid)
                pt.assemble(dw_g_t + pt.cast(pt.matmul(x_t, dg_t, out_dtype=BF16, a_trans=True), BF16), corner, dw_g)
                dw_fc_t = pt.view(dw_fc, block, corner, valid_shape=valid)
                pt.assemble(dw_fc_t + pt.cast(pt.matmul(x_t, dfc_t, out_dtype=BF16, a_trans=True), BF16), corner, dw_fc)

dw_g = pt.zeros([K, N], dtype=BF16)
dw_fc = pt.zeros([K, N], dtype=BF16)
swiglu_backward_w(x, dg, dfc, dw_g, dw_fc)
print("dw_g", dw_g.shape, dw_g.dtype)

# %% [markdown]
# ## Kernel x: the input gradient (cube unit)
# `dx = dg·w_gᵀ + dfc·w_fcᵀ`: per 1024-row tile, the kernel walks [128, 128] blocks of dx; each is
# two matmuls of a [128, N] row block of dg (dfc) with a [128, N] row block of w_g (w_fc),
# transposed on the fly (`b_trans=True`), contracted over all N. The two BF16 products meet in UB
# (three [128, 128] BF16 tiles, 96 KiB), are added and stored as BF16.
# Cube tiles: m [128, 128], k [64, 256], n [256, 256].
# 每个 [128, 128] 输出小块做两次矩阵乘（权重在读取时转置），两个 BF16 结果在 UB 中相加后写回。

# %%
@pt.frontend.jit
def swiglu_backward_x(dg, dfc, w_g, w_fc, dx):
    pt.set_vec_tile_shapes(VEC_M, VEC_N)
    pt.set_cube_tile_shapes([128, 128], [64, 256], [256, 256])
    rows = dg.shape[0]
    n = dg.shape[1]
    k = w_g.shape[0]
    for i in pt.loop(0, (rows + TILE_M_X - 1) // TILE_M_X, name="m_tiles", idx_name="i"):
        start = i * TILE_M_X
        tile_rows = min(TILE_M_X, rows - start)
        for r in pt.loop(0, (tile_rows + VEC_M - 1) // VEC_M, name="m_blocks", idx_name="r"):
            row = start + r * VEC_M
            row_valid = min(VEC_M, rows - row)
            dg_t = pt.view(dg, [VEC_M, n], [row, 0], valid_shape=[row_valid, n])
            dfc_t = pt.view(dfc, [VEC_M, n], [row, 0], valid_shape=[row_valid, n])
            for c in pt.loop(0, (k + VEC_N - 1) // VEC_N, name="k_blocks", idx_name="c"):
                col = c * VEC_N
                col_valid = min(VEC_N, k - col)
                w_g_t = pt.view(w_g, [VEC_N, n], [col, 0], valid_shape=[col_valid, n])
                w_fc_t = pt.view(w_fc, [VEC_N, n], [col, 0], valid_shape=[col_valid, n])
                dx_t = pt.matmul(dg_t, w_g_t, out_dtype=BF16, b_trans=True) + pt.matmul(dfc_t, w_fc_t, out_dtype=BF16, b_trans=True)
                pt.assemble(dx_t, [row, col], dx)

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
# One caveat of BF16 partial results: dw is a BF16 sum of two M-tile partials and dx of two
# products, each rounded to BF16. The cube sums a partial in FP32 in its own order (K pieces in
# L0C), so where the exact partial lies next to a BF16 rounding boundary it may round one step
# (≤ 1/128 of the partial) the other way than the reference. Where the partials nearly cancel, that
# step is large relative to the small result (at K = 64, N = 128: dw_fc[62, 127] has partials
# 104.749995 and −34.18, the first rounds to 105 on the cube and to 104.5 here, the sums are 71 and
# 70). So the sums are checked against rtol·Σ|partial| + atol, which is the plain bound where the
# partials have one sign.
# 参考实现不分块，在整张量上按相同的数据类型步骤计算；矩阵乘只核对部分行列，其余由金标准平方和覆盖。
# dw 与 dx 是若干 BF16 部分和之和；部分和接近舍入边界时，矩阵核的求和顺序可能使其向另一侧舍入一步，
# 部分和相互抵消时这一步相对结果较大，因此这两项以 rtol·Σ|部分和| + atol 为界。

# %%
def check(name, actual, wanted):
    pt.assert_allclose(pt.cast(actual, FP32), pt.cast(wanted, FP32), rtol=1.0 / 128, atol=1e-4)
    print(name, "matches the untiled reference on", actual.shape)

def check_sum(name, actual, partials):
    # wanted = the BF16 sum of the BF16 partials; |actual − wanted| ≤ Σ|partial|/128 + 1e-4.
    wanted = pt.zeros(actual.shape, dtype=BF16)
    scale = pt.zeros(actual.shape, dtype=FP32)
    for partial in partials:
        wanted = wanted + partial
        scale = scale + pt.abs(pt.cast(partial, FP32))
    error = pt.abs(pt.cast(actual, FP32) - pt.cast(wanted, FP32))
    excess = pt.amax(error - (scale * (1.0 / 128) + 1e-4)).item()
    assert excess <= 0.0, (name, "exceeds rtol·Σ|partial| + atol by", excess)
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
    dw_g_parts = []
    dw_fc_parts = []
    for start in range(0, M, TILE_M_W):
        stop = min(start + TILE_M_W, M)
        x_rows = pt.transpose(x[start:stop], 0, 1)
        dw_g_parts.append(pt.matmul(x_rows, dg[start:stop, first_column:first_column + 16], out_dtype=BF16))
        dw_fc_parts.append(pt.matmul(x_rows, dfc[start:stop, first_column:first_column + 16], out_dtype=BF16))
    check_sum("dw_g columns " + str(first_column) + "+16", dw_g[:, first_column:first_column + 16], dw_g_parts)
    check_sum("dw_fc columns " + str(first_column) + "+16", dw_fc[:, first_column:first_column + 16], dw_fc_parts)
w_g_t = pt.transpose(w_g, 0, 1)
w_fc_t = pt.transpose(w_fc, 0, 1)
for first_row in [0, TILE_M_X - 4, 2 * TILE_M_X - 4, M - 8]:
    rows = [first_row, first_row + 8]
    dx_parts = [pt.matmul(dg[rows[0]:rows[1]], w_g_t, out_dtype=BF16), pt.matmul(dfc[rows[0]:rows[1]], w_fc_t, out_dtype=BF16)]
    check_sum("dx rows " + str(first_row) + "+8", dx[rows[0]:rows[1]], dx_parts)
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
# (Ascend910B2: split cube and vector cores; the kernel calls above ran there too). The outputs are
# fresh zero tensors so the accumulated gradients above stay as they are. Kernel b is vector work
# and reads/writes BF16 [M, N] tensors once; w and x are cube work: their FLOPs are 2·2·M·K·N each,
# and they read GM several times their inputs' size, because the block loops fetch an operand block
# once per output block that needs it (x's columns once per n block in w, the weights' rows once
# per row block in x).
# 三个核的调度：b 为向量计算，每个张量只读写一次；w 和 x 为矩阵计算（各 2·2·M·K·N 次浮点运算），
# 由于每个输出小块都要重新读取所需的操作数块，它们的 GM 读取量是输入大小的数倍。

# %%
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
