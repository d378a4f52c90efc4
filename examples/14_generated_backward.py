# %% [markdown]
# # Generated vs hand-written backward
# A `@pt.kernel` without `@pt.register_gradient` gets its backward **generated**: TileLab
# differentiates the kernel's recorded ops (the same derivative rules autograd uses), tiles the
# backward by the forward's vec tile and runs it on the simulated NPU as `<kernel>.backward`; its
# schedule follows the forward's. For each forward value the backward reads it either **saves** it
# (the forward writes it to GM, the backward reads it back) or **recomputes** it inside the
# backward's tile. `pt.autodiff.policy("auto")` (the default) decides per value by cost: GM bytes
# against vector cycles, the UB budget, and never redoing a matmul. `"save"` and `"recompute"`
# force one side. `pt.autodiff.last_backward()` is the schedule of the last generated backward.
#
# Below, three forwards differentiated automatically next to hand-written backward kernels:
# Swish (as example 08), LayerNorm (as example 07, with γ and β of shape [1, C]) and a fused
# SwiGLU forward. Shapes are small enough for a debug build; the chip is Ascend910B2.
#
# **中文说明：** 没有 `@pt.register_gradient` 的 `@pt.kernel` 会**自动生成**反向：TileLab 对核函数记录的算子求导
# （与自动微分共用同一套导数规则），按前向的向量分块切分反向，并以 `<kernel>.backward` 在模拟 NPU 上运行，
# 其调度排在前向之后。反向读取的每个前向中间值要么**保存**（前向写回 GM，反向读回），要么在反向分块内**重算**。
# `pt.autodiff.policy("auto")`（默认）按代价逐个决定：GM 字节与向量周期、UB 容量，且从不重算矩阵乘；
# `"save"` 与 `"recompute"` 强制一侧。`pt.autodiff.last_backward()` 返回最近一次生成反向的调度。

# %%
import pypto as pt

R, C = 64, 512
BETA = 1.5
x = pt.reshape(pt.sin(pt.arange(0, R * C) * 0.37) * 3, [R, C])
w = pt.reshape(pt.cos(pt.arange(0, R * C) * 0.23), [R, C])

@pt.kernel
def swish(x, beta):
    pt.set_vec_tile_shapes(8, 512)
    return x * pt.sigmoid(x * beta)

# The hand-written pair of example 08: the backward kernel recomputes s = σ(βx) from x.
@pt.kernel
def swish_hand(x, beta):
    pt.set_vec_tile_shapes(8, 512)
    return x * pt.sigmoid(x * beta)

@pt.kernel
def swish_hand_grad(x, grad_output, beta):
    pt.set_vec_tile_shapes(8, 512)
    s = pt.sigmoid(x * beta)
    return grad_output * s * (1 + beta * x * (1 - s))

@pt.register_gradient("swish_hand")
def swish_hand_backward(grad_output, saved, ctx):
    x, = saved
    return swish_hand_grad(x, grad_output, ctx.attrs["beta"])

def generated(kernel, args, weights, policy):
    """The gradients of Σ kernel(*args)·weights with a generated backward under `policy`, the
    backward's schedule, and the bytes the tape holds for it."""
    previous = pt.autodiff.policy(policy)
    leaves = [pt.as_tensor(a.tolist(), requires_grad=True) for a in args]
    loss = (kernel(*leaves) * weights).sum()
    held = pt.graph(loss).saved_activation_bytes
    loss.backward()
    pt.autodiff.policy(previous)
    return [leaf.grad for leaf in leaves], pt.autodiff.last_backward(), held

def row(name, schedule, held):
    print(f"{name:28s} {schedule.cycles:8d} cycles  GM read {schedule.gm_bytes_read:8d}  written {schedule.gm_bytes_written:8d}  held {held:8d}")

# %% [markdown]
# ## Swish
# The generated backward reads s = σ(βx). Saving s costs a 128 KiB write in the forward and a read
# in the backward; recomputing it costs two vector passes per tile (x·β, σ). `auto` recomputes, as
# the hand-written kernel does, and holds half the bytes of `save`.
#
# **中文：** 生成的反向读取 s = σ(βx)。保存 s 需要前向多写 128 KiB、反向多读一次；重算只需每块两次向量运算。
# `auto` 选择重算，与手写核一致，占用字节是 `save` 的一半。

