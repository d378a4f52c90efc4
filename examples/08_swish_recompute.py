# %% [markdown]
# # Swish whose backward recomputes σ(βx)
# `swish_β(x) = x · σ(βx)` with β a kernel attribute (a number argument, seen by the backward as
# `ctx.attrs['beta']`). Its derivative is
#
#     d/dx swish_β(x) = σ(βx) + β·x·σ(βx)·(1 − σ(βx)) = s·(1 + β·x·(1 − s)),   s = σ(βx)
#
# Example 02 saves `s` for the backward. Here the backward recomputes `s` from `x`, which it gets
# anyway: one sigmoid more in the backward, one tensor fewer held between forward and backward.
# Forward and backward kernels are tiled in UB blocks of 4×64 (`set_vec_tile_shapes`): the 32×64
# input is 8 tiles, each loaded, computed and stored on its own.
#
# Why 4×64 and not 8×64: the kernels run on the simulated NPU (the `teaching` preset, 16 KiB of UB),
# and every tile lives in UB twice (double buffering). The backward that reads a saved s holds tiles
# of x, s and the incoming gradient plus two working tiles, each twice: 10 tiles, 20 480 bytes at 8×64 f32.
# With 8×64 the call stops with *UB overflow … the largest tile that fits is [6, 64]*, pointing at
# its `set_vec_tile_shapes`. The diagnostic names the largest tile; 6 rows would leave a ragged
# 2-row tile (32 = 5·6 + 2), so we take the largest row count below it that splits 32 rows evenly:
# 4×64, 10 tiles × 1 KiB = 10 KiB of UB. Every kernel here uses the same tiles, so the schedules
# below compare like with like.
#
# **中文说明：** `swish_β(x) = x · σ(βx)`，β 是核函数的属性（数值参数，反向通过 `ctx.attrs['beta']` 读取）。
# 导数为 `s·(1 + β·x·(1 − s))`，其中 `s = σ(βx)`。示例 02 保存 `s`；这里反向从 `x` 重新计算 `s`：
# 反向多做一次 sigmoid，但前向与反向之间少保存一个张量（反向核也少从 GM 读一个张量）。前向与反向核都按 4×64 的 UB 块分块，32×64 的输入共 8 块。
# 为什么不用 8×64：核函数在模拟 NPU 上运行（`teaching` 预设，UB 为 16 KiB），每个块因双缓冲在 UB 中占两份。
# 读取已保存 s 的反向核需要 x、s、上游梯度三个输入块和两个工作块，各两份，共 10 块，8×64 f32 时需 20480 字节；
# 诊断信息会报 *UB overflow … the largest tile that fits is [6, 64]* 并指向其 `set_vec_tile_shapes`。
# 诊断给出能放下的最大块；6 行会留下一个只有 2 行的不完整块（32 = 5·6 + 2），因此取不超过它、又能整除 32 行的
# 4×64（10 块 × 1 KiB = 10 KiB）。本例所有核使用相同的分块，使下面的调度比较公平。

# %%
import pypto as pt
# The lesson is about fitting tiles in a small UB: the `teaching` chip's 16 KiB.
pt.npu.use("teaching")

BETA = 1.5
# x runs over [−4, 4) in steps of 1/256: every value is exact in f16, and the golden generator
# rounds it to bf16 the same way the cast does. w[i] = cos(0.23·i) weights the loss.
x = pt.reshape(pt.arange(-4, 4, 1.0 / 256), [32, 64])
w = pt.reshape(pt.cos(pt.arange(0, 2048) * 0.23), [32, 64])

@pt.kernel
def swish(x, beta):
    pt.set_vec_tile_shapes(4, 64)
    return x * pt.sigmoid(x * beta)

# The backward is a kernel too, with the same UB blocks: it reads x and the incoming gradient and
# recomputes s tile by tile instead of reading a saved s.
@pt.kernel
def swish_grad(x, grad_output, beta):
    pt.set_vec_tile_shapes(4, 64)
    s = pt.sigmoid(x * beta)
    return grad_output * s * (1 + beta * x * (1 - s))

