# %% [markdown]
# # GroupNorm backward as a `@pypto.frontend.jit` kernel
# `x` has shape [N, C, HW]; its C channels form G groups of C/G channels. Per (sample n, group g),
# over the C/G·HW values of the group:
#
#     mean = Σ x / M,   rstd = 1/√(Σ (x − mean)²/M + eps),   x̂ = (x − mean)·rstd,   y = γ_c·x̂ + β_c
#
# with M = C/G·HW. With `g = dy·γ_c`, the backward needs two reductions per group, of g and of g·x̂:
#
#     dx = rstd · (g − mean_group(g) − x̂ · mean_group(g·x̂))
#     dγ_c = Σ_{n, hw} dy·x̂,   dβ_c = Σ_{n, hw} dy
#
# Both kernels are written in the real pypto style: outputs are parameters written in place, one
# `pypto.loop` over samples and one over groups, each iteration `pypto.view`s its [1, C/G, HW] tile.
# In the backward the group loop is the outer one, so one unit of work sums dγ and dβ of a group's
# channels over the samples in UB and writes them once.
#
# **中文说明：** `x` 的形状为 [N, C, HW]，C 个通道分成 G 组。对每个（样本 n, 组 g）求均值与 rstd，
# 得 `x̂`，再做逐通道仿射。记 `g = dy·γ`，反向每组需要两次归约（g 与 g·x̂），再计算 dx；
# 反向以组循环为外层，每组通道的 dγ、dβ 由同一个工作单元在 UB 中对样本求和后一次写出。两个核都按真实 pypto 风格书写：输出为原地写入的参数，
# 用 `pypto.loop` 遍历样本与组，每次迭代用 `pypto.view` 取出 [1, C/G, HW] 的块。

# %%
import pypto as pt

N = 2
C = 8
HW = 8
G = 4
CG = C // G
# Inputs from formulas (rebuilt in f64 by the golden generator): x[i] = 2·sin(0.37·i) + 0.3,
# γ[c] = 1 + 0.1·cos(0.5·c), β[c] = 0.05·c − 0.2, and dy = w[i] = cos(0.23·i).
x = pt.reshape(pt.sin(pt.arange(0, N * C * HW) * 0.37) * 2 + 0.3, [N, C, HW])
gamma = pt.cos(pt.arange(0, C) * 0.5) * 0.1 + 1
beta = pt.arange(0, C) * 0.05 - 0.2
w = pt.reshape(pt.cos(pt.arange(0, N * C * HW) * 0.23), [N, C, HW])

# γ and β come in as [1, C, 1] columns, so a group's slice is a view that broadcasts over HW.
@pt.frontend.jit
def group_norm_forward(x, gamma, beta, y, mean, rstd):
    pt.set_vec_tile_shapes(1, CG, HW)
    for n in pt.loop(0, N, name="samples", idx_name="n"):
        for g in pt.loop(0, G, name="groups", idx_name="g"):
            tile = pt.view(x, [1, CG, HW], [n, g * CG, 0])
            m = pt.mean(tile, dim=[1, 2], keepdim=True)
            centred = tile - m
            r = pt.rsqrt(pt.mean(centred * centred, dim=[1, 2], keepdim=True) + 1e-5)
            scale = pt.view(gamma, [1, CG, 1], [0, g * CG, 0])
            shift = pt.view(beta, [1, CG, 1], [0, g * CG, 0])
            pt.assemble(centred * r * scale + shift, [n, g * CG, 0], y)
            pt.assemble(m, [n, g, 0], mean)
            pt.assemble(r, [n, g, 0], rstd)

@pt.frontend.jit
def group_norm_backward(dy, x, gamma, mean, rstd, dx, dgamma, dbeta):
    pt.set_vec_tile_shapes(1, CG, HW)
    # Groups outside, samples inside: each outer iteration (a unit of work for one core) owns its
    # channels' dγ and dβ, sums the samples in UB and writes them once; no two units write the same place.
    for g in pt.loop(0, G, name="groups", idx_name="g"):
        first = g * CG
        for n in pt.loop(0, N, name="samples", idx_name="n"):
            x_tile = pt.view(x, [1, CG, HW], [n, first, 0])
            dy_tile = pt.view(dy, [1, CG, HW], [n, first, 0])
            m = pt.view(mean, [1, 1, 1], [n, g, 0])
            r = pt.view(rstd, [1, 1, 1], [n, g, 0])
            scale = pt.view(gamma, [1, CG, 1], [0, first, 0])
            x_hat = (x_tile - m) * r
            scaled = dy_tile * scale
            # The two per-group reductions.
            mean_scaled = pt.mean(scaled, dim=[1, 2], keepdim=True)
            mean_projected = pt.mean(scaled * x_hat, dim=[1, 2], keepdim=True)
            pt.assemble((scaled - mean_scaled - x_hat * mean_projected) * r, [n, first, 0], dx)
            # Per-channel sums over HW, accumulated over the samples.
            part_gamma = pt.sum(dy_tile * x_hat, dim=[0, 2], keepdim=True)
            part_beta = pt.sum(dy_tile, dim=[0, 2], keepdim=True)
            if n == 0:
                sum_gamma, sum_beta = part_gamma, part_beta
            else:
                sum_gamma = sum_gamma + part_gamma
                sum_beta = sum_beta + part_beta
        pt.assemble(sum_gamma, [0, first, 0], dgamma)
        pt.assemble(sum_beta, [0, first, 0], dbeta)

