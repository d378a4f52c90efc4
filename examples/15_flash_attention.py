# %% [markdown]
# # Flash attention: forward and backward as tile kernels
# Attention for one head, queries `q` (Sq×D), keys `k` and values `v` (Sk×D):
#
#     s = q·kᵀ · c        p = softmax(s) (row-wise)        o = p·v        c = 1/√D
#
# Flash attention never builds the Sq×Sk matrix. As the PTO-ISA flash-attention kernel tiles it,
# each query block of `BLOCK_Q` rows is one task (one cube core and its two vector cores on
# Ascend910B2); the task walks the key blocks of `BLOCK_K` rows and keeps an *online softmax*: the
# running row maximum `m`, the running sum `l` of exp(s − m) and the running output `acc`. A new key
# block with a larger maximum rescales what was summed so far by α = exp(m_old − m_new):
#
#     m = max(m_old, rowmax s_j)     α = exp(m_old − m)     p_j = exp(s_j − m)
#     l = α·l_old + rowsum p_j       acc = α·acc_old + p_j·v_j          o = acc / l
#
# The forward also stores `lse = m + log l` per row, the one number per row the backward needs to
# rebuild p without a second online pass (FA v2).
#
# **Backward (FA v2).** With `do = ∂L/∂o` and `δ = rowsum(do ∘ o)` (equal to rowsum(p ∘ dp)):
#
#     p_ij = exp(s_ij − lse_i)    dp = do·vᵀ    ds = p ∘ (dp − δ)
#     dv = pᵀ·do                  dq = ds·k · c                 dk = dsᵀ·q · c
#
# Written as two kernels with no atomic adds: `dk, dv` with the key blocks outside (each key block's
# sums over the query blocks stay in the core) and `dq` with the query blocks outside.
#
# The gradient check runs the forward and the registered backward on the simulated NPU and compares
# them with central differences in f64, held to 1e-4 in f32. The shapes are small so that the
# check (two forward runs per input element) stays quick; the schedule at the end runs the same
# kernels at the fidelity table's size.
#
# ## 中文说明
# 单头注意力 `o = softmax(q·kᵀ·c)·v`。Flash attention 不构造 Sq×Sk 的完整矩阵：按 PTO-ISA 的
# 分块，每个查询块（BLOCK_Q 行）是一个任务，依次处理各个键块（BLOCK_K 行），维护在线 softmax 的
# 行最大值 m、指数和 l 与输出累加 acc；新键块的最大值更大时，用 α = exp(m_old − m_new) 缩放已有的
# 结果。前向同时保存每行的 `lse = m + log l`，反向（FA v2）据此直接重建 p。反向拆成两个核：
# dk、dv 以键块为外层循环，dq 以查询块为外层循环，都不需要原子加。梯度检查在模拟 NPU 上运行前向
# 与注册的反向，与 f64 中心差分比较，f32 下误差限 1e-4。

# %%
import pypto as pt

SQ, SK, D = 32, 64, 16
BLOCK_Q, BLOCK_K = 16, 32
SCALE = 1.0 / D ** 0.5
# The vec tile (the vector cores' share of a score block) and the cube tiles ([L0, L1] per dim).
VEC_TILE = [BLOCK_Q, BLOCK_K]
CUBE_M, CUBE_K, CUBE_N = [16, 16], [16, 16], [16, 32]
FP16, FP32 = pt.DT_FP16, pt.DT_FP32

def accumulator(dtype):
    # Scores, running state and partial sums: f32 for fp16 inputs, else the inputs' own dtype (the
    # gradient check's central differences run the kernels in f64).
    return FP32 if dtype == FP16 else dtype

def wave(rows, cols, row_step, col_step, phase):
    row_index = pt.arange(rows).reshape([rows, 1])
    col_index = pt.arange(cols).reshape([1, cols])
    return pt.sin(row_index * row_step + col_index * col_step + phase)

q = wave(SQ, D, 0.31, 0.17, 0.0)
k = wave(SK, D, 0.23, -0.29, 0.4)
v = wave(SK, D, 0.13, 0.37, 1.1)
print("q", q.shape, "k", k.shape, "v", v.shape)

# %% [markdown]
# ## Forward: one task per query block, an online softmax over the key blocks
# 前向：每个查询块一个任务，对键块做在线 softmax。