# %%
swish_beta = lambda t: swish(t, BETA)
results = {policy: generated(swish_beta, [x], w, policy) for policy in ["save", "recompute", "auto"]}
xk = pt.as_tensor(x.tolist(), requires_grad=True)
(swish_hand(xk, BETA) * w).sum().backward()
hand = pt.schedule(swish_hand_grad, x, w, BETA)
hand_held = R * C * 4
for policy in ["save", "recompute", "auto"]:
    grads, schedule, held = results[policy]
    pt.assert_allclose(grads[0], xk.grad, rtol=1e-5, atol=1e-6)
    row("generated, " + policy, schedule, held)
row("hand-written (recomputes s)", hand, hand_held)
auto_schedule = results["auto"][1]
assert results["recompute"][2] * 2 == results["save"][2]
assert auto_schedule.gm_bytes_read == hand.gm_bytes_read and auto_schedule.gm_bytes_written == hand.gm_bytes_written
print("auto / hand-written cycles:", round(auto_schedule.cycles / hand.cycles, 3))
assert auto_schedule.cycles <= 1.2 * hand.cycles

# %% [markdown]
# ## LayerNorm
# The generated backward differentiates the forward's ops: its reductions' gradients stay `[R, 1]`
# tiles broadcast by the element-wise ops that read them, and the per-row statistics are recomputed
# in each 8-row tile. dγ and dβ are sums over *all* rows: as a hand-written kernel does, the
# generated one works in blocks of rows, each writing its rows of dx and adding its `[1, C]`
# partials of dγ and dβ into zero-initialised outputs with an accumulating store (an atomic add in
# GM), so the blocks run on different cores. The hand-written kernel below computes dx only; the
# GM written by the generated one is dx plus one f32 partial of dγ and of dβ per block.
#
# **中文：** 生成的反向对前向算子求导：归约的梯度保持为 `[R, 1]` 分块，由读取它的逐元素运算广播，逐行统计量在每个
# 8 行分块内重算。dγ、dβ 是对*所有*行求和：与手写核一样，生成的核按行块工作，每块写回自己的 dx 行，并把 dγ、dβ 的
# `[1, C]` 部分和以原子加累加到初始化为 0 的输出中，各行块可在不同的核上运行。下面的手写核只计算 dx；生成核写回的
# GM 字节是 dx 加上每个行块 dγ、dβ 各一份 f32 部分和。

# %%
gamma = pt.reshape(pt.cos(pt.arange(0, C) * 0.5) * 0.1 + 1, [1, C])
beta = pt.reshape(pt.arange(0, C) * 0.001 - 0.2, [1, C])

@pt.kernel
def layer_norm(x, gamma, beta):
    pt.set_vec_tile_shapes(8, 512)
    mean = pt.mean(x, dim=-1, keepdim=True)
    centred = x - mean
    rstd = pt.rsqrt(pt.mean(centred * centred, dim=-1, keepdim=True) + 1e-5)
    return centred * rstd * gamma + beta

@pt.kernel
def layer_norm_dx(x, gamma, dy):
    pt.set_vec_tile_shapes(8, 512)
    mean = pt.mean(x, dim=-1, keepdim=True)
    centred = x - mean
    rstd = pt.rsqrt(pt.mean(centred * centred, dim=-1, keepdim=True) + 1e-5)
    x_hat = centred * rstd
    g = dy * gamma
    return rstd * (g - pt.mean(g, dim=-1, keepdim=True) - x_hat * pt.mean(g * x_hat, dim=-1, keepdim=True))

grads, schedule, held = generated(layer_norm, [x, gamma, beta], w, "auto")
hand_dx = pt.schedule(layer_norm_dx, x, gamma, w)
reference = [pt.as_tensor(t.tolist(), requires_grad=True) for t in [x, gamma, beta]]
(pt.nn.layer_norm(reference[0], pt.reshape(reference[1], [C]), pt.reshape(reference[2], [C])) * w).sum().backward()
for ours, theirs in zip(grads, reference):
    pt.assert_allclose(ours, pt.reshape(theirs.grad, ours.shape), rtol=1e-4, atol=1e-4)
row("generated LayerNorm dx dγ dβ", schedule, held)
row("hand-written LayerNorm dx", hand_dx, 0)
print("generated (dx, dγ, dβ) / hand-written (dx) cycles:", round(schedule.cycles / hand_dx.cycles, 3))