# %% [markdown]
# ## Forward, then backward by hand
# The forward writes y and the per-group statistics; the backward reads them back.
#
# **中文：** 前向写出 y 与每组统计量 mean、rstd；反向读取它们。

# %%
gamma_column = pt.reshape(gamma, [1, C, 1])
beta_column = pt.reshape(beta, [1, C, 1])
y = pt.zeros([N, C, HW])
mean = pt.zeros([N, G, 1])
rstd = pt.zeros([N, G, 1])
group_norm_forward(x, gamma_column, beta_column, y, mean, rstd)

dx = pt.zeros([N, C, HW])
dgamma_column = pt.zeros([1, C, 1])
dbeta_column = pt.zeros([1, C, 1])
group_norm_backward(w, x, gamma_column, mean, rstd, dx, dgamma_column, dbeta_column)
dgamma = pt.reshape(dgamma_column, [C])
dbeta = pt.reshape(dbeta_column, [C])
print("mean of group (0, 0):", round(mean[0, 0, 0].item(), 5), "rstd:", round(rstd[0, 0, 0].item(), 5))

# %% [markdown]
# ## Against `pypto.nn.group_norm` + autograd
# The reference layer is built from primitives (reshape to [N, G, M], mean, var, rsqrt …) and
# differentiated by the tape. With the loss `Σ y·w`, its gradients are the jit kernel's dx, dγ, dβ.
#
# **中文：** 参考实现 `pypto.nn.group_norm` 由基本算子组成，由自动微分求导；损失为 `Σ y·w` 时，
# 其梯度应与 jit 核给出的 dx、dγ、dβ 一致。

# %%
xr = pt.as_tensor(x.tolist(), requires_grad=True)
gr = pt.as_tensor(gamma.tolist(), requires_grad=True)
br = pt.as_tensor(beta.tolist(), requires_grad=True)
y_reference = pt.nn.group_norm(xr, G, gr, br)
(y_reference * w).sum().backward()
pt.assert_allclose(y, y_reference, rtol=1e-5, atol=1e-5)
pt.assert_allclose(dx, xr.grad, rtol=1e-4, atol=1e-5)
pt.assert_allclose(dgamma, gr.grad, rtol=1e-4, atol=1e-5)
pt.assert_allclose(dbeta, br.grad, rtol=1e-4, atol=1e-5)
print("dx, dgamma, dbeta match the reference")

# %% [markdown]
# ## The jit kernels as a differentiable layer
# A `@pypto.kernel` wraps the forward; its registered gradient calls the jit backward. The
# intermediate outputs take the input's dtype, so the f64 copy of the numerical side stays f64.
#
# **中文：** 用 `@pypto.kernel` 包装前向，其注册的反向调用 jit 反向核；中间输出采用输入的 dtype，
# 使数值侧的 f64 副本保持 f64 精度。

# %%
@pt.kernel
def group_norm(x, gamma, beta):
    y = pt.zeros(x.shape, dtype=x.dtype)
    mean = pt.zeros([N, G, 1], dtype=x.dtype)
    rstd = pt.zeros([N, G, 1], dtype=x.dtype)
    group_norm_forward(x, pt.reshape(gamma, [1, C, 1]), pt.reshape(beta, [1, C, 1]), y, mean, rstd)
    pt.save_for_backward(mean, rstd)
    return y

@pt.register_gradient("group_norm")
def group_norm_gradient(dy, saved, ctx):
    x, gamma, beta, mean, rstd = saved
    dx = pt.zeros(x.shape, dtype=x.dtype)
    dgamma = pt.zeros([1, C, 1], dtype=x.dtype)
    dbeta = pt.zeros([1, C, 1], dtype=x.dtype)
    group_norm_backward(dy, x, pt.reshape(gamma, [1, C, 1]), mean, rstd, dx, dgamma, dbeta)
    return dx, pt.reshape(dgamma, [C]), pt.reshape(dbeta, [C])

report = pt.autodiff.check_gradient(group_norm, [x, gamma, beta])
assert report, "the jit backward must pass the gradient check"
report

# %% [markdown]
# ## Numbers that must not drift
# Each group of x̂ has mean 0 and mean square ≈ 1, so Σ_group dx = 0 for every (n, g); dβ is the sum
# of w over samples and positions.
#
# **中文：** 每组 x̂ 的均值为 0、均方约为 1，因此每个（n, g）组内 dx 之和为 0；dβ 为 w 在样本和位置上的和。

# %%
group_sums = pt.sum(pt.reshape(dx, [N, G, CG * HW]), dim=-1)
pt.assert_allclose(group_sums, pt.zeros([N, G]), atol=1e-5)
pt.assert_allclose(dbeta, pt.sum(pt.sum(w, dim=2), dim=0), rtol=1e-5, atol=1e-6)
assert report.non_differentiable == 0, report.non_differentiable
assert report.max_abs_err < 1e-5, report.max_abs_err
print("all checks passed")
