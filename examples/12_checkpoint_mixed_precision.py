# %% [markdown]
# # Memory: gradient checkpointing and mixed precision
# **Checkpointing.** A chain of n layers `h_{l+1} = tanh(h_l · W_l)` keeps every activation h_l
# alive until the backward pass uses it: activation memory grows as O(n). `pypto.checkpoint(fn,
# *args)` keeps only the inputs of `fn` and recomputes its inside during backward. Cutting the chain
# into √n segments of √n layers keeps √n − 1 segment boundaries after the forward, and one segment
# (√n activations) while it is recomputed: O(√n) instead of O(n). The gradients are the same,
# because the recomputation repeats exactly the same ops.
#
# **Mixed precision.** An f16 step casts the f32 master weights to f16 for the forward and backward.
# Gradients below f16's smallest normal (6.1e−5) lose precision and tiny ones flush to 0, so the loss
# is multiplied by a scale S before `backward()` and the gradients are divided by S afterwards. If S
# is too large, an f16 gradient overflows (max 65504) to inf: that step is skipped and S halved.
# After a run of good steps S is doubled again (dynamic loss scaling).
#
# ## 中文说明
# **梯度检查点**：n 层链式网络在前向时保留所有激活，内存为 O(n)。`pypto.checkpoint` 只保留分段的
# 输入，反向时重新计算段内结果；分成 √n 段后，前向结束时只保留 √n − 1 个分段边界，重算时再多
# √n 个激活，总量 O(√n)，梯度完全相同。
# **混合精度**：f16 步骤把 f32 主权重转换为 f16 做前向和反向；先把损失乘以缩放因子 S 再反向，
# 避免小梯度下溢，更新前再除以 S。若 f16 梯度溢出为 inf，则跳过该步并把 S 减半；连续若干步正常后
# S 加倍（动态损失缩放）。

# %%
import pypto as pt
import math

ROWS, WIDTH = 16, 32
ACTIVATION_BYTES = ROWS * WIDTH * 4   # one f32 activation h_l: 2 KiB

def chain_inputs(layers):
    """h0 [ROWS, WIDTH], stacked weights [layers, WIDTH, WIDTH] and a target, from formulas."""
    rows = pt.arange(ROWS).reshape([ROWS, 1])
    cols = pt.arange(WIDTH).reshape([1, WIDTH])
    h0 = pt.sin(rows * 0.3 + cols * 0.11)
    target = pt.cos(rows * 0.07 - cols * 0.05) * 0.5
    layer = pt.arange(layers).reshape([layers, 1, 1])
    inputs = pt.arange(WIDTH).reshape([1, WIDTH, 1])
    outputs = pt.arange(WIDTH).reshape([1, 1, WIDTH])
    weights = pt.sin(layer * 0.7 + inputs * 0.31 - outputs * 0.17) * 0.3
    return h0, weights, target

def run_layers(h, weights, start, stop):
    for index in range(start, stop):
        h = pt.tanh(h @ weights[index])
    return h

def segment(h, weights, start, length):
    return run_layers(h, weights, start, start + length)

def forward(h0, weights, layers, segment_length):
    """segment_length 0: no checkpointing; otherwise checkpoint every segment_length layers."""
    if segment_length == 0:
        return run_layers(h0, weights, 0, layers)
    h = h0
    for start in range(0, layers, segment_length):
        h = pt.checkpoint(segment, h, weights, start, segment_length)
    return h

# %% [markdown]
# ## Saved bytes: O(n) against O(√n)
# `pypto.graph(loss).saved_activation_bytes` counts the distinct non-leaf buffers the graph holds for
# backward (the stacked weights and h0 are leaves: they live anyway). Without checkpointing, layer l
# saves its input h_l (2 KiB, the previous tanh's output, counted once) and the weight slice
# `weights[l]` (4 KiB: indexing makes a new tensor); the loss's square `(h_n − target) ** 2` saves its
# base and its exponent (the 2 is broadcast to a [16, 32] tensor): n · 6 KiB + 4 KiB. With √n
# segments only the √n − 1 boundaries between segments stay (2 KiB each) plus the loss's 4 KiB.
# 无检查点：每层保存输入激活（2 KiB）和权重切片（4 KiB）；有检查点：只保存 √n − 1 个分段边界。

# %%
print("layers  plain (B)  checkpointed (B)  estimated peak while a segment is recomputed (B)")
saved = {}
for layers in [4, 16, 64]:
    h0, weights, target = chain_inputs(layers)
    weights.requires_grad = True
    length = int(math.sqrt(layers))
    plain = pt.graph(((forward(h0, weights, layers, 0) - target) ** 2).mean()).saved_activation_bytes
    checkpointed = pt.graph(((forward(h0, weights, layers, length) - target) ** 2).mean()).saved_activation_bytes
    # Estimate, not measured: while one segment is recomputed in backward, it holds its own
    # `length` layers (6 KiB each, as in the plain chain) on top of the boundaries.
    peak = checkpointed + length * 3 * ACTIVATION_BYTES
    saved[layers] = (plain, checkpointed)
    print(layers, "     ", plain, "    ", checkpointed, "           ", peak)
    loss_bytes = 2 * ACTIVATION_BYTES
    assert plain == layers * 3 * ACTIVATION_BYTES + loss_bytes, (layers, plain)
    assert checkpointed == (length - 1) * ACTIVATION_BYTES + loss_bytes, (layers, checkpointed)
