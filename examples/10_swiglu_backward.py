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
# The work splits into three kernels, written as pypto-gym writes them: one `pypto.loop` over row
# tiles of `tile_m` rows, tensor ops on whole `[tile_m, ·]` views, and the tile shapes set once:
# - **b** (vector): dg, dfc and the bias gradients, `tile_m = 1024`;
# - **w** (cube): the weight gradients, `tile_m = 2048`, each tile's `xᵀ·dg` added into the
#   zero-initialised output (the sum over M is split over tiles);
# - **x** (cube): dx, `tile_m = 1024`.
#
# **The compiler does the tiling.** A kernel says *what* to compute on a `[tile_m, N]` view; the
# compiler cuts each op by the vec tile (`set_vec_tile_shapes(128, 128)`) or the cube tiles
# (`set_cube_tile_shapes`) into tasks and spreads them over the cores: a [1024, 1024] FP32 view
# would be 4 MiB, the UB of Ascend910B2 holds 192 KiB, so no tile is ever that big on a core.
#
# Storage is BF16 and compute FP32: a kernel casts the tiles it loads to FP32, and its reduction and
# matmul outputs are BF16. M = 2200 is not a multiple of either tile_m, so the last tile is ragged
# (2200 = 1024 + 1024 + 152 = 2048 + 152): a view carries a `valid_shape`, the rows outside it read
# as 0 (they add nothing to the sums), `assemble` writes only the valid rows, and the compiler skips
# the vec tiles that hold no valid row at all.
#
# ## 中文说明
# SwiGLU 前向：`h = silu(x·w_g + b_g) · (x·w_fc + b_fc)`。已知 `dh`，由链式法则得
# `dfc = dh·silu(g)`，`dg = dh·fc·silu'(g)`，其中 `silu'(g) = σ(g)·(1 + g·(1 − σ(g)))`；
# 偏置梯度是 dg、dfc 按行（M 方向）求和，权重梯度 `dw = xᵀ·dg`，输入梯度 `dx = dg·w_gᵀ + dfc·w_fcᵀ`。
# 反向拆成三个核，写法与 pypto-gym 相同：一个 `pypto.loop` 遍历 tile_m 行块，在整个 `[tile_m, ·]`
# 视图上做张量运算。b（向量核，tile_m = 1024）、w（矩阵核，tile_m = 2048，各 M 分块的结果累加到
# 初始为 0 的输出中）、x（矩阵核，tile_m = 1024）。存储为 BF16，计算为 FP32。
# 分块由编译器完成：每个运算按向量分块（128×128）或矩阵分块切成任务，分配到各个核上。
# M = 2200 不是分块大小的整数倍，最后的行块通过 `valid_shape` 只处理有效行。

# %%
import pypto as pt

M, K, N = 2200, 512, 1024
TILE_M_B = 1024
TILE_M_W = 2048
TILE_M_X = 1024
VEC_M, VEC_N = 128, 128
BF16 = pt.DT_BF16
FP32 = pt.DT_FP32
# The kernels run on the simulated Ascend910B2 (split cube and vector cores, 192 KiB UB), the
# default chip.
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
# Each iteration loads its [1024, N] row tile of g, dh and fc (BF16), casts them to FP32, computes
# σ(g) once and both gradients from it, stores dg and dfc as BF16, and adds the tile's column sums
# (a BF16 partial) into the [1, N] bias outputs: `view + partial` assembled into the same region is
# an accumulating store (an atomic add in GM), so the iterations may run on different cores.
#
# What the compiler makes of it (see the schedule at the end): the [128, 128] vec tile cuts a row
# tile into 8 × 8 tiles. The column sums join the 8 tiles of a column, so each column of tiles is
# one task that walks its tiles and keeps the running sum in UB: 3 row tiles × 8 columns = 24 tasks
# on 24 of the 48 vector cores (the ragged third row tile walks 2 tiles, not 8). One tile's FP32
# chain keeps up to four [128, 128] FP32 tiles (64 KiB each) live, more than the 192 KiB UB, so the
# compiler cuts the chain and passes the values live across a cut through a GM workspace, as
# pypto's partitioner does: the schedule shows that traffic beside the 3 reads and 2 writes.
#
# 每次迭代加载一个 [1024, N] 行块（BF16）并转为 FP32，σ(g) 只算一次，两个梯度共用；dg、dfc 以 BF16
# 写回，列和（BF16 部分和）以原子加累加到偏置输出。编译器按 [128, 128] 向量分块：列和把同一列的
# 8 个分块连在一起，所以每列是一个任务（3 个行块 × 8 列 = 24 个任务，分布在 24 个向量核上）。
# 一个分块的 FP32 计算链同时需要最多 4 个 64 KiB 的 FP32 块，超过 192 KiB 的 UB，编译器把链切开，
# 跨越切口的值经 GM 工作区传递，调度中可以看到这部分额外流量。