# %% [markdown]
# ## A fused SwiGLU forward
# `h = x·W_g + b_g`, `u = x·W_fc + b_fc`, `y = silu(h)·u`. The matmul adjoints are matmuls with
# transposed operands (dx = dh·W_gᵀ + du·W_fcᵀ, dW = xᵀ·dh), the bias gradients sums over rows.
# `auto` saves h and u (recomputing them would redo the matmuls) and recomputes σ(h) and silu(h)
# from the saved h.
#
# **中文：** 矩阵乘的伴随仍是带转置操作数的矩阵乘（dx = dh·W_gᵀ + du·W_fcᵀ，dW = xᵀ·dh），偏置梯度是按行求和。
# `auto` 保存 h 与 u（重算需要重做矩阵乘），由保存的 h 重算 σ(h) 与 silu(h)。

# %%
M, K, N = 64, 64, 128
xs = pt.reshape(pt.sin(pt.arange(0, M * K) * 0.37), [M, K])
w_g = pt.reshape(pt.cos(pt.arange(0, K * N) * 0.11) * 0.2, [K, N])
w_fc = pt.reshape(pt.sin(pt.arange(0, K * N) * 0.07) * 0.2, [K, N])
b_g = pt.reshape(pt.arange(0, N) * 0.01, [1, N])
b_fc = pt.reshape(pt.arange(0, N) * -0.01, [1, N])
weights = pt.reshape(pt.cos(pt.arange(0, M * N) * 0.05), [M, N])

def swiglu(x, w_g, b_g, w_fc, b_fc):
    h = pt.matmul(x, w_g) + b_g
    u = pt.matmul(x, w_fc) + b_fc
    return h * pt.sigmoid(h) * u

@pt.kernel
def swiglu_kernel(x, w_g, b_g, w_fc, b_fc):
    pt.set_vec_tile_shapes(16, 128)
    return swiglu(x, w_g, b_g, w_fc, b_fc)

args = [xs, w_g, b_g, w_fc, b_fc]
for policy in ["save", "auto"]:
    grads, schedule, held = generated(swiglu_kernel, args, weights, policy)
    row("generated SwiGLU, " + policy, schedule, held)
reference = [pt.as_tensor(a.tolist(), requires_grad=True) for a in args]
(swiglu(*reference) * weights).sum().backward()
for ours, theirs in zip(grads, reference):
    pt.assert_allclose(ours, theirs.grad, rtol=1e-4, atol=1e-5)
print("all generated gradients agree")

# %% [markdown]
# ## A `@pt.frontend.jit` kernel
# pypto's own kernel form writes its outputs, passed as arguments, region by region: each
# `pt.loop` iteration views its rows of the input and assembles its result into the output. Without
# a registered gradient it gets a generated backward too, one unit per forward iteration: an
# assemble's adjoint views the output's gradient at the same region, a view's adjoint stores its
# gradient into the viewed region of a zero gradient (with an accumulating store where views
# overlap, as γ's do in a LayerNorm), and the values in between are recomputed in the unit. Below,
# example 04's row softmax with its ragged last tile.
#
# **中文：** pypto 自己的核形式把输出作为参数逐区域写入：每次 `pt.loop` 迭代取输入的若干行，再把结果 assemble 到输出。
# 没有注册梯度时它同样得到生成的反向，每个前向迭代对应一个单元：assemble 的伴随是在同一区域取输出梯度的视图，
# view 的伴随把梯度写入零梯度中对应的区域（视图重叠时用累加存储），中间值在单元内重算。