@pt.register_gradient("swish")
def swish_backward(grad_output, saved, ctx):
    x, = saved
    return swish_grad(x, grad_output, ctx.attrs["beta"])

# Two versions to compare against: the same forward with no registered gradient — its backward is
# generated from the kernel's ops and runs on the NPU (example 14), here told to save every value
# it reads (`pt.autodiff.policy("save")`) — and the example-02 style that saves s.
@pt.kernel
def swish_ops(x, beta):
    pt.set_vec_tile_shapes(4, 64)
    return x * pt.sigmoid(x * beta)

@pt.kernel
def swish_saved(x, beta):
    pt.set_vec_tile_shapes(4, 64)
    s = pt.sigmoid(x * beta)
    pt.save_for_backward(s)
    return x * s

@pt.kernel
def swish_grad_from_saved(x, s, grad_output, beta):
    pt.set_vec_tile_shapes(4, 64)
    return grad_output * s * (1 + beta * x * (1 - s))

@pt.register_gradient("swish_saved")
def swish_saved_backward(grad_output, saved, ctx):
    x, s = saved
    return swish_grad_from_saved(x, s, grad_output, ctx.attrs["beta"])

# %% [markdown]
# ## Bytes held for the backward
# `pt.graph(loss).saved_activation_bytes` counts every distinct buffer the tape keeps for the
# backward, without leaves (they live anyway). For the loss `Σ swish(x)·w` over 2048 f32 values
# (8 KiB per tensor):
# - generated, saving: σ(βx) (written by the forward for the backward) and y (saved by `y·w`) — 16 KiB;
# - saving s: s and y — 16 KiB;
# - recomputing: y only — 8 KiB. The backward needs nothing but x, which is a leaf.
#
# **中文：** `saved_activation_bytes` 统计为反向保存的激活（不含叶子张量）。自动生成的反向（保存策略）保存 σ(βx) 与 y（16 KiB），
# 保存 s 的版本同样为 16 KiB，重计算版本只保存 y（8 KiB）：反向只需要 x，而 x 本身是叶子张量。

# %%
def loss_of(kernel):
    xk = pt.as_tensor(x.tolist(), requires_grad=True)
    loss = (kernel(xk, BETA) * w).sum()
    graph = pt.graph(loss)
    loss.backward()
    return xk.grad, graph.saved_activation_bytes

previous_policy = pt.autodiff.policy("save")
dx_ops, bytes_ops = loss_of(swish_ops)
pt.autodiff.policy(previous_policy)
dx_saved, bytes_saved = loss_of(swish_saved)
dx, bytes_recompute = loss_of(swish)
print("activation bytes: generated saving", bytes_ops, "saving s", bytes_saved, "recomputing s", bytes_recompute)
pt.assert_allclose(dx, dx_ops, rtol=1e-5, atol=1e-6)
pt.assert_allclose(dx, dx_saved, rtol=1e-6, atol=1e-7)
tensor_bytes = 32 * 64 * 4
assert bytes_ops == 2 * tensor_bytes and bytes_saved == 2 * tensor_bytes, (bytes_ops, bytes_saved)
assert bytes_recompute == tensor_bytes, bytes_recompute

# %% [markdown]
# ## Gradient checks in f32, f16 and bf16
# β is an attribute, not an input, so the checked function closes over it. The analytic side runs
# in the input's dtype (stored narrow, computed in f32); the numerical side is f64. The tolerances
# follow the dtype: a bf16 value carries 8 significant bits, an f16 value 11.
#
# **中文：** β 是属性而非输入，因此被检查的函数以闭包形式固定 β。解析侧以输入的精度运行（窄类型存储、f32 计算），
# 数值侧为 f64；容差按精度选取：bf16 有 8 位有效位，f16 有 11 位。

# %%
def swish_fixed_beta(x):
    return swish(x, BETA)

