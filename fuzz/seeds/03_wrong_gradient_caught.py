# %% [markdown]
# # A wrong gradient, caught
# This Swish backward forgets the second term of the product rule: it returns `σ(x)` instead of
# `σ(x)·(1 + x·(1 − σ(x)))`. Training would silently go wrong; the gradient check catches it.

# %%
import pypto as pt

@pt.kernel
def swish(x):
    s = pt.sigmoid(x)
    pt.save_for_backward(s)
    return x * s

@pt.register_gradient("swish")
def swish_backward(grad_output, saved, ctx):
    x, s = saved
    return grad_output * s  # wrong: the x·σ(x)·(1 − σ(x)) term is missing

# %%
report = pt.autodiff.check_gradient(swish, [pt.randn([3, 5], seed=3)])
assert not report.passed, "the check should catch the missing term"
print("caught: max abs err", round(report.max_abs_err, 4))
input_index, element, analytic, numerical = report.worst[0]
print("worst element", element, "analytic", round(analytic, 4), "numerical", round(numerical, 4))
report