# %%
@pt.frontend.jit(pass_options={"vec_nbuffer_setting": {-1: 2}})
def swiglu_backward_b(dh, g, fc, dg, dfc, db_g, db_fc):
    pt.set_vec_tile_shapes(VEC_M, VEC_N)
    rows = dh.shape[0]
    n = dh.shape[1]
    for i in pt.loop(0, (rows + TILE_M_B - 1) // TILE_M_B, name="m_tiles", idx_name="i"):
        start = i * TILE_M_B
        valid_m = min(TILE_M_B, rows - start)
        g_t = pt.cast(pt.view(g, [TILE_M_B, n], [start, 0], valid_shape=[valid_m, n]), FP32)
        dh_t = pt.cast(pt.view(dh, [TILE_M_B, n], [start, 0], valid_shape=[valid_m, n]), FP32)
        fc_t = pt.cast(pt.view(fc, [TILE_M_B, n], [start, 0], valid_shape=[valid_m, n]), FP32)
        sig = pt.sigmoid(g_t)
        silu = g_t * sig
        silu_grad = sig * (1.0 + g_t * (1.0 - sig))
        dfc_t = dh_t * silu
        dg_t = dh_t * fc_t * silu_grad
        pt.assemble(pt.cast(dfc_t, BF16), [start, 0], dfc)
        pt.assemble(pt.cast(dg_t, BF16), [start, 0], dg)
        # One BF16 partial per row tile, added into the output by an accumulating store.
        bias_g = pt.view(db_g, [1, n], [0, 0])
        pt.assemble(bias_g + pt.cast(pt.sum(dg_t, dim=0, keepdim=True), BF16), [0, 0], db_g)
        bias_fc = pt.view(db_fc, [1, n], [0, 0])
        pt.assemble(bias_fc + pt.cast(pt.sum(dfc_t, dim=0, keepdim=True), BF16), [0, 0], db_fc)

dg = pt.zeros([M, N], dtype=BF16)
dfc = pt.zeros([M, N], dtype=BF16)
db_g = pt.zeros([1, N], dtype=BF16)
db_fc = pt.zeros([1, N], dtype=BF16)
swiglu_backward_b(dh, g, fc, dg, dfc, db_g, db_fc)
print("dg", dg.dtype, "db_g", db_g.shape)

# %% [markdown]
# ## Kernel w: weight gradients (cube unit)
# `dw_g = xᵀ·dg` sums over M. Each 2048-row tile contributes `x_tᵀ·dg_t` (BF16 out), added into the
# zero-initialised [K, N] outputs by an accumulating store; the ragged second tile has 152 valid
# rows, its zero rows add 0. The contraction runs over the tile's rows (`a_trans=True`).
# The compiler cuts each [K, N] product by the L1 cube tile (mL1 × nL1 = 128 × 256): 4 × 4 output
# tiles per row tile, 32 tasks over the 24 cube cores; each streams its operand strips through L1
# 256 rows (kL1) at a time and accumulates K in L0C.
# Cube tiles: m [128, 128], k [128, 256], n [128, 256] ([L0, L1] per dim).
# 权重梯度按 M 分两块（2048 + 152 行），每块的 xᵀ·dg 以原子加累加到初始为 0 的输出。编译器按
# L1 矩阵分块（128 × 256）切分输出：每个行块 16 个任务，共 32 个任务分布在 24 个矩阵核上。

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
        valid_m = min(TILE_M_W, rows - start)
        x_t = pt.view(x, [TILE_M_W, k], [start, 0], valid_shape=[valid_m, k])
        dg_t = pt.view(dg, [TILE_M_W, n], [start, 0], valid_shape=[valid_m, n])
        dfc_t = pt.view(dfc, [TILE_M_W, n], [start, 0], valid_shape=[valid_m, n])
        # out[r] = out[r] + t: an accumulating store (atomic add in GM) of the BF16 partial.
        dw_g_all = pt.view(dw_g, [k, n], [0, 0])
        pt.assemble(dw_g_all + pt.matmul(x_t, dg_t, out_dtype=BF16, a_trans=True), [0, 0], dw_g)
        dw_fc_all = pt.view(dw_fc, [k, n], [0, 0])
        pt.assemble(dw_fc_all + pt.matmul(x_t, dfc_t, out_dtype=BF16, a_trans=True), [0, 0], dw_fc)

dw_g = pt.zeros([K, N], dtype=BF16)
dw_fc = pt.zeros([K, N], dtype=BF16)
swiglu_backward_w(x, dg, dfc, dw_g, dw_fc)
print("dw_g", dw_g.shape, dw_g.dtype)

# %% [markdown]
# ## Kernel x: the input gradient (cube unit)
# `dx = dg·w_gᵀ + dfc·w_fcᵀ`: per 1024-row tile, two matmuls of the [1024, N] row tiles of dg and
# dfc with the whole weights, transposed on the fly (`b_trans=True`), contracted over all N. The
# compiler cuts the [1024, K] result by the L1 cube tile (128 × 256): each task computes both
# products of its output tile on a cube core; on the split 910B the two BF16 products reach a
# vector core through a GM workspace, where they are added and stored as BF16.
# Cube tiles: m [128, 128], k [64, 256], n [256, 256].
# 每个 1024 行块做两次矩阵乘（权重在读取时转置）。编译器按 128 × 256 的输出分块切分任务；两个 BF16
# 结果经 GM 工作区交给向量核相加后写回。

# %%
@pt.frontend.jit
def swiglu_backward_x(dg, dfc, w_g, w_fc, dx):
    pt.set_vec_tile_shapes(VEC_M, VEC_N)
    pt.set_cube_tile_shapes([128, 128], [64, 256], [256, 256])
    rows = dg.shape[0]
    n = dg.shape[1]
    for i in pt.loop(0, (rows + TILE_M_X - 1) // TILE_M_X, name="m_tiles", idx_name="i"):
        start = i * TILE_M_X
        valid_m = min(TILE_M_X, rows - start)
        dg_t = pt.view(dg, [TILE_M_X, n], [start, 0], valid_shape=[valid_m, n])
        dfc_t = pt.view(dfc, [TILE_M_X, n], [start, 0], valid_shape=[valid_m, n])
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
# and reads its three BF16 [M, N] inputs and writes its two outputs; w and x are cube work: their
# FLOPs are 2·2·M·K·N each, and they read GM several times their inputs' size, because every
# output-tile task streams the operand strips it needs (x's columns once per n tile in w, the
# whole weights once per row tile in x). Kernel b reads and writes more than its tensors' size
# too: the GM workspaces its chain was cut through (see kernel b).
# 三个核的调度：b 为向量计算，除了输入输出，还有计算链被切开后经过的 GM 工作区的读写；w 和 x 为矩阵
# 计算（各 2·2·M·K·N 次浮点运算），每个输出分块任务都要读取所需的操作数条带，GM 读取量是输入大小的数倍。

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
# The compiler spread b's column tasks (3 row tiles × N/128 columns of vec tiles: 24 at full size)
# over as many vector cores.
b_tasks = ((M + TILE_M_B - 1) // TILE_M_B) * ((N + VEC_N - 1) // VEC_N)
assert schedule_b.cores_used == min(48, b_tasks), (schedule_b.cores_used, b_tasks)
schedule_b

# %%
schedule_w

# %%
schedule_x
