# %% [markdown]
# # Custom GELU with a registered gradient
# The sigmoid form of GELU is `gelu(x) ≈ x · σ(1.702·x)`. Written as a `@pypto.kernel` with a 4×8
# vec tile (one UB tile holds the whole 4×8 input), it saves `s = σ(1.702·x)` for its backward. By the
# product rule
#
#     d/dx [x · σ(a·x)] = σ(a·x) + a·x·σ(a·x)·(1 − σ(a·x)),   a = 1.702
#
# A well-known tutorial gives a different backward, written for the *tanh* form of GELU:
# `0.5·g·(1 + t)·(1 − 0.044715·x²·(1 − t²))` with `t = tanh(0.79788456·(x + 0.044715·x³))`.
# It agrees with the true derivative at x = 0 (both 0.5) and drifts away from it elsewhere.
# We register it first and let `check_gradient` find where it is wrong, then register the right one.
#
# **中文说明：** GELU 的 sigmoid 近似为 `x · σ(1.702·x)`，写成 `@pypto.kernel`（vec tile 为 4×8，一个 UB 块即可容纳整个 4×8 输入），前向保存
# `s = σ(1.702·x)` 供反向使用。由乘积法则，其导数为 `σ(ax) + a·x·σ(ax)·(1 − σ(ax))`（a = 1.702）。
# 某教程给出的是 tanh 形式 GELU 的反向公式，与本前向并不匹配：在 x = 0 处恰好相等，其他位置有偏差。
# 先注册这个错误的反向，用 `check_gradient` 找出出错的位置，再注册正确的导数。

# %%
import pypto as pt

# Inputs from a formula, so the golden generator can rebuild them without TileLab's RNG:
# x[i] = 3·sin(0.37·i), i = 0 … 31, as a 4×8 matrix; w[i] = cos(0.23·i) weights the loss.
x = pt.reshape(pt.sin(pt.arange(0, 32) * 0.37) * 3, [4, 8])
w = pt.reshape(pt.cos(pt.arange(0, 32) * 0.23), [4, 8])

@pt.kernel
def gelu_sigmoid(x):
    pt.set_vec_tile_shapes(4, 8)
    s = pt.sigmoid(x * 1.702)
    pt.save_for_backward(s)
    return x * s

y = gelu_sigmoid(x)
pt.assert_allclose(y, x * pt.sigmoid(x * 1.702), rtol=1e-6, atol=1e-7)

# %% [markdown]
# ## The tutorial's backward, checked
# The analytic side runs the kernel and the registered backward; the numerical side takes central
# differences of the forward in f64. The worst elements are listed with their index.
#
# **中文：** 解析梯度由注册的反向给出，数值梯度是前向在 f64 下的中心差分；报告列出误差最大的元素及其下标。

# %%
@pt.register_gradient("gelu_sigmoid")
def gelu_tutorial_backward(grad_output, saved, ctx):
    x, s = saved
    t = pt.tanh(0.79788456 * (x + 0.044715 * x ** 3))
    return 0.5 * grad_output * (1 + t) * (1 - 0.044715 * x ** 2 * (1 - t ** 2))

x_tutorial = pt.as_tensor(x.tolist(), requires_grad=True)
(gelu_sigmoid(x_tutorial) * w).sum().backward()
dx_tutorial = x_tutorial.grad

report_wrong = pt.autodiff.check_gradient(gelu_sigmoid, [x])
assert not report_wrong.passed, "the tutorial's backward must fail the check"
input_index, element, analytic, numerical = report_wrong.worst[0]
print("worst element", element, "x =", round(x[element[0], element[1]].item(), 4),
      "analytic", round(analytic, 4), "numerical", round(numerical, 4))
report_wrong

# %% [markdown]
# ## The right derivative
# `σ(ax) + a·x·σ(ax)·(1 − σ(ax)) = s·(1 + a·x·(1 − s))`, reusing the saved `s`.
#
# **中文：** 正确的导数可写成 `s·(1 + a·x·(1 − s))`，直接复用前向保存的 `s`。

# %%
@pt.register_gradient("gelu_sigmoid")
def gelu_sigmoid_backward(grad_output, saved, ctx):
    x, s = saved
    return grad_output * s * (1 + 1.702 * x * (1 - s))

x_right = pt.as_tensor(x.tolist(), requires_grad=True)
(gelu_sigmoid(x_right) * w).sum().backward()
dx = x_right.grad

report_right = pt.autodiff.check_gradient(gelu_sigmoid, [x])
assert report_right, "the product-rule derivative must pass"
print("passed:", report_right.passed, "max abs err", report_right.max_abs_err)
report_right

# %% [markdown]
# ## Numbers that must not drift
# At x = 0 both backwards give 0.5. Across this input the tutorial's formula is off by up to
# ≈ 0.24 (at x ≈ 1.08 the true slope is 1.08, the tutorial's 0.84), while the right derivative matches finite differences to ~1e-7.
#
# **中文：** 两个反向在 x = 0 处都等于 0.5；在本输入上教程公式最大偏差约 0.24（x ≈ 1.08 处真实斜率为 1.08，教程公式给出 0.84），
# 正确导数与有限差分的误差约为 1e-7。

# %%
assert abs(dx[0, 0].item() - 0.5) < 1e-6 and abs(dx_tutorial[0, 0].item() - 0.5) < 1e-6
assert 0.2 < report_wrong.max_abs_err < 0.3, report_wrong.max_abs_err
assert report_right.max_abs_err < 1e-5, report_right.max_abs_err
assert element == (0, 1), element
pt.assert_allclose(dx, (pt.sigmoid(x * 1.702) * (1 + 1.702 * x * (1 - pt.sigmoid(x * 1.702)))) * w, rtol=1e-5, atol=1e-6)
print("all checks passed")