reports = {}
gradients = {}
for name, dtype in [("f32", pt.DT_FP32), ("f16", pt.DT_FP16), ("bf16", pt.DT_BF16)]:
    x_narrow = pt.cast(x, dtype)
    reports[name] = pt.autodiff.check_gradient(swish_fixed_beta, [x_narrow])
    xk = pt.as_tensor(x_narrow.tolist(), dtype=dtype, requires_grad=True)
    (swish(xk, BETA) * pt.cast(w, dtype)).sum().backward()
    gradients[name] = xk.grad
    print(name, "passed", reports[name].passed, "max abs err", reports[name].max_abs_err, "grad dtype", xk.grad.dtype)
dx_f16 = gradients["f16"]
dx_bf16 = gradients["bf16"]
reports["bf16"]

# %% [markdown]
# ## Schedules on the simulated NPU
# Saving s costs GM traffic: the forward must write s next to y, and the backward reads x, s and the
# incoming gradient. Recomputing writes y only and reads x and the gradient, at the price of one
# more sigmoid per tile on the vector unit. Both forwards and both backwards use the same 4×64 tiles.
#
# **中文：** 保存 s 需要额外的 GM 访存：前向要把 s 与 y 一起写回，反向读取 x、s 和上游梯度；
# 重计算只写 y、只读 x 与梯度，代价是每个块多一次向量单元上的 sigmoid。两种做法使用相同的 4×64 分块。

# %%
@pt.kernel
def swish_and_s(x, beta):
    # What the saving forward has to do on the NPU: s leaves UB for GM, to wait for the backward.
    pt.set_vec_tile_shapes(4, 64)
    s = pt.sigmoid(x * beta)
    return x * s, s

s_value = pt.sigmoid(x * BETA)
schedules = {
    "forward, recomputing": pt.schedule(swish, x, BETA),
    "forward, saving s": pt.schedule(swish_and_s, x, BETA),
    "backward, recomputing": pt.schedule(swish_grad, x, w, BETA),
    "backward, reading s": pt.schedule(swish_grad_from_saved, x, s_value, w, BETA),
}
for name in schedules:
    schedule = schedules[name]
    print(name, schedule.cycles, "cycles, GM read", schedule.gm_bytes_read, "written", schedule.gm_bytes_written, "bound", schedule.bound)
assert schedules["forward, saving s"].gm_bytes_written == 2 * schedules["forward, recomputing"].gm_bytes_written == 2 * tensor_bytes
assert schedules["backward, reading s"].gm_bytes_read == schedules["backward, recomputing"].gm_bytes_read + tensor_bytes == 3 * tensor_bytes
# Both forwards are bound by the vector unit (a sigmoid is five vector passes: muls, exp, adds, a
# tile of ones, div), so the saving forward's extra store of s hides behind them: its cost is the
# GM bytes above, not cycles. The backward reading s is bound by its extra load.
assert schedules["forward, recomputing"].bound == "VECTOR" and schedules["forward, saving s"].bound == "VECTOR"
assert schedules["backward, recomputing"].cycles < schedules["backward, reading s"].cycles
schedules["backward, recomputing"]

# %% [markdown]
# ## Numbers that must not drift
# The narrow gradients stay within a few units in the last place of the f32 one: relative error
# below 2⁻⁹ for f16 and 2⁻⁶ for bf16 on this input.
#
# **中文：** 窄精度梯度与 f32 梯度的差别在末位的几个单位之内：本输入上 f16 相对误差小于 2⁻⁹，bf16 小于 2⁻⁶。

# %%
for name in ["f32", "f16", "bf16"]:
    assert reports[name], name + " gradient check failed"
assert reports["f32"].max_abs_err < 1e-5, reports["f32"].max_abs_err
pt.assert_allclose(pt.cast(dx_f16, pt.DT_FP32), dx, rtol=2 ** -9, atol=2e-3)
pt.assert_allclose(pt.cast(dx_bf16, pt.DT_FP32), dx, rtol=2 ** -6, atol=2e-2)
print("all checks passed")
