# %% [markdown]
# # A Swish kernel with a registered gradient
# `swish(x) = x · σ(x)`, so `swish'(x) = σ(x) + x·σ(x)·(1 − σ(x)) = σ(x)·(1 + x·(1 − σ(x)))`.
# The kernel saves σ(x) for its backward; the gradient check compares the registered backward with
# central finite differences computed in f64.

# %%
import pypto as pt

@pt.kernel
def swish(x):
    pt.set_vec_tile_shapes(8, 16)
    s = pt.sigmoid(x)
    pt.save_for_backward(s)
    return x * s

@pt.register_gradient("swish")
def swish_backward(grad_output, saved, ctx):
    x, s = saved
    return grad_output * s * (1 + x * (1 - s))

# %%
x = pt.randn([8, 16], requires_grad=True, seed=1)
y = swish(x)
loss = y.sum()
loss.backward()
print("loss", round(loss.item(), 4))
print("grad shape", x.grad.shape)
pt.graph(loss)

# %%
# The registered gradient agrees with finite differences.
report = pt.autodiff.check_gradient(swish, [pt.randn([4, 8], seed=2)])
print("passed:", report.passed, "max abs err below 1e-4:", report.max_abs_err < 1e-4)
assert report, "the Swish gradient should pass the check"
report
