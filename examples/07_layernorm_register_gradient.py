# %% [markdown]
# # LayerNorm with `register_gradient`
# Over the last dim of `x` (R rows of C values):
#
#     mean = Σ x / C,   rstd = 1 / √(Σ (x − mean)² / C + eps),   x̂ = (x − mean)·rstd,   y = x̂·γ + β
#
# The forward saves `mean` and `rstd` (one number per row) with `save_for_backward`, so the backward
# rebuilds x̂ without reducing again. With `g = dy·γ`, the backward is
#
#     dx = rstd · (g − mean_C(g) − x̂ · mean_C(g·x̂)),   dγ = Σ_rows dy·x̂,   dβ = Σ_rows dy
#
# Each row is one vec tile of 2×16 in UB: the row reductions stay inside the tile.
#
# **中文说明：** 对最后一维做 LayerNorm。前向用 `save_for_backward` 保存每行的 `mean` 和 `rstd`，
# 反向据此重建 x̂，无需再次归约。记 `g = dy·γ`，则 `dx = rstd·(g − mean(g) − x̂·mean(g·x̂))`，
# `dγ = Σ dy·x̂`，`dβ = Σ dy`（按行求和）。每个 vec tile 为 2×16，行归约在 UB 内完成。

# %%
import pypto as pt

R = 6
C = 16
# Inputs from formulas (the golden generator rebuilds them in f64):
# x[i] = 2·sin(0.37·i) + 0.5, γ[j] = 1 + 0.1·cos(0.5·j), β[j] = 0.05·j − 0.2, w[i] = cos(0.23·i).
x = pt.reshape(pt.sin(pt.arange(0, R * C) * 0.37) * 2 + 0.5, [R, C])
gamma = pt.cos(pt.arange(0, C) * 0.5) * 0.1 + 1
beta = pt.arange(0, C) * 0.05 - 0.2
w = pt.reshape(pt.cos(pt.arange(0, R * C) * 0.23), [R, C])

@pt.kernel
def layer_norm(x, gamma, beta, eps=1e-5):
    pt.set_vec_tile_shapes(2, 16)
    mean = pt.mean(x, dim=-1, keepdim=True)
    centred = x - mean
    rstd = pt.rsqrt(pt.mean(centred * centred, dim=-1, keepdim=True) + eps)
    pt.save_for_backward(mean, rstd)
    return centred * rstd * gamma + beta

@pt.register_gradient("layer_norm")
def layer_norm_backward(dy, saved, ctx):
    x, gamma, beta, mean, rstd = saved
    x_hat = (x - mean) * rstd
    g = dy * gamma
    dx = rstd * (g - pt.mean(g, dim=-1, keepdim=True) - x_hat * pt.mean(g * x_hat, dim=-1, keepdim=True))
    dgamma = pt.sum(dy * x_hat, dim=0)
    dbeta = pt.sum(dy, dim=0)
    return dx, dgamma, dbeta

# %% [markdown]
# ## Gradient check
# All three inputs are perturbed: x (96 values), γ and β (16 each).
#
# **中文：** 对 x、γ、β 三个输入同时做梯度检查。

# %%
report = pt.autodiff.check_gradient(layer_norm, [x, gamma, beta])
assert report, "the registered LayerNorm backward must pass"
print("passed:", report.passed, "max abs err", report.max_abs_err)
report

# %% [markdown]
# ## Against `pypto.nn.layer_norm` + autograd
# The reference layer is a composite of primitives, differentiated op by op by the tape. The loss is
# `Σ y·w`, so `dy = w`.
#
# **中文：** 参考实现 `pypto.nn.layer_norm` 由基本算子组成，由自动微分逐算子求导；损失为 `Σ y·w`，即 `dy = w`。

# %%
xk = pt.as_tensor(x.tolist(), requires_grad=True)
gk = pt.as_tensor(gamma.tolist(), requires_grad=True)
bk = pt.as_tensor(beta.tolist(), requires_grad=True)
y = layer_norm(xk, gk, bk)
(y * w).sum().backward()
dx, dgamma, dbeta = xk.grad, gk.grad, bk.grad

xr = pt.as_tensor(x.tolist(), requires_grad=True)
gr = pt.as_tensor(gamma.tolist(), requires_grad=True)
br = pt.as_tensor(beta.tolist(), requires_grad=True)
y_reference = pt.nn.layer_norm(xr, gr, br)
(y_reference * w).sum().backward()

pt.assert_allclose(y, y_reference, rtol=1e-5, atol=1e-5)
pt.assert_allclose(dx, xr.grad, rtol=1e-4, atol=1e-5)
pt.assert_allclose(dgamma, gr.grad, rtol=1e-4, atol=1e-5)
pt.assert_allclose(dbeta, br.grad, rtol=1e-4, atol=1e-5)
graph = pt.graph(y)
# One custom node for the kernel, against the reference's chain of primitives.
print("kernel graph nodes", graph.num_nodes, "reference graph nodes", pt.graph(y_reference).num_nodes)
graph

# %% [markdown]
# ## Numbers that must not drift
# Two identities follow from the formulas: every row of dx sums to 0 (Σ_C (g − mean_C(g)) = 0 and
# Σ_C x̂ = 0), and dβ is the column sum of w. The golden test checks every value against float64.
#
# **中文：** 由公式可得两个恒等式：dx 每行之和为 0（因为 Σ(g − mean(g)) = 0 且 Σx̂ = 0），
# dβ 等于 w 的按列求和。黄金测试再将每个数值与 float64 参考逐一比较。

# %%
pt.assert_allclose(pt.sum(dx, dim=-1), pt.zeros([R]), atol=1e-5)
pt.assert_allclose(dbeta, pt.sum(w, dim=0), rtol=1e-6, atol=1e-6)
assert graph.num_nodes == 4, graph.num_nodes
assert report.max_abs_err < 1e-5, report.max_abs_err
print("all checks passed")
