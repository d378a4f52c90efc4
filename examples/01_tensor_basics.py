# %% [markdown]
# # Tensor basics
# Tensors are created with `pypto.tensor`, `zeros`, `ones`, `full`, `arange`, `randn`, `rand`.
# Operators broadcast like numpy; a Python number takes the tensor's dtype.

# %%
import pypto as pt

x = pt.as_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("shape", x.shape, "dtype", x.dtype)
y = x * 2 + pt.ones([3])
print(y.tolist())

# %%
# Reductions take dim and keepdim; softmax is numerically stable.
print(x.sum(), x.sum(dim=0).tolist(), x.mean(dim=1, keepdim=True).shape)
p = pt.softmax(x, dim=-1)
pt.assert_allclose(p.sum(dim=-1), pt.ones([2]), rtol=1e-6)

# %%
# Shape ops, slicing and in-place writes.
z = pt.zeros([4, 4])
z[1:3, 1:3] = 7.0
z[0] = pt.arange(4)
print(z.tolist())
t = pt.transpose(x, 0, 1)
print(t.shape, (x @ t).shape)

# %%
# A tile of a larger tensor: view with valid_shape reads the outside as 0, assemble writes back.
big = pt.arange(10).reshape([2, 5])
tile = pt.view(big, [2, 4], [0, 4], valid_shape=[2, 1])
print(tile.tolist())
out = pt.zeros([2, 5])
pt.assemble(tile * 10, [0, 4], out)
print(out.tolist())

# %%
# Casting to half precision rounds to the nearest representable value.
h = pt.cast(pt.as_tensor([1.0 / 3.0]), pt.DT_FP16)
print(h.dtype, h.item())
pt.randn([3, 4], seed=0)