# 16× more layers: about 16× the plain bytes, but only (8 − 1 + 2)/(2 − 1 + 2) = 3× the checkpointed.
assert saved[64][0] == 98304 * 4 + 4096 and saved[4][0] == 28672
assert saved[64][1] == 18432 and saved[4][1] == 6144

# %% [markdown]
# ## Training with and without checkpoints gives the same numbers
# Three SGD steps (learning rate 0.5) on a 16-layer chain, once plain and once with 4 segments of 4
# layers. The losses are compared with each other and with a numpy float64 reference (golden).
# 两种方式训练三步，损失完全一致，并与 numpy float64 参考值对比。

# %%
def train(layers, segment_length, steps, rate):
    h0, weights, target = chain_inputs(layers)
    weights.requires_grad = True
    losses = []
    for step in range(steps):
        loss = ((forward(h0, weights, layers, segment_length) - target) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        weights = (weights - weights.grad * rate).detach()
        weights.requires_grad = True
    return losses, weights

plain_losses, plain_weights = train(16, 0, 3, 0.5)
checkpoint_losses, checkpoint_weights = train(16, 4, 3, 0.5)
print("plain       ", plain_losses)
print("checkpointed", checkpoint_losses)
assert plain_losses == checkpoint_losses, "recomputation repeats the same ops: the same losses"
pt.assert_allclose(plain_weights, checkpoint_weights, rtol=0.0, atol=0.0)
assert plain_losses[2] < plain_losses[0]
# numpy float64 golden (tests/golden/make_gallery_golden_b.py).
GOLDEN_LOSSES = [0.89449597, 0.65153594, 0.38493793]
for index in range(3):
    assert abs(plain_losses[index] - GOLDEN_LOSSES[index]) <= 1e-4 * GOLDEN_LOSSES[index], (index, plain_losses[index])

# %% [markdown]
# ## An f16 step with dynamic loss scaling, against the f32 step
# A one-layer model `y = tanh(x · W)` fitted to a target. The f32 step is plain SGD. The f16 step
# keeps f32 master weights, runs forward and backward in f16 on `scale · loss`, and lets
# `pt.autodiff.LossScaler` unscale the gradient and check it for inf/NaN: the step is skipped and
# the scale halved, or the weights are updated. It starts with S = 2²⁴, far too large: the first
# steps overflow and are skipped until S fits; after two good steps in a row S doubles. 起始缩放因子过大：前几步溢出被跳过，直到 S 合适。

# %%
FP16 = pt.DT_FP16
FP32 = pt.DT_FP32
rows = pt.arange(64).reshape([64, 1])
cols = pt.arange(WIDTH).reshape([1, WIDTH])
features = pt.sin(rows * 0.21 + cols * 0.37)
goal = pt.tanh(pt.cos(rows * 0.05 + cols * 0.09) * 0.8)
start_weights = pt.cos(pt.arange(WIDTH).reshape([WIDTH, 1]) * 0.13 - pt.arange(WIDTH).reshape([1, WIDTH]) * 0.29) * 0.2

def f32_training(steps, rate):
    weights = start_weights.detach()
    weights.requires_grad = True
    losses = []
    for step in range(steps):
        loss = ((pt.tanh(features @ weights) - goal) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        weights = (weights - weights.grad * rate).detach()
        weights.requires_grad = True
    return losses

def f16_training(steps, rate, scale):
    master = start_weights.detach()
    master.requires_grad = True
    features16 = pt.cast(features, FP16)
    # Halve the scale after an overflow, double it after two finite steps in a row.
    scaler = pt.autodiff.LossScaler(init_scale=scale, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
    losses = []
    scales = []
    skipped = 0
    while len(losses) < steps:
        prediction = pt.tanh(features16 @ pt.cast(master, FP16))
        loss = ((pt.cast(prediction, FP32) - goal) ** 2).mean()
        scaler.scale_loss(loss).backward()
        scales.append(scaler.scale)
        # The gradients divided by the scale, in f32, and whether none is inf or NaN.
        gradients, finite = scaler.unscale([master])
        scaler.update(finite)
        if finite:
            losses.append(loss.item())
            master = master - gradients[0] * rate
        else:
            skipped += 1
        master = master.detach()
        master.requires_grad = True
    return losses, skipped, scales

f32_losses = f32_training(6, 1.0)
f16_losses, skipped, scales = f16_training(6, 1.0, 2.0 ** 24)
print("f32 losses", f32_losses)
print("f16 losses", f16_losses)
print("skipped", skipped, "steps; scales tried", scales)
assert skipped >= 1, "the first scale is meant to overflow"
assert f16_losses[5] < f16_losses[0] and f32_losses[5] < f32_losses[0]
# f16 keeps about 3 decimal digits: the two runs agree to 1%.
for index in range(6):
    assert abs(f16_losses[index] - f32_losses[index]) <= 1e-2 * f32_losses[index], (index, f16_losses[index], f32_losses[index])
# numpy float64 golden; the skip count from numpy's f16 emulation of the same steps.
GOLDEN_F32_LOSSES = [0.41978383, 0.33042657, 0.2696516, 0.24150066, 0.23299936, 0.23102767]
for index in range(6):
    assert abs(f32_losses[index] - GOLDEN_F32_LOSSES[index]) <= 1e-4 * GOLDEN_F32_LOSSES[index], (index, f32_losses[index])
GOLDEN_SKIPPED = 3
assert skipped == GOLDEN_SKIPPED, skipped