# %%
@pt.frontend.jit
def row_softmax_jit(x, out):
    pt.set_vec_tile_shapes(4, 16)
    rows = x.shape[0]
    for i in pt.loop(0, (rows + 3) // 4, name="row_tiles", idx_name="i"):
        start = i * 4
        valid = min(4, rows - start)
        tile = pt.view(x, [4, 16], [start, 0], valid_shape=[valid, 16])
        shifted = tile - pt.amax(tile, dim=-1, keepdim=True)
        e = pt.exp(shifted)
        pt.assemble(e / pt.sum(e, dim=-1, keepdim=True), [start, 0], out)

scores = pt.reshape(pt.sin(pt.arange(0, 160) * 0.37) * 3, [10, 16])
probability_weights = pt.reshape(pt.cos(pt.arange(0, 160) * 0.23), [10, 16])
leaf = pt.as_tensor(scores.tolist(), requires_grad=True)
probabilities = pt.zeros([10, 16])
row_softmax_jit(leaf, probabilities)
(probabilities * probability_weights).sum().backward()
reference = pt.as_tensor(scores.tolist(), requires_grad=True)
(pt.softmax(reference, dim=-1) * probability_weights).sum().backward()
pt.assert_allclose(leaf.grad, reference.grad, rtol=1e-5, atol=1e-6)
jit_backward = pt.autodiff.last_backward()
print("row_softmax_jit.backward:", jit_backward.cycles, "cycles, GM read", jit_backward.gm_bytes_read, "written", jit_backward.gm_bytes_written)

# %% [markdown]
# ## Seed 003's comparison at its shape
# Seed 003 measures the Swish backward on a [32, 64, 56, 56] FP16 activation: framework autodiff
# 420 µs and 128 MB of memory traffic against a hand-written kernel's 280 µs and 64 MB (1.5× the
# time, 2× the bytes). Here the same tensor as [N·C, H·W] = [2048, 3136] FP16 on Ascend910B2,
# computed in FP32: "save everything" (`policy("save")`: the forward writes every value the
# backward reads), the generated backward under `auto`, and the hand-written kernel (it recomputes
# s = σ(x) from x). The generated backward is simulated with the forward's vec tile and with half
# its rows and keeps the faster (its chain is longer than the forward's; with the forward's tile it
# is cut through GM workspaces).
#
# **中文：** 种子 003 测量了 [32, 64, 56, 56] FP16 激活上 Swish 反向：框架自动微分 420 µs、128 MB 访存，手写核
# 280 µs、64 MB（时间 1.5 倍，字节 2 倍）。这里在 Ascend910B2 上以 [2048, 3136] FP16（FP32 计算）复现：
# “全部保存”（`policy("save")`）、`auto` 下的生成反向与手写核（由 x 重算 s = σ(x)）。

# %%
FP16 = pt.DT_FP16
ROWS, COLUMNS = 32 * 64, 56 * 56
activation = pt.cast(pt.reshape(pt.sin(pt.arange(0, ROWS * COLUMNS) * 0.37) * 3, [ROWS, COLUMNS]), FP16)
upstream = pt.cast(pt.reshape(pt.cos(pt.arange(0, ROWS * COLUMNS) * 0.23), [ROWS, COLUMNS]), FP16)

@pt.kernel
def swish16(x):
    pt.set_vec_tile_shapes(8, 784)
    x32 = pt.cast(x, pt.DT_FP32)
    return pt.cast(x32 * pt.sigmoid(x32), FP16)

@pt.kernel
def swish16_grad(x, dy):
    pt.set_vec_tile_shapes(8, 784)
    x32 = pt.cast(x, pt.DT_FP32)
    s = pt.sigmoid(x32)
    return pt.cast(pt.cast(dy, pt.DT_FP32) * s * (1 + x32 * (1 - s)), FP16)

def seed_003(policy):
    previous = pt.autodiff.policy(policy)
    leaf = pt.cast(activation, FP16)
    leaf.requires_grad = True
    swish16(leaf).backward(upstream)
    pt.autodiff.policy(previous)
    return leaf.grad, pt.autodiff.last_backward()

def traffic(schedule):
    return schedule.gm_bytes_read + schedule.gm_bytes_written

saved_grad, saved = seed_003("save")
auto_grad, auto = seed_003("auto")
hand16 = pt.schedule(swish16_grad, activation, upstream)
pt.assert_allclose(pt.cast(auto_grad, pt.DT_FP32), pt.cast(swish16_grad(activation, upstream), pt.DT_FP32), rtol=1e-3, atol=1e-3)
for name, schedule in [("save everything", saved), ("generated, auto", auto), ("hand-written", hand16)]:
    print(f"{name:16s} {schedule.time_us:7.1f} µs  {traffic(schedule) / 1e6:6.1f} MB  ({schedule.time_us / hand16.time_us:.2f}× the time, {traffic(schedule) / traffic(hand16):.2f}× the bytes)")
print("seed 003: autodiff 420 µs, 128 MB; hand-written 280 µs, 64 MB (1.50× the time, 2.00× the bytes)")
assert auto.time_us <= 1.2 * hand16.time_us

# %% [markdown]
# **Where the simulation agrees with the article, and where not.** The bytes agree: saving every
# value doubles the backward's memory traffic (the forward's values come back from GM instead of
# being recomputed from x), as 128 MB against 64 MB does in the article. The time does not scale
# the same way: on the simulated chip this backward is bound by GM bandwidth alone, so its time
# follows its bytes (about 1.9× where the article measured 1.5×: a real framework's overheads —
# kernel launches, the allocator — add a fixed cost to both sides), and the absolute times are
# several times shorter than the article's (its 64 MB in 280 µs is ≈ 230 GB/s; Ascend910B2's HBM
# moves that in ≈ 40 µs). The generated backward under `auto` recomputes s as the hand-written
# kernel does and moves the same bytes; its time is 1.08× the hand-written one's (its longer chain
# runs with 4-row tiles, the hand-written kernel with 8).
# Seed 003's GroupNorm backward (1.82 vs 1.18 ms in an SD UNet) follows below.
#
# **与文章一致与不一致之处：** 字节一致：全部保存使反向访存翻倍（与文章的 128 MB 对 64 MB 相同）。时间不按同样比例：
# 模拟芯片上该反向完全受 GM 带宽限制，时间随字节变化（约 1.9 倍，文章为 1.5 倍：真实框架的启动、分配器等固定开销
# 同时加在两侧），绝对时间也比文章短数倍。`auto` 下的生成反向与手写核一样重算 s、访存相同，时间为手写核的 1.08 倍（其计算链更长，用 4 行分块，手写核用 8 行）。
# 种子 003 中 GroupNorm 的反向（1.82 对 1.18 ms）见下节。

# %% [markdown]
# ## Seed 003's GroupNorm at an SD-UNet shape
# Seed 003 gives 1.82 ms (framework autodiff) against 1.18 ms (hand-written) for GroupNorm's
# backward in a Stable Diffusion UNet, without the shape. We take the largest GroupNorm of the SD 1.5
# UNet (diffusers' `UNet2DConditionModel`: `norm_num_groups=32`, first block with 320 channels on
# the 64×64 latent of a 512×512 image) at batch 2 (classifier-free guidance), FP16:
# x = [2, 320, 64, 64], 32 groups of 10 channels. The kernels see it as [N·G, C/G, H·W] =
# [64, 10, 4096], one group per row, with γ and β spread to [N·G, C/G, 1] (the per-channel sums of
# dγ, dβ over the batch are left to the caller). The hand-written backward reads the saved per-group
# mean and rstd; the generated one is run under `save` ("save everything") and `auto`.
#
# **中文：** 种子 003 给出 SD UNet 中 GroupNorm 反向 1.82 ms（框架自动微分）对 1.18 ms（手写），未给形状。这里取
# SD 1.5 UNet 中最大的 GroupNorm（diffusers `UNet2DConditionModel`：32 组，首个 320 通道块，512×512 图像的 64×64
# 潜空间），批大小 2（无分类器引导），FP16：x = [2, 320, 64, 64]，按 [N·G, C/G, H·W] = [64, 10, 4096] 排布。

# %%
N_SD, C_SD, HW_SD, G_SD = 2, 320, 64 * 64, 32
CG_SD = C_SD // G_SD
GROUP_TILE = [1, CG_SD, 512]
FP32 = pt.DT_FP32
shape_sd = [N_SD * G_SD, CG_SD, HW_SD]
x_sd = pt.cast(pt.reshape(pt.sin(pt.arange(0, N_SD * C_SD * HW_SD) * 0.37) * 2, shape_sd), FP16)
dy_sd = pt.cast(pt.reshape(pt.cos(pt.arange(0, N_SD * C_SD * HW_SD) * 0.23), shape_sd), FP16)
gamma_sd = pt.cast(pt.reshape(pt.cos(pt.arange(0, N_SD * C_SD) * 0.5) * 0.1 + 1, [N_SD * G_SD, CG_SD, 1]), FP16)
beta_sd = pt.cast(pt.reshape(pt.arange(0, N_SD * C_SD) * 0.001, [N_SD * G_SD, CG_SD, 1]), FP16)

def widened(dtype):
    # FP16/BF16 values are computed in FP32; f32 and f64 (a gradient check's two sides) in their own
    # dtype, so the check's f64 side is not rounded to f32 inside the kernel.
    return FP32 if dtype == FP16 or dtype == pt.DT_BF16 else dtype

@pt.kernel
def group_norm16(x, gamma, beta):
    pt.set_vec_tile_shapes(*GROUP_TILE)
    wide = widened(x.dtype)
    x32 = pt.cast(x, wide)
    mean = pt.mean(x32, dim=[1, 2], keepdim=True)
    centred = x32 - mean
    rstd = pt.rsqrt(pt.mean(centred * centred, dim=[1, 2], keepdim=True) + 1e-5)
    return pt.cast(centred * rstd * pt.cast(gamma, wide) + pt.cast(beta, wide), x.dtype)

@pt.kernel
def group_norm16_grad(x, gamma, dy, mean, rstd):
    pt.set_vec_tile_shapes(*GROUP_TILE)
    wide = widened(x.dtype)
    x_hat = (pt.cast(x, wide) - mean) * rstd
    d = pt.cast(dy, wide)
    g = d * pt.cast(gamma, wide)
    dx = rstd * (g - pt.mean(g, dim=[1, 2], keepdim=True) - x_hat * pt.mean(g * x_hat, dim=[1, 2], keepdim=True))
    return pt.cast(dx, x.dtype), pt.sum(d * x_hat, dim=2, keepdim=True), pt.sum(d, dim=2, keepdim=True)

def group_norm_sd(policy):
    previous = pt.autodiff.policy(policy)
    leaves = [pt.cast(t, FP16) for t in [x_sd, gamma_sd, beta_sd]]
    for leaf in leaves:
        leaf.requires_grad = True
    group_norm16(*leaves).backward(dy_sd)
    pt.autodiff.policy(previous)
    return [leaf.grad for leaf in leaves], pt.autodiff.last_backward()

x32_sd = pt.cast(x_sd, FP32)
mean_sd = pt.mean(x32_sd, dim=[1, 2], keepdim=True)
rstd_sd = pt.rsqrt(pt.mean((x32_sd - mean_sd) * (x32_sd - mean_sd), dim=[1, 2], keepdim=True) + 1e-5)
hand_gn = pt.schedule(group_norm16_grad, x_sd, gamma_sd, dy_sd, mean_sd, rstd_sd)
hand_dx, hand_dgamma, hand_dbeta = group_norm16_grad(x_sd, gamma_sd, dy_sd, mean_sd, rstd_sd)
saved_gn_grads, saved_gn = group_norm_sd("save")
auto_gn_grads, auto_gn = group_norm_sd("auto")
_, recompute_gn = group_norm_sd("recompute")
pt.assert_allclose(pt.cast(auto_gn_grads[0], FP32), pt.cast(hand_dx, FP32), rtol=1e-2, atol=1e-2)
pt.assert_allclose(pt.cast(auto_gn_grads[1], FP32), hand_dgamma, rtol=1e-2, atol=1e-1)
pt.assert_allclose(pt.cast(auto_gn_grads[2], FP32), hand_dbeta, rtol=1e-2, atol=1e-1)
for name, schedule in [("save everything", saved_gn), ("generated, auto", auto_gn), ("recompute", recompute_gn), ("hand-written", hand_gn)]:
    print(f"{name:16s} {schedule.time_us:7.1f} µs  {traffic(schedule) / 1e6:6.1f} MB  ({schedule.time_us / hand_gn.time_us:.2f}× the time, {traffic(schedule) / traffic(hand_gn):.2f}× the bytes)")
print("seed 003: autodiff 1.82 ms, hand-written 1.18 ms (1.54× the time)")
# What the paragraph below says: slower than hand-written, by more than the article's 1.54×.
assert auto_gn.time_us > 1.54 * hand_gn.time_us and saved_gn.time_us > 1.54 * hand_gn.time_us

# %% [markdown]
# **Where the simulation agrees with the article, and where not.** The direction agrees: the
# generated backward is slower than the hand-written one, by more than the article's 1.54× (about
# 1.9× here). The gap comes from GM traffic, not compute: the hand-written kernel reads x and dy
# twice (once for the group sums, once for dx) and the two per-group statistics; the generated
# backward under "save" reads the forward's f32 intermediates back (each twice the bytes of the
# FP16 x), and `auto` makes the same choice here — its UB rule finds that recomputing those values
# in a [1, 10, 512] f32 tile next to the backward's own tiles does not fit, so it saves. Under
# `recompute` (the third row) the backward is faster than `auto`'s choice: the rule is
# conservative where the compiler cuts a long chain through GM workspaces. The absolute times are far
# below the article's (≈ 50 µs against 1.8 ms): the article timed a whole framework step, launch and
# allocator costs included, on an unspecified shape; only the ratios compare.
#
# **与文章一致与不一致之处：** 方向一致：生成的反向比手写核慢，且慢于文章的 1.54 倍（此处约 1.9 倍）。差距来自 GM 访存：
# 手写核读两遍 x、dy 和每组统计量；生成的反向在“全部保存”下读回前向的 f32 中间值，`auto` 在此做出同样选择（其 UB 规则
# 判断在 [1, 10, 512] f32 分块内重算放不下）。`recompute`（第三行）比 `auto` 更快：该规则在编译器会经 GM
# 工作区切分长链时偏保守。绝对时间远小于文章（约 50 µs 对 1.8 ms），只有比值可比。