# %%
@pt.frontend.jit
def flash_attention_forward(q, k, v, o, lse):
    pt.set_vec_tile_shapes(*VEC_TILE)
    pt.set_cube_tile_shapes(CUBE_M, CUBE_K, CUBE_N)
    rows, keys, head = q.shape[0], k.shape[0], q.shape[1]
    accumulator_dtype = accumulator(q.dtype)
    for i in pt.loop(0, rows // BLOCK_Q, name="query_blocks", idx_name="i"):
        q_block = pt.view(q, [BLOCK_Q, head], [i * BLOCK_Q, 0])
        # The running max, sum and output of this query block: kernel workspaces in GM (L2).
        m_ws = pt.tensor([BLOCK_Q, 1], accumulator_dtype)
        l_ws = pt.tensor([BLOCK_Q, 1], accumulator_dtype)
        acc_ws = pt.tensor([BLOCK_Q, head], accumulator_dtype)
        for j in pt.loop(0, keys // BLOCK_K, name="key_blocks", idx_name="j"):
            k_block = pt.view(k, [BLOCK_K, head], [j * BLOCK_K, 0])
            v_block = pt.view(v, [BLOCK_K, head], [j * BLOCK_K, 0])
            s = pt.matmul(q_block, k_block, out_dtype=accumulator_dtype, b_trans=True) * SCALE
            block_max = pt.amax(s, dim=1, keepdim=True)
            if pt.cond(pt.is_loop_begin(j)):
                m = block_max
                p = pt.exp(s - m)
                l = pt.sum(p, dim=1, keepdim=True)
                acc = pt.matmul(pt.cast(p, v.dtype), v_block, out_dtype=accumulator_dtype)
            else:
                m_old = pt.view(m_ws, [BLOCK_Q, 1], [0, 0])
                m = pt.maximum(m_old, block_max)
                p = pt.exp(s - m)
                alpha = pt.exp(m_old - m)
                l = alpha * pt.view(l_ws, [BLOCK_Q, 1], [0, 0]) + pt.sum(p, dim=1, keepdim=True)
                acc_old = pt.view(acc_ws, [BLOCK_Q, head], [0, 0])
                acc = alpha * acc_old + pt.matmul(pt.cast(p, v.dtype), v_block, out_dtype=accumulator_dtype)
            pt.assemble(m, [0, 0], m_ws)
            pt.assemble(l, [0, 0], l_ws)
            pt.assemble(acc, [0, 0], acc_ws)
        total = pt.view(l_ws, [BLOCK_Q, 1], [0, 0])
        out = pt.view(acc_ws, [BLOCK_Q, head], [0, 0]) / total
        pt.assemble(pt.cast(out, o.dtype), [i * BLOCK_Q, 0], o)
        pt.assemble(pt.view(m_ws, [BLOCK_Q, 1], [0, 0]) + pt.log(total), [i * BLOCK_Q, 0], lse)

o = pt.zeros([SQ, D])
lse = pt.zeros([SQ, 1])
flash_attention_forward(q, k, v, o, lse)
reference = pt.softmax(pt.matmul(q, k, b_trans=True) * SCALE, dim=-1)
pt.assert_allclose(o, pt.matmul(reference, v), rtol=1e-5, atol=1e-6)
print("forward matches softmax(q·kᵀ·c)·v")
o

# %% [markdown]
# ## Backward (FA v2): dk and dv by key block, dq by query block
# 反向（FA v2）：dk、dv 按键块计算，dq 按查询块计算。

# %%
@pt.frontend.jit
def flash_attention_backward_kv(q, k, v, o, do, lse, dk, dv):
    pt.set_vec_tile_shapes(*VEC_TILE)
    pt.set_cube_tile_shapes(CUBE_M, CUBE_K, CUBE_N)
    rows, keys, head = q.shape[0], k.shape[0], q.shape[1]
    accumulator_dtype = accumulator(q.dtype)
    for j in pt.loop(0, keys // BLOCK_K, name="key_blocks", idx_name="j"):
        k_block = pt.view(k, [BLOCK_K, head], [j * BLOCK_K, 0])
        v_block = pt.view(v, [BLOCK_K, head], [j * BLOCK_K, 0])
        dk_ws = pt.tensor([BLOCK_K, head], accumulator_dtype)
        dv_ws = pt.tensor([BLOCK_K, head], accumulator_dtype)
        for i in pt.loop(0, rows // BLOCK_Q, name="query_blocks", idx_name="i"):
            q_block = pt.view(q, [BLOCK_Q, head], [i * BLOCK_Q, 0])
            do_block = pt.view(do, [BLOCK_Q, head], [i * BLOCK_Q, 0])
            delta = pt.sum(do_block * pt.view(o, [BLOCK_Q, head], [i * BLOCK_Q, 0]), dim=1, keepdim=True)
            s = pt.matmul(q_block, k_block, out_dtype=accumulator_dtype, b_trans=True) * SCALE
            p = pt.exp(s - pt.view(lse, [BLOCK_Q, 1], [i * BLOCK_Q, 0]))
            dp = pt.matmul(do_block, v_block, out_dtype=accumulator_dtype, b_trans=True)
            ds = p * (dp - delta)
            dv_part = pt.matmul(p, do_block, out_dtype=accumulator_dtype, a_trans=True)
            dk_part = pt.matmul(ds, q_block, out_dtype=accumulator_dtype, a_trans=True) * SCALE
            if pt.cond(pt.is_loop_begin(i)):
                dv_sum = dv_part
                dk_sum = dk_part
            else:
                dv_sum = pt.view(dv_ws, [BLOCK_K, head], [0, 0]) + dv_part
                dk_sum = pt.view(dk_ws, [BLOCK_K, head], [0, 0]) + dk_part
            pt.assemble(dv_sum, [0, 0], dv_ws)
            pt.assemble(dk_sum, [0, 0], dk_ws)
        pt.assemble(pt.view(dk_ws, [BLOCK_K, head], [0, 0]), [j * BLOCK_K, 0], dk)
        pt.assemble(pt.view(dv_ws, [BLOCK_K, head], [0, 0]), [j * BLOCK_K, 0], dv)

@pt.frontend.jit
def flash_attention_backward_q(q, k, v, o, do, lse, dq):
    pt.set_vec_tile_shapes(*VEC_TILE)
    pt.set_cube_tile_shapes(CUBE_M, CUBE_K, CUBE_N)
    rows, keys, head = q.shape[0], k.shape[0], q.shape[1]
    accumulator_dtype = accumulator(q.dtype)
    for i in pt.loop(0, rows // BLOCK_Q, name="query_blocks", idx_name="i"):
        q_block = pt.view(q, [BLOCK_Q, head], [i * BLOCK_Q, 0])
        do_block = pt.view(do, [BLOCK_Q, head], [i * BLOCK_Q, 0])
        lse_block = pt.view(lse, [BLOCK_Q, 1], [i * BLOCK_Q, 0])
        dq_ws = pt.tensor([BLOCK_Q, head], accumulator_dtype)
        for j in pt.loop(0, keys // BLOCK_K, name="key_blocks", idx_name="j"):
            k_block = pt.view(k, [BLOCK_K, head], [j * BLOCK_K, 0])
            v_block = pt.view(v, [BLOCK_K, head], [j * BLOCK_K, 0])
            delta = pt.sum(do_block * pt.view(o, [BLOCK_Q, head], [i * BLOCK_Q, 0]), dim=1, keepdim=True)
            p = pt.exp(pt.matmul(q_block, k_block, out_dtype=accumulator_dtype, b_trans=True) * SCALE - lse_block)
            ds = p * (pt.matmul(do_block, v_block, out_dtype=accumulator_dtype, b_trans=True) - delta)
            dq_part = pt.matmul(ds, k_block, out_dtype=accumulator_dtype) * SCALE
            if pt.cond(pt.is_loop_begin(j)):
                dq_sum = dq_part
            else:
                dq_sum = pt.view(dq_ws, [BLOCK_Q, head], [0, 0]) + dq_part
            pt.assemble(dq_sum, [0, 0], dq_ws)
        pt.assemble(pt.view(dq_ws, [BLOCK_Q, head], [0, 0]), [i * BLOCK_Q, 0], dq)

# %% [markdown]
# ## The kernel and its registered backward, checked against central differences
# 核与注册的反向，用中心差分检查。

# %%
@pt.kernel
def flash_attention(q, k, v):
    o = pt.zeros([q.shape[0], q.shape[1]], dtype=q.dtype)
    lse = pt.zeros([q.shape[0], 1], dtype=q.dtype)
    flash_attention_forward(q, k, v, o, lse)
    pt.save_for_backward(o, lse)
    return o

@pt.register_gradient("flash_attention")
def flash_attention_gradient(do, saved, ctx):
    q, k, v, o, lse = saved
    dq = pt.zeros(q.shape, dtype=q.dtype)
    dk = pt.zeros(k.shape, dtype=k.dtype)
    dv = pt.zeros(v.shape, dtype=v.dtype)
    flash_attention_backward_kv(q, k, v, o, do, lse, dk, dv)
    flash_attention_backward_q(q, k, v, o, do, lse, dq)
    return dq, dk, dv

report = pt.autodiff.check_gradient(flash_attention, [q, k, v], atol=1e-4, rtol=1e-4)
assert report, "the FA v2 backward must pass the gradient check"
assert report.max_abs_err < 1e-4, report.max_abs_err
print("passed:", report.passed, "max abs err", report.max_abs_err)
report

# %% [markdown]
# ## The schedule at the fidelity table's size
# The same forward at Sq = 128, Sk = 1024, D = 128 in fp16 with the PTO-ISA blocks (128 query rows,
# 512 keys; each vector core takes [64, 128] tiles, the cube 128 × 128 × 128 at L0 with 256-deep L1
# loads, as the fidelity kernel): one query block, so one cube core and its two vector cores do all the work; the other
# cores are idle. `make fidelity` compares this shape with the measured 19.2 µs on a 910B2.
# Shape-only tensors (`pt.Tensor(shape, dtype)`) carry no values: only the time is simulated.
# 与性能对比表相同规模（Sq = 128，Sk = 1024，D = 128，fp16）的调度：只有一个查询块，由一个矩阵核
# 及其两个向量核完成。只给形状的张量不带数值，只模拟时间。

# %%
BLOCK_Q, BLOCK_K = 128, 512
VEC_TILE = [64, 128]
CUBE_M, CUBE_K, CUBE_N = [128, 128], [128, 256], [128, 128]
SCALE = 1.0 / 128 ** 0.5
shapes = [[128, 128], [1024, 128], [1024, 128], [128, 128]]
big = [pt.Tensor(shape, FP16) for shape in shapes] + [pt.Tensor([128, 1], FP32)]
schedule = pt.schedule(flash_attention_forward, *big)
print("simulated", round(schedule.time_us, 1), "µs on", schedule.cores_used, "cores")
schedule
